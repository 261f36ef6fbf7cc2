"""``check --fix``: rewriting stale numbers in the .md, byte for byte everywhere else.

Each stale number is rewritten only at its exact source span (its columns in its line,
taken from the token's line map and the alignment of the parsed text with the source,
see :mod:`sitebuild.quotes.extraction`), never by searching for its text; every other
byte stays, line endings (CRLF) included. A number is left for the author, with the
reason, when:

- no value can be written for it (a bound such as "p < 0.05" backed by a plain value);
- it stands in the words of a checked claim (``[words]{check="..."}``): a claim is the
  author's to reword;
- its span is not known exactly (the source spells it with escapes or entities);
- it stands in a heading whose anchor other text links to, and one of those links
  cannot be located exactly to be rewritten with it (a heading's anchor is made from
  its text, so a new number gives it a new anchor; every link to it, on this page and
  on other pages, is rewritten together with the heading, or the number is refused);
- the rewritten page would not read back with the new number at the same place.
"""

from __future__ import annotations

import re
from typing import Sequence

from markdown_it.token import Token
from msgspec import Struct, field
from msgspec.structs import replace

from sitebuild.quotes.extraction import extract_prose_numbers, parse_tokens
from sitebuild.quotes.lock import LockEntry
from sitebuild.quotes.results import PageQuotes, QuoteResult, Status
from sitebuild.source.markdown import ANCHOR_CLASS


class SourceFile(Struct, frozen=True):
    """A page as ``--fix`` reads and writes it: its path for messages, its slug (other
    pages link to ``<slug>.md#anchor``), its exact text (line endings kept) and its
    tokens (parsed from the same text with line endings normalised)."""

    rel_path: str
    slug: str
    raw: str
    tokens: Sequence[Token]


class FixOutcome(Struct):
    """The rewritten page (exact text), the other pages rewritten with it (links to a
    renamed heading anchor, by path), its lock entries after the rewrite, and what was
    or was not rewritten (each number left with the reason in ``message``)."""

    text: str
    lock_entries: list[LockEntry]
    fixed: list[QuoteResult] = field(default_factory=list)
    left: list[QuoteResult] = field(default_factory=list)
    others: dict[str, str] = field(default_factory=dict)


def split_lines(raw: str) -> list[str] | None:
    """``raw`` split after each ``\\n``, endings kept; None when it holds a lone ``\\r``
    (a line ending the parser reads as a break but a line split cannot place)."""
    if re.search(r"\r(?!\n)", raw):
        return None
    return raw.split("\n")


def fix_page(page: SourceFile, quotes: PageQuotes, others: Sequence[SourceFile] = ()) -> FixOutcome:
    """Rewrite the stale numbers of one checked page and return its new exact text, the
    other pages whose links to its headings had to follow, and the lock entries that
    bind the rewritten numbers to the outputs they now quote."""
    stale = [r for r in quotes.results if r.status is Status.STALE]
    lines = split_lines(page.raw)
    if lines is None:
        left = [_left(r, "the page has a line ending the fix cannot place (a lone carriage return)") for r in stale]
        return FixOutcome(page.raw, _lock_after(quotes, []), [], left)
    fixable, left = _fixable(stale)
    headings = _heading_ids(page.tokens)
    edits: dict[int, list[tuple[int, int, str]]] = {}
    fixed: list[QuoteResult] = []
    other_edits: dict[str, list[tuple[int, int, int, str]]] = {}
    for result in fixable:
        if result.where == "heading":
            problem = _plan_heading(page, result, lines, headings, others, edits, other_edits)
            if problem:
                left.append(_left(result, problem))
                continue
        edits.setdefault(result.line - 1, []).append((result.span[0], result.span[1], result.new))
        fixed.append(result)
    text = _apply(lines, edits)
    problem = _reads_back(text, fixed)
    if problem:
        left.extend(_left(r, problem) for r in fixed)
        return FixOutcome(page.raw, _lock_after(quotes, []), [], _in_order(left))
    outcome_others = {path: _apply_other(next(o for o in others if o.rel_path == path), changes)
                      for path, changes in other_edits.items()}
    return FixOutcome(text, _lock_after(quotes, fixed), _in_order(fixed), _in_order(left), outcome_others)


def _fixable(stale: list[QuoteResult]) -> tuple[list[QuoteResult], list[QuoteResult]]:
    fixable, left = [], []
    for result in stale:
        if result.in_claim:
            left.append(_left(result, f"{result.message}; it stands in the words of a checked claim, which --fix never "
                                      "rewrites: reword the claim by hand"))
        elif not result.new:
            left.append(result)
        elif not result.exact or result.span[0] < 0:
            left.append(_left(result, f'{result.message}; its place in the source is not known exactly '
                                      "(escapes or entities around it), so rewrite it by hand"))
        else:
            fixable.append(result)
    return fixable, left


def _left(result: QuoteResult, why: str) -> QuoteResult:
    return replace(result, message=why)


def _in_order(results: list[QuoteResult]) -> list[QuoteResult]:
    return sorted(results, key=lambda r: (r.line, r.col))


def _apply(lines: list[str], edits: dict[int, list[tuple[int, int, str]]]) -> str:
    out = list(lines)
    for index, changes in edits.items():
        line = out[index]
        for start, end, new in sorted(changes, reverse=True):
            line = line[:start] + new + line[end:]
        out[index] = line
    return "\n".join(out)


def _apply_other(source: SourceFile, changes: list[tuple[int, int, int, str]]) -> str:
    edits: dict[int, list[tuple[int, int, str]]] = {}
    for line, start, end, new in changes:
        edits.setdefault(line, []).append((start, end, new))
    return _apply(split_lines(source.raw) or [], edits)


def _reads_back(text: str, fixed: list[QuoteResult]) -> str:
    """Why the rewritten page does not show each new number where the old one stood
    ("" when it does)."""
    normalised = text.replace("\r\n", "\n")
    found = {(n.line, n.span[0]): n.text for n in extract_prose_numbers(normalised)}
    shift: dict[int, int] = {}
    for result in sorted(fixed, key=lambda r: (r.line, r.span[0])):
        start = result.span[0] + shift.get(result.line, 0)
        if found.get((result.line, start)) != result.new:
            return f'after the rewrite, line {result.line} does not read "{result.new}" where "{result.text}" stood'
        shift[result.line] = shift.get(result.line, 0) + len(result.new) - len(result.text)
    return ""


def _lock_after(quotes: PageQuotes, fixed: list[QuoteResult]) -> list[LockEntry]:
    fixed_ids = {id(result) for result in fixed}
    entries = []
    for result in quotes.results:
        if id(result) in fixed_ids and result.fixed_entry is not None:
            entries.append(result.fixed_entry)
        elif result.entry is not None:
            entries.append(result.entry)
    return entries


# -- headings and the links to them -------------------------------------------------------------

def _heading_ids(tokens: Sequence[Token]) -> dict[int, str]:
    """The anchor id of each heading, by the index of its inline token."""
    return {index + 1: str(token.attrs.get("id", "")) for index, token in enumerate(tokens)
            if token.type == "heading_open" and index + 1 < len(tokens)}


def _plan_heading(page: SourceFile, result: QuoteResult, lines: list[str], headings: dict[int, str],
                  others: Sequence[SourceFile], edits: dict, other_edits: dict) -> str:
    """Plan the rewrite of every link to the heading ``result`` stands in; return why it
    cannot be done ("" when it can, or when the anchor does not change)."""
    old_id = headings.get(result.token_index, "")
    new_id = _new_heading_id(page, result, lines)
    if not old_id or old_id == new_id:
        return ""
    if new_id is None:
        return f"{result.message}; the heading would not read back after the rewrite, so rewrite it by hand"
    found: list[tuple[SourceFile, int, int, int]] = []
    for source in [page, *(o for o in others if o.rel_path != page.rel_path)]:
        for href in _hrefs_to(source, page.slug, old_id, same_page=source is page):
            located = _link_spans(source, href)
            if located is None:
                return (f"{result.message}; it is in a heading whose anchor #{old_id} a link in {source.rel_path} "
                        "points to, and that link cannot be located exactly to follow it, so rewrite both by hand")
            found.extend((source, line, start, end) for line, start, end in located)
    for source, line, start, end in found:
        if source.rel_path == page.rel_path:
            edits.setdefault(line, []).append((start, end, new_id))
        else:
            other_edits.setdefault(source.rel_path, []).append((line, start, end, new_id))
    return ""


def _new_heading_id(page: SourceFile, result: QuoteResult, lines: list[str]) -> str | None:
    line = lines[result.line - 1]
    rewritten = line[:result.span[0]] + result.new + line[result.span[1]:]
    text = "\n".join(lines[:result.line - 1] + [rewritten] + lines[result.line:]).replace("\r\n", "\n")
    tokens = parse_tokens(text)
    ids = _heading_ids(tokens)
    return ids.get(result.token_index) if len(tokens) == len(page.tokens) else None


def _hrefs_to(source: SourceFile, slug: str, anchor: str, same_page: bool) -> set[str]:
    """The distinct hrefs in ``source`` that point at ``anchor`` of page ``slug``."""
    hrefs = set()
    for token in source.tokens:
        for child in token.children or []:
            href = str(child.attrs.get("href", "")) if child.type == "link_open" else ""
            target, _, fragment = href.partition("#")
            if fragment != anchor or ANCHOR_CLASS in str(child.attrs.get("class", "")):
                continue
            if (same_page and not target) or target.rsplit("/", 1)[-1] in (f"{slug}.md", f"{slug}.html"):
                hrefs.add(href)
    return hrefs


def _link_spans(source: SourceFile, href: str) -> list[tuple[int, int, int]] | None:
    """The (line, start, end) of the anchor part of every link to ``href`` in ``source``,
    found in the lines of the inline tokens holding such links; None when the links and
    the places found do not agree one for one (a reference definition, an escape)."""
    lines = split_lines(source.raw)
    if lines is None:
        return None
    anchor_start = href.index("#") + 1
    spans: list[tuple[int, int, int]] = []
    pattern = re.compile(r"(?<=[(<\s])" + re.escape(href) + r"(?=[)>\s\"'])")
    for token in source.tokens:
        links = [c for c in token.children or [] if c.type == "link_open" and c.attrs.get("href") == href
                 and ANCHOR_CLASS not in str(c.attrs.get("class", ""))] if token.type == "inline" else []
        if not links:
            continue
        here = [(line, match.start() + anchor_start, match.end())
                for line in range(token.map[0], token.map[1]) for match in pattern.finditer(lines[line])]
        if len(here) != len(links):
            return None
        spans.extend(here)
    return spans


def unified_diff(old_text: str, new_text: str, path: str) -> str:
    """A unified diff of a page before and after ``--fix``, as ``check --fix`` prints it."""
    import difflib

    diff = difflib.unified_diff(
        old_text.splitlines(keepends=True), new_text.splitlines(keepends=True),
        fromfile=f"a/{path}", tofile=f"b/{path}",
    )
    return "".join(diff)
