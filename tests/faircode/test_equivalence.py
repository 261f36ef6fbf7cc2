"""equivalence_test (TOST) against statsmodels, against a brute-force score test, and by simulation."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import binom, norm
from statsmodels.stats.proportion import tost_proportions_2indep
from test_intervals import brute_force_mn, brute_force_score  # the brute-force score test, written with scipy

from faircode import _checks, _intervals, _unconditional
from faircode.exceptions import InvalidInputError
from faircode.significance import (
    MARGIN_NEEDS_BINARY,
    MARGIN_NOT_POSITIVE,
    TOST_ALPHA,
    EquivalenceResult,
    equivalence_test,
    significance_report,
    significance_report_from_counts,
)


def ones(count: int, n: int) -> list[int]:
    return [1] * count + [0] * (n - count)


CASES = [(40, 200, 50, 210), (300, 1000, 320, 1000), (5, 20, 3, 25), (120, 400, 128, 400), (1, 50, 2, 60)]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("margin", [0.05, 0.1, 0.2])
def test_wald_tost_equals_statsmodels(case, margin):
    ones_a, n_a, ones_b, n_b = case
    expected = tost_proportions_2indep(ones_a, n_a, ones_b, n_b, -margin, margin, method="wald")
    result = equivalence_test(ones(ones_a, n_a), ones(ones_b, n_b), margin, method="wald")
    assert result.p_value == pytest.approx(expected.pvalue, rel=1e-10)
    assert result.p_lower == pytest.approx(expected.results_larger.pvalue, rel=1e-10)
    assert result.p_upper == pytest.approx(expected.results_smaller.pvalue, rel=1e-10)


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("margin", [0.05, 0.1])
def test_score_tost_equals_brute_force_one_sided_score_tests(case, margin):
    # statsmodels' score TOST shares the restricted-rate bug of its score interval (#10269)
    ones_a, n_a, ones_b, n_b = case
    result = equivalence_test(ones(ones_a, n_a), ones(ones_b, n_b), margin, method="score")
    p_lower = norm.sf(brute_force_score(ones_a, n_a, ones_b, n_b, -margin))
    p_upper = norm.cdf(brute_force_score(ones_a, n_a, ones_b, n_b, margin))
    assert result.p_lower == pytest.approx(p_lower, rel=1e-6)
    assert result.p_upper == pytest.approx(p_upper, rel=1e-6)
    assert (result.ci_low, result.ci_high) == pytest.approx(brute_force_mn(*case, confidence=0.9), abs=2e-6)


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("margin", [0.02, 0.05, 0.08, 0.1, 0.15, 0.3])
def test_equivalent_exactly_when_the_interval_lies_inside_the_margin(case, margin):
    result = equivalence_test(ones(case[0], case[1]), ones(case[2], case[3]), margin, method="score")
    inside = -margin < result.ci_low and result.ci_high < margin
    assert result.equivalent == inside == (result.p_value < 0.05)
    assert result.p_value == max(result.p_lower, result.p_upper)


SMALL_CASES = [(5, 20, 3, 25), (1, 50, 2, 60), (30, 90, 20, 100), (7, 8, 1, 9)]


@pytest.mark.parametrize("case", SMALL_CASES)
@pytest.mark.parametrize("margin", [0.05, 0.1, 0.2, 0.3])
def test_the_exact_tost_agrees_with_its_interval_up_to_the_grid(case, margin):
    """The exact tests and the exact interval are computed on different grids, so they may
    disagree only where an end of the interval lies within one grid step of the margin."""
    result = equivalence_test(ones(case[0], case[1]), ones(case[2], case[3]), margin, method="exact")
    assert result.method == "exact"
    assert result.equivalent == (result.p_value < 0.05)
    inside = -margin < result.ci_low and result.ci_high < margin
    near = min(abs(result.ci_low + margin), abs(result.ci_high - margin)) <= _unconditional.DIFFERENCE_STEP + 1e-9
    assert result.equivalent == inside or near


def test_auto_is_exact_for_small_groups_and_the_score_test_beyond():
    small = equivalence_test(ones(5, 20), ones(3, 25), 0.2)
    assert small == equivalence_test(ones(5, 20), ones(3, 25), 0.2, method="exact")
    large = equivalence_test(ones(40, 200), ones(50, 210), 0.1)
    assert large == equivalence_test(ones(40, 200), ones(50, 210), 0.1, method="score")


@pytest.mark.parametrize("n_a, n_b, rate_b, margin", [(500, 15, 0.03, 0.2), (15, 25, 0.5, 0.2), (8, 60, 0.1, 0.1)])
def test_the_exact_tost_declares_equivalence_at_most_alpha_of_the_time_at_the_margin(n_a, n_b, rate_b, margin):
    """Exact enumeration of every table at a true gap of exactly +-margin (the score TOST
    declares equivalence in 7% of audits at 500 vs 15, rates 0.23 and 0.03, margin 0.2)."""
    p_lower = _unconditional.difference_tails(n_a, n_b, -margin)[0]
    p_upper = _unconditional.difference_tails(n_a, n_b, margin)[1]
    declared = np.maximum(p_lower, p_upper) < 0.05
    x, y = np.meshgrid(np.arange(n_a + 1), np.arange(n_b + 1), indexing="ij")
    for rate_a in (rate_b + margin, rate_b - margin):
        if 0 < rate_a < 1:
            mass = binom.pmf(x, n_a, rate_a) * binom.pmf(y, n_b, rate_b)
            assert float(mass[declared].sum()) <= 0.05
    score = np.maximum(norm.sf(_intervals.difference_score(x, n_a, y, n_b, -margin)),
                       norm.cdf(_intervals.difference_score(x, n_a, y, n_b, margin))) < 0.05
    if (n_a, n_b) == (500, 15):  # the cell where the score test is too liberal
        mass = binom.pmf(x, n_a, rate_b + margin) * binom.pmf(y, n_b, rate_b)
        assert float(mass[score].sum()) > 0.06


def test_tost_claims_equivalence_at_most_alpha_of_the_time_when_the_gap_is_the_margin():
    rng = np.random.default_rng(4)
    n, audits, margin = 300, 800, 0.1
    claimed = 0
    for _ in range(audits):
        a, b = rng.binomial(n, 0.45), rng.binomial(n, 0.35)  # true gap = +margin: not equivalent
        claimed += significance_report_from_counts(a, n, b, n, margin=margin).equivalence.equivalent
    assert claimed / audits <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / audits)


def test_tost_finds_equivalence_when_the_gap_is_zero_and_the_groups_are_large():
    rng = np.random.default_rng(5)
    found = np.mean([significance_report_from_counts(rng.binomial(2000, 0.3), 2000, rng.binomial(2000, 0.3), 2000,
                                                     margin=0.05).equivalence.equivalent for _ in range(120)])
    assert found > 0.9


def test_significance_report_adds_the_equivalence_test_when_given_a_margin():
    a, b = ones(120, 400), ones(128, 400)
    report = significance_report(a, b, margin=0.1)
    assert isinstance(report.equivalence, EquivalenceResult)
    assert report.equivalence == equivalence_test(a, b, 0.1)
    assert report.to_dict()["equivalence"]["equivalent"] is True
    assert significance_report(a, b).equivalence is None


@pytest.mark.parametrize("margin", [0, -0.1, 1.5, "0.1", True, math.nan])
def test_a_bad_margin_is_refused_naming_it(margin):
    with pytest.raises(InvalidInputError) as error:
        equivalence_test([1, 0], [0, 1], margin)
    assert str(error.value) == MARGIN_NOT_POSITIVE.format(value=margin)


@pytest.mark.parametrize("method", ["exact", "score", "wald"])
@pytest.mark.parametrize("alpha", [0.5, 0.6, 0.9])
def test_an_alpha_whose_interval_is_empty_is_refused(method, alpha):
    """The TOST's interval is the 1 - 2 alpha interval: from alpha = 0.5 on it is empty,
    and its ends came out crossed or outside the estimate (found by trying it)."""
    with pytest.raises(InvalidInputError) as error:
        equivalence_test([1, 0, 1], [0, 0, 1], 0.1, alpha=alpha, method=method)
    assert str(error.value) == TOST_ALPHA.format(value=alpha)
    with pytest.raises(InvalidInputError):
        significance_report(ones(120, 400), ones(128, 400), margin=0.1, alpha=alpha)
    assert significance_report(ones(120, 400), ones(128, 400), alpha=alpha).equivalence is None  # no margin: fine


def test_a_margin_with_data_that_are_not_zero_one_names_the_margin():
    with pytest.raises(InvalidInputError) as error:
        significance_report([1.5, 0, 1], [0, 0.2, 1], margin=0.1)
    assert str(error.value) == MARGIN_NEEDS_BINARY.format(name="a")
    with pytest.raises(InvalidInputError) as error:
        significance_report([1, 0, 1], [0, 0.2, 1], margin=0.1)
    assert str(error.value) == MARGIN_NEEDS_BINARY.format(name="b")


def test_the_exact_tost_refuses_groups_past_its_bound_naming_it():
    with pytest.raises(InvalidInputError) as error:
        equivalence_test(ones(40, 300), ones(50, 310), 0.1, method="exact")
    assert str(error.value) == _unconditional.TOO_MANY_TABLES.format(
        what="The exact equivalence test (method='exact')", n_a=300, n_b=310, limit=_unconditional.LARGEST_TABLES)


def test_equivalence_needs_zero_one_data_and_a_known_method():
    with pytest.raises(InvalidInputError) as error:
        equivalence_test([0.5, 1], [0, 1], 0.1)
    assert str(error.value) == _checks.NOT_BINARY.format(name="a", found="0.5")
    with pytest.raises(InvalidInputError) as error:
        equivalence_test([1, 0], [0, 1], 0.1, method="bayes")
    assert str(error.value) == _checks.NOT_ONE_OF.format(name="method", allowed="'auto', 'exact', 'score', 'wald'",
                                                         value="bayes")
