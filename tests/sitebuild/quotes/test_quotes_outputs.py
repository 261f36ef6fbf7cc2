"""Output numbers with their labels, indexes left out, searchable by value, label,
shape and position (sitebuild.quotes.outputs, sitebuild.quotes.binding.OutputIndex)."""

from __future__ import annotations

from dataclasses import dataclass, field

from sitebuild.quotes.binding import OutputIndex
from sitebuild.quotes.lock import LockEntry
from sitebuild.quotes.numbers import parse_number
from sitebuild.quotes.outputs import OutputText, index_outputs, outputs_from_blocks


@dataclass
class Captured:
    kind: str
    texts: list[str] = field(default_factory=list)
    text: str = ""


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


def test_backing_lists_every_match_in_page_order_across_units():
    index = OutputIndex([OutputText(0, 0, "z 7.2%\n"), OutputText(1, 0, "a 0.072\nb 0.0721\n")])
    assert [o.ref.block for o in index.backing(parse_number("0.072"))] == [0, 1, 1]
    assert [o.ref.line for o in index.backing(parse_number("7.21%"))] == [1]
    assert index.backing(parse_number("0.073")) == []


def test_backing_prefers_a_stated_bound_to_a_value_that_satisfies_it():
    index = OutputIndex([OutputText(0, 0, "p 0.0001\n"), OutputText(1, 0, "p < 0.0005\n")])
    assert [o.ref.block for o in index.backing(parse_number("< 0.0005"))] == [1]


def labels(text: str, html: str = "") -> list[tuple[str, str, bool]]:
    return [(n.number.text, n.label, n.is_index) for n in index_outputs([OutputText(0, 0, text, html)])]


def test_a_label_is_the_words_before_a_number_since_the_previous_one():
    assert labels("train accuracy: 0.75, test accuracy: 0.70\n") == [
        ("0.75", "train accuracy", False), ("0.70", "test accuracy", False)]
    assert labels("0.75 accuracy\n") == [("0.75", "accuracy", False)]


def test_row_numbers_of_a_printed_table_are_an_index_and_columns_label_the_cells():
    text = "   gap  significant\n0  0.05  True\n1  0.12  False\n2  0.31  True\n"
    found = labels(text)
    assert [(t, i) for t, _, i in found] == [("0", True), ("0.05", False), ("1", True), ("0.12", False),
                                            ("2", True), ("0.31", False)]
    assert found[1][1] == "gap"


def test_an_index_under_a_blank_header_is_an_index_even_when_it_does_not_count_up():
    assert [(t, i) for t, _, i in labels("      rate\n2019  0.50\n2021  0.40\n")] == [
        ("2019", True), ("0.50", False), ("2021", True), ("0.40", False)]


def test_counts_that_do_not_count_up_are_not_row_numbers():
    assert [i for _, _, i in labels("rows share\n200 0.17\n1000 0.72\n")] == [False] * 4


def test_index_and_header_cells_of_an_html_table_never_back_a_number():
    html = ("<table><thead><tr><th></th><th>group</th><th>test accuracy</th></tr></thead><tbody>"
            "<tr><th>0</th><td>women</td><td>0.70</td></tr><tr><th>1</th><td>men</td><td>0.75</td></tr></tbody></table>")
    text = " | group | test accuracy\n0 | women | 0.70\n1 | men | 0.75"
    assert labels(text, html) == [("0", "women", True), ("0.70", "test accuracy women", False),
                                  ("1", "men", True), ("0.75", "test accuracy men", False)]


def entry(shape: str, block: int, output: int, line: int, index: int) -> LockEntry:
    return LockEntry(page="p.md", quote="1", context="#", occurrence=0, line=1, block=block, output=output,
                     output_line=line, index=index, shape=shape, value="1")


def test_resolve_finds_the_line_by_shape_before_position():
    index = OutputIndex([OutputText(0, 0, "b 2\na 1\n")])
    assert index.resolve(entry("a #", 0, 0, 0, 0))[0].number.text == "1"
    found, how = index.resolve(entry("gone #", 0, 0, 0, 0))
    assert (found.number.text, how) == ("2", "position")  # position, second
    assert index.resolve(entry("gone #", 4, 0, 0, 0)) == (None, "")


def test_resolve_prefers_the_recorded_position_among_lines_of_one_shape():
    index = OutputIndex([OutputText(0, 0, "# 1\n# 2\n".replace("#", "row"))])
    assert index.resolve(entry("row #", 0, 0, 1, 0))[0].number.text == "2"
    assert index.resolve(entry("row #", 3, 0, 0, 0))[0].number.text == "1"


def test_resolve_finds_a_labelled_number_first_wherever_it_moved():
    index = OutputIndex([OutputText(2, 0, "train accuracy: 0.75\n"), OutputText(5, 0, "note\ntest accuracy: 0.70\n")])
    labelled = LockEntry(page="p.md", quote="0.75", context="#", occurrence=0, line=1, block=1, output=0,
                         output_line=1, index=0, shape="test accuracy: #", value="0.75", label="test accuracy")
    found, how = index.resolve(labelled)
    assert (found.ref.anchor, how) == ("out-5-0-l1", "label")
