"""The shared pieces of the tests: the percentile rule, and work shared between metrics.

The percentile rule must be numpy's, bit for bit, and sharing work between the metrics
of one table must not change a single digit of any metric.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from statsmodels.stats.proportion import confint_proportions_2indep

from faircode import _exact
from faircode._report import percentile_interval
from faircode.metrics import METRICS, count_confusion, fairness_report, metric_records
from faircode.significance import (
    permutation_test,
    significance_report_from_counts,
    stratified_permutation_test,
    stratified_report_from_counts,
)

finite = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, width=64)
levels = st.floats(min_value=1e-6, max_value=1 - 1e-6).map(lambda c: ((1 - c) / 2, (1 + c) / 2))


@settings(max_examples=300, deadline=None)
@given(values=arrays(np.float64, st.integers(1, 400), elements=finite), levels=levels)
def test_percentile_interval_is_numpys_linear_quantile_bit_for_bit(values, levels):
    expected = tuple(float(q) for q in np.quantile(values, levels))
    assert percentile_interval(values, levels) == expected


@settings(max_examples=200, deadline=None)
@given(counts=st.lists(st.integers(0, 40), min_size=1, max_size=2000), confidence=st.sampled_from([0.9, 0.95, 0.99]))
def test_percentile_interval_matches_numpy_on_gaps_with_many_ties(counts, confidence):
    gaps = np.asarray(counts) / 40 - 0.5
    levels = ((1 - confidence) / 2, (1 + confidence) / 2)
    assert percentile_interval(gaps, levels) == tuple(float(q) for q in np.quantile(gaps, levels))


def test_percentile_interval_leaves_its_input_alone_and_hands_nan_to_numpy():
    values = np.array([3.0, 1.0, 2.0, 5.0])
    percentile_interval(values, (0.1, 0.9))
    assert values.tolist() == [3.0, 1.0, 2.0, 5.0]
    low, high = percentile_interval(np.array([1.0, np.nan, 2.0]), (0.1, 0.9))
    assert math.isnan(low) and math.isnan(high)


@pytest.fixture
def table():
    rng = np.random.default_rng(3)
    y_true = rng.integers(0, 2, 3000)
    y_pred = (rng.random(3000) < 0.35 + 0.2 * y_true).astype(int)
    group = np.where(rng.random(3000) < 0.3, 1.0, 0.0)
    group[:40] = np.nan
    return y_true, y_pred, group


def test_records_computed_together_equal_the_independent_significance_calls(table):
    dis, adv = count_confusion(*table)
    selection = (dis.tp + dis.fp, dis.total, adv.tp + adv.fp, adv.total)
    strata = [(dis.tp, dis.tp + dis.fn, adv.tp, adv.tp + adv.fn), (dis.fp, dis.fp + dis.tn, adv.fp, adv.fp + adv.tn)]
    records = {r.metric: r for r in metric_records(*table, significance=True, random_state=11,
                                                   ci_method="bootstrap")}

    parity = significance_report_from_counts(*selection, random_state=11, ci_method="bootstrap")
    ratio = records["disparate_impact_ratio"]
    assert (records["demographic_parity_diff"].ci_low, records["demographic_parity_diff"].ci_high) == (
        parity.ci_low, parity.ci_high)
    assert records["demographic_parity_diff"].p_value == ratio.p_value == parity.p_value
    assert (ratio.ci_low, ratio.ci_high) == _ratio_interval_drawn_on_its_own(selection, seed=11)

    odds = stratified_report_from_counts(strata, random_state=11, ci_method="bootstrap")
    record = records["equalized_odds_diff"]
    assert (record.ci_low, record.ci_high, record.p_value) == (odds.ci_low, odds.ci_high, odds.p_value)
    opportunity = significance_report_from_counts(*strata[0], random_state=11, ci_method="bootstrap")
    assert (records["equal_opportunity_diff"].ci_low, records["equal_opportunity_diff"].p_value) == (
        opportunity.ci_low, opportunity.p_value)


def test_default_records_hold_each_metric_s_interval_of_coverage(table):
    dis, adv = count_confusion(*table)
    selection = (dis.tp + dis.fp, dis.total, adv.tp + adv.fp, adv.total)
    strata = [(dis.tp, dis.tp + dis.fn, adv.tp, adv.tp + adv.fn), (dis.fp, dis.fp + dis.tn, adv.fp, adv.fp + adv.tn)]
    records = {r.metric: r for r in metric_records(*table, significance=True)}
    parity = records["demographic_parity_diff"]
    assert (parity.ci_low, parity.ci_high) == pytest.approx(
        confint_proportions_2indep(*selection, method="agresti-caffo"), rel=1e-12)
    ratio = records["disparate_impact_ratio"]
    assert (ratio.ci_low, ratio.ci_high) == pytest.approx(
        confint_proportions_2indep(*selection, method="score", compare="ratio"), rel=1e-8)
    odds = records["equalized_odds_diff"]
    assert odds.ci_method == "sidak_agresti_caffo"
    assert (odds.ci_low, odds.ci_high) == (stratified_report_from_counts(strata).ci_low,
                                           stratified_report_from_counts(strata).ci_high)
    assert {r.ci_method for r in records.values()} == {"agresti_caffo", "miettinen_nurminen_ratio",
                                                       "sidak_agresti_caffo"}


def _ratio_interval_drawn_on_its_own(counts, seed):
    """The ratio's interval by hand: the report's draws, then the ratio's own, from one stream."""
    ones_d, n_d, ones_a, n_a = counts
    rng = np.random.default_rng(seed)
    rng.binomial(n_d, ones_d / n_d, size=2000), rng.binomial(n_a, ones_a / n_a, size=2000)
    ratios = (rng.binomial(n_d, ones_d / n_d, size=2000) / n_d) / (rng.binomial(n_a, ones_a / n_a, size=2000) / n_a)
    return tuple(float(q) for q in np.quantile(ratios, (0.025, 0.975)))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 3000), st.integers(1, 3000), st.floats(0, 1), st.floats(0, 1.2)),
                min_size=1, max_size=12))
def test_one_vectorised_tail_call_equals_one_call_per_tail(draws):
    requests = []
    for n_a, n_b, share, scale in draws:
        total = round(share * (n_a + n_b))
        requests.append((n_a, n_b, total, round(scale * total * n_a)))
    batched = np.atleast_1d(_exact.tail_probability(*zip(*requests)))
    assert [float(p) for p in batched] == [float(_exact.tail_probability(*r)) for r in requests]


def test_batched_exact_p_values_equal_the_one_at_a_time_tests(table):
    y_true, y_pred, group = table
    records = {r.metric: r for r in metric_records(*table, significance=True)}
    kept = ~np.isnan(group)
    for metric, rows in [("demographic_parity_diff", kept), ("accuracy_diff", kept),
                         ("equal_opportunity_diff", kept & (y_true == 1)),
                         ("false_positive_rate_diff", kept & (y_true == 0)),
                         ("predictive_parity_diff", kept & (y_pred == 1))]:
        outcome = (y_pred == y_true) if metric == "accuracy_diff" else (y_true if metric == "predictive_parity_diff"
                                                                        else y_pred)
        a, b = outcome[rows & (group == 1)], outcome[rows & (group == 0)]
        assert records[metric].p_value == permutation_test(a, b, method="exact"), metric
    strata = [(y_pred[kept & (y_true == y) & (group == 1)],
               y_pred[kept & (y_true == y) & (group == 0)]) for y in (1, 0)]
    assert records["equalized_odds_diff"].p_value == stratified_permutation_test(strata, method="exact")
    assert records["equalized_odds_diff"].p_value == _exact.stratified_permutation_p(
        [(int(a.sum()), a.size, int(b.sum()), b.size) for a, b in strata])


def test_every_report_row_equals_its_metric_computed_alone(table):
    y_true, y_pred, group = table
    report = fairness_report(y_true, y_pred, {"g": group}, significance=True, random_state=5)
    for row, metric in zip(report.itertuples(), METRICS):
        alone = metric_records(y_true, y_pred, group, metrics=[metric], significance=True, random_state=5)[0]
        assert (row.value, row.ci_low, row.ci_high, row.p_value) == (alone.value, alone.ci_low, alone.ci_high,
                                                                      alone.p_value), metric


def test_a_generator_is_drawn_from_in_order_without_sharing_draws(table):
    y_true, y_pred, group = table
    seeded = fairness_report(y_true, y_pred, {"g": group}, significance=True, random_state=5, ci_method="bootstrap")
    drawn = fairness_report(y_true, y_pred, {"g": group}, significance=True, random_state=np.random.default_rng(5),
                            ci_method="bootstrap")
    assert drawn["p_value"].tolist() == seeded["p_value"].tolist()  # exact p-values use no draws
    assert drawn["ci_low"].iloc[0] == seeded["ci_low"].iloc[0]  # the first metric starts the same stream
    assert drawn["ci_low"].iloc[1:].tolist() != seeded["ci_low"].iloc[1:].tolist()
