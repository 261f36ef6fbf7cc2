"""Numbers as people write them: finding them in text, comparing them at the precision
they are shown, and writing a new value in an old number's style.

One grammar serves prose, captured outputs and code literals::

    [comparator] [sign] digits [. digits] [exponent] [%]

- comparator: ``<``, ``>``, ``<=``, ``>=``, ``≤``, ``≥`` (spaces around it allowed),
  so ``p < 0.0005`` is one number with a bound;
- sign: ``+``, ``-`` or the Unicode minus ``−``; a sign counts only when it does not
  follow a letter or digit (``COMPAS-2`` and ``3-5`` have no negative numbers);
- digits: plain (``6513``), comma-grouped (``6,513``) or with no integer part (``.05``);
- exponent: ``e-05``, ``E+3``, ``× 10^-5`` or ``×10⁻⁵``;
- percent: ``%``, optionally after one space;
- multiplier: ``x`` or ``×`` right after the digits and not followed by a letter or digit
  (``3x``, ``2.5×``): a ratio, compared by its value.

A number that is part of a word is not a number: ``S2``, ``H2O``, ``x1``, ``2nd``,
``10x10``, ``COMPAS-2``. Dotted sequences such as ``3.2.1`` are identifiers, not numbers.

Precision. A number stands for every value that rounds to it: ``-0.0509`` stands for
``[-0.05095, -0.05085]`` (both ends included, so an exact tie such as ``0.0505`` agrees
with ``0.050`` and with ``0.051``, whichever rounding the author used). The sign shown
must agree: ``-0.0`` needs a negative value, ``0.0`` a non-negative one. ``5.9%`` and
``0.059`` are the same value in different units.
"""

from __future__ import annotations

import io
import re
import tokenize
from decimal import ROUND_HALF_UP, Decimal

from msgspec import Struct
from msgspec.structs import replace

MINUS_SIGNS = "-−"
COMPARATORS = {"<": "<", ">": ">", "<=": "<=", ">=": ">=", "≤": "<=", "≥": ">="}
SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻", "0123456789+-")
TO_SUPERSCRIPT = str.maketrans("0123456789+-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻")

NUMBER_PATTERN = re.compile(
    r"""
    (?P<cmp>(?:<=|>=|≤|≥|<|>)[ \u00a0]*)?
    (?P<sign>[+\-−])?
    (?:
        (?P<int>[0-9]{1,3}(?:,[0-9]{3})+(?![0-9])|[0-9]+)(?:\.(?P<frac>[0-9]+))?
      | \.(?P<leadfrac>[0-9]+)
    )
    (?P<exp>
        [eE](?P<e_digits>[+\-−]?[0-9]+)
      | [ \u00a0]?[×x·][ \u00a0]?10(?:\^(?P<caret_digits>[+\-−]?[0-9]+)|(?P<sup_digits>[⁺⁻]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+))
    )?
    (?P<pct>[ \u00a0]?%)?
    (?P<mult>[x×](?![A-Za-z0-9_]))?
    """,
    re.VERBOSE,
)


class Number(Struct, frozen=True):
    """One number found in a text, with everything needed to compare and re-write it.

    ``value`` is signed and in the units written (``72%`` has value 72, ``1.2e-5`` has
    value 0.000012); ``places`` is how many decimal places it shows in those units
    (negative for ``1e3``-style numbers shown to thousands)."""

    text: str
    start: int
    end: int
    value: Decimal
    places: int
    negative: bool
    sign: str = ""
    percent: str = ""
    comparator: str = ""
    comparator_text: str = ""
    grouped: bool = False
    integer_digits: str = ""
    exponent_text: str = ""
    leading_dot: bool = False
    multiplier: str = ""

    @property
    def is_integer_shown(self) -> bool:
        """True when the number shows no decimals and no exponent (a count, an index)."""
        return self.places <= 0 and not self.exponent_text and "." not in self.text


def find_numbers(text: str) -> list[Number]:
    """Return every number in ``text`` (prose, an output line or a literal), in order.

    Numbers inside words (``S2``, ``COMPAS-2``) and dotted identifiers (``3.2.1``) are
    left out; see the module docstring for the grammar."""
    found: list[Number] = []
    for match in NUMBER_PATTERN.finditer(text):
        number = _number_from_match(text, match)
        if number is not None:
            found.append(number)
    return found


def mask_numbers(text: str, mask: str = "#", numbers: list[Number] | None = None) -> str:
    """Return ``text`` with each number replaced by ``mask`` and runs of spaces collapsed:
    the "shape" of a line, which survives a change of its values. ``numbers`` are the
    numbers of ``text`` if already found."""
    pieces: list[str] = []
    position = 0
    for number in find_numbers(text) if numbers is None else numbers:
        pieces.append(text[position : number.start])
        pieces.append(mask)
        position = number.end
    pieces.append(text[position:])
    return " ".join("".join(pieces).split())


def _number_from_match(text: str, match: re.Match[str]) -> Number | None:
    start, end = match.start(), match.end()
    sign = match.group("sign") or ""
    comparator_text = match.group("cmp") or ""
    digits_start = match.start("int") if match.group("int") is not None else match.start("leadfrac") - 1
    before = text[:start]
    if sign and before and _is_wordlike(before[-1]):
        # a hyphen after a word or a digit: "COMPAS-2", "3-5"; never a sign
        if comparator_text or not before[-1].isdigit():
            return None
        sign, start = "", digits_start
        before = text[:start]
    if not sign and not comparator_text and before and _is_wordlike(before[-1]):
        return None
    if before.endswith(".") and len(before) > 1 and before[-2].isdigit():
        return None  # the tail of a dotted identifier such as 3.2.1
    after = text[end:]
    if after and (_is_wordlike(after[0]) or (after[0] == "." and after[1:2].isdigit())):
        if not match.group("pct") and not match.group("mult"):
            return None
    return _build_number(text[start:end], start, end, match, sign, comparator_text)


def _is_wordlike(char: str) -> bool:
    return char.isalnum() or char == "_"


def _build_number(
    text: str, start: int, end: int, match: re.Match[str], sign: str, comparator_text: str
) -> Number:
    integer = (match.group("int") or "").replace(",", "")
    fraction = match.group("frac") or match.group("leadfrac") or ""
    exponent = _exponent_of(match)
    mantissa = Decimal(f"{integer or '0'}.{fraction}" if fraction else integer)
    magnitude = mantissa.scaleb(exponent)
    negative = sign in MINUS_SIGNS and sign != ""
    return Number(
        text=text,
        start=start,
        end=end,
        value=magnitude.copy_negate() if negative else magnitude,  # keeps the sign of -0.0
        places=len(fraction) - exponent,
        negative=negative,
        sign=sign,
        percent=match.group("pct") or "",
        comparator=COMPARATORS[comparator_text.strip()] if comparator_text else "",
        comparator_text=comparator_text,
        grouped="," in (match.group("int") or ""),
        integer_digits=integer,
        exponent_text=match.group("exp") or "",
        leading_dot=match.group("leadfrac") is not None,
        multiplier=match.group("mult") or "",
    )


def _exponent_of(match: re.Match[str]) -> int:
    for group in ("e_digits", "caret_digits"):
        if match.group(group):
            return int(match.group(group).replace("−", "-"))
    if match.group("sup_digits"):
        return int(match.group("sup_digits").translate(SUPERSCRIPTS))
    return 0


def parse_number(text: str) -> Number:
    """Parse ``text`` that must be exactly one number; raise ``ValueError`` otherwise."""
    numbers = find_numbers(text)
    if len(numbers) != 1 or numbers[0].text != text.strip():
        raise ValueError(f"expected exactly one number, found {text!r}")
    return numbers[0]


def value_in_units_of(reference: Number, other: Number) -> Decimal:
    """Return ``other``'s value expressed in the units of ``reference`` (percent or plain)."""
    if reference.percent and not other.percent:
        return other.value * 100
    if other.percent and not reference.percent:
        return other.value / 100
    return other.value


def half_step(number: Number) -> Decimal:
    """Half of the last shown digit's unit: the rounding tolerance of ``number``."""
    return Decimal(5).scaleb(-number.places - 1)


def equals_at_shown_precision(shown: Number, value: Decimal, negative: bool) -> bool:
    """True when ``value`` rounds to ``shown`` at the places it shows and the signs agree.

    Both ends of the rounding interval are included, so exact ties agree with either
    rounding direction."""
    if shown.negative != negative:
        return False
    return abs(value - shown.value) <= half_step(shown)


def matches_output(prose: Number, output: Number) -> bool:
    """True when an output number backs a prose number.

    Plain numbers must be equal at the prose's precision (units converted between
    percent and fraction). A prose comparison (``p < 0.0005``) is backed by the same
    comparison in the output with an equal bound, or by an output number shown with
    decimals that satisfies it (see :func:`satisfies`); an output comparison never
    backs a plain prose number."""
    value = value_in_units_of(prose, output)
    if not prose.comparator:
        return not output.comparator and equals_at_shown_precision(prose, value, output.negative)
    if output.comparator:
        same_direction = prose.comparator == output.comparator
        return same_direction and equals_at_shown_precision(prose, value, output.negative)
    counts_backed_by_counts = not output.is_integer_shown or prose.is_integer_shown
    return counts_backed_by_counts and satisfies(prose, value)


def satisfies(bound: Number, value: Decimal) -> bool:
    """True when ``value`` satisfies the comparison ``bound`` (``< 0.05``) states.

    A non-negative bound speaks of a non-negative quantity (a p-value, a size), so a
    negative value never satisfies it: ``p < 0.0005`` is not backed by a gap of -0.05."""
    if bound.value >= 0 and value < 0:
        return False
    checks = {
        "<": value < bound.value,
        "<=": value <= bound.value,
        ">": value > bound.value,
        ">=": value >= bound.value,
    }
    return checks[bound.comparator]


def equals_literal(prose: Number, literal: Number) -> bool:
    """True when a prose number states exactly a literal from the page's code (``5%`` and
    ``0.05``, ``2,000`` and ``2_000``); typed inputs are compared exactly, not rounded."""
    return prose.negative == literal.negative and value_in_units_of(prose, literal) == prose.value


def code_literals(source: str) -> list[Number]:
    """Return the numeric literals of a Python source, with unary minus applied.

    Numbers in strings and comments are not literals. Source that does not tokenize
    (a block written to fail) falls back to every number in its text."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return find_numbers(source)
    literals: list[Number] = []
    significant = [t for t in tokens if t.type not in _INSIGNIFICANT]
    for position, token in enumerate(significant):
        if token.type != tokenize.NUMBER:
            continue
        literal = _literal_number(token.string)
        if literal is not None:
            literals.append(replace(literal, negative=_is_negated(significant, position)))
    return [replace(n, value=n.value.copy_abs().copy_negate()) if n.negative else n for n in literals]


_INSIGNIFICANT = {tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT}


def _literal_number(token_text: str) -> Number | None:
    text = token_text.replace("_", "")
    if text[-1:] in "jJ" or text[:2].lower() in ("0x", "0o", "0b"):
        return None
    numbers = find_numbers(text.rstrip("."))
    return numbers[0] if len(numbers) == 1 else None


def _is_negated(tokens: list[tokenize.TokenInfo], position: int) -> bool:
    if position == 0 or tokens[position - 1].string != "-":
        return False
    if position == 1:
        return True
    previous = tokens[position - 2]
    operand_end = previous.type in (tokenize.NAME, tokenize.NUMBER, tokenize.STRING)
    keyword = previous.type == tokenize.NAME and previous.string in ("return", "in", "and", "or", "not", "if", "else",
                                                                     "lambda", "yield")
    return keyword or not (operand_end or previous.string in (")", "]", "}"))


def format_like(old: Number, value: Decimal) -> str:
    """Write ``value`` (already in ``old``'s units) in ``old``'s style: its comparator,
    sign characters, decimal places, thousands separators, exponent form and percent.

    A negative value that rounds to zero keeps its minus (``-0.00``), as the check
    requires."""
    negative = value < 0 or (value == 0 and value.is_signed())
    body = _format_scientific(old, abs(value)) if old.exponent_text else _format_fixed(old, abs(value))
    if negative:
        sign = old.sign if old.sign in MINUS_SIGNS and old.sign else "-"
    else:
        sign = "+" if old.sign == "+" else ""
    return f"{old.comparator_text}{sign}{body}{old.percent}{old.multiplier}"


def _format_fixed(old: Number, magnitude: Decimal) -> str:
    places = max(old.places, 0)
    rounded = magnitude.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
    integer, _, fraction = f"{rounded:f}".partition(".")
    if _should_group(old, integer):
        integer = f"{int(integer):,}"
    if old.leading_dot and integer == "0" and fraction:
        integer = ""
    return f"{integer}.{fraction}" if fraction else integer


def _should_group(old: Number, integer: str) -> bool:
    if old.grouped:
        return True
    shown_ungrouped_thousands = len(old.integer_digits) >= 4
    return not shown_ungrouped_thousands and len(integer) >= 4


def _format_scientific(old: Number, magnitude: Decimal) -> str:
    mantissa_places = max(old.places + _exponent_value(old), 0)
    exponent = magnitude.adjusted() if magnitude else 0
    mantissa = magnitude.scaleb(-exponent).quantize(Decimal(1).scaleb(-mantissa_places), rounding=ROUND_HALF_UP)
    if mantissa >= 10:
        exponent += 1
        mantissa = magnitude.scaleb(-exponent).quantize(Decimal(1).scaleb(-mantissa_places), rounding=ROUND_HALF_UP)
    return f"{mantissa:f}{_exponent_like(old.exponent_text, exponent)}"


def _exponent_value(number: Number) -> int:
    match = NUMBER_PATTERN.fullmatch("1" + number.exponent_text)
    return _exponent_of(match) if match else 0


def _exponent_like(old_text: str, exponent: int) -> str:
    """Write ``exponent`` the way ``old_text`` wrote its own (``e-05``, ``E+3``, ``×10⁻⁵``)."""
    match = re.search(r"([+\-−⁺⁻]?)([0-9⁰¹²³⁴⁵⁶⁷⁸⁹]+)$", old_text)
    assert match is not None, old_text
    old_sign, old_digits = match.groups()
    width = len(old_digits)
    digits = str(abs(exponent)).zfill(width)
    superscript = old_digits.translate(SUPERSCRIPTS) != old_digits
    if exponent < 0:
        sign = {"−": "−", "⁻": "⁻"}.get(old_sign, "-")
    else:
        python_style = old_sign in ("-", "−") and old_text.lstrip()[:1] in ("e", "E")
        sign = "+" if python_style else {"+": "+", "⁺": "⁺"}.get(old_sign, "")
    if superscript:
        digits = digits.translate(TO_SUPERSCRIPT)
        sign = sign.translate(TO_SUPERSCRIPT)
    return old_text[: match.start()] + sign + digits


#: Words that make a prose number a bound, as the comparison they state ("over" is not
#: one: "over 200 seeds" means across them).
WORD_COMPARATORS = {
    "at least": ">=", "no less than": ">=", "no fewer than": ">=", "or more": ">=",
    "at most": "<=", "no more than": "<=", "up to": "<=", "or less": "<=", "or fewer": "<=",
    "more than": ">", "greater than": ">", "larger than": ">", "higher than": ">",
    "above": ">", "exceeds": ">", "exceed": ">",
    "less than": "<", "fewer than": "<", "smaller than": "<", "lower than": "<", "under": "<",
    "below": "<",
}
_WORDS_BEFORE = re.compile(
    r"(?:^|(?<=[^\w]))(" + "|".join(sorted((re.escape(w) for w in WORD_COMPARATORS if not w.startswith("or ")),
                                           key=len, reverse=True)) + r")[ \u00a0]+$",
    re.IGNORECASE,
)
_WORDS_AFTER = re.compile(r"^[ \u00a0]*(?:[\w%]+[ \u00a0]+)?(or more|or less|or fewer)\b", re.IGNORECASE)


def with_word_comparator(text: str, number: Number) -> Number:
    """``number`` as a bound when the words of ``text`` around it state one ("at least
    80%", "more than 5", "under 0.05", "10 or more"); unchanged otherwise. Only the
    comparison is set: the number's text and span stay the digits as written.

    Examples
    --------
    >>> with_word_comparator("at least 80% of rows", find_numbers("at least 80% of rows")[0]).comparator
    '>='
    """
    if number.comparator:
        return number
    before = _WORDS_BEFORE.search(text[: number.start])
    after = _WORDS_AFTER.match(text[number.end :]) if before is None else None
    words = (before or after).group(1).lower() if (before or after) else ""
    return replace(number, comparator=WORD_COMPARATORS[words]) if words else number
