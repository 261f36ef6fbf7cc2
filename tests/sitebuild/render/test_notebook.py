"""The downloadable notebook's Markdown reads as the page does: values, words, references."""

from __future__ import annotations

import json

import pytest

from sitebuild.execution.executed import ExecutedPage, InlineValue
from sitebuild.execution.outputs import Output
from sitebuild.render.notebook import full_reference, notebook_json, plain_markdown, reader_lines
from sitebuild.source.read import read_page
from sitebuild.source.references import Reference

REF = Reference(key="good2005", authors=("Good, P.",), title="Permutation Tests.", year="2005", venue="Springer",
                doi="10.1007/b138696")
BIB = {"good2005": REF}

PAGE = """---
title: Notebook
summary: A page for the notebook.
---

The gap is `{python:.3f} gap` and it [is small]{check="gap < 0.1"} [@good2005].

```python {caption="Rates by group"} {label="tab-rates"}
gap = 0.0512
table
```

As [](#tab-rates) shows, in [1998]{.nocheck}, `code` stays code.

:::{note}
Read *this*.
:::

```python
print("[x]{.nocheck} and [@good2005] in code stay as written")
```

## Further Reading

- [@good2005]
"""


def read(tmp_path, text: str = PAGE):
    (tmp_path / "explainers").mkdir(exist_ok=True)
    (tmp_path / "explainers" / "notebook.md").write_text(text, encoding="utf-8")
    return read_page(tmp_path / "explainers" / "notebook.md", tmp_path)


@pytest.mark.parametrize(("written", "read_as"), [
    ('[is small]{check="gap < 0.1"}', "is small"),
    ("[Angwin et al., 2016]{.nocheck}", "Angwin et al., 2016"),
    ("[a [link](x.md) inside]{check=\"ok\"}", "a [link](x.md) inside"),
    ("[a link](x.md){.external}", "[a link](x.md)"),
    ("*stress*{.nocheck}", "*stress*"),
    ("[not a span] {.x}", "[not a span] {.x}"),
    ("see [@good2005]", "see ([Good 2005](https://doi.org/10.1007/b138696))"),
    ("- [@good2005]", "- " + full_reference(REF)),
    ("[@nobody]", "[@nobody]"),
])
def test_plain_markdown_drops_the_authoring_syntax(written, read_as):
    assert plain_markdown(written, BIB) == read_as


def test_a_full_reference_is_markdown_with_its_link():
    assert full_reference(REF) == ("Good, P. (2005). Permutation Tests. *Springer*. "
                                   "[doi:10.1007/b138696](https://doi.org/10.1007/b138696)")


def test_reader_lines_keep_the_code_and_the_line_count(tmp_path):
    page = read(tmp_path)
    lines = reader_lines(page, {0: "0.051"}, BIB, {"tab-rates": "Table 1"})
    assert len(lines) == len(page.text.splitlines())
    text = "".join(lines)
    assert "The gap is 0.051 and it is small ([Good 2005](https://doi.org/10.1007/b138696))." in text
    assert "As Table 1 shows, in 1998, `code` stays code." in text
    assert "> **Note**\n>\n> Read *this*.\n\n" in text
    assert 'print("[x]{.nocheck} and [@good2005] in code stay as written")' in text
    assert "title: Notebook" in text  # the front matter as written


def test_the_notebook_holds_the_values_and_outputs(tmp_path):
    page = read(tmp_path)
    table = "<table><tr><td>0.05</td></tr></table>"
    executed = ExecutedPage(slug="notebook", blocks={1: [Output("html", table)]}, inline=[InlineValue(0, "0.051")],
                            notebook_outputs={1: [{"output_type": "stream", "name": "stdout", "text": "x\n"}]})
    notebook = json.loads(notebook_json(page, executed, BIB))
    markdown = "\n".join("".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "markdown")
    assert "The gap is 0.051" in markdown and "As Table 1 shows" in markdown and "{check=" not in markdown
    assert "- " + full_reference(REF) in markdown
    code = [c for c in notebook["cells"] if c["cell_type"] == "code"]
    assert code[0]["source"] == "gap = 0.0512\ntable" and code[0]["outputs"][0]["text"] == "x\n"
