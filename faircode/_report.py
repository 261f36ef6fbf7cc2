"""The significance record and the pieces the two-group and stratified tests share.

Validation of resampling settings, counting 0/1 groups, choosing the method, the report
on two 0/1 groups from their counts, the percentile rule of every interval, and the Monte
Carlo p-values; the public functions live in :mod:`faircode.significance`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from functools import lru_cache

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
        minimum_detectable_gap=detectable_gap(n_a, n_b, settings.alpha),
        n_permutations=None if exact_p else settings.n_permutations,
    )


def binary_report(
    counts: tuple[int, int, int, int],
    n_resamples: int,
    settings: Settings,
    rng: np.random.Generator,
    exact_p: float | None = None,
    gaps: np.ndarray | None = None,
) -> SignificanceReport:
    """The report on two 0/1 groups from validated counts (ones_a, n_a, ones_b, n_b).

    The interval's binomial draws come first, then, if Monte Carlo, the relabellings, all
    from ``rng``. Work the caller has already done is passed in: ``exact_p``, the exact
    p-value (used only when the p-value is exact), and ``gaps``, the interval's resampled
    gaps, drawn from ``rng`` just before (``rng`` then continues after them).
    """
    ones_a, n_a, ones_b, n_b = counts
    if settings.ci_method == "exact":
        interval = _exact.bootstrap_quantiles(ones_a, n_a, ones_b, n_b, settings.levels)
    else:
        if gaps is None:
            gaps = _monte_carlo.binomial_gaps(rng, ones_a, n_a, ones_b, n_b, n_resamples)
        interval = percentile_interval(gaps, settings.levels)
    if settings.method == "monte_carlo":
        p = binary_monte_carlo_p(ones_a, n_a, ones_b, n_b, settings.n_permutations, rng)
    elif exact_p is not None:
        p = exact_p
    else:
        p = float(_exact.permutation_p(ones_a, n_a, ones_b, n_b))
    gap = ones_a / n_a - ones_b / n_b
    return make_report(gap, interval, p, n_a, n_b, settings, settings.method != "monte_carlo")


@lru_cache(maxsize=4096)
def detectable_gap(n_a: int, n_b: int, alpha: float) -> float:
    """:func:`faircode.power.minimum_detectable_gap` at the default rate and power, remembered.

    A pure function of the group sizes, asked for by every record and report of a table.
    """
    return minimum_detectable_gap(n_a, n_b, alpha=alpha)


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


def percentile_interval(values: np.ndarray, levels: Sequence[float]) -> tuple[float, float]:
    """``np.quantile(values, levels)`` (numpy's linear rule) for two levels, as a pair of floats.

    The same arithmetic as numpy, bit for bit: the virtual index ``(n - 1) q``, the order
    statistics either side of it found by one partition, and numpy's two-sided linear
    interpolation. It skips np.quantile's general-purpose set-up, which costs more than
    the partition itself on a few thousand resampled gaps. Data holding NaN are handed to
    np.quantile.
    """
    size = values.size
    spots = [_neighbours((size - 1) * level, size) for level in levels]
    ordered = np.partition(values, sorted({size - 1, *(i for spot in spots for i in spot[:2])}))
    if math.isnan(ordered[-1]):
        return as_pair(np.quantile(values, levels))
    low, high = (_lerp(ordered[below], ordered[above], weight) for below, above, weight in spots)
    return float(low), float(high)


def _neighbours(virtual: float, size: int) -> tuple[int, int, float]:
    """Indexes of the order statistics around a virtual index, and the weight of the upper one."""
    if virtual >= size - 1:
        return size - 1, size - 1, virtual + 1  # numpy marks these with index -1
    below = math.floor(virtual)
    return below, below + 1, virtual - below


def _lerp(a, b, weight: float):
    """numpy's linear interpolation: from a when the weight is under 1/2, else back from b."""
    difference = b - a
    if weight >= 0.5:
        return b - difference * (1 - weight)
    return a + difference * weight


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
