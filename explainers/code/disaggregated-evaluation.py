# Generated from explainers/disaggregated-evaluation.md by `python build.py`: edit the Markdown, not this file.
# Run from the repository root: PYTHONPATH=. python explainers/code/disaggregated-evaluation.py

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

# --- block 1 (explainers/disaggregated-evaluation.md, line 70) ---
import numpy as np
import pandas as pd
from IPython.display import display
from scipy.stats import binomtest
from faircode.benchmark import load_audit
from faircode.significance import SMALL_SAMPLE_SIZE, significance_report

audit = load_audit("compas")
score = audit.manifest.deployed_scores[0]          # the deployed COMPAS decile score
rows = pd.DataFrame({
    "race": audit.df["race"],
    "sex": audit.df["sex"],
    "flagged": (audit.df[score.column] >= score.at_least).astype(int),
    "reoffended": audit.y.to_numpy(),
})
did_not_reoffend = rows[rows.reoffended == 0]
print(f"defendants: {len(rows)}")
print(f"of them did not reoffend: {len(did_not_reoffend)}")
print(f"flagged at decile {score.at_least:g} or more")
print(f"everyone: accuracy {np.mean(rows.flagged == rows.reoffended):.3f}, "
      f"false positive rate {did_not_reoffend.flagged.mean():.3f}")
print(f"small-sample flag below {SMALL_SAMPLE_SIZE} rows")
_figures(1)

# --- block 2 (explainers/disaggregated-evaluation.md, line 100) ---
def false_positive_rates(rows, by):
    """Per group: rows, accuracy, the false positive rate with its exact 95% interval,
    and the false negative rate (reoffenders not flagged)."""
    table = []
    for key, group in rows.groupby(by):
        negatives = group[group.reoffended == 0]
        n, flagged = len(negatives), int(negatives.flagged.sum())
        interval = binomtest(flagged, n).proportion_ci(0.95) if n else (np.nan, np.nan)
        table.append({
            "group": " ".join(key) if isinstance(key, tuple) else key,
            "rows": len(group),
            "accuracy": np.mean(group.flagged == group.reoffended),
            "negatives": n,
            "fpr": flagged / n if n else np.nan,
            "low": interval[0],
            "high": interval[1],
            "fnr": 1 - group[group.reoffended == 1].flagged.mean(),
            "small": n < SMALL_SAMPLE_SIZE,
        })
    return pd.DataFrame(table)


def show(table):
    """The table as the page shows it: a group's name in words ("Asian women"), one column per measure."""
    shown = pd.DataFrame({
        "group": table.group.str.replace("Female", "women").str.replace("Male", "men").str.replace("Other", "other race"),
        "defendants": table.rows, "accuracy": table.accuracy.map("{:.3f}".format), "FNR": table.fnr.map("{:.3f}".format),
        "non-reoffenders": table.negatives,
        "FPR": ["n/a" if not n else f"{rate:.3f}" for n, rate in zip(table.negatives, table.fpr)],
        "95% interval": ["" if not n else f"[{low:.3f}, {high:.3f}]" for n, low, high in zip(table.negatives, table.low, table.high)],
        "small sample": ["small sample" if small else "" for small in table.small]})
    return shown.set_index("group")
_figures(2)

# --- block 3 (explainers/disaggregated-evaluation.md, line 137) ---
race_table = false_positive_rates(rows, "race")
display(show(race_table))
_figures(3)

# --- block 4 (explainers/disaggregated-evaluation.md, line 142) ---
cells = false_positive_rates(rows, ["race", "sex"])
display(show(cells))
by_race, by_cell = race_table.set_index("group"), cells.set_index("group")
_figures(4)

# --- block 5 (explainers/disaggregated-evaluation.md, line 175) ---
from faircode.metrics import fairness_report

report = fairness_report(rows.reoffended, rows.flagged,
                         {name: audit.masks[name] for name in ("race", "sex", "race_x_sex")},
                         metrics=["accuracy_diff", "false_positive_rate_diff"], significance=True)
from faircode.audit_summary import METRIC_LABELS

ATTRIBUTES = {"race": "race", "sex": "sex", "race_x_sex": "intersection"}
for r in report.itertuples():
    print(f"{ATTRIBUTES[r.protected_attribute]}, {METRIC_LABELS[r.metric]}:")
    print(f"  gap: {r.value:+.3f} [{r.ci_low:+.3f}, {r.ci_high:+.3f}]")
    print(f"  p-value: {r.p_value:.2g}")
    print(f"  group sizes: {r.n_disadvantaged} and {r.n_advantaged}")
    print(f"  minimum detectable: {r.minimum_detectable_gap:.3f}")
_figures(5)

# --- block 6 (explainers/disaggregated-evaluation.md, line 204) ---
RACES = {"African-American": "Black (African-American)", "Caucasian": "white (Caucasian)",
         "Hispanic": "Hispanic", "Other": "Other"}
for race in RACES:
    subset = did_not_reoffend[did_not_reoffend.race == race]
    men = subset.flagged[subset.sex == "Male"]
    women = subset.flagged[subset.sex == "Female"]
    r = significance_report(men, women, random_state=0)
    print(f"{RACES[race]} defendants:")
    print(f"  men-minus-women gap: {r.gap:+.3f} [{r.ci_low:+.3f}, {r.ci_high:+.3f}]")
    print(f"  p-value: {r.p_value:.3f}")
    print(f"  men, non-reoffenders: {r.n_a}")
    print(f"  women, non-reoffenders: {r.n_b}")
_figures(6)

# --- block 7 (explainers/disaggregated-evaluation.md, line 227) ---
import matplotlib.pyplot as plt

shown = cells[cells.negatives > 0].sort_values("fpr").reset_index(drop=True)
overall = did_not_reoffend.flagged.mean()
fig, ax = plt.subplots(figsize=(7.5, 4.8))
for i, r in shown.iterrows():
    ax.errorbar(r.fpr, i, xerr=[[r.fpr - r.low], [r.high - r.fpr]], fmt="o", color="#1f4e79",
                markerfacecolor="white" if r.small else "#1f4e79", capsize=3)
ax.axvline(overall, color="grey", linestyle="--", linewidth=1, label="everyone")
ax.plot([], [], "o", color="#1f4e79", label="cell")
ax.plot([], [], "o", color="#1f4e79", markerfacecolor="white", label=f"under {SMALL_SAMPLE_SIZE} non-reoffenders")
ax.legend(frameon=False, loc="center right")
ax.set_yticks(range(len(shown)))
ax.set_yticklabels([f"{r.group} (n={r.negatives})" for r in shown.itertuples()])
ax.set_xlim(-0.02, 1)
ax.set_xlabel("false positive rate among people who did not reoffend (exact 95% interval)")
ax.set_title("COMPAS score, flagged medium or high risk, by race and sex")
fig.tight_layout()
_show(plt.show())
_figures(7)
