# Generated from explainers/demographic-parity.md by `python build.py`: edit the Markdown, not this file.
# Run from the repository root: PYTHONPATH=. python explainers/code/demographic-parity.py

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

# --- block 1 (explainers/demographic-parity.md, line 75) ---
import numpy as np
import pandas as pd
from faircode.benchmark import load_audit
from faircode.metrics import disparate_impact_ratio

hiring = load_audit("hiring_callbacks")
called = hiring.y.to_numpy()                      # 1 = the employer called back (favourable)
race = hiring.masks["race"].to_numpy()            # 1 = Black-sounding name, 0 = white-sounding

rates = pd.Series(called).groupby(race).mean()    # by hand: the callback rate of each group
print(f"callback rate: Black names {rates[1]:.4f}, white names {rates[0]:.4f}")
print(f"gap by hand: {rates[1] - rates[0]:+.4f}")
print(f"ratio by hand: {rates[1] / rates[0]:.4f}")

FOUR_FIFTHS = 0.8
HIRING_GROUPS = {"race": "race on the resumes", "gender": "gender on the resumes",
                 "race_x_gender": "intersection on the resumes"}
NAMES = {"race": ("Black names", "white names"), "gender": ("women", "men"), "race_x_gender": ("Black women", "white men")}
favourable = []                                   # (label, ratio record) pairs for the figure
for attribute in ("race", "gender", "race_x_gender"):
    group = hiring.masks[attribute].to_numpy()
    ratio = disparate_impact_ratio(called, called, group, significance=True)
    favourable.append((f"Hiring: {attribute}", ratio))
    print(f"{HIRING_GROUPS[attribute]}:")
    print(f"  callback rates: {ratio.rate_disadvantaged:.4f} and {ratio.rate_advantaged:.4f}")
    print(f"  resumes with {NAMES[attribute][0]}: {ratio.n_disadvantaged}")
    print(f"  resumes with {NAMES[attribute][1]}: {ratio.n_advantaged}")
    print(f"  ratio: {ratio.value:.3f}")
    print(f"  95% interval: {ratio.ci_low:.3f} to {ratio.ci_high:.3f}")
    print(f"  p-value: {ratio.p_value:.2g}")
    print(f"  under four-fifths: {ratio.value < FOUR_FIFTHS}")
_figures(1)

# --- block 2 (explainers/demographic-parity.md, line 134) ---
from faircode.models import build_model

benefits = load_audit("benefits_denial")
train, test = benefits.idx_train, benefits.idx_test
model = build_model("logistic_regression", random_state=42)
model.fit(benefits.X_core.iloc[train], benefits.y.iloc[train])
flagged = model.predict(benefits.X_core.iloc[test])        # 1 = flagged ineligible (the harm)
outcome = benefits.y.to_numpy()[test]

compas = load_audit("compas")
high_risk = (compas.df["decile_score"] >= 5).astype(int).to_numpy()   # the deployed score's cut
audits = [("Benefits", benefits.masks, test, outcome, flagged, ("sex", "race", "age")),
          ("COMPAS", compas.masks, compas.idx_test, compas.y.to_numpy()[compas.idx_test],
           high_risk[compas.idx_test], ("race",))]

adverse = []                                      # ratios of the harm, for the figure
GROUPS = {("Benefits", "sex"): ("women", "men"), ("Benefits", "race"): ("Black people", "white people"),
          ("Benefits", "age"): ("young people", "older people"), ("COMPAS", "race"): ("Black defendants", "white defendants")}
AUDIT_NAMES = {"Benefits": "Benefits Denial", "COMPAS": "COMPAS"}
for name, masks, rows, truth, harm_decision, attributes in audits:
    for attribute in attributes:
        group = masks[attribute].to_numpy()[rows]
        harm = disparate_impact_ratio(truth, harm_decision, group, significance=True)
        kept = disparate_impact_ratio(1 - truth, 1 - harm_decision, group, significance=True)
        adverse.append((f"{name}: {attribute}", harm))
        favourable.append((f"{name}: {attribute}", kept))
        disadvantaged, advantaged = GROUPS[name, attribute]
        print(f"{AUDIT_NAMES[name]}, {attribute}:")
        print(f"  {disadvantaged} flagged: {harm.rate_disadvantaged:.3f}")
        print(f"  {advantaged} flagged: {harm.rate_advantaged:.3f}")
        print(f"  ratio of flag rates: {harm.value:.2f}")
        print(f"  {disadvantaged} unflagged: {kept.rate_disadvantaged:.3f}")
        print(f"  {advantaged} unflagged: {kept.rate_advantaged:.3f}")
        print(f"  ratio of the favourable outcome: {kept.value:.3f} [{kept.ci_low:.3f}, {kept.ci_high:.3f}]")
        print(f"  p-value: {kept.p_value:.2g}")
_figures(2)

# --- block 3 (explainers/demographic-parity.md, line 184) ---
import matplotlib.pyplot as plt

fig, ax = plt.subplots(figsize=(7.5, 4.2))
labels = [label for label, _ in favourable]
for y, (label, record) in enumerate(favourable):
    colour = "tab:red" if record.value < FOUR_FIFTHS else "tab:blue"
    ax.errorbar(record.value, y, xerr=[[record.value - record.ci_low], [record.ci_high - record.value]],
                fmt="o", color=colour, capsize=3)
for label, record in adverse:
    y = labels.index(label)
    ax.plot(record.value, y, "o", mfc="white", mec="grey")
ax.axvline(1.0, color="black", lw=1)
ax.axvline(FOUR_FIFTHS, color="tab:red", lw=1, ls="--")
ax.set_yticks(range(len(labels)), labels)
ax.invert_yaxis()
ax.set_xlabel("disparate impact ratio (disadvantaged / advantaged)")
ax.set_title("Favourable outcome (filled) and harmful label (hollow)")
fig.tight_layout()
_show(plt.show())
_figures(3)
