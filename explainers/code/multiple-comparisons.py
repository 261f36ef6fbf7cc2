# Generated from explainers/multiple-comparisons.md by `python build.py`: edit the Markdown, not this file.
# Run from the repository root: PYTHONPATH=. python explainers/code/multiple-comparisons.py

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

# --- block 1 (explainers/multiple-comparisons.md, line 70) ---
import numpy as np
import pandas as pd
from faircode.significance import adjust_p_values

ALPHA = 0.05
results = pd.read_csv("results/results_fairness.csv")
rows = results[(results.audit == "benefits_denial") & (results.strategy == "group_thresholds")
               & (results.model == "logistic_regression") & (results.seed == 42)]
rows = rows[rows.p_value.notna()]
baseline_rows = results[(results.audit == "benefits_denial") & (results.strategy == "baseline")
                        & (results.model == "logistic_regression") & (results.seed == 42)]
baseline_rows = baseline_rows.set_index(["protected_attribute", "metric"])
# the ratio of selection rates is tested by the selection-rate gap's test: one test, counted once
family = rows[rows.metric != "disparate_impact_ratio"].reset_index(drop=True)
p = family.p_value.to_numpy()
holm = adjust_p_values(p, method="holm")
bh = adjust_p_values(p, method="bh")
print(f"rows in the run: {len(rows)}")
print(f"protected attributes: {rows.protected_attribute.nunique()}")
print(f"metrics: {rows.metric.nunique()}")
print(f"distinct tests without the ratio: {len(p)}")
print(f"significant at alpha {ALPHA}: raw {np.sum(p < ALPHA)}, Holm {np.sum(holm < ALPHA)}, "
      f"Benjamini-Hochberg {np.sum(bh < ALPHA)}")
difference = np.max(np.abs(holm - family.p_adjusted.to_numpy()))
print(f"largest difference from the benchmark's p_adjusted column: {difference:.1e}")
_figures(1)

# --- block 2 (explainers/multiple-comparisons.md, line 121) ---
def holm_by_hand(p_values):
    """Holm's step-down adjusted p-values, in the input order."""
    p_values = np.asarray(p_values, dtype=float)
    m = len(p_values)
    adjusted = np.empty(m)
    running_max = 0.0
    for rank, i in enumerate(np.argsort(p_values)):      # rank 0 is the smallest p-value
        running_max = max(running_max, (m - rank) * p_values[i])
        adjusted[i] = min(running_max, 1.0)
    return adjusted


print(f"hand-written Holm against faircode: largest difference {np.max(np.abs(holm_by_hand(p) - holm)):.1e}")
_figures(2)

# --- block 3 (explainers/multiple-comparisons.md, line 140) ---
from faircode.audit_summary import METRIC_LABELS

family = family.assign(holm=holm, bh=bh)
flagged = family[family.p_value < ALPHA].sort_values("p_value", ascending=False)
by_test = flagged.set_index(["protected_attribute", "metric"])
verdict = lambda q: "yes" if q < ALPHA else "no"
print(f"{'attribute':16s} {'metric':22s} {'value':>7} {'raw p':>8} {'Holm p':>7} {'BH p':>7}  Holm BH")
for r in flagged.itertuples():
    attribute = r.protected_attribute.replace("_x_", " by ").replace("_", " ")
    print(f"{attribute:16s} {METRIC_LABELS[r.metric]:22s} {r.value:+7.3f} {r.p_value:8.4f} {r.holm:7.3f} "
          f"{r.bh:7.3f}  {verdict(r.holm):>4} {verdict(r.bh):>2}")
    if r.holm < ALPHA:
        break
_figures(3)

# --- block 4 (explainers/multiple-comparisons.md, line 173) ---
from faircode.benchmark import load_audit
from faircode.metrics import fairness_report, family_p_values
from faircode.models import build_model

audit = load_audit("german_credit_lending")
train, test = audit.idx_train, audit.idx_test
model = build_model("logistic_regression", 42).fit(audit.X_core.iloc[train], audit.y.iloc[train])
predicted = model.predict(audit.X_core.iloc[test])
truth = audit.y.to_numpy()[test]
masks = {name: mask.to_numpy()[test] for name, mask in audit.masks.items()}

rng = np.random.default_rng(0)
N_FAMILIES = 300
any_raw = any_holm = any_bh = 0
for i in range(N_FAMILIES):
    shuffled = {name: rng.permutation(mask) for name, mask in masks.items()}   # no real gap left
    report = fairness_report(truth, predicted, shuffled, significance=True, random_state=i,
                             ci_method="bootstrap", n_resamples=10)   # intervals unused: the quickest kind
    any_raw += np.nanmin(report.p_value) < ALPHA
    any_holm += np.nanmin(family_p_values(report, "holm")) < ALPHA   # the ratio counted once
    any_bh += np.nanmin(family_p_values(report, "bh")) < ALPHA
n_tests = int((report.p_value.notna() & (report.metric != "disparate_impact_ratio")).sum())
rate_raw, rate_holm, rate_bh = any_raw / N_FAMILIES, any_holm / N_FAMILIES, any_bh / N_FAMILIES
independent = 1 - (1 - ALPHA) ** n_tests
print(f"simulated families with no real gap: {N_FAMILIES}")
print(f"distinct tests in each family: {n_tests}")
print("share of families with at least one 'significant' test:")
print(f"  unadjusted: {rate_raw:.1%}")
print(f"  by Holm: {rate_holm:.1%}")
print(f"  by Benjamini-Hochberg: {rate_bh:.1%}")
print(f"  by independent tests, as many: {independent:.1%}")
_figures(4)

# --- block 5 (explainers/multiple-comparisons.md, line 224) ---
import matplotlib.pyplot as plt

m = len(p)
ranks = np.arange(1, m + 1)
sorted_p = np.sort(p)
FLOOR = 1e-6                                  # smaller p-values are drawn at the floor
kept = np.sort(holm) < ALPHA, np.sort(bh) < ALPHA
fig, ax = plt.subplots(figsize=(8, 4.5))
ax.plot(ranks, ALPHA / (m - ranks + 1), color="#1f4e79", label="Holm: alpha / (m - k + 1)")
ax.plot(ranks, ranks * ALPHA / m, color="#e6550d", label="Benjamini-Hochberg: k alpha / m")
ax.axhline(ALPHA, color="grey", linestyle=":", linewidth=1, label=f"unadjusted alpha = {ALPHA}")
colours = np.where(kept[0], "#1f4e79", np.where(kept[1], "#e6550d", "#bbbbbb"))
below = sorted_p < FLOOR
ax.scatter(ranks[~below], sorted_p[~below], c=colours[~below], zorder=3, edgecolors="black", linewidths=0.4)
ax.scatter(ranks[below], np.full(below.sum(), FLOOR), c=colours[below], zorder=3, marker="v",
           edgecolors="black", linewidths=0.4, label=f"p below {FLOOR:g}, drawn at the floor")
ax.set_yscale("log")
ax.set_ylim(FLOOR / 2, 1.5)
ax.set_xlabel("rank k of the p-value (1 = smallest)")
ax.set_ylabel("raw p-value (log scale)")
ax.set_title("Benefits Denial family: blue = kept by Holm, orange = by BH only, grey = neither", fontsize=10)
ax.legend(frameon=False, loc="lower right")
fig.tight_layout()
_show(plt.show())
_figures(5)
