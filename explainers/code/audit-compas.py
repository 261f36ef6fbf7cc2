# Generated from explainers/audit-compas.md by `python build.py`: edit the Markdown, not this file.
# Run from the repository root: PYTHONPATH=. python explainers/code/audit-compas.py

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

# --- block 1 (explainers/audit-compas.md, line 44) ---
from faircode.audit_summary import audit_overview
from faircode.benchmark import load_audit

audit = load_audit("compas")
manifest = audit.manifest
print(audit_overview(audit))
_figures(1)

# --- block 2 (explainers/audit-compas.md, line 70) ---
from faircode.audit_summary import audit_groups, describe_groups, group_table

groups = audit_groups(audit)
print(describe_groups(groups))
charged, race_test = audit.y.to_numpy()[audit.idx_test], audit.masks["race"].to_numpy()[audit.idx_test]
test_base_gap = charged[race_test == 1].mean() - charged[race_test == 0].mean()
print(f"test split only, race: base rate {charged[race_test == 1].mean():.3f} Black, "
      f"{charged[race_test == 0].mean():.3f} white, base-rate gap {test_base_gap:+.3f}")
_show(group_table(groups))
_figures(2)

# --- block 3 (explainers/audit-compas.md, line 101) ---
from faircode.audit_summary import audit_results, results_table
from faircode.significance import SMALL_SAMPLE_SIZE

ALPHA = 0.05

from faircode.audit_summary import interval_note, spread_note, with_seed_spread

results = with_seed_spread(audit_results("compas", strategy="baseline", model="logistic_regression"), "compas",
                           missing="keep")
row = results.set_index(["protected_attribute", "metric"])
tests = int((results.metric != "disparate_impact_ratio").sum())   # the ratio shares the parity row's test
print(f"{tests} tests, Holm-adjusted together (each ratio row shares its parity row's test); "
      f"a finding is a Holm-adjusted p below the significance level, alpha {ALPHA}; "
      f"small sample: a group under {SMALL_SAMPLE_SIZE} rows")
print(interval_note(results))
print(spread_note(results))
_show(results_table(results, alpha=ALPHA))
_figures(3)

# --- block 4 (explainers/audit-compas.md, line 148) ---
from faircode.audit_summary import favourable_ratio

favourable = favourable_ratio(results)
_show(favourable)
_figures(4)

# --- block 5 (explainers/audit-compas.md, line 159) ---
import matplotlib.pyplot as plt
from faircode.audit_summary import METRIC_LABELS, attribute_label
from faircode.plots import forest_panels

gaps = results[results.metric != "disparate_impact_ratio"]       # a ratio has another scale
gaps = gaps.assign(name=gaps.metric.map(METRIC_LABELS), attribute=gaps.protected_attribute.map(attribute_label))
forest_panels(gaps, by="attribute", label="name", highlight="significant_adjusted")
_show(plt.show())
_figures(5)

# --- block 6 (explainers/audit-compas.md, line 180) ---
from faircode.audit_summary import strategy_table

primary = manifest.primary_attribute
print(f"attribute {primary}, logistic regression; gaps are disadvantaged minus advantaged")
strategies = audit_results("compas", strategy=None, model="logistic_regression").set_index(
    ["strategy", "protected_attribute", "metric"])
_show(strategy_table("compas", primary, model="logistic_regression"))
_figures(6)

# --- block 7 (explainers/audit-compas.md, line 203) ---
score = with_seed_spread(audit_results("compas", strategy="baseline", model="compas_score"), "compas",
                         missing="keep")
race = score[score.protected_attribute == "race"]
deployed = race.set_index("metric")
deployed_favourable = favourable_ratio(race).loc["race"]     # the rates of not being flagged
_show(results_table(race).assign(**{
    "rate (Black)": race.rate_disadvantaged.round(3).to_numpy(),
    "rate (white)": race.rate_advantaged.round(3).to_numpy(),
}))
_figures(7)
