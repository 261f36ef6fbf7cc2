"""Checked claims without a kernel: finding ``[words]{check="..."}`` spans, the verdicts
and their messages, and the marks (sitebuild.quotes.claims, sitebuild.quotes.marks).
The kernel's side is tested on fixture pages in test_quotes_cases.py."""

from __future__ import annotations

from sitebuild.execution.executed import ClaimValue
from sitebuild.quotes.claims import judge_claims
from sitebuild.quotes.extraction import parse_tokens
from sitebuild.quotes.marks import page_marks
from sitebuild.quotes.results import PageQuotes
from sitebuild.source.claims import find_claims, malformed_claims

PATH = "explainers/x.md"
MD = ("---\ntitle: T\nsummary: S\n---\n\nThe gap\n[is not significant]{check=\"p >= 0.05\"}, and\n"
      "[*all* of them]{check=\"n == 3\"} agree.\n")


def test_claims_are_found_with_their_words_expression_and_line():
    claims = find_claims(parse_tokens(MD))
    assert [(c.index, c.words, c.expression, c.line) for c in claims] == [
        (0, "is not significant", "p >= 0.05", 7), (1, "all of them", "n == 3", 8)]


def test_a_span_without_check_is_not_a_claim():
    assert find_claims(parse_tokens("A [1998]{.nocheck} span.\n")) == []


def test_a_claim_the_parser_cannot_read_is_found_to_be_reported():
    tokens = parse_tokens("Fine.\nBut [all of them]{check='n == 3'} agree.\n")
    assert find_claims(tokens) == []
    assert malformed_claims(tokens) == [(2, "But [all of them]{check='n == 3'} agree.")]


def test_a_false_claim_says_the_condition_and_the_values():
    (claim, _) = find_claims(parse_tokens(MD))
    (result,) = judge_claims(PATH, [claim], [ClaimValue(0, False, [["p", "0.012"]])])
    assert not result.holds
    assert result.message == 'claim "is not significant" no longer holds: p >= 0.05 is False (p = 0.012)'
    assert result.note == "Does not hold: p >= 0.05 is False (p = 0.012)"


def test_a_claim_that_holds_has_a_note_and_no_problem():
    claims = find_claims(parse_tokens(MD))
    results = judge_claims(PATH, claims, [ClaimValue(0, True, [["p", "0.31"]]), ClaimValue(1, True, [["n", "3"]])])
    assert [r.holds for r in results] == [True, True]
    assert PageQuotes(PATH, claims=results).broken_claims() == []
    assert results[0].note == "Checked when this page was built: p >= 0.05 is True (p = 0.31)"


def test_an_expression_that_raises_or_does_not_parse_is_a_broken_claim_naming_the_error():
    tokens = parse_tokens('A [claim]{check="q >"} and [another]{check="missing > 1"}.\n')
    results = judge_claims(PATH, find_claims(tokens), [ClaimValue(0, None, [], "SyntaxError: invalid syntax"),
                                                       ClaimValue(1, None, [],
                                                                  "NameError: name 'missing' is not defined")])
    assert [r.holds for r in results] == [False, False]
    assert results[0].message.startswith('claim "claim" could not be checked: SyntaxError: invalid syntax in `q >`')
    assert results[1].message.startswith(
        "claim \"another\" could not be checked: NameError: name 'missing' is not defined in `missing > 1`")


def test_a_claim_the_kernel_did_not_report_is_not_taken_as_holding():
    (result,) = judge_claims(PATH, find_claims(parse_tokens("A [claim]{check=\"x\"}.\n")), [])
    assert not result.holds and "did not evaluate it" in result.error


def test_claim_marks_sit_on_the_span_with_a_unique_id_and_broken_ones_only_in_preview():
    tokens = parse_tokens(MD)
    claims = find_claims(tokens)
    results = judge_claims(PATH, claims, [ClaimValue(0, True, [["p", "0.31"]]), ClaimValue(1, False, [["n", "2"]])])
    quotes = PageQuotes(PATH, claims=results)
    site = page_marks(quotes)
    assert [(key, mark.id, mark.status, mark.kind) for key, [(_, mark)] in site.items()] == [
        ((claims[0].token_index, claims[0].child_index), "claim-1", "holds", "claim")]
    assert tokens[claims[0].token_index].children[claims[0].child_index].type == "span_open"
    preview = page_marks(quotes, include_problems=True)
    assert [mark.status for [(_, mark)] in preview.values()] == ["holds", "broken"]
