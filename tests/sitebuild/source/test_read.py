"""Reading sources: front matter validated with errors naming file, line and field; block
options; inline values located in the .md."""

from __future__ import annotations

import pytest

from sitebuild.errors import SourceError
from sitebuild.source.read import SITE_PAGE_SLUGS, parse_block_options, read_page, read_pages
from sitebuild.yamltext import YAML_HINTS

PAGE = """---
title: A Title
summary: One sentence.
tags: [a, b]
related: [other-page]
timeout: 5
---

Text with `{python:.3f} value` and `{python} name` and `plain code`.

```python {hide-code} {caption="A caption"}
value = 1 / 3
```

```bash
echo hi
```

```python {no-exec}
not run
```
"""


def write(tmp_path, text, name="page.md"):
    (tmp_path / "explainers").mkdir(exist_ok=True)
    path = tmp_path / "explainers" / name
    path.write_text(text)
    return path


def test_page_blocks_options_and_lines(tmp_path):
    page = read_page(write(tmp_path, PAGE), tmp_path)
    assert page.slug == "page" and page.rel_path == "explainers/page.md"
    assert page.front.title == "A Title" and page.front.tags == ("a", "b") and page.front.timeout == 5.0
    assert page.front.exempt_sections == ("Further Reading", "References")
    assert [(b.n, b.language, b.line) for b in page.blocks] == [(1, "python", 12), (2, "bash", 16), (3, "python", 20)]
    assert page.blocks[0].options == {"hide-code": True, "caption": "A caption"}
    assert [b.n for b in page.code_blocks] == [1]


def test_inline_values_are_found_with_their_line_and_column(tmp_path):
    page = read_page(write(tmp_path, PAGE), tmp_path)
    assert [(e.expr, e.format_spec, e.line, e.col) for e in page.inline] == [
        ("value", ".3f", 9, 11), ("name", "", 9, 36)]


def test_every_bad_fence_of_a_page_is_reported_in_one_build(tmp_path):
    text = ('---\ntitle: T\nsummary: S.\n---\n\n```python {captoin="A plot"}\nx = 1\n```\n\n'
            '```python {hide-code}\ny = 2\n```\n\n```python {hide-cod}\nz = 3\n```\n\n```python {hide-code\nw = 4\n')
    write(tmp_path, text, "bad.md")
    pages, errors = read_pages(tmp_path / "explainers", tmp_path)
    assert pages == []
    assert [(e.path, e.line) for e in errors] == [("explainers/bad.md", 6), ("explainers/bad.md", 14),
                                                  ("explainers/bad.md", 18)]
    assert "{captoin=\"A plot\"}: expected one of" in errors[0].message
    assert "{hide-cod}: expected one of" in errors[1].message
    assert "is never closed" in errors[2].message


@pytest.mark.parametrize("name", SITE_PAGE_SLUGS)
def test_a_page_may_not_take_the_name_of_a_page_of_the_site(tmp_path, name):
    with pytest.raises(SourceError) as caught:
        read_page(write(tmp_path, PAGE, f"{name}.md"), tmp_path)
    assert str(caught.value).startswith(f"explainers/{name}.md: file name: '{name}' is taken by the site's own "
                                        f"{name}.html; rename the file")


def test_the_names_no_page_may_take_are_the_pages_the_site_renders():
    from site_helpers import REPO

    own = {path.stem for path in (REPO / "templates").glob("*.html")} - {"base", "explainer", "error"}
    assert own == set(SITE_PAGE_SLUGS)


@pytest.mark.parametrize("front, line, message", [
    ("summary: s", 2, "front matter field 'title' is required: expected a non-empty string, found None"),
    ("title: t", 2, "front matter field 'summary' is required"),
    ("title: t\nsummary: s\ntimeout: -1", 4,
     "front matter field 'timeout': expected a positive number of seconds, found -1"),
    ("title: t\nsummary: s\nrelated: Not A Slug", 4, "front matter field 'related': expected page slugs"),
    ("title: t\nsummary: s\ncolour: red", 4, "front matter: unknown field 'colour'; expected one of"),
    ("title: t\nsumary: s", 3, "front matter: unknown field 'sumary'; did you mean 'summary'?"),
    ("title: t\nsummary: s\ntags: [a, b\nrelated: []", 4, "front matter is not valid YAML"),
    ("title: t\nsummary: s: with a colon", 3, "front matter is not valid YAML"),
])
def test_bad_front_matter_names_the_file_and_the_true_line(tmp_path, front, line, message):
    with pytest.raises(SourceError) as caught:
        read_page(write(tmp_path, f"---\n{front}\n---\n\nText.\n"), tmp_path)
    assert str(caught.value).startswith(f"explainers/page.md:{line}: "), str(caught.value)
    assert message in str(caught.value)


@pytest.mark.parametrize("front, line, hint", [
    ("title: t\nsummary: s\ntags: [a, b\nrelated: []", 4, YAML_HINTS[0][1]),
    ("title: t\nsummary: s\ntags: [a, b\n", 4, YAML_HINTS[0][1]),
    ("title: {a: b\nsummary: s", 2, YAML_HINTS[1][1]),
    ('title: t\nsummary: "never closed\n', 3, YAML_HINTS[2][1]),
    ("title: t\nsummary: s: with a colon", 3, YAML_HINTS[3][1]),
    ("title: t\nsummary: @home", 3, YAML_HINTS[4][1]),
])
def test_a_yaml_error_names_the_line_to_fix_with_a_hint_that_fits(tmp_path, front, line, hint):
    with pytest.raises(SourceError) as caught:
        read_page(write(tmp_path, f"---\n{front}\n---\n\nText.\n"), tmp_path)
    message = str(caught.value)
    assert message.startswith(f"explainers/page.md:{line}: front matter is not valid YAML: "), message
    assert message.endswith(f"; {hint}"), message
    others = [text for _, text in YAML_HINTS if text != hint]
    assert not any(text in message for text in others), message


def test_unclosed_fence_is_reported_where_it_opens(tmp_path):
    text = "---\ntitle: t\nsummary: s\n---\n\nProse.\n\n```python\nx = 1\n\nMore prose that is not code.\n"
    with pytest.raises(SourceError) as caught:
        read_page(write(tmp_path, text), tmp_path)
    assert str(caught.value).startswith("explainers/page.md:8: code block opened here with ``` is never closed")


def test_a_fence_closed_on_the_last_line_is_fine(tmp_path):
    page = read_page(write(tmp_path, "---\ntitle: t\nsummary: s\n---\n\n```python\nx = 1\n```"), tmp_path)
    assert [b.source for b in page.blocks] == ["x = 1\n"]


def test_figure_label_option(tmp_path):
    assert parse_block_options('python {label="fig-gap"} {caption="The gap"}', "p.md", 3) == (
        "python", {"label": "fig-gap", "caption": "The gap"})
    with pytest.raises(SourceError, match="expected an id like"):
        parse_block_options('python {label="Fig Gap"}', "p.md", 3)


def test_missing_front_matter(tmp_path):
    with pytest.raises(SourceError, match=r"explainers/page.md:1: expected YAML front matter"):
        read_page(write(tmp_path, "# No front matter\n"), tmp_path)


def test_unknown_block_option_names_the_line(tmp_path):
    text = "---\ntitle: t\nsummary: s\n---\n\n```python {hide-everything}\nx = 1\n```\n"
    with pytest.raises(SourceError) as caught:
        read_page(write(tmp_path, text), tmp_path)
    assert str(caught.value).startswith("explainers/page.md:6: code block option {hide-everything}: expected one of")


def test_block_options_parse_values_and_reject_junk():
    assert parse_block_options('python {alt="A plot of x"} {expect-error}', "p.md", 3) == (
        "python", {"alt": "A plot of x", "expect-error": True})
    with pytest.raises(SourceError, match="found 'stray'"):
        parse_block_options("python stray", "p.md", 3)


def test_read_pages_collects_every_error(tmp_path):
    write(tmp_path, PAGE, "good.md")
    write(tmp_path, "no front matter\n", "bad.md")
    write(tmp_path, PAGE, "Bad_Name.md")
    pages, errors = read_pages(tmp_path / "explainers", tmp_path)
    assert [p.slug for p in pages] == ["good"]
    assert sorted(e.path for e in errors) == ["explainers/Bad_Name.md", "explainers/bad.md"]


def test_every_front_matter_field_is_in_the_readme():
    from site_helpers import REPO

    from sitebuild.source.read import FrontMatter

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    missing = [name for name in FrontMatter.__struct_fields__ if f"`{name}`" not in readme]
    assert not missing, f"front-matter fields the README does not name: {missing}"
