# Generated from explainers/inferred-group-membership.md by `python build.py`: edit the Markdown, not this file.
# Run from the repository root: PYTHONPATH=. python explainers/code/inferred-group-membership.py

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

# --- block 1 (explainers/inferred-group-membership.md, line 61) ---
import numpy as np
import pandas as pd
from faircode.benchmark import load_audit
from faircode.metrics import demographic_parity_diff

audit = load_audit("compas")
people = audit.df[audit.df.race.isin(["African-American", "Caucasian"])].reset_index(drop=True)
flagged = (people.decile_score >= 5).astype(int).to_numpy()
black = (people.race == "African-American").to_numpy()
true_gap = demographic_parity_diff(flagged, flagged, black).value
print(f"defendants: {len(people)}, Black: {black.sum()}, white: {(~black).sum()}")
print(f"flag rate: Black {flagged[black].mean():.3f}, white {flagged[~black].mean():.3f}")
print(f"true gap in flag rate: {true_gap:+.3f}")
_figures(1)

# --- block 2 (explainers/inferred-group-membership.md, line 83) ---
rng = np.random.default_rng(11)
print(f"{'error rate':>10s} {'mean measured gap':>18s} {'formula':>8s}")
random_errors = {}
for error_rate in (0.1, 0.2, 0.3):
    measured, predicted = [], []
    for _ in range(200):
        inferred = np.where(rng.random(len(people)) < error_rate, ~black, black)
        ppv_a, ppv_b = black[inferred].mean(), (~black)[~inferred].mean()
        measured.append(flagged[inferred].mean() - flagged[~inferred].mean())
        predicted.append((ppv_a + ppv_b - 1) * true_gap)
    random_errors[error_rate] = (np.mean(measured), np.mean(predicted))
    print(f"{error_rate:10.1f} {np.mean(measured):+18.3f} {np.mean(predicted):+8.3f}")
_figures(2)

# --- block 3 (explainers/inferred-group-membership.md, line 103) ---
import matplotlib.pyplot as plt

rates = list(random_errors)
fig, ax = plt.subplots(figsize=(7, 3.4))
ax.plot(rates, [random_errors[r][1] for r in rates], color="tab:blue", label="formula")
ax.plot(rates, [random_errors[r][0] for r in rates], "o", color="tab:orange", label="simulated")
ax.axhline(true_gap, color="grey", linestyle="--", linewidth=1, label="true gap")
ax.set_xlabel("share of records with the wrong race")
ax.set_ylabel("measured gap in flag rate")
ax.legend(frameon=False)
fig.tight_layout()
_show(plt.show())
_figures(3)

# --- block 4 (explainers/inferred-group-membership.md, line 125) ---
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split

RECORD = ["age", "priors_count", "juv_fel_count", "juv_misd_count", "juv_other_count", "sex", "c_charge_degree"]
features = pd.get_dummies(people[RECORD], drop_first=True).astype(float)
fit_rows, audit_rows = train_test_split(np.arange(len(people)), test_size=0.5, random_state=0, stratify=black)
inference = LogisticRegression(max_iter=1000).fit(features.iloc[fit_rows], black[fit_rows])
p_black = inference.predict_proba(features.iloc[audit_rows])[:, 1]
inferred = p_black >= 0.5
truth, flags = black[audit_rows], flagged[audit_rows]
ppv_a, ppv_b = truth[inferred].mean(), (~truth)[~inferred].mean()

half_true_gap = flags[truth].mean() - flags[~truth].mean()
hard_gap = demographic_parity_diff(flags, flags, inferred).value
weighted_gap = np.average(flags, weights=p_black) - np.average(flags, weights=1 - p_black)
print(f"inference accuracy {np.mean(inferred == truth):.3f}, PPV_A {ppv_a:.3f}, PPV_B {ppv_b:.3f}")
print(f"true gap on these defendants: {half_true_gap:+.3f}")
print(f"gap by inferred race: {hard_gap:+.3f} (the formula for random errors would give "
      f"{(ppv_a + ppv_b - 1) * half_true_gap:+.3f})")
print(f"gap weighted by the probability of being Black: {weighted_gap:+.3f}")
_figures(4)

# --- block 5 (explainers/inferred-group-membership.md, line 169) ---
missing_chance = {"missing completely at random, 30%": np.full(len(people), 0.3),
                  "missing unevenly": np.where(~black & (flagged == 0), 0.5, 0.1)}
complete_case = {}
for label, chance in missing_chance.items():
    gaps = []
    for _ in range(200):
        kept = rng.random(len(people)) >= chance
        gaps.append(flagged[kept & black].mean() - flagged[kept & ~black].mean())
    complete_case[label] = np.mean(gaps)
    print(f"{label:33s} rows kept {1 - chance.mean():.3f}, mean complete-case gap {np.mean(gaps):+.3f}")
complete_case_gap = complete_case["missing unevenly"]
_figures(5)
