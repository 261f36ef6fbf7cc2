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

from faircode import _exact, _intervals, _monte_carlo, _unconditional
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

METHODS = ("auto", "exact", "monte_carlo", "boschloo")
"""Methods of a p-value: "boschloo" is Boschloo's exact unconditional test (0/1 data)."""
RESAMPLING_METHODS = ("auto", "exact", "monte_carlo")
"""Methods of a bootstrap interval and of the stratified test."""

CI_METHODS = ("auto", "exact_unconditional", "agresti_caffo", "newcombe", "miettinen_nurminen", "bootstrap",
              "bootstrap_exact")
"""Intervals of a gap: "auto" is :data:`DEFAULT_CI_METHOD` for 0/1 groups of up to
:data:`EXACT_TABLES` tables, :data:`LARGE_GROUPS_CI_METHOD` for larger 0/1 groups, and
"bootstrap" (the percentile bootstrap) for other data; "bootstrap_exact" is the percentile
bootstrap's limit (0/1 data only)."""
DEFAULT_CI_METHOD = "exact_unconditional"
"""The interval of a gap between two rates where it is affordable: the exact unconditional
interval (Chan and Zhang 1999), whose coverage is at least the nominal level at every pair of
rates (bench/coverage.py enumerates it)."""
LARGE_GROUPS_CI_METHOD = "agresti_caffo"
"""The interval of a gap between two larger groups: Agresti and Caffo's adjusted Wald interval.
Its exact coverage on the cells of bench/coverage.py's grid beyond the bound (1,134 cells, sizes
up to 500, rates 0.01 to 0.99): median 95.4%, lowest 93.8% (500 rows against 25, rates 0.01 and
0.75), under 94% in 4 cells, all with a group of at most 25 rows."""
EXACT_TABLES = _unconditional.EXACT_TABLES
SCORE_METHODS = ("exact_unconditional", "agresti_caffo", "newcombe", "miettinen_nurminen")

NOTE_NO_DETECTABLE_GAP = (
    "no gap centred on the pooled rate {rate:.3g} keeps both rates in [0, 1] and is detected with "
    "{power:.0%} power"
)
MDG_POWER = 0.80

SCORE_NEEDS_BINARY = (
    "ci_method={ci_method!r} is an interval of two proportions and needs 0/1 data, but {name} holds "
    "other values; use ci_method='bootstrap' (or 'auto') for other data."
)

EXACT_NEEDS_BINARY = (
    "method={method!r} needs 0/1 data, but {name} holds other values; "
    "use method='monte_carlo' (or 'auto') for other data."
)

TOO_MANY_TABLES = _unconditional.TOO_MANY_TABLES

COUNT_OUT_OF_RANGE = "ones_{group} must be a whole number between 0 and n_{group} = {n}. Got {ones!r} instead."

RandomState = None | int | np.random.Generator | np.random.RandomState


@dataclass(frozen=True)
class SignificanceReport:
    """A gap between groups a and b with its interval, its p-value and its sample sizes.

    ``n_permutations`` is None when the p-value is exact, else the number of Monte Carlo
    relabellings behind it (pass it to :func:`format_p`). ``ci_method`` names the interval
    held in ``ci_low`` and ``ci_high``; ``mdg_rate`` is the rate the minimum detectable gap
    is planned at (the groups' pooled rate); ``note`` says why a value is missing;
    ``equivalence`` holds the equivalence test when a margin was given.
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
    ci_method: str = ""
    mdg_rate: float = math.nan
    note: str = ""
    equivalence: object | None = None

    def to_dict(self) -> dict:
        """The report as a plain dict of its fields (the equivalence test as a nested dict)."""
        return asdict(self)


@dataclass(frozen=True)
class Settings:
    """Resampling settings, validated once: interval levels, relabellings, alpha, methods."""

    levels: tuple[float, float]
    n_permutations: int
    alpha: float
    method: str
    ci_method: str
    confidence: float = 0.95

    @classmethod
    def checked(cls, n_resamples, n_permutations, confidence, alpha, method, ci_method):
        """Validate every setting, raising on the first bad one."""
        check_positive_int(n_resamples, "n_resamples")
        n_permutations = check_positive_int(n_permutations, "n_permutations")
        confidence = check_open_unit(confidence, "confidence")
        alpha = check_open_unit(alpha, "alpha")
        check_one_of(method, "method", METHODS)
        check_one_of(ci_method, "ci_method", CI_METHODS)
        return cls(interval_levels(confidence), n_permutations, alpha, method, ci_method, confidence)

    def binary_ci_method(self, n_a: int, n_b: int) -> str:
        """The interval of two 0/1 groups of these sizes: "auto" resolved by :func:`default_gap_method`."""
        return default_gap_method(n_a, n_b) if self.ci_method == "auto" else self.ci_method


def default_gap_method(n_a: int, n_b: int) -> str:
    """The default interval of the gap of two 0/1 groups of ``n_a`` and ``n_b`` rows."""
    return DEFAULT_CI_METHOD if _unconditional.exact_sized(n_a, n_b) else LARGE_GROUPS_CI_METHOD


def make_report(gap, interval, p, n_a, n_b, settings: Settings, exact_p: bool, ci_method: str,
                pooled_rate: float = 0.5) -> SignificanceReport:
    """Assemble a SignificanceReport; ``exact_p`` says whether the p-value is exact.

    The minimum detectable gap is planned at ``pooled_rate`` (0.5, the worst case, for data
    that are not rates).
    """
    mdg, note = planned_gap(n_a, n_b, pooled_rate, settings.alpha)
    return SignificanceReport(
        gap=float(gap),
        ci_low=float(interval[0]),
        ci_high=float(interval[1]),
        p_value=float(p),
        significant=bool(p < settings.alpha),
        n_a=int(n_a),
        n_b=int(n_b),
        small_sample_warning=min(n_a, n_b) < SMALL_SAMPLE_SIZE,
        minimum_detectable_gap=mdg,
        n_permutations=None if exact_p else settings.n_permutations,
        ci_method=ci_method,
        mdg_rate=float(pooled_rate),
        note=note,
    )


def score_interval(method: str, ones_a, n_a, ones_b, n_b, confidence: float) -> tuple[float, float]:
    """One of the intervals of two counts (:mod:`faircode._intervals`, :mod:`faircode._unconditional`)."""
    if method == "exact_unconditional":
        return _unconditional.difference_interval(ones_a, n_a, ones_b, n_b, confidence)
    if method == "agresti_caffo":
        low, high = _intervals.agresti_caffo(ones_a, n_a, ones_b, n_b, confidence)
    elif method == "newcombe":
        low, high = _intervals.newcombe(ones_a, n_a, ones_b, n_b, confidence)
    else:
        low, high = _intervals.miettinen_nurminen(ones_a, n_a, ones_b, n_b, confidence)
    return float(low), float(high)


def planned_gap(n_a: int, n_b: int, rate: float, alpha: float) -> tuple[float, str]:
    """The minimum detectable gap at ``rate`` (80% power) and a note when there is none."""
    if not 0 < rate < 1:
        return math.nan, NOTE_NO_DETECTABLE_GAP.format(rate=rate, power=MDG_POWER)
    gap = detectable_gap(n_a, n_b, alpha, rate)
    note = NOTE_NO_DETECTABLE_GAP.format(rate=rate, power=MDG_POWER) if math.isnan(gap) else ""
    return gap, note


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
    ci_method = settings.binary_ci_method(n_a, n_b)
    if ci_method == "bootstrap_exact":
        interval = _exact.bootstrap_quantiles(ones_a, n_a, ones_b, n_b, settings.levels)
    elif ci_method == "bootstrap":
        if gaps is None:
            gaps = _monte_carlo.binomial_gaps(rng, ones_a, n_a, ones_b, n_b, n_resamples)
        interval = percentile_interval(gaps, settings.levels)
    else:
        interval = score_interval(ci_method, ones_a, n_a, ones_b, n_b, settings.confidence)
    if settings.method == "monte_carlo":
        p = binary_monte_carlo_p(ones_a, n_a, ones_b, n_b, settings.n_permutations, rng)
    elif settings.method == "boschloo":
        p = _unconditional.boschloo_p(ones_a, n_a, ones_b, n_b)
    elif exact_p is not None:
        p = exact_p
    else:
        p = float(_exact.permutation_p(ones_a, n_a, ones_b, n_b))
    gap = ones_a / n_a - ones_b / n_b
    pooled = (ones_a + ones_b) / (n_a + n_b)
    return make_report(gap, interval, p, n_a, n_b, settings, settings.method != "monte_carlo", ci_method, pooled)


@lru_cache(maxsize=8192)
def detectable_gap(n_a: int, n_b: int, alpha: float, rate: float = 0.5) -> float:
    """:func:`faircode.power.minimum_detectable_gap` at ``rate`` and 80% power, remembered.

    Exact for groups under 200 rows (``method="auto"``); a pure function of its
    arguments, asked for by every record and report of a table.
    """
    return minimum_detectable_gap(n_a, n_b, rate=rate, alpha=alpha, power=MDG_POWER)


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


def resolve_ci_method(ci_method: str, *groups: np.ndarray) -> str:
    """The interval to compute: "auto" is :func:`default_gap_method` for two 0/1 groups, else "bootstrap"."""
    check_one_of(ci_method, "ci_method", CI_METHODS)
    binary = all(is_binary(g) for g in groups)
    if ci_method == "auto":
        return default_gap_method(groups[0].size, groups[1].size) if binary else "bootstrap"
    if ci_method in SCORE_METHODS and not binary:
        name = "a" if not is_binary(groups[0]) else "b"
        raise InvalidInputError(SCORE_NEEDS_BINARY.format(ci_method=ci_method, name=name))
    if ci_method == "bootstrap_exact" and not binary:
        require_binary(*groups)
    return ci_method


def resolve_method(method: str, *groups: np.ndarray) -> str:
    """The method to run: "auto" becomes "exact" for 0/1 groups, else "monte_carlo"."""
    check_one_of(method, "method", METHODS)
    binary = all(is_binary(g) for g in groups)
    if method in ("exact", "boschloo") and not binary:
        require_binary(*groups, method=method)
    if method == "auto":
        return "exact" if binary else "monte_carlo"
    return method


def require_binary(*groups: np.ndarray, method: str = "exact") -> None:
    """Raise naming the first group that is not 0/1."""
    names = ["a", "b"] if len(groups) == 2 else [f"group {i}" for i in range(len(groups))]
    for name, values in zip(names, groups):
        if not is_binary(values):
            raise InvalidInputError(EXACT_NEEDS_BINARY.format(name=name, method=method))


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


def monte_carlo_p(hits: int, n_permutations: int) -> float:
    """(hits + 1) / (n + 1): the Monte Carlo p-value that is never 0 (Phipson and Smyth 2010).

    The observed labelling counts as one of the relabellings, so the p-value is valid (a
    test at level alpha rejects a true null at most alpha of the time) and its smallest
    value is 1 / (n + 1).
    """
    return (int(hits) + 1) / (n_permutations + 1)


def binary_monte_carlo_p(ones_a, n_a, ones_b, n_b, n_permutations, rng) -> float:
    """Monte Carlo p from hypergeometric relabellings whose |gap| reaches the observed one."""
    total = ones_a + ones_b
    observed = abs(_exact.gap_numerator(ones_a, n_a, total, n_a + n_b))
    drawn = _monte_carlo.hypergeometric_numerators(rng, n_a, n_b, total, n_permutations)
    return monte_carlo_p(np.count_nonzero(drawn >= observed), n_permutations)


def shuffled_monte_carlo_p(a, b, n_permutations, rng) -> float:
    """Monte Carlo p from shuffled relabellings of real-valued groups whose |gap| reaches the observed one.

    The values are centred first (on the pooled first value), so the gaps' rounding error
    scales with the data's spread, not their magnitude.
    """
    a, b = centred([a, b])
    observed = abs(a.mean() - b.mean())
    gaps = _monte_carlo.shuffled_gaps(rng, a, b, n_permutations)
    return monte_carlo_p(np.count_nonzero(np.abs(gaps) >= observed - float_tolerance([a, b])), n_permutations)


def centred(groups: Sequence[np.ndarray]) -> list[np.ndarray]:
    """The groups shifted by one common value (a gap in means does not change)."""
    origin = float(groups[0][0])
    return [g - origin for g in groups]


def float_tolerance(groups: Sequence[np.ndarray]) -> float:
    """Rounding error allowed when comparing gaps of real-valued data (ties must count).

    Relative to the pooled data's spread (largest minus smallest value), never to their
    magnitude: a relabelling whose |gap| falls short of the observed one by less than 1e-9
    of the spread is a tie. (Values stored as floats carry a rounding error relative to
    their magnitude, up to about 1e-16 of it; data whose spread is below 1e-7 of their
    magnitude are best shifted before the test.)
    """
    spread = max(float(np.max(g)) for g in groups) - min(float(np.min(g)) for g in groups)
    return 1e-9 * max(spread, 1e-300)
