# Generated from explainers/calibration-by-group.md by `python build.py`: edit the Markdown, not this file.
# Run from the repository root: PYTHONPATH=. python explainers/code/calibration-by-group.py

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

# --- block 1 (explainers/calibration-by-group.md, line 60) ---
import numpy as np
import pandas as pd
from faircode.audit_summary import INTERVAL_DESCRIPTIONS
from faircode.benchmark import load_audit
from faircode.significance import adjust_p_values, significance_report_from_counts

compas = load_audit("compas")
test = compas.idx_test
decile = compas.df["decile_score"].to_numpy()[test]
charged = compas.y.to_numpy()[test]                        # 1 = charged again within two years
race = compas.masks["race"].to_numpy()[test]               # 1 = Black, 0 = white, NaN = other
black, white = race == 1, race == 0
print(f"{len(compas.df)} defendants, {len(test)} in the test split: {black.sum()} Black, {white.sum()} white")

rows = []
for s in range(1, 11):
    in_b, in_w = black & (decile == s), white & (decile == s)
    report = significance_report_from_counts(int(charged[in_b].sum()), int(in_b.sum()),
                                             int(charged[in_w].sum()), int(in_w.sum()))
    rows.append({"decile": s, "Black rows": int(in_b.sum()), "white rows": int(in_w.sum()),
                 "Black rate": charged[in_b].mean(), "white rate": charged[in_w].mean(),
                 "gap": report.gap, "low": report.ci_low, "high": report.ci_high, "p": report.p_value})
calibration = pd.DataFrame(rows).set_index("decile")
calibration["Holm p"] = adjust_p_values(calibration.p, "holm")
excludes_zero = (calibration.low > 0) | (calibration.high < 0)
print(f"interval: {INTERVAL_DESCRIPTIONS.get(report.ci_method, report.ci_method)}; deciles whose interval excludes zero: {int(excludes_zero.sum())} of 10; "
      f"smallest Holm p {calibration['Holm p'].min():.3f}")
_show(calibration.round(3))
_figures(1)

# --- block 2 (explainers/calibration-by-group.md, line 112) ---
from scipy.stats import mannwhitneyu
from sklearn.metrics import roc_auc_score, roc_curve

auc = {}
for name, members in (("Black", black), ("white", white)):
    y, s = charged[members], decile[members]
    auc[name] = roc_auc_score(y, s)
    u = mannwhitneyu(s[y == 1], s[y == 0]).statistic / ((y == 1).sum() * (y == 0).sum())
    print(f"{name:5s} AUC {auc[name]:.4f} (scipy Mann-Whitney U / pairs {u:.4f}), "
          f"{int((y == 1).sum())} charged again, {int((y == 0).sum())} not")
_figures(2)

# --- block 3 (explainers/calibration-by-group.md, line 130) ---
from faircode.metrics import equal_opportunity_diff, false_positive_rate_diff

cuts = []
for cut in range(2, 11):
    flagged = (decile >= cut).astype(int)
    fpr = false_positive_rate_diff(charged, flagged, race, significance=True)
    tpr = equal_opportunity_diff(charged, flagged, race, significance=True)
    cuts.append({"flag at decile": cut, "FPR Black": fpr.rate_disadvantaged, "FPR white": fpr.rate_advantaged,
                 "FPR gap": fpr.value, "FPR low": fpr.ci_low, "FPR high": fpr.ci_high,
                 "TPR gap": tpr.value, "TPR low": tpr.ci_low, "TPR high": tpr.ci_high})
cuts = pd.DataFrame(cuts).set_index("flag at decile")
fpr_positive = (cuts["FPR low"] > 0)
print(f"cuts whose FPR-gap interval lies above zero: {int(fpr_positive.sum())} of {len(cuts)}")
_show(cuts.round(3))
_figures(3)

# --- block 4 (explainers/calibration-by-group.md, line 155) ---
import matplotlib.pyplot as plt
from scipy.stats import binomtest

fig, (left, middle, right) = plt.subplots(1, 3, figsize=(12, 3.8))
for name, members, colour in (("Black", black, "tab:red"), ("white", white, "tab:blue")):
    rates, lows, highs = [], [], []
    for s in range(1, 11):
        ones, n = int(charged[members & (decile == s)].sum()), int((members & (decile == s)).sum())
        wilson = binomtest(ones, n).proportion_ci(method="wilson")
        rates.append(ones / n)
        lows.append(ones / n - wilson.low)
        highs.append(wilson.high - ones / n)
    left.errorbar(range(1, 11), rates, yerr=[lows, highs],
                  fmt="o-", color=colour, capsize=2, label=f"{name} defendants")
    fpr, tpr, _ = roc_curve(charged[members], decile[members])
    middle.plot(fpr, tpr, color=colour, label=f"{name} (AUC {auc[name]:.3f})")
left.set_xlabel("decile score")
left.set_ylabel("share charged again")
left.set_ylim(0, 1)
left.legend(loc="upper left")
middle.plot([0, 1], [0, 1], color="lightgrey", ls=":")
middle.set_xlabel("false positive rate")
middle.set_ylabel("true positive rate")
middle.legend(loc="lower right")
for column, colour in (("FPR", "tab:purple"), ("TPR", "tab:green")):
    right.plot(cuts.index, cuts[f"{column} gap"], "o-", color=colour, label=f"{column} gap")
    right.fill_between(cuts.index, cuts[f"{column} low"], cuts[f"{column} high"], color=colour, alpha=0.15)
right.axhline(0, color="grey", lw=0.8)
right.axvline(5, color="grey", ls=":", lw=1)
right.set_xlabel("flag at decile ... or more")
right.set_ylabel("gap, Black minus white")
right.legend(loc="upper right")
fig.tight_layout()
_show(plt.show())
_figures(4)
