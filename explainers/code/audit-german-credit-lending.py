# Generated from explainers/audit-german-credit-lending.md by `python build.py`: edit the Markdown, not this file.
# Run from the repository root: PYTHONPATH=. python explainers/code/audit-german-credit-lending.py

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

# --- block 1 (explainers/audit-german-credit-lending.md, line 37) ---
from faircode.audit_summary import audit_overview
from faircode.benchmark import load_audit

audit = load_audit("german_credit_lending")
manifest = audit.manifest
print(audit_overview(audit))
_figures(1)

# --- block 2 (explainers/audit-german-credit-lending.md, line 58) ---
from faircode.audit_summary import audit_groups, describe_groups, group_table

groups = audit_groups(audit)
print(describe_groups(groups))
_show(group_table(groups))
_figures(2)

# --- block 3 (explainers/audit-german-credit-lending.md, line 78) ---
from faircode.audit_summary import audit_results, results_table
from faircode.significance import SMALL_SAMPLE_SIZE

ALPHA = 0.05

from faircode.audit_summary import interval_note, spread_note, with_seed_spread

results = with_seed_spread(audit_results("german_credit_lending", strategy="baseline", model="logistic_regression"), "german_credit_lending",
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

# --- block 4 (explainers/audit-german-credit-lending.md, line 121) ---
from faircode.audit_summary import favourable_ratio

favourable = favourable_ratio(results)
_show(favourable)
_figures(4)

# --- block 5 (explainers/audit-german-credit-lending.md, line 140) ---
import matplotlib.pyplot as plt
from faircode.audit_summary import METRIC_LABELS, attribute_label
from faircode.plots import forest_panels

gaps = results[results.metric != "disparate_impact_ratio"]       # a ratio has another scale
gaps = gaps.assign(name=gaps.metric.map(METRIC_LABELS), attribute=gaps.protected_attribute.map(attribute_label))
forest_panels(gaps, by="attribute", label="name", highlight="significant_adjusted")
_show(plt.show())
_figures(5)

# --- block 6 (explainers/audit-german-credit-lending.md, line 161) ---
from faircode.audit_summary import strategy_table

primary = manifest.primary_attribute
print(f"attribute {primary}, logistic regression; gaps are disadvantaged minus advantaged")
every = audit_results("german_credit_lending", strategy=None, model="logistic_regression")
parity = every[(every.protected_attribute == primary) & (every.metric == "demographic_parity_diff")]
parity = parity.set_index("strategy")
strategies = audit_results("german_credit_lending", strategy=None, model="logistic_regression").set_index(
    ["strategy", "protected_attribute", "metric"])
comparison = strategy_table("german_credit_lending", primary, model="logistic_regression")
_show(comparison)
_figures(6)

# --- block 7 (explainers/audit-german-credit-lending.md, line 191) ---
import numpy as np
from faircode.metrics import demographic_parity_diff
from faircode.models import build_model, fit_model, positive_scores
from faircode.strategies import apply_group_thresholds, fit_group_thresholds, group_codes, reweighing_weights

train, test = audit.idx_train, audit.idx_test
y_train, y_test = audit.y.to_numpy()[train], audit.y.to_numpy()[test]
age_train = group_codes(audit.masks[primary].to_numpy()[train])
age_test = audit.masks[primary].to_numpy()[test]
seed = audit.manifest.random_state
baseline_model = fit_model(build_model("logistic_regression", seed), audit.X.iloc[train], y_train)
baseline_scores = positive_scores(baseline_model, audit.X.iloc[test])
core_model = fit_model(build_model("logistic_regression", seed), audit.X_core.iloc[train], y_train)
reweighed_model = fit_model(build_model("logistic_regression", seed), audit.X.iloc[train], y_train,
                            sample_weight=reweighing_weights(age_train, y_train))
train_scores = positive_scores(baseline_model, audit.X.iloc[train])
thresholds = fit_group_thresholds(train_scores, age_train, float(np.mean(train_scores >= 0.5)))
decisions = {
    "baseline": (baseline_scores >= 0.5).astype(int),
    "unawareness_proxy_removal": (positive_scores(core_model, audit.X_core.iloc[test]) >= 0.5).astype(int),
    "reweighing": (positive_scores(reweighed_model, audit.X.iloc[test]) >= 0.5).astype(int),
    "group_thresholds": apply_group_thresholds(baseline_scores, group_codes(age_test), thresholds, default=0.5),
}
refit = {s: demographic_parity_diff(y_test, d, age_test).value for s, d in decisions.items()}
young, older = np.flatnonzero(age_test == 1), np.flatnonzero(age_test == 0)
rng = np.random.default_rng(1)
draws = [(rng.choice(young, len(young)), rng.choice(older, len(older))) for _ in range(2000)]
changes = {}
for strategy in ("unawareness_proxy_removal", "reweighing", "group_thresholds"):
    moved = [(decisions[strategy][y].mean() - decisions[strategy][o].mean())
             - (decisions["baseline"][y].mean() - decisions["baseline"][o].mean()) for y, o in draws]
    changes[strategy] = (refit[strategy] - refit["baseline"], *np.quantile(moved, [0.025, 0.975]))
print("refit gaps match results/: " + str(all(abs(refit[s] - parity.loc[s, "value"]) < 1e-9 for s in refit)))
names = {"unawareness_proxy_removal": "unawareness", "reweighing": "reweighing", "group_thresholds": "group thresholds"}
for strategy, (change, low, high) in changes.items():
    print(f"{names[strategy]:17s} change in the age gap {change:+.3f} (paired interval {low:+.3f} to {high:+.3f})")
_figures(7)
