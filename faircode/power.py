"""How large must a gap be for an audit to see it? Power and the minimum detectable gap.

The planted gap is centred on a rate: group a's rate is ``rate + gap / 2`` and group b's
``rate - gap / 2``, so a gap is possible only while both stay in [0, 1], that is
``|gap| <= 2 min(rate, 1 - rate)``. Two ways to compute the power of the two-sided test at
level alpha:

* ``method="normal"``: the normal approximation with the standard error at ``rate``,
  ``se = sqrt(rate (1 - rate) (1 / n_a + 1 / n_b))``; power is
  ``Phi(|g| / se - z) + Phi(-|g| / se - z)``, z the 1 - alpha / 2 normal quantile, and the
  gap detected with a given power is ``(z + z_power) * se`` (``rate = 0.5`` is the worst
  case). It overstates the power of the exact test on small groups.
* ``method="exact"``: the power of faircode's exact permutation test itself, summed, not
  simulated: every pair of counts (x_a, x_b) whose exact p-value is below alpha (the
  rejection region, which depends only on the group sizes and alpha, is computed once
  and remembered), weighted by the two binomial probabilities.

``method="auto"`` (the default) is exact when a group has fewer than 200 rows
(:data:`EXACT_BELOW`), where the two part, and normal otherwise; also normal when the two
groups hold more than 4,000 rows together (:data:`EXACT_MAX_ROWS`), where the
enumeration would be too large.
:func:`simulated_power` estimates the exact test's power by simulation.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from scipy.special import gammaln, xlog1py, xlogy
from scipy.stats import norm

from faircode import _exact
from faircode._checks import DEFAULT_SEED, check_one_of, check_open_unit, check_positive_int, check_random_state
from faircode.exceptions import InvalidInputError

__all__ = [
    "EXACT_BELOW",
    "EXACT_TOO_LARGE",
    "GAP_OUT_OF_RANGE",
    "POWER_METHODS",
    "minimum_detectable_gap",
    "power_at_gap",
    "simulated_power",
]

POWER_METHODS = ("auto", "normal", "exact")
EXACT_BELOW = 200
"""``method="auto"`` uses the exact test's power when a group has fewer rows than this."""
EXACT_MAX_ROWS = 4000
"""The largest n_a + n_b whose exact power is enumerated (a table of (n_a + 1) x (n_b + 1) cells)."""

GAP_OUT_OF_RANGE = (
    "gap = {gap!r} with rate = {rate!r} puts a group's rate outside [0, 1] "
    "(the rates are rate + gap / 2 and rate - gap / 2); use a smaller gap or a rate nearer 0.5."
)
EXACT_TOO_LARGE = (
    "method='exact' enumerates every pair of counts, at most n_a + n_b = {limit} rows; "
    "got n_a = {n_a} and n_b = {n_b}. Use method='normal' (accurate at these sizes) or simulated_power."
)

# Rounds of the search for the minimum detectable gap: each evaluates the power on a grid
# of _GRID gaps and keeps the cell where it first reaches the target.
_GRID = 33
_ROUNDS = 4


def minimum_detectable_gap(
    n_a: int, n_b: int, rate: float = 0.5, alpha: float = 0.05, power: float = 0.80, method: str = "auto"
) -> float:
    """Smallest true gap in rates a two-sided test at ``alpha`` detects with ``power``.

    Parameters
    ----------
    n_a, n_b : int
        Rows in the two groups.
    rate : float in (0, 1), default 0.5
        The rate the gap is centred on (group a at ``rate + gap / 2``, group b at
        ``rate - gap / 2``); 0.5 is the worst case. Reports use the groups' pooled rate.
    alpha : float in (0, 1), default 0.05
        Level of the test.
    power : float in (0, 1), default 0.80
        Probability of detecting the gap.
    method : {"auto", "normal", "exact"}, default "auto"
        See the module docstring; "auto" is exact when a group has under 200 rows.

    Returns
    -------
    float
        The smallest gap g > 0, with both rates in [0, 1], detected with at least
        ``power`` in either direction (group a above or below group b). NaN when no
        such gap exists: the groups are too small for any gap the rate allows.
        The exact answer is found on a grid refined four times, to about 1e-6 of the
        largest possible gap, and rounded up to it.

    See Also
    --------
    power_at_gap : the power at a given gap.
    simulated_power : the exact test's power by simulation.

    Examples
    --------
    >>> from faircode.power import minimum_detectable_gap
    >>> round(minimum_detectable_gap(1000, 1000), 4)            # normal approximation
    0.0626
    >>> round(minimum_detectable_gap(100, 100, method="normal"), 4)
    0.1981
    >>> round(minimum_detectable_gap(100, 100), 4)               # the exact test's power
    0.2032
    >>> minimum_detectable_gap(10, 10, rate=0.02)                # no gap in [0, 1] is detectable
    nan
    """
    n_a, n_b = check_positive_int(n_a, "n_a"), check_positive_int(n_b, "n_b")
    rate = check_open_unit(rate, "rate")
    alpha, power = check_open_unit(alpha, "alpha"), check_open_unit(power, "power")
    method = _resolved(method, n_a, n_b)
    return _detectable_gap(n_a, n_b, rate, alpha, power, method)


def power_at_gap(
    n_a: int, n_b: int, gap: float, rate: float = 0.5, alpha: float = 0.05, method: str = "auto"
) -> float:
    """Probability that a two-sided test at ``alpha`` detects a true gap ``gap``.

    Parameters
    ----------
    n_a, n_b : int
        Rows in the two groups.
    gap : float
        The true gap in rates: group a's rate is ``rate + gap / 2``, group b's
        ``rate - gap / 2``; both must lie in [0, 1].
    rate : float in (0, 1), default 0.5
        The rate the gap is centred on.
    alpha : float in (0, 1), default 0.05
        Level of the test.
    method : {"auto", "normal", "exact"}, default "auto"
        "normal": ``Phi(|gap| / se - z) + Phi(-|gap| / se - z)``, the same for either
        sign; "exact": the exact permutation test's power, summed over every pair of
        counts; "auto": exact when a group has under 200 rows.

    Returns
    -------
    float

    See Also
    --------
    minimum_detectable_gap : the gap detected with a given power.
    simulated_power : the exact test's power by simulation.

    Examples
    --------
    >>> from faircode.power import power_at_gap
    >>> round(power_at_gap(10, 10, 0.5, method="normal"), 3)
    0.609
    >>> round(power_at_gap(10, 10, 0.5, method="exact"), 3)    # what the exact test achieves
    0.421
    """
    n_a, n_b = check_positive_int(n_a, "n_a"), check_positive_int(n_b, "n_b")
    rate, alpha = check_open_unit(rate, "rate"), check_open_unit(alpha, "alpha")
    gap = _checked_gap(gap, rate)
    if _resolved(method, n_a, n_b) == "exact":
        return float(_exact_power(n_a, n_b, np.array([gap]), rate, alpha)[0])
    return float(_normal_power(n_a, n_b, abs(gap), rate, alpha))


def simulated_power(
    n_a: int,
    n_b: int,
    gap: float,
    rate: float = 0.5,
    alpha: float = 0.05,
    n_sim: int = 2000,
    random_state=DEFAULT_SEED,
) -> float:
    """Share of simulated audits in which the exact permutation test detects ``gap``.

    Parameters
    ----------
    n_a, n_b : int
        Rows in the two groups.
    gap : float
        The planted gap: group a's rate is ``rate + gap / 2``, group b's ``rate - gap / 2``.
    rate : float in (0, 1), default 0.5
        The rate the gap is centred on.
    alpha : float in (0, 1), default 0.05
        A simulated audit detects the gap when its exact p-value is below alpha.
    n_sim : int, default 2000
        Simulated audits; the answer's standard error is about sqrt(power (1 - power) / n_sim).
    random_state : None, int, numpy.random.Generator or numpy.random.RandomState, default 42
        Seed of the simulation (see :func:`faircode.significance.permutation_test`).

    Returns
    -------
    float
        The estimated power of the exact test (the one faircode reports).

    See Also
    --------
    power_at_gap : the same power summed exactly (``method="exact"``).

    Examples
    --------
    >>> from faircode.power import simulated_power
    >>> simulated_power(50, 50, 0.3, n_sim=4000, random_state=0)
    0.82675
    """
    n_a, n_b = check_positive_int(n_a, "n_a"), check_positive_int(n_b, "n_b")
    rate, alpha = check_open_unit(rate, "rate"), check_open_unit(alpha, "alpha")
    n_sim = check_positive_int(n_sim, "n_sim")
    gap = _checked_gap(gap, rate)
    rng = check_random_state(random_state)
    ones_a = rng.binomial(n_a, rate + gap / 2, size=n_sim)
    ones_b = rng.binomial(n_b, rate - gap / 2, size=n_sim)
    p_values = _exact.permutation_p(ones_a, n_a, ones_b, n_b)
    return float(np.mean(p_values < alpha))


def largest_gap(rate: float) -> float:
    """The largest gap centred on ``rate`` that keeps both rates in [0, 1]."""
    return 2 * min(rate, 1 - rate)


@lru_cache(maxsize=8192)
def _detectable_gap(n_a: int, n_b: int, rate: float, alpha: float, power: float, method: str) -> float:
    """:func:`minimum_detectable_gap` on validated arguments, remembered (records ask for it often)."""
    ceiling = largest_gap(rate)
    if method == "normal":
        gap = (_z(1 - alpha / 2) + _z(power)) * _standard_error(n_a, n_b, rate)
        return gap if gap <= ceiling else math.nan
    low, high = 0.0, ceiling
    for _ in range(_ROUNDS):
        gaps = np.linspace(low, high, _GRID)[1:]
        reached = np.minimum(_exact_power(n_a, n_b, gaps, rate, alpha),
                             _exact_power(n_a, n_b, -gaps, rate, alpha)) >= power
        if not reached.any():
            return math.nan
        first = int(np.argmax(reached))
        low, high = (gaps[first - 1] if first else low), gaps[first]
    return float(high)


def _normal_power(n_a, n_b, gap, rate, alpha):
    shift = gap / _standard_error(n_a, n_b, rate)
    z = _z(1 - alpha / 2)
    return norm.cdf(shift - z) + norm.cdf(-shift - z)


def _exact_power(n_a: int, n_b: int, gaps: np.ndarray, rate: float, alpha: float) -> np.ndarray:
    """Power of the exact test at each gap: sum of P(x_a) P(x_b) over the rejection region."""
    if n_a + n_b > EXACT_MAX_ROWS:
        raise InvalidInputError(EXACT_TOO_LARGE.format(limit=EXACT_MAX_ROWS, n_a=n_a, n_b=n_b))
    region = _rejection_region(n_a, n_b, alpha)
    rates_a = np.clip(rate + gaps / 2, 0.0, 1.0)
    rates_b = np.clip(rate - gaps / 2, 0.0, 1.0)
    return ((_binomial_mass(n_a, rates_a) @ region) * _binomial_mass(n_b, rates_b)).sum(axis=1)


def _binomial_mass(n: int, rates: np.ndarray) -> np.ndarray:
    """Binomial(n, rate) probabilities of 0..n, one row per rate (log-gamma; n is at most a few thousand)."""
    k = np.arange(n + 1)[None, :]
    p = rates[:, None]
    return np.exp(_log_choose(n, k) + xlogy(k, p) + xlog1py(n - k, -p))


@lru_cache(maxsize=512)
def _rejection_region(n_a: int, n_b: int, alpha: float) -> np.ndarray:
    """1.0 where the exact two-sided permutation p-value of counts (x_a, x_b) is below alpha.

    For each total K = x_a + x_b the relabelling distribution of x_a is hypergeometric;
    its probabilities (from log-gamma, all K at once) are summed into both tails, and the
    p-value of x_a is the lower tail up to the last count at least as extreme below the
    centre plus the upper tail from the first such count above it, as in
    :func:`faircode._exact.tail_probability`.
    """
    if n_a > n_b:  # the p-value is the same with the groups swapped; keep the table small
        return np.ascontiguousarray(_rejection_region(n_b, n_a, alpha).T)
    n_total = n_a + n_b
    k = np.arange(n_total + 1)[:, None]
    x = np.arange(n_a + 1)[None, :]
    inside = (x <= k) & (n_a - x <= n_total - k)
    log_mass = (_log_choose(k, np.minimum(x, k)) + _log_choose(n_total - k, np.clip(n_a - x, 0, None))
                - _log_choose(n_total, n_a))
    mass = np.where(inside, np.exp(np.where(inside, log_mass, 0.0)), 0.0)
    below = np.cumsum(mass, axis=1)
    above = np.cumsum(mass[:, ::-1], axis=1)[:, ::-1]
    threshold = np.abs(x * n_total - k * n_a)
    x_low = np.floor_divide(k * n_a - threshold, n_total)
    x_high = -np.floor_divide(-(k * n_a + threshold), n_total)
    p = (np.where(x_low >= 0, np.take_along_axis(below, np.clip(x_low, 0, n_a), axis=1), 0.0)
         + np.where(x_high <= n_a, np.take_along_axis(above, np.clip(x_high, 0, n_a), axis=1), 0.0))
    p = np.where(threshold == 0, 1.0, p)
    ones_a, ones_b = np.meshgrid(np.arange(n_a + 1), np.arange(n_b + 1), indexing="ij")
    return (p[ones_a + ones_b, ones_a] < alpha).astype(float)


def _log_choose(n, k):
    return gammaln(n + 1) - gammaln(k + 1) - gammaln(n - k + 1)


def _checked_gap(gap, rate: float) -> float:
    value = float(gap)
    if not math.isfinite(value) or abs(value) > largest_gap(rate) + 1e-12:
        raise InvalidInputError(GAP_OUT_OF_RANGE.format(gap=gap, rate=rate))
    return value


def _resolved(method: str, n_a: int, n_b: int) -> str:
    check_one_of(method, "method", POWER_METHODS)
    if method == "auto":
        return "exact" if min(n_a, n_b) < EXACT_BELOW and n_a + n_b <= EXACT_MAX_ROWS else "normal"
    return method


def _standard_error(n_a: int, n_b: int, rate: float) -> float:
    return math.sqrt(rate * (1 - rate) * (1 / n_a + 1 / n_b))


@lru_cache(maxsize=64)
def _z(probability: float) -> float:
    return float(norm.ppf(probability))
