"""Stage 5b: the quoted-number and claim check over a build's pages. It runs the checker
of :mod:`sitebuild.quotes.binding` on every page that executed, judges its claims, turns
stale, unverified and ambiguous numbers and broken claims into
:class:`~sitebuild.checks.check.Problem` records, keeps the lock of the source folder up to
date, rewrites stale numbers for ``check --fix`` and gives the renderer its marks.

Inline ``{python} expr`` values are counted as VERIFIED: the value the reader sees was
produced by the kernel in this build, so there is nothing to compare it with. They have
no lock entry and no mark (their value is already the output)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from msgspec import Struct, field

from sitebuild.checks.annotations import PageMarks
from sitebuild.checks.check import Problem
from sitebuild.errors import SourceError
from sitebuild.execution.executed import ExecutedPage
from sitebuild.quotes import LOCK_FILENAME
from sitebuild.quotes.binding import check_page
from sitebuild.quotes.claims import ClaimResult, judge_claims
from sitebuild.quotes.lock import (
    LockEntry,
    drop_missing_pages,
    load_lock,
    lock_text,
    replace_page_entries,
    save_lock,
)
from sitebuild.quotes.marks import page_marks as _marks
from sitebuild.quotes.outputs import outputs_from_blocks
from sitebuild.quotes.results import PageQuotes, QuoteResult, Status, format_problem
from sitebuild.source.read import Page
from sitebuild.store.files import write_text_atomic

if TYPE_CHECKING:
    from sitebuild.quotes.fix import SourceFile

INLINE_MESSAGE = "an inline {python} value: the kernel's own output"


class QuoteRun(Struct):
    """The quote check of one build: results by page slug (pages that executed, in
    order), the lock as read, the lock this check implies, and the lock's problem (when
    it could not be read, nothing is checked and nothing is saved)."""

    lock_path: Path
    pages: dict[str, PageQuotes] = field(default_factory=dict)
    sources: dict[str, Page] = field(default_factory=dict)
    all_pages: list[Page] = field(default_factory=list)
    lock: list[LockEntry] = field(default_factory=list)
    updated: list[LockEntry] = field(default_factory=list)
    lock_error: SourceError | None = None

    def problems(self) -> list[Problem]:
        """Stale numbers and broken claims as errors, unverified and ambiguous numbers as
        warnings (errors under --strict), and an unreadable lock as an error."""
        problems = []
        if self.lock_error is not None:
            error = self.lock_error
            problems.append(Problem(error.path, error.line, f"{error.message}; fix or delete the file "
                                                            "(it is rewritten by the next successful build)"))
        for quotes in self.pages.values():
            problems.extend(_problem(result) for result in quotes.problems(strict=True))
            problems.extend(_claim_problem(claim) for claim in quotes.broken_claims())
        for page in self.sources.values():
            problems.extend(Problem(page.rel_path, line, f"{text!r} looks like a checked claim but is not read as one: "
                                    'write it as [words]{check="expression"}, the expression in double quotes, with no '
                                    'braces '
                                    'or double quotes inside it (write set(...) or dict(...), and single quotes)')
                            for line, text in page.malformed_claims)
        return problems

    def numbers(self, slug: str) -> dict[str, int]:
        """The counts of one page by status, for the report (empty when not checked)."""
        quotes = self.pages.get(slug)
        if quotes is None:
            return {}
        return quotes.summary.as_dict()


def _problem(result: QuoteResult) -> Problem:
    location = f"{result.path}:{result.line}: "
    message = format_problem(result).removeprefix(location)
    severity = "error" if result.status is Status.STALE else "warning"
    return Problem(result.path, result.line, message, severity, plain=True)


def _claim_problem(claim: ClaimResult) -> Problem:
    return Problem(claim.path, claim.claim.line, claim.message, "error", plain=True)


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
    sources = {block.n: block.source for block in page.blocks if block.language == "python"}
    quotes = check_page(page.text, page.rel_path, outputs_from_blocks(executed.blocks, sources),
                        [block.source for block in page.blocks if block.language == "python"],
                        lock, page.front.exempt_sections, tokens=page.tokens)
    quotes.results.extend(inline_results(page, executed))
    quotes.results.sort(key=lambda result: (result.line, result.col))
    quotes.claims = judge_claims(page.rel_path, page.claims, executed.claims)
    return quotes


def check_quotes(source: Path, pages: list[Page], executed: dict[str, ExecutedPage],
                 known_paths: list[str] | None = None, memo=None) -> QuoteRun:
    """Check every page that executed without error. Pages that failed or did not run
    keep their lock entries; entries of pages that no longer exist (not in ``pages`` nor
    in ``known_paths``, e.g. pages with a source error) are dropped. ``memo`` (a
    :class:`~sitebuild.quotes.memo.QuoteMemo`), when given, gives each page whose inputs
    are unchanged its check of the last build."""
    run = QuoteRun(lock_path=lock_path_for(source), all_pages=list(pages))
    try:
        run.lock = load_lock(run.lock_path)
    except SourceError as error:
        run.lock_error = error
        return run
    own: dict[str, list[LockEntry]] = {}  # each page's entries (a check reads its own only)
    for entry in run.lock:
        own.setdefault(entry.page, []).append(entry)
    for page in pages:
        result = executed.get(page.slug)
        if result is None or result.error is not None:
            continue
        entries = own.get(page.rel_path, [])
        quotes = memo.check(page, result, entries) if memo is not None else check_page_quotes(page, result, entries)
        run.pages[page.slug], run.sources[page.slug] = quotes, page
        own[page.rel_path] = list(quotes.new_lock_entries)
    updated = sorted((entry for entries in own.values() for entry in entries), key=LockEntry.sort_key)
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


class PageFix(Struct):
    """What ``--fix`` did to one page: the diff it applied (of this page, and of the
    ``others`` whose links it rewrote to follow a renamed heading) and the stale numbers
    it left."""

    path: str
    diff: str
    fixed: list[QuoteResult]
    left: list[QuoteResult]
    others: tuple[str, ...] = ()


def fix_quotes(run: QuoteRun) -> list[PageFix]:
    """Rewrite every stale number of the checked pages in place (each .md written
    atomically, byte for byte except the numbers and the links that follow a renamed
    heading), point the lock at the values the rewritten numbers now quote, save it, and
    bring the generated scripts up to date. Unverified numbers and claims are never
    touched."""
    from sitebuild.quotes.fix import SourceFile, fix_page, unified_diff  # loaded for --fix only

    if run.lock_error is not None:
        return []
    sources = {page.rel_path: _source_file(page) for page in run.all_pages or run.sources.values()}
    fixes: list[PageFix] = []
    lock = list(run.updated)
    for slug, quotes in run.pages.items():
        page = run.sources[slug]
        source = sources[page.rel_path]
        outcome = fix_page(source, quotes, [s for path, s in sources.items() if path != page.rel_path])
        lock = replace_page_entries(lock, page.rel_path, outcome.lock_entries)
        others: dict[str, str] = {}  # the diff of each other page written, by its path
        if outcome.fixed:
            write_text_atomic(page.path, outcome.text)
            sources[page.rel_path] = SourceFile(source.rel_path, source.slug, outcome.text, source.tokens)
            for path, text in outcome.others.items():
                other = next(p for p in run.all_pages if p.rel_path == path)
                write_text_atomic(other.path, text)
                others[path] = unified_diff(sources[path].raw, text, path)
                sources[path] = SourceFile(path, other.slug, text, sources[path].tokens)
        if outcome.fixed or outcome.left:
            diff = unified_diff(source.raw, outcome.text, page.rel_path) + "".join(others.values())
            fixes.append(PageFix(page.rel_path, diff, outcome.fixed, outcome.left, tuple(others)))
    run.updated = lock
    save_quote_lock(run)
    _write_current_scripts(run.all_pages)
    return fixes


def _source_file(page: Page) -> SourceFile:
    """The page as --fix rewrites it: its exact text, line endings kept."""
    from sitebuild.quotes.fix import SourceFile

    with open(page.path, encoding="utf-8", newline="") as stream:
        return SourceFile(page.rel_path, page.slug, stream.read(), page.tokens)


def _write_current_scripts(pages: list[Page]) -> None:
    """Write each page's generated script when it differs, so the check after ``--fix``
    finds them current."""
    from sitebuild.execution.extract import script_path, script_text

    for page in pages:
        if not page.code_blocks:
            continue
        path, text = script_path(page), script_text(page)
        try:
            current = path.read_text(encoding="utf-8")
        except OSError:
            current = None
        if current != text:
            write_text_atomic(path, text)


def not_rewritten_line(result: QuoteResult) -> str:
    """Why ``--fix`` left a stale number for the author."""
    return f'{result.path}:{result.line}: "{result.text}" not rewritten: {result.message}'


def page_marks(quotes: PageQuotes, include_problems: bool) -> PageMarks:
    """The renderer's marks for one checked page (see :func:`sitebuild.quotes.marks.page_marks`)."""
    return _marks(quotes, include_problems)
