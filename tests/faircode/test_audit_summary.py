"""faircode.audit_summary: group tables checked against the raw data, results rows selected exactly."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from faircode.audit_summary import GROUP_COLUMNS, RESULT_COLUMNS, audit_groups, audit_results, default_results_dir
from faircode.benchmark import load_audit
from faircode.exceptions import AuditDataError, BenchmarkError, InvalidInputError
from faircode.metrics import METRICS

GERMAN = Path(__file__).resolve().parents[2] / "audits" / "german_credit_lending" / "data" / "german.data"
FEMALE_CODES = ("A92", "A95")  # personal status and sex, attribute 9 of the UCI documentation
BAD_RISK = 2  # attribute 21: 1 = good, 2 = bad


@lru_cache(maxsize=None)
def german_groups() -> pd.DataFrame:
    return audit_groups("german_credit_lending").set_index("attribute")


def raw_german() -> pd.DataFrame:
    raw = pd.read_csv(GERMAN, sep=" ", header=None)
    return pd.DataFrame({"female": raw[8].isin(FEMALE_CODES), "age": raw[12], "bad": raw[20] == BAD_RISK})


def test_audit_groups_has_one_row_per_attribute_and_intersection():
    table = audit_groups("German Credit Lending")
    assert tuple(table.columns) == GROUP_COLUMNS
    assert list(table["attribute"]) == ["age", "sex", "age_x_sex"]


def test_group_sizes_and_base_rates_match_the_raw_file():
    raw, groups = raw_german(), german_groups()
    women, men = raw[raw["female"]], raw[~raw["female"]]
    assert (groups.loc["sex", "n_disadvantaged"], groups.loc["sex", "n_advantaged"]) == (len(women), len(men))
    assert groups.loc["sex", "base_rate_disadvantaged"] == pytest.approx(women["bad"].mean())
    assert groups.loc["sex", "base_rate_advantaged"] == pytest.approx(men["bad"].mean())
    young = raw[raw["age"] <= 25]
    assert groups.loc["age", "n_disadvantaged"] == len(young)
    assert groups.loc["age", "base_rate_gap"] == pytest.approx(
        young["bad"].mean() - raw[raw["age"] > 25]["bad"].mean())


def test_the_intersection_is_disadvantaged_on_both_against_advantaged_on_both():
    raw, groups = raw_german(), german_groups()
    both_low = raw["female"] & (raw["age"] <= 25)
    both_high = ~raw["female"] & (raw["age"] > 25)
    row = groups.loc["age_x_sex"]
    assert (row["n_disadvantaged"], row["n_advantaged"]) == (both_low.sum(), both_high.sum())
    assert row["disadvantaged"] == "age <= 25 and sex in ['female']"
    assert row["advantaged"] == "age > 25 and sex in ['male']"


def test_test_split_sizes_count_the_groups_rows_among_the_test_rows():
    data = load_audit("german_credit_lending")
    groups = audit_groups(data).set_index("attribute")
    sex_on_test = data.masks["sex"].to_numpy()[data.idx_test]
    assert groups.loc["sex", "n_test_disadvantaged"] == int((sex_on_test == 1).sum())
    assert groups.loc["sex", "n_test_disadvantaged"] + groups.loc["sex", "n_test_advantaged"] == len(data.idx_test)


def test_audit_groups_names_an_unknown_audit():
    with pytest.raises(AuditDataError, match="no audit called 'no_such_audit'"):
        audit_groups("no_such_audit")


def results_table() -> pd.DataFrame:
    rows = []
    for audit in ("compas", "law_school"):
        for strategy in ("baseline", "reweighing"):
            for model in ("logistic_regression", "random_forest"):
                for seed in (42, 7):
                    for metric in ("demographic_parity_diff", "equal_opportunity_diff"):
                        rows.append({"audit": audit, "protected_attribute": "race", "strategy": strategy,
                                     "model": model, "seed": seed, "metric": metric,
                                     "value": len(rows) / 100, "p_value": 0.01, "p_adjusted": 0.02})
    table = pd.DataFrame(rows)
    for column in RESULT_COLUMNS:
        if column not in table:
            table[column] = np.nan
    return table


@pytest.fixture
def results_dir(tmp_path) -> Path:
    results_table().to_csv(tmp_path / "results_fairness.csv", index=False)
    return tmp_path


def test_audit_results_keeps_one_audit_strategy_model_and_the_headline_seed(results_dir):
    rows = audit_results("compas", results_dir)
    assert tuple(rows.columns) == RESULT_COLUMNS
    assert list(rows["metric"]) == ["demographic_parity_diff", "equal_opportunity_diff"]
    assert set(rows["strategy"]) == {"baseline"} and set(rows["model"]) == {"logistic_regression"}
    assert set(rows["seed"]) == {42}
    assert list(rows["value"]) == [0.0, 0.01]


def test_audit_results_falls_back_to_the_smallest_seed_without_the_headline_one(tmp_path):
    table = results_table()
    table[table.seed != 42].to_csv(tmp_path / "results_fairness.csv", index=False)
    rows = audit_results("compas", tmp_path)
    assert set(rows["seed"]) == {7}
    assert list(rows["value"]) == [0.02, 0.03]


def test_audit_results_with_none_keeps_every_strategy_and_model(results_dir):
    rows = audit_results("COMPAS Recidivism", results_dir, strategy=None, model=None, seed=42)
    assert len(rows) == 2 * 2 * 2
    assert set(rows["seed"]) == {42}


@pytest.mark.parametrize("options, message", [
    ({"strategy": "magic"}, "no rows for audit 'compas' with strategy 'magic'; it has strategy baseline, reweighing"),
    ({"model": "svm"}, "with model 'svm'; it has model logistic_regression, random_forest"),
    ({"seed": 3}, "with seed 3; it has seed 42, 7"),
])
def test_audit_results_says_what_the_file_holds_when_nothing_matches(results_dir, options, message):
    with pytest.raises(BenchmarkError, match=message):
        audit_results("compas", results_dir, **options)


def test_audit_results_names_an_audit_missing_from_the_file(results_dir):
    with pytest.raises(BenchmarkError, match="no rows for audit 'health_risk' with audit 'health_risk'"):
        audit_results("health_risk", results_dir)


def test_audit_results_tells_how_to_create_a_missing_file(tmp_path):
    with pytest.raises(BenchmarkError, match="python -m faircode.benchmark --seeds 42 --out"):
        audit_results("compas", tmp_path)


def test_audit_results_names_missing_columns(tmp_path):
    results_table().drop(columns=["p_adjusted"]).to_csv(tmp_path / "results_fairness.csv", index=False)
    with pytest.raises(BenchmarkError, match="lacks the column\\(s\\) p_adjusted"):
        audit_results("compas", tmp_path)


def test_the_committed_results_hold_every_metric_of_every_attribute_for_each_audit():
    data = load_audit("german_credit_lending")
    rows = audit_results("german_credit_lending", default_results_dir())
    assert set(rows["protected_attribute"]) == set(data.masks)
    assert set(rows["metric"]) == set(METRICS)
    tested = rows.dropna(subset=["p_value"])
    assert (tested["p_adjusted"] >= tested["p_value"] - 1e-12).all()


def reader_rows() -> pd.DataFrame:
    return pd.DataFrame({
        "protected_attribute": ["race", "race", "sex"],
        "metric": ["demographic_parity_diff", "disparate_impact_ratio", "predictive_parity_diff"],
        "value": [-0.0512, 0.8, np.nan], "ci_low": [-0.081, 0.71, np.nan], "ci_high": [-0.0204, 0.9, np.nan],
        "p_value": [0.0004, 0.0004, np.nan], "p_adjusted": [0.003, 0.06, np.nan],
        "minimum_detectable_gap": [0.0412, 0.0412, np.nan],
        "n_disadvantaged": [100, 100, 3], "n_advantaged": [200, 200, 40],
        "small_sample_warning": [False, False, True],
    })


def test_results_table_writes_one_line_per_test_as_a_reader_reads_it():
    from faircode import audit_summary

    table = audit_summary.results_table(reader_rows())
    parity = table.loc[("race", "demographic parity")]
    assert (parity["gap"], parity["95% interval"], parity["MDG"]) == ("-0.051", "-0.081 to -0.020", "0.041")
    assert (parity["rows compared"], parity["finding"], parity["small sample"]) == ("100 vs 200", "yes", "")
    ratio = table.loc[("race", "ratio of positive rates")]    # rows that do not say their audit
    assert (ratio["gap"], ratio["finding"]) == ("0.800", "no")
    untested = table.loc[("sex", "predictive parity")]
    assert (untested["gap"], untested["small sample"], untested["finding"]) == ("n/a", "yes", "no")
    assert audit_summary.results_table(reader_rows(), alpha=0.1).loc[("race", "ratio of positive rates"),
                                                                     "finding"] == "yes"


def test_strategy_table_compares_the_strategies_on_one_attribute(results_dir):
    from faircode import audit_summary

    pd.DataFrame({"audit": ["compas"] * 2, "strategy": ["baseline", "reweighing"],
                  "model": ["logistic_regression"] * 2, "seed": [42, 42],
                  "balanced_accuracy": [0.6512, 0.6401]}).to_csv(results_dir / "results_performance.csv", index=False)
    table = audit_summary.strategy_table("compas", "race", results_dir=results_dir)
    assert list(table.index) == ["baseline", "reweighing"]
    assert list(table.columns) == ["demographic parity gap", "equal opportunity gap", "demographic parity Holm p",
                                   "equal opportunity Holm p", "balanced accuracy"]
    assert table.loc["reweighing", "balanced accuracy"] == "0.640"
    assert table.loc["baseline", "demographic parity gap"] == "+0.000"   # seed 42, the headline seed


def test_audit_overview_states_size_label_and_whether_a_positive_is_a_harm():
    from faircode import audit_summary

    lines = audit_summary.audit_overview(load_audit("german_credit_lending")).splitlines()
    assert lines[0] == "German Credit Lending: 1000 rows, 200 in the test split"
    assert lines[1].startswith("label: credit ") and "bad" in lines[1]
    assert lines[2] == "a positive label is adverse for the person; 300 rows are positive (30.0%)"


def test_group_table_and_descriptions_follow_audit_groups():
    from faircode import audit_summary

    groups = german_groups().reset_index()
    described = audit_summary.describe_groups(groups).splitlines()
    assert len(described) == len(groups) and described[0].startswith(f"{groups.attribute[0]}: ")
    table = audit_summary.group_table(groups)
    assert list(table.index) == list(groups.attribute.map(audit_summary.attribute_label))
    assert table.loc["age", "rows (disadv.)"] == 190 and table.loc["age", "rows (adv.)"] == 810
    assert table["base-rate gap"].round(3).equals(table["base-rate gap"])


def test_group_tables_name_an_intersection_as_a_reader_does_never_by_its_key():
    from faircode import audit_summary

    groups = german_groups().reset_index()
    table = audit_summary.group_table(groups)
    assert list(table.index) == ["age", "sex", "age by sex"] and table.index.name == "attribute"
    assert table.loc["age by sex", "rows (disadv.)"] == groups.set_index("attribute").loc["age_x_sex",
                                                                                          "n_disadvantaged"]
    described = audit_summary.describe_groups(groups)
    assert "age_x_sex" not in described
    assert described.splitlines()[2] == ("age by sex: age <= 25 and sex in ['female'] (disadvantaged) "
                                         "against age > 25 and sex in ['male']")
    assert audit_summary.attribute_label("national_origin") == "national origin"


def spread_file(folder: Path, rows: pd.DataFrame, *, sd: float = 0.05, opposite: float = 0.1) -> None:
    """A seed spread file holding one row per (attribute, strategy, model, metric) of ``rows``."""
    from faircode.benchmark import SPREAD_COLUMNS

    spread = rows[["audit", "protected_attribute", "strategy", "model", "metric"]].drop_duplicates().copy()
    spread = spread.assign(n_seeds=31, mean=0.1, sd=sd, min=-0.05, max=0.25, share_significant=0.5,
                           share_significant_adjusted=0.25, share_opposite_sign=opposite,
                           default_seed=42, default_value=0.1)
    spread.reindex(columns=list(SPREAD_COLUMNS)).to_csv(folder / "results_seed_spread.csv", index=False)


def test_with_seed_spread_joins_each_row_its_own_spread(results_dir):
    from faircode.audit_summary import SPREAD_RESULT_COLUMNS, with_seed_spread

    table = results_table()
    spread_file(results_dir, table)
    spread = pd.read_csv(results_dir / "results_seed_spread.csv")
    spread.loc[spread.metric == "equal_opportunity_diff", "sd"] = 0.2   # tell the two metrics apart
    spread.to_csv(results_dir / "results_seed_spread.csv", index=False)
    rows = with_seed_spread(audit_results("compas", results_dir), "compas", results_dir)
    assert tuple(rows.columns[-len(SPREAD_RESULT_COLUMNS):]) == SPREAD_RESULT_COLUMNS
    assert dict(zip(rows.metric, rows.seed_sd)) == {"demographic_parity_diff": 0.05, "equal_opportunity_diff": 0.2}
    assert list(rows.seed_n) == [31, 31]


def test_with_seed_spread_names_a_row_the_sweep_lacks(results_dir):
    from faircode.audit_summary import with_seed_spread

    table = results_table()
    spread_file(results_dir, table[table.metric == "demographic_parity_diff"])
    with pytest.raises(BenchmarkError,
                       match="no row for compas race baseline logistic_regression equal_opportunity_diff"):
        with_seed_spread(audit_results("compas", results_dir), "compas", results_dir)


def test_with_seed_spread_says_how_to_write_a_missing_file(results_dir):
    from faircode.audit_summary import with_seed_spread

    with pytest.raises(BenchmarkError, match="--sweep"):
        with_seed_spread(audit_results("compas", results_dir), "compas", results_dir)


def test_results_table_shows_the_seed_spread_and_the_note_names_the_interval():
    from faircode import audit_summary

    rows = reader_rows().assign(ci_method="agresti_caffo", seed_n=31, seed_mean=0.0, seed_sd=0.0312,
                                seed_min=-0.0104, seed_max=0.0921, seed_share_significant_adjusted=0.5,
                                seed_share_opposite_sign=0.0645)
    parity = audit_summary.results_table(rows).loc[("race", "demographic parity")]
    assert parity["95% interval"] == "-0.081 to -0.020"
    expected = "intervals: Agresti-Caffo's adjusted Wald (gaps, ratio of positive rates)"   # no audit named
    assert audit_summary.interval_note(rows) == expected
    assert (parity["seed sd"], parity["seed range"], parity["seeds opposite sign"]) == ("0.031",
                                                                                        "-0.010 to +0.092", "6%")


def test_favourable_ratio_divides_the_rates_of_the_outcome_nobody_minds():
    from faircode.audit_summary import favourable_ratio

    rows = pd.DataFrame({"protected_attribute": ["sex", "sex", "age"],
                         "metric": ["demographic_parity_diff", "disparate_impact_ratio", "demographic_parity_diff"],
                         "rate_disadvantaged": [0.10, 0.10, 0.50], "rate_advantaged": [0.30, 0.30, 0.20]})
    table = favourable_ratio(rows)                      # rows naming no audit: a positive is a harm
    assert list(table.index) == ["sex", "age"]          # one row per attribute, from the parity rows
    assert table.loc["sex", "favourable ratio"] == pytest.approx(0.9 / 0.7, abs=5e-4)
    assert table.loc["age", "favourable ratio"] == pytest.approx(0.5 / 0.8, abs=5e-4)
    assert list(table["below four-fifths"]) == [False, True]
    kept = favourable_ratio(rows, outcome="favourable")  # a positive is the favourable outcome
    assert kept.loc["sex", "favourable ratio"] == pytest.approx(0.1 / 0.3, abs=5e-4)
    assert list(kept["below four-fifths"]) == [True, False]
    with pytest.raises(InvalidInputError, match="outcome must be"):
        favourable_ratio(rows, outcome="neutral")


def test_favourable_ratio_reads_the_audits_outcome_and_names_attributes_as_a_reader_does():
    from faircode.audit_summary import audit_results, favourable_ratio

    adverse = audit_results("benefits_denial")              # a positive prediction denies the benefit
    parity = adverse[adverse.metric == "demographic_parity_diff"].set_index("protected_attribute")
    table = favourable_ratio(adverse)
    assert "race by sex" in table.index and "race_x_sex" not in table.index
    assert "national origin" in table.index
    assert table.loc["sex", "favourable ratio"] == pytest.approx(
        (1 - parity.loc["sex", "rate_disadvantaged"]) / (1 - parity.loc["sex", "rate_advantaged"]), abs=5e-4)
    favourable = audit_results("law_school")                # a positive prediction is a predicted pass
    ratio = favourable[favourable.metric == "disparate_impact_ratio"].set_index("protected_attribute").value
    # on a favourable label the results file's ratio is already the disparate impact ratio
    assert favourable_ratio(favourable).loc["race", "favourable ratio"] == pytest.approx(ratio["race"], abs=5e-4)
    nobody = audit_results("hiring_callbacks")              # the model predicts no callback at all
    assert favourable_ratio(nobody)["favourable ratio"].isna().all()
    assert not favourable_ratio(nobody)["below four-fifths"].any()


def test_headline_rows_are_the_primary_attributes_parity_and_error_rate_gaps(results_dir):
    from faircode.audit_summary import HEADLINE_METRICS, headline_rows

    table = results_table()
    spread_file(results_dir, table)
    # the fixture holds two metrics only; the headline keeps those of them it names
    rows = headline_rows("compas", results_dir)
    assert set(rows.metric) <= set(HEADLINE_METRICS)
    assert set(rows.protected_attribute) == {"race"}
    assert list(rows.metric) == ["demographic_parity_diff", "equal_opportunity_diff"]


def test_results_table_names_the_ratio_by_what_it_divides_and_each_interval():
    from faircode import audit_summary

    adverse = audit_summary.audit_results("benefits_denial", strategy="baseline", model="logistic_regression")
    favourable = audit_summary.audit_results("hiring_callbacks", strategy="baseline", model="logistic_regression")
    adverse_table, favourable_table = audit_summary.results_table(adverse), audit_summary.results_table(favourable)
    assert ("sex", audit_summary.HARMFUL_RATIO_LABEL) in adverse_table.index
    assert ("race", audit_summary.FAVOURABLE_RATIO_LABEL) in favourable_table.index
    assert not any(metric == "ratio of positive rates" for _, metric in adverse_table.index)
    note = audit_summary.interval_note(adverse)
    assert all(audit_summary.INTERVAL_DESCRIPTIONS[m] in note for m in adverse.ci_method.dropna())
    # joining the seed spread keeps what the audit is
    spread = audit_summary.with_seed_spread(adverse, "benefits_denial", missing="keep")
    assert ("sex", audit_summary.HARMFUL_RATIO_LABEL) in audit_summary.results_table(spread).index


def test_strategy_table_names_the_strategies_as_a_reader_does():
    from faircode import audit_summary

    table = audit_summary.strategy_table("benefits_denial", "sex")
    assert set(table.index) == {audit_summary.STRATEGY_LABELS[s] for s in
                                ("baseline", "unawareness_proxy_removal", "reweighing", "group_thresholds")}
    assert audit_summary.attribute_label("race_x_sex") == "race by sex"
    ratios = audit_summary.strategy_table("benefits_denial", "sex",
                                          metrics=("false_positive_rate_diff", "disparate_impact_ratio"))
    assert list(ratios.columns) == ["false positive rate gap", "ratio of harmful rates",
                                    "false positive rate Holm p", "ratio of harmful rates Holm p",
                                    "balanced accuracy"]
    assert not ratios["ratio of harmful rates"].str.startswith("+").any()   # a ratio has no sign


def test_the_interval_note_names_the_ratio_as_the_table_does():
    from faircode import audit_summary

    adverse = audit_summary.audit_results("benefits_denial")
    favourable = audit_summary.audit_results("law_school")
    assert f"({audit_summary.HARMFUL_RATIO_LABEL})" in audit_summary.interval_note(adverse)
    assert f"({audit_summary.FAVOURABLE_RATIO_LABEL})" in audit_summary.interval_note(favourable)
    assert "Sidak's combination of two Agresti-Caffo intervals (equalized odds)" in audit_summary.interval_note(adverse)
