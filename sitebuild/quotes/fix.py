"""What the quote check changes: ``--fix`` rewriting of stale numbers in the .md, the
lock that goes with the rewritten page, the diff shown to the author, and the marks the
renderer puts on numbers.

``--fix`` rewrites STALE numbers only, each in its own style (decimals, percent, sign
characters, separators, exponent form); it never touches unverified numbers, and a
stale comparison backed by a plain value is left for the author."""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field

from sitebuild.lock import LockEntry
from sitebuild.quotes import PageQuotes, QuoteResult, Status


@dataclass(frozen=True)
class QuoteMark:
    """How the renderer marks one prose number, keyed by its (line, col) in the .md:
    its text, status, the id of the output line that backs it, and a tooltip."""

    text: str
    status: str
    anchor: str = ""
    title: str = ""


@dataclass
class FixOutcome:
    """The rewritten page, its lock entries after the rewrite, and what was or was not
    rewritten."""

    text: str
    lock_entries: list[LockEntry]
    fixed: list[QuoteResult] = field(default_factory=list)
    left: list[QuoteResult] = field(default_factory=list)


def fix_text(md_text: str, results: list[QuoteResult]) -> str:
    """Return ``md_text`` with every fixable STALE number replaced by its new value."""
    return _rewrite(md_text, results)[0]


def fix_page(md_text: str, page: PageQuotes) -> FixOutcome:
    """Rewrite the stale numbers of one checked page and return the new text with the
    lock entries that bind the rewritten numbers (to the outputs they now quote)."""
    text, fixed, left = _rewrite(md_text, page.results)
    fixed_ids = {id(result) for result in fixed}
    entries = []
    for result in page.results:
        if id(result) in fixed_ids and result.fixed_entry is not None:
            entries.append(result.fixed_entry)
        elif result.entry is not None:
            entries.append(result.entry)
    return FixOutcome(text=text, lock_entries=entries, fixed=fixed, left=left)


def _rewrite(md_text: str, results: list[QuoteResult]) -> tuple[str, list[QuoteResult], list[QuoteResult]]:
    lines = md_text.splitlines(keepends=True)
    stale = [r for r in results if r.status is Status.STALE]
    fixed: list[QuoteResult] = []
    left: list[QuoteResult] = []
    for result in sorted(stale, key=lambda r: (r.line, r.col), reverse=True):
        start = _start_in_line(lines, result)
        if not result.new or start is None:
            left.append(result)
            continue
        line = lines[result.line - 1]
        lines[result.line - 1] = line[:start] + result.new + line[start + len(result.text):]
        fixed.append(result)
    return "".join(lines), list(reversed(fixed)), list(reversed(left))


def _start_in_line(lines: list[str], result: QuoteResult) -> int | None:
    """Where the stale text starts in its line: at its column, or, when the column is
    unknown, its only occurrence in the line."""
    if not 1 <= result.line <= len(lines):
        return None
    line = lines[result.line - 1]
    if result.col and line[result.col - 1 : result.col - 1 + len(result.text)] == result.text:
        return result.col - 1
    if line.count(result.text) == 1:
        return line.index(result.text)
    return None


def unified_diff(old_text: str, new_text: str, path: str) -> str:
    """A unified diff of a page before and after ``--fix``, as ``check --fix`` prints it."""
    diff = difflib.unified_diff(
        old_text.splitlines(keepends=True), new_text.splitlines(keepends=True),
        fromfile=f"a/{path}", tofile=f"b/{path}",
    )
    return "".join(diff)


def quote_marks(page: PageQuotes, include_problems: bool = False) -> dict[tuple[int, int], QuoteMark]:
    """The marks for the renderer, by (line, col) of the .md: every verified number links
    to its output line; stale and unverified numbers are marked only when
    ``include_problems`` (preview builds). Exempt and input numbers stay unmarked."""
    marks: dict[tuple[int, int], QuoteMark] = {}
    for result in page.results:
        if not result.col:
            continue
        if result.status is Status.VERIFIED and result.output_ref is not None:
            title = f"From the output of block {result.output_ref.block}: “{result.output_line.strip()}”"
            marks[(result.line, result.col)] = QuoteMark(result.text, "verified", result.output_ref.anchor, title)
        elif include_problems and result.status in (Status.STALE, Status.UNVERIFIED):
            marks[(result.line, result.col)] = QuoteMark(result.text, result.status.value, "", _problem_title(result))
    return marks


def marks_by_child(
    page: PageQuotes, include_problems: bool = False
) -> dict[tuple[int, int], list[tuple[int, QuoteMark]]]:
    """The same marks, placed in the page's tokens instead of the .md: (index of the
    inline token, index of its text child) -> [(offset in the child's content, mark)],
    offsets ascending. Valid for the token list the page was checked with."""
    placed: dict[tuple[int, int], list[tuple[int, QuoteMark]]] = {}
    by_position = {(r.line, r.col): r for r in page.results}
    for position, mark in quote_marks(page, include_problems).items():
        result = by_position[position]
        if result.token_index >= 0:
            placed.setdefault((result.token_index, result.child_index), []).append((result.offset, mark))
    return {key: sorted(marks, key=lambda item: item[0]) for key, marks in placed.items()}


def _problem_title(result: QuoteResult) -> str:
    if result.status is Status.STALE:
        return f"Stale: {result.message}"
    return "Not backed by any output of this page"
