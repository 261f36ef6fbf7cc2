# Generated from explainers/predictive-parity.md by `python build.py`: edit the Markdown, not this file.
# Run from the repository root: PYTHONPATH=. python explainers/code/predictive-parity.py

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

# --- block 1 (explainers/predictive-parity.md, line 64) ---
import numpy as np
from faircode.benchmark import load_audit
from faircode.metrics import GroupConfusion, count_confusion

compas = load_audit("compas")
test = compas.idx_test                                                  # the benchmark's test split
reoffended = compas.y.to_numpy()[test]                                  # 1 = charged again within two years
flagged = (compas.df["decile_score"].to_numpy()[test] >= 5).astype(int)  # medium or high risk
race = compas.masks["race"].to_numpy()[test]                            # 1 = Black, 0 = white, NaN = other

black, white = count_confusion(reoffended, flagged, race)        # GroupConfusion(tp, fp, tn, fn)

def rates(c):
    """Base rate, precision, true and false positive rates of one group's confusion counts."""
    n = c.tp + c.fp + c.tn + c.fn
    return {"rows": n, "base rate": (c.tp + c.fn) / n, "precision": c.tp / (c.tp + c.fp),
            "TPR": c.tp / (c.tp + c.fn), "FPR": c.fp / (c.fp + c.tn)}

groups = {"Black": rates(black), "white": rates(white)}
for name, r in groups.items():
    print(f"{name} defendants, observed:")
    for measure in ("rows", "base rate", "precision", "TPR", "FPR"):
        print(f"  {measure}: {r[measure]}" if measure == "rows" else f"  {measure}: {r[measure]:.3f}")

def fpr_from_identity(p, ppv, tpr):
    """The false positive rate implied by base rate, precision and true positive rate."""
    return p / (1 - p) * (1 - ppv) / ppv * tpr

for name, r in groups.items():
    implied = fpr_from_identity(r["base rate"], r["precision"], r["TPR"])
    print(f"{name:5s} FPR from the identity {implied:.6f} vs counted {r['FPR']:.6f}")

# The FPR each group would have if precision and TPR were the same for both (their pooled values).
pooled = rates(GroupConfusion(black.tp + white.tp, black.fp + white.fp, black.tn + white.tn, black.fn + white.fn))
forced = {name: fpr_from_identity(r["base rate"], pooled["precision"], pooled["TPR"]) for name, r in groups.items()}
print("with both groups pooled:")
print(f"  pooled precision: {pooled['precision']:.3f}")
print(f"  pooled TPR: {pooled['TPR']:.3f}")
print(f"  Black FPR forced: {forced['Black']:.3f}")
print(f"  white FPR forced: {forced['white']:.3f}")
print(f"  FPR gap forced: {forced['Black'] - forced['white']:+.3f}")
_figures(1)

# --- block 2 (explainers/predictive-parity.md, line 123) ---
from faircode.metrics import predictive_parity_diff, false_positive_rate_diff, equal_opportunity_diff
from faircode.significance import significance_report

base = significance_report(reoffended[race == 1], reoffended[race == 0])
print("gaps on the test split, Black minus white:")
print(f"  base rate gap          {base.gap:+.3f} [{base.ci_low:+.3f}, {base.ci_high:+.3f}] p {base.p_value:.1e}")
gaps = {}
names = {"predictive_parity_diff": "precision gap", "equal_opportunity_diff": "TPR gap",
         "false_positive_rate_diff": "FPR gap"}
for metric in (predictive_parity_diff, equal_opportunity_diff, false_positive_rate_diff):
    r = gaps[metric.__name__] = metric(reoffended, flagged, race, significance=True)
    print(f"  {names[r.metric]:22s} {r.value:+.3f} [{r.ci_low:+.3f}, {r.ci_high:+.3f}] p {r.p_value:.1e} "
          f"on {r.n_disadvantaged} vs {r.n_advantaged} rows")
_figures(2)

# --- block 3 (explainers/predictive-parity.md, line 159) ---
def precision_from_rates(p, tpr, fpr):
    """Precision of a decision with these error rates in a group with base rate p."""
    return p * tpr / (p * tpr + (1 - p) * fpr)

tpr, fpr = groups["white"]["TPR"], groups["white"]["FPR"]
equalized = {name: precision_from_rates(r["base rate"], tpr, fpr) for name, r in groups.items()}
print("both groups at the white defendants' TPR and FPR")
print("with equalized odds:")
for name, precision in equalized.items():
    print(f"  equalized {name} precision: {precision:.4f}")
gap_now = groups["Black"]["precision"] - groups["white"]["precision"]
gap_then = equalized["Black"] - equalized["white"]
print(f"  equalized precision gap: {gap_then:+.3f}")
print(f"  gap now: {gap_now:+.3f}")
print(f"  times the current gap: {gap_then / gap_now:.1f}")
_figures(3)

# --- block 4 (explainers/predictive-parity.md, line 181) ---
import matplotlib.pyplot as plt
from scipy.stats import binomtest


def wilson(successes, trials):
    """Half-widths of the 95% Wilson interval around successes / trials."""
    ci = binomtest(int(successes), int(trials)).proportion_ci(method="wilson")
    rate = successes / trials
    return rate - ci.low, ci.high - rate

fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.8))
names = ["base rate", "precision", "TPR", "FPR"]
for shift, (name, c, colour) in zip((-0.2, 0.2), (("Black", black, "tab:red"), ("white", white, "tab:blue"))):
    n = c.tp + c.fp + c.tn + c.fn
    counts = [(c.tp + c.fn, n), (c.tp, c.tp + c.fp), (c.tp, c.tp + c.fn), (c.fp, c.fp + c.tn)]
    values = [k / m for k, m in counts]
    errors = np.array([wilson(k, m) for k, m in counts]).T
    left.bar(np.arange(4) + shift, values, width=0.4, color=colour, label=f"{name} defendants",
             yerr=errors, capsize=3)
left.set_xticks(range(4), names)
left.set_ylim(0, 1)
left.set_ylabel("rate")
left.legend(loc="upper right")

grid = np.linspace(0.05, 0.8, 200)
right.plot(grid, fpr_from_identity(grid, pooled["precision"], pooled["TPR"]), color="grey",
           label="FPR implied at pooled precision and TPR")
for name, colour in (("Black", "tab:red"), ("white", "tab:blue")):
    r = groups[name]
    right.plot(r["base rate"], r["FPR"], "o", color=colour, label=f"{name} defendants (observed)")
right.set_xlabel("base rate p (share who reoffended)")
right.set_ylabel("false positive rate")
right.set_ylim(0, 1)
right.legend(loc="upper left", fontsize=8)
fig.tight_layout()
_show(plt.show())
_figures(4)
