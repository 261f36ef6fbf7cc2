"""faircode.power against statsmodels, and simulated power against exact enumeration."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats
from scipy.optimize import brentq
from statsmodels.stats.power import NormalIndPower
from statsmodels.stats.proportion import proportion_effectsize

from faircode import _checks, _exact
from faircode.exceptions import InvalidInputError
from faircode.power import GAP_OUT_OF_RANGE, minimum_detectable_gap, power_at_gap, simulated_power


def statsmodels_detectable_gap(n_a: int, n_b: int, rate: float = 0.5) -> float:
    """The gap around ``rate`` whose Cohen's h statsmodels says is detectable with 80% power."""
    h = NormalIndPower().solve_power(nobs1=n_a, ratio=n_b / n_a, alpha=0.05, power=0.80)
    return brentq(lambda g: proportion_effectsize(rate + g / 2, rate - g / 2) - h, 1e-9, 0.99)


def test_minimum_detectable_gap_at_200_per_group_is_0_140():
    assert round(minimum_detectable_gap(200, 200), 3) == 0.140


@pytest.mark.parametrize("n_a, n_b", [(200, 200), (69, 131), (2153, 4360), (10661, 9238)])
def test_minimum_detectable_gap_within_0_003_of_statsmodels_arcsine_solution(n_a, n_b):
    assert abs(minimum_detectable_gap(n_a, n_b, method="normal") - statsmodels_detectable_gap(n_a, n_b)) <= 0.003


def test_the_two_approximations_part_at_30_per_group():
    # the arcsine (Cohen's h) and linear scales disagree by about 0.008 here: both are
    # approximations, which is why simulated_power exists
    assert 0.005 < minimum_detectable_gap(30, 30, method="normal") - statsmodels_detectable_gap(30, 30) < 0.01


@pytest.mark.parametrize("n_a, n_b, rate", [(30, 30, 0.5), (69, 131, 0.2), (2153, 4360, 0.06)])
def test_minimum_detectable_gap_equals_statsmodels_direct_solve(n_a, n_b, rate):
    d = NormalIndPower().solve_power(nobs1=n_a, ratio=n_b / n_a, alpha=0.05, power=0.80)
    # statsmodels solves with both tails; the formula keeps the near one only
    assert minimum_detectable_gap(n_a, n_b, rate=rate, method="normal") == pytest.approx(d * math.sqrt(rate * (1 - rate)), rel=1e-4)


@pytest.mark.parametrize("n_a, n_b, gap, rate", [(200, 200, 0.1, 0.5), (69, 131, 0.2, 0.3), (2153, 4360, 0.03, 0.1)])
def test_power_at_gap_equals_statsmodels_z_test_power(n_a, n_b, gap, rate):
    effect = gap / math.sqrt(rate * (1 - rate))
    expected = NormalIndPower().power(effect_size=effect, nobs1=n_a, alpha=0.05, ratio=n_b / n_a)
    assert power_at_gap(n_a, n_b, gap, rate=rate, method="normal") == pytest.approx(expected, rel=1e-9)
    assert power_at_gap(n_a, n_b, -gap, rate=rate, method="normal") == pytest.approx(expected, rel=1e-9)


def test_power_at_the_minimum_detectable_gap_is_the_requested_power():
    for power in (0.5, 0.8, 0.9):
        gap = minimum_detectable_gap(150, 90, rate=0.3, power=power, method="normal")
        # the far tail adds a hair: under 1e-4 even at 50% power
        assert power <= power_at_gap(150, 90, gap, rate=0.3, method="normal") < power + 1e-4


def exact_power(n_a: int, n_b: int, gap: float, rate: float = 0.5, alpha: float = 0.05) -> float:
    """Power of the exact test, summed over every pair of group counts (no simulation).

    The exact p-values come from the function that test_significance checks against a
    brute-force sum of scipy's hypergeometric pmf.
    """
    ones_a, ones_b = np.meshgrid(np.arange(n_a + 1), np.arange(n_b + 1), indexing="ij")
    p = _exact.permutation_p(ones_a.ravel(), n_a, ones_b.ravel(), n_b)
    mass = stats.binom.pmf(ones_a, n_a, rate + gap / 2) * stats.binom.pmf(ones_b, n_b, rate - gap / 2)
    return float(mass.ravel()[p < alpha].sum())


def test_the_exact_test_detects_the_minimum_detectable_gap_about_78_percent_of_the_time():
    gap = minimum_detectable_gap(200, 200)
    power = exact_power(200, 200, gap)
    assert 0.76 < power < 0.79  # conservative: below the 80% of the normal approximation
    n_sim = 4000
    simulated = simulated_power(200, 200, gap, n_sim=n_sim, random_state=1)
    assert abs(simulated - power) <= 4 * math.sqrt(power * (1 - power) / n_sim)


def test_simulated_power_on_unequal_groups_within_four_standard_errors_of_exact():
    power = exact_power(69, 131, 0.2, rate=0.4)
    simulated = simulated_power(69, 131, 0.2, rate=0.4, n_sim=3000, random_state=2)
    assert abs(simulated - power) <= 4 * math.sqrt(power * (1 - power) / 3000)


def test_simulated_power_with_no_gap_is_at_most_alpha():
    assert simulated_power(100, 100, 0.0, n_sim=4000, random_state=3) <= 0.05 + 4 * math.sqrt(0.05 * 0.95 / 4000)


def test_simulated_power_is_reproducible():
    assert simulated_power(50, 60, 0.2, n_sim=500, random_state=9) == simulated_power(
        50, 60, 0.2, n_sim=500, random_state=9
    )


@pytest.mark.parametrize(
    "call, expected",
    [
        (lambda: minimum_detectable_gap(0, 10), _checks.NOT_POSITIVE_INT.format(name="n_a", value=0)),
        (lambda: minimum_detectable_gap(10, 10, rate=1.0), _checks.NOT_IN_OPEN_UNIT.format(name="rate", value=1.0)),
        (lambda: minimum_detectable_gap(10, 10, power=80), _checks.NOT_IN_OPEN_UNIT.format(name="power", value=80)),
        (lambda: power_at_gap(10, 2.5, 0.1), _checks.NOT_POSITIVE_INT.format(name="n_b", value=2.5)),
        (lambda: simulated_power(10, 10, 0.5, rate=0.8), GAP_OUT_OF_RANGE.format(gap=0.5, rate=0.8)),
        (lambda: simulated_power(10, 10, 0.1, n_sim=0), _checks.NOT_POSITIVE_INT.format(name="n_sim", value=0)),
    ],
)
def test_bad_arguments_get_a_message_naming_them(call, expected):
    with pytest.raises(InvalidInputError) as error:
        call()
    assert str(error.value) == expected
