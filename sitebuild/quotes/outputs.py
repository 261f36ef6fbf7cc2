"""The numbers of a page's outputs, indexed for the quote check, each with its label.

An output number's *label* is the words that say what it measures: on a line such as
``test accuracy: 0.70`` the words between the previous number (or the line's start) and
it ("test accuracy"); in a table, its column's header and its row's label cells as well.
Row numbers and index columns of tables never back a prose number: the index cells of
an HTML table (``<th>`` cells of its body rows), its header rows, and in text output a
column of consecutive integers at the start of the lines (``0``, ``1``, ``2`` ...) or
the left column under a header that leaves it blank (how pandas prints an index)."""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Mapping, Protocol, Sequence

from msgspec import Struct, field
from msgspec.structs import replace

from sitebuild.quotes.numbers import Number, find_numbers, half_step, mask_numbers
from sitebuild.quotes.words import word_list

#: Output kinds whose text can be quoted: stdout, text/plain reprs and HTML tables.
QUOTABLE_KINDS = ("stream", "text", "html")
#: How the cells of one table row are joined into one line (as the engine joins them).
CELL_SEPARATOR = " | "


class OutputText(Struct, frozen=True):
    """One captured text output of a page: block ``block``'s output number ``output``
    (stream text, a text/plain repr, or an HTML table flattened one row per line);
    ``html`` is the table's HTML, from which its header and index cells are known;
    ``expression`` the source of the last expression whose value it shows (a repr or an
    HTML table), empty for printed text."""

    block: int
    output: int
    text: str
    html: str = ""
    expression: str = ""


class OutputRef(Struct, frozen=True):
    """The position of one number in the outputs: block, output, line (0-based) and the
    index of the number within that line."""

    block: int
    output: int
    line: int
    index: int

    @property
    def anchor(self) -> str:
        """The id of the output line on the rendered page."""
        return f"out-{self.block}-{self.output}-l{self.line}"


class OutputNumber(Struct, frozen=True):
    """A number of the outputs, with the line it stands in, that line's shape, its
    label (the words next to it, space-joined, and as a set), the words of its line (and
    of its table's header), whether it is a row number or index cell, and the label's
    word that stands right next to it on a printed line ("accuracy" in ``test accuracy:
    0.70``; empty in a table); ``row_words`` are the label's words that come from its
    row's label cells (a sentence names a row by some of them, seldom all); ``keys`` the
    counts printed on its line besides it (``200`` in ``200 rows: p < 0.05 in 38%``), which
    name the line the way a row label does (see :func:`count_key`); ``index_words`` the row
    label words that come from the index cells of an HTML table (``<th>``), which name the
    row as a whole: a sentence about another row would use them."""

    ref: OutputRef
    number: Number
    line_text: str
    shape: str
    label: str = ""
    line_words: frozenset[str] = field(default_factory=frozenset)
    is_index: bool = False
    label_words: frozenset[str] = field(default_factory=frozenset)
    adjacent: str = ""
    row_words: frozenset[str] = field(default_factory=frozenset)
    keys: frozenset[str] = field(default_factory=frozenset)
    index_words: frozenset[str] = field(default_factory=frozenset)


class _CapturedOutput(Protocol):
    kind: str
    texts: list[str]
    text: str


def outputs_from_blocks(blocks: Mapping[int, Sequence[_CapturedOutput]],
                        sources: Mapping[int, str] | None = None) -> list[OutputText]:
    """Turn a page's captured outputs (block number -> outputs with ``kind``, ``text``
    and ``texts``, one string per line) into :class:`OutputText` in page order. Output
    indices count every output of the block, so they match the rendered ids. ``sources``
    (block number -> code) name the last expression behind a repr or a table."""
    texts: list[OutputText] = []
    for block in sorted(blocks):
        expression = last_expression((sources or {}).get(block, ""))
        for output, captured in enumerate(blocks[block]):
            if captured.kind in QUOTABLE_KINDS:
                html = captured.text if captured.kind == "html" else ""
                shown = expression if captured.kind in ("text", "html") else ""
                texts.append(OutputText(block, output, "\n".join(captured.texts), html, shown))
    return texts


#: Calls that only shape a value: the expression's label is what they are given.
SHAPING_CALLS = frozenset({"round", "float", "int", "str", "print", "display", "format", "abs", "np", "numpy",
                           "pd", "to_string", "to_frame", "reset_index", "head", "tail", "sort_values"})


def last_expression(source: str) -> str:
    """The source of a block's last statement when it is an expression (what a repr of
    the block shows), else an empty string.

    Examples
    --------
    >>> last_expression("acc = 0.75\nround(acc, 2)")
    'round(acc, 2)'
    """
    import ast

    try:
        tree = ast.parse(source)
    except SyntaxError:
        return ""
    if not tree.body or not isinstance(tree.body[-1], ast.Expr):
        return ""
    return ast.get_source_segment(source, tree.body[-1]) or ""


def expression_words(expression: str) -> list[str]:
    """The words of an expression that say what it shows (calls that shape it left out)."""
    return [word for word in word_list(expression) if word not in SHAPING_CALLS]


def index_outputs(outputs: Sequence[OutputText]) -> list[OutputNumber]:
    """Return every number of the outputs, in page order, with its position, line shape,
    label and whether it is an index."""
    found: list[OutputNumber] = []
    for output in outputs:
        lines = output.text.splitlines()
        table = _html_cells(output.html) if output.html else None
        if table is not None and len(table) != len(lines):
            table = None
        numbers = [find_numbers(line) for line in lines]
        indexed = _text_index_positions(lines, numbers) if table is None else set()
        if table is None:
            indexed |= _header_positions(lines, numbers)
        shown = expression_words(output.expression)
        row_labels = _text_row_labels(lines, numbers, indexed) if table is None else {}
        if table is None:
            for line_number, head in _section_heads(lines).items():
                row_labels.setdefault(line_number, head)
            for line_number, lead in _line_leads(lines, numbers).items():
                if _header_line(lines, numbers, line_number) is None:
                    row_labels[line_number] = _unique(lead + row_labels.get(line_number, []))
        for line_number, line_text in enumerate(lines):
            shape = mask_numbers(line_text, numbers=numbers[line_number])
            counts = [count_key(n) for n in numbers[line_number]]
            for index, number in enumerate(numbers[line_number]):
                ref = OutputRef(output.block, output.output, line_number, index)
                adjacent, row, index_words = "", frozenset(), frozenset()
                if table is not None:
                    label, words, is_index, row, index_words = _table_label(table, line_number, number)
                else:
                    row = frozenset(row_labels.get(line_number, []))
                    label, words, adjacent = _text_label(lines, numbers, line_number, index,
                                                         row_labels.get(line_number, []))
                    if _header_line(lines, numbers, line_number) is None and row and label:
                        label = " ".join(_unique(label.split() + row_labels[line_number]))
                        words = words | row
                    is_index = (line_number, index) in indexed
                adjacent = range_end(line_text[:number.start], line_text[number.end:]) or adjacent
                if adjacent == RANGE_HIGH and not label and index and found:
                    label = found[-1].label  # "interval -0.05 to -0.02": the high end shares the low end's label
                elif adjacent == RANGE_LOW and not label and index and found and BRACKET_BEFORE.search(
                        line_text[:number.start]):
                    label = _unique_text(found[-1].label + " interval")  # "gap +0.126 [-0.026, +0.284]"
                elif not label and index and found and LISTED_AFTER.match(line_text[numbers[line_number][index - 1].end:
                                                                                    number.start]):
                    label = found[-1].label  # "seeds 0-29 and 42": a number listed after another shares its label
                    adjacent = adjacent or _listed_adjacent(found, ref)
                if shown:
                    label = label or " ".join(shown)
                    words = words | frozenset(shown)
                keys = frozenset(key for i, key in enumerate(counts) if key and i != index)
                found.append(OutputNumber(ref, number, line_text, shape, label, words, is_index,
                                          frozenset(label.split()), adjacent, row, keys, index_words))
    return found


def _listed_adjacent(found: list[OutputNumber], ref: OutputRef) -> str:
    """The word next to the first number of the list a number ends ("seeds 0-29 and 42":
    "seed"), looking back along its line past the ends of ranges."""
    for previous in reversed(found):
        if (previous.ref.block, previous.ref.output, previous.ref.line) != (ref.block, ref.output, ref.line):
            return ""
        if previous.adjacent not in RANGE_ENDS:
            return previous.adjacent
    return ""


def count_key(number: Number) -> str:
    """The key a count gives the line or sentence it stands in ("#200"), or "" for any
    other number: a sentence that says "200 rows" names the line that prints ``200 rows``.

    Examples
    --------
    >>> count_key(find_numbers("2,000 rows")[0]), count_key(find_numbers("0.5")[0])
    ('#2000', '')
    """
    if not number.is_integer_shown or number.percent or number.comparator or number.multiplier:
        return ""
    return f"#{number.value}"


# -- text output ---------------------------------------------------------------------------

#: The ends of a range written out ("-0.07 to +0.24", "[-0.03, +0.28]", "between 2 and 5"),
#: which stand for the word next to each end: a range's low end and its high end.
RANGE_LOW, RANGE_HIGH = "<range low>", "<range high>"
RANGE_ENDS = (RANGE_LOW, RANGE_HIGH)
#: What stands between the last two numbers of a list ("0-29 and 42", "15 or 20", "+0.045
#: +0.244"); a comma does not (", 95% interval": the next number has words of its own).
LISTED_AFTER = re.compile(r"^\s*(?:and|or|&)?\s*$")
#: An interval written in brackets right after the number it is the interval of.
BRACKET_BEFORE = re.compile(r"[0-9%]\s*[\[(]\s*$")
_NEXT_IS_HIGH = re.compile(r"^\s*(?:to|–|—)\s*[<>≤≥]?\s*[+\-−]?\.?[0-9]"
                           r"|^\s*,\s*[+\-−]?\.?[0-9][^\]\)]*[\]\)]")
#: "between 2 and 5": "and" joins the ends of a range only after "between" ("-0.026 and
#: -0.013" are two numbers).
_AND_NEXT = re.compile(r"^\s*and\s*[<>≤≥]?\s*[+\-−]?\.?[0-9]")
_BETWEEN_BEFORE = re.compile(r"\bbetween\s*$", re.IGNORECASE)
_PREVIOUS_IS_LOW = re.compile(r"[0-9%]\s*(?:to|–|—)\s*$|[0-9]-$|between\s+[+\-−]?[0-9.,]+%?\s+and\s*$"
                              r"|[\[\(]\s*[+\-−]?[0-9.]+%?\s*,\s*$")


def range_end(before: str, after: str) -> str:
    """:data:`RANGE_LOW` or :data:`RANGE_HIGH` when the number between ``before`` and
    ``after`` is an end of a range written out, else an empty string.

    Examples
    --------
    >>> range_end("interval ", " to +0.24"), range_end("interval -0.07 to ", "")
    ('<range low>', '<range high>')
    """
    if _PREVIOUS_IS_LOW.search(before):
        return RANGE_HIGH
    if _NEXT_IS_HIGH.search(after) or (_AND_NEXT.search(after) and _BETWEEN_BEFORE.search(before)):
        return RANGE_LOW
    return ""


def _text_label(lines: list[str], numbers: list[list[Number]], line: int, index: int,
                row_label: list[str]) -> tuple[str, frozenset[str], str]:
    text, here = lines[line], numbers[line]
    start = here[index - 1].end if index else 0
    end = here[index + 1].start if index + 1 < len(here) else len(text)
    header = _header_line(lines, numbers, line)
    column = word_list(_overlapping(header, start, here[index].end, here[index].start)) if header else []
    naming, adjacent = _words_naming(text[start:here[index].start], text[here[index].end:end], index + 1 == len(here))
    if not naming:  # "sign opposite to seed 42 in 10%": the words of its segment before the previous number
        naming = word_list(SEGMENT_BREAK.split(text[:here[index].start])[-1])[-LABEL_WORDS:]
    label = _unique(column + row_label if column else naming)
    return " ".join(label), frozenset(word_list(text) + (word_list(header) if header else [])), \
        "" if column else adjacent


COLUMN_GAP = re.compile(r"\s{2,}")
HEAD_END = re.compile(r"[:0-9]")


def _line_leads(lines: list[str], numbers: list[list[Number]]) -> dict[int, list[str]]:
    """The words that lead a printed line of several numbers, beyond the first number's own
    label (``history model  false positive rate  Black 0.230 white 0.105``: "history model
    false positive rate"), which name the whole line as a row label does."""
    leads: dict[int, list[str]] = {}
    for line, found in enumerate(numbers):
        if len(found) < 2:
            continue
        before = lines[line][:found[0].start]
        own, _ = _words_naming(before, lines[line][found[0].end:found[1].start], False)
        lead = [word for word in word_list(before) if word not in own]
        if lead:
            leads[line] = lead
    return leads


def _section_heads(lines: list[str]) -> dict[int, list[str]]:
    """The words of the head of each indented line: the nearest line above it, in the same
    run of non-blank lines, indented less, up to its first number or ``:``
    (``German Credit Lending (age): 1000 rows`` heads the lines indented under it, and
    itself)."""
    heads: dict[int, list[str]] = {}
    for line, text in enumerate(lines):
        depth = len(text) - len(text.lstrip())
        if not depth or not text.strip():
            continue
        for above in range(line - 1, -1, -1):
            if not lines[above].strip():
                break
            if len(lines[above]) - len(lines[above].lstrip()) < depth:
                heads[line] = heads[above] = word_list(HEAD_END.split(lines[above], 1)[0])
                break
    return {line: words for line, words in heads.items() if words}


def _text_row_labels(lines: list[str], numbers: list[list[Number]],
                     indexed: set[tuple[int, int]]) -> dict[int, list[str]]:
    """The row label of each line of a table printed as text (a DataFrame or a Series):
    the words of its fields before its first number (row numbers aside). A line whose first field starts right
    of where a field of the line above ends (pandas leaves a repeated outer index blank)
    keeps those fields of the line above."""
    labels: dict[int, list[str]] = {}
    previous: list[tuple[int, str]] = []
    for line, text in enumerate(lines):
        if _header_line(lines, numbers, line) is None:
            previous = []
            continue
        values = [n for i, n in enumerate(numbers[line]) if (line, i) not in indexed]
        cut = values[0].start if values else len(text)
        skip = numbers[line][0].end if numbers[line] and (line, 0) in indexed else 0
        fields = [(m.start() + skip, m.group()) for m in re.finditer(r"\S+(?: \S+)*", text[skip:cut])]
        if fields and previous:
            fields = [f for f in previous if f[0] + len(f[1]) < fields[0][0]] + fields
        previous = fields or previous
        labels[line] = _unique([w for _, field_text in fields for w in word_list(field_text)])
    return labels
#: What ends the words that name a number: a label runs from the last of these before it.
#: A printed line's label is at most this many words next to its number; the line's other
#: words say what it is about without naming the number.
LABEL_WORDS = 3
#: Text before a number that ends with a break: the number opens a segment of its own.
AFTER_A_BREAK = re.compile(r"(?:^|[:;,(]|\s-)\s*$")
SEGMENT_BREAK = re.compile(r"[:;,|=()\[\]{}]|\s-\s|\s{2,}")


def _words_naming(before: str, after: str, last: bool) -> tuple[list[str], str]:
    """The words that name a number, from the text since the previous number and up to
    the next one: those just before it in its segment ("test accuracy: 0.70"), else those
    just after it ("200 seeds: ..."), else any before it ("accuracy (test): 0.70")."""
    pieces = SEGMENT_BREAK.split(after)
    ends_before_next = len(pieces) > 1 or last  # not the words of the next number
    near_after = word_list(pieces[0]) if ends_before_next else []
    if near_after and AFTER_A_BREAK.search(before):
        return near_after[:LABEL_WORDS], near_after[0]  # "...: 6172 rows, 1235 in the test split"
    near_before = word_list(SEGMENT_BREAK.split(before.rstrip(" \t:=|,;"))[-1])
    if near_before:
        return near_before[-LABEL_WORDS:], near_before[-1]
    if near_after:
        return near_after[:LABEL_WORDS], near_after[0]
    return word_list(before)[-LABEL_WORDS:], ""


def _header_line(lines: list[str], numbers: list[list[Number]], line: int) -> str | None:
    """The text of the header of the text table ``line`` belongs to (see :func:`_header_at`)."""
    above = _header_at(lines, numbers, line)
    return None if above is None else lines[above]


def _header_at(lines: list[str], numbers: list[list[Number]], line: int) -> int | None:
    """The header of a text table the line belongs to: the line is columns (fields two
    spaces or more apart, as pandas prints them) and the header is the nearest line above
    it, in the same run of non-blank lines, with words, no numbers (unless it opens the
    run, its cells mostly words) and no ``:`` or ``=``; a line of the index's names, all
    left of the values (pandas prints it under the columns' header), is passed over."""
    if len(COLUMN_GAP.split(lines[line].strip())) < 2:
        return None
    for above in range(line - 1, -1, -1):
        text = lines[above]
        if not text.strip():
            return None
        if (not numbers[above] or _opens_a_table(lines, above)) and word_list(text):
            if _index_names(lines, numbers, above):
                continue  # ``share unrecorded view``: the columns' header is the line above it
            return None if ":" in text or "=" in text else above
    return None


def _index_names(lines: list[str], numbers: list[list[Number]], line: int) -> bool:
    """True for a line of an index's names under a frame's header: the line above it has
    words and no numbers, and this line ends before that header's first cell starts."""
    if line == 0 or numbers[line - 1] or not word_list(lines[line - 1]):
        return False
    header = lines[line - 1]
    return len(lines[line].rstrip()) <= len(header) - len(header.lstrip())


#: The cells of words alone a header line with a number needs.
HEADER_NAMED_CELLS = 3


def _opens_a_table(lines: list[str], line: int) -> bool:
    """True for the first line of a run of column lines most of whose cells are words alone,
    at least :data:`HEADER_NAMED_CELLS` of them and twice as many as its numbers (a header
    such as ``design  gap sd  interval width  p < 0.05``: a column named by a number)."""
    first = line == 0 or not lines[line - 1].strip()
    cells = COLUMN_GAP.split(lines[line].strip())
    named = sum(1 for cell in cells if word_list(cell) and not find_numbers(cell))
    return first and named >= HEADER_NAMED_CELLS and len(find_numbers(lines[line])) < named / 2 \
        and named > len(cells) / 2


def _overlapping(header: str, start: int, end: int, number_start: int) -> str:
    """The header cell above a number at [number_start, end): the cell that overlaps it
    most, else the closest of the cells that overlap [start, end) (the gap since the
    previous number).
    Cells are separated by two spaces or more, as pandas prints them; a header of one
    cell is read a word per column."""
    cells = [(m.start(), m.end(), m.group()) for m in re.finditer(r"\S+(?: \S+)*", header)]
    if len(cells) == 1:
        cells = [(m.start(), m.end(), m.group()) for m in re.finditer(r"\S+", header)]
    overlaps = [(min(e, end) - max(s, number_start), text) for s, e, text in cells]
    best = max((size for size, _ in overlaps), default=0)
    if best > 0:
        return " ".join(text for size, text in overlaps if size == best)
    near = [(max(s - end, number_start - e, 0), text) for s, e, text in cells if s < end and e > start]
    closest = min((gap for gap, _ in near), default=0)
    return " ".join(text for gap, text in near if gap == closest)


def _header_positions(lines: list[str], numbers: list[list[Number]]) -> set[tuple[int, int]]:
    """Every number of a text table's header line (``p < 0.05`` naming a column)."""
    headers = {_header_at(lines, numbers, line) for line in range(len(lines))} - {None}
    return {(line, index) for line in headers for index in range(len(numbers[line]))}


def _text_index_positions(lines: list[str], numbers: list[list[Number]]) -> set[tuple[int, int]]:
    """(line, 0) for every line whose first number is a row number or an index cell."""
    leading = {i: found[0] for i, found in enumerate(numbers) if found and _is_leading_integer(lines[i], found[0])}
    positions: set[tuple[int, int]] = set()
    for i, number in leading.items():
        previous, following = leading.get(i - 1), leading.get(i + 1)
        in_sequence = (previous is not None and number.value == previous.value + 1) or (
            following is not None and following.value == number.value + 1)
        if in_sequence or _under_blank_header(lines, numbers, i, number):
            positions.add((i, 0))
    return positions


def _is_leading_integer(line: str, number: Number) -> bool:
    return number.start == len(line) - len(line.lstrip()) and number.is_integer_shown and not number.sign \
        and not number.comparator and len(line.split()) >= 2


def _under_blank_header(lines: list[str], numbers: list[list[Number]], line: int, number: Number) -> bool:
    header = _header_line(lines, numbers, line)
    return header is not None and header[: number.end].strip() == ""


# -- HTML tables ---------------------------------------------------------------------------

class _Cell(Struct, frozen=True):
    """A cell of an HTML table: its text, whether it is a ``<th>``, where it starts in the
    row's joined line (-1 for a cell carried down from a row above by its ``rowspan``,
    which the line does not show), and the columns it covers in the table's grid."""

    text: str
    header: bool
    start: int
    column: int = 0
    width: int = 1

    def covers(self, column: int) -> bool:
        """True when the cell spans grid column ``column``."""
        return self.column <= column < self.column + self.width


def _html_cells(html: str) -> list[list[_Cell]]:
    """The table's rows as cells placed on its grid: a cell with a ``rowspan`` (pandas
    writes an outer index label once for its rows) is carried into the rows below it, so
    that every row has its row labels and each value cell the column of its header."""
    from sitebuild.execution.html_tables import table_cells, table_spans

    table: list[list[_Cell]] = []
    carried: dict[int, tuple[_Cell, int]] = {}  # grid column -> (cell from above, rows it still covers)
    for row, spans in zip(table_cells(html), table_spans(html)):
        cells, started = [], {}
        position = column = 0
        for (text, header), (rows_spanned, width) in zip(row, spans):
            while column in carried:
                column += carried[column][0].width
            cell = _Cell(text, header, position, column, width)
            cells.append(cell)
            if rows_spanned > 1:
                started[column] = (cell, rows_spanned - 1)
            position += len(text) + len(CELL_SEPARATOR)
            column += width
        cells.extend(replace(cell, start=-1) for cell, _ in carried.values())
        carried = {k: (cell, left - 1) for k, (cell, left) in carried.items() if left > 1} | started
        table.append(cells)
    return table


def _table_label(table: list[list[_Cell]], line: int,
                 number: Number) -> tuple[str, frozenset[str], bool, frozenset[str], frozenset[str]]:
    """The label of a number in an HTML table row (its column's header words, then its
    row's label cells), the words of its line, whether it is an index or header cell, the
    row label words and those of them from index cells."""
    row = table[line]
    shown = [c for c in row if c.start >= 0]
    cell = next((c for c in shown if c.start <= number.start < c.start + len(c.text) + 1), None)
    header_row = all(c.header for c in shown)
    is_index = cell is None or cell.header
    headers = [r for r in table[:line] if r and all(c.header for c in r if c.start >= 0)] if not header_row else []
    column_words = [w for r in headers for w in word_list(_column_text(r, row, cell))] if cell else []
    row_words = [w for c in row if (c.header or not find_numbers(c.text)) and c is not cell for w in word_list(c.text)]
    label = _unique(column_words + row_words + (word_list(cell.text) if cell else []))
    line_words = frozenset(w for c in row for w in word_list(c.text)) | frozenset(column_words)
    row_only = frozenset(row_words) - frozenset(column_words)
    index_words = frozenset(w for c in row if c.header and c is not cell for w in word_list(c.text)) & row_only
    return " ".join(label), line_words, is_index or header_row, row_only, index_words


def _column_text(header: list[_Cell], row: list[_Cell], cell: _Cell) -> str:
    """The header cell above ``cell`` on the grid (a header row narrower than the row, as
    one that lacks the index's blank cells, is aligned on the right)."""
    width = max((c.column + c.width for c in row), default=0)
    header_width = max((c.column + c.width for c in header), default=0)
    column = cell.column - max(0, width - header_width)
    return next((c.text for c in header if c.start >= 0 and c.covers(column)), "")


def _unique_text(text: str) -> str:
    """``text`` with each word once, in order."""
    return " ".join(_unique(text.split()))


def _unique(words: list[str]) -> list[str]:
    return list(dict.fromkeys(words))


# -- lookup --------------------------------------------------------------------------------

def as_fraction(number: Number) -> Decimal:
    """The number as a plain fraction (``72%`` -> 0.72)."""
    return number.value / 100 if number.percent else number.value


def fraction_range(prose: Number) -> tuple[Decimal, Decimal]:
    """The values, as plain fractions, that could round to ``prose``."""
    low, high = prose.value - half_step(prose), prose.value + half_step(prose)
    return (low / 100, high / 100) if prose.percent else (low, high)
