"""Tests of the benchmark harness: a small grid end to end, results files, the cache, failures."""

import os
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.multitest import multipletests

from faircode import _results
from faircode.benchmark import load_audit, main, parse_seeds, run_benchmark
from faircode.exceptions import BenchmarkError

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "audits"
FAIRNESS_COLUMNS = ["audit", "protected_attribute", "strategy", "model", "seed", "metric", "value", "ci_low",
                    "ci_high", "p_value", "p_adjusted", "significant", "n_disadvantaged", "n_advantaged",
                    "small_sample_warning", "minimum_detectable_gap"]
PERFORMANCE_COLUMNS = ["audit", "strategy", "model", "seed", "accuracy", "balanced_accuracy", "roc_auc"]
FAMILY = ["audit", "strategy", "model", "seed"]


@pytest.fixture
def tiny(tmp_path):
    folder = tmp_path / "audits" / "tiny"
    shutil.copytree(FIXTURES / "tiny", folder)
    return folder


def run_tiny(tiny, out, cache, **options):
    options = {"models": ["logistic_regression", "random_forest"], "seeds": [42], "jobs": 1, **options}
    return run_benchmark(out=out, audits=[str(tiny)], cache_dir=cache, progress=lambda line: None, **options)


def test_small_grid_end_to_end_writes_typed_results(tiny, tmp_path):
    grid = run_tiny(tiny, tmp_path / "results", tmp_path / "cache", jobs=2)
    fairness = pd.read_csv(tmp_path / "results" / "results_fairness.csv")
    performance = pd.read_csv(tmp_path / "results" / "results_performance.csv")
    assert list(fairness.columns[:7]) == FAIRNESS_COLUMNS[:7]
    assert set(FAIRNESS_COLUMNS) <= set(fairness.columns)
    assert set(PERFORMANCE_COLUMNS) <= set(performance.columns)
    # 2 models x 4 strategies x 3 attributes x 7 metrics; 2 models x 4 strategies
    assert len(fairness) == 2 * 4 * 3 * 7 and len(performance) == 2 * 4
    assert set(fairness["strategy"]) == {"baseline", "unawareness_proxy_removal", "reweighing", "group_thresholds"}
    for column in ("value", "ci_low", "ci_high", "p_value", "p_adjusted", "minimum_detectable_gap"):
        assert pd.api.types.is_float_dtype(fairness[column]), column
    for column in ("n_disadvantaged", "n_advantaged", "seed"):
        assert pd.api.types.is_integer_dtype(fairness[column]), column
    assert fairness["small_sample_warning"].dtype == bool
    assert set(fairness["significant"].dropna().unique()) <= {True, False}
    assert performance[["accuracy", "balanced_accuracy", "roc_auc"]].apply(lambda s: s.between(0, 1).all()).all()
    assert not list((tmp_path / "results").glob("*.tmp"))
    umask = os.umask(0)
    os.umask(umask)
    assert (tmp_path / "results" / "results_fairness.csv").stat().st_mode & 0o777 == 0o666 & ~umask
    assert len(grid.units) == 2 and not any(u.from_cache for u in grid.units)


def test_holm_within_each_family_matches_statsmodels(tiny, tmp_path):
    run_tiny(tiny, tmp_path / "results", tmp_path / "cache")
    fairness = pd.read_csv(tmp_path / "results" / "results_fairness.csv")
    for _, family in fairness.groupby(FAMILY):
        tested = family.dropna(subset=["p_value"])
        expected = multipletests(tested["p_value"], method="holm")[1]
        assert np.allclose(tested["p_adjusted"], expected, rtol=1e-9, atol=1e-12)


def test_group_sizes_in_results_are_test_set_sizes(tiny, tmp_path):
    run_tiny(tiny, tmp_path / "results", tmp_path / "cache", models=["logistic_regression"])
    fairness = pd.read_csv(tmp_path / "results" / "results_fairness.csv")
    data = load_audit(tiny)
    region = data.masks["region"].to_numpy()[data.idx_test]
    row = fairness.query("protected_attribute == 'region' and metric == 'demographic_parity_diff'").iloc[0]
    assert (row["n_disadvantaged"], row["n_advantaged"]) == ((region == 1).sum(), (region == 0).sum())


def test_unchanged_rerun_comes_whole_from_the_cache(tiny, tmp_path):
    # How long it takes is measured by bench/harness.py, not asserted here.
    out, cache = tmp_path / "results", tmp_path / "cache"
    run_tiny(tiny, out, cache)
    first = (out / "results_fairness.csv").read_bytes()
    grid = run_tiny(tiny, out, cache)
    assert all(u.from_cache for u in grid.units)
    assert (out / "results_fairness.csv").read_bytes() == first


def test_a_changed_manifest_or_a_corrupt_entry_is_recomputed(tiny, tmp_path):
    out, cache = tmp_path / "results", tmp_path / "cache"
    grid = run_tiny(tiny, out, cache, models=["logistic_regression"])
    entry = cache / f"{grid.units[0].unit.key}.pkl"
    entry.write_bytes(b"not a pickle")
    assert not run_tiny(tiny, out, cache, models=["logistic_regression"]).units[0].from_cache
    path = tiny / "audit.yaml"
    path.write_text(path.read_text().replace("test_size: 0.25", "test_size: 0.3"))
    again = run_tiny(tiny, out, cache, models=["logistic_regression"])
    assert not again.units[0].from_cache
    assert again.performance["n_test"].iloc[0] == 24


def test_code_digest_covers_the_modules_a_unit_runs():
    from faircode.harness import _module_closure

    names = {p.name for p in _module_closure("_unit")}
    assert {"_unit.py", "datasets.py", "manifest.py", "strategies.py", "models.py", "metrics.py",
            "significance.py"} <= names
    assert "benchmark.py" not in names and "__init__.py" not in names


def test_several_seeds_write_the_spread_summary(tiny, tmp_path):
    run_tiny(tiny, tmp_path / "results", tmp_path / "cache", models=["logistic_regression"], seeds=[40, 41, 42])
    fairness = pd.read_csv(tmp_path / "results" / "results_fairness.csv")
    spread = pd.read_csv(tmp_path / "results" / "results_seed_spread.csv")
    assert sorted(fairness["seed"].unique()) == [40, 41, 42]
    assert len(spread) == len(fairness) // 3
    assert {"mean", "sd", "min", "max", "share_significant", "share_opposite_sign"} <= set(spread.columns)
    row = spread.iloc[0]
    values = fairness.merge(spread.iloc[[0]][list(_results.ROW_KEY)])["value"]
    assert row["mean"] == pytest.approx(values.mean()) and row["sd"] == pytest.approx(values.std(ddof=1))
    assert row["default_seed"] == 42 and 0 <= row["share_opposite_sign"] <= 2 / 3


def test_deployed_score_is_audited_as_a_model(tmp_path):
    grid = run_benchmark(out=tmp_path / "results", audits=["compas"], models=["compas_score"], jobs=1,
                         cache_dir=tmp_path / "cache", progress=lambda line: None)
    assert set(grid.performance["strategy"]) == {"baseline", "group_thresholds"}
    data = load_audit("compas")
    expected = (data.df["decile_score"].to_numpy()[data.idx_test] >= 5).mean()
    baseline = grid.performance.query("strategy == 'baseline'").iloc[0]
    assert baseline["selection_rate"] == pytest.approx(expected)


def previous_results(out: Path) -> dict[str, bytes]:
    out.mkdir(parents=True, exist_ok=True)
    for name in ("results_fairness.csv", "results_performance.csv"):
        (out / name).write_text(f"previous {name}\n")
    return {p.name: p.read_bytes() for p in out.iterdir()}


def test_missing_data_file_leaves_results_as_they_were(tiny, tmp_path):
    out = tmp_path / "results"
    before = previous_results(out)
    (tiny / "data" / "tiny.csv").unlink()
    with pytest.raises(BenchmarkError, match=r"audit 'tiny' .*field 'data.path'.*tiny.csv not found"):
        run_tiny(tiny, out, tmp_path / "cache")
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


def test_a_failing_work_unit_leaves_results_as_they_were(tiny, tmp_path):
    out = tmp_path / "results"
    before = previous_results(out)
    path = tiny / "audit.yaml"
    path.write_text(path.read_text().replace("core_features: [years, score]", "core_features: [years, scroe]"))
    with pytest.raises(BenchmarkError, match=r"field 'core_features': column 'scroe' is not in tiny.csv"):
        run_tiny(tiny, out, tmp_path / "cache", jobs=2)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


def test_a_failed_write_leaves_results_as_they_were(tmp_path, monkeypatch):
    out = tmp_path / "results"
    before = previous_results(out)
    table = pd.DataFrame({"seed": [42], "value": [0.1]})
    calls = []
    original = pd.DataFrame.to_csv

    def fail_second(self, *args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise OSError("disk full")
        return original(self, *args, **kwargs)

    monkeypatch.setattr(pd.DataFrame, "to_csv", fail_second)
    with pytest.raises(BenchmarkError, match="disk full.*previous results are unchanged"):
        _results.write_results(table, table, out)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


def test_command_line(tiny, tmp_path, capsys):
    code = main(["--audits", str(tiny), "--models", "logistic_regression", "--strategies", "baseline",
                 "--seeds", "42", "--jobs", "1", "--out", str(tmp_path / "r"), "--cache-dir", str(tmp_path / "c")])
    printed = capsys.readouterr().out
    assert code == 0
    assert "[1/1] tiny logistic_regression seed 42" in printed and "wrote 21 fairness rows" in printed
    assert main(["--audits", str(tmp_path / "nowhere"), "--out", str(tmp_path / "r")]) == 1
    assert "no audit called" in capsys.readouterr().err


def test_parse_seeds():
    assert parse_seeds("42") == [42]
    assert parse_seeds("0-3") == [0, 1, 2, 3]
    assert parse_seeds("1,5,2-3") == [1, 5, 2, 3]
    with pytest.raises(Exception, match="expected seeds like 42, 0-29 or 1,2,3"):
        parse_seeds("x")
