# Generated from explainers/bootstrap-confidence-intervals.md by `python build.py`: edit the Markdown, not this file.
# Run from the repository root: PYTHONPATH=. python explainers/code/bootstrap-confidence-intervals.py

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

# --- block 1 (explainers/bootstrap-confidence-intervals.md, line 72) ---
import numpy as np
import pandas as pd

results = pd.read_csv("results/results_fairness.csv")
compas = results[(results.audit == "compas") & (results.strategy == "baseline")]


def result_row(model, attribute, metric):
    """One benchmark row: the gap, its interval and the two group sizes."""
    return compas[(compas.model == model) & (compas.protected_attribute == attribute)
                  & (compas.metric == metric)].iloc[0]


chosen = [("compas_score", "race", "demographic_parity_diff"),
          ("compas_score", "race_x_sex", "equal_opportunity_diff"),
          ("logistic_regression", "race_x_sex", "predictive_parity_diff")]
def readable(name):
    """A code name as words: "race_x_sex" as "race x sex", "compas_score" as "compas score"."""
    return name.removesuffix("_diff").replace("_", " ")


for model, attribute, metric in chosen:
    r = result_row(model, attribute, metric)
    print(f"{readable(model)}, {readable(attribute)}, {readable(metric)}:")
    print(f"  gap: {r.value:+.3f}")
    print(f"  default interval: {r.ci_low:+.3f} to {r.ci_high:+.3f} (95%, {r.ci_method})")
    print(f"  width: {r.ci_high - r.ci_low:.3f}")
    print(f"  p-value: {r.p_value:.2g}")
    print(f"  groups of {r.n_disadvantaged} and {r.n_advantaged}")
    print(f"  small-sample warning: {r.small_sample_warning}")
_figures(1)

# --- block 2 (explainers/bootstrap-confidence-intervals.md, line 125) ---
from scipy.stats import bootstrap
from faircode.benchmark import load_audit
from faircode.significance import bootstrap_ci

audit = load_audit("compas")
score = audit.manifest.deployed_scores[0]              # decile_score, at least 5
test = audit.idx_test
flagged = (audit.df[score.column].to_numpy()[test] >= score.at_least).astype(float)
reoffended = audit.y.to_numpy()[test] == 1
race = audit.masks["race"].to_numpy()[test]            # 1 = Black, 0 = white
race_sex = audit.masks["race_x_sex"].to_numpy()[test]  # 1 = Black men, 0 = white women
print(f"flagged when {score.column} is at least {score.at_least:g}; {len(test)} test rows")


def bootstrap_by_hand(a, b, n_resamples=2000, confidence=0.95, seed=0):
    """Percentile interval of mean(a) - mean(b); each group resampled to its own size."""
    rng = np.random.default_rng(seed)
    gaps = np.empty(n_resamples)
    for i in range(n_resamples):
        gaps[i] = rng.choice(a, len(a)).mean() - rng.choice(b, len(b)).mean()
    tail = (1 - confidence) / 2
    return np.quantile(gaps, [tail, 1 - tail])


def gap(a, b, axis=-1):
    return a.mean(axis=axis) - b.mean(axis=axis)


groups = {
    "flag rate by race (demographic parity)": (flagged[race == 1], flagged[race == 0]),
    "flag rate among reoffenders, race x sex (equal opportunity)":
        (flagged[reoffended & (race_sex == 1)], flagged[reoffended & (race_sex == 0)]),
}
for name, (a, b) in groups.items():
    print(f"{name}: gap {gap(a, b):+.3f}")  # the group sizes are those of the first block
    scipy_ci = bootstrap((a, b), gap, n_resamples=2000, method="percentile",
                         rng=1).confidence_interval
    intervals = {
        "by hand": bootstrap_by_hand(a, b),
        "faircode binomial": bootstrap_ci(a, b, n_resamples=2000, random_state=0),
        "faircode exact": bootstrap_ci(a, b, method="exact"),
        "scipy.stats.bootstrap": (scipy_ci.low, scipy_ci.high),
    }
    for method, (low, high) in intervals.items():
        print(f"  {method:22} {low:+.3f} to {high:+.3f}")
_figures(2)

# --- block 3 (explainers/bootstrap-confidence-intervals.md, line 187) ---
from scipy.stats import binomtest

r = third = result_row("logistic_regression", "race_x_sex", "predictive_parity_diff")
print(f"advantaged group, white women flagged: {r.n_advantaged}")
print(f"advantaged group, rate who reoffended: {r.rate_advantaged:.2f}")
n, ones = int(r.n_advantaged), int(round(r.n_advantaged * r.rate_advantaged))
group = np.r_[np.ones(ones), np.zeros(n - ones)]
rng = np.random.default_rng(0)
resampled = {rng.choice(group, n).mean() for _ in range(2000)}
print("bootstrap resamples of that group: 2000")
print(f"distinct rates among them: {len(resampled)} (", ", ".join(f"{rate:.2f}" for rate in sorted(resampled)), ")",
      sep="")
exact = binomtest(ones, n).proportion_ci(0.95)
print(f"exact (Clopper-Pearson) 95% interval for that group's rate:"
      f" {exact.low:.3f} to {exact.high:.3f}")
n_other, ones_other = int(r.n_disadvantaged), int(round(r.n_disadvantaged * r.rate_disadvantaged))
other = np.r_[np.ones(ones_other), np.zeros(n_other - ones_other)]
print(f"disadvantaged group, Black men flagged: {n_other}")
boot_low, boot_high = bootstrap_ci(other, group, n_resamples=2000, random_state=0)
print(f"percentile bootstrap of the gap: {boot_low:+.3f} to {boot_high:+.3f}")
print(f"width of the percentile bootstrap: {boot_high - boot_low:.3f}")
print(f"default interval of the gap: {r.ci_low:+.3f} to {r.ci_high:+.3f} ({r.ci_method})")
print(f"width of the default interval: {r.ci_high - r.ci_low:.3f}")
_figures(3)

# --- block 4 (explainers/bootstrap-confidence-intervals.md, line 230) ---
from faircode.significance import exact_coverage

n_a, n_b, true_a, true_b = int(r.n_disadvantaged), int(r.n_advantaged), r.rate_disadvantaged, 0.9
coverage_here = {name: exact_coverage(n_a, n_b, true_a, true_b, ci_method=method)
                 for name, method in (("exact unconditional", "exact_unconditional"),
                                      ("Agresti-Caffo", "agresti_caffo"), ("Newcombe", "newcombe"))}
rng = np.random.default_rng(1)
audits_a, audits_b = rng.binomial(n_a, true_a, 2000), rng.binomial(n_b, true_b, 2000)
resampled_gaps = (rng.binomial(n_a, (audits_a / n_a)[:, None], (2000, 1000)) / n_a
                  - rng.binomial(n_b, (audits_b / n_b)[:, None], (2000, 1000)) / n_b)
boot_lows, boot_highs = np.quantile(resampled_gaps, [0.025, 0.975], axis=1)
coverage_here["percentile bootstrap (simulated)"] = np.mean((boot_lows <= true_a - true_b)
                                                            & (true_a - true_b <= boot_highs))
for name, value in coverage_here.items():
    print(f"coverage of the {name} interval: {value:.1%}")
_figures(4)

# --- block 5 (explainers/bootstrap-confidence-intervals.md, line 258) ---
import matplotlib.pyplot as plt
from faircode.plots import forest_plot

metrics = ["demographic_parity_diff", "equal_opportunity_diff", "false_positive_rate_diff",
           "predictive_parity_diff", "accuracy_diff"]
forest = compas[(compas.model == "compas_score") & compas.metric.isin(metrics)].copy()
forest["order"] = forest.metric.map({m: i for i, m in enumerate(metrics)})
forest = forest.sort_values(["protected_attribute", "order"]).reset_index(drop=True)
metric_names = forest.metric.str.removesuffix("_diff").str.replace("_", " ")
forest["row"] = forest.protected_attribute + ": " + metric_names
forest["smaller_group"] = forest[["n_disadvantaged", "n_advantaged"]].min(axis=1)

fig, ax = plt.subplots(figsize=(8.5, 7))
forest_plot(forest, label="row", highlight="significant_adjusted", ax=ax)
for y, size in zip(range(len(forest) - 1, -1, -1), forest.smaller_group):   # first row on top
    ax.text(1.01, y, f"{size}", transform=ax.get_yaxis_transform(), va="center",
            fontsize=8, color="#555555")
ax.tick_params(axis="y", labelsize=8)
ax.set_xlabel("gap (disadvantaged - advantaged) with faircode's default 95% interval")
fig.tight_layout()
plt.show()

clear_of_zero = (forest.ci_low > 0) | (forest.ci_high < 0)
listed = forest[clear_of_zero & ~forest.significant_adjusted.astype(bool)]
for r in listed.itertuples():
    print(f"{readable(r.row.replace(': ', ', '))}: interval clear of zero, not a finding after Holm")
    print(f"  interval: {r.ci_low:+.3f} to {r.ci_high:+.3f}")
    print(f"  raw p: {r.p_value:.3f}")
    print(f"  Holm p: {r.p_adjusted:.3f}")
_figures(5)
