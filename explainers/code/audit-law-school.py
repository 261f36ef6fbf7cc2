# Generated from explainers/audit-law-school.md by `python build.py`: edit the Markdown, not this file.
# Run from the repository root: PYTHONPATH=. python explainers/code/audit-law-school.py

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

# --- block 1 (explainers/audit-law-school.md, line 29) ---
from faircode.audit_summary import audit_overview
from faircode.benchmark import load_audit

audit = load_audit("law_school")
manifest = audit.manifest
print(audit_overview(audit))
_figures(1)

# --- block 2 (explainers/audit-law-school.md, line 48) ---
from faircode.audit_summary import audit_groups, describe_groups, group_table

groups = audit_groups(audit)
print(describe_groups(groups))
_show(group_table(groups))
_figures(2)

# --- block 3 (explainers/audit-law-school.md, line 65) ---
from faircode.audit_summary import audit_results, results_table
from faircode.significance import SMALL_SAMPLE_SIZE

ALPHA = 0.05

from faircode.audit_summary import interval_note, spread_note, with_seed_spread

results = with_seed_spread(audit_results("law_school", strategy="baseline", model="logistic_regression"), "law_school",
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

# --- block 4 (explainers/audit-law-school.md, line 89) ---
test = audit.idx_test
race_test = audit.masks["race"].to_numpy()[test]
passed = audit.y.to_numpy()[test]
label_gap = passed[race_test == 1].mean() - passed[race_test == 0].mean()
model_gap = row.loc[("race", "demographic_parity_diff")]
print(f"test split, race: gap in who passed {label_gap:+.3f}; "
      f"gap in predicted passes {model_gap.value:+.3f} "
      f"(interval {model_gap.ci_low:+.3f} to {model_gap.ci_high:+.3f})")
_figures(4)

# --- block 5 (explainers/audit-law-school.md, line 108) ---
import numpy as np
from faircode.models import build_model, fit_model

baseline = fit_model(build_model("logistic_regression", 42), audit.X.iloc[audit.idx_train],
                     audit.y.to_numpy()[audit.idx_train])
predicted = (baseline.predict_proba(audit.X.iloc[test])[:, 1] >= 0.5).astype(int)
black_rows, white_rows = np.flatnonzero(race_test == 1), np.flatnonzero(race_test == 0)
refit_gap = predicted[black_rows].mean() - predicted[white_rows].mean()
widening = refit_gap - label_gap
rng = np.random.default_rng(8)
resampled = []
for _ in range(2000):
    b, w = rng.choice(black_rows, len(black_rows)), rng.choice(white_rows, len(white_rows))
    resampled.append((predicted[b].mean() - predicted[w].mean()) - (passed[b].mean() - passed[w].mean()))
widening_low, widening_high = np.percentile(resampled, [2.5, 97.5])
print(f"refitted model gap {refit_gap:+.3f}, benchmark's {model_gap.value:+.3f}")
print(f"model gap minus gap in who passed: {widening:+.3f}, "
      f"paired bootstrap interval {widening_low:+.3f} to {widening_high:+.3f}")
_figures(5)

# --- block 6 (explainers/audit-law-school.md, line 161) ---
import matplotlib.pyplot as plt
from faircode.audit_summary import METRIC_LABELS, attribute_label
from faircode.plots import forest_panels

gaps = results[results.metric != "disparate_impact_ratio"]       # a ratio has another scale
gaps = gaps.assign(name=gaps.metric.map(METRIC_LABELS), attribute=gaps.protected_attribute.map(attribute_label))
forest_panels(gaps, by="attribute", label="name", highlight="significant_adjusted")
_show(plt.show())
_figures(6)

# --- block 7 (explainers/audit-law-school.md, line 178) ---
from faircode.audit_summary import favourable_ratio

favourable = favourable_ratio(results)
_show(favourable)
_figures(7)

# --- block 8 (explainers/audit-law-school.md, line 194) ---
from faircode.audit_summary import strategy_table

primary = manifest.primary_attribute
print(f"attribute {primary}, logistic regression; gaps are disadvantaged minus advantaged")
strategies = audit_results("law_school", strategy=None, model="logistic_regression").set_index(
    ["strategy", "protected_attribute", "metric"])
comparison = strategy_table("law_school", primary, model="logistic_regression")
_show(comparison)
_figures(8)
