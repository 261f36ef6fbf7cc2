"""Rewriting stale numbers, the diff (sitebuild.quotes.fix), and the renderer's marks
(sitebuild.quotes.marks)."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from sitebuild.quotes import OutputText, Status, check_page
from sitebuild.quotes.extraction import parse_tokens
from sitebuild.quotes.fix import SourceFile, unified_diff
from sitebuild.quotes.fix import fix_page as fix_source
from sitebuild.quotes.marks import page_marks
from sitebuild.quotes.numbers import parse_number
from sitebuild.source.markdown import make_parser

PAGE = "explainers/fix.md"


def fix_page(md: str, quotes):
    return fix_source(SourceFile(PAGE, "fix", md, parse_tokens(md)), quotes)


def fix_text(md: str, results) -> str:
    quotes = results if hasattr(results, "results") else None
    return fix_page(md, quotes).text


def quote_marks(page, include_problems=False):
    """The marks by (line, col) of the .md, as the ids say."""
    marks = [mark for placed in page_marks(page, include_problems).values() for _, mark in placed]
    return {tuple(int(x) for x in mark.id.split("-")[1:]): mark for mark in marks if mark.kind == "quote"}


def checked_twice(md: str, before: str, after: str, code=()):
    first = check_page(md, PAGE, [OutputText(0, 0, before)], list(code), [])
    return check_page(md, PAGE, [OutputText(0, 0, after)], list(code), first.new_lock_entries)


def test_fix_keeps_each_number_in_its_own_style():
    md = "Gap −0.0509, share 72 %, rows 6,513, p 1.2e-05 and d +0.5.\n"
    later = checked_twice(
        md,
        "gap -0.05093 share 0.72 rows 6513 p 1.2e-05 d 0.5\n",
        "gap -0.04812 share 0.6949 rows 10013 p 3.45e-06 d 0.25\n",
    )
    assert fix_text(md, later) == "Gap −0.0481, share 69 %, rows 10,013, p 3.5e-06 and d +0.3.\n"


def test_fix_never_touches_unverified_exempt_or_input_numbers():
    md = "Rate 0.5, seed 42, noted 17 times, in [2016]{.nocheck}.\n"
    later = checked_twice(md, "rate 0.5\n", "rate 0.7\n", code=["seed = 42\n"])
    assert [r.status for r in later.results] == [Status.STALE, Status.INPUT, Status.UNVERIFIED, Status.EXEMPT]
    assert fix_text(md, later) == "Rate 0.7, seed 42, noted 17 times, in [2016]{.nocheck}.\n"


def test_a_comparison_backed_by_a_plain_value_is_left_for_the_author():
    md = "The p-value is p < 0.05.\n"
    later = checked_twice(md, "p 0.012\n", "p 0.081\n")
    result = later.results[0]
    assert (result.status, result.new) == (Status.STALE, "")
    outcome = fix_page(md, later)
    assert outcome.text == md and outcome.left == [result]


def test_a_comparison_backed_by_a_comparison_is_rewritten():
    md = "The p-value is p < 0.0005.\n"
    later = checked_twice(md, "p < 0.0005\n", "p < 0.0010\n")
    assert fix_text(md, later) == "The p-value is p < 0.0010.\n"


def test_fix_page_rebinds_the_lock_to_the_new_text():
    md = "Rate 0.5 here.\n"
    later = checked_twice(md, "rate 0.5\n", "rate 0.7\n")
    outcome = fix_page(md, later)
    assert [(e.quote, e.value) for e in outcome.lock_entries] == [("0.7", "0.7")]
    again = check_page(outcome.text, PAGE, [OutputText(0, 0, "rate 0.7\n")], [], outcome.lock_entries)
    assert [r.status for r in again.results] == [Status.VERIFIED]


def test_unified_diff_names_the_page():
    diff = unified_diff("a 1\nb 2\n", "a 1\nb 3\n", PAGE)
    assert diff.splitlines()[:2] == [f"--- a/{PAGE}", f"+++ b/{PAGE}"]
    assert "-b 2" in diff and "+b 3" in diff


def test_marks_link_verified_numbers_and_skip_inputs_and_exempt_ones():
    md = "Rate 0.5 and seed 42 in [2016]{.nocheck}; 17 more.\n"
    page = check_page(md, PAGE, [OutputText(3, 1, "x\n rate 0.50 \n")], ["seed = 42\n"], [])
    marks = quote_marks(page)
    assert list(marks) == [(1, 6)]
    mark = marks[(1, 6)]
    assert (mark.text, mark.status, mark.anchor) == ("0.5", "verified", "out-3-1-l1")
    assert mark.title == "From the output of block 3: “rate 0.50”"
    assert (mark.id, mark.note) == ("q-1-6", "From the output of block 3, line 2: rate 0.50")
    with_problems = quote_marks(page, include_problems=True)
    assert with_problems[(1, md.index("17") + 1)].status == "unverified"


def test_marks_by_child_place_repeated_table_values_in_their_own_cells():
    md = "| x | y |\n|---|---|\n| 0.5 | 0.5 |\n"
    tokens = make_parser().parse(md)
    page = check_page(md, PAGE, [OutputText(0, 0, "x 0.5, y 0.5\n")], [], [], tokens=tokens)
    placed = page_marks(page)
    assert len(placed) == 2
    for (token_index, child_index), marks in placed.items():
        child = tokens[token_index].children[child_index]
        assert [(offset, mark.text) for offset, mark in marks] == [(0, "0.5")]
        assert child.content == "0.5"
    assert sorted(col for _, col in quote_marks(page)) == [3, 9]


@given(
    st.sampled_from(["−0.0509", "72%", "6,513", "0.5", "1.2e-05", "+3.25", "-0.0"]),
    st.decimals(min_value=Decimal("-20000"), max_value=Decimal("20000"), places=5, allow_nan=False),
)
@settings(max_examples=200, deadline=None)
def test_after_fix_the_check_passes_whatever_the_new_value(style, new_value):
    old = parse_number(style)
    as_output = (lambda v: f"{v / 100:.10f}") if old.percent else (lambda v: f"{v:.8f}")
    if old.is_integer_shown and not old.percent:  # a count is backed only by an integer
        as_output = lambda v: f"{int(v)}"  # noqa: E731
    md = f"The figure is {style} today.\n"
    first = check_page(md, PAGE, [OutputText(0, 0, f"figure {as_output(old.value)}\n")], [], [])
    assert [r.status for r in first.results] == [Status.VERIFIED]
    later_outputs = [OutputText(0, 0, f"figure {as_output(new_value)}\n")]
    later = check_page(md, PAGE, later_outputs, [], first.new_lock_entries)
    outcome = fix_page(md, later)
    again = check_page(outcome.text, PAGE, later_outputs, [], outcome.lock_entries)
    assert [r.status for r in again.results] == [Status.VERIFIED], (md, outcome.text, str(new_value))


# -- exact spans, CRLF and headings (issue 11, point 4) -----------------------------------

FIXTURES = Path(__file__).parents[2] / "fixtures" / "quotes"
CRLF_PAGE = "explainers/crlf.md"
BEFORE = "gap: 0.05\nmean x: 10.5\nspread x: 0.5\nsize: 1.5\n"
AFTER = "gap: 0.07\nmean x: 10.5\nspread x: 0.7\nsize: 1.7\n"


def source(path: str, raw: str) -> SourceFile:
    return SourceFile(path, Path(path).stem, raw, parse_tokens(raw.replace("\r\n", "\n")))


def stale_crlf_page(raw: str):
    page = source(CRLF_PAGE, raw)
    md = raw.replace("\r\n", "\n")
    first = check_page(md, CRLF_PAGE, [OutputText(1, 0, BEFORE)], [], [], tokens=page.tokens)
    assert {r.status for r in first.results} == {Status.VERIFIED}
    return page, check_page(md, CRLF_PAGE, [OutputText(1, 0, AFTER)], [], first.new_lock_entries, tokens=page.tokens)


def test_fix_golden_bytes_of_a_crlf_page_with_escapes_and_a_linked_heading():
    raw = (FIXTURES / "crlf_page.md").read_bytes().decode("utf-8")
    assert "\r\n" in raw and "\\*x\\*" in raw
    page, later = stale_crlf_page(raw)
    other = source("explainers/other.md", "Read [the gap](crlf.md#a-gap-of-005) first.\r\n")
    outcome = fix_source(page, later, [other])
    assert outcome.text.encode("utf-8") == (FIXTURES / "crlf_page_fixed.md").read_bytes()
    assert outcome.others == {"explainers/other.md": "Read [the gap](crlf.md#a-gap-of-007) first.\r\n"}
    assert [(r.line, r.text, r.new) for r in outcome.fixed] == [(6, "0.05", "0.07"), (8, "0.5", "0.7"),
                                                                (8, "0.05", "0.07")]
    (left,) = outcome.left
    assert (left.text, left.line) == ("1.5", 9)
    assert "its place in the source is not known exactly" in left.message


def test_a_heading_whose_anchor_is_linked_in_a_way_fix_cannot_follow_is_refused():
    raw = "## A gap of 0.05\n\nSee [the gap][g].\n\n[g]: #a-gap-of-005\n"
    md_first = check_page(raw, CRLF_PAGE, [OutputText(1, 0, "gap: 0.05\n")], [], [])
    later = check_page(raw, CRLF_PAGE, [OutputText(1, 0, "gap: 0.07\n")], [], md_first.new_lock_entries)
    outcome = fix_source(source(CRLF_PAGE, raw), later)
    assert outcome.text == raw and outcome.fixed == []
    assert "anchor #a-gap-of-005" in outcome.left[0].message and "rewrite both by hand" in outcome.left[0].message


def test_a_page_with_a_lone_carriage_return_is_left_whole():
    raw = "Rate 0.5 here.\rNext line.\n"
    later = checked_twice(raw.replace("\r", "\n"), "rate 0.5\n", "rate 0.7\n")
    outcome = fix_source(source(PAGE, raw), later)
    assert outcome.text == raw and "lone carriage return" in outcome.left[0].message


def test_numbers_in_alt_text_and_captions_are_checked_and_fixed_in_place():
    md = '![A gap of 0.05 between groups](fig.png)\n\n```python {caption="The gap, 0.05."}\nx = 1\n```\n'
    later = checked_twice(md, "gap: 0.05\n", "gap: 0.07\n")
    assert [(r.where, r.status) for r in later.results] == [("alt", Status.STALE), ("caption", Status.STALE)]
    assert page_marks(later, include_problems=True) == {}  # an attribute cannot hold a mark
    assert fix_page(md, later).text == md.replace("0.05", "0.07")
