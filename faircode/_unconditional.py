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
  of ``p_b`` and of ``p_a`` mapped through the null, each at ``1 - GAMMA / 2`` and widened
  by the nuisance grid's step in its own rate), and
  :data:`GAMMA` is added to the p-value (Berger and Boos 1994), so the test stays valid;
* both one-sided p-values of every table come from one pass over sorted tables
  (:func:`faircode._tails.largest_tails`), each at least the exact value and within 5e-12 of it.

The interval of a table is the set of parameters neither one-sided test rejects at
``(1 - confidence) / 2`` (Chan and Zhang 1999; Agresti and Min 2001), found on a grid of
spacing :data:`DIFFERENCE_STEP` (or :data:`LOG_RATIO_STEP` of log ratio): every grid point is
tested for every table at once, and each end is put at the rejected point just outside the
first (last) accepted one, so the interval holds every grid point that is not rejected and the
points between. The reflection of the grid halves the work: the gap of ``(x_a, x_b)`` is minus
that of ``(n_a - x_a, n_b - x_b)``, and for groups of one size the ratio of ``(x_a, x_b)`` is
the inverse of that of ``(x_b, x_a)``. Its coverage is at least the nominal level up to the
grids (bench/coverage.py enumerates it). Every result is remembered per group sizes.

Boschloo's test (:func:`boschloo_p_values`) is the unconditional test whose statistic is the
conditional test's p-value, maximised over the common rate under the null (no restriction).
"""

from __future__ import annotations

import math
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import lru_cache, partial

import numpy as np
from scipy.stats import beta

from faircode import _exact, _intervals, _tails
from faircode.exceptions import InvalidInputError

TOO_MANY_TABLES = (
    "{what} enumerates every table of the two group sizes, and groups of {n_a} and {n_b} rows have "
    "({n_a} + 1) x ({n_b} + 1) of them, more than its bound of {limit:,} (200 rows each); leave the method at "
    "'auto' for groups this large (the asymptotic method, whose coverage there is near nominal)."
)

EXACT_TABLES = 10_201
"""The exact unconditional intervals and tests are faircode's default for two groups with at most
this many tables, ``(n_a + 1) (n_b + 1)``: every pair of groups of up to 100 rows each, and
unbalanced pairs up to the same cost (200 and 49 rows, 1,000 and 9). Computing every interval of
such a pair takes about 0.2 s for the gap and 0.2 to 0.6 s for the ratio on two cores, the ratio's
grid having no reflection when the sizes differ (bench/coverage.py --speed)."""
LARGEST_TABLES = 40_401
"""The exact unconditional intervals, TOST and Boschloo's test are offered, when asked for by
name, for two groups with at most this many tables (200 rows each, a few seconds)."""
BOSCHLOO_TABLES = LARGEST_TABLES
GAMMA = 1e-6
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
BOSCHLOO_POINTS = 201
"""Points of the common-rate grid over which Boschloo's p-value is maximised (both ends included)."""
_TIE_DIGITS = 9  # statistics equal to 9 decimals are ties
_STATISTICS_AT_ONCE = 200_000  # statistics computed in one array (1.6 MB: measured 3x faster than 16 MB)
_THREADED_TABLES = 1_000  # from this many tables, the grid's points are tested on several threads


def exact_sized(n_a: int, n_b: int) -> bool:
    """Whether two groups of these sizes get the exact unconditional interval by default."""
    return (n_a + 1) * (n_b + 1) <= EXACT_TABLES


def check_affordable(n_a: int, n_b: int, what: str) -> None:
    """Raise when two groups have more tables than :data:`LARGEST_TABLES` for the exact ``what``."""
    if (n_a + 1) * (n_b + 1) > LARGEST_TABLES:
        raise InvalidInputError(TOO_MANY_TABLES.format(what=what, n_a=n_a, n_b=n_b, limit=LARGEST_TABLES))


def difference_interval(ones_a: int, n_a: int, ones_b: int, n_b: int, confidence: float) -> tuple[float, float]:
    """The exact unconditional interval of p_a - p_b of one table (from :func:`difference_intervals`)."""
    check_affordable(n_a, n_b, "The exact unconditional interval (ci_method='exact_unconditional')")
    lows, highs = difference_intervals(int(n_a), int(n_b), float(confidence))
    return float(lows[ones_a, ones_b]), float(highs[ones_a, ones_b])


def ratio_interval(ones_a: int, n_a: int, ones_b: int, n_b: int, confidence: float) -> tuple[float, float]:
    """The exact unconditional interval of p_a / p_b of one table (from :func:`ratio_intervals`)."""
    check_affordable(n_a, n_b, "The exact unconditional interval of a ratio")
    lows, highs = ratio_intervals(int(n_a), int(n_b), float(confidence))
    return float(lows[ones_a, ones_b]), float(highs[ones_a, ones_b])


def equivalence_p_values(ones_a: int, n_a: int, ones_b: int, n_b: int, margin: float) -> tuple[float, float]:
    """TOST's exact unconditional one-sided p-values ``(p_lower, p_upper)`` at +-margin.

    ``p_lower`` tests gap <= -margin (small when the gap is clearly above -margin) and
    ``p_upper`` tests gap >= +margin; each has size at most its level at every nuisance rate.
    """
    check_affordable(n_a, n_b, "The exact equivalence test (method='exact')")
    above_low = difference_tails(int(n_a), int(n_b), -float(margin))[0]
    below_high = difference_tails(int(n_a), int(n_b), float(margin))[1]
    return float(above_low[ones_a, ones_b]), float(below_high[ones_a, ones_b])


def boschloo_p(ones_a: int, n_a: int, ones_b: int, n_b: int) -> float:
    """Boschloo's two-sided p-value of one table (from :func:`boschloo_p_values`)."""
    check_affordable(n_a, n_b, "Boschloo's test (method='boschloo')")
    return float(boschloo_p_values(int(n_a), int(n_b))[ones_a, ones_b])


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

    def statistic(self, tables: _Tables, parameter) -> np.ndarray:
        """The score statistic of every table at the null ``parameter`` (large: p_a above the null).

        An array of parameters of shape (k, 1) gives the statistics at each, shape (k, tables).
        """
        if self.name == "difference":
            return _intervals.difference_score(tables.ones_a, tables.n_a, tables.ones_b, tables.n_b, parameter,
                                               correction=False)
        return _intervals._ratio_statistic(tables.ones_a, tables.n_a, tables.ones_b, tables.n_b,
                                          np.exp(parameter), correction=False)


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
    ones_a_index: np.ndarray  # the counts as integers, to index by
    ones_b_index: np.ndarray


@lru_cache(maxsize=256)
def _tables(n_a: int, n_b: int) -> _Tables:
    ones_a, ones_b = (v.ravel() for v in np.meshgrid(np.arange(n_a + 1), np.arange(n_b + 1), indexing="ij"))
    low_a, high_a = _clopper_pearson(ones_a, n_a, GAMMA / 2)
    low_b, high_b = _clopper_pearson(ones_b, n_b, GAMMA / 2)
    return _Tables(n_a, n_b, ones_a.astype(float), ones_b.astype(float), low_a, high_a, low_b, high_b,
                   ones_a.astype(np.intp), ones_b.astype(np.intp))


def _clopper_pearson(ones: np.ndarray, n: int, miss: float) -> tuple[np.ndarray, np.ndarray]:
    """Clopper-Pearson interval of ones / n that misses with chance at most ``miss``."""
    with np.errstate(invalid="ignore"):
        low = np.where(ones == 0, 0.0, beta.ppf(miss / 2, ones, n - ones + 1))
        high = np.where(ones == n, 1.0, beta.ppf(1 - miss / 2, ones + 1, n - ones))
    return np.nan_to_num(low, nan=0.0), np.nan_to_num(high, nan=1.0)


def one_sided_tails(tables: _Tables, family: _Family, parameter: float, gamma: float = GAMMA,
                    step: float = NUISANCE_STEP, statistic: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The exact unconditional one-sided p-values of every table at the null ``parameter``.

    Returns ``(p_upper, p_lower)``: the largest probability, over the nuisance grid within
    each table's confidence set, of a statistic at least (upper) or at most (lower) the
    table's own, plus ``gamma``; each at most 1 and at least the exact value (see
    :func:`faircode._tails.largest_tails`). ``statistic`` is the tables' statistic at
    ``parameter`` when the caller has it.
    """
    z = np.round(family.statistic(tables, parameter) if statistic is None else statistic, _TIE_DIGITS)
    rate_b = _nuisance_grid(family, parameter, step)
    if gamma > 0:
        low, high = _confidence_set(tables, family, parameter, step)
        first = np.searchsorted(rate_b, low, side="left")  # columns inside: first <= column < stop
        stop = np.searchsorted(rate_b, high, side="right")
    else:
        first, stop = np.zeros(z.size, dtype=np.intp), np.full(z.size, rate_b.size)
    mass_a = _tails.binomial_masses(tables.n_a, family.rate_a(parameter, rate_b))
    mass_b = _tails.binomial_masses(tables.n_b, rate_b)
    p_upper, p_lower = _tails.largest_tails(z, tables.ones_a_index, tables.ones_b_index, mass_a, mass_b, first, stop)
    return np.minimum(p_upper + gamma, 1.0), np.minimum(p_lower + gamma, 1.0)


def _nuisance_grid(family: _Family, parameter: float, step: float = NUISANCE_STEP) -> np.ndarray:
    """Nuisance rates p_b spaced so that neither p_b nor p_a moves by more than ``step``."""
    low, high = family.nuisance_range(parameter)
    ends_a = family.rate_a(parameter, np.array([low, high]))
    span = max(high - low, float(abs(ends_a[1] - ends_a[0])))
    points = max(2, int(math.ceil(span / step)) + 1)
    return np.linspace(low, high, points)


def _confidence_set(tables: _Tables, family: _Family, parameter: float,
                    step: float) -> tuple[np.ndarray, np.ndarray]:
    """Per table, the p_b allowed by both groups' Clopper-Pearson intervals under the null.

    Each group's interval is widened by the grid's ``step`` in its own rate (so that a
    grid point just outside is still tried), then group a's is mapped to p_b through the
    null (``b_from_a`` increases in p_a). Widening each rate by the same amount keeps the
    set the same when the groups' roles are exchanged, which the grid's reflection needs.
    """
    from_a_low = family.b_from_a(parameter, tables.low_a - step)
    from_a_high = family.b_from_a(parameter, tables.high_a + step)
    return np.maximum(tables.low_b - step, from_a_low), np.minimum(tables.high_b + step, from_a_high)


def _accepted(tables: _Tables, family: _Family, parameter: float, level: float, statistic: np.ndarray) -> np.ndarray:
    """Whether neither one-sided test rejects, at ``level`` each, the null ``parameter``, every table."""
    p_upper, p_lower = one_sided_tails(tables, family, parameter, statistic=statistic)
    return (p_upper > level) & (p_lower > level)


def _threads() -> int:
    """Threads for the grid's tests: the cores this process may use, at most 4 (numpy and the
    compiled tail sums release the GIL)."""
    return max(1, min(4, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1))


def _accepted_block(tables: _Tables, family: _Family, level: float, indexes: np.ndarray) -> np.ndarray:
    """Whether each table is accepted at each grid point of ``indexes``, shape (indexes, tables)."""
    statistics = family.statistic(tables, family.grid[indexes][:, None])
    return np.stack([_accepted(tables, family, float(family.grid[index]), level, statistic)
                     for index, statistic in zip(indexes, statistics)])


def _interval_indexes(tables: _Tables, family: _Family, confidence: float,
                      mirror: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """Per table, the grid indexes of the interval's ends: the rejected points just outside the accepted ones.

    Every interior grid point is tested for every table (the two bounds are never tested:
    an end that reaches one stays there). ``mirror`` is the permutation of the tables under
    which the grid's reflection leaves the tests unchanged: the table ``mirror[t]`` at the
    parameter ``grid[i]`` is accepted exactly when ``t`` is at ``grid[-1 - i]``. With it,
    only the upper half of the grid is computed.
    """
    level = (1 - confidence) / 2
    last = family.grid.size - 1
    accepted = np.zeros((last + 1, tables.ones_a.size), dtype=bool)
    computed = range(last // 2, last) if mirror is not None else range(1, last)
    threads = _threads() if tables.ones_a.size >= _THREADED_TABLES else 1
    chunk = max(1, min(_STATISTICS_AT_ONCE // tables.ones_a.size, math.ceil(len(computed) / (4 * threads))))
    starts = range(computed.start, computed.stop, chunk)
    blocks = [np.arange(start, min(start + chunk, computed.stop)) for start in starts]
    test_block = partial(_accepted_block, tables, family, level)
    if threads == 1:
        tested = [test_block(indexes) for indexes in blocks]
    else:
        with ThreadPoolExecutor(max_workers=threads) as pool:
            tested = list(pool.map(test_block, blocks))
    for indexes, rows in zip(blocks, tested):
        accepted[indexes] = rows
    if mirror is not None:
        for index in range(1, last - last // 2 + 1):
            if index not in computed:
                accepted[index] = accepted[last - index][mirror]
    some = accepted.any(axis=0)
    first = accepted.argmax(axis=0)
    final = last - accepted[::-1].argmax(axis=0)
    low_index = np.where(some, np.maximum(first - 1, 0), 0)
    high_index = np.where(some, np.minimum(final + 1, last), last)
    return low_index, high_index


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
    tables = _tables(n_a, n_b)
    reversed_tables = np.arange(tables.ones_a.size)[::-1]  # (x_a, x_b) -> (n_a - x_a, n_b - x_b): gap -> -gap
    low, high = _interval_indexes(tables, family, confidence, reversed_tables)
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
    swapped = None  # groups of one size: (x_a, x_b) -> (x_b, x_a) takes the ratio to its inverse
    if n_a == n_b:
        swapped = np.arange(tables.ones_a.size).reshape(n_a + 1, n_b + 1).T.ravel()
    low, high = _interval_indexes(tables, family, confidence, swapped)
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
    upper, lower = one_sided_tails(tables, _difference_family(), float(delta), step=TEST_NUISANCE_STEP)
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
    z = np.round(statistic, _TIE_DIGITS)
    masses_a, masses_b = _tails.binomial_masses(tables.n_a, rates), _tails.binomial_masses(tables.n_b, rates)
    everywhere = np.zeros(z.size, dtype=np.intp), np.full(z.size, points)
    best = _tails.largest_tails(z, tables.ones_a_index, tables.ones_b_index, masses_a, masses_b, *everywhere)[0]
    return np.minimum(best, 1.0)


def _frozen(values: np.ndarray) -> np.ndarray:
    values = np.ascontiguousarray(values)
    values.setflags(write=False)
    return values
