"""Tests of the benchmark harness: a small grid end to end, results files, the cache, failures."""

import json
import os
import pickle
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.multitest import multipletests

from faircode import _results
from faircode.benchmark import main, parse_seeds, run_benchmark
from faircode.datasets import audit_from_manifest, available_audits, find_manifest_path, load_audit
from faircode.exceptions import BenchmarkError
from faircode.manifest import load_manifest

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
    unit = grid.units[0].unit
    (cache / f"unit-{unit.key}.pkl").write_bytes(b"not a pickle")
    assert run_tiny(tiny, out, cache, models=["logistic_regression"]).units[0].from_cache == "predictions"
    (cache / f"unit-{unit.key}.pkl").write_bytes(b"not a pickle")
    (cache / f"pred-{unit.fit_key}.pkl").write_bytes(b"not a pickle either")
    assert run_tiny(tiny, out, cache, models=["logistic_regression"]).units[0].from_cache == ""
    path = tiny / "audit.yaml"
    path.write_text(path.read_text().replace("test_size: 0.25", "test_size: 0.3"))
    again = run_tiny(tiny, out, cache, models=["logistic_regression"])
    assert not again.units[0].from_cache
    assert again.performance["n_test"].iloc[0] == 24


def test_code_digests_cover_exactly_the_modules_each_cache_level_runs(tmp_path, monkeypatch):
    from faircode import _digest

    fit = {p.name for p in _digest.module_closure("_fit")}
    unit = {p.name for p in _digest.module_closure("_unit")}
    assert {"_fit.py", "datasets.py", "manifest.py", "strategies.py", "models.py"} <= fit
    assert not fit & {"metrics.py", "significance.py", "_unit.py"}
    assert fit | {"_unit.py", "metrics.py", "_report.py"} <= unit
    assert not (fit | unit) & {"harness.py", "benchmark.py", "_cluster.py", "_record.py", "__init__.py"}
    # Edit copies of the sources: statistics change the tables' digest only, the harness neither.
    package = tmp_path / "faircode"
    shutil.copytree(_digest.PACKAGE_DIR, package, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(_digest, "PACKAGE_DIR", package)
    before = _digest.code_digest("_fit"), _digest.code_digest("_unit")
    (package / "harness.py").write_text((package / "harness.py").read_text().replace("work units", "units"))
    assert (_digest.code_digest("_fit"), _digest.code_digest("_unit")) == before
    (package / "metrics.py").write_text((package / "metrics.py").read_text() + "\n# edited\n")
    assert _digest.code_digest("_fit") == before[0] and _digest.code_digest("_unit") != before[1]
    (package / "models.py").write_text((package / "models.py").read_text() + "\n# edited\n")
    assert _digest.code_digest("_fit") != before[0]


def test_a_statistics_change_reuses_the_cached_fits(tiny, tmp_path, monkeypatch):
    from faircode import _digest, _unit, harness

    out, cache = tmp_path / "results", tmp_path / "cache"
    first = run_tiny(tiny, out, cache)
    fairness = (out / "results_fairness.csv").read_bytes()
    edited = _digest.code_digest("_unit") + "-edited"  # as if a statistics module had changed
    real = _digest.code_digest
    monkeypatch.setattr(harness, "code_digest", lambda entry: edited if entry == "_unit" else real(entry))
    monkeypatch.setattr(_unit, "process_code_digest", lambda entry: edited)
    again = run_tiny(tiny, out, cache)
    assert [u.from_cache for u in again.units] == ["predictions"] * len(first.units)
    assert {u.unit.fit_key for u in again.units} == {u.unit.fit_key for u in first.units}
    assert (out / "results_fairness.csv").read_bytes() == fairness


def test_a_worker_with_other_code_refuses_the_unit(tiny, tmp_path, monkeypatch):
    from faircode import _unit

    monkeypatch.setattr(_unit, "process_code_digest", lambda entry: "another faircode")
    with pytest.raises(BenchmarkError,
                       match="tiny x logistic_regression x seed 42 failed.*same faircode on the client"):
        run_tiny(tiny, tmp_path / "results", tmp_path / "cache", models=["logistic_regression"])


def test_local_processes_and_this_process_write_the_same_bytes(tiny, tmp_path):
    run_tiny(tiny, tmp_path / "one", tmp_path / "cache-one", jobs=1, seeds=[3, 42])
    run_tiny(tiny, tmp_path / "two", tmp_path / "cache-two", jobs=2, seeds=[3, 42])
    for name in ("results_fairness.csv", "results_performance.csv", "results_seed_spread.csv"):
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes(), name


def test_public_face_of_the_benchmark():
    import faircode.benchmark as benchmark
    from faircode import _grid, models, strategies

    assert not [name for name in benchmark.__all__ if name.startswith("_")]
    assert not {"load_audit", "AuditData", "available_audits", "WorkUnit"} & set(benchmark.__all__)
    assert all(getattr(benchmark, name) is not None for name in benchmark.__all__)
    assert models.MODELS is _grid.MODELS is benchmark.MODELS
    assert strategies.STRATEGIES is _grid.STRATEGIES is benchmark.STRATEGIES
    assert _results.SPREAD_FILE in benchmark.RESULTS_FILES


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
    assert "[1/1] tiny x logistic_regression x seed 42: fitted and audited" in printed
    assert "wrote 21 fairness rows" in printed
    assert main(["--audits", str(tmp_path / "nowhere"), "--out", str(tmp_path / "r")]) == 1
    assert "no audit called" in capsys.readouterr().err


def test_parse_seeds():
    assert parse_seeds("42") == [42]
    assert parse_seeds("0-3") == [0, 1, 2, 3]
    assert parse_seeds("1,5,2-3") == [1, 5, 2, 3]
    with pytest.raises(Exception, match="expected seeds like 42, 0-29 or 1,2,3"):
        parse_seeds("x")
    with pytest.raises(Exception, match="the range '5-2' is empty: write its smaller seed first"):
        parse_seeds("5-2")
    with pytest.raises(Exception, match=r"expected seeds from 0 to 4294967295 \(scikit-learn's random_state\)"):
        parse_seeds("99999999999999999999")
    assert parse_seeds("4294967295") == [4294967295]


@pytest.mark.parametrize("options, message", [
    (["--jobs", "0"], "--jobs: expected a whole number of at least 1; got '0'"),
    (["--jobs", "two"], "--jobs: expected a whole number of at least 1; got 'two'"),
    (["--seeds", "1", "--sweep"], "--sweep summarises several seeds; got one"),
])
def test_bad_options_are_refused_before_any_work(tiny, tmp_path, capsys, options, message):
    with pytest.raises(SystemExit) as stop:
        main(["--audits", str(tiny), "--models", "logistic_regression", "--out", str(tmp_path / "r"),
              "--cache-dir", str(tmp_path / "c"), *options])
    assert stop.value.code == 2 and message in capsys.readouterr().err
    assert not (tmp_path / "c").exists() and not (tmp_path / "r").exists(), "nothing ran"


def test_an_out_that_is_a_file_is_refused_and_kept(tiny, tmp_path, capsys):
    out = tmp_path / "afile"
    out.write_text("mine\n")
    with pytest.raises(SystemExit) as stop:
        main(["--audits", str(tiny), "--models", "logistic_regression", "--out", str(out),
              "--cache-dir", str(tmp_path / "c")])
    assert stop.value.code == 2 and f"--out {out} is a file; expected a folder" in capsys.readouterr().err
    assert out.read_text() == "mine\n" and not (tmp_path / "c").exists()


def test_a_misspelt_model_beside_a_good_one_is_an_error(tiny, tmp_path):
    with pytest.raises(BenchmarkError, match=r"the models \['nosuch'\] apply to none of the audits \['tiny'\]"):
        run_tiny(tiny, tmp_path / "r", tmp_path / "c", models=["logistic_regression", "nosuch"])
    assert not (tmp_path / "r").exists()


def test_results_carry_a_record_that_verify_checks(tiny, tmp_path, capsys):
    out = tmp_path / "r"
    options = ["--audits", str(tiny), "--models", "logistic_regression", "--jobs", "1", "--out", str(out),
               "--cache-dir", str(tmp_path / "c")]
    assert main(options) == 0
    record = json.loads((out / "inputs.json").read_text())
    entry = record["files"]["results_fairness.csv"]
    assert entry["audits"]["tiny"].keys() == {"manifest", "audit.yaml", "data/tiny.csv"}
    assert entry["audits"]["tiny"]["manifest"] == str(tiny / "audit.yaml")
    assert "metrics.py" in entry["code"] and "harness.py" not in entry["code"]
    assert main(["--verify", "--out", str(out)]) == 0
    capsys.readouterr()
    # Unchanged inputs: the files are reused as they are, nothing runs.
    stamp = (out / "results_fairness.csv").stat().st_mtime_ns
    assert main(options) == 0
    assert "are current for their recorded inputs" in capsys.readouterr().out
    assert (out / "results_fairness.csv").stat().st_mtime_ns == stamp
    # A changed input or an edited file makes verify fail, saying which and how to regenerate.
    path = tiny / "audit.yaml"
    path.write_text(path.read_text().replace("test_size: 0.25", "test_size: 0.3"))
    with open(out / "results_performance.csv", "a") as handle:
        handle.write("edited\n")
    assert main(["--verify", "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert "results_fairness.csv is stale: audit tiny: audit.yaml changed" in err
    assert "results_performance.csv is stale: the file was edited" in err
    assert f"--seeds 42 --out {out}" in err
    assert main(options) == 0 and main(["--verify", "--out", str(out)]) == 0


def test_verify_takes_paths_and_names_a_damaged_entry(tiny, tmp_path, capsys):
    out = tmp_path / "r"
    assert main(["--audits", str(tiny), "--models", "logistic_regression", "--jobs", "1", "--out", str(out),
                 "--cache-dir", str(tmp_path / "c")]) == 0
    assert main(["--verify", str(out / "results_fairness.csv"), "--out", str(out)]) == 0
    capsys.readouterr()
    record = json.loads((out / "inputs.json").read_text())
    record["files"]["results_fairness.csv"] = {}
    record["files"]["results_performance.csv"]["grid"] = 5
    (out / "inputs.json").write_text(json.dumps(record))
    assert main(["--verify", "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert err.count("its entry in inputs.json is damaged") == 2 and "Traceback" not in err
    assert "Regenerate it with `python -m faircode.benchmark`" in err


def test_verify_without_a_record_fails(tmp_path, capsys):
    assert main(["--verify", "--out", str(tmp_path)]) == 1
    assert "no record of the results' inputs" in capsys.readouterr().err


@pytest.mark.parametrize("slug", available_audits())
def test_an_audit_loaded_from_shipped_bytes_equals_the_one_read_from_disk(slug):
    from faircode.harness import read_source

    manifest = load_manifest(find_manifest_path(slug))
    source = read_source(manifest)
    shipped = audit_from_manifest(pickle.loads(pickle.dumps(source)).manifest, files=source.files)
    local = load_audit(slug)
    pd.testing.assert_frame_equal(shipped.X, local.X)
    pd.testing.assert_series_equal(shipped.y, local.y)
    assert (shipped.idx_test == local.idx_test).all()
