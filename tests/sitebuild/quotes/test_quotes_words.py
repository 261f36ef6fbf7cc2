"""The cases of issue 22 on fixture pages run by real Jupyter kernels (the quotes_words
fixture site): a prose number's output is chosen by words alone, then compared; signs,
kinds and decimals; prose tables and parent list items; one sentence, one row; the lock
as memory that never overrides the words; ``check`` that does not write the lock;
``--fix`` that never touches a claim; claims that must give a truth value; a BOM."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from site_helpers import REPO, TEMPLATES

from sitebuild.commands.build import run_build, run_check_fix
from sitebuild.config import make_config
from sitebuild.quotes.results import Status
from sitebuild.quotes.stage import INLINE_MESSAGE

FIXTURE = REPO / "tests" / "fixtures" / "quotes_words"
NOT_A_TRUTH_VALUE = "TypeError: the expression gives list ['a', 'b'], expected True or False (bool or numpy.bool_)"


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("words") / "site"
    shutil.copytree(FIXTURE, root)
    return root


def config(root: Path, **options):
    return make_config(root, templates=TEMPLATES, jobs=2, **options)


@pytest.fixture(scope="module")
def first(root):
    """The first build: every page runs in a real kernel."""
    return run_build(config(root))


def verdicts(summary, slug: str) -> list[tuple[str, str, str]]:
    """(number, status, label) of every prose number of a page, in page order."""
    return [(r.text, r.status.value, r.label) for r in summary.quotes.pages[slug].results]


def edit(root: Path, slug: str, old: str, new: str) -> None:
    path = root / "explainers" / f"{slug}.md"
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")


def test_a_coincidence_never_backs_a_sentence_about_something_else(first, root):
    assert verdicts(first, "coincidence") == [("0.109", "verified", "flag rate women"),
                                              ("0.102", "verified", "seed sd accuracy")]
    edit(root, "coincidence", "women is 0.109", "women is 0.102")
    checked = run_build(config(root), check_only=True)
    assert verdicts(checked, "coincidence")[0] == ("0.102", "stale", "flag rate women")


def test_a_sentence_whose_words_changed_is_bound_afresh_and_the_lock_never_overrides_it(first, root):
    assert verdicts(first, "accuracy") == [("0.75", "verified", "test accuracy")]
    edit(root, "accuracy", "The test accuracy is 0.75.", "The train accuracy is 0.75.")
    checked = run_build(config(root), check_only=True)
    assert verdicts(checked, "accuracy") == [("0.75", "stale", "train accuracy")]
    edit(root, "accuracy", "The train accuracy is 0.75.", "The train accuracy is 0.75.\n\nThe test accuracy is 0.75.")
    checked = run_build(config(root), check_only=True)
    assert verdicts(checked, "accuracy") == [("0.75", "stale", "train accuracy"), ("0.75", "verified", "test accuracy")]


def test_a_bare_last_expression_is_labelled_by_its_source_and_never_rebound_to_a_coincidence(first, root):
    assert verdicts(first, "last-expression") == [("0.75", "verified", "accuracy"), ("0.75", "verified", "balance")]
    edit(root, "last-expression", "accuracy = 0.75", "accuracy = 0.60")
    checked = run_build(config(root), check_only=True)  # the page runs again: its code changed
    assert verdicts(checked, "last-expression")[0] == ("0.75", "stale", "accuracy")


def test_a_frame_printed_as_text_binds_by_row_and_survives_sorting(first, root):
    assert verdicts(first, "sorted-frame") == [("0.31", "verified", "rate women"), ("0.22", "verified", "rate men")]
    edit(root, "sorted-frame", "print(frame.to_string(index=False))",
         "print(frame.sort_values('rate').to_string(index=False))")
    checked = run_build(config(root), check_only=True)
    assert [status for _, status, _ in verdicts(checked, "sorted-frame")] == ["verified", "verified"]


def test_two_gaps_are_told_apart_by_the_words_of_their_lines_and_a_line_inserted_moves_no_binding(first, root):
    assert verdicts(first, "mitigation") == [("-0.05", "verified", "baseline gap"),
                                             ("-0.01", "verified", "reweighed gap")]
    edit(root, "mitigation", 'print("reweighed gap: -0.01")',
         'print("rows reweighed: 120")\nprint("reweighed gap: -0.01")')
    checked = run_build(config(root), check_only=True)  # the page runs again: its code changed
    assert verdicts(checked, "mitigation") == [("-0.05", "verified", "baseline gap"),
                                               ("-0.01", "verified", "reweighed gap")]


def test_a_sign_that_differs_is_stale_unless_the_sentence_states_the_direction(first, root):
    assert verdicts(first, "signs") == [("0.05", "verified", "gap approval")]
    edit(root, "signs", "Women are approved", "The gap in approval is 0.05.\n\nWomen are approved")
    checked = run_build(config(root), check_only=True)
    assert verdicts(checked, "signs") == [("0.05", "stale", "gap approval"), ("0.05", "verified", "gap approval")]


def test_an_integer_needs_an_integer_and_more_decimals_than_printed_are_unverified(first):
    results = first.quotes.pages["kinds"].results
    assert [(r.text, r.status) for r in results] == [("1", Status.UNVERIFIED), ("0.7500", Status.UNVERIFIED)]
    assert "quotes more decimals than its output prints" in results[1].message


def test_a_prose_table_and_a_parent_list_item_are_the_numbers_words(first):
    assert verdicts(first, "prose-table") == [
        ("0.30", "verified", "women rate"), ("12", "verified", "women count"),
        ("0.20", "verified", "men rate"), ("40", "verified", "men count"),
        ("0.30", "verified", "women rate"), ("0.20", "verified", "men rate")]


def test_an_inline_values_expression_names_the_row_of_the_numbers_beside_it(first):
    results = first.quotes.pages["inline-row"].results
    assert [(r.text, r.status.value, r.label) for r in results if r.message != INLINE_MESSAGE] == [
        ("0.4", "verified", "p sex")]


def test_numbers_of_one_sentence_bind_to_one_row(first):
    results = first.quotes.pages["one-row"].results
    assert [(r.text, r.status.value) for r in results] == [("0.15", "verified"), ("0.03", "verified")]
    assert results[0].output_ref.line == results[1].output_ref.line


def test_lines_named_as_well_are_ambiguous_and_list_the_candidates(first):
    (result,) = first.quotes.pages["ambiguous"].results
    assert (result.status, result.candidates) == (Status.AMBIGUOUS, ("rate of group a: 0.50", "rate of group b: 0.50"))


def test_a_byte_order_mark_before_the_front_matter_is_accepted(first):
    assert verdicts(first, "bom") == [("0.95", "verified", "coverage")]


@pytest.fixture(scope="module")
def with_claims(first, root):
    """The check once the page of claims joins the site (it fails: two claims give no truth value)."""
    shutil.copy(FIXTURE / "later" / "claim-kinds.md", root / "explainers" / "claim-kinds.md")
    return run_build(config(root), check_only=True)


def test_a_claim_must_give_a_truth_value(with_claims):
    claims = with_claims.quotes.pages["claim-kinds"].claims
    assert [(c.claim.line, c.holds) for c in claims] == [(12, False), (12, False), (13, True), (13, True)]
    assert claims[0].error == NOT_A_TRUTH_VALUE
    assert claims[1].error.startswith("TypeError: the expression gives str 'yes'")
    assert any(p.line == 12 and NOT_A_TRUTH_VALUE in p.message for p in with_claims.problems)


def test_check_does_not_write_the_lock_and_fix_never_touches_a_claim(with_claims, root):
    lock = root / "explainers" / "quotes.lock.json"
    before = lock.read_text()
    edit(root, "claim-kinds", "rate = 0.30", "rate = 0.40")
    checked = run_build(config(root), check_only=True)
    assert [(r.text, r.status.value) for r in checked.quotes.pages["claim-kinds"].results] == [("0.30", "stale")]
    assert lock.read_text() == before  # check reads the lock and never writes it
    fixes, _ = run_check_fix(config(root))
    page = (root / "explainers" / "claim-kinds.md").read_text()
    assert "[rate of women is 0.30]{check=\"rate > 0.2\"}" in page  # a claim's words stay as written
    assert [r.text for fix in fixes for r in fix.left if fix.path == "explainers/claim-kinds.md"] == ["0.30"]


def test_a_claim_past_the_timeout_is_reported_as_that_claim_at_its_line(tmp_path):
    root = tmp_path / "site"
    (root / "explainers").mkdir(parents=True)
    shutil.copy(FIXTURE / "later" / "claim-timeout.md", root / "explainers" / "claim-timeout.md")
    summary = run_build(config(root), check_only=True)
    (problem,) = [p for p in summary.problems if p.path == "explainers/claim-timeout.md"]
    assert problem.line == 16
    assert "ran longer than its timeout of 3 s (stopped while evaluating the claim `settles()`)" in problem.message
