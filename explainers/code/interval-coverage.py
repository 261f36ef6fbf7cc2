# Generated from explainers/interval-coverage.md by `python build.py`: edit the Markdown, not this file.
# Run from the repository root: PYTHONPATH=. python explainers/code/interval-coverage.py

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

# --- block 1 (explainers/interval-coverage.md, line 86) ---
import numpy as np
import pandas as pd
from faircode.significance import exact_coverage, interval_table, significance_report_from_counts

results = pd.read_csv("results/results_fairness.csv")
results = results[(results.strategy == "baseline") & (results.model == "logistic_regression")]
cells = [("german_credit_lending", "age", "demographic_parity_diff"),
         ("insurance_denial", "age", "equal_opportunity_diff"),
         ("benefits_denial", "age", "equal_opportunity_diff"),
         ("mortgage_denial", "race", "equal_opportunity_diff"),
         ("compas", "race_x_sex", "predictive_parity_diff"),
         ("compas", "race", "false_positive_rate_diff")]
rows = []
for audit, attribute, metric in cells:
    r = results[(results.audit == audit) & (results.protected_attribute == attribute)
                & (results.metric == metric)].iloc[0]
    rows.append({"cell": f"{audit} {attribute} {metric.removesuffix('_diff')}",
                 "n_a": int(r.n_disadvantaged), "n_b": int(r.n_advantaged),
                 "p_a": r.rate_disadvantaged, "p_b": r.rate_advantaged, "default interval": r.ci_method})
cells = pd.DataFrame(rows).set_index("cell")
# A true rate of exactly 0 or 1 makes every sample alike; the 4-person cell observed 4 of 4,
# so its true rate is set to 0.9, at which 4 of 4 is still the likeliest draw.
cells[["p_a", "p_b"]] = cells[["p_a", "p_b"]].clip(0.1, 0.9)
small = int((cells["default interval"] == "exact_unconditional").sum())
_show(cells.round(3))
_figures(1)

# --- block 2 (explainers/interval-coverage.md, line 132) ---
from statsmodels.stats.proportion import confint_proportions_2indep

STATSMODELS_NAME = {"newcombe": "newcomb", "agresti_caffo": "agresti-caffo"}
worst = 0.0
for cell, c in cells.iterrows():
    n_a, n_b = int(c.n_a), int(c.n_b)
    ones_a, ones_b = round(c.p_a * n_a), round(c.p_b * n_b)
    for ours_name, theirs in STATSMODELS_NAME.items():
        ours = significance_report_from_counts(ones_a, n_a, ones_b, n_b, ci_method=ours_name)
        low, high = confint_proportions_2indep(ones_a, n_a, ones_b, n_b, compare="diff", method=theirs)
        worst = max(worst, abs(ours.ci_low - low), abs(ours.ci_high - high))
print(f"largest difference from statsmodels over the six cells and two methods: {worst:.1e}")
_figures(2)

# --- block 3 (explainers/interval-coverage.md, line 152) ---
AUDITS, RESAMPLES = 2000, 1000
rng = np.random.default_rng(2024)


def percentile_bootstrap(ones_a, n_a, ones_b, n_b):
    """The 95% percentile interval of every simulated audit at once."""
    gaps = (rng.binomial(n_a, (ones_a / n_a)[:, None], (len(ones_a), RESAMPLES)) / n_a
            - rng.binomial(n_b, (ones_b / n_b)[:, None], (len(ones_b), RESAMPLES)) / n_b)
    return np.quantile(gaps, 0.025, axis=1), np.quantile(gaps, 0.975, axis=1)


coverage = []
for cell, c in cells.iterrows():
    n_a, n_b = int(c.n_a), int(c.n_b)
    ones_a, ones_b = rng.binomial(n_a, c.p_a, AUDITS), rng.binomial(n_b, c.p_b, AUDITS)
    truth = c.p_a - c.p_b
    lows, highs = interval_table(n_a, n_b)
    intervals = {
        "percentile bootstrap": percentile_bootstrap(ones_a, n_a, ones_b, n_b),
        "Newcombe": confint_proportions_2indep(ones_a, n_a, ones_b, n_b, method="newcomb"),
        "Agresti-Caffo": confint_proportions_2indep(ones_a, n_a, ones_b, n_b, method="agresti-caffo"),
        "faircode default": (lows[ones_a, ones_b], highs[ones_a, ones_b]),
    }
    row = {"cell": cell, "rows": f"{n_a} vs {n_b}"}
    for name, (low, high) in intervals.items():
        row[name] = np.mean((low <= truth) & (truth <= high))
    coverage.append(row)
coverage = pd.DataFrame(coverage).set_index("cell")
bootstrap_worst = coverage["percentile bootstrap"].min()
score_worst = coverage[["Newcombe", "Agresti-Caffo"]].min().min()
default_worst = coverage["faircode default"].min()
_show(coverage.round(3))
_figures(3)

# --- block 4 (explainers/interval-coverage.md, line 187) ---
import matplotlib.pyplot as plt

methods = {"percentile bootstrap": "o", "Newcombe": "s", "Agresti-Caffo": "^", "faircode default": "D"}
fig, ax = plt.subplots(figsize=(7.5, 0.6 * len(coverage) + 1.4))
rows_at = np.arange(len(coverage))
for k, (method, marker) in enumerate(methods.items()):
    ax.scatter(coverage[method], rows_at + (k - 1.5) * 0.18, marker=marker, label=method)
ax.axvline(0.95, color="0.4", linestyle="--", linewidth=1)
ax.set_yticks(rows_at, [f"{cell} ({rows})" for cell, rows in zip(coverage.index, coverage["rows"])])
ax.invert_yaxis()
ax.set_xlabel("share of simulated audits whose interval holds the true gap")
ax.legend(frameon=False, loc="lower left", fontsize=8)
fig.tight_layout()
_show(plt.show())
_figures(4)

# --- block 5 (explainers/interval-coverage.md, line 225) ---
EXACT_METHODS = {"Newcombe": "newcombe", "Agresti-Caffo": "agresti_caffo", "faircode default": "auto"}
exact_cells = pd.DataFrame(
    {name: [exact_coverage(int(c.n_a), int(c.n_b), c.p_a, c.p_b, ci_method=method) for _, c in cells.iterrows()]
     for name, method in EXACT_METHODS.items()}, index=cells.index)
small_cells = cells["default interval"] == "exact_unconditional"
exact_small_worst = exact_cells.loc[small_cells, "faircode default"].min()
exact_large_worst = exact_cells.loc[~small_cells, "faircode default"].min()
_show(exact_cells.round(4))
_figures(5)

# --- block 6 (explainers/interval-coverage.md, line 239) ---
SIZES, RATES = (5, 10, 15, 25, 50), (0.01, 0.1, 0.3, 0.5, 0.7, 0.9, 0.99)
GRID_METHODS = {"Newcombe": "newcombe", "Agresti-Caffo": "agresti_caffo",
                "exact unconditional": "exact_unconditional"}
grid = pd.DataFrame([
    {"n_a": n_a, "n_b": n_b, "p_a": p_a, "p_b": p_b,
     **{name: exact_coverage(n_a, n_b, p_a, p_b, ci_method=method) for name, method in GRID_METHODS.items()}}
    for n_a in SIZES for n_b in SIZES for p_a in RATES for p_b in RATES])
grid_summary = pd.DataFrame({name: {"worst": grid[name].min(), "median": grid[name].median(),
                                    "cells under 95%": int((grid[name] < 0.95).sum()),
                                    "cells under 94%": int((grid[name] < 0.94).sum())}
                             for name in GRID_METHODS}).T
caffo_worst = grid.loc[grid["Agresti-Caffo"].round(12).idxmin()]  # mirrored cells tie: the first of them
print(f"{len(grid)} cells; Agresti-Caffo's worst: {caffo_worst['n_a']:.0f} vs {caffo_worst['n_b']:.0f} rows, "
      f"rates {caffo_worst['p_a']:.2f} and {caffo_worst['p_b']:.2f}")
_show(grid_summary.round(4))
_figures(6)
