"""faircode: fairness audits with honest statistics.

The public surface is re-exported here; the work lives in the submodules. The re-exports
are lazy: ``import faircode.manifest`` (or any other submodule) loads only what that
submodule needs, and a name below is imported from its module the first time it is used,
so a command that only reads cached results never pays for scipy or scikit-learn.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

__version__ = "0.1.0"

# Public name -> the submodule that defines it.
_EXPORTS = {
    # significance
    "EquivalenceResult": "faircode.significance",
    "SignificanceReport": "faircode.significance",
    "adjust_p_values": "faircode.significance",
    "bootstrap_ci": "faircode.significance",
    "equivalence_test": "faircode.significance",
    "exact_coverage": "faircode.significance",
    "format_p": "faircode.significance",
    "interval_table": "faircode.significance",
    "permutation_test": "faircode.significance",
    "significance_report": "faircode.significance",
    "significance_report_from_counts": "faircode.significance",
    "stratified_bootstrap_ci": "faircode.significance",
    "stratified_permutation_test": "faircode.significance",
    # power
    "minimum_detectable_gap": "faircode.power",
    "power_at_gap": "faircode.power",
    "simulated_power": "faircode.power",
    # metrics
    "COLUMNS": "faircode.metrics",
    "METRICS": "faircode.metrics",
    "GroupConfusion": "faircode.metrics",
    "MetricRecord": "faircode.metrics",
    "accuracy_diff": "faircode.metrics",
    "count_confusion": "faircode.metrics",
    "demographic_parity_diff": "faircode.metrics",
    "disparate_impact_ratio": "faircode.metrics",
    "equal_opportunity_diff": "faircode.metrics",
    "equalized_odds_diff": "faircode.metrics",
    "fairness_report": "faircode.metrics",
    "false_positive_rate_diff": "faircode.metrics",
    "metric_records": "faircode.metrics",
    "predictive_parity_diff": "faircode.metrics",
    # audits and the benchmark
    "load_manifest": "faircode.manifest",
    "load_audit": "faircode.benchmark",
    "run_benchmark": "faircode.benchmark",
    "build_model": "faircode.models",
    "STRATEGIES": "faircode.strategies",
    "encode_features": "faircode.strategies",
    "audit_groups": "faircode.audit_summary",
    "audit_results": "faircode.audit_summary",
    "results_table": "faircode.audit_summary",
    "strategy_table": "faircode.audit_summary",
    # figures
    "forest_panels": "faircode.plots",
    "forest_plot": "faircode.plots",
    "null_histogram": "faircode.plots",
    "power_curve": "faircode.plots",
    "spread_plot": "faircode.plots",
}

__all__ = list(_EXPORTS)

if TYPE_CHECKING:
    from faircode.audit_summary import audit_groups, audit_results, results_table, strategy_table
    from faircode.benchmark import load_audit, run_benchmark
    from faircode.manifest import load_manifest
    from faircode.metrics import (
        COLUMNS,
        METRICS,
        GroupConfusion,
        MetricRecord,
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
    from faircode.models import build_model
    from faircode.plots import forest_panels, forest_plot, null_histogram, power_curve, spread_plot
    from faircode.power import minimum_detectable_gap, power_at_gap, simulated_power
    from faircode.significance import (
        EquivalenceResult,
        SignificanceReport,
        adjust_p_values,
        bootstrap_ci,
        equivalence_test,
        exact_coverage,
        format_p,
        interval_table,
        permutation_test,
        significance_report,
        significance_report_from_counts,
        stratified_bootstrap_ci,
        stratified_permutation_test,
    )
    from faircode.strategies import STRATEGIES, encode_features


def __getattr__(name: str):
    """Import a public name from its submodule on first use, then keep it here."""
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'faircode' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The module's own names and every lazily exported one."""
    return sorted(set(globals()) | set(__all__))
