# Generated from explainers/sampling-bias.md by `python build.py`: edit the Markdown, not this file.
# Run from the repository root: PYTHONPATH=. python explainers/code/sampling-bias.py

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

# --- block 1 (explainers/sampling-bias.md, line 44) ---
import numpy as np
import pandas as pd
from faircode.benchmark import load_audit
from faircode.datasets import read_data

compas = load_audit("compas")
raw = read_data(compas.manifest)                     # the file as shipped, before any filter
for f in compas.manifest.filters:
    print(f"filter: {f.column} {f.op} {f.value!r}")
kept = pd.DataFrame({"in the file": raw.race.value_counts(), "after the filters": compas.df.race.value_counts()})
kept["share kept"] = kept["after the filters"] / kept["in the file"]
kept.loc["all"] = [len(raw), len(compas.df), len(compas.df) / len(raw)]
share_kept = kept["share kept"]
_show(kept.round(3))
_figures(1)

# --- block 2 (explainers/sampling-bias.md, line 61) ---
import matplotlib.pyplot as plt

fig, ax = plt.subplots(figsize=(7, 2.8))
ax.barh(share_kept.index, share_kept.to_numpy())
ax.invert_yaxis()
ax.set_xlim(0, 1)
ax.set_xlabel("share of the file's cases kept by the filters")
fig.tight_layout()
_show(plt.show())
_figures(2)

# --- block 3 (explainers/sampling-bias.md, line 83) ---
comparisons = {"<=": np.less_equal, ">=": np.greater_equal, "!=": np.not_equal}
kept_rows = np.ones(len(raw), dtype=bool)
for f in compas.manifest.filters:
    kept_rows &= comparisons[f.op](raw[f.column], f.value).to_numpy()
print(f"rows kept by hand: {kept_rows.sum()}, by the audit: {len(compas.df)}")
charged_again = raw.two_year_recid.to_numpy()
for race in ("African-American", "Caucasian"):
    members = (raw.race == race).to_numpy()
    print(f"{race:16s} charged again: kept {charged_again[members & kept_rows].mean():.3f}, "
          f"dropped {charged_again[members & ~kept_rows].mean():.3f} ({(members & ~kept_rows).sum()} cases)")
black_rows, white_rows = (raw.race == "African-American").to_numpy(), (raw.race == "Caucasian").to_numpy()
file_gap = charged_again[black_rows].mean() - charged_again[white_rows].mean()
kept_gap = charged_again[black_rows & kept_rows].mean() - charged_again[white_rows & kept_rows].mean()
print(f"base-rate gap by race: whole file {file_gap:+.3f}, after the filters {kept_gap:+.3f}")
_figures(3)

# --- block 4 (explainers/sampling-bias.md, line 120) ---
benefits = load_audit("benefits_denial")
survey = read_data(benefits.manifest)
high_income = survey.income.astype(str).str.contains(">50K").to_numpy()
sex = survey.sex.astype(str).str.strip().to_numpy()
weights = survey.fnlwgt.to_numpy()
for name in ("Female", "Male"):
    members = sex == name
    print(f"{name:6s} over 50K: unweighted {high_income[members].mean():.4f}, "
          f"weighted by fnlwgt {np.average(high_income[members], weights=weights[members]):.4f}")
unweighted_gap = high_income[sex == "Female"].mean() - high_income[sex == "Male"].mean()
weighted_gap = (np.average(high_income[sex == "Female"], weights=weights[sex == "Female"])
                - np.average(high_income[sex == "Male"], weights=weights[sex == "Male"]))
print(f"base-rate gap, women minus men: unweighted {unweighted_gap:+.4f}, weighted {weighted_gap:+.4f}")
_figures(4)

# --- block 5 (explainers/sampling-bias.md, line 149) ---
from faircode.datasets import find_manifest_path
from faircode.manifest import load_manifest

for slug, replaces in (("mortgage_denial", "tenant screening"), ("health_risk", "healthcare readmission"),
                       ("hiring_callbacks", "AI recruitment")):
    m = load_manifest(find_manifest_path(slug))     # the manifest alone: no need to load the rows
    attributes = ", ".join(a.name for a in m.protected_attributes)
    print(f"{m.name} (for {replaces}): {m.expected_rows} rows; label: {m.label.meaning}; "
          f"compares: {attributes}")
_figures(5)
