"""The package's public surface: lazy re-exports, and a cached rerun that stays light."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import faircode

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "audits"
HEAVY = ("scipy", "sklearn", "joblib", "matplotlib")

EXPECTED_SURFACE = {
    "SignificanceReport", "EquivalenceResult", "adjust_p_values", "bootstrap_ci", "equivalence_test",
    "format_p", "permutation_test", "interval_table", "exact_coverage",
    "significance_report", "significance_report_from_counts", "stratified_bootstrap_ci",
    "stratified_permutation_test", "minimum_detectable_gap", "power_at_gap", "simulated_power",
    "COLUMNS", "METRICS", "GroupConfusion", "MetricRecord", "accuracy_diff", "count_confusion",
    "demographic_parity_diff", "disparate_impact_ratio", "equal_opportunity_diff", "equalized_odds_diff",
    "fairness_report", "false_positive_rate_diff", "metric_records", "predictive_parity_diff",
    "load_manifest", "load_audit", "run_benchmark", "build_model", "STRATEGIES", "encode_features",
    "audit_groups", "audit_results", "results_table", "strategy_table",
    "forest_panels", "forest_plot", "power_curve", "null_histogram", "spread_plot",
}


def modules_loaded_by(code: str) -> dict:
    """Run ``code`` in a fresh interpreter; return which heavy libraries it loaded, and its output."""
    probe = f"{code}\nimport json, sys\nprint(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_every_public_name_resolves_to_its_module_object():
    from faircode import audit_summary, benchmark, manifest, metrics, models, plots, power, significance, strategies

    assert set(faircode.__all__) == EXPECTED_SURFACE
    homes = {"fairness_report": metrics, "permutation_test": significance, "simulated_power": power,
             "equivalence_test": significance, "EquivalenceResult": significance,
             "interval_table": significance, "exact_coverage": significance,
             "load_manifest": manifest, "load_audit": benchmark, "run_benchmark": benchmark,
             "build_model": models, "STRATEGIES": strategies, "encode_features": strategies,
             "audit_groups": audit_summary, "audit_results": audit_summary, "results_table": audit_summary,
             "strategy_table": audit_summary, "forest_panels": plots, "forest_plot": plots,
             "power_curve": plots, "null_histogram": plots, "spread_plot": plots}
    for name, module in homes.items():
        assert getattr(faircode, name) is getattr(module, name)
    for name in faircode.__all__:
        assert getattr(faircode, name) is not None
    assert EXPECTED_SURFACE <= set(dir(faircode))


def test_an_unknown_name_raises_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'fairness_reprot'"):
        faircode.fairness_reprot  # noqa: B018


def test_importing_the_package_or_a_light_module_loads_no_heavy_library():
    assert modules_loaded_by("import faircode") == []
    assert modules_loaded_by("import faircode.manifest") == []
    assert modules_loaded_by("import faircode.benchmark") == []


def test_using_a_name_imports_its_module_on_demand():
    assert "scipy" in modules_loaded_by("import faircode; faircode.permutation_test")


def test_a_cached_rerun_of_the_command_loads_no_heavy_library(tmp_path):
    audit = tmp_path / "audits" / "tiny"
    shutil.copytree(FIXTURES / "tiny", audit)
    arguments = ["--audits", str(audit), "--models", "logistic_regression", "--strategies", "baseline",
                 "--seeds", "42", "--jobs", "1", "--out", str(tmp_path / "r"), "--cache-dir", str(tmp_path / "c")]
    run = f"from faircode.benchmark import main\nassert main({arguments!r}) == 0"
    assert "sklearn" in modules_loaded_by(run)  # the first run computes its unit
    first = (tmp_path / "r" / "results_fairness.csv").read_bytes()
    assert modules_loaded_by(run) == []  # the rerun reads it from the cache
    assert (tmp_path / "r" / "results_fairness.csv").read_bytes() == first
