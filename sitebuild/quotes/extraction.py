"""Finding the numbers of a page's prose, with their line and column in the .md.

What counts as prose: the text of paragraphs, list items, table cells, headings, link
texts and footnotes. What does not: front matter, fenced and indented code, inline code
(including ``{python} expr`` values), link and image targets, images, bare URLs in the
text, and the permalink anchors the parser adds to headings.

Two ways to say a number is not a result (both make it EXEMPT):

- the inline marker ``[Angwin et al., 2016]{.nocheck}``: a span with the class
  ``nocheck``; it renders as plain text (a ``<span class="nocheck">``);
- a section whose heading is listed in the page's ``exempt_sections`` (by default
  "Further Reading" and "References"): everything under it, up to the next heading of
  the same or a higher level.

Years and small counts are numbers like any other: a citation year in running prose
must be marked or moved to an exempt section. Numbers that are part of a word (``S2``,
``COMPAS-2``) are not numbers (see :mod:`sitebuild.numbers`).

Lines are 1-based; columns are 1-based character offsets in the line (0 when a number
could not be located in the source, which only happens with escapes or entities).
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass, field
from typing import Iterable, Sequence

from markdown_it.token import Token

from sitebuild.markdown import make_parser
from sitebuild.numbers import Number, find_numbers, mask_numbers

NOCHECK_CLASS = "nocheck"
DEFAULT_EXEMPT_SECTIONS = ("Further Reading", "References")
URL_PATTERN = re.compile(r"(?:https?|ftp)://\S+|www\.\S+|\S+@\S+\.\w+")
SENTENCE_END = re.compile(r"(?<=[.!?;])\s+")


@dataclass(frozen=True)
class ProseNumber:
    """A number in the prose: where it stands and whether it is exempt.

    ``token_index`` and ``child_index`` point at the inline token and its text child
    the number was read from, and ``number.start``/``end`` are offsets in that child's
    content, so renderers can wrap exactly that text."""

    number: Number
    line: int
    col: int
    context: str
    exempt_reason: str
    token_index: int
    child_index: int

    @property
    def text(self) -> str:
        """The number as written."""
        return self.number.text


@dataclass
class _Cursor:
    """Where the search for the next text fragment resumes, per source line."""

    positions: dict[int, int] = field(default_factory=dict)


def parse_tokens(md_text: str) -> list[Token]:
    """Parse ``md_text`` with the site's shared parser."""
    return make_parser().parse(md_text)


def extract_prose_numbers(
    md_text: str,
    tokens: Sequence[Token] | None = None,
    exempt_sections: Iterable[str] = DEFAULT_EXEMPT_SECTIONS,
) -> list[ProseNumber]:
    """Return every number of the page's prose in page order, located in ``md_text``.

    ``tokens`` must come from :func:`sitebuild.markdown.make_parser` on ``md_text``
    (parsed here when omitted)."""
    tokens = parse_tokens(md_text) if tokens is None else tokens
    lines = md_text.splitlines()
    exempt_names = {_normalise_heading(name) for name in exempt_sections}
    exempt_level: int | None = None
    cursor = _Cursor()
    found: list[ProseNumber] = []
    for index, token in enumerate(tokens):
        if token.type == "heading_open":
            level = int(token.tag[1:])
            if exempt_level is not None and level <= exempt_level:
                exempt_level = None
            title = tokens[index + 1].content if index + 1 < len(tokens) else ""
            if exempt_level is None and _normalise_heading(title) in exempt_names:
                exempt_level = level
        if token.type == "inline" and token.map is not None:
            section_reason = "exempt section" if exempt_level is not None else ""
            found.extend(_numbers_of_inline(token, index, lines, cursor, section_reason))
    return found


def _normalise_heading(title: str) -> str:
    return " ".join(title.split()).casefold()


def _numbers_of_inline(
    token: Token, token_index: int, lines: list[str], cursor: _Cursor, section_reason: str
) -> Iterable[ProseNumber]:
    line_index = token.map[0]
    last_line = max(token.map[1] - 1, line_index)
    column = cursor.positions.get(line_index, 0)
    nocheck_stack: list[bool] = []
    skip_depth = 0
    for child_index, child in enumerate(token.children or []):
        kind = child.type
        if kind in ("softbreak", "hardbreak"):
            cursor.positions[line_index] = column
            line_index, column = min(line_index + 1, last_line), 0
        elif kind == "span_open":
            nocheck_stack.append(NOCHECK_CLASS in str(child.attrs.get("class", "")).split())
        elif kind == "span_close" and nocheck_stack:
            nocheck_stack.pop()
        elif kind == "link_open":
            hidden = child.markup == "autolink" or "header-anchor" in str(child.attrs.get("class", ""))
            skip_depth += 1 if hidden else 0
            if hidden:
                nocheck_stack.append(True)
        elif kind == "link_close":
            column = _skip_past(lines, line_index, column, str(_link_target(token, child_index)))
            if skip_depth:
                skip_depth -= 1
                nocheck_stack.pop()
        elif kind in ("code_inline", "footnote_ref"):
            column = _skip_past(lines, line_index, column, child.content)
        elif kind == "image":
            column = _skip_past(lines, line_index, column, child.content)
            column = _skip_past(lines, line_index, column, str(child.attrs.get("src", "")))
        elif kind == "text":
            line_index, base = _locate(lines, line_index, last_line, column, child.content)
            hidden = skip_depth > 0
            reason = section_reason or ("inline marker" if any(nocheck_stack) else "")
            if not hidden:
                yield from _numbers_of_text(child, lines, line_index, base, reason, token_index, child_index)
            if base is not None:
                column = base + len(child.content)
    cursor.positions[line_index] = column


def _link_target(inline: Token, close_index: int) -> str:
    depth = 0
    for child in reversed((inline.children or [])[:close_index]):
        if child.type == "link_close":
            depth += 1
        elif child.type == "link_open":
            if depth == 0:
                return str(child.attrs.get("href", ""))
            depth -= 1
    return ""


def _skip_past(lines: list[str], line_index: int, column: int, content: str) -> int:
    if not content or line_index >= len(lines):
        return column
    found = lines[line_index].find(content, column)
    return column if found < 0 else found + len(content)


def _locate(lines: list[str], line_index: int, last_line: int, column: int, content: str) -> tuple[int, int | None]:
    """Find ``content`` at or after (line, column), trying the following lines of the
    block too; return its line and column, or the line and None when it is not there
    verbatim (escapes, entities)."""
    for candidate in range(line_index, min(last_line, len(lines) - 1) + 1):
        start = column if candidate == line_index else 0
        found = lines[candidate].find(content, start)
        if found >= 0:
            return candidate, found
        if candidate == line_index and _escaped_form(content).search(lines[candidate], start):
            break  # here, written with escapes or entities: not verbatim on a later line
    return line_index, None


def _escaped_form(content: str) -> re.Pattern:
    """A pattern for ``content`` as the source may spell it: any punctuation backslash-
    escaped or written as an HTML entity."""
    parts = [rf"(?:\\?{re.escape(ch)}|&#?\w+;)" if ch in string.punctuation else re.escape(ch) for ch in content]
    return re.compile("".join(parts))


def _numbers_of_text(
    child: Token,
    lines: list[str],
    line_index: int,
    base: int | None,
    reason: str,
    token_index: int,
    child_index: int,
) -> Iterable[ProseNumber]:
    content = child.content
    source_line = lines[line_index] if line_index < len(lines) else content
    for number in find_numbers(_blank_urls(content)):
        column = _column_of(number, source_line, base)
        yield ProseNumber(
            number=number,
            line=line_index + 1,
            col=column,
            context=sentence_context(source_line, column - 1 if column else source_line.find(number.text)),
            exempt_reason=reason,
            token_index=token_index,
            child_index=child_index,
        )


def _blank_urls(text: str) -> str:
    """Replace URLs with spaces of equal length, so offsets stay valid."""
    return URL_PATTERN.sub(lambda match: " " * len(match.group()), text)


def _column_of(number: Number, source_line: str, base: int | None) -> int:
    if base is not None:
        return base + number.start + 1
    found = source_line.find(number.text)
    return found + 1 if found >= 0 else 0


def sentence_context(line: str, column: int) -> str:
    """Return the shape (numbers masked) of the sentence of ``line`` around ``column``
    (0-based): the fingerprint that binds a prose number across edits elsewhere."""
    if column < 0:
        return mask_numbers(line)
    start = 0
    for boundary in SENTENCE_END.finditer(line):
        if boundary.end() <= column:
            start = boundary.end()
        else:
            return mask_numbers(line[start : boundary.start()])
    return mask_numbers(line[start:])
