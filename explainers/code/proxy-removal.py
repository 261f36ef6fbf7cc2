# Generated from explainers/proxy-removal.md by `python build.py`: edit the Markdown, not this file.
# Run from the repository root: PYTHONPATH=. python explainers/code/proxy-removal.py

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

# --- block 1 (explainers/proxy-removal.md, line 54) ---
import numpy as np
import pandas as pd

results = pd.read_csv("results/results_fairness.csv")
chosen = results[(results["model"] == "logistic_regression") & (results["seed"] == 42)
                 & (results["metric"] == "demographic_parity_diff")
                 & results["strategy"].isin(["baseline", "unawareness_proxy_removal"])
                 & results["audit"].isin(["benefits_denial", "compas"])
                 & results["protected_attribute"].isin(["sex", "race", "age"])]
table = chosen.pivot_table(index=["audit", "protected_attribute"], columns="strategy",
                           values=["value", "ci_low", "ci_high", "p_adjusted"])
AUDIT_NAMES = {"benefits_denial": "Benefits Denial", "compas": "COMPAS"}
for (audit, attribute), row in table.iterrows():
    before, after = row["value", "baseline"], row["value", "unawareness_proxy_removal"]
    print(f"{AUDIT_NAMES[audit]}, {attribute}:")
    print(f"  baseline gap: {before:+.3f} [{row['ci_low', 'baseline']:+.3f}, {row['ci_high', 'baseline']:+.3f}]")
    print(f"  unaware gap: {after:+.3f} [{row['ci_low', 'unawareness_proxy_removal']:+.3f}, "
          f"{row['ci_high', 'unawareness_proxy_removal']:+.3f}]")
    print(f"  unaware adjusted p: {row['p_adjusted', 'unawareness_proxy_removal']:.1e}")
    print(f"  share of the gap that remains: {after / before:.0%}")
_figures(1)

# --- block 2 (explainers/proxy-removal.md, line 93) ---
from scipy.stats import mannwhitneyu
from sklearn.metrics import roc_auc_score, roc_curve
from faircode.benchmark import load_audit
from faircode.models import build_model
from faircode.strategies import encode_features

def attribute_scores(audit, attribute, features):
    """Scores of a classifier predicting group membership from `features`, on the test rows."""
    group = audit.masks[attribute].to_numpy()            # 1 / 0, NaN for rows in neither group
    train = audit.idx_train[~np.isnan(group[audit.idx_train])]
    test = audit.idx_test[~np.isnan(group[audit.idx_test])]
    classifier = build_model("logistic_regression", random_state=42)
    classifier.fit(features.iloc[train], group[train])
    return group[test], classifier.predict_proba(features.iloc[test])[:, 1]

curves, agreement = {}, []
for slug, attributes in (("benefits_denial", ("sex", "race", "age")), ("compas", ("race", "sex"))):
    audit = load_audit(slug)
    proxies = encode_features(audit.df, list(audit.manifest.proxies))
    for attribute in attributes:
        group, score = attribute_scores(audit, attribute, audit.X_core)
        auc = roc_auc_score(group, score)
        pairs = (group == 1).sum() * (group == 0).sum()
        u_auc = mannwhitneyu(score[group == 1], score[group == 0]).statistic / pairs
        agreement.append(abs(auc - u_auc))
        curves[f"{audit.manifest.name}: {attribute}"] = roc_curve(group, score)[:2]
        print(f"{audit.manifest.name}, {attribute}:")
        print(f"  AUC from the remaining features: {auc:.3f}")
        print(f"  Mann-Whitney check: {u_auc:.3f}")
        if slug == "benefits_denial":
            _, proxy_score = attribute_scores(audit, attribute, proxies)
            print(f"  AUC from the removed proxies alone: {roc_auc_score(group, proxy_score):.3f}")
_figures(2)

# --- block 3 (explainers/proxy-removal.md, line 143) ---
import matplotlib.pyplot as plt

fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
for y, ((audit_slug, attribute), row) in enumerate(table.iterrows()):
    for strategy, colour in (("baseline", "grey"), ("unawareness_proxy_removal", "tab:blue")):
        value = row["value", strategy]
        left.errorbar(value, y, xerr=[[value - row["ci_low", strategy]], [row["ci_high", strategy] - value]],
                      fmt="o", color=colour, capsize=3,
                      label=("baseline" if strategy == "baseline" else "unaware") if y == 0 else None)
    left.annotate("", xy=(row["value", "unawareness_proxy_removal"], y), xytext=(row["value", "baseline"], y),
                  arrowprops={"arrowstyle": "->", "color": "tab:blue", "lw": 0.8})
left.axvline(0, color="black", lw=0.8)
left.set_yticks(range(len(table)), [f"{a.replace('_', ' ')}: {b}" for a, b in table.index])
left.invert_yaxis()
left.set_xlabel("selection-rate gap (disadvantaged − advantaged)")
left.legend(loc="upper right", fontsize=8)

for label, (fpr, tpr) in curves.items():
    right.plot(fpr, tpr, label=label)
right.plot([0, 1], [0, 1], color="lightgrey", ls=":")
right.set_xlabel("false positive rate")
right.set_ylabel("true positive rate")
right.set_title("predicting the attribute from the remaining features", fontsize=10)
right.legend(fontsize=8, loc="lower right")
fig.tight_layout()
_show(plt.show())
_figures(3)
