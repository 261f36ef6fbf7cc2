"""How large must a gap be for an audit to see it? Power and the minimum detectable gap.

For two groups of sizes n_a and n_b whose selection rates are near ``rate``, the standard
error of the gap in rates is ``sqrt(rate (1 - rate) (1 / n_a + 1 / n_b))``. A two-sided
test at level alpha detects a true gap g with power about
``Phi(|g| / se - z) + Phi(-|g| / se - z)``, z = the 1 - alpha / 2 normal quantile, and the
gap it detects with a given power is ``(z + z_power) * se`` (the normal approximation;
``rate = 0.5`` is the worst case). :func:`simulated_power` checks the approximation with
the exact permutation test itself, which is slightly conservative.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from scipy.stats import norm

from faircode import _exact
from faircode._checks import check_open_unit, check_positive_int, check_random_state
from faircode.exceptions import InvalidInputError

GAP_OUT_OF_RANGE = (
    "gap = {gap!r} with rate = {rate!r} puts a group's rate outside [0, 1] "
    "(the rates are rate + gap / 2 and rate - gap / 2); use a smaller gap or a rate nearer 0.5."
)


def minimum_detectable_gap(
    n_a: int, n_b: int, rate: float = 0.5, alpha: float = 0.05, power: float = 0.80
) -> float:
    """Smallest true gap in rates a two-sided test at ``alpha`` detects with ``power``.

    Parameters
    ----------
    n_a, n_b : int
        Rows in the two groups.
    rate : float in (0, 1), default 0.5
        The common rate near which the gap is measured; 0.5 gives the largest variance
        and so the most conservative answer.
    alpha : float in (0, 1), default 0.05
        Level of the test.
    power : float in (0, 1), default 0.80
        Probability of detecting the gap.

    Returns
    -------
    float
        ``(z_{1 - alpha/2} + z_{power}) * sqrt(rate (1 - rate) (1/n_a + 1/n_b))``.
    """
    se = _standard_error(n_a, n_b, rate)
    return (_z_two_sided(check_open_unit(alpha, "alpha")) + _z(check_open_unit(power, "power"))) * se


def power_at_gap(n_a: int, n_b: int, gap: float, rate: float = 0.5, alpha: float = 0.05) -> float:
    """Probability that a two-sided test at ``alpha`` detects a true gap ``gap``.

    Parameters
    ----------
    n_a, n_b : int
        Rows in the two groups.
    gap : float
        The true gap in rates (its sign does not matter).
    rate : float in (0, 1), default 0.5
        The common rate near which the gap is measured.
    alpha : float in (0, 1), default 0.05
        Level of the test.

    Returns
    -------
    float
        Normal approximation ``Phi(|gap| / se - z) + Phi(-|gap| / se - z)``; both tails
        count, so at ``minimum_detectable_gap`` it is a hair above the requested power.
    """
    se = _standard_error(n_a, n_b, rate)
    z = _z_two_sided(check_open_unit(alpha, "alpha"))
    shift = abs(float(gap)) / se
    return float(norm.cdf(shift - z) + norm.cdf(-shift - z))


def simulated_power(
    n_a: int,
    n_b: int,
    gap: float,
    rate: float = 0.5,
    alpha: float = 0.05,
    n_sim: int = 2000,
    random_state: None | int | np.random.Generator = None,
) -> float:
    """Share of simulated audits in which the exact permutation test detects ``gap``.

    Parameters
    ----------
    n_a, n_b : int
        Rows in the two groups.
    gap : float
        The planted gap: group a's rate is ``rate + gap / 2``, group b's ``rate - gap / 2``,
        so the pooled rate stays at ``rate`` as in the normal approximation.
    rate : float in (0, 1), default 0.5
        The common rate.
    alpha : float in (0, 1), default 0.05
        A simulated audit detects the gap when its exact p-value is below alpha.
    n_sim : int, default 2000
        Simulated audits; the answer's standard error is about sqrt(power (1 - power) / n_sim).
    random_state : None, int or numpy.random.Generator
        Seed of the simulation.

    Returns
    -------
    float
        The estimated power of the exact test (the one faircode reports).
    """
    n_a, n_b = check_positive_int(n_a, "n_a"), check_positive_int(n_b, "n_b")
    rate, alpha = check_open_unit(rate, "rate"), check_open_unit(alpha, "alpha")
    n_sim = check_positive_int(n_sim, "n_sim")
    rate_a, rate_b = rate + gap / 2, rate - gap / 2
    if not (0 <= rate_a <= 1 and 0 <= rate_b <= 1):
        raise InvalidInputError(GAP_OUT_OF_RANGE.format(gap=gap, rate=rate))
    rng = check_random_state(random_state)
    ones_a = rng.binomial(n_a, rate_a, size=n_sim)
    ones_b = rng.binomial(n_b, rate_b, size=n_sim)
    p_values = _exact.permutation_p(ones_a, n_a, ones_b, n_b)
    return float(np.mean(p_values < alpha))


def _standard_error(n_a: int, n_b: int, rate: float) -> float:
    n_a, n_b = check_positive_int(n_a, "n_a"), check_positive_int(n_b, "n_b")
    rate = check_open_unit(rate, "rate")
    return math.sqrt(rate * (1 - rate) * (1 / n_a + 1 / n_b))


@lru_cache(maxsize=64)
def _z(probability: float) -> float:
    return float(norm.ppf(probability))


def _z_two_sided(alpha: float) -> float:
    return _z(1 - alpha / 2)
