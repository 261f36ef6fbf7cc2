# Generated from explainers/label-bias.md by `python build.py`: edit the Markdown, not this file.
# Run from the repository root: PYTHONPATH=. python explainers/code/label-bias.py

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

# --- block 1 (explainers/label-bias.md, line 61) ---
import numpy as np
import pandas as pd
from faircode.benchmark import load_audit
from faircode.models import build_model

compas = load_audit("compas")
train, test = compas.idx_train, compas.idx_test
truth = compas.y.to_numpy()                          # treated as the real outcome in this simulation
race = compas.masks["race"].to_numpy()               # 1 = Black, 0 = white, NaN = other
white_reoffenders = np.flatnonzero((race == 0) & (truth == 1))

def recorded_label(share, rng):
    """The outcome as recorded when a random `share` of white reoffences goes unrecorded."""
    recorded = truth.copy()
    recorded[white_reoffenders[rng.random(len(white_reoffenders)) < share]] = 0
    return recorded

def gaps(flagged, outcome, group):
    """Black minus white: base rate, selection rate, accuracy, TPR and FPR, against `outcome`."""
    black, white = group == 1, group == 0
    correct = flagged == outcome
    positive, negative = outcome == 1, outcome == 0
    return {"base-rate gap": outcome[black].mean() - outcome[white].mean(),
            "selection gap": flagged[black].mean() - flagged[white].mean(),
            "accuracy gap": correct[black].mean() - correct[white].mean(),
            "white accuracy": correct[white].mean(),
            "TPR gap": flagged[black & positive].mean() - flagged[white & positive].mean(),
            "FPR gap": flagged[black & negative].mean() - flagged[white & negative].mean()}

rows = []
for share in (0.0, 0.15, 0.3, 0.45):
    for draw in range(10):                               # ten random recordings per share
        recorded = recorded_label(share, np.random.default_rng(draw))
        model = build_model("logistic_regression", random_state=42)
        flagged = model.fit(compas.X.iloc[train], recorded[train]).predict(compas.X.iloc[test])
        for view, outcome in (("measured", recorded[test]), ("true", truth[test])):
            rows.append({"share unrecorded": share, "draw": draw, "view": view,
                         **gaps(flagged, outcome, race[test])})

results = pd.DataFrame(rows)
summary = results.groupby(["share unrecorded", "view"]).mean().drop(columns="draw")

# shown: one row per measure and view (the selection gap needs no label: one row), one column per share
rows_shown = {"measured base-rate gap": ("measured", "base-rate gap"), "true base-rate gap": ("true", "base-rate gap"),
              "selection-rate gap": ("measured", "selection gap"),
              "measured accuracy gap": ("measured", "accuracy gap"), "true accuracy gap": ("true", "accuracy gap"),
              "measured accuracy for white defendants": ("measured", "white accuracy"),
              "true accuracy for white defendants": ("true", "white accuracy"),
              "measured TPR gap": ("measured", "TPR gap"), "true TPR gap": ("true", "TPR gap"),
              "measured FPR gap": ("measured", "FPR gap"), "true FPR gap": ("true", "FPR gap")}
shares = summary.index.get_level_values("share unrecorded").unique()
headers = ["nothing unrecorded" if share == 0 else f"{share:.0%} unrecorded" for share in shares]
headers[-1] += " (largest share)"
shown = pd.DataFrame({name: summary.xs(view, level="view")[column].to_numpy()
                      for name, (view, column) in rows_shown.items()}, index=headers).T
_show(shown.rename_axis("measure (Black minus white, but for the accuracies)").round(3))
_figures(1)

# --- block 2 (explainers/label-bias.md, line 147) ---
from faircode.metrics import accuracy_diff

recorded = recorded_label(0.3, np.random.default_rng(0))
model = build_model("logistic_regression", random_state=42)
flagged = model.fit(compas.X.iloc[train], recorded[train]).predict(compas.X.iloc[test])
single = {}
for view, outcome in (("measured", recorded[test]), ("true", truth[test])):
    r = single[view] = accuracy_diff(outcome, flagged, race[test], significance=True)
    print("against the record (measured):" if view == "measured" else "against the truth (true):")
    print(f"  accuracy of Black defendants: {r.rate_disadvantaged:.4f}")
    print(f"  accuracy of white defendants: {r.rate_advantaged:.4f}")
    print(f"  gap in accuracy: {r.value:+.3f} [{r.ci_low:+.3f}, {r.ci_high:+.3f}]")
    print(f"  p-value: {r.p_value:.3f}")
_figures(2)

# --- block 3 (explainers/label-bias.md, line 171) ---
import matplotlib.pyplot as plt

panels = [("base-rate gap", "base-rate gap (Black − white)"), ("selection gap", "selection-rate gap (no label)"),
          ("accuracy gap", "accuracy gap (Black − white)")]
fig, axes = plt.subplots(1, 3, figsize=(10, 3.4))
for ax, (column, title) in zip(axes, panels):
    for view, colour in (("measured", "tab:orange"), ("true", "tab:blue")):
        if column == "selection gap" and view == "true":
            continue                                    # the same decisions: no label involved
        part = results[results["view"] == view].groupby("share unrecorded")[column]
        colour = "grey" if column == "selection gap" else colour
        ax.plot(part.mean().index, part.mean(), "o-", color=colour,
                label="against the record" if view == "measured" else "against the truth")
        ax.fill_between(part.mean().index, part.min(), part.max(), color=colour, alpha=0.2)
    ax.axhline(0, color="black", lw=0.8)
    ax.set_title(title, fontsize=10)
    ax.set_xlabel("share of white reoffences unrecorded")
axes[0].legend(fontsize=8)
fig.tight_layout()
_show(plt.show())
_figures(3)
