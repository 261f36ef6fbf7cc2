# Generated from explainers/equal-opportunity-and-equalized-odds.md by `python build.py`: edit the Markdown, not this file.
# Run from the repository root: PYTHONPATH=. python explainers/code/equal-opportunity-and-equalized-odds.py

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

# --- block 1 (explainers/equal-opportunity-and-equalized-odds.md, line 87) ---
import numpy as np
import pandas as pd
from faircode.benchmark import load_audit
from faircode.models import build_model

compas = load_audit("compas")
test = compas.idx_test
reoffended = compas.y.to_numpy()[test]                 # 1 = charged again within two years
race = compas.masks["race"].to_numpy()[test]           # 1 = Black, 0 = white, NaN = other

deployed = (compas.df["decile_score"].to_numpy()[test] >= 5).astype(int)   # medium or high risk
model = build_model("logistic_regression", random_state=42)
model.fit(compas.X_core.iloc[compas.idx_train], compas.y.iloc[compas.idx_train])
predicted = model.predict(compas.X_core.iloc[test])    # criminal history only: no race, sex or age
decisions = {"deployed score": deployed, "history model": predicted}
print(f"test rows {len(test)}: {np.sum(race == 1)} Black, {np.sum(race == 0)} white, "
      f"{np.sum(np.isnan(race))} of other races (left out)")

# By hand: the share flagged among those who did not reoffend (FPR, column 0) and who did (TPR, column 1).
table = pd.DataFrame({"group": pd.Series(race).map({1: "Black", 0: "white"}),
                      "reoffended": reoffended, "flagged": deployed})
for (group, outcome), cell in table.groupby(["group", "reoffended"]).flagged.agg(["mean", "size"]).iterrows():
    who = "reoffended" if outcome else "were not charged again"
    print(f"{group} defendants who {who}: flagged share {cell['mean']:.4f} of {int(cell['size'])} rows")
_figures(1)

# --- block 2 (explainers/equal-opportunity-and-equalized-odds.md, line 120) ---
from faircode.audit_summary import METRIC_LABELS
from faircode.metrics import equal_opportunity_diff, false_positive_rate_diff, equalized_odds_diff

records = {}
for name, flagged in decisions.items():
    for metric in (equal_opportunity_diff, false_positive_rate_diff, equalized_odds_diff):
        r = records[name, metric.__name__] = metric(reoffended, flagged, race, significance=True, confidence=0.95)
        print(f"{name:14s} {METRIC_LABELS[r.metric]:20s} Black {r.rate_disadvantaged:.3f} white {r.rate_advantaged:.3f} "
              f"gap {r.value:+.3f} [{r.ci_low:+.3f}, {r.ci_high:+.3f}] p {r.p_value:.1e} "
              f"(rows {r.n_disadvantaged} vs {r.n_advantaged}) {r.note}")
_figures(2)

# --- block 3 (explainers/equal-opportunity-and-equalized-odds.md, line 149) ---
from faircode.significance import stratified_permutation_test

def largest_gap(flagged, group, outcome):
    """The larger |gap| of the true and false positive rates, Black minus white."""
    gaps = [flagged[(outcome == y) & (group == 1)].mean() - flagged[(outcome == y) & (group == 0)].mean()
            for y in (1, 0)]
    return max(abs(g) for g in gaps)

def stratified_shuffle_p(flagged, group, outcome, n_shuffles=2000, seed=0):
    """Monte Carlo p-value, (hits + 1) / (n + 1): the hits are the within-outcome
    relabellings whose larger |gap| reaches the observed one."""
    rng = np.random.default_rng(seed)
    keep = ~np.isnan(group)
    flagged, group, outcome = flagged[keep], group[keep], outcome[keep]
    observed = largest_gap(flagged, group, outcome)
    shuffled = group.copy()
    hits = 0
    for _ in range(n_shuffles):
        for y in (0, 1):                              # relabel inside each outcome only
            rows = np.flatnonzero(outcome == y)
            shuffled[rows] = rng.permutation(group[rows])
        hits += largest_gap(flagged, shuffled, outcome) >= observed - 1e-12
    return (hits + 1) / (n_shuffles + 1)             # the observed labelling counts as one shuffle

def strata(flagged, group, outcome):
    """(Black, white) decisions among reoffenders and among the others."""
    return [(flagged[(outcome == y) & (group == 1)], flagged[(outcome == y) & (group == 0)]) for y in (1, 0)]

by_hand, exact = {}, {}
for name, flagged in decisions.items():
    by_hand[name] = stratified_shuffle_p(flagged, race, reoffended)
    exact[name] = stratified_permutation_test(strata(flagged, race, reoffended), method="exact")
    print(f"{name:14s} largest |gap| {largest_gap(flagged, race, reoffended):.3f} | "
          f"by hand p {by_hand[name]:.5f} (smallest possible {1 / 2001:.5f}) | "
          f"faircode exact p {exact[name]:.1e}")
_figures(3)

# --- block 4 (explainers/equal-opportunity-and-equalized-odds.md, line 193) ---
import matplotlib.pyplot as plt
from scipy.stats import binomtest

def rate_with_interval(flagged):
    """Share flagged and its 95% Wilson interval."""
    ci = binomtest(int(flagged.sum()), len(flagged)).proportion_ci(method="wilson")
    return flagged.mean(), flagged.mean() - ci.low, ci.high - flagged.mean()

fig, axes = plt.subplots(1, 2, figsize=(8, 4), sharex=True, sharey=True)
for ax, (name, flagged) in zip(axes, decisions.items()):
    points = {}
    for code, label, colour in ((1, "Black", "tab:red"), (0, "white", "tab:blue")):
        tpr, tpr_lo, tpr_hi = rate_with_interval(flagged[(race == code) & (reoffended == 1)])
        fpr, fpr_lo, fpr_hi = rate_with_interval(flagged[(race == code) & (reoffended == 0)])
        ax.errorbar(fpr, tpr, xerr=[[fpr_lo], [fpr_hi]], yerr=[[tpr_lo], [tpr_hi]],
                    fmt="o", color=colour, capsize=3, label=f"{label} defendants")
        points[label] = (fpr, tpr)
    ax.plot(*zip(*points.values()), color="grey", lw=1, zorder=0)
    ax.plot([0, 1], [0, 1], color="lightgrey", ls=":", zorder=0)
    ax.set_title(name)
    ax.set_xlabel("false positive rate (flagged, did not reoffend)")
axes[0].set_ylabel("true positive rate (flagged, reoffended)")
axes[0].set_xlim(0, 0.8)
axes[0].set_ylim(0, 0.9)
axes[0].legend(loc="lower right")
fig.tight_layout()
_show(plt.show())
_figures(4)
