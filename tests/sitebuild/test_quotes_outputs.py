"""Output numbers, indexed by value, shape and position (sitebuild.quotes_outputs)."""

from __future__ import annotations

from dataclasses import dataclass, field

from sitebuild.lock import LockEntry
from sitebuild.numbers import parse_number
from sitebuild.quotes_outputs import OutputIndex, OutputText, index_outputs, outputs_from_blocks


@dataclass
class Captured:
    kind: str
    texts: list[str] = field(default_factory=list)


def test_outputs_from_blocks_keeps_quotable_kinds_and_rendered_indices():
    blocks = {
        2: [Captured("figure"), Captured("stream", ["rate 0.5", "n 10"])],
        0: [Captured("html", ["rows 1000 0.72", "rows 200 0.17"]), Captured("stderr", ["warning 3"]),
            Captured("error", ["line 4"]), Captured("text", ["0.25"])],
    }
    assert outputs_from_blocks(blocks) == [
        OutputText(0, 0, "rows 1000 0.72\nrows 200 0.17"),
        OutputText(0, 3, "0.25"),
        OutputText(2, 1, "rate 0.5\nn 10"),
    ]


def test_index_outputs_records_position_and_shape():
    numbers = index_outputs([OutputText(1, 0, "header\ngap -0.05 | p < 0.001\n")])
    assert [(n.number.text, n.ref.line, n.ref.index, n.shape) for n in numbers] == [
        ("-0.05", 1, 0, "gap # | p #"), ("< 0.001", 1, 1, "gap # | p #")
    ]
    assert numbers[0].ref.anchor == "out-1-0-l1"


def test_find_backing_takes_the_first_match_in_page_order_across_units():
    index = OutputIndex([OutputText(0, 0, "z 7.2%\n"), OutputText(1, 0, "a 0.072\nb 0.0721\n")])
    assert index.find_backing(parse_number("0.072")).ref.block == 0
    assert index.find_backing(parse_number("7.21%")).ref.line == 1
    assert index.find_backing(parse_number("0.073")) is None


def test_find_backing_prefers_a_stated_bound_to_a_value_that_satisfies_it():
    index = OutputIndex([OutputText(0, 0, "p 0.0001\n"), OutputText(1, 0, "p < 0.0005\n")])
    assert index.find_backing(parse_number("< 0.0005")).ref.block == 1


def entry(shape: str, block: int, output: int, line: int, index: int) -> LockEntry:
    return LockEntry(page="p.md", quote="1", context="#", occurrence=0, line=1, block=block, output=output,
                     output_line=line, index=index, shape=shape, value="1")


def test_resolve_finds_the_line_by_shape_before_position():
    index = OutputIndex([OutputText(0, 0, "b 2\na 1\n")])
    assert index.resolve(entry("a #", 0, 0, 0, 0)).number.text == "1"
    assert index.resolve(entry("gone #", 0, 0, 0, 0)).number.text == "2"  # position, second
    assert index.resolve(entry("gone #", 4, 0, 0, 0)) is None


def test_resolve_prefers_the_recorded_position_among_lines_of_one_shape():
    index = OutputIndex([OutputText(0, 0, "# 1\n# 2\n".replace("#", "row"))])
    assert index.resolve(entry("row #", 0, 0, 1, 0)).number.text == "2"
    assert index.resolve(entry("row #", 3, 0, 0, 0)).number.text == "1"
