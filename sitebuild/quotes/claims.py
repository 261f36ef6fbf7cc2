"""Checked claims: conclusions in words, tied to a condition on the page's results.

In the prose, ``[is not significant]{check="p >= 0.05"}`` says that the words "is not
significant" hold while ``p >= 0.05`` is true. The expression is evaluated in the page's
kernel after all of its blocks (like an inline ``{python}`` value), together with the
values of the names it reads. A claim that is false, or whose expression raises, fails
the build and ``check``::

    explainers/x.md:42: claim "is not significant" no longer holds: p >= 0.05 is False (p = 0.012)

On the site the words stay plain text with a subtle mark whose note shows the condition
and the values. ``check --fix`` never rewrites a claim: a broken claim is for the author.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Iterable, Protocol, Sequence

from markdown_it.token import Token

from sitebuild.tokens import inline_children

CHECK_ATTRIBUTE = "check"


@dataclass(frozen=True)
class Claim:
    """One ``[words]{check="expression"}`` span of a page: its index in page order, its
    words, its expression and its .md line (1-based); ``token_index`` and
    ``child_index`` place its ``span_open`` in the page's tokens."""

    index: int
    words: str
    expression: str
    line: int
    token_index: int
    child_index: int


class ClaimOutcome(Protocol):
    """What the kernel reported for one claim (see ``sitebuild.execute.ClaimValue``)."""

    holds: bool | None
    values: list
    error: str


@dataclass(frozen=True)
class ClaimResult:
    """The verdict on one claim: ``holds`` is True only when its expression evaluated to
    a true value; ``values`` are (name, short repr) pairs of what the expression read;
    ``error`` says why it could not be evaluated."""

    path: str
    claim: Claim
    holds: bool
    values: tuple[tuple[str, str], ...] = ()
    error: str = ""

    @property
    def condition(self) -> str:
        """The condition with its outcome and values: ``p >= 0.05 is False (p = 0.012)``."""
        values = ", ".join(f"{name} = {value}" for name, value in self.values)
        return f"{self.claim.expression} is {self.holds}" + (f" ({values})" if values else "")

    @property
    def message(self) -> str:
        """What ``check`` says about a claim that fails (after ``path:line: ``)."""
        words = self.claim.words
        if self.error:
            return (f'claim "{words}" could not be checked: {self.error} in `{self.claim.expression}`; the '
                    "expression is evaluated in the page's kernel after its blocks and must give True or False")
        return f'claim "{words}" no longer holds: {self.condition}'

    @property
    def note(self) -> str:
        """The plain-text note the site shows on the claim."""
        if self.error:
            return f"Could not be checked: {self.error}"
        return ("Checked when this page was built: " if self.holds else "Does not hold: ") + self.condition


def find_claims(tokens: Sequence[Token]) -> list[Claim]:
    """Every ``[words]{check="expression"}`` span of a page's tokens, in page order."""
    claims: list[Claim] = []
    for line, token_index, child_index, child in inline_children(tokens):
        if child.type == "span_open" and CHECK_ATTRIBUTE in child.attrs:
            words = _span_words(tokens[token_index].children or [], child_index)
            claims.append(Claim(len(claims), words, str(child.attrs[CHECK_ATTRIBUTE]).strip(), line,
                                token_index, child_index))
    return claims


MALFORMED = re.compile(r"\]\{[^}]*\bcheck\s*=")


def malformed_claims(tokens: Sequence[Token]) -> list[tuple[int, str]]:
    """(line, text) of each ``[...]{check=...}`` the parser did not read as a claim (the
    expression in single quotes, a space before ``{``, a quote inside it), so that it is
    reported instead of silently left unchecked."""
    return [(line, child.content.strip()) for line, _, _, child in inline_children(tokens)
            if child.type == "text" and MALFORMED.search(child.content)]


def _span_words(children: list[Token], open_index: int) -> str:
    depth, words = 0, []
    for child in children[open_index + 1:]:
        if child.type == "span_open":
            depth += 1
        elif child.type == "span_close":
            if depth == 0:
                break
            depth -= 1
        elif child.type in ("text", "code_inline"):
            words.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            words.append(" ")
    return " ".join("".join(words).split())


def syntax_error(expression: str) -> str:
    """Why ``expression`` is not a Python expression, or "" when it is."""
    if not expression:
        return "the expression is empty"
    try:
        ast.parse(expression, mode="eval")
    except SyntaxError as error:
        return f"SyntaxError: {error.msg}"
    return ""


def judge_claims(path: str, claims: Iterable[Claim], outcomes: Sequence[ClaimOutcome]) -> list[ClaimResult]:
    """Turn the kernel's outcomes (one per claim, in order) into verdicts. A claim the
    kernel did not report (the page ran without it) could not be checked."""
    results = []
    for claim in claims:
        problem = syntax_error(claim.expression)
        outcome = outcomes[claim.index] if claim.index < len(outcomes) else None
        if problem:
            results.append(ClaimResult(path, claim, False, error=problem))
        elif outcome is None:
            results.append(ClaimResult(path, claim, False, error="the page's kernel did not evaluate it"))
        elif outcome.error:
            results.append(ClaimResult(path, claim, False, _pairs(outcome.values), outcome.error))
        else:
            results.append(ClaimResult(path, claim, bool(outcome.holds), _pairs(outcome.values)))
    return results


def _pairs(values: list) -> tuple[tuple[str, str], ...]:
    return tuple((str(name), str(value)) for name, value in values)
