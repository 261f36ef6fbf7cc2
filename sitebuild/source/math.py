"""Formulas of the prose: ``$...$`` (inline), ``$$...$$`` (display) and top-level amsmath
environments (``\\begin{align}...\\end{align}``), parsed by mdit-py-plugins and turned into
MathML at build time by latex2mathml. The page needs no script and no network: the
browser lays MathML out itself, in either theme, from file:// too.

A formula latex2mathml cannot read, or one that uses a command it does not know (which
it would otherwise print as the raw ``\\command``), is a :class:`MathError`; the checks
report it at the formula's .md line."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Sequence

from markdown_it.token import Token
from msgspec import Struct

from sitebuild.source.tokens import inline_children

#: Inline children that hold a formula (``$x$``; ``$$x$$`` inside a paragraph).
INLINE_MATH = frozenset({"math_inline", "math_inline_double"})
#: Block tokens that hold a formula (``$$...$$`` on lines of its own, amsmath environments).
BLOCK_MATH = frozenset({"math_block", "math_block_label", "amsmath"})
#: Every token type of a formula; numbers in them are not quoted numbers.
MATH_TOKENS = INLINE_MATH | BLOCK_MATH
UNKNOWN_COMMAND = re.compile(r"<m[io][^>]*>(\\[A-Za-z]+)</m[io]>")
MATH_ERROR = "formula ${latex}$ is not valid LaTeX: {reason}"
UNKNOWN_COMMAND_REASON = "unknown command {command}"
EMPTY_FORMULA_REASON = "the formula is empty"
UNPAIRED_BRACES_REASON = "its braces do not pair ({opened} {{ against {closed} }}): close every group it opens"
#: A brace that groups, not an escaped one (``\{``, ``\}``).
GROUPING_BRACE = re.compile(r"(?<!\\)[{}]")


class MathError(ValueError):
    """A formula that cannot be rendered; ``reason`` says why."""

    def __init__(self, latex: str, reason: str):
        self.latex, self.reason = latex, reason
        super().__init__(MATH_ERROR.format(latex=latex.strip(), reason=reason))


class Formula(Struct, frozen=True):
    """One formula of a page: its LaTeX, whether it is displayed, and its .md line."""

    latex: str
    display: bool
    line: int


def _reason(error: Exception) -> str:
    """latex2mathml's exception class as words ("missing super script or subscript")."""
    name = type(error).__name__.removesuffix("Error")
    words = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", name).lower()
    detail = str(error).strip()
    return f"{words} ({detail})" if detail else words


@lru_cache(maxsize=2048)
def to_mathml(latex: str, display: bool = False) -> str:
    """The MathML of ``latex`` (``display`` for a formula on its own lines).

    Raises :class:`MathError` for LaTeX latex2mathml cannot read or a command it does not know.

    Examples
    --------
    >>> to_mathml("x^2").startswith('<math xmlns="http://www.w3.org/1998/Math/MathML" display="inline">')
    True
    """
    if not latex.strip():
        raise MathError(latex, EMPTY_FORMULA_REASON)
    braces = GROUPING_BRACE.findall(latex)
    if braces.count("{") != braces.count("}"):  # latex2mathml's own words for it ("no available tokens") say less
        raise MathError(latex, UNPAIRED_BRACES_REASON.format(opened=braces.count("{"), closed=braces.count("}")))
    from latex2mathml.converter import convert  # loaded only for a page with a formula

    try:
        mathml = convert(latex.strip(), display="block" if display else "inline")
    except Exception as error:  # latex2mathml raises many classes of its own, and IndexError
        raise MathError(latex, _reason(error)) from error
    unknown = UNKNOWN_COMMAND.search(mathml)
    if unknown:
        raise MathError(latex, UNKNOWN_COMMAND_REASON.format(command=unknown.group(1)))
    return mathml


def page_formulas(tokens: Sequence[Token]) -> list[Formula]:
    """Every formula of a page's tokens, in line order, with its .md line."""
    blocks = [Formula(t.content, True, t.map[0] + 1) for t in tokens if t.type in BLOCK_MATH and t.map]
    inline = [Formula(child.content, child.type == "math_inline_double", line)
              for line, _, _, child in inline_children(tokens) if child.type in INLINE_MATH]
    return sorted(blocks + inline, key=lambda formula: formula.line)


def formula_errors(tokens: Sequence[Token]) -> list[tuple[int, str]]:
    """(.md line, message) of each formula of a page that cannot be rendered."""
    errors = []
    for formula in page_formulas(tokens):
        try:
            to_mathml(formula.latex, formula.display)
        except MathError as error:
            errors.append((formula.line, str(error)))
    return errors
