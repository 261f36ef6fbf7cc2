# Generated from explainers/equivalence-tests.md by `python build.py`: edit the Markdown, not this file.
# Run from the repository root: PYTHONPATH=. python explainers/code/equivalence-tests.py

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

# --- block 1 (explainers/equivalence-tests.md, line 52) ---
from scipy.stats import norm

tost_margin = norm.ppf(0.95) + norm.ppf(0.90)     # margin TOST clears 4 times in 5 when the gap is 0
mdg = norm.ppf(0.975) + norm.ppf(0.80)            # gap a test of difference detects 4 times in 5
print(f"in standard errors of the gap: smallest margin TOST clears {tost_margin:.2f}, MDG {mdg:.2f}")
_figures(1)

# --- block 2 (explainers/equivalence-tests.md, line 77) ---
import numpy as np
import pandas as pd
from faircode.audit_summary import audit_results
from faircode.significance import equivalence_test

MARGIN, ALPHA = 0.05, 0.05
chosen = [("compas", "compas_score", "race", "predictive_parity_diff"),
          ("german_credit_lending", "logistic_regression", "age", "demographic_parity_diff"),
          ("health_risk", "logistic_regression", "sex", "false_positive_rate_diff")]


def counts(row):
    """The 0/1 outcomes behind a results row, rebuilt from its rates and group sizes."""
    ones_a = round(row.rate_disadvantaged * row.n_disadvantaged)
    ones_b = round(row.rate_advantaged * row.n_advantaged)
    return ones_a, int(row.n_disadvantaged), ones_b, int(row.n_advantaged)


def zeros_and_ones(ones, n):
    return np.r_[np.ones(ones), np.zeros(n - ones)]


rows = []
for audit, model, attribute, metric in chosen:
    row = audit_results(audit, model=model).set_index(["protected_attribute", "metric"]).loc[(attribute, metric)]
    ones_a, n_a, ones_b, n_b = counts(row)
    a, b = zeros_and_ones(ones_a, n_a), zeros_and_ones(ones_b, n_b)
    at_margin = equivalence_test(a, b, MARGIN, alpha=ALPHA)
    at_mdg = equivalence_test(a, b, row.minimum_detectable_gap, alpha=ALPHA)
    rows.append({"audit": audit, "row": f"{attribute} {metric.removesuffix('_diff')}",
                 "rows": f"{n_a} vs {n_b}", "gap": row.value, "p (difference)": row.p_value,
                 "MDG": row.minimum_detectable_gap, "90% interval": f"{at_margin.ci_low:+.3f} to {at_margin.ci_high:+.3f}",
                 "TOST p at 0.05": at_margin.p_value, "within 0.05": at_margin.equivalent,
                 "TOST p at MDG": at_mdg.p_value, "within MDG": at_mdg.equivalent})
table = pd.DataFrame(rows).set_index(["audit", "row"])
verdict = table["within 0.05"]
_show(table.round(4))
_figures(2)

# --- block 3 (explainers/equivalence-tests.md, line 117) ---
import matplotlib.pyplot as plt

bounds = table["90% interval"].str.split(" to ", expand=True).astype(float)
fig, ax = plt.subplots(figsize=(7.5, 2.6))
at = np.arange(len(table))
ax.hlines(at, bounds[0], bounds[1], linewidth=3)
ax.plot(table["gap"], at, "o", color="black")
for edge in (-MARGIN, MARGIN):
    ax.axvline(edge, color="0.4", linestyle="--", linewidth=1)
ax.axvline(0, color="0.7", linewidth=0.8)
ax.set_yticks(at, [f"{audit}: {row}" for audit, row in table.index])
ax.invert_yaxis()
ax.set_xlabel("gap (disadvantaged minus advantaged)")
fig.tight_layout()
_show(plt.show())
_figures(3)

# --- block 4 (explainers/equivalence-tests.md, line 161) ---
from statsmodels.stats.proportion import tost_proportions_2indep

agreement = {}
for (audit, model, attribute, metric) in chosen:
    row = audit_results(audit, model=model).set_index(["protected_attribute", "metric"]).loc[(attribute, metric)]
    ones_a, n_a, ones_b, n_b = counts(row)
    a, b = zeros_and_ones(ones_a, n_a), zeros_and_ones(ones_b, n_b)
    wald = equivalence_test(a, b, MARGIN, alpha=ALPHA, method="wald").p_value
    score = equivalence_test(a, b, MARGIN, alpha=ALPHA, method="score").p_value
    theirs = {(m, c): tost_proportions_2indep(ones_a, n_a, ones_b, n_b, -MARGIN, MARGIN, method=m, correction=c).pvalue
              for m, c in (("wald", False), ("score", True), ("score", False))}
    agreement[audit] = (abs(wald - theirs["wald", False]), abs(score - theirs["score", True]),
                        abs(theirs["score", True] - theirs["score", False]))
    print(f"{audit:22s} Wald: faircode {wald:.6f}, statsmodels {theirs['wald', False]:.6f} | "
          f"score: faircode {score:.6f}, statsmodels {theirs['score', True]:.6f} "
          f"(without its correction {theirs['score', False]:.6f})")
_figures(4)

# --- block 5 (explainers/equivalence-tests.md, line 196) ---
rng = np.random.default_rng(15)
health = audit_results("health_risk").set_index(["protected_attribute", "metric"]).loc[("sex", "false_positive_rate_diff")]
n_a, n_b = int(health.n_disadvantaged), int(health.n_advantaged)
p_b = health.rate_advantaged
ones_a, ones_b = rng.binomial(n_a, p_b + MARGIN, 20000), rng.binomial(n_b, p_b, 20000)
declared = tost_proportions_2indep(ones_a, n_a, ones_b, n_b, -MARGIN, MARGIN, method="score").pvalue < ALPHA
ours = np.array([equivalence_test(zeros_and_ones(ka, n_a), zeros_and_ones(kb, n_b), MARGIN, alpha=ALPHA,
                                  method="score").equivalent
                 for ka, kb in zip(ones_a[:200], ones_b[:200])])
false_equivalence = declared.mean()
disagreements = int((ours != declared[:200]).sum())
print(f"true gap +0.05 (the margin), groups of {n_a} and {n_b}: 'within 0.05' declared in "
      f"{false_equivalence:.1%} of {len(declared)} audits")
print(f"faircode's verdicts on the first {len(ours)} audits: {disagreements} differ from statsmodels'")
_figures(5)

# --- block 6 (explainers/equivalence-tests.md, line 221) ---
from scipy.stats import binom


def plausible_counts(n, rate):
    """Every count within eight standard deviations of n * rate, with its binomial probability."""
    sd = np.sqrt(n * rate * (1 - rate))
    counts = np.arange(max(0, int(n * rate - 8 * sd)), min(n, int(n * rate + 8 * sd)) + 1)
    return counts, binom.pmf(counts, n, rate)


counts_a, chance_a = plausible_counts(n_a, p_b + MARGIN)
counts_b, chance_b = plausible_counts(n_b, p_b)
grid_a, grid_b = np.meshgrid(counts_a, counts_b, indexing="ij")
rejects = tost_proportions_2indep(grid_a.ravel(), n_a, grid_b.ravel(), n_b, -MARGIN, MARGIN,
                                  method="score").pvalue < ALPHA
exact_size = float(np.sum(np.outer(chance_a, chance_b).ravel() * rejects))
print(f"probability of the counts summed over: {np.outer(chance_a, chance_b).sum():.10f}")
print(f"'within 0.05' at the margin, over every plausible pair of counts; exact size: {exact_size:.2%}")
_figures(6)
