"""What a build did, as the build command returns it: :class:`BuildSummary`. Its own
module, so that a build with nothing to do returns one without importing the stages."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, NamedTuple

if TYPE_CHECKING:
    from sitebuild.quotes import QuoteRun

#: Where the build reports its progress, one line at a time.
Progress = Callable[[str], None]


class BuildSummary(NamedTuple):
    """What a build did: page counts, time, problems (errors and warnings), report rows.
    A ``NamedTuple``, as the configuration is: a build with nothing to do returns one
    without importing the library the stages' records are made with."""

    pages: int = 0
    executed: int = 0
    cached: int = 0
    failed: int = 0
    without_code: int = 0
    seconds: float = 0.0
    problems: tuple = ()
    rows: tuple = ()
    up_to_date: bool = False
    written: bool = False
    strict: bool = False
    quotes: QuoteRun | None = None  # the quoted-number check (None when nothing was checked)
    #: A failed build's pages' reads (names from the root, or absolute), for the preview to watch.
    read: tuple[str, ...] = ()

    @property
    def page_quotes(self) -> list:
        """The quote check of every checked page (PageQuotes), in page order."""
        return list(self.quotes.pages.values()) if self.quotes is not None else []

    @property
    def errors(self) -> list:
        """Problems that fail the build (warnings too under --strict)."""
        return [p for p in self.problems if p.severity == "error" or self.strict]

    @property
    def ok(self) -> bool:
        """True when nothing failed."""
        return not self.errors

    def closing_line(self) -> str:
        """The one-line summary printed at the end."""
        if self.up_to_date:
            return f"site is up to date ({self.seconds:.2f} s)"
        warnings = sum(p.severity == "warning" for p in self.problems)
        prose = f", {self.without_code} without code" if self.without_code else ""
        return (f"{self.pages} pages: {self.executed} executed, {self.cached} cached, {self.failed} failed{prose}; "
                f"{warnings} warning(s); {self.seconds:.2f} s")

