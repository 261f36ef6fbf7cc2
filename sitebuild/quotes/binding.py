"""Quoted numbers that cannot lie: every number of a page's prose, checked against the
page's regenerated outputs.

Each prose number (see :mod:`sitebuild.quotes_extract` for what counts as prose, and
:mod:`sitebuild.numbers` for the number grammar and precision rules) gets a status, in
this order of precedence:

EXEMPT
    under a heading named in the page's ``exempt_sections`` or inside the inline marker
    ``[...]{.nocheck}``.
INPUT
    exactly equal to a numeric literal of the page's code (``2,000`` and ``2_000``,
    ``5%`` and ``0.05``, ``p < 0.05`` and ``alpha = 0.05``). A typed input cannot drift
    from the code beside it, so it is not tracked further.
VERIFIED / STALE
    the lock binds the number to an output position: the output line is found again by
    its shape (its text with numbers masked) and, failing that, by its position. If that
    output number still backs the prose number it is VERIFIED; otherwise it is STALE,
    with the old and the new value.
VERIFIED
    not in the lock, but some output number backs it (the first one in page order).
UNVERIFIED
    nothing backs it: a warning, an error under ``--strict``.

A prose comparison (``p < 0.0005``) is backed by the same comparison in an output, or by
an output number shown with decimals that satisfies it; ``--fix`` rewrites it only when
its output is itself a comparison.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Iterable, Sequence

from markdown_it.token import Token

from sitebuild.lock import LockEntry
from sitebuild.numbers import Number, code_literals, equals_literal, format_like, matches_output, value_in_units_of
from sitebuild.quotes_extract import DEFAULT_EXEMPT_SECTIONS, ProseNumber, extract_prose_numbers
from sitebuild.quotes_outputs import (  # noqa: F401  (re-exported: the checker's public API)
    OutputIndex,
    OutputNumber,
    OutputRef,
    OutputText,
    outputs_from_blocks,
)


class Status(str, Enum):
    """What the check concluded about one prose number."""

    VERIFIED = "verified"
    INPUT = "input"
    EXEMPT = "exempt"
    STALE = "stale"
    UNVERIFIED = "unverified"


@dataclass(frozen=True)
class QuoteResult:
    """The verdict on one prose number.

    ``old`` and ``new`` are set for STALE numbers: the output value the lock recorded and
    the new output value written in the prose's style (``new`` is empty when it cannot be
    rewritten automatically). ``entry`` is what the lock keeps for this number;
    ``fixed_entry`` what it keeps once ``--fix`` rewrote it. ``token_index``,
    ``child_index`` and ``offset`` place the number exactly in the page's tokens: the
    inline token, its text child, and the offset in that child's content."""

    path: str
    status: Status
    text: str
    line: int
    col: int
    value: str = ""
    old: str = ""
    new: str = ""
    output_ref: OutputRef | None = None
    output_line: str = ""
    message: str = ""
    entry: LockEntry | None = None
    fixed_entry: LockEntry | None = None
    token_index: int = -1
    child_index: int = -1
    offset: int = -1


@dataclass(frozen=True)
class QuoteSummary:
    """Counts of a page's numbers by status."""

    verified: int = 0
    stale: int = 0
    unverified: int = 0
    exempt: int = 0
    input: int = 0

    def __add__(self, other: "QuoteSummary") -> "QuoteSummary":
        return QuoteSummary(*(a + b for a, b in zip(self.as_tuple(), other.as_tuple())))

    def as_tuple(self) -> tuple[int, int, int, int, int]:
        """The counts in the order verified, stale, unverified, exempt, input."""
        return (self.verified, self.stale, self.unverified, self.exempt, self.input)


@dataclass
class PageQuotes:
    """Everything the check found on one page, and the lock entries it now implies."""

    path: str
    results: list[QuoteResult] = field(default_factory=list)
    new_lock_entries: list[LockEntry] = field(default_factory=list)

    @property
    def summary(self) -> QuoteSummary:
        """Counts by status."""
        return summarize(self.results)

    def problems(self, strict: bool = False) -> list[QuoteResult]:
        """The STALE results, and the UNVERIFIED ones too when ``strict``."""
        failing = {Status.STALE, Status.UNVERIFIED} if strict else {Status.STALE}
        return [result for result in self.results if result.status in failing]


def check_page(
    md_text: str,
    md_path: str,
    outputs: Sequence[OutputText],
    code_blocks: Sequence[str],
    lock_entries: Iterable[LockEntry],
    exempt_sections: Iterable[str] = DEFAULT_EXEMPT_SECTIONS,
    tokens: Sequence[Token] | None = None,
) -> PageQuotes:
    """Check every number of one page's prose against its outputs and code.

    Parameters
    ----------
    md_text, md_path
        The page source and its path as it should appear in messages and in the lock
        (e.g. ``explainers/x.md``).
    outputs
        The page's captured text outputs, in page order.
    code_blocks
        The sources of the page's code blocks (their literals make numbers INPUT).
    lock_entries
        The current lock (entries of other pages are ignored).
    exempt_sections
        Headings whose sections are exempt.
    tokens
        The page's tokens from the shared parser, if already parsed.

    Returns
    -------
    PageQuotes
        One result per prose number, in page order, and the page's new lock entries."""
    prose = extract_prose_numbers(md_text, tokens, exempt_sections)
    output_index = OutputIndex(outputs)
    literals = [literal for source in code_blocks for literal in code_literals(source)]
    bindings = _Bindings([entry for entry in lock_entries if entry.page == md_path])
    occurrences: dict[tuple[str, str], int] = {}
    results: list[QuoteResult] = []
    for item in prose:
        key = (item.text, item.context)
        occurrence = occurrences.get(key, 0)
        occurrences[key] = occurrence + 1
        results.append(_classify(md_path, item, occurrence, output_index, literals, bindings))
    entries = [result.entry for result in results if result.entry is not None]
    return PageQuotes(path=md_path, results=results, new_lock_entries=entries)


class _Bindings:
    """The page's lock entries, each claimed by at most one prose number."""

    def __init__(self, entries: list[LockEntry]):
        self._exact: dict[tuple[str, str, int], LockEntry] = {}
        self._by_quote: dict[str, list[LockEntry]] = {}
        for entry in entries:
            self._exact.setdefault((entry.quote, entry.context, entry.occurrence), entry)
            self._by_quote.setdefault(entry.quote, []).append(entry)

    def claim(self, item: ProseNumber, occurrence: int) -> LockEntry | None:
        """Take the entry bound to this prose number: same text, sentence shape and
        occurrence; else the only remaining entry with the same text."""
        chosen = self._exact.get((item.text, item.context, occurrence))
        same_text = self._by_quote.get(item.text, [])
        if chosen is None and len(same_text) == 1:
            chosen = same_text[0]
        if chosen is not None:
            self._exact.pop((chosen.quote, chosen.context, chosen.occurrence), None)
            self._by_quote[chosen.quote] = [e for e in same_text if e is not chosen]
        return chosen


def _classify(
    path: str,
    item: ProseNumber,
    occurrence: int,
    outputs: OutputIndex,
    literals: list[Number],
    bindings: _Bindings,
) -> QuoteResult:
    base = QuoteResult(
        path=path, status=Status.UNVERIFIED, text=item.text, line=item.line, col=item.col,
        token_index=item.token_index, child_index=item.child_index, offset=item.number.start,
    )
    if item.exempt_reason:
        return _with(base, Status.EXEMPT, message=item.exempt_reason)
    if any(equals_literal(item.number, literal) for literal in literals):
        return _with(base, Status.INPUT, message="a literal of the page's code")
    entry = bindings.claim(item, occurrence)
    if entry is not None:
        return _check_binding(base, item, occurrence, entry, outputs)
    backing = outputs.find_backing(item.number)
    if backing is None:
        return _with(base, Status.UNVERIFIED, message=unverified_message(item.text))
    return _verified(base, item, occurrence, backing)


def _check_binding(
    base: QuoteResult, item: ProseNumber, occurrence: int, entry: LockEntry, outputs: OutputIndex
) -> QuoteResult:
    target = outputs.resolve(entry)
    if target is None:
        backing = outputs.find_backing(item.number)
        if backing is not None:  # its output line is gone, but another one backs it: bind anew
            return _verified(base, item, occurrence, backing)
        where = f"block {entry.block}, output {entry.output}, line {entry.output_line}"
        message = (f"the output line it was verified against ({where}: {entry.shape!r}) is gone; "
                   "print the value again or mark the number [...]{.nocheck}")
        return _with(base, Status.STALE, old=entry.value, message=message, entry=entry)
    if matches_output(item.number, target.number):
        return _verified(base, item, occurrence, target)
    new = rewritten_value(item.number, target.number)
    fixed = _entry_for(base.path, item, occurrence, target, quote=new) if new else None
    message = f"the output it quotes now says {new or target.number.text}"
    if not new:
        message += " (rewrite it by hand)"
    return _with(
        base, Status.STALE, value=target.number.text, old=entry.value, new=new, output_ref=target.ref,
        output_line=target.line_text, message=message, entry=entry, fixed_entry=fixed,
    )


def rewritten_value(prose: Number, output: Number) -> str:
    """The new text for a stale prose number, in its own style; empty when the prose is
    a comparison and the output is a plain value (no honest automatic rewrite)."""
    if prose.comparator and not output.comparator:
        return ""
    return format_like(prose, value_in_units_of(prose, output))


def _verified(base: QuoteResult, item: ProseNumber, occurrence: int, backing: OutputNumber) -> QuoteResult:
    return _with(
        base, Status.VERIFIED, value=backing.number.text, output_ref=backing.ref, output_line=backing.line_text,
        message=f"from the output of block {backing.ref.block}", entry=_entry_for(base.path, item, occurrence, backing),
    )


def _entry_for(
    path: str, item: ProseNumber, occurrence: int, backing: OutputNumber, quote: str | None = None
) -> LockEntry:
    return LockEntry(
        page=path, quote=quote if quote is not None else item.text, context=item.context,
        occurrence=occurrence, line=item.line, block=backing.ref.block, output=backing.ref.output,
        output_line=backing.ref.line, index=backing.ref.index, shape=backing.shape, value=backing.number.text,
    )


def _with(base: QuoteResult, status: Status, **changes: object) -> QuoteResult:
    return replace(base, status=status, **changes)


def unverified_message(text: str) -> str:
    """The advice given for a number nothing backs."""
    return (f'"{text}" is not backed by any output of this page: print it from the code, bind it with '
            "`{python} expr`, or mark it [...]{.nocheck} if it is not a result")


def format_problem(result: QuoteResult) -> str:
    """One line for the terminal, e.g.
    ``explainers/x.md:42: "72%" is stale: the output it quotes now says 69%``."""
    where = f"{result.path}:{result.line}"
    if result.status is Status.STALE:
        return f'{where}: "{result.text}" is stale: {result.message}'
    if result.status is Status.UNVERIFIED:
        return f"{where}: {result.message}"
    return f'{where}: "{result.text}" is {result.status.value}: {result.message}'


def summarize(results: Iterable[QuoteResult]) -> QuoteSummary:
    """Count results by status."""
    counts = {status: 0 for status in Status}
    for result in results:
        counts[result.status] += 1
    return QuoteSummary(
        verified=counts[Status.VERIFIED], stale=counts[Status.STALE], unverified=counts[Status.UNVERIFIED],
        exempt=counts[Status.EXEMPT], input=counts[Status.INPUT],
    )


def format_summary(pages: Iterable[PageQuotes]) -> str:
    """A small table of counts per page and in total, as ``check`` prints it."""
    rows = [(page.path, page.summary) for page in pages]
    total = sum((summary for _, summary in rows), QuoteSummary())
    width = max([len("page"), len("total")] + [len(path) for path, _ in rows])
    header = f"{'page':<{width}}  verified  stale  unverified  exempt  input"
    lines = [header] + [_summary_row(path, summary, width) for path, summary in rows + [("total", total)]]
    return "\n".join(lines)


def _summary_row(label: str, summary: QuoteSummary, width: int) -> str:
    v, s, u, e, i = summary.as_tuple()
    return f"{label:<{width}}  {v:>8}  {s:>5}  {u:>10}  {e:>6}  {i:>5}"
