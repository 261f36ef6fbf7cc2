"""faircode's defaults on small groups: the exact unconditional interval, its ratio and TOST, Boschloo's
test by name, and the public tables of every interval (interval_table, exact_coverage), checked against
scipy, statsmodels and brute-force sums."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import binom, boschloo_exact
from statsmodels.stats.proportion import confint_proportions_2indep

from faircode import _unconditional
from faircode.exceptions import InvalidInputError
from faircode.metrics import disparate_impact_ratio
from faircode.significance import (
    DEFAULT_CI_METHOD,
    LARGE_GROUPS_CI_METHOD,
    TOO_MANY_TABLES,
    exact_coverage,
    interval_table,
    permutation_test,
    significance_report,
    significance_report_from_counts,
)


def ones(count: int, n: int) -> list[int]:
    return [1] * count + [0] * (n - count)


@pytest.mark.parametrize("n_a, n_b, expected", [(5, 5, True), (100, 100, True), (101, 100, False), (1000, 9, True),
                                                (1000, 10, False), (30, 2000, False)])
def test_the_exact_interval_is_the_default_up_to_its_bound_and_agresti_caffo_beyond(n_a, n_b, expected):
    report = significance_report_from_counts(n_a // 3, n_a, n_b // 4, n_b)
    assert report.ci_method == (DEFAULT_CI_METHOD if expected else LARGE_GROUPS_CI_METHOD)
    if not expected:  # beyond the bound, statsmodels' Agresti-Caffo
        low, high = confint_proportions_2indep(n_a // 3, n_a, n_b // 4, n_b, method="agresti-caffo")
        assert (report.ci_low, report.ci_high) == pytest.approx((low, high), abs=1e-12)
    else:
        assert (report.ci_low, report.ci_high) == _unconditional.difference_interval(n_a // 3, n_a, n_b // 4, n_b,
                                                                                       0.95)


def test_the_report_from_rows_and_from_counts_agree_and_any_method_can_be_asked_for():
    a, b = ones(12, 30), ones(5, 30)
    assert significance_report(a, b) == significance_report_from_counts(12, 30, 5, 30)
    caffo = significance_report_from_counts(12, 30, 5, 30, ci_method="agresti_caffo")
    low, high = confint_proportions_2indep(12, 30, 5, 30, method="agresti-caffo")
    assert caffo.ci_method == "agresti_caffo" and (caffo.ci_low, caffo.ci_high) == pytest.approx((low, high))


@pytest.mark.parametrize("method", ["exact_unconditional", "agresti_caffo", "newcombe", "miettinen_nurminen"])
def test_interval_table_holds_each_tables_reported_interval(method):
    low, high = interval_table(12, 9, ci_method=method)
    assert low.shape == high.shape == (13, 10)
    for x_a, x_b in [(0, 0), (3, 7), (12, 9), (6, 0)]:
        report = significance_report_from_counts(x_a, 12, x_b, 9, ci_method=method)
        assert (low[x_a, x_b], high[x_a, x_b]) == pytest.approx((report.ci_low, report.ci_high), abs=1e-12)


def test_exact_coverage_is_the_binomial_sum_over_every_table():
    n_a, n_b, rate_a, rate_b = 7, 11, 0.3, 0.8
    low, high = interval_table(n_a, n_b, ci_method="agresti_caffo")
    brute = sum(binom.pmf(x, n_a, rate_a) * binom.pmf(y, n_b, rate_b)
                for x in range(n_a + 1) for y in range(n_b + 1) if low[x, y] <= rate_a - rate_b <= high[x, y])
    assert exact_coverage(n_a, n_b, rate_a, rate_b, ci_method="agresti_caffo") == pytest.approx(brute, abs=1e-12)


def test_the_default_covers_where_agresti_caffo_falls_short():
    """The cells the issue found: 5 vs 5 at rates 0.90 and 0.01, and 15 vs 25 at rates 0.50 and 0.01."""
    for n_a, n_b, rate_a, rate_b in [(5, 5, 0.90, 0.01), (15, 25, 0.50, 0.01)]:
        assert exact_coverage(n_a, n_b, rate_a, rate_b, ci_method="agresti_caffo") < 0.94
        assert exact_coverage(n_a, n_b, rate_a, rate_b) >= 0.95


def test_exact_coverage_refuses_a_rate_outside_zero_to_one():
    with pytest.raises(InvalidInputError, match="'rate_b' parameter must be a rate in \\[0, 1\\]"):
        exact_coverage(5, 5, 0.5, 1.5)


def test_asking_for_the_exact_interval_past_its_bound_names_the_bound():
    with pytest.raises(InvalidInputError) as error:
        significance_report_from_counts(30, 300, 40, 300, ci_method="exact_unconditional")
    assert str(error.value) == TOO_MANY_TABLES.format(
        what="The exact unconditional interval (ci_method='exact_unconditional')", n_a=300, n_b=300,
        limit=_unconditional.LARGEST_TABLES)


@pytest.mark.parametrize("table", [(12, 30, 5, 30), (3, 10, 8, 10), (0, 15, 5, 15), (20, 40, 11, 40)])
def test_boschloo_by_name_is_scipys_boschloo_on_balanced_groups(table):
    ones_a, n_a, ones_b, n_b = table
    ours = permutation_test(ones(ones_a, n_a), ones(ones_b, n_b), method="boschloo")
    reference = boschloo_exact([[ones_a, ones_b], [n_a - ones_a, n_b - ones_b]]).pvalue
    assert ours == pytest.approx(reference, rel=2e-3)
    assert ours <= permutation_test(ones(ones_a, n_a), ones(ones_b, n_b)) + 1e-12  # never above the conditional


def test_boschloo_is_the_reports_p_value_when_asked_and_needs_zero_one_data():
    report = significance_report_from_counts(12, 30, 5, 30, method="boschloo")
    assert report.p_value == permutation_test(ones(12, 30), ones(5, 30), method="boschloo")
    assert report.p_value < significance_report_from_counts(12, 30, 5, 30).p_value  # 0.052 against 0.084
    with pytest.raises(InvalidInputError, match="method='boschloo' needs 0/1 data"):
        permutation_test([0.5, 1.0, 0.0], [1.0, 0.0], method="boschloo")


def test_the_ratio_has_an_infinite_upper_end_when_the_advantaged_group_has_no_selections():
    group = [1] * 20 + [0] * 30
    record = disparate_impact_ratio([0] * 50, [1] * 6 + [0] * 14 + [0] * 30, group, significance=True)
    assert record.value == math.inf and record.ci_high == math.inf
    assert record.ci_method == "exact_unconditional_ratio" and 1 < record.ci_low < math.inf  # 6 of 20 against none
    assert not np.isnan(record.p_value)
