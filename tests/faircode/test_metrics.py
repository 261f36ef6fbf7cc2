"""faircode.metrics against fairlearn on real data (COMPAS), and its edges."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from fairlearn.metrics import (
    MetricFrame,
    demographic_parity_difference,
    demographic_parity_ratio,
    equal_opportunity_difference,
    equalized_odds_difference,
    false_positive_rate,
    selection_rate,
    true_positive_rate,
)
from sklearn.metrics import accuracy_score, precision_score
from statsmodels.stats.proportion import confint_proportions_2indep

from faircode import _checks
from faircode._report import NOTE_NO_DETECTABLE_GAP
from faircode.exceptions import InvalidInputError
from faircode.metrics import (
    ADJUSTED_COLUMNS,
    ADJUSTING_NEEDS_SIGNIFICANCE,
    COLUMNS,
    METRICS,
    NOTE_EMPTY,
    NOTE_LARGER_GAP,
    NOTE_RATIO_UNDEFINED,
    GroupConfusion,
    accuracy_diff,
    count_confusion,
    demographic_parity_diff,
    disparate_impact_ratio,
    equal_opportunity_diff,
    equalized_odds_diff,
    fairness_report,
    false_positive_rate_diff,
    metric_records,
    predictive_parity_diff,
)
from faircode.significance import bootstrap_ci, permutation_test, stratified_permutation_test

COMPAS = Path(__file__).resolve().parents[2] / "audits" / "compas" / "data" / "compas-scores-two-years.csv.gz"


@pytest.fixture(scope="module")
def compas():
    """COMPAS, African-American (disadvantaged) vs Caucasian; prediction: decile score >= 5."""
    data = pd.read_csv(COMPAS)
    data = data[data["race"].isin(["African-American", "Caucasian"])].reset_index(drop=True)
    return {
        "y_true": data["two_year_recid"],
        "y_pred": (data["decile_score"] >= 5).astype(int),
        "race": data["race"],
        "group": (data["race"] == "African-American").astype(int),
    }


@pytest.fixture(scope="module")
def by_group(compas):
    frame = MetricFrame(
        metrics={
            "selection": selection_rate,
            "tpr": true_positive_rate,
            "fpr": false_positive_rate,
            "precision": precision_score,
            "accuracy": accuracy_score,
        },
        y_true=compas["y_true"],
        y_pred=compas["y_pred"],
        sensitive_features=compas["race"],
    ).by_group
    return frame.loc["African-American"], frame.loc["Caucasian"]


@pytest.mark.parametrize(
    "metric, rate",
    [
        (demographic_parity_diff, "selection"),
        (equal_opportunity_diff, "tpr"),
        (false_positive_rate_diff, "fpr"),
        (predictive_parity_diff, "precision"),
        (accuracy_diff, "accuracy"),
    ],
)
def test_gaps_equal_fairlearn_group_rates_on_compas(compas, by_group, metric, rate):
    disadvantaged, advantaged = by_group
    record = metric(compas["y_true"], compas["y_pred"], compas["group"])
    assert record.rate_disadvantaged == pytest.approx(disadvantaged[rate], rel=1e-12)
    assert record.rate_advantaged == pytest.approx(advantaged[rate], rel=1e-12)
    assert record.value == pytest.approx(disadvantaged[rate] - advantaged[rate], rel=1e-12)


def test_unsigned_differences_and_ratios_equal_fairlearn_on_compas(compas):
    y_true, y_pred, race, group = compas["y_true"], compas["y_pred"], compas["race"], compas["group"]
    parity = demographic_parity_diff(y_true, y_pred, group).value
    assert abs(parity) == pytest.approx(demographic_parity_difference(y_true, y_pred, sensitive_features=race))
    opportunity = equal_opportunity_diff(y_true, y_pred, group).value
    assert abs(opportunity) == pytest.approx(equal_opportunity_difference(y_true, y_pred, sensitive_features=race))
    odds = equalized_odds_diff(y_true, y_pred, group).value
    assert abs(odds) == pytest.approx(equalized_odds_difference(y_true, y_pred, sensitive_features=race))
    # fairlearn's ratio is min / max; ours is disadvantaged / advantaged, here above 1
    ratio = disparate_impact_ratio(y_true, y_pred, group).value
    assert ratio > 1
    assert 1 / ratio == pytest.approx(demographic_parity_ratio(y_true, y_pred, sensitive_features=race))


def test_counts_are_the_rows_each_metric_is_measured_on(compas):
    y_true, y_pred, group = (compas[k].to_numpy() for k in ("y_true", "y_pred", "group"))
    report = fairness_report(y_true, y_pred, {"race": group}).set_index("metric")
    rows = {
        "demographic_parity_diff": np.ones_like(y_true, dtype=bool),
        "equal_opportunity_diff": y_true == 1,
        "false_positive_rate_diff": y_true == 0,
        "predictive_parity_diff": y_pred == 1,
        "accuracy_diff": np.ones_like(y_true, dtype=bool),
        "equalized_odds_diff": np.ones_like(y_true, dtype=bool),
    }
    for metric, kept in rows.items():
        assert report.loc[metric, "n_disadvantaged"] == np.sum(kept & (group == 1))
        assert report.loc[metric, "n_advantaged"] == np.sum(kept & (group == 0))


def test_significance_is_computed_on_exactly_the_metric_rows(compas):
    y_true, y_pred, group = (compas[k].to_numpy() for k in ("y_true", "y_pred", "group"))
    record = equal_opportunity_diff(y_true, y_pred, group, significance=True, random_state=42)
    positives = y_true == 1
    a, b = y_pred[positives & (group == 1)], y_pred[positives & (group == 0)]
    assert record.p_value == permutation_test(a, b, method="exact")
    expected = confint_proportions_2indep(int(a.sum()), a.size, int(b.sum()), b.size, method="agresti-caffo")
    assert (record.ci_low, record.ci_high) == pytest.approx(expected, rel=1e-12)
    assert record.ci_method == "agresti_caffo"
    assert record.significant is True and record.ci_low < record.value < record.ci_high
    booted = equal_opportunity_diff(y_true, y_pred, group, significance=True, random_state=42, ci_method="bootstrap")
    assert (booted.ci_low, booted.ci_high) == bootstrap_ci(a, b, random_state=42)
    assert booted.ci_method == "bootstrap"

    precision = predictive_parity_diff(y_true, y_pred, group, significance=True)
    flagged = y_pred == 1
    assert precision.p_value == permutation_test(y_true[flagged & (group == 1)], y_true[flagged & (group == 0)])


def test_equalized_odds_picks_the_larger_gap_and_tests_both_strata(compas):
    y_true, y_pred, group = (compas[k].to_numpy() for k in ("y_true", "y_pred", "group"))
    record = equalized_odds_diff(y_true, y_pred, group, significance=True)
    tpr = equal_opportunity_diff(y_true, y_pred, group).value
    fpr = false_positive_rate_diff(y_true, y_pred, group).value
    assert abs(fpr) > abs(tpr) and record.value == fpr
    assert record.note == NOTE_LARGER_GAP.format(rate="false positive rate")
    strata = [
        (y_pred[(y_true == label) & (group == 1)], y_pred[(y_true == label) & (group == 0)]) for label in (1, 0)
    ]
    assert record.p_value == pytest.approx(stratified_permutation_test(strata, method="exact"), rel=1e-12)
    assert record.ci_low < record.value < record.ci_high


def test_report_rows_equal_the_single_metric_calls(compas):
    args = (compas["y_true"], compas["y_pred"], compas["group"])
    report = fairness_report(*args[:2], {"race": args[2]}, significance=True, random_state=7)
    functions = [
        demographic_parity_diff, disparate_impact_ratio, equal_opportunity_diff,
        false_positive_rate_diff, equalized_odds_diff, predictive_parity_diff, accuracy_diff,
    ]
    assert list(report["metric"]) == list(METRICS)
    for function, (_, row) in zip(functions, report.iterrows()):
        record = function(*args, significance=True, random_state=7).to_dict()
        assert {k: row[k] for k in record if k != "note"} == pytest.approx(
            {k: v for k, v in record.items() if k != "note"}, nan_ok=True
        )
        assert row["note"] == record["note"]


def test_report_is_tidy_with_the_harness_columns(compas):
    masks = pd.DataFrame({"race": compas["group"], "everyone_vs_none": compas["group"] * 0 + 1})
    masks.loc[:10, "everyone_vs_none"] = 0
    report = fairness_report(compas["y_true"], compas["y_pred"], masks, significance=True)
    assert tuple(report.columns) == COLUMNS
    assert len(report) == 2 * len(METRICS)
    assert list(report["protected_attribute"].unique()) == ["race", "everyone_vs_none"]
    assert report["significant"].dtype == "boolean"
    small = report[report["protected_attribute"] == "everyone_vs_none"]
    assert small["small_sample_warning"].all()


def test_report_without_significance_leaves_the_tests_missing(compas):
    report = fairness_report(compas["y_true"], compas["y_pred"], {"race": compas["group"]})
    assert report[["ci_low", "ci_high", "p_value"]].isna().all().all()
    assert report["significant"].isna().all()
    assert report["minimum_detectable_gap"].notna().all()


def test_rows_outside_both_groups_are_left_out():
    y_true = [1, 0, 1, 1, 0, 1, 0, 0]
    y_pred = [1, 1, 0, 1, 0, 1, 1, 1]
    group = [1, 1, 0, 0, None, np.nan, 1, 0]
    dis, adv = count_confusion(y_true, y_pred, group)
    assert dis == GroupConfusion(tp=1, fp=2, tn=0, fn=0)
    assert adv == GroupConfusion(tp=1, fp=1, tn=0, fn=1)
    assert demographic_parity_diff(y_true, y_pred, group).value == pytest.approx(1 - 2 / 3)


def test_an_empty_denominator_gives_nan_with_a_note():
    y_true = [0, 0, 0, 1, 1, 0]
    y_pred = [1, 0, 1, 1, 0, 1]
    group = [1, 1, 1, 0, 0, 0]
    record = equal_opportunity_diff(y_true, y_pred, group, significance=True)
    assert math.isnan(record.value) and math.isnan(record.p_value) and record.significant is None
    assert record.note == NOTE_EMPTY.format(rows="positives (y_true = 1)", group="disadvantaged")
    assert (record.n_disadvantaged, record.n_advantaged) == (0, 2)
    odds = equalized_odds_diff(y_true, y_pred, group, significance=True)
    assert math.isnan(odds.value) and odds.note == record.note

    none_selected = disparate_impact_ratio([0, 1, 0, 1], [1, 0, 0, 0], [1, 1, 0, 0], significance=True)
    # 1 of 2 selected against 0 of 2: the ratio is infinite, and its exact interval still has a low end
    assert none_selected.value == math.inf and none_selected.ci_high == math.inf
    assert 0 <= none_selected.ci_low < 1 and none_selected.ci_method == "exact_unconditional_ratio"
    both_empty = disparate_impact_ratio([0, 1, 0, 1], [0, 0, 0, 0], [1, 1, 0, 0], significance=True)
    assert math.isnan(both_empty.value) and (both_empty.ci_low, both_empty.ci_high) == (0.0, math.inf)
    # two rows a group: no gap centred on the pooled rate 1/4 is detectable, and the note says so too
    assert none_selected.note == NOTE_RATIO_UNDEFINED + "; " + NOTE_NO_DETECTABLE_GAP.format(rate=0.25, power=0.8)
    assert math.isnan(none_selected.minimum_detectable_gap) and none_selected.mdg_rate == 0.25
    precision = predictive_parity_diff([0, 1, 0, 1], [1, 0, 0, 0], [1, 1, 0, 0])
    assert precision.note == NOTE_EMPTY.format(rows="predicted positives (y_pred = 1)", group="advantaged")


def test_ratio_interval_reaches_infinity_when_resamples_select_no_advantaged_rows():
    y_pred = [1] * 10 + [0] * 10 + [1] + [0] * 19
    group = [1] * 20 + [0] * 20
    record = disparate_impact_ratio([0] * 40, y_pred, group, significance=True, ci_method="bootstrap")
    assert record.value == pytest.approx(0.5 / 0.05)
    assert record.ci_high == math.inf and 0 < record.ci_low < record.value
    # the exact interval of 10/20 against 1/20 reaches past the ratios it searches (148): infinity above
    exact = disparate_impact_ratio([0] * 40, y_pred, group, significance=True)
    assert exact.ci_method == "exact_unconditional_ratio" and exact.p_value == record.p_value
    assert exact.ci_high == math.inf and 1 < exact.ci_low < 2
    assert record.p_value == permutation_test(y_pred[:20], y_pred[20:])
    # past the exact bound, the score interval: 1 in 200 selected is evidence of a rate above 0, so it is finite
    y_pred, group = [1] * 100 + [0] * 100 + [1] + [0] * 199, [1] * 200 + [0] * 200
    scored = disparate_impact_ratio([0] * 400, y_pred, group, significance=True)
    expected = confint_proportions_2indep(100, 200, 1, 200, method="score", compare="ratio")
    assert (scored.ci_low, scored.ci_high) == pytest.approx(expected, rel=1e-8)
    assert scored.ci_method == "miettinen_nurminen_ratio"


@pytest.mark.parametrize("container", [list, np.asarray, pd.Series])
def test_inputs_as_list_array_or_series_give_the_same_records(container):
    y_true = [1, 0, 1, 1, 0, 1, 0, 0, 1, 1]
    y_pred = [1, 1, 0, 1, 0, 1, 1, 1, 0, 1]
    group = [1, 1, 0, 0, 1, 0, 1, 0, 1, 0]
    expected = metric_records(np.array(y_true), np.array(y_pred), np.array(group), significance=True)
    got = metric_records(container(y_true), container(y_pred), container(group), significance=True)
    pd.testing.assert_frame_equal(
        pd.DataFrame([r.to_dict() for r in got]), pd.DataFrame([r.to_dict() for r in expected])
    )


def test_boolean_and_nullable_inputs_are_accepted():
    y_true = pd.Series([True, False, True, False])
    y_pred = np.array([1.0, 0.0, 1.0, 1.0])
    group = pd.Series([1, 0, pd.NA, 0], dtype="Int64")
    record = accuracy_diff(y_true, y_pred, group)
    assert (record.n_disadvantaged, record.n_advantaged) == (1, 2)


@pytest.mark.parametrize(
    "call, expected",
    [
        (lambda: demographic_parity_diff([1, 0], [1, 0, 1], [1, 0]),
         _checks.LENGTH_MISMATCH.format(name="y_pred", got=3, other="y_true", expected=2)),
        (lambda: demographic_parity_diff([1, 0], [1, 0.5], [1, 0]),
         _checks.NOT_BINARY.format(name="y_pred", found="0.5")),
        (lambda: demographic_parity_diff([1, np.nan], [1, 0], [1, 0]),
         _checks.HAS_NAN.format(name="y_true", count=1, position=1)),
        (lambda: demographic_parity_diff([1, 0], [1, 0], [1, 1]),
         _checks.EMPTY_GROUP.format(name="group", which="advantaged", value=0)),
        (lambda: fairness_report([1, 0], [1, 0], {"sex": [0, 0]}),
         _checks.EMPTY_GROUP.format(name="masks['sex']", which="disadvantaged", value=1)),
        (lambda: fairness_report([1, 0], [1, 0], {"sex": [0, 1, 1]}),
         _checks.LENGTH_MISMATCH.format(name="masks['sex']", got=3, other="y_true", expected=2)),
        (lambda: fairness_report([1, 0], [1, 0], {"sex": [0, 1]}, metrics=["parity"]),
         _checks.NOT_ONE_OF.format(name="metrics", allowed=", ".join(repr(m) for m in METRICS), value="parity")),
        (lambda: fairness_report([1, 0], [1, 0], {"sex": [0, 1]}, n_resamples=-1),
         _checks.NOT_POSITIVE_INT.format(name="n_resamples", value=-1)),
        (lambda: accuracy_diff([1, 0], [1, 0], [0, 1], random_state=1.5),
         _checks.BAD_RANDOM_STATE.format(value=1.5)),
    ],
)
def test_bad_input_gets_a_value_error_naming_the_argument(call, expected):
    with pytest.raises(ValueError) as error:
        call()
    assert isinstance(error.value, InvalidInputError)
    assert str(error.value) == expected


# --- families: adjusted p-values, each distinct test once -----------------------------


@pytest.mark.parametrize("adjust, statsmodels_method", [("holm", "holm"), ("bh", "fdr_bh")])
def test_adjusted_p_values_count_each_distinct_test_once(compas, adjust, statsmodels_method):
    from statsmodels.stats.multitest import multipletests

    masks = {"race": compas["group"], "other": 1 - compas["group"]}
    report = fairness_report(compas["y_true"], compas["y_pred"], masks, significance=True, adjust=adjust)
    assert list(report.columns) == [*COLUMNS[:COLUMNS.index("significant") + 1], *ADJUSTED_COLUMNS,
                                    *COLUMNS[COLUMNS.index("significant") + 1:]]
    distinct = report[report["metric"] != "disparate_impact_ratio"]
    expected = multipletests(distinct["p_value"].to_numpy(), method=statsmodels_method)[1]
    assert distinct["p_adjusted"].to_numpy() == pytest.approx(expected, rel=1e-12)
    for attribute in masks:
        rows = report[report["protected_attribute"] == attribute].set_index("metric")
        assert rows.loc["disparate_impact_ratio", "p_adjusted"] == rows.loc["demographic_parity_diff", "p_adjusted"]
    assert (report["significant_adjusted"] == (report["p_adjusted"] < 0.05)).all()


def test_untested_rows_stay_out_of_the_family():
    y_true = [0, 0, 0, 1, 1, 0, 1, 0]
    y_pred = [1, 0, 1, 1, 0, 1, 0, 0]
    group = [1, 1, 1, 0, 0, 0, 0, 1]  # no positives in the disadvantaged group: TPR untested
    report = fairness_report(y_true, y_pred, {"g": group}, significance=True, adjust="holm").set_index("metric")
    assert math.isnan(report.loc["equal_opportunity_diff", "p_adjusted"])
    assert report["significant_adjusted"].isna()["equal_opportunity_diff"]
    tested = report[report["p_value"].notna() & (report.index != "disparate_impact_ratio")]
    assert report.loc["accuracy_diff", "p_adjusted"] == pytest.approx(
        min(1.0, max(p * (len(tested) - i) for i, p in enumerate(sorted(tested["p_value"]))
                     if p <= report.loc["accuracy_diff", "p_value"])))


def test_adjusting_needs_significance_and_a_known_method():
    with pytest.raises(InvalidInputError) as error:
        fairness_report([1, 0], [1, 0], {"g": [1, 0]}, adjust="holm")
    assert str(error.value) == ADJUSTING_NEEDS_SIGNIFICANCE.format(adjust="holm")
    with pytest.raises(InvalidInputError) as error:
        fairness_report([1, 0], [1, 0], {"g": [1, 0]}, significance=True, adjust="bonferroni")
    assert str(error.value) == _checks.NOT_ONE_OF.format(name="adjust", allowed="'holm', 'bh'", value="bonferroni")


def test_a_mask_with_a_code_other_than_0_1_or_missing_is_refused_naming_it():
    with pytest.raises(InvalidInputError) as error:
        fairness_report([1, 0, 1, 0], [1, 0, 0, 1], {"race": [1, 0, 2, 2]})
    assert str(error.value) == _checks.OTHER_GROUP_CODES.format(name="masks['race']", count=2, found="2 x 2")


def test_every_record_plans_its_detectable_gap_at_its_pooled_rate(compas):
    report = fairness_report(compas["y_true"], compas["y_pred"], {"race": compas["group"]}).set_index("metric")
    row = report.loc["demographic_parity_diff"]
    pooled = (row.rate_disadvantaged * row.n_disadvantaged + row.rate_advantaged * row.n_advantaged) / (
        row.n_disadvantaged + row.n_advantaged)
    assert row.mdg_rate == pytest.approx(pooled, rel=1e-12)
    from faircode.power import minimum_detectable_gap
    assert row.minimum_detectable_gap == minimum_detectable_gap(int(row.n_disadvantaged), int(row.n_advantaged),
                                                                rate=row.mdg_rate)
