"""Rendering without a kernel: number annotations, links between pages, long outputs,
the generated static files."""

from __future__ import annotations

import json

from site_helpers import TEMPLATES

from sitebuild.checks.annotations import Annotation
from sitebuild.config import SiteConfig
from sitebuild.execution.executed import ExecutedPage
from sitebuild.execution.outputs import Output
from sitebuild.render.cells import COLLAPSE_AFTER, cell_html
from sitebuild.render.highlight import pygments_css
from sitebuild.render.prose import make_markdown, prose_html
from sitebuild.render.render import render_site, search_index_js
from sitebuild.source.read import CodeBlock, read_page

PAGE = """---
title: Render Me
summary: A page for the renderer.
related: [other]
---

The gap is -0.0509 and the rate is 72% of 1,000 rows.
See [the other page](other.md#a-heading) and [the web](https://example.org/x.md).

```python
print("gap -0.0509")
```
"""


def page(tmp_path, name="render-me.md", text=PAGE):
    (tmp_path / "explainers").mkdir(exist_ok=True)
    (tmp_path / "explainers" / name).write_text(text)
    return read_page(tmp_path / "explainers" / name, tmp_path)


def executed() -> ExecutedPage:
    return ExecutedPage(slug="render-me", blocks={1: [Output("stream", "gap -0.0509\n", ["gap -0.0509"])]})


def first_text_child(page, containing: str) -> tuple[int, int]:
    """(inline token index, text child index) of the first text child containing ``containing``."""
    for t, token in enumerate(page.tokens):
        for c, child in enumerate(token.children or []):
            if child.type == "text" and containing in child.content:
                return t, c
    raise AssertionError(containing)


def test_annotations_mark_numbers_at_their_place_in_the_tokens(tmp_path):
    rendered = page(tmp_path)
    key = first_text_child(rendered, "The gap is")
    marks = {key: [(11, Annotation("-0.0509", "verified", "out-1-0-l0", "From block 1: gap -0.0509")),
                   (35, Annotation("72%", "stale", title="now says 69%"))]}
    html = prose_html(make_markdown(), rendered, executed(), marks)
    assert ('The gap is <a class="q q-verified" href="#out-1-0-l0" title="From block 1: gap -0.0509">-0.0509</a> '
            'and the rate is <span class="q q-stale" title="now says 69%">72%</span> of 1,000 rows.') in html


def test_annotation_that_does_not_match_the_text_is_ignored(tmp_path):
    rendered = page(tmp_path)
    marks = {first_text_child(rendered, "The gap is"): [(12, Annotation("-0.0509", "verified", "x"))]}
    assert 'class="q' not in prose_html(make_markdown(), rendered, executed(), marks)


def test_equal_numbers_in_one_table_row_are_each_marked_once(tmp_path):
    text = "---\ntitle: T\nsummary: S.\n---\n\n| a | b |\n|---|---|\n| 0.5 | 0.5 |\n"
    rendered = page(tmp_path, text=text)
    cells = [(t, c) for t, token in enumerate(rendered.tokens) for c, child in enumerate(token.children or [])
             if child.type == "text" and child.content == "0.5"]
    marks = {cells[0]: [(0, Annotation("0.5", "verified", "out-1-0-l0"))],
             cells[1]: [(0, Annotation("0.5", "verified", "out-1-0-l1"))]}
    html = prose_html(make_markdown(), rendered, executed(), marks)
    assert html.count('href="#out-1-0-l0"') == 1 and html.count('href="#out-1-0-l1"') == 1


def test_marks_of_an_earlier_render_do_not_stay_on_the_tokens(tmp_path):
    rendered = page(tmp_path)
    marks = {first_text_child(rendered, "The gap is"): [(11, Annotation("-0.0509", "verified", "out-1-0-l0"))]}
    prose_html(make_markdown(), rendered, executed(), marks)
    assert 'class="q' not in prose_html(make_markdown(), rendered, executed(), {})


def test_table_rows_carry_the_ids_of_their_quotable_lines():
    table = ("<table><thead><tr><th></th><th>rate</th></tr></thead>"
             "<tbody><tr><th>0</th><td>0.5</td></tr></tbody></table>")
    block = CodeBlock(n=2, language="python", source="x", line=3)
    html = cell_html(block, [Output("stream", "x\n", ["x"]), Output("html", table)], "p", "P")
    assert '<tr id="out-2-1-l0">' in html and '<tr id="out-2-1-l1"><th>0</th><td>0.5</td></tr>' in html


def test_links_to_markdown_pages_become_html_but_external_ones_stay(tmp_path):
    html = prose_html(make_markdown(), page(tmp_path), executed(), {})
    assert 'href="other.html#a-heading"' in html and 'href="https://example.org/x.md"' in html


def test_long_outputs_are_collapsed():
    text = "".join(f"line {i}\n" for i in range(COLLAPSE_AFTER + 5))
    block = CodeBlock(n=1, language="python", source="x", line=3)
    html = cell_html(block, [Output("stream", text, text.splitlines())], "p", "P")
    assert f"<summary>Show all {COLLAPSE_AFTER + 5} lines</summary>" in html
    assert 'id="out-1-0-l29">line 29</span>' in html


def test_site_has_every_file_and_an_offline_search_index(tmp_path):
    first = page(tmp_path)
    other = page(tmp_path, "other.md",
                 "---\ntitle: Other\nsummary: The other one.\ntags: [x]\n---\n\n## A heading\n\nWords.\n")
    site = render_site([first, other], {"render-me": executed()}, [], SiteConfig(title="Site"), templates=TEMPLATES)
    assert {"index.html", "report.html", "404.html", "render-me.html", "other.html", "code/render-me.py",
            "code/render-me.ipynb", "static/pygments.css", "static/search-index.js"} <= set(site.files)
    index = json.loads(search_index_js([other]).removeprefix("window.FC_SEARCH_INDEX = ").removesuffix(";\n"))
    assert index == [{"title": "Other", "url": "other.html", "summary": "The other one.", "tags": ["x"],
                      "headings": "A heading", "text": "Words."}]
    for html in (site.files["index.html"], site.files["render-me.html"]):
        assert b"http://" not in html and b"https://" not in html.replace(b"https://example.org/x.md", b"")


def test_search_index_cannot_close_its_script():
    first_entry = search_index_js([])
    assert first_entry == "window.FC_SEARCH_INDEX = [];\n"


def test_pygments_css_has_light_and_dark_rules():
    css = pygments_css()
    assert ".highlight .k" in css and '[data-theme="dark"] .highlight .k' in css and "prefers-color-scheme: dark" in css


def test_related_aside_leaves_out_pages_the_prose_already_links(tmp_path):
    from sitebuild.render.render import linked_slugs

    linked = page(tmp_path)
    assert linked_slugs(linked) == {"other"}
    other = page(tmp_path, "other.md", "---\ntitle: Other\nsummary: The other page.\n---\n\n# A heading\n")
    unlinked = page(tmp_path, "third.md",
                    "---\ntitle: Third\nsummary: Links nothing.\nrelated: [other]\n---\n\nText.\n")
    site = render_site([linked, other, unlinked], {}, [], SiteConfig(title="Site"), templates=TEMPLATES)
    assert 'id="related-h"' not in site.files["render-me.html"].decode()
    third = site.files["third.html"].decode()
    assert 'id="related-h"' in third and '<a href="other.html">Other</a>' in third


def test_index_lists_each_data_set_by_its_page_with_the_pages_that_use_it(tmp_path):
    described = page(tmp_path, "scores.md",
                     "---\ntitle: Scores File\nsummary: The data.\ntheme: Data\naudits: [scores]\n---\n\nText.\n")
    user = page(tmp_path, "user.md", "---\ntitle: User\nsummary: Uses both.\naudits: [scores, loose]\n---\n\nText.\n")
    index = render_site([described, user], {}, [], SiteConfig(title="Site", data_theme="Data"),
                        templates=TEMPLATES).files["index.html"].decode()
    assert ('<li><a class="audit-name" href="scores.html">Scores File</a>: used in <a href="user.html">User</a></li>'
            in index)
    assert '<li><span class="audit-name">loose</span>: used in <a href="user.html">User</a></li>' in index


def test_the_report_lists_data_in_the_project_and_counts_the_rest(tmp_path):
    from sitebuild.render.provenance import DataFile, Provenance

    data = DataFile("data/rows.csv", "ab" * 32, 12, ("render-me",))
    shown = {}
    for outside in (0, 3):
        provenance = Provenance(built_at="2026-12-04 12:00 UTC", data_files=(data,), outside_files=outside)
        site = render_site([page(tmp_path)], {}, [], SiteConfig(title="Site"), templates=TEMPLATES,
                           provenance=provenance)
        shown[outside] = site.files["report.html"].decode()
    assert all("<code>data/rows.csv</code>" in report for report in shown.values())
    assert "outside the project" not in shown[0]
    assert "The pages also read 3 file(s) outside the project" in shown[3]
