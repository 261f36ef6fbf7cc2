"""Finding prose numbers and their places in the .md (sitebuild.quotes_extract)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from sitebuild.quotes.extraction import extract_prose_numbers, sentence_context


def found(md: str, **options) -> list[tuple[str, int, int, str]]:
    return [(p.text, p.line, p.col, p.exempt_reason) for p in extract_prose_numbers(md, **options)]


def assert_columns_point_at_the_text(md: str) -> None:
    lines = md.splitlines()
    for number in extract_prose_numbers(md):
        line = lines[number.line - 1]
        assert line[number.col - 1 : number.col - 1 + len(number.text)] == number.text, number


def test_front_matter_fences_and_indented_code_are_not_prose():
    md = "---\ntitle: Page 5\n---\nText 1.\n\n```python\nx = 2\n```\n\n    y = 3\n"
    assert found(md) == [("1", 4, 6, "")]


def test_code_spans_link_targets_images_and_urls_are_ignored():
    md = (
        "A `x = 4` and [link 7](http://a.org/8) and ![img 9](f10.png) and\n"
        "<http://b.org/11> and https://c.org/12/x and www.d.org/13 and 14.\n"
    )
    assert [text for text, *_ in found(md)] == ["7", "9", "14"]  # an image's alt text is prose
    assert_columns_point_at_the_text(md)


def test_headings_tables_lists_emphasis_and_footnotes_count():
    md = (
        "# Results for 3 models\n\n"
        "| a | b |\n|---|---|\n| 1 | 2.5 |\n\n"
        "- item 4\n- **bold 0.3%** and *0.4*[^n]\n\n"
        "[^n]: Note 6.\n"
    )
    assert [(text, line) for text, line, _, _ in found(md)] == [
        ("3", 1), ("1", 5), ("2.5", 5), ("4", 7), ("0.3%", 8), ("0.4", 8), ("6", 10)
    ]
    assert_columns_point_at_the_text(md)


def test_repeated_text_on_one_line_gets_each_its_own_column():
    md = "| 0.5 | 0.5 | 0.5 |\n|---|---|---|\n| 0.5 | 0.5 | 0.5 |\n\n0.5 and 0.5\n"
    columns = [(line, col) for _, line, col, _ in found(md)]
    assert columns == [(1, 3), (1, 9), (1, 15), (3, 3), (3, 9), (3, 15), (5, 1), (5, 9)]


def test_numbers_after_a_soft_break_are_on_their_own_line():
    md = "First 1\nsecond 2 and\n   third 3\n"
    assert [(t, line, col) for t, line, col, _ in found(md)] == [("1", 1, 7), ("2", 2, 8), ("3", 3, 10)]


def test_the_inline_marker_exempts_its_numbers_only():
    md = "Published in [1998]{.nocheck} and [Angwin et al., 2016]{.nocheck}, cited 17 times.\n"
    assert [(t, reason) for t, _, _, reason in found(md)] == [
        ("1998", "inline marker"), ("2016", "inline marker"), ("17", "")
    ]


def test_exempt_sections_run_until_a_heading_of_the_same_or_higher_level():
    md = (
        "# Top 1\n\n## Further Reading\n\nAngwin 2016.\n\n### Deeper 3\n\nMore 4.\n\n"
        "## Results\n\nGap 5.\n\n## references\n\nBook 1998.\n"
    )
    assert [(t, bool(reason)) for t, _, _, reason in found(md)] == [
        ("1", False), ("2016", True), ("3", True), ("4", True), ("5", False), ("1998", True)
    ]


def test_exempt_sections_come_from_the_page():
    md = "## Sources\n\nData 2016.\n\n## Further Reading\n\nBook 1998.\n"
    assert [(t, bool(r)) for t, _, _, r in found(md, exempt_sections=["Sources"])] == [
        ("2016", True), ("1998", False)
    ]


def test_numbers_escaped_in_the_source_are_still_found():
    md = "Rate \\*5.9%\\* here &amp; 6.\n"
    assert [t for t, *_ in found(md)] == ["5.9%", "6"]
    assert_columns_point_at_the_text(md)


def test_sentence_context_masks_numbers_and_ignores_other_sentences():
    line = "Before 3 things. The gap is -0.0509 on 6,513 rows. After 4."
    assert sentence_context(line, line.index("-0.0509")) == "The gap is # on # rows."
    assert sentence_context(line.replace("Before 3", "Earlier 9"), line.index("-0.0509")) == "The gap is # on # rows."


def test_an_escaped_line_does_not_send_the_next_numbers_to_a_later_line():
    md = "word \\*\n0.5\nword **7**\n"
    assert [(n.number.text, n.line, n.col) for n in extract_prose_numbers(md)] == [("0.5", 2, 1), ("7", 3, 8)]


PIECES = ["word", "0.5", "-1.25", "72%", "6,513", "`code 3`", "[link 4](http://x.org/5)", "**7**", "*8.5*",
          "[9]{.nocheck}", "\\*", "&amp;", "https://y.org/10", "p < 0.05", "(11)", "12.", "S2"]


@given(st.lists(st.lists(st.sampled_from(PIECES), min_size=1, max_size=8), min_size=1, max_size=4),
       st.sampled_from(["", "- ", "# ", "| ", "> "]))
@settings(max_examples=150, deadline=None)
def test_every_located_number_points_at_its_text_in_the_source(lines, prefix):
    md = "\n".join(prefix + " ".join(words) for words in lines) + "\n"
    source = md.splitlines()
    for number in extract_prose_numbers(md):
        assert number.col > 0, (md, number)
        assert source[number.line - 1][number.col - 1 :].startswith(number.text), (md, number)


def test_a_number_after_an_image_or_link_is_located_after_its_target():
    md = "![a](x5.png)5 and [b](y7.html)7\n"
    assert [(t, col) for t, _, col, _ in found(md)] == [("5", 13), ("7", 31)]
