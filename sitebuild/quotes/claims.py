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

from typing import Iterable, Protocol, Sequence

from msgspec import Struct

from sitebuild.source.claims import Claim, syntax_error


class ClaimOutcome(Protocol):
    """What the kernel reported for one claim (see ``sitebuild.execution.execute.ClaimValue``)."""

    holds: bool | None
    values: list
    error: str


class ClaimResult(Struct, frozen=True):
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
