"""Finding the numbers of a page's prose, each with its exact place in the .md source.

What counts as prose: the text of paragraphs, list items, table cells, headings, link
texts, footnotes, the alt text of Markdown images, and the ``caption`` and ``alt``
options of code blocks (``{caption="..."}``). What does not: front matter, fenced and
indented code, inline code (including ``{python} expr`` values), link and image targets,
bare URLs in the text, and the permalink anchors the parser adds to headings.

Two ways to say a number is not a result (both make it EXEMPT):

- the inline marker ``[Angwin et al., 2016]{.nocheck}``: a span with the class
  ``nocheck``; it renders as plain text (a ``<span class="nocheck">``);
- a section whose heading is listed in the page's ``exempt_sections`` (by default
  "Further Reading" and "References"): everything under it, up to the next heading of
  the same or a higher level.

Where a number stands. Each text the parser produced is aligned, character by
character, with its source line (from the token's line map), reading backslash escapes
(``\\*``) and HTML entities (``&amp;``) as the characters they stand for. A number's
``span`` is then its exact columns in the source line, and ``exact`` says the source
there spells the number itself (``--fix`` rewrites only such spans). Lines are 1-based;
columns are 1-based (0 when the text could not be aligned with its source).
"""

from __future__ import annotations

import html
import re
from typing import Iterable, Iterator, Sequence

from markdown_it.token import Token
from msgspec import Struct
from msgspec.structs import replace

from sitebuild.quotes.numbers import Number, find_numbers, mask_numbers, with_word_comparator
from sitebuild.source.markdown import ANCHOR_CLASS, make_parser
from sitebuild.source.math import INLINE_MATH

NOCHECK_CLASS = "nocheck"
DEFAULT_EXEMPT_SECTIONS = ("Further Reading", "References")
URL_PATTERN = re.compile(r"(?:https?|ftp)://\S+|www\.\S+|\S+@\S+\.\w+")
SENTENCE_END = re.compile(r"(?<=[.!?;])\s+")
ENTITY = re.compile(r"&(?:#[0-9]+|#[xX][0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);")
ESCAPABLE = set("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
#: Options of a fence's info string whose text is prose (a figure's caption and alt text).
PROSE_OPTIONS = re.compile(r"""\{(caption|alt)=(?:"([^"]*)"|'([^']*)')\}""")


class Surroundings(Struct, frozen=True):
    """What stands around a prose number and says what it measures: the path of headings
    above it, the header of its column and the label of its row when it is in a table of
    the prose (the words of the row's other cells), and the text of its parent list
    item when it is in a nested list; ``row_key`` identifies its table row (-1 outside
    a table): the numbers of one row are one sentence."""

    headings: tuple[str, ...] = ()
    column_header: str = ""
    row_label: str = ""
    parent_item: str = ""
    row_key: int = -1


NO_SURROUNDINGS = Surroundings()


class ProseNumber(Struct, frozen=True):
    """A number in the prose: where it stands and whether it is exempt.

    ``token_index`` and ``child_index`` point at the inline token and its text child
    the number was read from (-1 for a caption, which has no inline token), and
    ``number.start``/``end`` are offsets in that child's content, so renderers can wrap
    exactly that text. ``span`` is the number's 0-based [start, end) columns in its
    source line, ``exact`` whether the source there reads exactly ``text``. ``where``
    is prose, heading, alt (an image's alt text) or caption. ``before`` and ``after``
    are the words of its sentence on either side of it (the sentence the binding reads)."""

    number: Number
    line: int
    col: int
    context: str
    exempt_reason: str
    token_index: int
    child_index: int
    span: tuple[int, int] = (-1, -1)
    exact: bool = False
    where: str = "prose"
    before: str = ""
    after: str = ""
    surroundings: Surroundings = NO_SURROUNDINGS
    sentence_key: tuple[int, int] = (-1, -1)
    in_claim: bool = False

    @property
    def text(self) -> str:
        """The number as written."""
        return self.number.text

    @property
    def markable(self) -> bool:
        """True when the renderer can wrap the number (not in an alt text or a caption)."""
        return self.where in ("prose", "heading") and self.token_index >= 0




def surroundings_of(tokens: Sequence[Token]) -> dict[int, Surroundings]:
    """The :class:`Surroundings` of each inline token, by its index in ``tokens``."""
    found: dict[int, Surroundings] = {}
    headings: list[tuple[int, str]] = []
    items: list[str] = []
    header: list[str] = []
    row: list[str] = []
    column = row_key = 0
    for index, token in enumerate(tokens):
        kind = token.type
        if kind == "heading_open":
            level = int(token.tag[1:])
            headings = [h for h in headings if h[0] < level]
            headings.append((level, tokens[index + 1].content if index + 1 < len(tokens) else ""))
        elif kind == "thead_open":
            header = []
        elif kind == "tr_open":
            row, column, row_key = _row_texts(tokens, index), 0, index
            if tokens[index - 1].type == "thead_open":
                header = row
        elif kind in ("th_close", "td_close"):
            column += 1
        elif kind == "list_item_open":
            items.append(_item_text(tokens, index))
        elif kind == "list_item_close" and items:
            items.pop()
        elif kind == "inline":
            found[index] = _surroundings_here(tokens, index, headings, header, row, column, items, row_key)
    return found


def _surroundings_here(tokens: Sequence[Token], index: int, headings: list[tuple[int, str]], header: list[str],
                       row: list[str], column: int, items: list[str], row_key: int) -> Surroundings:
    previous = tokens[index - 1].type if index else ""
    in_cell = previous in ("th_open", "td_open")
    in_body_cell = previous == "td_open"
    own_heading = previous == "heading_open"
    path = tuple(text for _, text in (headings[:-1] if own_heading else headings))
    column_header = header[column] if in_body_cell and column < len(header) else ""
    row_label = " ".join(cell for i, cell in enumerate(row) if i != column) if in_body_cell else ""
    parent = items[-2] if len(items) >= 2 and not in_cell else ""
    return Surroundings(path, column_header, row_label, parent, row_key if in_cell else -1)


def _row_texts(tokens: Sequence[Token], start: int) -> list[str]:
    """The texts of the cells of the table row opened at ``start``."""
    texts = []
    for token in tokens[start + 1:]:
        if token.type == "tr_close":
            break
        if token.type == "inline":
            texts.append(token.content)
    return texts


def _item_text(tokens: Sequence[Token], start: int) -> str:
    """The text of the first paragraph of the list item opened at ``start``."""
    for token in tokens[start + 1:start + 4]:
        if token.type == "inline":
            return token.content
    return ""


def parse_tokens(md_text: str) -> list[Token]:
    """Parse ``md_text`` with the site's shared parser."""
    return make_parser().parse(md_text)


def extract_prose_numbers(
    md_text: str,
    tokens: Sequence[Token] | None = None,
    exempt_sections: Iterable[str] = DEFAULT_EXEMPT_SECTIONS,
) -> list[ProseNumber]:
    """Return every number of the page's prose in page order, located in ``md_text``.

    ``tokens`` must come from :func:`sitebuild.source.markdown.make_parser` on ``md_text``
    (parsed here when omitted)."""
    tokens = parse_tokens(md_text) if tokens is None else tokens
    lines = md_text.split("\n")
    exempt_names = {_normalise_heading(name) for name in exempt_sections}
    exempt_level: int | None = None
    cursors: dict[int, int] = {}
    found: list[ProseNumber] = []
    around = surroundings_of(tokens)
    for index, token in enumerate(tokens):
        if token.type == "heading_open":
            level = int(token.tag[1:])
            if exempt_level is not None and level <= exempt_level:
                exempt_level = None
            title = tokens[index + 1].content if index + 1 < len(tokens) else ""
            if exempt_level is None and _normalise_heading(title) in exempt_names:
                exempt_level = level
        reason = "exempt section" if exempt_level is not None else ""
        if token.type == "inline" and token.map is not None:
            where = "heading" if index and tokens[index - 1].type == "heading_open" else "prose"
            reader = _InlineReader(token, index, lines, cursors, reason, where, around.get(index, NO_SURROUNDINGS))
            found.extend(reader.numbers())
        elif token.type == "fence" and token.map is not None:
            found.extend(_caption_numbers(token, lines, reason))
    return found


def _normalise_heading(title: str) -> str:
    return " ".join(title.split()).casefold()


# -- aligning parsed text with its source -------------------------------------------------

def align(source: str, start: int, content: str) -> list[int] | None:
    """The source column of each character of ``content`` when it is spelled at
    ``source[start:]`` (literally, backslash-escaped or as an HTML entity), or None.

    Examples
    --------
    >>> align(r"a \\*x\\* 0.5", 2, "*x* 0.5")
    [3, 4, 6, 7, 8, 9, 10]
    """
    columns: list[int] = []
    position = start
    for char in content:
        entity = ENTITY.match(source, position) if source.startswith("&", position) else None
        if entity is not None and html.unescape(entity.group()) == char:
            columns.append(position)
            position = entity.end()
        elif position < len(source) and source[position] == char:
            columns.append(position)
            position += 1
        elif source[position:position + 2] == "\\" + char and char in ESCAPABLE:
            columns.append(position + 1)
            position += 2
        else:
            return None
    return columns


def locate(source: str, start: int, content: str) -> list[int] | None:
    """Align ``content`` at the first column at or after ``start`` where it is spelled."""
    if not content:
        return []
    for column in range(start, len(source)):
        if source[column] in (content[0], "\\", "&"):
            columns = align(source, column, content)
            if columns is not None:
                return columns
    return None


class _InlineReader:
    """Reads one inline token: its text children, aligned with their source lines."""

    def __init__(self, token: Token, token_index: int, lines: list[str], cursors: dict[int, int],
                 section_reason: str, where: str, surroundings: Surroundings = NO_SURROUNDINGS):
        self.token, self.token_index, self.lines, self.cursors = token, token_index, lines, cursors
        self.surroundings = surroundings
        self.section_reason, self.where = section_reason, where
        self.line = token.map[0]
        self.last_line = max(token.map[1] - 1, self.line)
        self.plain, self.plain_starts = _plain_text(token)

    def numbers(self) -> Iterator[ProseNumber]:
        nocheck: list[bool] = []
        claims: list[bool] = []
        hidden = 0
        for child_index, child in enumerate(self.token.children or []):
            kind = child.type
            if kind in ("softbreak", "hardbreak"):
                self._next_line()
            elif kind == "span_open":
                nocheck.append(NOCHECK_CLASS in str(child.attrs.get("class", "")).split())
                claims.append("check" in child.attrs)
            elif kind == "span_close" and nocheck:
                nocheck.pop()
                claims.pop()
            elif kind == "link_open":
                is_hidden = child.markup == "autolink" or ANCHOR_CLASS in str(child.attrs.get("class", ""))
                hidden += is_hidden
                nocheck.append(is_hidden)
            elif kind == "link_close":
                self._skip(str(_link_target(self.token, child_index)))
                if nocheck:
                    hidden -= nocheck.pop()
            elif kind in ("code_inline", "footnote_ref") or kind in INLINE_MATH:  # a formula's numbers are not quoted
                self._skip(child.content)
            elif kind == "image":
                yield from self._image_numbers(child, child_index, any(nocheck))
                self._skip(str(child.attrs.get("src", "")))
            elif kind == "text" and not hidden:
                for number in self._text_numbers(child, child_index, any(nocheck)):
                    yield replace(number, in_claim=any(claims)) if any(claims) else number
            elif kind == "text":
                self._advance(child.content)

    def _next_line(self) -> None:
        self.line = min(self.line + 1, self.last_line)

    def _source(self) -> str:
        return self.lines[self.line] if self.line < len(self.lines) else ""

    def _skip(self, content: str) -> None:
        if content:
            found = self._source().find(content, self.cursors.get(self.line, 0))
            if found >= 0:
                self.cursors[self.line] = found + len(content)

    def _advance(self, content: str) -> list[int] | None:
        """Align ``content`` with the source from the cursor (trying the block's next
        lines too) and move the cursor past it."""
        for line in range(self.line, min(self.last_line, len(self.lines) - 1) + 1):
            columns = locate(self.lines[line], self.cursors.get(line, 0) if line == self.line else 0, content)
            if columns is not None:
                self.line = line
                if columns:
                    self.cursors[line] = columns[-1] + 1
                return columns
        return None

    def _text_numbers(self, child: Token, child_index: int, nocheck: bool) -> Iterator[ProseNumber]:
        columns = self._advance(child.content)
        reason = self.section_reason or ("inline marker" if nocheck else "")
        plain_start = self.plain_starts.get(child_index, 0)
        for number in _numbers_of(child.content):
            yield self._prose_number(number, columns, reason, child_index, plain_start, self.where)

    def _image_numbers(self, image: Token, child_index: int, nocheck: bool) -> Iterator[ProseNumber]:
        reason = self.section_reason or ("inline marker" if nocheck else "")
        self._skip("![")
        for child in image.children or []:
            if child.type != "text":
                continue
            columns = self._advance(child.content)
            for number in _numbers_of(child.content):
                yield self._prose_number(number, columns, reason, -1, 0, "alt", sentence=image.content)

    def _prose_number(self, number: Number, columns: list[int] | None, reason: str, child_index: int,
                      plain_start: int, where: str, sentence: str | None = None) -> ProseNumber:
        source = self._source()
        span, exact = (-1, -1), False
        if columns is not None and number.end <= len(columns):
            span = (columns[number.start], columns[number.end - 1] + 1)
            exact = source[span[0]:span[1]] == number.text
        text = sentence if sentence is not None else self.plain
        offset = 0 if sentence is not None else plain_start
        before, after = _sentence_sides(text, offset + number.start, offset + number.end)
        key = (self.token_index if sentence is None else -child_index - 2, offset + number.start - len(before))
        if self.surroundings.row_key >= 0:
            key = (-10_000 - self.surroundings.row_key, 0)  # a table row of the prose is one sentence
        column = span[0] + 1 if span[0] >= 0 else 0
        return ProseNumber(
            number=number, line=self.line + 1, col=column,
            context=sentence_context(source, span[0] if span[0] >= 0 else source.find(number.text)),
            exempt_reason=reason, token_index=self.token_index if where != "alt" else -1,
            child_index=child_index, span=span, exact=exact, where=where, before=before, after=after,
            surroundings=self.surroundings, sentence_key=key,
        )


def _numbers_of(content: str) -> list[Number]:
    blanked = _blank_urls(content)
    return [with_word_comparator(blanked, number) for number in find_numbers(blanked)]


def _plain_text(token: Token) -> tuple[str, dict[int, int]]:
    """The inline's text as a reader reads it (code spans and breaks as spaces), and where
    each text child starts in it."""
    pieces: list[str] = []
    starts: dict[int, int] = {}
    length = 0
    for index, child in enumerate(token.children or []):
        if child.type == "text":
            starts[index] = length
            piece = child.content
        elif child.type in ("softbreak", "hardbreak"):
            piece = " "
        elif child.type == "code_inline":
            piece = child.content
        else:
            continue
        pieces.append(piece)
        length += len(piece)
    return "".join(pieces), starts


def _sentence_sides(text: str, start: int, end: int) -> tuple[str, str]:
    """The words of the sentence of ``text`` around [start, end), before and after it."""
    sentence_start, sentence_end = 0, len(text)
    for boundary in SENTENCE_END.finditer(text):
        if boundary.end() <= start:
            sentence_start = boundary.end()
        elif boundary.start() >= end:
            sentence_end = boundary.start()
            break
    return text[sentence_start:start], text[end:sentence_end]


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


def _caption_numbers(fence: Token, lines: list[str], reason: str) -> Iterator[ProseNumber]:
    """The numbers of a code block's ``caption`` and ``alt`` options, on its fence line."""
    line = fence.map[0]
    source = lines[line] if line < len(lines) else ""
    for option in PROSE_OPTIONS.finditer(source):
        group = 2 if option.group(2) is not None else 3
        value, offset = option.group(group), option.start(group)
        for number in _numbers_of(value):
            span = (offset + number.start, offset + number.end)
            before, after = _sentence_sides(value, number.start, number.end)
            yield ProseNumber(
                number=number, line=line + 1, col=span[0] + 1, context=sentence_context(value, number.start),
                exempt_reason=reason, token_index=-1, child_index=-1, span=span,
                exact=source[span[0]:span[1]] == number.text, where="caption", before=before, after=after,
                surroundings=NO_SURROUNDINGS, sentence_key=(-1000 - line, number.start - len(before)),
            )


def _blank_urls(text: str) -> str:
    """Replace URLs with spaces of equal length, so offsets stay valid."""
    return URL_PATTERN.sub(lambda match: " " * len(match.group()), text)


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
