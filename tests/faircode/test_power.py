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
from faircode.power import EXACT_TOO_LARGE, GAP_OUT_OF_RANGE, minimum_detectable_gap, power_at_gap, simulated_power


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
    assert minimum_detectable_gap(n_a, n_b, rate=rate,
                                  method="normal") == pytest.approx(d * math.sqrt(rate * (1 - rate)), rel=1e-4)


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


# --- power at the real rates and the exact test's power ------------------------------


def brute_force_exact_power(n_a: int, n_b: int, gap: float, rate: float, alpha: float = 0.05) -> float:
    """Every pair of counts, its p-value from scipy's hypergeometric pmf summed over the counts at
    least as extreme (compared as fractions), weighted by scipy's binomial pmf."""
    from fractions import Fraction

    total = 0.0
    for x in range(n_a + 1):
        for y in range(n_b + 1):
            n, k = n_a + n_b, x + y
            support = range(max(0, k - n_b), min(k, n_a) + 1)
            observed = abs(Fraction(x, n_a) - Fraction(k - x, n_b))
            extreme = [j for j in support if abs(Fraction(j, n_a) - Fraction(k - j, n_b)) >= observed]
            p = float(stats.hypergeom.pmf(extreme, n, k, n_a).sum())
            if p < alpha:
                total += stats.binom.pmf(x, n_a, rate + gap / 2) * stats.binom.pmf(y, n_b, rate - gap / 2)
    return total


@pytest.mark.parametrize("n_a, n_b, gap, rate", [(8, 8, 0.5, 0.5), (6, 11, 0.4, 0.4), (12, 5, -0.3, 0.3)])
def test_exact_power_equals_brute_force_enumeration_with_scipy(n_a, n_b, gap, rate):
    expected = brute_force_exact_power(n_a, n_b, gap, rate)
    assert power_at_gap(n_a, n_b, gap, rate=rate, method="exact") == pytest.approx(expected, rel=1e-10, abs=1e-15)


@pytest.mark.parametrize("n_a, n_b, gap, rate", [(40, 60, 0.25, 0.4), (150, 20, -0.3, 0.3)])
def test_exact_power_equals_the_simulated_exact_test(n_a, n_b, gap, rate):
    power = power_at_gap(n_a, n_b, gap, rate=rate, method="exact")
    simulated = simulated_power(n_a, n_b, gap, rate=rate, n_sim=4000, random_state=5)
    assert abs(simulated - power) <= 4 * math.sqrt(power * (1 - power) / 4000)


def test_the_normal_approximation_overstates_the_exact_test_on_ten_rows():
    gap = minimum_detectable_gap(10, 10, method="normal")
    assert power_at_gap(10, 10, gap, method="normal") >= 0.80
    assert power_at_gap(10, 10, gap, method="exact") < 0.72
    exact_gap = minimum_detectable_gap(10, 10)  # auto: exact below 200 rows
    assert exact_gap > gap
    assert min(power_at_gap(10, 10, exact_gap, method="exact"), power_at_gap(10, 10, -exact_gap, method="exact")) >= 0.8


@pytest.mark.parametrize("n_a, n_b, rate", [(30, 30, 0.5), (50, 120, 0.2), (150, 180, 0.1), (12, 3000, 0.3)])
def test_the_exact_minimum_detectable_gap_is_the_smallest_gap_with_the_power(n_a, n_b, rate):
    gap = minimum_detectable_gap(n_a, n_b, rate=rate)
    both = [power_at_gap(n_a, n_b, s * gap, rate=rate, method="exact") for s in (1, -1)]
    assert min(both) >= 0.80
    step = 2 * min(rate, 1 - rate) / 32 ** 4 * 32  # the search's last grid step, with margin
    below = [power_at_gap(n_a, n_b, s * (gap - step), rate=rate, method="exact") for s in (1, -1)]
    assert min(below) < 0.80


@pytest.mark.parametrize("n_a, n_b, rate", [(100, 100, 0.02), (1000, 1000, 0.01), (400, 4000, 0.03), (10, 10, 0.1)])
def test_the_minimum_detectable_gap_keeps_both_rates_in_zero_one_or_is_nan(n_a, n_b, rate):
    gap = minimum_detectable_gap(n_a, n_b, rate=rate)
    if math.isnan(gap):
        assert power_at_gap(n_a, n_b, 2 * rate, rate=rate) < 0.80  # not even the largest gap is detected
    else:
        assert 0 < gap <= 2 * rate
        assert power_at_gap(n_a, n_b, gap, rate=rate) >= 0.80 - 1e-9


def test_the_issue_s_example_no_longer_needs_a_negative_rate():
    assert math.isnan(minimum_detectable_gap(100, 100, rate=0.02))  # the old answer 0.0555 needed rate -0.008
    assert minimum_detectable_gap(2000, 2000, rate=0.02) <= 0.04


def test_auto_is_exact_under_200_rows_and_normal_from_200():
    assert minimum_detectable_gap(199, 300) == minimum_detectable_gap(199, 300, method="exact")
    assert minimum_detectable_gap(200, 300) == minimum_detectable_gap(200, 300, method="normal")
    assert power_at_gap(150, 150, 0.1) == power_at_gap(150, 150, 0.1, method="exact")


def test_power_errors_name_their_argument():
    with pytest.raises(InvalidInputError) as error:
        power_at_gap(3000, 3000, 0.1, method="exact")
    assert str(error.value) == EXACT_TOO_LARGE.format(limit=4000, n_a=3000, n_b=3000)
    with pytest.raises(InvalidInputError) as error:
        power_at_gap(100, 100, 0.3, rate=0.1)
    assert str(error.value) == GAP_OUT_OF_RANGE.format(gap=0.3, rate=0.1)
    with pytest.raises(InvalidInputError) as error:
        minimum_detectable_gap(100, 100, method="simulated")
    assert str(error.value) == _checks.NOT_ONE_OF.format(name="method", allowed="'auto', 'normal', 'exact'",
                                                         value="simulated")
