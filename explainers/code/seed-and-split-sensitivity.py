# Generated from explainers/seed-and-split-sensitivity.md by `python build.py`: edit the Markdown, not this file.
# Run from the repository root: PYTHONPATH=. python explainers/code/seed-and-split-sensitivity.py

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

# --- block 1 (explainers/seed-and-split-sensitivity.md, line 69) ---
import numpy as np
import pandas as pd
from faircode.benchmark import load_audit
from faircode.datasets import split_indices
from faircode.models import build_model
from faircode.significance import permutation_test

resplit = load_audit("german_credit_lending", random_state=7)
same = load_audit("german_credit_lending")
_, test_rows = split_indices(same.y, same.manifest.test_size, 7)
print("load_audit(random_state=7) and split_indices(seed 7) pick the same test rows:",
      np.array_equal(resplit.idx_test, test_rows))


def one_split(audit, attribute, seed):
    """Split with `seed`, train the benchmark's model, measure the gap and its p-value."""
    train, test = split_indices(audit.y, audit.manifest.test_size, seed)
    model = build_model("logistic_regression", random_state=seed)
    model.fit(audit.X_core.iloc[train], audit.y.iloc[train])
    decision = model.predict(audit.X_core.iloc[test])
    group = audit.masks[attribute].to_numpy()[test]
    a, b = decision[group == 1], decision[group == 0]
    return {"gap": a.mean() - b.mean(), "p": permutation_test(a, b, method="exact"),
            "accuracy": np.mean(decision == audit.y.to_numpy()[test]), "n_test": len(test)}
_figures(1)

# --- block 2 (explainers/seed-and-split-sensitivity.md, line 103) ---
from scipy.stats import norm
from threadpoolctl import threadpool_limits

SEEDS = range(30)
BENCHMARK_SEED = 42
results = pd.read_csv("results/results_fairness.csv")
spread = pd.read_csv("results/results_seed_spread.csv")
sweeps, summary = {}, {}
for slug, attribute in [("german_credit_lending", "age"), ("benefits_denial", "sex")]:
    audit = load_audit(slug)
    with threadpool_limits(limits=1):  # many small fits run faster on one thread each
        runs = pd.DataFrame([one_split(audit, attribute, seed) for seed in SEEDS])
        benchmark = one_split(audit, attribute, BENCHMARK_SEED)
    sweeps[audit.manifest.name] = (runs, benchmark)
    row = results[(results.audit == slug) & (results.protected_attribute == attribute)
                  & (results.strategy == "unawareness_proxy_removal")
                  & (results.model == "logistic_regression")
                  & (results.metric == "demographic_parity_diff")].iloc[0]
    gap = runs["gap"]
    print(f"{audit.manifest.name} ({attribute}): {len(audit.df)} rows,"
          f" {benchmark['n_test']} in each test set")
    print(f"  seed {BENCHMARK_SEED}: gap {benchmark['gap']:+.4f}, p {benchmark['p']:.3g};"
          f" results/ has {row.value:+.4f}")
    print(f"  {len(runs)} other seeds: mean {gap.mean():+.4f}, sd {gap.std():.4f}, "
          f"range {gap.min():+.4f} to {gap.max():+.4f}")
    flipped = np.mean(np.sign(gap) != np.sign(benchmark["gap"]))
    print(f"  significant (p < 0.05) in {np.mean(runs['p'] < 0.05):.0%} of the splits;"
          f" sign opposite to seed {BENCHMARK_SEED} in {flipped:.0%}")
    print(f"  standard error implied by the seed-{BENCHMARK_SEED} interval in results/: "
          f"{(row.ci_high - row.ci_low) / (2 * norm.ppf(0.975)):.4f}")
    print(f"  accuracy: seed {BENCHMARK_SEED} {benchmark['accuracy']:.3f}; "
          f"mean {runs['accuracy'].mean():.3f}, sd {runs['accuracy'].std():.3f}")
    recorded = spread[(spread.audit == slug) & (spread.protected_attribute == attribute)
                      & (spread.strategy == "unawareness_proxy_removal")
                      & (spread.model == "logistic_regression")
                      & (spread.metric == "demographic_parity_diff")].iloc[0]
    all_31 = pd.concat([gap, pd.Series([benchmark["gap"]])])
    print(f"  these {len(all_31)} splits against results_seed_spread.csv: mean {all_31.mean():+.4f} / "
          f"{recorded['mean']:+.4f}, sd {all_31.std():.4f} / {recorded['sd']:.4f}")
    summary[audit.manifest.name] = {
        "sd": gap.std(), "se": (row.ci_high - row.ci_low) / (2 * norm.ppf(0.975)),
        "significant": np.mean(runs["p"] < 0.05), "flipped": flipped, "gap": benchmark["gap"],
        "mean": gap.mean(), "min": gap.min(), "max": gap.max(), "accuracy sd": runs["accuracy"].std(),
        "matches sweep": np.isclose(all_31.mean(), recorded["mean"]) and np.isclose(all_31.std(), recorded["sd"])}
_figures(2)

# --- block 3 (explainers/seed-and-split-sensitivity.md, line 178) ---
import matplotlib.pyplot as plt

fig, ax = plt.subplots(figsize=(9, 3.2))
jitter = np.random.default_rng(0)
for row, (name, (runs, benchmark)) in enumerate(sweeps.items()):
    height = row + jitter.uniform(-0.18, 0.18, len(runs))
    significant = runs["p"].to_numpy() < 0.05
    ax.scatter(runs["gap"][significant], height[significant], s=28, color="#1f3b73",
               label="p < 0.05" if row else None)
    ax.scatter(runs["gap"][~significant], height[~significant], s=28, facecolors="none",
               edgecolors="#1f3b73", label="not significant" if row else None)
    ax.scatter(benchmark["gap"], row, marker="D", s=60, color="#c0392b", zorder=3,
               label=f"seed {BENCHMARK_SEED} (the benchmark)" if row else None)
ax.axvline(0, color="grey", lw=1)
ax.set_yticks(range(len(sweeps)),
              [f"{name}\n({attribute})" for name, attribute in zip(sweeps, ["age", "sex"])])
ax.set_ylim(-0.6, len(sweeps) - 0.4)
ax.set_xlabel("gap in adverse-decision rate (disadvantaged - advantaged)")
ax.legend(frameon=False, fontsize=8, loc="upper right")
fig.tight_layout()
_show(plt.show())
_figures(3)
