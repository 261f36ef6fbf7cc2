# Generated from explainers/reference-groups.md by `python build.py`: edit the Markdown, not this file.
# Run from the repository root: PYTHONPATH=. python explainers/code/reference-groups.py

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

# --- block 1 (explainers/reference-groups.md, line 58) ---
import itertools

import numpy as np
import pandas as pd
from faircode.benchmark import load_audit

audit = load_audit("compas")
flags = audit.df.assign(flagged=(audit.df.decile_score >= 5).astype(int))
groups = flags.groupby("race").flagged.agg(flagged="sum", rows="size").sort_values("rows", ascending=False)
groups["flag rate"] = groups.flagged / groups.rows
overall_rate = flags.flagged.mean()
_show(groups.rename_axis("race").round(3))
_figures(1)

# --- block 2 (explainers/reference-groups.md, line 77) ---
import matplotlib.pyplot as plt
from scipy.stats import binomtest

bounds = [binomtest(int(g.flagged), int(g.rows)).proportion_ci(0.95, method="wilson") for g in groups.itertuples()]
fig, ax = plt.subplots(figsize=(7, 3.4))
positions = range(len(groups))
ax.errorbar(groups["flag rate"], positions, fmt="o",
            xerr=[groups["flag rate"] - [b.low for b in bounds], [b.high for b in bounds] - groups["flag rate"]])
ax.axvline(overall_rate, color="grey", linestyle="--", linewidth=1)
ax.set_yticks(list(positions), groups.index)
ax.invert_yaxis()
ax.set_xlabel("share flagged by the score (decile 5 or more)")
fig.tight_layout()
_show(plt.show())
_figures(2)

# --- block 3 (explainers/reference-groups.md, line 96) ---
from scipy.stats import chi2_contingency

table = np.column_stack([groups.flagged, groups.rows - groups.flagged])
chi2, omnibus_p, dof, expected = chi2_contingency(table)
print(f"chi-square test of equal flag rates across {len(groups)} groups: chi2 {chi2:.1f}, "
      f"{dof} degrees of freedom, p {omnibus_p:.1e}")
print(f"smallest expected count in a cell: {expected.min():.1f}")
_figures(3)

# --- block 4 (explainers/reference-groups.md, line 118) ---
from scipy.stats import hypergeom
from statsmodels.stats.multitest import multipletests
from faircode.significance import adjust_p_values, significance_report_from_counts

ALPHA = 0.05


def gap_row(family, name, ones_a, n_a, ones_b, n_b):
    report = significance_report_from_counts(ones_a, n_a, ones_b, n_b)
    return {"family": family, "comparison": name, "gap": report.gap, "p": report.p_value,
            "counts": (ones_a, n_a, ones_b, n_b)}


def hypergeometric_p(ones_a, n_a, ones_b, n_b):
    """Exact two-sided p of |gap| by summing hypergeometric probabilities of the first group's count."""
    ones = np.arange(max(0, ones_a + ones_b - n_b), min(n_a, ones_a + ones_b) + 1)
    gaps = ones / n_a - (ones_a + ones_b - ones) / n_b
    observed = abs(ones_a / n_a - ones_b / n_b)
    pmf = hypergeom.pmf(ones, n_a + n_b, ones_a + ones_b, n_a)
    return float(pmf[np.abs(gaps) >= observed - 1e-12].sum())


total_flagged, total_rows = groups.flagged.sum(), groups.rows.sum()
rows = []
for race in groups.index.drop("Caucasian"):
    rows.append(gap_row("reference", f"{race} - Caucasian", *groups.loc[race, ["flagged", "rows"]],
                        *groups.loc["Caucasian", ["flagged", "rows"]]))
for race in groups.index:
    ones, n = groups.loc[race, ["flagged", "rows"]]
    rows.append(gap_row("rest", f"{race} - everyone else", ones, n, total_flagged - ones, total_rows - n))
for first, second in itertools.combinations(groups.index, 2):
    rows.append(gap_row("pairs", f"{first} - {second}", *groups.loc[first, ["flagged", "rows"]],
                        *groups.loc[second, ["flagged", "rows"]]))
gaps = pd.DataFrame(rows)
gaps["holm"] = gaps.groupby("family").p.transform(lambda p: adjust_p_values(p.to_numpy(), method="holm"))
gaps["finding"] = gaps.holm < ALPHA
by_name = gaps.set_index(["family", "comparison"])

by_hand = max(abs(hypergeometric_p(*c) - p) for c, p in zip(gaps.counts, gaps.p))
statsmodels_holm = gaps.groupby("family").p.transform(lambda p: multipletests(p, method="holm")[1])
print(f"largest difference from the hypergeometric sum: {by_hand:.1e}")
print(f"largest difference from statsmodels' Holm: {np.max(np.abs(statsmodels_holm - gaps.holm)):.1e}")
family_sizes = gaps.family.value_counts()
findings = gaps.groupby("family").finding.sum()
for family in ("reference", "rest", "pairs"):
    print(f"family {family}: {family_sizes[family]} tests, {findings[family]} findings after Holm")
_figures(4)

# --- block 5 (explainers/reference-groups.md, line 170) ---
_show(by_name[["gap", "p", "holm", "finding"]].round(4))
_figures(5)

# --- block 6 (explainers/reference-groups.md, line 204) ---
rates = groups["flag rate"]
largest_group = groups.index[0]
best_treated = rates.idxmin()
print(f"reference = largest group ({largest_group}): gaps from {(rates - rates[largest_group]).min():+.3f} "
      f"to {(rates - rates[largest_group]).max():+.3f}")
print(f"reference = lowest flag rate ({best_treated}): gaps from {(rates - rates[best_treated]).drop(best_treated).min():+.3f} "
      f"to {(rates - rates[best_treated]).max():+.3f}")
print(f"largest gap between any two groups (between_groups): {rates.max() - rates.min():.3f}")
print(f"largest gap to the overall rate {overall_rate:.3f} (to_overall): {np.max(np.abs(rates - overall_rate)):.3f}")
_figures(6)
