"""Intervals of two proportions against statsmodels and against brute force written with scipy.

statsmodels' ``confint_proportions_2indep`` is the reference for Newcombe's and Agresti-Caffo's
intervals and for the score interval of a ratio. For the score interval of a difference,
statsmodels 0.15 has a wrong coefficient in the cubic of the restricted maximum-likelihood
rates (statsmodels issue #10269), so the reference is a brute force written here with scipy:
the restricted likelihood maximised numerically, the score test inverted with brentq. (The
statsmodels statistic at a difference of 0, where the cubic is not used, is checked too.)
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import brentq, minimize_scalar
from scipy.stats import norm
from statsmodels.stats.proportion import confint_proportions_2indep, proportion_confint, score_test_proportions_2indep

from faircode import _intervals


def cases(count: int, seed: int, max_rows: int = 300):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        n_a, n_b = (int(v) for v in rng.integers(1, max_rows, 2))
        yield int(rng.integers(0, n_a + 1)), n_a, int(rng.integers(0, n_b + 1)), n_b


EDGES = [(0, 10, 0, 10), (10, 10, 10, 10), (0, 10, 10, 10), (10, 10, 0, 12), (1, 1, 0, 1), (0, 5, 3, 200)]


@pytest.mark.parametrize("case", list(cases(60, 1)) + EDGES)
def test_wilson_and_newcombe_equal_statsmodels(case):
    ones_a, n_a, ones_b, n_b = case
    low, high = _intervals.wilson(ones_a, n_a, 0.95)
    assert (float(low), float(high)) == pytest.approx(proportion_confint(ones_a, n_a, method="wilson"), abs=1e-14)
    expected = confint_proportions_2indep(ones_a, n_a, ones_b, n_b, method="newcomb")
    assert tuple(map(float, _intervals.newcombe(ones_a, n_a, ones_b, n_b, 0.95))) == pytest.approx(expected, abs=1e-13)


@pytest.mark.parametrize("case", list(cases(60, 2)) + EDGES)
@pytest.mark.parametrize("confidence", [0.9, 0.95, 0.99])
def test_agresti_caffo_equals_statsmodels_within_minus_one_to_one(case, confidence):
    expected = np.clip(confint_proportions_2indep(*case, method="agresti-caffo", alpha=1 - confidence), -1, 1)
    got = _intervals.agresti_caffo(*case, confidence)
    assert tuple(map(float, got)) == pytest.approx(tuple(expected), abs=1e-14)


def brute_force_score(ones_a, n_a, ones_b, n_b, delta):
    """The score statistic with the restricted rates found by numerical maximisation."""
    eps = 1e-300

    def minus_log_likelihood(rate_b):
        rate_a = rate_b + delta
        return -(ones_a * np.log(max(rate_a, eps)) + (n_a - ones_a) * np.log(max(1 - rate_a, eps))
                 + ones_b * np.log(max(rate_b, eps)) + (n_b - ones_b) * np.log(max(1 - rate_b, eps)))

    best = minimize_scalar(minus_log_likelihood, bounds=(max(0, -delta), min(1, 1 - delta)), method="bounded",
                           options={"xatol": 1e-13})
    rate_b = best.x
    rate_a = rate_b + delta
    total = n_a + n_b
    variance = (rate_a * (1 - rate_a) / n_a + rate_b * (1 - rate_b) / n_b) * total / (total - 1)
    return (ones_a / n_a - ones_b / n_b - delta) / np.sqrt(variance)


def brute_force_mn(ones_a, n_a, ones_b, n_b, confidence=0.95):
    z = norm.ppf(0.5 + confidence / 2)
    gap = ones_a / n_a - ones_b / n_b
    low = -1.0 if gap <= -1 + 1e-12 else brentq(lambda d: brute_force_score(ones_a, n_a, ones_b, n_b, d) - z,
                                                 -1 + 1e-12, gap, xtol=1e-13)
    high = 1.0 if gap >= 1 - 1e-12 else brentq(lambda d: brute_force_score(ones_a, n_a, ones_b, n_b, d) + z,
                                                gap, 1 - 1e-12, xtol=1e-13)
    return low, high


@pytest.mark.parametrize("case", list(cases(25, 3)) + [(17, 20, 109, 281), (1, 44, 9, 44), (0, 30, 4, 30)])
def test_miettinen_nurminen_equals_a_brute_force_inversion_of_the_score_test(case):
    got = _intervals.miettinen_nurminen(*case, 0.95)
    assert tuple(map(float, got)) == pytest.approx(brute_force_mn(*case), abs=2e-6)


@pytest.mark.parametrize("case", [c for c in cases(40, 4) if 0 < c[0] + c[2] < c[1] + c[3]])
def test_the_score_statistic_at_no_gap_equals_statsmodels(case):
    expected = score_test_proportions_2indep(*case, value=0, compare="diff", return_results=True).statistic
    assert float(_intervals.difference_score(*case, 0.0)) == pytest.approx(expected, rel=1e-10)


@pytest.mark.parametrize("case", [c for c in cases(80, 5) if 0 < c[0] and 0 < c[2] < c[3]])
@pytest.mark.parametrize("correction", [True, False])
def test_ratio_score_interval_equals_statsmodels(case, correction):
    expected = confint_proportions_2indep(*case, method="score", compare="ratio", correction=correction)
    got = _intervals.ratio_score(*case, 0.95, correction=correction)
    assert tuple(map(float, got)) == pytest.approx(expected, rel=1e-7)


def test_ratio_score_interval_at_the_edges():
    low, high = _intervals.ratio_score(0, 20, 5, 20, 0.95)
    assert low == 0 and 0 < high < np.inf
    low, high = _intervals.ratio_score(5, 20, 0, 20, 0.95)
    assert 0 < low and high == np.inf


def test_everything_is_vectorised_over_counts():
    counts = np.array(list(cases(50, 6)))
    for function in (_intervals.newcombe, _intervals.agresti_caffo, _intervals.miettinen_nurminen):
        low, high = function(*counts.T, 0.95)
        one_by_one = [tuple(map(float, function(*c, 0.95))) for c in counts]
        assert np.allclose(np.c_[low, high], one_by_one, atol=1e-12)


def signed_larger(gap_1, gap_2):
    return np.where(np.abs(gap_1) >= np.abs(gap_2), gap_1, gap_2)


@pytest.mark.parametrize("intervals", [
    ((-0.3, 0.3), (0.1, 0.2)), ((0.05, 0.4), (-0.1, 0.02)), ((-0.5, -0.2), (0.1, 0.6)), ((-0.1, 0.1), (-0.1, 0.1)),
    ((0.2, 0.3), (0.25, 0.5)),
])
def test_larger_gap_interval_is_the_hull_of_every_value_the_larger_gap_can_take(intervals):
    (low_1, high_1), (low_2, high_2) = intervals
    grid_1, grid_2 = np.meshgrid(np.linspace(low_1, high_1, 801), np.linspace(low_2, high_2, 801))
    values = signed_larger(grid_1, grid_2)
    low, high = _intervals.larger_gap_interval(low_1, high_1, low_2, high_2)
    assert float(low) == pytest.approx(values.min(), abs=2e-3)
    assert float(high) == pytest.approx(values.max(), abs=2e-3)
    assert float(low) <= values.min() + 1e-12 and values.max() <= float(high) + 1e-12
