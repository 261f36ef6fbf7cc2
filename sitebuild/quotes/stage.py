"""Stage 5b: the quoted-number check over a build's pages. It runs the checker of
:mod:`sitebuild.quotes` on every page that executed, turns stale and unverified numbers
into :class:`~sitebuild.check.Problem` records, keeps the lock of the source folder up to
date, rewrites stale numbers for ``check --fix`` and gives the renderer its marks.

Inline ``{python} expr`` values are counted as VERIFIED: the value the reader sees was
produced by the kernel in this build, so there is nothing to compare it with. They have
no lock entry and no mark (their value is already the output)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from sitebuild.check import Problem
from sitebuild.errors import SourceError
from sitebuild.execute import ExecutedPage
from sitebuild.files import write_text_atomic
from sitebuild.lock import (
    LOCK_FILENAME,
    LockEntry,
    drop_missing_pages,
    load_lock,
    lock_text,
    replace_page_entries,
    save_lock,
)
from sitebuild.quotes import PageQuotes, QuoteResult, Status, check_page, format_problem, outputs_from_blocks
from sitebuild.quotes_fix import fix_page, marks_by_child, unified_diff
from sitebuild.read import Page
from sitebuild.render import Annotation, PageMarks

INLINE_MESSAGE = "an inline {python} value: the kernel's own output"


@dataclass
class QuoteRun:
    """The quote check of one build: results by page slug (pages that executed, in
    order), the lock as read, the lock this check implies, and the lock's problem (when
    it could not be read, nothing is checked and nothing is saved)."""

    lock_path: Path
    pages: dict[str, PageQuotes] = field(default_factory=dict)
    sources: dict[str, Page] = field(default_factory=dict)
    lock: list[LockEntry] = field(default_factory=list)
    updated: list[LockEntry] = field(default_factory=list)
    lock_error: SourceError | None = None

    def problems(self) -> list[Problem]:
        """Stale numbers as errors, unverified ones as warnings (errors under --strict),
        and an unreadable lock as an error."""
        problems = []
        if self.lock_error is not None:
            error = self.lock_error
            problems.append(Problem(error.path, error.line, f"{error.message}; fix or delete the file "
                                                            "(it is rewritten by the next successful build)"))
        for quotes in self.pages.values():
            problems.extend(_problem(result) for result in quotes.problems(strict=True))
        return problems

    def numbers(self, slug: str) -> dict[str, int]:
        """The counts of one page by status, for the report (empty when not checked)."""
        quotes = self.pages.get(slug)
        if quotes is None:
            return {}
        summary = quotes.summary
        return {"verified": summary.verified, "stale": summary.stale, "unverified": summary.unverified,
                "exempt": summary.exempt, "input": summary.input}


def _problem(result: QuoteResult) -> Problem:
    location = f"{result.path}:{result.line}: "
    message = format_problem(result).removeprefix(location)
    severity = "error" if result.status is Status.STALE else "warning"
    return Problem(result.path, result.line, message, severity, plain=True)


def lock_path_for(source: Path) -> Path:
    """Where the lock of a source folder lives."""
    return source / LOCK_FILENAME


def inline_results(page: Page, executed: ExecutedPage) -> list[QuoteResult]:
    """The page's evaluated inline values, as VERIFIED results."""
    values = {value.index: value for value in executed.inline}
    results = []
    for expr in page.inline:
        value = values.get(expr.index)
        if value is not None and not value.error:
            results.append(QuoteResult(path=page.rel_path, status=Status.VERIFIED, text=value.text, line=expr.line,
                                       col=expr.col, value=value.text, message=INLINE_MESSAGE))
    return results


def check_page_quotes(page: Page, executed: ExecutedPage, lock: list[LockEntry]) -> PageQuotes:
    """Check one executed page's numbers against its outputs, code and the lock."""
    quotes = check_page(page.text, page.rel_path, outputs_from_blocks(executed.blocks),
                        [block.source for block in page.blocks if block.language == "python"],
                        lock, page.front.exempt_sections, tokens=page.tokens)
    quotes.results.extend(inline_results(page, executed))
    quotes.results.sort(key=lambda result: (result.line, result.col))
    return quotes


def check_quotes(source: Path, pages: list[Page], executed: dict[str, ExecutedPage],
                 known_paths: list[str] | None = None) -> QuoteRun:
    """Check every page that executed without error. Pages that failed or did not run
    keep their lock entries; entries of pages that no longer exist (not in ``pages`` nor
    in ``known_paths``, e.g. pages with a source error) are dropped."""
    run = QuoteRun(lock_path=lock_path_for(source))
    try:
        run.lock = load_lock(run.lock_path)
    except SourceError as error:
        run.lock_error = error
        return run
    updated = list(run.lock)
    for page in pages:
        result = executed.get(page.slug)
        if result is None or result.error is not None:
            continue
        quotes = check_page_quotes(page, result, run.lock)
        run.pages[page.slug], run.sources[page.slug] = quotes, page
        updated = replace_page_entries(updated, page.rel_path, quotes.new_lock_entries)
    run.updated = drop_missing_pages(updated, [p.rel_path for p in pages] + list(known_paths or []))
    return run


def save_quote_lock(run: QuoteRun) -> bool:
    """Write the lock this check implies, if it differs from the file; return True if written."""
    if run.lock_error is not None:
        return False
    try:
        current = run.lock_path.read_text(encoding="utf-8")
    except OSError:
        current = None
    if current == lock_text(run.updated) or (current is None and not run.updated):
        return False
    save_lock(run.lock_path, run.updated)
    return True


@dataclass
class PageFix:
    """What ``--fix`` did to one page: the diff it applied and the stale numbers it left."""

    path: str
    diff: str
    fixed: list[QuoteResult]
    left: list[QuoteResult]


def fix_quotes(run: QuoteRun) -> list[PageFix]:
    """Rewrite every stale number of the checked pages in place (each .md written
    atomically), point the lock at the values the rewritten numbers now quote, and save
    it. Unverified numbers are never touched."""
    if run.lock_error is not None:
        return []
    fixes: list[PageFix] = []
    lock = list(run.updated)
    for slug, quotes in run.pages.items():
        page = run.sources[slug]
        outcome = fix_page(page.text, quotes)
        lock = replace_page_entries(lock, page.rel_path, outcome.lock_entries)
        if outcome.fixed:
            write_text_atomic(page.path, outcome.text)
        if outcome.fixed or outcome.left:
            fixes.append(PageFix(page.rel_path, unified_diff(page.text, outcome.text, page.rel_path),
                                 outcome.fixed, outcome.left))
    run.updated = lock
    save_quote_lock(run)
    return fixes


def not_rewritten_line(result: QuoteResult) -> str:
    """Why ``--fix`` left a stale number for the author."""
    return f'{result.path}:{result.line}: "{result.text}" not rewritten: {result.message}'


def page_marks(quotes: PageQuotes, include_problems: bool) -> PageMarks:
    """The renderer's marks for one checked page: verified numbers link to their output
    line; stale and unverified ones are marked only when ``include_problems``."""
    return {key: [(offset, Annotation(mark.text, mark.status, mark.anchor, mark.title)) for offset, mark in marks]
            for key, marks in marks_by_child(quotes, include_problems=include_problems).items()}
