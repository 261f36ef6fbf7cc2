# Generated from explainers/conditional-gaps.md by `python build.py`: edit the Markdown, not this file.
# Run from the repository root: PYTHONPATH=. python explainers/code/conditional-gaps.py

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

# --- block 1 (explainers/conditional-gaps.md, line 65) ---
import numpy as np
import pandas as pd
from faircode.benchmark import load_audit

audit = load_audit("mortgage_denial")
applications = audit.df.assign(denied=audit.y.to_numpy(), black=audit.masks["race"].to_numpy().astype(bool))
rates = applications.groupby("black").denied.mean()
raw_gap = rates[True] - rates[False]
print(f"applications: {len(applications)}, Black applicants: {applications.black.sum()}")
print(f"denial rate of Black applicants: {rates[True]:.3f}, of other applicants: {rates[False]:.3f}")
print(f"raw gap in denial rate: {raw_gap:+.3f}")
_figures(1)

# --- block 2 (explainers/conditional-gaps.md, line 83) ---
def strata_counts(frame, by):
    """Per stratum of ``by``: rows and denials of each group, its gap and its Mantel-Haenszel weight."""
    grouped = frame.groupby(by, observed=True)
    table = pd.DataFrame({
        "black_rows": grouped.black.sum(),
        "black_denied": grouped.apply(lambda s: s.denied[s.black].sum(), include_groups=False),
        "other_rows": grouped.black.apply(lambda b: (~b).sum()),
        "other_denied": grouped.apply(lambda s: s.denied[~s.black].sum(), include_groups=False),
    })
    table = table[(table.black_rows > 0) & (table.other_rows > 0)]   # a one-group stratum has no weight
    table["black_rate"] = table.black_denied / table.black_rows
    table["other_rate"] = table.other_denied / table.other_rows
    table["gap"] = table.black_rate - table.other_rate
    table["weight"] = table.black_rows * table.other_rows / (table.black_rows + table.other_rows)
    return table


history = strata_counts(applications, "chist")
shown = history[["black_rows", "black_rate", "other_rows", "other_rate", "gap", "weight"]]
_show(shown.rename_axis("credit history").rename(columns={
    "black_rows": "Black applicants", "black_rate": "Black denial rate", "other_rows": "other applicants",
    "other_rate": "other denial rate", "gap": "gap", "weight": "weight"}).round(3))
_figures(2)

# --- block 3 (explainers/conditional-gaps.md, line 114) ---
import matplotlib.pyplot as plt

fig, ax = plt.subplots(figsize=(7, 3.6))
size = 400 * history.weight / history.weight.max()
ax.scatter(history.index, history.black_rate, s=size, label="Black applicants", zorder=3)
ax.scatter(history.index, history.other_rate, s=size, marker="s", label="other applicants", zorder=3)
ax.vlines(history.index, history.other_rate, history.black_rate, color="grey", linewidth=1)
ax.set_xlabel("credit history (1 = no slow payments, 6 = serious delinquencies)")
ax.set_ylabel("share of applications denied")
ax.legend(frameon=False)
fig.tight_layout()
_show(plt.show())
_figures(3)

# --- block 4 (explainers/conditional-gaps.md, line 135) ---
from scipy.stats import hypergeom
from statsmodels.stats.contingency_tables import StratifiedTable


def conditional_gap(table):
    """The Mantel-Haenszel pooled gap of a table made by strata_counts."""
    return float((table.weight * table.gap).sum() / table.weight.sum())


def exact_stratified_p(table):
    """Two-sided exact p-value of the pooled gap, group labels shuffled within each stratum."""
    total = np.array([1.0])
    expected = 0.0
    for s in table.itertuples():
        positives = s.black_denied + s.other_denied
        rows = s.black_rows + s.other_rows
        support = np.arange(max(0, positives - s.other_rows), min(positives, s.black_rows) + 1)
        pmf = np.zeros(support[-1] + 1)
        pmf[support] = hypergeom.pmf(support, rows, positives, s.black_rows)
        total = np.convolve(total, pmf)
        expected += s.black_rows * positives / rows
    observed = table.black_denied.sum()
    distance = np.abs(np.arange(len(total)) - expected)
    return float(total[distance >= abs(observed - expected) - 1e-9].sum())


def shuffled_p(frame, by, n_shuffles, rng):
    """Monte Carlo p-value of the pooled gap, race shuffled within each stratum: (hits + 1) / (n + 1)."""
    observed = abs(conditional_gap(strata_counts(frame, by)))
    strata = [(s.denied.to_numpy(), s.black.to_numpy()) for _, s in frame.groupby(by, observed=True)
              if s.black.any() and not s.black.all()]
    hits = 0
    for _ in range(n_shuffles):
        pooled = weights = 0.0
        for denied, black in strata:
            black = rng.permutation(black)
            weight = black.sum() * (~black).sum() / len(black)
            pooled += weight * (denied[black].mean() - denied[~black].mean())
            weights += weight
        hits += abs(pooled / weights) >= observed - 1e-12
    return (hits + 1) / (n_shuffles + 1)


tables = [np.array([[s.black_denied, s.black_rows - s.black_denied], [s.other_denied, s.other_rows - s.other_denied]])
          for s in history.itertuples()]
cmh = StratifiedTable(tables).test_null_odds(correction=False)
print(f"conditional gap given credit history: {conditional_gap(history):+.3f}")
print(f"exact stratified p: {exact_stratified_p(history):.1e}")
print(f"Cochran-Mantel-Haenszel p (statsmodels): {cmh.pvalue:.1e}")
shuffled = shuffled_p(applications, "chist", 2000, np.random.default_rng(7))
print(f"shuffled p, 2,000 shuffles: {shuffled:.4f}")
_figures(4)

# --- block 5 (explainers/conditional-gaps.md, line 207) ---
applications["payments"] = pd.cut(applications.pirat, [0, 0.3, 0.4, np.inf], right=False,
                                  labels=["under 30%", "30% to 40%", "40% or more"])
controls = {
    "none": None,
    "credit history": ["chist"],
    "credit history, payments": ["chist", "payments"],
    "credit history, payments, public record": ["chist", "payments", "phist"],
}
print(f"{'controls':42s} {'strata':>6s} {'gap':>7s} {'exact p':>8s}")
ladder = {}
for name, by in controls.items():
    if by is None:
        ladder[name] = (1, raw_gap)
        print(f"{name:42s} {1:6d} {raw_gap:+7.3f} {'':>8s}")
        continue
    table = strata_counts(applications, by)
    ladder[name] = (len(table), conditional_gap(table))
    print(f"{name:42s} {len(table):6d} {ladder[name][1]:+7.3f} {exact_stratified_p(table):8.1e}")
_figures(5)
