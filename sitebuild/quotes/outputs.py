"""The numbers of a page's outputs, indexed for the quote check: by value (to find the
output that backs a prose number), by line shape and by position (to find the output a
lock entry is bound to, even after the outputs changed order)."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from decimal import Decimal
from typing import Iterable, Mapping, Protocol, Sequence

from sitebuild.lock import LockEntry
from sitebuild.numbers import Number, find_numbers, half_step, mask_numbers, matches_output

#: Output kinds whose text can be quoted: stdout, text/plain reprs and HTML tables.
QUOTABLE_KINDS = ("stream", "text", "html")


@dataclass(frozen=True)
class OutputText:
    """One captured text output of a page: block ``block``'s output number ``output``
    (stream text, a text/plain repr, or an HTML table flattened one row per line)."""

    block: int
    output: int
    text: str


@dataclass(frozen=True)
class OutputRef:
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


@dataclass(frozen=True)
class OutputNumber:
    """A number of the outputs, with the line it stands in and that line's shape."""

    ref: OutputRef
    number: Number
    line_text: str
    shape: str


class _CapturedOutput(Protocol):
    kind: str
    texts: list[str]


def outputs_from_blocks(blocks: Mapping[int, Sequence[_CapturedOutput]]) -> list[OutputText]:
    """Turn a page's captured outputs (block number -> outputs with ``kind`` and
    ``texts``, one string per line) into :class:`OutputText` in page order. Output
    indices count every output of the block, so they match the rendered ids."""
    texts: list[OutputText] = []
    for block in sorted(blocks):
        for output, captured in enumerate(blocks[block]):
            if captured.kind in QUOTABLE_KINDS:
                texts.append(OutputText(block, output, "\n".join(captured.texts)))
    return texts


def index_outputs(outputs: Sequence[OutputText]) -> list[OutputNumber]:
    """Return every number of the outputs, in page order, with its position and line shape."""
    found: list[OutputNumber] = []
    for output in outputs:
        for line_number, line_text in enumerate(output.text.splitlines()):
            numbers = find_numbers(line_text)
            shape = mask_numbers(line_text, numbers=numbers)
            for index, number in enumerate(numbers):
                found.append(OutputNumber(OutputRef(output.block, output.output, line_number, index), number, line_text, shape))
    return found


class OutputIndex:
    """The numbers of a page's outputs, searchable by value, shape and position."""

    def __init__(self, outputs: Sequence[OutputText]):
        self.numbers = index_outputs(outputs)
        self._by_position = {o.ref: o for o in self.numbers}
        self._by_shape: dict[tuple[str, int], list[OutputNumber]] = {}
        for number in self.numbers:
            self._by_shape.setdefault((number.shape, number.ref.index), []).append(number)
        plain = sorted((_as_fraction(o.number), order) for order, o in enumerate(self.numbers) if not o.number.comparator)
        self._plain_values = [value for value, _ in plain]
        self._plain_orders = [order for _, order in plain]

    def find_backing(self, prose: Number) -> OutputNumber | None:
        """The first output number (in page order) that backs ``prose``; for a
        comparison, an output stating the same comparison comes before a value that
        merely satisfies it."""
        if prose.comparator:
            same = self._first(o for o in self.numbers if o.number.comparator and matches_output(prose, o.number))
            return same or self._first(o for o in self.numbers if matches_output(prose, o.number))
        low, high = _fraction_range(prose)
        start, end = bisect_left(self._plain_values, low), bisect_right(self._plain_values, high)
        orders = sorted(self._plain_orders[start:end])
        return self._first(self.numbers[i] for i in orders if matches_output(prose, self.numbers[i].number))

    def resolve(self, entry: LockEntry) -> OutputNumber | None:
        """The output number a lock entry is bound to: on an output line of the same
        shape (the one at the recorded position if several), else at the recorded
        position; None when neither exists any more."""
        recorded = OutputRef(entry.block, entry.output, entry.output_line, entry.index)
        same_shape = self._by_shape.get((entry.shape, entry.index), [])
        for candidate in same_shape:
            if candidate.ref == recorded:
                return candidate
        return same_shape[0] if same_shape else self._by_position.get(recorded)

    @staticmethod
    def _first(candidates: Iterable[OutputNumber]) -> OutputNumber | None:
        return next(iter(candidates), None)


def _as_fraction(number: Number) -> Decimal:
    return number.value / 100 if number.percent else number.value


def _fraction_range(prose: Number) -> tuple[Decimal, Decimal]:
    """The values, as plain fractions, that could round to ``prose``."""
    low, high = prose.value - half_step(prose), prose.value + half_step(prose)
    return (low / 100, high / 100) if prose.percent else (low, high)
