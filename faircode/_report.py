"""The significance record and the pieces the two-group and stratified tests share.

Validation of resampling settings, counting 0/1 groups, choosing the method, and the
Monte Carlo p-values; the public functions live in :mod:`faircode.significance`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np

from faircode import _exact, _monte_carlo
from faircode._checks import (
    as_numeric_array,
    check_one_of,
    check_open_unit,
    check_positive_int,
    is_binary,
)
from faircode.exceptions import InvalidInputError
from faircode.power import minimum_detectable_gap

SMALL_SAMPLE_SIZE = 30
"""A group with fewer rows than this raises ``small_sample_warning``."""

METHODS = ("auto", "exact", "monte_carlo")

EXACT_NEEDS_BINARY = (
    "method='exact' needs 0/1 data, but {name} holds other values; "
    "use method='monte_carlo' (or 'auto') for other data."
)

COUNT_OUT_OF_RANGE = "ones_{group} must be a whole number between 0 and n_{group} = {n}. Got {ones!r} instead."

RandomState = None | int | np.random.Generator


@dataclass(frozen=True)
class SignificanceReport:
    """A gap between groups a and b with its interval, its p-value and its sample sizes.

    ``n_permutations`` is None when the p-value is exact, else the number of Monte Carlo
    relabellings behind it (pass it to :func:`format_p`).
    """

    gap: float
    ci_low: float
    ci_high: float
    p_value: float
    significant: bool
    n_a: int
    n_b: int
    small_sample_warning: bool
    minimum_detectable_gap: float
    n_permutations: int | None = None

    def to_dict(self) -> dict:
        """The report as a plain dict of its fields."""
        return asdict(self)


@dataclass(frozen=True)
class Settings:
    """Resampling settings, validated once: interval levels, relabellings, alpha, methods."""

    levels: tuple[float, float]
    n_permutations: int
    alpha: float
    method: str
    ci_method: str

    @classmethod
    def checked(cls, n_resamples, n_permutations, confidence, alpha, method, ci_method):
        """Validate every setting, raising on the first bad one."""
        check_positive_int(n_resamples, "n_resamples")
        n_permutations = check_positive_int(n_permutations, "n_permutations")
        levels = interval_levels(check_open_unit(confidence, "confidence"))
        alpha = check_open_unit(alpha, "alpha")
        check_one_of(method, "method", METHODS)
        check_one_of(ci_method, "ci_method", METHODS)
        return cls(levels, n_permutations, alpha, method, ci_method)


def make_report(gap, interval, p, n_a, n_b, settings: Settings, exact_p: bool) -> SignificanceReport:
    """Assemble a SignificanceReport; ``exact_p`` says whether the p-value is exact."""
    return SignificanceReport(
        gap=float(gap),
        ci_low=float(interval[0]),
        ci_high=float(interval[1]),
        p_value=float(p),
        significant=bool(p < settings.alpha),
        n_a=int(n_a),
        n_b=int(n_b),
        small_sample_warning=min(n_a, n_b) < SMALL_SAMPLE_SIZE,
        minimum_detectable_gap=minimum_detectable_gap(n_a, n_b, alpha=settings.alpha),
        n_permutations=None if exact_p else settings.n_permutations,
    )


def two_groups(a, b) -> tuple[np.ndarray, np.ndarray]:
    """Validate two groups of numbers, naming them a and b."""
    return as_numeric_array(a, "a"), as_numeric_array(b, "b")


def counts(a: np.ndarray, b: np.ndarray) -> tuple[int, int, int, int]:
    """(ones_a, n_a, ones_b, n_b) of two validated 0/1 groups."""
    return int(a.sum()), a.size, int(b.sum()), b.size


def checked_counts(ones_a, n_a, ones_b, n_b) -> tuple[int, int, int, int]:
    """Validate counts of ones and rows of two 0/1 groups."""
    for ones, n, group in ((ones_a, n_a, "a"), (ones_b, n_b, "b")):
        check_positive_int(n, f"n_{group}")
        if isinstance(ones, bool) or not float(ones).is_integer() or not 0 <= ones <= n:
            raise InvalidInputError(COUNT_OUT_OF_RANGE.format(group=group, n=n, ones=ones))
    return int(ones_a), int(n_a), int(ones_b), int(n_b)


def resolve_method(method: str, *groups: np.ndarray) -> str:
    """The method to run: "auto" becomes "exact" for 0/1 groups, else "monte_carlo"."""
    check_one_of(method, "method", METHODS)
    binary = all(is_binary(g) for g in groups)
    if method == "exact" and not binary:
        require_binary(*groups)
    if method == "auto":
        return "exact" if binary else "monte_carlo"
    return method


def require_binary(*groups: np.ndarray) -> None:
    """Raise naming the first group that is not 0/1."""
    names = ["a", "b"] if len(groups) == 2 else [f"group {i}" for i in range(len(groups))]
    for name, values in zip(names, groups):
        if not is_binary(values):
            raise InvalidInputError(EXACT_NEEDS_BINARY.format(name=name))


def interval_levels(confidence: float) -> tuple[float, float]:
    """Quantile levels of a two-sided percentile interval."""
    return ((1 - confidence) / 2, (1 + confidence) / 2)


def as_pair(values) -> tuple[float, float]:
    """Two quantiles as a (low, high) tuple of floats."""
    return float(values[0]), float(values[1])


def binary_monte_carlo_p(ones_a, n_a, ones_b, n_b, n_permutations, rng) -> float:
    """Share of hypergeometric relabellings whose |gap| reaches the observed one."""
    total = ones_a + ones_b
    observed = abs(_exact.gap_numerator(ones_a, n_a, total, n_a + n_b))
    drawn = _monte_carlo.hypergeometric_numerators(rng, n_a, n_b, total, n_permutations)
    return float(np.mean(drawn >= observed))


def shuffled_monte_carlo_p(a, b, n_permutations, rng) -> float:
    """Share of shuffled relabellings of real-valued groups whose |gap| reaches the observed one."""
    observed = abs(a.mean() - b.mean())
    gaps = _monte_carlo.shuffled_gaps(rng, a, b, n_permutations)
    return float(np.mean(np.abs(gaps) >= observed - float_tolerance([a, b])))


def float_tolerance(groups: Sequence[np.ndarray]) -> float:
    """Rounding error allowed when comparing gaps of real-valued data (ties must count)."""
    scale = max(float(np.max(np.abs(g))) for g in groups)
    return 1e-12 * max(scale, 1e-300)
