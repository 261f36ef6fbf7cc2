"""Checking prose numbers against outputs, binding and staleness (sitebuild.quotes)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from msgspec.structs import replace

from sitebuild.quotes import (
    OutputText,
    PageQuotes,
    QuoteSummary,
    Status,
    check_page,
    format_problem,
    format_summary,
)
from sitebuild.quotes.extraction import parse_tokens
from sitebuild.quotes.fix import SourceFile, fix_page
from sitebuild.quotes.lock import lock_text
from sitebuild.quotes.results import STALE_FIX_HINT

FIXTURES = Path(__file__).parents[2] / "fixtures" / "quotes"
PAGE = "explainers/page.md"
CODE = [
    'n_perm = 2_000\nalpha = 0.05\nprint("positive rate women 0.059 vs men 0.109 | gap -0.05093")\n'
    'print("test rows 6513")\n'
]


def fix(md: str, quotes: PageQuotes):
    return fix_page(SourceFile(PAGE, "page", md, parse_tokens(md)), quotes)


def outputs(name: str) -> list[OutputText]:
    return [OutputText(**item) for item in json.loads((FIXTURES / name).read_text())]


def page_text() -> str:
    return (FIXTURES / "page.md").read_text()


def statuses(page: PageQuotes) -> list[tuple[str, str]]:
    return [(r.text, r.status.value) for r in page.results]


def check(md: str, output_file: str, lock=(), code=CODE, **options) -> PageQuotes:
    return check_page(md, PAGE, outputs(output_file), code, list(lock), **options)


@pytest.fixture(scope="module")
def first_check() -> PageQuotes:
    return check(page_text(), "outputs_before.json")


def test_every_prose_number_gets_its_status(first_check):
    assert statuses(first_check) == [
        ("5.9%", "verified"), ("10.9%", "verified"), ("-0.0509", "verified"), ("6,513", "verified"),
        ("2,000", "input"), ("0.05", "input"),
        ("72%", "verified"), ("< 0.0005", "verified"), ("0.21", "verified"),
        ("1998", "exempt"), ("17", "unverified"), ("2016", "exempt"),
    ]
    assert first_check.summary == QuoteSummary(verified=7, stale=0, unverified=1, exempt=2, input=2)


def test_verified_numbers_point_at_their_output_line(first_check):
    gap = next(r for r in first_check.results if r.text == "-0.0509")
    assert (gap.value, gap.output_ref.anchor, gap.line, gap.col) == ("-0.05093", "out-0-0-l0", 7, 65)
    bound = next(r for r in first_check.results if r.text == "< 0.0005")
    assert (bound.value, bound.output_ref.anchor) == ("< 0.0005", "out-1-0-l2")
    assert [r.label for r in first_check.results if r.status is Status.VERIFIED] == [
        "positive rate women", "men", "gap", "test row", "share large", "p large", "p small"]


def test_the_first_check_writes_the_golden_lock(first_check):
    assert lock_text(first_check.new_lock_entries) == (FIXTURES / "quotes.lock.json").read_text()


def test_a_changed_output_makes_the_quoted_numbers_stale_with_old_and_new_values(first_check):
    later = check(page_text(), "outputs_after.json", first_check.new_lock_entries)
    stale = [(r.text, r.old, r.new, r.line) for r in later.results if r.status is Status.STALE]
    assert stale == [
        ("5.9%", "0.059", "6.1%", 7), ("-0.0509", "-0.05093", "-0.0481", 7),
        ("6,513", "6513", "6,013", 7), ("72%", "0.72", "69%", 20),
    ]
    assert [format_problem(r) for r in later.problems()][3] == (
        'explainers/page.md:20: "72%" is stale: the output it quotes now says 69%: 0.69 in "large 0.69 p < 0.0005" '
        '(block 1, labelled "share large")' + STALE_FIX_HINT
    )


def test_fix_rewrites_stale_numbers_and_the_check_then_passes(first_check):
    later = check(page_text(), "outputs_after.json", first_check.new_lock_entries)
    fixed = fix(page_text(), later)
    assert fixed.text == (FIXTURES / "page_fixed.md").read_text()
    again = check(fixed.text, "outputs_after.json", fixed.lock_entries)
    assert again.problems() == []
    assert again.summary == QuoteSummary(verified=7, stale=0, unverified=1, exempt=2, input=2)
    assert "17 times" in fixed.text  # the unverified number was left alone


def test_a_stale_number_stays_bound_to_its_output_not_to_a_coincidence(first_check):
    """The gap's output moves to 0.061; another output still says 0.059. The bound one wins."""
    extra = outputs("outputs_after.json") + [OutputText(block=5, output=0, text="old rate 0.059\n")]
    later = check_page(page_text(), PAGE, extra, CODE, first_check.new_lock_entries)
    rate = next(r for r in later.results if r.text == "5.9%")
    assert (rate.status, rate.new) == (Status.STALE, "6.1%")


def test_outputs_that_change_order_still_bind(first_check):
    reordered = check(page_text(), "outputs_reordered.json", first_check.new_lock_entries)
    assert reordered.problems() == []
    anchors = {r.text: r.output_ref.anchor for r in reordered.results if r.status is Status.VERIFIED}
    assert anchors["6,513"] == "out-0-0-l0"
    assert anchors["72%"] == "out-0-1-l1"
    assert anchors["0.21"] == "out-0-1-l2"
    assert not any(r.rebound for r in reordered.results)


def test_binding_survives_edits_above_the_number(first_check):
    edited = page_text().replace("# Rates and gaps\n", "# Rates and gaps\n\nA new paragraph, no figures.\n", 1)
    later = check(edited, "outputs_after.json", first_check.new_lock_entries)
    stale = [(r.text, r.line) for r in later.results if r.status is Status.STALE]
    assert stale == [("5.9%", 9), ("-0.0509", 9), ("6,513", 9), ("72%", 22)]


def test_a_vanished_output_leaves_a_bound_number_unverified_never_rebound_to_a_coincidence(first_check):
    only_rows = [OutputText(0, 0, "test rows 6513\n"), OutputText(4, 0, "old difference -0.0509\n")]
    later = check_page(page_text(), PAGE, only_rows, CODE, first_check.new_lock_entries)
    gap = next(r for r in later.results if r.text == "-0.0509")
    assert (gap.status, gap.output_ref) == (Status.UNVERIFIED, None)


def test_two_output_lines_named_as_well_leave_it_ambiguous_with_both_candidates():
    md = "The rate is 0.5.\n"
    outputs = [OutputText(2, 0, "rate of women 0.50\n"), OutputText(3, 0, "rate of men 0.5\n")]
    result = check_page(md, PAGE, outputs, [], []).results[0]
    assert (result.status, result.candidates) == (Status.AMBIGUOUS, ("rate of women 0.50", "rate of men 0.5"))
    assert format_problem(result) == (
        'explainers/page.md:1: "0.5" is ambiguous: 2 outputs are named as well by its words: '
        '0.50 in "rate of women 0.50" (block 2, labelled "rate women"), 0.5 in "rate of men 0.5" (block 3, labelled '
        '"rate men"); use in '
        "the sentence a word of the line it quotes, print that value with a label the sentence uses, or write it "
        "inline as `{python} expr`")


def test_the_line_whose_label_the_sentence_uses_settles_an_ambiguity():
    outputs = [OutputText(2, 0, "approval rate 0.50\n"), OutputText(3, 0, "refusal rate 0.5\n")]
    result = check_page("The refusal rate is 0.5.\n", PAGE, outputs, [], []).results[0]
    assert (result.status, result.output_ref.anchor, result.label) == (Status.VERIFIED, "out-3-0-l0", "refusal rate")


def test_a_literal_in_the_code_is_an_input_even_when_no_output_shows_it():
    md = "We draw 2,000 permutations at 5% significance.\n"
    page = check_page(md, PAGE, [], ["draws = 2000\nlevel = 0.05\n"], [])
    assert statuses(page) == [("2,000", "input"), ("5%", "input")]


def test_a_number_in_a_code_string_or_comment_is_not_an_input():
    md = "We draw 2,000 permutations.\n"
    page = check_page(md, PAGE, [], ["print('2000')  # 2000\n"], [])
    assert statuses(page) == [("2,000", "unverified")]


@pytest.mark.parametrize(
    "prose, output, status",
    [
        ("0.051", "0.0505", "verified"),
        ("0.050", "0.0505", "verified"),
        ("0.052", "0.0505", "stale"),
        ("-0.0", "-0.0", "verified"),
        ("0.0", "-0.0", "stale"),
        ("5.9%", "0.059", "verified"),
        ("5.9%", "5.9%", "verified"),
        ("0.059", "5.9%", "verified"),
        ("5.9%", "0.0605", "stale"),
        ("5.90%", "0.059", "unverified"),
        ("0.7500", "0.75", "unverified"),
        ("6,513", "6513", "verified"),
        ("6,513", "6,514", "stale"),
        ("1", "0.5", "unverified"),
        ("1.2e-5", "1.2e-05", "verified"),
        ("p < 0.0005", "p < 0.0005", "verified"),
        ("p < 0.0005", "p = 0.0002", "verified"),
        ("p < 0.0005", "p = -0.0002", "stale"),
    ],
)
def test_edge_cases_on_a_page(prose, output, status):
    page = check_page(f"The value is {prose} here.\n", PAGE, [OutputText(0, 0, f"value {output}\n")], [], [])
    assert statuses(page) == [(prose.removeprefix("p "), status)]


def test_unverified_numbers_fail_only_under_strict(first_check):
    assert first_check.problems() == []
    assert [r.text for r in first_check.problems(strict=True)] == ["17"]
    assert format_problem(first_check.problems(strict=True)[0]).startswith(
        'explainers/page.md:24: "17" names no output of this page'
    )


def test_an_edited_prose_number_rebinds_afresh(first_check):
    edited = page_text().replace("72%", "69%")
    later = check(edited, "outputs_after.json", first_check.new_lock_entries)
    share = next(r for r in later.results if r.text == "69%")
    assert (share.status, share.output_ref.anchor) == (Status.VERIFIED, "out-1-0-l2")


def test_summary_table(first_check):
    other = PageQuotes(path="explainers/b.md", results=[replace(first_check.results[0], path="explainers/b.md")])
    table = format_summary([first_check, other]).splitlines()
    assert table[0].split() == ["page", "verified", "stale", "unverified", "ambiguous", "exempt", "input",
                                "claims-hold", "claims-broken"]
    assert table[1].split() == [PAGE, "7", "0", "1", "0", "2", "2", "0", "0"]
    assert table[-1].split() == ["total", "8", "0", "1", "0", "2", "2", "0", "0"]


def test_a_number_whose_output_line_is_gone_binds_to_the_line_now_named_and_is_reported_rebound(first_check):
    moved = [OutputText(0, 0, "test rows 6513\n"), OutputText(4, 0, "summary: gap=-0.0509\n")]
    later = check_page(page_text(), PAGE, moved, CODE, first_check.new_lock_entries)
    gap = next(r for r in later.results if r.text == "-0.0509")
    assert (gap.status, gap.output_ref.anchor, gap.rebound) == (Status.VERIFIED, "out-4-0-l0", "")
    renamed = [OutputText(0, 0, "test rows 6513\n"), OutputText(4, 0, "summary: the gap size=-0.0509\n")]
    later = check_page(page_text(), PAGE, renamed, CODE, first_check.new_lock_entries)
    gap = next(r for r in later.results if r.text == "-0.0509")
    assert (gap.status, gap.rebound, gap.label) == (Status.VERIFIED, "gap", "gap size")
    assert gap in later.problems(strict=True) and gap not in later.problems()
    assert format_problem(gap) == (
        'explainers/page.md:7: "-0.0509" is bound to a line with other labels than the lock remembers (was "gap", '
        'now "gap size"); check that the sentence quotes -0.0509 in "summary: the gap size=-0.0509" (block 4, '
        'labelled "gap size"), then build to record it')


# -- issue 11: no coincidences --------------------------------------------------------------

ACCURACY_MD = "The test accuracy is 0.75.\n"


def accuracy(train: str, test: str) -> list[OutputText]:
    return [OutputText(1, 0, f"train accuracy: {train}\ntest accuracy: {test}\n")]


def test_a_number_binds_to_the_line_its_sentence_names_and_goes_stale_with_it():
    first = check_page(ACCURACY_MD, PAGE, accuracy("0.75", "0.75"), [], [])
    (result,) = first.results
    assert (result.status, result.output_ref.anchor, result.label) == (Status.VERIFIED, "out-1-0-l1", "test accuracy")
    later = check_page(ACCURACY_MD, PAGE, accuracy("0.75", "0.70"), [], first.new_lock_entries)
    assert (later.results[0].status, later.results[0].new) == (Status.STALE, "0.70")


def test_a_coincidence_on_another_labelled_line_never_verifies_a_number():
    (result,) = check_page(ACCURACY_MD, PAGE, accuracy("0.75", "0.70"), [], []).results
    assert result.status is Status.STALE and result.output_ref.anchor == "out-1-0-l1"
    assert '0.70 in "test accuracy: 0.70" (block 1, labelled "test accuracy")' in result.message


def test_the_index_of_a_table_printed_first_never_backs_a_count():
    table = OutputText(1, 0, "   gap\n0  0.05\n1  0.12\n2  0.01\n3  0.09\n4  0.02\n5  0.11\n6  0.15\n")
    md = "We found 5 significant gaps.\n"
    first = check_page(md, PAGE, [table, OutputText(2, 0, "significant gaps: 5\n")], [], [])
    assert first.results[0].output_ref.anchor == "out-2-0-l0"
    later = check_page(md, PAGE, [table, OutputText(2, 0, "significant gaps: 7\n")], [], first.new_lock_entries)
    assert (later.results[0].status, later.results[0].new) == (Status.STALE, "7")
    alone = check_page(md, PAGE, [table], [], [])
    assert alone.results[0].status is Status.UNVERIFIED


def test_a_literal_in_the_code_never_excuses_a_number_the_output_contradicts():
    md = "The mean score is 50.00.\n"
    (result,) = check_page(md, PAGE, [OutputText(1, 0, "mean score: 49.99\n")], ["TARGET = 50\n"], []).results
    assert result.status is Status.STALE and '49.99 in "mean score: 49.99"' in result.message
    (typed,) = check_page(md, PAGE, [OutputText(1, 0, "rows: 6513\n")], ["TARGET = 50\n"], []).results
    assert typed.status is Status.INPUT  # nothing contradicts it: still an input


@pytest.mark.parametrize("prose, before, after", [
    ("The p-value is p < 0.001.", "p-value: 0.0004", "p-value: 0.0030"),
    ("The coverage is at least 80% of cases.", "coverage: 0.83", "coverage: 0.78"),
    ("The ratio is more than 5.", "ratio: 6", "ratio: 4"),
    ("The error is under 0.05.", "error: 0.031", "error: 0.052"),
    ("The gap is ≤ 0.02.", "gap: 0.015", "gap: 0.025"),
])
def test_a_bound_is_verified_only_while_its_output_satisfies_it(prose, before, after):
    first = check_page(prose + "\n", PAGE, [OutputText(1, 0, before + "\n")], [], [])
    assert [r.status for r in first.results] == [Status.VERIFIED]
    later = check_page(prose + "\n", PAGE, [OutputText(1, 0, after + "\n")], [], first.new_lock_entries)
    assert [(r.status, r.new) for r in later.results] == [(Status.STALE, "")]
    fresh = check_page(prose + "\n", PAGE, [OutputText(1, 0, after + "\n")], [], [])
    assert [(r.status, r.new) for r in fresh.results] == [(Status.STALE, "")]  # bound by words, then compared


def test_a_multiplier_written_with_digits_is_checked():
    first = check_page("The ratio is 3x.\n", PAGE, [OutputText(1, 0, "ratio: 3.02\n")], [], [])
    assert [(r.text, r.status) for r in first.results] == [("3x", Status.VERIFIED)]
    later = check_page("The ratio is 3x.\n", PAGE, [OutputText(1, 0, "ratio: 4.10\n")], [],
                       first.new_lock_entries)
    assert [(r.status, r.new) for r in later.results] == [(Status.STALE, "4x")]


def test_a_lock_rebinds_to_its_labelled_line_wherever_it_moves():
    first = check_page(ACCURACY_MD, PAGE, accuracy("0.75", "0.75"), [], [])
    moved = [OutputText(0, 0, "header\n"), OutputText(3, 0, "test accuracy: 0.75\nnote 1\n"),
             OutputText(4, 0, "train accuracy: 0.75\n")]
    (result,) = check_page(ACCURACY_MD, PAGE, moved, [], first.new_lock_entries).results
    assert (result.status, result.output_ref.anchor) == (Status.VERIFIED, "out-3-0-l0")


def test_a_labelled_number_whose_line_changed_shape_rebinds_when_one_line_backs_it():
    first = check_page(ACCURACY_MD, PAGE, accuracy("0.75", "0.75"), [], [])
    wider = [OutputText(1, 0, "split   rows  test accuracy  spread\nheld    250   0.75           0.02\n")]
    (result,) = check_page(ACCURACY_MD, PAGE, wider, [], first.new_lock_entries).results
    assert (result.status, result.output_ref.anchor) == (Status.VERIFIED, "out-1-0-l1")
    changed = [OutputText(1, 0, "split   rows  test accuracy  spread\nheld    250   0.70           0.02\n")]
    (gone,) = check_page(ACCURACY_MD, PAGE, changed, [], first.new_lock_entries).results
    assert (gone.status, gone.new) == (Status.STALE, "0.70")
