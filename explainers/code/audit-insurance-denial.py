# Generated from explainers/audit-insurance-denial.md by `python build.py`: edit the Markdown, not this file.
# Run from the repository root: PYTHONPATH=. python explainers/code/audit-insurance-denial.py

import sys as _sys
from pathlib import Path as _Path


def _show(value):
    """Print what a notebook shows for a block's last expression (tables as text)."""
    if value is not None:
        print(value.to_string() if hasattr(value, "to_string") else repr(value))


def _figures(block):
    """Save the block's matplotlib figures beside this script, or show them on a display."""
    plt = _sys.modules.get("matplotlib.pyplot")
    if plt is None or not plt.get_fignums():
        return
    if plt.get_backend().lower() not in ("agg", "pdf", "svg", "ps", "cairo", "template"):
        plt.show()
        return
    for k, number in enumerate(plt.get_fignums()):
        path = _Path(__file__).with_name(f"{_Path(__file__).stem}-{block}-{k}.png")
        plt.figure(number).savefig(path, bbox_inches="tight")
        print(f"saved {path.name}")
    plt.close("all")

# --- block 1 (explainers/audit-insurance-denial.md, line 32) ---
from faircode.audit_summary import audit_overview
from faircode.benchmark import load_audit

audit = load_audit("insurance_denial")
manifest = audit.manifest
print(audit_overview(audit))
_figures(1)

# --- block 2 (explainers/audit-insurance-denial.md, line 51) ---
from faircode.audit_summary import audit_groups, describe_groups, group_table

groups = audit_groups(audit)
print(describe_groups(groups))
_show(group_table(groups))
_figures(2)

# --- block 3 (explainers/audit-insurance-denial.md, line 69) ---
from faircode.audit_summary import audit_results, results_table
from faircode.power import power_at_gap
from faircode.significance import SMALL_SAMPLE_SIZE

ALPHA = 0.05

from faircode.audit_summary import interval_note, spread_note, with_seed_spread

results = with_seed_spread(audit_results("insurance_denial", strategy="baseline", model="logistic_regression"), "insurance_denial",
                           missing="keep")
row = results.set_index(["protected_attribute", "metric"])
power_at_ten = {}
for attribute in ("age", "sex"):
    parity_row = row.loc[(attribute, "demographic_parity_diff")]
    n_a, n_b = int(parity_row.n_disadvantaged), int(parity_row.n_advantaged)
    pooled = (parity_row.rate_disadvantaged * n_a + parity_row.rate_advantaged * n_b) / (n_a + n_b)
    power_at_ten[attribute] = power_at_gap(n_a, n_b, 0.10, rate=pooled)
tests = int((results.metric != "disparate_impact_ratio").sum())   # the ratio shares the parity row's test
print(f"{tests} tests, Holm-adjusted together (each ratio row shares its parity row's test); "
      f"a finding is a Holm-adjusted p below the significance level, alpha {ALPHA}; "
      f"small sample: a group under {SMALL_SAMPLE_SIZE} rows")
print(interval_note(results))
print(spread_note(results))
print("power of the refusal-rate test at a true gap of 0.10: "
      + ", ".join(f"{a} {power:.0%}" for a, power in power_at_ten.items()))
_show(results_table(results, alpha=ALPHA))
_figures(3)

# --- block 4 (explainers/audit-insurance-denial.md, line 121) ---
import matplotlib.pyplot as plt
from faircode.audit_summary import METRIC_LABELS, attribute_label
from faircode.plots import forest_panels

gaps = results[results.metric != "disparate_impact_ratio"]       # a ratio has another scale
gaps = gaps.assign(name=gaps.metric.map(METRIC_LABELS), attribute=gaps.protected_attribute.map(attribute_label))
forest_panels(gaps, by="attribute", label="name", highlight="significant_adjusted")
_show(plt.show())
_figures(4)

# --- block 5 (explainers/audit-insurance-denial.md, line 138) ---
from faircode.audit_summary import favourable_ratio

favourable = favourable_ratio(results)
_show(favourable)
_figures(5)

# --- block 6 (explainers/audit-insurance-denial.md, line 154) ---
from faircode.audit_summary import strategy_table

primary = manifest.primary_attribute
print(f"attribute {primary}, logistic regression; gaps are disadvantaged minus advantaged")
strategies = audit_results("insurance_denial", strategy=None, model="logistic_regression").set_index(
    ["strategy", "protected_attribute", "metric"])
_show(strategy_table("insurance_denial", primary, model="logistic_regression"))
_figures(6)
