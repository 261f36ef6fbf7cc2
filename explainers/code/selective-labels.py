# Generated from explainers/selective-labels.md by `python build.py`: edit the Markdown, not this file.
# Run from the repository root: PYTHONPATH=. python explainers/code/selective-labels.py

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

# --- block 1 (explainers/selective-labels.md, line 66) ---
import numpy as np
from faircode.benchmark import load_audit
from faircode.metrics import equal_opportunity_diff, false_positive_rate_diff
from faircode.models import build_model, positive_scores

audit = load_audit("credit_card_default")
train, test = audit.idx_train, audit.idx_test
model = build_model("logistic_regression", random_state=42).fit(audit.X.iloc[train], audit.y.iloc[train])
flags = model.predict(audit.X.iloc[test])
defaulted = audit.y.iloc[test].to_numpy()
young = audit.masks["age"].iloc[test].to_numpy().astype(bool)
print(f"test card holders: {len(test)}, young (under 25): {young.sum()}, defaulted: {defaulted.mean():.3f}")
print(f"share the model flags: {flags.mean():.3f}")
_figures(1)

# --- block 2 (explainers/selective-labels.md, line 86) ---
SCORECARD = ["PAY_0", "LIMIT_BAL"]
scorecard = build_model("logistic_regression", random_state=42).fit(audit.X.iloc[train][SCORECARD], audit.y.iloc[train])
past_risk = positive_scores(scorecard, audit.X.iloc[test][SCORECARD])
granted = past_risk < 0.5
print(f"granted by the past policy: {granted.mean():.3f} of card holders; "
      f"young {granted[young].mean():.3f}, older {granted[~young].mean():.3f}")
print(f"defaulted among the granted: {defaulted[granted].mean():.3f}; among the refused: {defaulted[~granted].mean():.3f}")


def error_rate_gaps(rows):
    """The model's TPR and FPR gaps, young minus older, measured on ``rows`` only."""
    found = {}
    for name, metric in (("TPR", equal_opportunity_diff), ("FPR", false_positive_rate_diff)):
        found[name] = metric(defaulted[rows], flags[rows], young[rows], significance=True)
    return found


everyone = error_rate_gaps(np.ones(len(test), dtype=bool))
on_record = error_rate_gaps(granted)
for label, gaps in (("every card holder", everyone), ("granted only", on_record)):
    for name, r in gaps.items():
        print(f"{label:17s} {name} young {r.rate_disadvantaged:.3f}, older {r.rate_advantaged:.3f}, "
              f"gap {r.value:+.3f} ({r.ci_low:+.3f} to {r.ci_high:+.3f}), p {r.p_value:.3f}, "
              f"measured on {r.n_disadvantaged} young and {r.n_advantaged} older")
_figures(2)

# --- block 3 (explainers/selective-labels.md, line 134) ---
import matplotlib.pyplot as plt
from scipy.stats import binomtest

fig, ax = plt.subplots(figsize=(7, 3.4))
for offset, (label, gaps) in enumerate((("every card holder", everyone), ("granted only", on_record))):
    r = gaps["TPR"]
    for shift, (group, rate, n) in enumerate((("young", r.rate_disadvantaged, r.n_disadvantaged),
                                              ("older", r.rate_advantaged, r.n_advantaged))):
        ci = binomtest(round(rate * n), n).proportion_ci(0.95, method="wilson")
        ax.bar(offset + 0.38 * shift, rate, width=0.36, color=("tab:orange", "tab:blue")[shift],
               label=group if offset == 0 else None)
        ax.errorbar(offset + 0.38 * shift, rate, yerr=[[rate - ci.low], [ci.high - rate]], color="black", capsize=3)
ax.set_xticks([0.19, 1.19], ["every card holder", "granted only"])
ax.set_ylabel("true positive rate (defaulters flagged)")
ax.legend(frameon=False)
fig.tight_layout()
_show(plt.show())
_figures(3)

# --- block 4 (explainers/selective-labels.md, line 159) ---
granted_strictly = np.where(young, past_risk < 0.25, past_risk < 0.5)
stricter = error_rate_gaps(granted_strictly)
print(f"granted: young {granted_strictly[young].mean():.3f}, older {granted_strictly[~young].mean():.3f}")
for name, r in stricter.items():
    print(f"stricter policy {name} gap {r.value:+.3f} ({r.ci_low:+.3f} to {r.ci_high:+.3f}), p {r.p_value:.3f}, "
          f"{r.n_disadvantaged} young, {r.n_advantaged} older")
_figures(4)

# --- block 5 (explainers/selective-labels.md, line 179) ---
from faircode.metrics import demographic_parity_diff

parity = demographic_parity_diff(defaulted, flags, young, significance=True)
print(f"flag rate, every card holder: young {parity.rate_disadvantaged:.3f}, older {parity.rate_advantaged:.3f}, "
      f"gap {parity.value:+.3f} ({parity.ci_low:+.3f} to {parity.ci_high:+.3f})")
_figures(5)
