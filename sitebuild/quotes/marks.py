"""The marks the renderer draws on a checked page, as :class:`~sitebuild.checks.annotations.Annotation`:
each verified number links to the output line it quotes, each claim carries its
condition and values; in preview, stale, unverified and ambiguous numbers and broken
claims are marked too. Every mark has a unique id and a plain-text note."""

from __future__ import annotations

from sitebuild.checks.annotations import Annotation, PageMarks
from sitebuild.quotes.claims import ClaimResult
from sitebuild.quotes.results import PageQuotes, QuoteResult, Status

PROBLEM_STATUSES = (Status.STALE, Status.UNVERIFIED, Status.AMBIGUOUS)


def page_marks(quotes: PageQuotes, include_problems: bool = False) -> PageMarks:
    """The renderer's marks for one checked page, placed in its tokens: (inline token,
    child) -> [(offset in the child's content, mark)], offsets ascending. Verified
    numbers and claims that hold are always marked; problems only when
    ``include_problems`` (preview builds). Exempt and input numbers stay unmarked, and so
    do numbers in alt texts and captions (an attribute cannot hold a mark)."""
    placed: PageMarks = {}
    for result in quotes.results:
        mark = quote_mark(result, include_problems)
        if mark is not None and result.where in ("prose", "heading") and result.token_index >= 0 \
                and result.child_index >= 0:
            placed.setdefault((result.token_index, result.child_index), []).append((result.offset, mark))
    for claim in quotes.claims:
        if claim.holds or include_problems:
            key = (claim.claim.token_index, claim.claim.child_index)
            placed.setdefault(key, []).append((0, claim_mark(claim)))
    return {key: sorted(marks, key=lambda item: item[0]) for key, marks in placed.items()}


def quote_mark(result: QuoteResult, include_problems: bool = False) -> Annotation | None:
    """The mark of one prose number, or None when it is not marked."""
    mark_id = f"q-{result.line}-{result.col}"
    if result.status is Status.VERIFIED and result.output_ref is not None:
        ref = result.output_ref
        note = (f"From the output of block {ref.block}, line {ref.line + 1}: {result.output_line.strip()}")
        title = f"From the output of block {ref.block}: “{result.output_line.strip()}”"
        return Annotation(result.text, "verified", ref.anchor, title, mark_id, note)
    if include_problems and result.status in PROBLEM_STATUSES:
        note = f"{result.status.value.capitalize()}: {result.message}"
        return Annotation(result.text, result.status.value, "", note, mark_id, note)
    return None


def claim_mark(claim: ClaimResult) -> Annotation:
    """The mark of one claim: holds or broken, with its condition and values."""
    status = "holds" if claim.holds else "broken"
    return Annotation(claim.claim.words, status, "", claim.note, f"claim-{claim.claim.index + 1}", claim.note,
                      kind="claim")
