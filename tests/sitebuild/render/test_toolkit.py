"""Rendering of the author's toolkit without a kernel: formulas as MathML (and their
errors at their line), callouts, prose tables in their scroll box, numbered tables."""

from __future__ import annotations

import re

import pytest

from sitebuild.checks.check import check_math
from sitebuild.checks.figures import check_figures, table_labels, table_numbers
from sitebuild.errors import SourceError
from sitebuild.execution.executed import ExecutedPage, PageError
from sitebuild.execution.outputs import Output
from sitebuild.render.prose import make_markdown, prose_html
from sitebuild.source.math import (
    EMPTY_FORMULA_REASON,
    MATH_ERROR,
    UNKNOWN_COMMAND_REASON,
    UNPAIRED_BRACES_REASON,
    MathError,
    page_formulas,
    to_mathml,
)
from sitebuild.source.read import read_page

MATH_PAGE = r"""---
title: Formulas
summary: A page with formulas.
---

The false positive rate is $P(\hat{Y} = 1 \mid Y = 0)$ in each group, and 12 rows differ.

$$
\Delta = \mathrm{FPR}_a - \mathrm{FPR}_b = 0.25
$$

\begin{align}
a &= 0.5 \\
b &= 7
\end{align}
"""

TABLE = ("<table><thead><tr><th>group</th><th>rate</th></tr></thead>"
         "<tbody><tr><td>a</td><td>0.5</td></tr></tbody></table>")


def read(tmp_path, text: str, name: str = "page.md"):
    folder = tmp_path / "explainers"
    folder.mkdir(exist_ok=True)
    (folder / name).write_text(text, encoding="utf-8")
    return read_page(folder / name, tmp_path)


def test_inline_display_and_amsmath_formulas_become_mathml(tmp_path):
    html = prose_html(make_markdown(), read(tmp_path, MATH_PAGE), None, {})
    assert html.count("<math ") == 3
    assert 'display="inline"' in html and html.count('display="block"') == 2
    assert "$" not in html and r"\hat" not in html and r"\begin" not in html
    assert '<div class="math-display"><math' in html


def test_formulas_are_found_at_their_md_lines(tmp_path):
    formulas = page_formulas(read(tmp_path, MATH_PAGE).tokens)
    assert [(f.line, f.display) for f in formulas] == [(6, False), (8, True), (12, True)]


@pytest.mark.parametrize(("latex", "reason"), [
    (r"x^", "missing super script or subscript"),
    (r"\left( x", "extra left or missing right"),
    (r"\frob{x}", UNKNOWN_COMMAND_REASON.format(command=r"\frob")),
    ("  ", EMPTY_FORMULA_REASON),
    (r"\frac{1}{", UNPAIRED_BRACES_REASON.format(opened=2, closed=1)),
    (r"a^{2}}", UNPAIRED_BRACES_REASON.format(opened=1, closed=2)),
])
def test_latex_errors_say_what_is_wrong(latex, reason):
    with pytest.raises(MathError) as caught:
        to_mathml(latex)
    assert caught.value.reason == reason
    assert str(caught.value) == MATH_ERROR.format(latex=latex.strip(), reason=reason)


def test_a_latex_error_is_a_problem_at_its_md_line(tmp_path):
    text = "---\ntitle: T\nsummary: S.\n---\n\nFine $x^2$.\n\nBroken\n$\\frob{x} + 1$ here.\n"
    page = read(tmp_path, text)
    problems = check_math(page)
    assert [(p.path, p.line, p.severity) for p in problems] == [(page.rel_path, 9, "error")]
    assert problems[0].message == MATH_ERROR.format(latex=r"\frob{x} + 1",
                                                    reason=UNKNOWN_COMMAND_REASON.format(command=r"\frob"))
    html = prose_html(make_markdown(), page, None, {})
    assert r'<code class="math-error">\frob{x} + 1</code>' in html


def test_dollar_amounts_are_not_formulas(tmp_path):
    page = read(tmp_path, "---\ntitle: T\nsummary: S.\n---\n\nIt costs $5 or $10 a month.\n")
    assert page_formulas(page.tokens) == []
    assert "$5 or $10" in prose_html(make_markdown(), page, None, {})


CALLOUTS = """---
title: Callouts
summary: A page with callouts.
---

:::{note}
The interval is *exact* below 40 rows.
:::

:::{warning} Small groups
Do not read a gap of 0.3 on 12 rows as a finding.
:::
"""


def test_callouts_are_notes_with_their_kind_announced(tmp_path):
    page = read(tmp_path, CALLOUTS)
    html = prose_html(make_markdown(), page, None, {})
    assert ('<div class="callout callout-note" role="note" aria-label="Note"><p class="callout-title">Note</p>\n'
            "<p>The interval is <em>exact</em> below 40 rows.</p>\n</div>") in html
    assert '<div class="callout callout-warning" role="note" aria-label="Warning: Small groups">' in html
    assert ":::" not in html and "{note}" not in html


def test_a_prose_table_sits_in_the_scroll_box(tmp_path):
    text = "---\ntitle: T\nsummary: S.\n---\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"
    html = prose_html(make_markdown(), read(tmp_path, text), None, {})
    assert re.search(r'<div class="table-scroll prose-table"><table>.*</table>\n?</div>', html, re.S)


def test_a_prose_tables_caption_is_numbered_with_the_output_tables_in_page_order(tmp_path):
    text = TABLES.replace("```python\nprint(\"no caption\")\n```\n",
                          "| group | rows |\n|---|---|\n| young | 44 |\n\nTable: Rows of each group, 2 groups.\n\n"
                          "| plain |\n|---|\n| x |\n\nNo caption here.\n")
    page = read(tmp_path, text)
    result = ExecutedPage(slug="page", blocks={1: [Output("html", TABLE)]})
    assert table_numbers(page, result) == {(0, 6): 1, (1, 0): 2}  # the prose table at line 6 first
    html = prose_html(make_markdown(), page, result, {})
    assert re.search(r'<figure class="prose-table-figure"><div class="table-scroll prose-table"><table>.*?'
                     r'</table>\n</div>\n<figcaption><span class="table-number">Table 1.</span> Rows of each group, '
                     r'2 groups.</figcaption></figure>', html, re.S)
    assert "Table:" not in html and "<p>No caption here.</p>" in html
    assert html.count("prose-table-figure") == 1 and "Table 2.</span> Denial rate by group" in html
    assert 'As <a class="xref" href="#tab-rates">Table 2</a> shows' in html


TABLES = """---
title: Tables
summary: A page with numbered tables.
---

```python
print("no caption")
```

```python {caption="Denial rate by group"} {label="tab-rates"}
rates
```

As [](#tab-rates) shows, and [the table](#tab-rates) too.
"""


def tables_executed() -> ExecutedPage:
    return ExecutedPage(slug="page", blocks={1: [Output("html", TABLE)], 2: [Output("html", TABLE)]})


def test_a_captioned_blocks_table_is_numbered_and_referenced(tmp_path):
    page, result = read(tmp_path, TABLES), tables_executed()
    assert table_numbers(page, result) == {(2, 0): 1}
    assert table_labels(page, result) == {"tab-rates": 1}
    html = prose_html(make_markdown(), page, result, {})
    assert ('<figure class="output output-table" id="tab-rates"><figcaption><span class="table-number">Table 1.'
            '</span> Denial rate by group</figcaption>'
            '<div class="output output-html table-scroll" id="out-2-0">') in html
    assert '<div class="output output-html table-scroll" id="out-1-0">' in html  # no caption: no number
    assert 'As <a class="xref" href="#tab-rates">Table 1</a> shows' in html
    assert '<a href="#tab-rates">the table</a>' in html
    assert check_figures(page, result) == []


def test_a_label_on_a_block_without_figure_or_captioned_table_is_a_warning(tmp_path):
    page = read(tmp_path, TABLES.replace('{caption="Denial rate by group"} ', ""))
    [problem] = check_figures(page, tables_executed())
    assert problem.severity == "warning" and "no figure or captioned table to label" in problem.message


def test_a_caption_on_a_block_that_shows_no_figure_or_table_is_a_warning(tmp_path):
    page = read(tmp_path, TABLES)
    text_only = ExecutedPage(slug="page", blocks={1: [Output("html", TABLE)], 2: [Output("stream", "rates\n")]})
    [problem] = [p for p in check_figures(page, text_only) if "{caption}" in p.message]
    assert problem.severity == "warning" and problem.line == 10
    assert "the block shows no figure or table to caption" in problem.message
    failed = ExecutedPage(slug="page", blocks=text_only.blocks, error=PageError("exception", "boom"))
    assert check_figures(page, failed) == []  # a page that failed is reported as failed, not for its captions


def test_an_option_given_twice_is_an_error_at_its_fence(tmp_path):
    with pytest.raises(SourceError) as caught:
        read(tmp_path, TABLES.replace('{label="tab-rates"}', '{caption="Another caption"}'))
    assert str(caught.value) == "explainers/page.md:10: code block option {caption} is given twice; keep one"


SEARCHED = """---
title: Searched
summary: A page for the search index.
---

## The gap of `{python:.2f} gap`

The gap [is not significant]{check="p >= 0.05"} at 0.05 [@good2005], see [1998]{.nocheck} and
$P(\\hat{Y} = 1)$ for the four-fifths rule.

```python
gap, p = 0.051, 0.2
print("code is not searched")
```
"""


def test_the_search_index_holds_the_rendered_words(tmp_path):
    from sitebuild.execution.executed import InlineValue
    from sitebuild.render.prose import search_fields
    from sitebuild.source.references import Reference

    page = read(tmp_path, SEARCHED)
    bibliography = {"good2005": Reference("good2005", ("Good, P.",), "Permutation Tests", "2005")}
    fields = search_fields(page, ExecutedPage(slug="page", inline=[InlineValue(0, "0.05")]), bibliography)
    assert fields == {"headings": "The gap of 0.05",
                      "text": "The gap is not significant at 0.05 (Good 2005), see 1998 and for the four-fifths rule."}


def test_an_inline_value_not_computed_is_left_out_of_the_index(tmp_path):
    from sitebuild.render.prose import search_fields

    fields = search_fields(read(tmp_path, SEARCHED))
    assert fields["headings"] == "The gap of" and "{python" not in fields["text"]
