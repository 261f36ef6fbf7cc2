"""Output numbers with their labels, indexes left out (sitebuild.quotes.outputs), and the
choice among them by words alone (sitebuild.quotes.meaning.Chooser)."""

from __future__ import annotations

from dataclasses import dataclass, field

from sitebuild.quotes.extraction import extract_prose_numbers
from sitebuild.quotes.meaning import Chooser, ProseWords
from sitebuild.quotes.outputs import RANGE_HIGH, RANGE_LOW, OutputText, index_outputs, outputs_from_blocks, range_end


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


def chosen(sentence: str, *outputs: OutputText) -> list[str]:
    """The output line chosen for each number of ``sentence`` ("" when none or tied)."""
    chooser = Chooser([n for n in index_outputs(list(outputs)) if not n.is_index])
    found = []
    for item in extract_prose_numbers(sentence + "\n"):
        choice = chooser.choose(item.number, ProseWords.of(item))
        found.append(choice.chosen.line_text if choice.chosen is not None else "")
    return found


def test_the_choice_reads_the_words_and_never_the_value():
    outputs = (OutputText(0, 0, "train accuracy: 0.75\ntest accuracy: 0.70"),)
    assert chosen("The test accuracy is 0.75.", *outputs) == ["test accuracy: 0.70"]
    assert chosen("The train accuracy is 0.70.", *outputs) == ["train accuracy: 0.75"]


def test_lines_named_as_well_are_a_tie_and_a_count_is_chosen_among_counts():
    outputs = (OutputText(0, 0, "rate of group a: 0.50\nrate of group b: 0.50\nrate of rows: 7"),)
    assert chosen("The rate is 0.50.", *outputs) == [""]
    assert chosen("The rate of group b is 0.50.", *outputs) == ["rate of group b: 0.50"]
    assert chosen("The rate is 7.", *outputs) == ["rate of rows: 7"]


def test_a_bare_last_expression_is_labelled_by_its_source():
    blocks = {1: [Captured("text", ["0.75"])], 2: [Captured("stream", ["balance: 0.75"])]}
    texts = outputs_from_blocks(blocks, {1: "accuracy = 0.75\nround(accuracy, 2)", 2: "print('balance: 0.75')"})
    assert [(n.label, n.ref.block) for n in index_outputs(texts)] == [("accuracy", 1), ("balance", 2)]


def test_the_ends_of_a_range_are_told_apart_by_their_place():
    assert [n.adjacent for n in index_outputs([OutputText(0, 0, "gap +0.05 [-0.01, +0.11], interval -0.02 to 0.12")])] \
        == ["gap", RANGE_LOW, RANGE_HIGH, RANGE_LOW, RANGE_HIGH]
    line = OutputText(0, 0, "gap +0.05, interval -0.02 to 0.12")
    assert chosen("The interval runs from -0.02 to 0.12.", line) == [line.text, line.text]


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


def test_a_frame_printed_as_text_labels_its_values_by_row_and_column():
    text = "group  rate\nwomen  0.30\n  men  0.20\n"
    assert labels(text) == [("0.30", "rate women", False), ("0.20", "rate men", False)]


def test_a_frame_with_a_sparse_outer_index_keeps_the_outer_label():
    text = "attribute metric  value\nsex       dp      0.05\n          eo      0.07\n"
    assert [label for _, label, _ in labels(text)] == ["value sex dp", "value sex eo"]


def test_words_after_a_number_that_opens_a_segment_name_it():
    assert labels("Credit: 1000 rows, 200 in the test split\n") == [
        ("1000", "row credit", False), ("200", "test split credit", False)]  # "Credit" leads the line


def test_the_head_of_indented_lines_and_the_lead_of_a_line_name_its_numbers():
    text = ("German Credit (age): 1000 rows\n  seed 42: gap +0.1265\n"
            "Benefits (sex): 32561 rows\n  seed 42: gap -0.0909\n")
    assert [label for t, label, _ in labels(text) if t.startswith(("+", "-"))] == [
        "gap german credit age", "gap benefit sex"]
    assert labels("history model  false positive rate  Black 0.230 white 0.105\n")[0][1] == \
        "black history model false positive rate"


def test_a_bound_printed_is_never_a_candidate_for_a_plain_number():
    line = OutputText(0, 0, "significant (p < 0.05) in 27% of the splits")
    assert chosen("Its p is 0.05.", line) == [""]


ROWSPAN_HTML = ("<table><thead><tr><th></th><th></th><th>gap</th><th>Holm p</th></tr></thead><tbody>"
                "<tr><th rowspan=\"2\">race</th><th>parity</th><td>+0.24</td><td>0.001</td></tr>"
                "<tr><th>opportunity</th><td>-0.15</td><td>0.081</td></tr>"
                "<tr><th>race_x_sex</th><th>opportunity</th><td>+0.03</td><td>1.000</td></tr></tbody></table>")
ROWSPAN_TEXT = " |  | gap | Holm p\nrace | parity | +0.24 | 0.001\nopportunity | -0.15 | 0.081\n" \
               "race_x_sex | opportunity | +0.03 | 1.000"


def test_a_cell_spanning_rows_labels_every_row_it_spans_and_the_columns_stay_aligned():
    found = labels(ROWSPAN_TEXT, ROWSPAN_HTML)
    assert [(t, label) for t, label, index in found if not index] == [
        ("+0.24", "gap race parity"), ("0.001", "holm p race parity"),
        ("-0.15", "gap opportunity race"), ("0.081", "holm p opportunity race"),
        ("+0.03", "gap race x sex opportunity"), ("1.000", "holm p race x sex opportunity")]


def test_an_index_cell_the_sentence_leaves_out_counts_against_its_row():
    table = OutputText(0, 0, ROWSPAN_TEXT, ROWSPAN_HTML)
    assert chosen("For race, the opportunity gap is -0.15.", table) == ["opportunity | -0.15 | 0.081"]


def test_the_words_next_to_a_later_number_of_the_sentence_are_its_own():
    from sitebuild.quotes import check_page

    line = OutputText(0, 0, "opportunity gap -0.146: p 0.006, Holm p 0.081")
    md = "The opportunity gap of -0.146 has a raw p of 0.006, but a Holm p of 0.081.\n"
    results = check_page(md, "explainers/x.md", [line], [], []).results
    assert [(r.text, r.status.value, r.label) for r in results] == [
        ("-0.146", "verified", "opportunity gap"), ("0.006", "verified", "p"), ("0.081", "verified", "holm p")]


def test_and_joins_the_ends_of_a_range_only_after_between():
    assert range_end("gaps of ", " and -0.013") == ""
    assert range_end("anywhere between ", " and 5") == RANGE_LOW


def test_a_header_with_a_number_in_a_column_name_still_labels_its_columns():
    text = ("design    gap sd  interval width  p < 0.05\n"
            "random     0.068           0.322       30%\n"
            "balanced   0.057           0.242       37%\n")
    found = [(t, label) for t, label, index in labels(text) if not index]
    assert found == [("0.068", "gap sd random"), ("0.322", "interval width random"), ("30%", "p random"),
                     ("0.057", "gap sd balanced"), ("0.242", "interval width balanced"), ("37%", "p balanced")]
    assert labels(text)[0] == ("< 0.05", "p", True)  # the header's number names a column
    assert labels("race        accuracy   gap -0.023 p 0.091\nsex         accuracy   gap -0.002 p 0.92\n")[0][1] \
        == "gap race accuracy"  # a line of values with words is not a header


def test_a_number_set_off_by_commas_takes_the_words_of_the_clause_before_it():
    from sitebuild.quotes import check_page

    line = OutputText(0, 0, "baseline: gap +0.078, balanced accuracy 0.729")
    md = "The gap is +0.078, and the balanced accuracy of the baseline, 0.729, is lower.\n"
    results = check_page(md, "explainers/x.md", [line], [], []).results
    assert [(r.text, r.label) for r in results] == [("+0.078", "gap baseline"), ("0.729", "balanced accuracy baseline")]


def test_an_interval_in_brackets_and_a_list_of_values_share_the_label_before_them():
    found = labels("single split: gap +0.126 [-0.026, +0.284]\n5 folds: +0.045 +0.244 +0.095\n")
    assert [label for _, label, _ in found] == ["gap single split", "gap single split interval",
                                                "gap single split interval", "fold", "fold", "fold", "fold"]


def test_a_number_quoted_alone_is_not_an_end_of_a_printed_range():
    chooser = Chooser(index_outputs([OutputText(0, 0, "young test rows: median 38 (38 to 38)")]))
    (item,) = extract_prose_numbers("The median is 38 young test rows.\n")
    assert chooser.choose(item.number, ProseWords.of(item)).chosen.ref.index == 0


def test_the_line_of_index_names_under_a_frames_header_is_passed_over():
    text = ("                base-rate gap  selection gap\n"
            "share view                                  \n"
            "0.00  measured          0.149          0.283\n")
    assert [(t, label) for t, label, _ in labels(text)][1:] == [("0.149", "base rate gap"), ("0.283", "selection gap")]
