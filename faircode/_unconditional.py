"""Exact unconditional tests and intervals for two rates, every table of a pair of group sizes at once.

Two groups of ``n_a`` and ``n_b`` rows have ``(n_a + 1) (n_b + 1)`` possible tables of counts
of ones. Under rates ``(p_a, p_b)`` a table has the probability of two independent binomials.
A null hypothesis fixes one parameter, the gap ``delta = p_a - p_b`` or the ratio
``phi = p_a / p_b``; the other, the nuisance rate ``p_b``, is unknown. An exact unconditional
p-value is the largest tail probability over the nuisance (Barnard's idea), here:

* the tail is that of the score statistic at the null's parameter (Miettinen-Nurminen's for
  the gap, the ratio's score for the ratio; a constant factor does not change the order);
* the nuisance is maximised over a grid of spacing :data:`NUISANCE_STEP`, restricted to a
  ``1 - GAMMA`` confidence set of ``p_b`` (the intersection of the Clopper-Pearson intervals
  of ``p_b`` and of ``p_a`` mapped through the null, each at ``1 - GAMMA / 2``), and
  :data:`GAMMA` is added to the p-value (Berger and Boos 1994), so the test stays valid;
* both one-sided p-values come from one pass: the tables are binned by their statistic
  against the statistics of the tables asked about, the binned masses of every nuisance
  value are summed once (``np.bincount``), and cumulative sums give every tail.

The interval of a table is the set of parameters neither one-sided test rejects at
``(1 - confidence) / 2`` (Chan and Zhang 1999; Agresti and Min 2001), found on a grid: a
coarse pass over every table brackets each end, a fine pass (spacing :data:`DIFFERENCE_STEP`,
or :data:`LOG_RATIO_STEP` of log ratio) decides the tables whose end lies in each bracket,
and each end is put at the last rejected fine point, so the interval holds every grid point
that is not rejected and the points between. Its coverage is at least the nominal level up to
the grids (bench/coverage.py enumerates it). Every result is remembered per group sizes.

Boschloo's test (:func:`boschloo_p_values`) is the unconditional test whose statistic is the
conditional test's p-value, maximised over the common rate under the null (no restriction).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy import sparse
from scipy.special import gammaln, xlog1py, xlogy
from scipy.stats import beta

from faircode import _exact, _intervals

GAMMA = 1e-4
"""Berger and Boos's gamma: the nuisance's confidence set misses with at most this chance,
and this much is added to every p-value."""
NUISANCE_STEP = 0.02
"""Spacing of the nuisance grid of p_b for the intervals (many parameters a table)."""
TEST_NUISANCE_STEP = 0.001
"""Spacing of the nuisance grid of a test at one parameter (TOST's margins): one pass, so it can be fine."""
DIFFERENCE_STEP = 0.01
"""Spacing of the fine grid of gaps; an interval's end is at most this much wider than the exact end."""
LOG_RATIO_STEP = 0.04
"""Spacing of the fine grid of log ratios."""
LOG_RATIO_BOUND = 5.0
"""Ratios are searched in [e^-5, e^5] (0.0067 to 148); an end beyond is reported as 0 or infinity
(a ratio interval reaching past 148 on groups this small says no more than one reaching infinity)."""
REFINE = 5
"""Fine points per coarse step."""
BOSCHLOO_POINTS = 201
"""Points of the common-rate grid over which Boschloo's p-value is maximised (both ends included)."""
_TIE_DIGITS = 9  # statistics equal to 9 decimals are ties


@dataclass(frozen=True)
class _Family:
    """A null hypothesis family: its fine grid of parameters and how rates follow from (parameter, p_b)."""

    name: str
    grid: np.ndarray  # the parameters, increasing; the first and last are the bounds of the search

    def rate_a(self, parameter: float, rate_b: np.ndarray) -> np.ndarray:
        """p_a under the null ``parameter`` at nuisance rates ``rate_b``."""
        if self.name == "difference":
            return np.clip(rate_b + parameter, 0.0, 1.0)
        return np.clip(math.exp(parameter) * rate_b, 0.0, 1.0)

    def nuisance_range(self, parameter: float) -> tuple[float, float]:
        """The p_b for which both rates lie in [0, 1]."""
        if self.name == "difference":
            return max(0.0, -parameter), min(1.0, 1.0 - parameter)
        return 0.0, min(1.0, math.exp(-parameter))

    def b_from_a(self, parameter: float, rate_a: np.ndarray) -> np.ndarray:
        """p_b that the null maps p_a to."""
        if self.name == "difference":
            return rate_a - parameter
        return rate_a * math.exp(-parameter)

    def statistic(self, tables: _Tables, parameter: float) -> np.ndarray:
        """The score statistic of every table at the null ``parameter`` (large: p_a above the null)."""
        if self.name == "difference":
            return _intervals.difference_score(tables.ones_a, tables.n_a, tables.ones_b, tables.n_b, parameter,
                                               correction=False)
        return _intervals._ratio_statistic(tables.ones_a, tables.n_a, tables.ones_b, tables.n_b,
                                          math.exp(parameter), correction=False)


@dataclass(frozen=True)
class _Tables:
    """Every table of two group sizes, flattened in the order ``ones_a * (n_b + 1) + ones_b``."""

    n_a: int
    n_b: int
    ones_a: np.ndarray
    ones_b: np.ndarray
    low_a: np.ndarray  # Clopper-Pearson bounds at 1 - GAMMA / 2 of each group's rate
    high_a: np.ndarray
    low_b: np.ndarray
    high_b: np.ndarray


@lru_cache(maxsize=256)
def _tables(n_a: int, n_b: int) -> _Tables:
    ones_a, ones_b = (v.ravel() for v in np.meshgrid(np.arange(n_a + 1), np.arange(n_b + 1), indexing="ij"))
    low_a, high_a = _clopper_pearson(ones_a, n_a, GAMMA / 2)
    low_b, high_b = _clopper_pearson(ones_b, n_b, GAMMA / 2)
    return _Tables(n_a, n_b, ones_a.astype(float), ones_b.astype(float), low_a, high_a, low_b, high_b)


def _clopper_pearson(ones: np.ndarray, n: int, miss: float) -> tuple[np.ndarray, np.ndarray]:
    """Clopper-Pearson interval of ones / n that misses with chance at most ``miss``."""
    with np.errstate(invalid="ignore"):
        low = np.where(ones == 0, 0.0, beta.ppf(miss / 2, ones, n - ones + 1))
        high = np.where(ones == n, 1.0, beta.ppf(1 - miss / 2, ones + 1, n - ones))
    return np.nan_to_num(low, nan=0.0), np.nan_to_num(high, nan=1.0)


def _log_mass(n: int, rates: np.ndarray) -> np.ndarray:
    """Binomial(n, rate) pmf for each rate (rows) at every count (columns)."""
    k = np.arange(n + 1, dtype=float)
    log_choose = gammaln(n + 1) - gammaln(k + 1) - gammaln(n - k + 1)
    r = rates[:, None]
    return np.exp(log_choose[None, :] + xlogy(k[None, :], r) + xlog1py(n - k[None, :], -r))


def one_sided_tails(tables: _Tables, family: _Family, parameter: float, asked: np.ndarray,
                    gamma: float = GAMMA, step: float = NUISANCE_STEP) -> tuple[np.ndarray, np.ndarray]:
    """The exact unconditional one-sided p-values of the ``asked`` tables at the null ``parameter``.

    Returns ``(p_upper, p_lower)``: the largest probability, over the nuisance grid within
    each table's confidence set, of a statistic at least (upper) or at most (lower) the
    table's own, plus ``gamma``; each at most 1.
    """
    z = np.round(family.statistic(tables, parameter), _TIE_DIGITS)
    rate_b = _nuisance_grid(family, parameter, step)
    if gamma > 0:
        low, high = _confidence_set(tables, family, parameter, asked)
        inside = (rate_b[:, None] >= low[None, :] - step) & (rate_b[:, None] <= high[None, :] + step)
        keep = inside.any(axis=1)
        if not keep.any():
            return np.full(asked.size, gamma), np.full(asked.size, gamma)
        rate_b, inside = rate_b[keep], inside[keep]
    else:
        inside = np.ones((rate_b.size, asked.size), dtype=bool)
    mass = (_log_mass(tables.n_a, family.rate_a(parameter, rate_b))[:, :, None]
            * _log_mass(tables.n_b, rate_b)[:, None, :]).reshape(rate_b.size, -1)
    upper, lower = _binned_tails(z, z[asked], mass)
    p_upper = np.where(inside, upper, 0.0).max(axis=0) + gamma
    p_lower = np.where(inside, lower, 0.0).max(axis=0) + gamma
    return np.minimum(p_upper, 1.0), np.minimum(p_lower, 1.0)


def _binned_tails(z: np.ndarray, asked_z: np.ndarray, mass: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """P(Z >= z_x) and P(Z <= z_x) for every asked statistic z_x and every row of ``mass``.

    The statistics asked about, sorted and unique (the cuts), split the line into bins: bin
    2 k holds the tables strictly between cuts k - 1 and k, bin 2 k + 1 those tied with
    cut k. One sparse product sums every nuisance value's mass per bin, and cumulative sums
    over the bins give every tail: P(Z >= cut j) is the mass of bins 2 j + 1 and above,
    P(Z <= cut j) that of bins 2 j + 1 and below.
    """
    cuts = np.unique(asked_z)
    below = np.searchsorted(cuts, z, side="left")
    tied = (below < cuts.size) & (cuts[np.minimum(below, cuts.size - 1)] == z)
    width = 2 * cuts.size + 1
    bins = sparse.csr_matrix((np.ones(z.size), (np.arange(z.size), 2 * below + tied)), shape=(z.size, width))
    binned = np.asarray((bins.T @ mass.T).T)  # nuisance values x bins
    position = 2 * np.searchsorted(cuts, asked_z) + 1
    upper = np.cumsum(binned[:, ::-1], axis=1)[:, ::-1]
    lower = np.cumsum(binned, axis=1)
    return upper[:, position], lower[:, position]


def _nuisance_grid(family: _Family, parameter: float, step: float = NUISANCE_STEP) -> np.ndarray:
    """Nuisance rates p_b spaced so that neither p_b nor p_a moves by more than ``step``."""
    low, high = family.nuisance_range(parameter)
    ends_a = family.rate_a(parameter, np.array([low, high]))
    span = max(high - low, float(abs(ends_a[1] - ends_a[0])))
    points = max(2, int(math.ceil(span / step)) + 1)
    return np.linspace(low, high, points)


def _confidence_set(tables: _Tables, family: _Family, parameter: float, asked: np.ndarray):
    """Per asked table, the p_b allowed by both groups' Clopper-Pearson intervals under the null."""
    from_a = np.sort(np.stack([family.b_from_a(parameter, tables.low_a[asked]),
                               family.b_from_a(parameter, tables.high_a[asked])]), axis=0)
    return np.maximum(tables.low_b[asked], from_a[0]), np.minimum(tables.high_b[asked], from_a[1])


def _accepted(tables: _Tables, family: _Family, index: int, asked: np.ndarray, level: float) -> np.ndarray:
    """Whether neither one-sided test rejects, at ``level`` each, the grid's parameter ``index``."""
    p_upper, p_lower = one_sided_tails(tables, family, float(family.grid[index]), asked)
    return (p_upper > level) & (p_lower > level)


def _interval_indexes(tables: _Tables, family: _Family, confidence: float) -> tuple[np.ndarray, np.ndarray]:
    """Per table, the grid indexes of the interval's ends (each the last rejected fine point)."""
    level = (1 - confidence) / 2
    last = family.grid.size - 1
    coarse = np.arange(0, last + 1, REFINE)
    if coarse[-1] != last:
        coarse = np.append(coarse, last)
    every = np.arange(tables.ones_a.size)
    interior = coarse[1:-1]
    accepted = np.stack([_accepted(tables, family, int(i), every, level) for i in interior])
    first = np.where(accepted.any(axis=0), accepted.argmax(axis=0), -1)
    final = np.where(accepted.any(axis=0), interior.size - 1 - accepted[::-1].argmax(axis=0), -1)
    # the bracket of the low end: fine points strictly between the coarse point before the first accepted one
    # and that point; of the high end, between the last accepted one and the next
    low_end = np.where(first >= 0, interior[np.maximum(first, 0)], last)  # first accepted (fine index)
    high_end = np.where(final >= 0, interior[np.maximum(final, 0)], 0)
    none = first < 0
    low_end, high_end = _refine(tables, family, level, low_end, high_end, coarse, none)
    low_index = np.where(none, 0, np.maximum(low_end - 1, 0))
    high_index = np.where(none, last, np.minimum(high_end + 1, last))
    return low_index, high_index


def _refine(tables, family, level, low_end, high_end, coarse, none) -> tuple[np.ndarray, np.ndarray]:
    """Move each end to the furthest accepted fine point of the coarse bracket beyond it.

    The fine points are scanned upwards, each evaluated once for the tables whose low end
    may still move down to it (the first accepted point is the furthest, and the table is
    then done) and those whose high end may move up to it (every accepted point replaces
    the last).
    """
    last = family.grid.size - 1
    below = coarse[np.maximum(np.searchsorted(coarse, low_end) - 1, 0)]
    above = coarse[np.minimum(np.searchsorted(coarse, high_end) + 1, coarse.size - 1)]
    low_result, high_result = low_end.copy(), high_end.copy()
    for point in range(1, last):
        if point in coarse:
            continue
        asked_low = np.flatnonzero(~none & (below < point) & (point < low_end) & (low_result == low_end))
        asked_high = np.flatnonzero(~none & (high_end < point) & (point < above))
        asked = np.concatenate([asked_low, asked_high])
        if asked.size == 0:
            continue
        hit = _accepted(tables, family, point, asked, level)
        low_result[asked_low[hit[:asked_low.size]]] = point
        high_result[asked_high[hit[asked_low.size:]]] = point
    return low_result, high_result


def _difference_family() -> _Family:
    points = int(round(2 / DIFFERENCE_STEP))
    return _Family("difference", np.round(np.linspace(-1.0, 1.0, points + 1), 12))


def _ratio_family() -> _Family:
    points = int(round(2 * LOG_RATIO_BOUND / LOG_RATIO_STEP))
    return _Family("ratio", np.linspace(-LOG_RATIO_BOUND, LOG_RATIO_BOUND, points + 1))


@lru_cache(maxsize=512)
def difference_intervals(n_a: int, n_b: int, confidence: float) -> tuple[np.ndarray, np.ndarray]:
    """The exact unconditional interval of p_a - p_b of every table, as ``(low, high)`` of shape (n_a + 1, n_b + 1).

    Entry ``[ones_a, ones_b]`` is the interval of that table. Remembered per arguments.
    """
    family = _difference_family()
    low, high = _interval_indexes(_tables(n_a, n_b), family, confidence)
    shape = (n_a + 1, n_b + 1)
    return _frozen(family.grid[low].reshape(shape)), _frozen(family.grid[high].reshape(shape))


@lru_cache(maxsize=512)
def ratio_intervals(n_a: int, n_b: int, confidence: float) -> tuple[np.ndarray, np.ndarray]:
    """The exact unconditional interval of p_a / p_b of every table, shape (n_a + 1, n_b + 1) each.

    An end at the search's bound is 0 (low) or infinity (high): a table with no ones in
    group b has an infinite upper end, one with none in group a a low end of 0.
    """
    family = _ratio_family()
    tables = _tables(n_a, n_b)
    low, high = _interval_indexes(tables, family, confidence)
    last = family.grid.size - 1
    low_ratio = np.where((low == 0) | (tables.ones_a == 0), 0.0, np.exp(family.grid[low]))
    high_ratio = np.where((high == last) | (tables.ones_b == 0), np.inf, np.exp(family.grid[high]))
    shape = (n_a + 1, n_b + 1)
    return _frozen(low_ratio.reshape(shape)), _frozen(high_ratio.reshape(shape))


@lru_cache(maxsize=512)
def difference_tails(n_a: int, n_b: int, delta: float) -> tuple[np.ndarray, np.ndarray]:
    """Exact unconditional one-sided p-values of H0: p_a - p_b = delta for every table.

    ``(p_upper, p_lower)``, each of shape (n_a + 1, n_b + 1): ``p_upper`` is small when the
    gap is clearly above delta, ``p_lower`` when it is clearly below.
    """
    tables = _tables(n_a, n_b)
    every = np.arange(tables.ones_a.size)
    upper, lower = one_sided_tails(tables, _difference_family(), float(delta), every, step=TEST_NUISANCE_STEP)
    shape = (n_a + 1, n_b + 1)
    return _frozen(upper.reshape(shape)), _frozen(lower.reshape(shape))


@lru_cache(maxsize=512)
def boschloo_p_values(n_a: int, n_b: int) -> np.ndarray:
    """Boschloo's two-sided p-value of every table, shape (n_a + 1, n_b + 1).

    The statistic is faircode's exact conditional (permutation) p-value; a table is as
    extreme as the observed one when its conditional p-value is at most the observed one
    (within a relative 1e-9). The p-value is the largest probability of that set over the
    common rate, on a grid of :data:`BOSCHLOO_POINTS` points of [0, 1].
    """
    tables = _tables(n_a, n_b)
    conditional = _exact.permutation_p(tables.ones_a.astype(np.int64), n_a, tables.ones_b.astype(np.int64), n_b)
    return _frozen(_unconditional_from_statistic(tables, -np.log(np.asarray(conditional)), BOSCHLOO_POINTS)
                   .reshape(n_a + 1, n_b + 1))


def _unconditional_from_statistic(tables: _Tables, statistic: np.ndarray, points: int) -> np.ndarray:
    """sup over the common rate p of P_p(statistic >= observed) for every table (no restriction)."""
    rates = np.linspace(0.0, 1.0, points)
    mass = (_log_mass(tables.n_a, rates)[:, :, None] * _log_mass(tables.n_b, rates)[:, None, :]).reshape(points, -1)
    z = np.round(statistic, _TIE_DIGITS)
    upper, _ = _binned_tails(z, z, mass)
    return np.minimum(upper.max(axis=0), 1.0)


def _frozen(values: np.ndarray) -> np.ndarray:
    values = np.ascontiguousarray(values)
    values.setflags(write=False)
    return values
