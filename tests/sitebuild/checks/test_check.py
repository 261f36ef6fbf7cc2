"""Checks over pages: related slugs, internal links and failures located in the .md."""

from __future__ import annotations

from sitebuild.checks.check import check_site, describe_failure, expected_one_of
from sitebuild.execution.executed import PageError
from sitebuild.source.read import read_page

A = """---
title: A
summary: s
related: [b, nowhere]
---

## Here

[ok](b.md#there) [bad page](missing.md)
[bad anchor](b.html#nope) [self](#here) [self bad](#gone)

```python
x = 1
y = 2
```
"""
B = "---\ntitle: B\nsummary: s\n---\n\n## There\n"


def pages(tmp_path):
    (tmp_path / "explainers").mkdir()
    for name, text in (("a.md", A), ("b.md", B)):
        (tmp_path / "explainers" / name).write_text(text)
    return [read_page(tmp_path / "explainers" / n, tmp_path) for n in ("a.md", "b.md")]


def test_related_and_links_are_checked(tmp_path):
    problems = [str(p) for p in check_site(pages(tmp_path), {}, scripts=False)]
    assert problems == [
        "explainers/a.md:1: error: front matter field 'related': no page 'nowhere'; expected one of ['a', 'b']",
        "explainers/a.md:9: error: link 'missing.md': no page 'missing'; expected one of ['a', 'b']",
        "explainers/a.md:10: error: link 'b.html#nope': no heading #nope in b; expected one of ['there']",
        "explainers/a.md:10: error: link '#gone': no heading #gone in a; expected one of ['here']",
    ]


def test_long_lists_of_choices_become_suggestions():
    slugs = {f"page-{i}" for i in range(10)} | {"permutation-tests"}
    assert expected_one_of("permutation-test", slugs) == "did you mean 'permutation-tests'?"
    assert expected_one_of("zzz", slugs) == "none of the 11 pages is close"


def test_failure_shows_the_code_around_the_line(tmp_path):
    page = pages(tmp_path)[0]
    problem = describe_failure(page,
                               PageError("exception", "NameError: z", line=14, block=1, traceback="Traceback ..."))
    assert problem.line == 14
    assert problem.message.splitlines() == ["NameError: z", "    12 | ```python", "    13 | x = 1", ">   14 | y = 2",
                                            "    15 | ```", "Traceback ..."]



def test_a_link_or_attribute_list_that_did_not_parse_is_named_at_its_line(tmp_path):
    (tmp_path / "explainers").mkdir()
    (tmp_path / "explainers" / "a.md").write_text(
        "---\ntitle: A\nsummary: s\n---\n\nSee [coverage at [95%]{.nocheck}](a.md) first.\n\n"
        "A [[whole link](a.md)]{.nocheck} and a [span]{.nocheck} parse; `](code.md)` is code.\n\n"
        "Text ] {.nocheck} and a lone ] (bracket) stay prose.\n")
    page = read_page(tmp_path / "explainers" / "a.md", tmp_path)
    problems = [str(p) for p in check_site([page], {}, scripts=False)]
    assert problems == ["explainers/a.md:6: error: '](a.md)' is shown as text: a link or a {...} that did not "
                        "parse. A link's text cannot hold a [span]{...}: put the span around the whole link, "
                        "as in [[text](target)]{.nocheck}"]
