"""What the check concludes, as plain data: a verdict per prose number and per claim,
the counts per page, and the lines ``check`` prints."""

from __future__ import annotations

from enum import Enum
from typing import Iterable

from msgspec import Struct, field

from sitebuild.quotes.claims import ClaimResult
from sitebuild.quotes.lock import LockEntry
from sitebuild.quotes.outputs import OutputRef


class Status(str, Enum):
    """What the check concluded about one prose number."""

    VERIFIED = "verified"
    INPUT = "input"
    EXEMPT = "exempt"
    STALE = "stale"
    UNVERIFIED = "unverified"
    AMBIGUOUS = "ambiguous"


class QuoteResult(Struct, frozen=True):
    """The verdict on one prose number.

    ``old`` and ``new`` are set for STALE numbers: the output value the lock recorded and
    the new output value written in the prose's style (``new`` is empty when it cannot be
    rewritten automatically). ``entry`` is what the lock keeps for this number;
    ``fixed_entry`` what it keeps once ``--fix`` rewrote it. ``token_index``,
    ``child_index`` and ``offset`` place the number exactly in the page's tokens: the
    inline token, its text child, and the offset in that child's content; ``span`` its
    0-based columns in its source line and ``exact`` whether the source there reads
    ``text`` (only then may ``--fix`` rewrite it). ``where`` is prose, heading, alt or
    caption; ``label`` the words of the output line it is bound to; ``candidates`` the
    output lines an AMBIGUOUS number could quote; ``in_claim`` whether it stands in a
    checked claim's words (``--fix`` never rewrites those); ``rebound`` the label the
    lock remembered when the number is now bound to a line with other labels."""

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
    span: tuple[int, int] = (-1, -1)
    exact: bool = False
    where: str = "prose"
    label: str = ""
    candidates: tuple[str, ...] = ()
    in_claim: bool = False
    rebound: str = ""


class QuoteSummary(Struct, frozen=True):
    """Counts of a page's numbers by status, and of its claims that hold and broke."""

    verified: int = 0
    stale: int = 0
    unverified: int = 0
    exempt: int = 0
    input: int = 0
    ambiguous: int = 0
    holds: int = 0
    broken: int = 0

    def __add__(self, other: "QuoteSummary") -> "QuoteSummary":
        return QuoteSummary(*(a + b for a, b in zip(self.as_tuple(), other.as_tuple())))

    def as_tuple(self) -> tuple[int, ...]:
        """The counts in the order verified, stale, unverified, exempt, input, ambiguous,
        claims that hold, claims that broke."""
        return (self.verified, self.stale, self.unverified, self.exempt, self.input, self.ambiguous,
                self.holds, self.broken)

    def as_dict(self) -> dict[str, int]:
        """The counts by name (the report page's columns)."""
        names = ("verified", "stale", "unverified", "exempt", "input", "ambiguous", "holds", "broken")
        return dict(zip(names, self.as_tuple()))


class PageQuotes(Struct):
    """Everything the check found on one page (numbers and claims), and the lock entries
    it now implies."""

    path: str
    results: list[QuoteResult] = field(default_factory=list)
    new_lock_entries: list[LockEntry] = field(default_factory=list)
    claims: list[ClaimResult] = field(default_factory=list)

    @property
    def summary(self) -> QuoteSummary:
        """Counts by status."""
        return summarize(self.results, self.claims)

    def problems(self, strict: bool = False) -> list[QuoteResult]:
        """The STALE results, and the UNVERIFIED, AMBIGUOUS and rebound ones too when ``strict``."""
        failing = {Status.STALE, Status.UNVERIFIED, Status.AMBIGUOUS} if strict else {Status.STALE}
        return [result for result in self.results if result.status in failing
                or (strict and result.rebound and result.status is Status.VERIFIED)]

    def broken_claims(self) -> list[ClaimResult]:
        """The claims that do not hold or could not be evaluated."""
        return [claim for claim in self.claims if not claim.holds]


def unverified_message(text: str) -> str:
    """The advice given for a number nothing backs."""
    return (f'"{text}" is not backed by any output of this page: print it from the code, bind it with '
            "`{python} expr`, or mark it [...]{.nocheck} if it is not a result")


#: What a stale number's message ends with, unless it must be rewritten by hand: the command that rewrites it.
STALE_FIX_HINT = "; `python build.py check --fix` rewrites it"
BY_HAND = "(rewrite it by hand)"


def format_problem(result: QuoteResult) -> str:
    """One line for the terminal, e.g. ``explainers/x.md:42: "72%" is stale: the output it
    quotes now says 69%; `python build.py check --fix` rewrites it``."""
    where = f"{result.path}:{result.line}"
    if result.status is Status.STALE:
        hint = "" if result.message.endswith(BY_HAND) else STALE_FIX_HINT
        return f'{where}: "{result.text}" is stale: {result.message}{hint}'
    if result.status is Status.UNVERIFIED or (result.rebound and result.status is Status.VERIFIED):
        return f"{where}: {result.message}"
    return f'{where}: "{result.text}" is {result.status.value}: {result.message}'


def summarize(results: Iterable[QuoteResult], claims: Iterable[ClaimResult] = ()) -> QuoteSummary:
    """Count results by status, and claims by whether they hold."""
    counts = {status: 0 for status in Status}
    for result in results:
        counts[result.status] += 1
    claims = list(claims)
    holding = sum(claim.holds for claim in claims)
    return QuoteSummary(
        verified=counts[Status.VERIFIED], stale=counts[Status.STALE], unverified=counts[Status.UNVERIFIED],
        exempt=counts[Status.EXEMPT], input=counts[Status.INPUT], ambiguous=counts[Status.AMBIGUOUS],
        holds=holding, broken=len(claims) - holding,
    )


SUMMARY_COLUMNS = ("verified", "stale", "unverified", "ambiguous", "exempt", "input", "claims-hold", "claims-broken")


def format_summary(pages: Iterable[PageQuotes]) -> str:
    """A small table of counts per page and in total, as ``check`` prints it."""
    rows = [(page.path, page.summary) for page in pages]
    total = sum((summary for _, summary in rows), QuoteSummary())
    width = max([len("page"), len("total")] + [len(path) for path, _ in rows])
    header = f"{'page':<{width}}  " + "  ".join(SUMMARY_COLUMNS)
    lines = [header] + [_summary_row(path, summary, width) for path, summary in rows + [("total", total)]]
    return "\n".join(lines)


def _summary_row(label: str, summary: QuoteSummary, width: int) -> str:
    counts = summary.as_dict()
    counts["claims-hold"], counts["claims-broken"] = counts.pop("holds"), counts.pop("broken")
    cells = "  ".join(f"{counts[name]:>{len(name)}}" for name in SUMMARY_COLUMNS)
    return f"{label:<{width}}  {cells}"
