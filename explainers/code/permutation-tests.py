# Generated from explainers/permutation-tests.md by `python build.py`: edit the Markdown, not this file.
# Run from the repository root: PYTHONPATH=. python explainers/code/permutation-tests.py

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

# --- block 1 (explainers/permutation-tests.md, line 68) ---
import numpy as np
from faircode.benchmark import load_audit
from faircode.models import build_model

audit = load_audit("benefits_denial")                     # the benchmark's split (seed 42)
train, test = audit.idx_train, audit.idx_test
model = build_model("logistic_regression", random_state=42)
model.fit(audit.X_core.iloc[train], audit.y.iloc[train])  # core features: no sex, no proxies
flagged = model.predict(audit.X_core.iloc[test])          # 1 = flagged ineligible

sex = audit.masks["sex"].to_numpy()[test]                 # 1 = woman, 0 = man
women, men = flagged[sex == 1], flagged[sex == 0]
gap = women.mean() - men.mean()
print(f"test rows {len(flagged)}: {len(women)} women, {len(men)} men")
print(f"flagged ineligible: women {women.mean():.3f}, men {men.mean():.3f}, gap {gap:+.4f}")
_figures(1)

# --- block 2 (explainers/permutation-tests.md, line 92) ---
def shuffled_gaps(a, b, n_shuffles=2000, seed=0):
    """Gaps mean(a) - mean(b) after random relabellings of the pooled rows."""
    rng = np.random.default_rng(seed)
    pooled = np.concatenate([a, b]).astype(float)
    gaps = np.empty(n_shuffles)
    for i in range(n_shuffles):
        rng.shuffle(pooled)  # under the null every relabelling is as likely as the real one
        gaps[i] = pooled[: len(a)].mean() - pooled[len(a):].mean()
    return gaps


def shuffle_p(a, b, n_shuffles=2000, seed=0):
    """Two-sided Monte Carlo p-value, (hits + 1) / (n + 1): hits are relabellings with |gap| >= the observed."""
    observed = abs(a.mean() - b.mean())
    gaps = shuffled_gaps(a, b, n_shuffles, seed)
    hits = np.count_nonzero(np.abs(gaps) >= observed - 1e-9)  # a tie counts, despite float rounding
    return (hits + 1) / (n_shuffles + 1)
_figures(2)

# --- block 3 (explainers/permutation-tests.md, line 115) ---
from faircode.significance import format_p, permutation_test

rng = np.random.default_rng(0)
sample = rng.choice(len(flagged), 300, replace=False)
sample_women = flagged[sample][sex[sample] == 1]
sample_men = flagged[sample][sex[sample] == 0]

for name, a, b in [("full test set", women, men), ("300-row sample", sample_women, sample_men)]:
    by_hand = shuffle_p(a, b)
    monte_carlo = permutation_test(a, b, n_permutations=2000, random_state=0,
                                   method="monte_carlo")
    exact = permutation_test(a, b, method="exact")
    print(f"{name}: {len(a)} women, {len(b)} men, gap {a.mean() - b.mean():+.4f}")
    print(f"  by hand {format_p(by_hand, 2000)}"
          f" | faircode Monte Carlo {format_p(monte_carlo, 2000)}"
          f" | faircode exact {format_p(exact)}")
sample_p = {"by hand": by_hand, "Monte Carlo": monte_carlo, "exact": exact}   # the 300-row sample's
_figures(3)

# --- block 4 (explainers/permutation-tests.md, line 143) ---
import matplotlib.pyplot as plt
from scipy.stats import hypergeom


def exact_null(a, b):
    """Every possible gap under relabelling and its probability (hypergeometric)."""
    n_a, n_b, ones = len(a), len(b), int(a.sum() + b.sum())
    x = np.arange(max(0, ones - n_b), min(ones, n_a) + 1)
    return x / n_a - (ones - x) / n_b, hypergeom.pmf(x, n_a + n_b, ones, n_a)


fig, axes = plt.subplots(1, 2, figsize=(10, 3.8), sharex=True)
panels = [("Full test set", women, men), ("300-row sample", sample_women, sample_men)]
for ax, (name, a, b) in zip(axes, panels):
    gaps = shuffled_gaps(a, b)
    values, probabilities = exact_null(a, b)
    likely = values[probabilities > 1e-6]
    step = 1 / len(a) + 1 / len(b)                   # gaps are spaced by this much
    per_bin = max(1, round((likely.max() - likely.min()) / step / 30))
    bins = np.arange(likely.min() - step / 2, likely.max() + step, per_bin * step)
    ax.hist(gaps, bins=bins, density=True, color="#9bb7d4", label="2,000 shuffled gaps")
    exact, _ = np.histogram(values, bins=bins, weights=probabilities, density=True)
    ax.stairs(exact, bins, color="#1f3b73", lw=1.5, label="exact null distribution")
    ax.axvline(a.mean() - b.mean(), color="#c0392b", lw=2, label="observed gap")
    ax.set_title(f"{name}: {len(a)} women, {len(b)} men")
    ax.set_xlabel("gap in flagged rate (women - men)")
axes[0].set_ylabel("density")
axes[1].legend(frameon=False, loc="upper right", fontsize=8)
fig.tight_layout()
_show(plt.show())
_figures(4)

# --- block 5 (explainers/permutation-tests.md, line 187) ---
rng = np.random.default_rng(1)
share_significant = {}
for n_rows in (200, 500, 1000):
    p_values = []
    for _ in range(500):
        pick = rng.choice(len(flagged), n_rows, replace=False)
        a, b = flagged[pick][sex[pick] == 1], flagged[pick][sex[pick] == 0]
        p_values.append(permutation_test(a, b, method="exact"))
    p_values = np.array(p_values)
    share_significant[n_rows] = np.mean(p_values < 0.05)
    print(f"{n_rows:5d} rows: p < 0.05 in {np.mean(p_values < 0.05):.0%} of samples, "
          f"median {format_p(np.median(p_values))}")
_figures(5)

# --- block 6 (explainers/permutation-tests.md, line 214) ---
from faircode.significance import significance_report

credit = load_audit("german_credit_lending")
credit_model = build_model("logistic_regression", random_state=42)
credit_model.fit(credit.X_core.iloc[credit.idx_train], credit.y.iloc[credit.idx_train])
rated_bad = credit_model.predict(credit.X_core.iloc[credit.idx_test])
young = credit.masks["age"].to_numpy()[credit.idx_test]      # 1 = young, 0 = older
report = significance_report(rated_bad[young == 1], rated_bad[young == 0])
print(f"{len(credit.df)} applicants, {len(rated_bad)} in the test set:"
      f" {report.n_a} young, {report.n_b} older")
print(f"rated bad: gap {report.gap:+.4f}"
      f" | 95% interval {report.ci_low:+.3f} to {report.ci_high:+.3f}"
      f" | {format_p(report.p_value)}")
_figures(6)
