"""faircode: fairness audits with honest statistics.

The public surface is re-exported here; the work lives in the submodules.
"""

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
from faircode.power import minimum_detectable_gap, power_at_gap, simulated_power
from faircode.significance import (
    SignificanceReport,
    adjust_p_values,
    bootstrap_ci,
    format_p,
    permutation_test,
    significance_report,
    significance_report_from_counts,
    stratified_bootstrap_ci,
    stratified_permutation_test,
)

# Audits: load_manifest (faircode.manifest) and load_audit (faircode.benchmark) are
# re-exported here once those modules exist.

__version__ = "0.1.0"

__all__ = [
    # significance
    "SignificanceReport",
    "adjust_p_values",
    "bootstrap_ci",
    "format_p",
    "permutation_test",
    "significance_report",
    "significance_report_from_counts",
    "stratified_bootstrap_ci",
    "stratified_permutation_test",
    # power
    "minimum_detectable_gap",
    "power_at_gap",
    "simulated_power",
    # metrics
    "COLUMNS",
    "METRICS",
    "GroupConfusion",
    "MetricRecord",
    "accuracy_diff",
    "count_confusion",
    "demographic_parity_diff",
    "disparate_impact_ratio",
    "equal_opportunity_diff",
    "equalized_odds_diff",
    "fairness_report",
    "false_positive_rate_diff",
    "metric_records",
    "predictive_parity_diff",
]
