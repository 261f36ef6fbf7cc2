"""Number grammar, precision and formatting (sitebuild.numbers)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sitebuild.quotes.numbers import (
    code_literals,
    equals_literal,
    find_numbers,
    format_like,
    mask_numbers,
    matches_output,
    parse_number,
    with_word_comparator,
)


def texts(text: str) -> list[str]:
    return [number.text for number in find_numbers(text)]


def matches(prose: str, output: str) -> bool:
    return matches_output(parse_number(prose), parse_number(output))


# -- grammar ------------------------------------------------------------------------------

@pytest.mark.parametrize(
    "text, expected",
    [
        ("a gap of -0.0509, in 72% of 1,000-row samples", ["-0.0509", "72%", "1,000"]),
        ("the Unicode minus −0.05 and a plus +2", ["−0.05", "+2"]),
        ("p < 0.0005 and p<0.05 and ≤ 3 and >= 10", ["< 0.0005", "<0.05", "≤ 3", ">= 10"]),
        ("1.2e-05, 3E+3, 3 × 10^-5 and 2×10⁻⁵", ["1.2e-05", "3E+3", "3 × 10^-5", "2×10⁻⁵"]),
        ("p = .05.", [".05"]),
        ("5 % and 7%", ["5 %", "7%"]),
        ("Angwin et al., 2016. Next", ["2016"]),
        ("tuple (1,2) and 1,2345", ["1", "2", "1", "2345"]),
    ],
)
def test_find_numbers_reads_every_form(text, expected):
    assert texts(text) == expected


@pytest.mark.parametrize("text", ["COMPAS-2", "S2", "H2O", "race_x_sex", "x1", "2nd", "10x10", "0x1F", "version 3.2.1"])
def test_numbers_inside_words_or_identifiers_are_not_numbers(text):
    assert texts(text) == []


def test_a_hyphen_between_digits_is_a_range_not_a_sign():
    numbers = find_numbers("between 3-5 models")
    assert [(n.text, n.negative) for n in numbers] == [("3", False), ("5", False)]


@pytest.mark.parametrize(
    "text, value, places, negative, percent",
    [
        ("-0.0509", "-0.0509", 4, True, False),
        ("−0.0", "-0.0", 1, True, False),
        ("6,513", "6513", 0, False, False),
        ("5.9%", "5.9", 1, False, True),
        ("1.2e-05", "0.000012", 6, False, False),
        ("2×10⁻⁵", "0.00002", 5, False, False),
    ],
)
def test_parse_number_reads_value_places_sign_and_unit(text, value, places, negative, percent):
    number = parse_number(text)
    assert number.value == Decimal(value)
    assert (number.places, number.negative, bool(number.percent)) == (places, negative, percent)


def test_parse_number_rejects_text_that_is_not_one_number():
    with pytest.raises(ValueError, match="exactly one number"):
        parse_number("1 and 2")


def test_mask_numbers_gives_the_shape_of_a_line():
    assert mask_numbers("gap   -0.0509 | rate 5.9% | p < 0.0005") == "gap # | rate # | p #"


# -- precision ----------------------------------------------------------------------------

@pytest.mark.parametrize(
    "prose, output, expected",
    [
        ("-0.0509", "-0.05093", True),
        ("-0.0509", "-0.05096", False),
        ("0.051", "0.0505", True),    # an exact tie agrees with rounding up...
        ("0.050", "0.0505", True),    # ...and with rounding to even
        ("0.052", "0.0505", False),
        ("0.050", "0.0506", False),
        ("0.05093", "0.0509", False),  # the prose cannot be more precise than the output
        ("-0.0", "-0.0", True),
        ("0.0", "0.0", True),
        ("0.0", "-0.0", False),       # the sign shown must agree, even at zero
        ("-0.0", "0.0", False),
        ("-0.0", "-0.03", True),
        ("0.0509", "-0.0509", False),
        ("5.9%", "0.059", True),
        ("5.9%", "5.9%", True),
        ("5.9%", "0.0594", True),
        ("5.9%", "5.9", False),       # a percent is not backed by a bare number in percent units
        ("0.059", "5.9%", True),
        ("6,513", "6513", True),
        ("6513", "6,513", True),
        ("6,513", "6514", False),
        ("70%", "0.7", True),
        ("1.2e-5", "0.000012", True),
        ("0.000012", "1.2e-05", True),
    ],
)
def test_matches_output_at_the_precision_the_prose_shows(prose, output, expected):
    assert matches(prose, output) is expected


@pytest.mark.parametrize(
    "prose, output, expected",
    [
        ("< 0.0005", "< 0.0005", True),
        ("< 0.0005", "<0.00050", True),
        ("< 0.0005", "> 0.0005", False),
        ("< 0.0005", "0.0002", True),
        ("< 0.0005", "0.0", True),
        ("< 0.0005", "0.0007", False),
        ("< 0.0005", "0", False),        # an integer (a count, an index) never backs a bound
        ("< 0.0005", "-0.05", False),    # a non-negative bound needs a non-negative value
        ("0.0005", "< 0.0005", False),   # a bound in the output does not back an exact claim
    ],
)
def test_comparisons_match_the_same_bound_or_a_value_that_satisfies_them(prose, output, expected):
    assert matches(prose, output) is expected


def test_literals_are_compared_exactly_not_rounded():
    assert equals_literal(parse_number("0.05"), parse_number("0.05"))
    assert equals_literal(parse_number("5%"), parse_number("0.05"))
    assert not equals_literal(parse_number("0.1"), parse_number("0.05"))


# -- code literals ------------------------------------------------------------------------

def test_code_literals_skip_strings_and_comments_and_apply_unary_minus():
    source = "n = 2_000\nx = -0.05\ny = a - 3\nz = f(-1, 'text 7')  # note 9\nw = 1e-3\nc = 1j + 0x10\n"
    literals = [(str(n.value), n.negative) for n in code_literals(source)]
    assert literals == [("2000", False), ("-0.05", True), ("3", False), ("-1", True), ("0.001", False)]


def test_code_that_does_not_tokenize_falls_back_to_every_number_in_its_text():
    assert [n.text for n in code_literals("x = (1,\n'''unterminated 42")] == ["1", "42"]


# -- formatting in the old style -----------------------------------------------------------

@pytest.mark.parametrize(
    "old, value, expected",
    [
        ("-0.0509", "-0.04812", "-0.0481"),
        ("−0.0509", "-0.04812", "−0.0481"),
        ("0.0509", "-0.04812", "-0.0481"),
        ("+0.5", "0.25", "+0.3"),
        ("72%", "69.2", "69%"),
        ("5.9 %", "6.14", "6.1 %"),
        ("6,513", "6013", "6,013"),
        ("513", "7001", "7,001"),
        ("6513", "7001", "7001"),
        ("1,000", "999", "999"),
        ("1.2e-05", "0.0000345", "3.5e-05"),
        ("1.2E+3", "45000", "4.5E+4"),
        ("2×10⁻⁵", "0.00031", "3×10⁻⁴"),
        ("< 0.0005", "0.001", "< 0.0010"),
        ("0.05", "-0.003", "-0.00"),
        (".05", "0.07", ".07"),
        ("9.96", "9.999", "10.00"),
    ],
)
def test_format_like_keeps_the_old_style(old, value, expected):
    assert format_like(parse_number(old), Decimal(value)) == expected


@given(
    st.sampled_from(["-0.0509", "72%", "6,513", "0.5", "1.2e-05", "−3.25", "+10.0"]),
    st.decimals(min_value=Decimal("-99999"), max_value=Decimal("99999"), places=6, allow_nan=False),
)
def test_a_value_formatted_like_a_number_is_backed_by_that_value(old, value):
    """Whatever the new value, the rewritten text must pass the check against it."""
    old_number = parse_number(old)
    new_text = format_like(old_number, value)
    output = parse_number(f"{value:f}")
    if old_number.percent:
        output = parse_number(f"{value / 100:f}")
    assert matches_output(parse_number(new_text), output), (old, str(value), new_text)


def test_negative_zero_keeps_its_sign_through_parsing_and_formatting():
    output = parse_number("-0.0")
    assert output.value.is_signed()
    assert format_like(parse_number("0.00"), output.value) == "-0.00"


@pytest.mark.parametrize("text, value, suffix", [("3x", "3", "x"), ("2.5×", "2.5", "×"), ("10x.", "10", "x")])
def test_a_multiplier_written_with_digits_is_a_number(text, value, suffix):
    (number,) = find_numbers(f"about {text} faster")
    assert (number.text, number.value, number.multiplier) == (text.rstrip("."), Decimal(value), suffix)


def test_a_multiplier_is_rewritten_with_its_sign():
    assert format_like(parse_number("3.1x"), Decimal("2.96")) == "3.0x"


@pytest.mark.parametrize("text, comparator", [
    ("at least 80% of rows", ">="), ("more than 5 gaps", ">"), ("under 0.05", "<"), ("10 or more pages", ">="),
    ("at most 3", "<="), ("we found 5 gaps", ""),
])
def test_words_before_a_number_can_state_a_bound(text, comparator):
    number = [n for n in find_numbers(text)][0]
    bound = with_word_comparator(text, number)
    assert (bound.comparator, bound.text) == (comparator, number.text)
