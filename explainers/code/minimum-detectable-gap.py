# Generated from explainers/minimum-detectable-gap.md by `python build.py`: edit the Markdown, not this file.
# Run from the repository root: PYTHONPATH=. python explainers/code/minimum-detectable-gap.py

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

# --- block 1 (explainers/minimum-detectable-gap.md, line 48) ---
import numpy as np
import pandas as pd
from scipy.stats import norm
from faircode.datasets import find_manifest_path
from faircode.manifest import load_manifest
from faircode.power import minimum_detectable_gap, power_at_gap, simulated_power

ALPHA, POWER = 0.05, 0.80
multiplier = norm.ppf(1 - ALPHA / 2) + norm.ppf(POWER)
print("multiplier = z(1 - alpha/2) + z(power), in standard errors of the gap")
print(f"multiplier in standard errors: {multiplier:.3f}")
print("detectable gap for two equal groups (rate 0.5), normal formula and exact test:")
from_hand = []
for n in (25, 50, 100, 200, 500, 1000, 5000):
    normal = minimum_detectable_gap(n, n, alpha=ALPHA, power=POWER, method="normal")
    from_hand.append(abs(normal - multiplier * np.sqrt(0.5 * 0.5 * (2 / n))))
    exact = f"{minimum_detectable_gap(n, n, alpha=ALPHA, power=POWER, method='exact'):.3f}" if n <= 200 else "-"
    print(f"  {n:5d} per group: normal {normal:.3f}, exact test {exact}")
print(f"largest difference of the normal column from the formula by hand: {max(from_hand):.1e}")
_figures(1)

# --- block 2 (explainers/minimum-detectable-gap.md, line 102) ---
print("planted gap = the normal formula's detectable gap; power of the exact test:")
print(f"target power: {POWER:.0%}")
check = {}
for n in (25, 100, 500, 1000):
    gap = minimum_detectable_gap(n, n, method="normal")
    detected = simulated_power(n, n, gap, n_sim=4000, random_state=n)
    exact_power = power_at_gap(n, n, gap, method="exact") if n <= 100 else None
    check[n] = (gap, detected, exact_power)
    exact_text = f"exact power {exact_power:.1%}; " if exact_power is not None else ""
    print(f"simulated groups of {n}: planted gap {gap:.3f}, detected in {detected:.1%} of 4,000 simulated audits"
          f" ({exact_text}formula power: {power_at_gap(n, n, gap, method='normal'):.1%})")
_figures(2)

# --- block 3 (explainers/minimum-detectable-gap.md, line 131) ---
results = pd.read_csv("results/results_fairness.csv")
rows = results[(results.strategy == "unawareness_proxy_removal")
               & (results.model == "logistic_regression")
               & (results.metric == "demographic_parity_diff")].copy()
n_a, n_b = rows.n_disadvantaged, rows.n_advantaged
rows["detectable"] = [minimum_detectable_gap(a, b) for a, b in zip(n_a, n_b)]   # worst case, rate 0.5

pooled = (rows.rate_disadvantaged * n_a + rows.rate_advantaged * n_b) / (n_a + n_b)
rows["at_own_rate"] = [minimum_detectable_gap(a, b, rate=p) if 0 < p < 1 else np.nan
                       for a, b, p in zip(n_a, n_b, pooled)]
reproduced = np.allclose(rows.at_own_rate, rows.minimum_detectable_gap, equal_nan=True)
print("at the pooled rate, matches the minimum_detectable_gap column of results/:", reproduced)

rows["rate"] = pooled
names = {slug: load_manifest(find_manifest_path(slug)).name for slug in rows.audit.unique()}
p_text = ["< 1e-300" if p == 0 else f"{p:.2g}" for p in rows.p_value]  # 0: so small it underflowed
table = pd.DataFrame({
    "audit and attribute": [f"{names[a]}, {attr.replace('_x_', ' x ')}"
                            for a, attr in zip(rows.audit, rows.protected_attribute)],
    "disadvantaged group": rows.n_disadvantaged, "advantaged group": rows.n_advantaged,
    "pooled rate": rows.rate.round(3), "detectable, worst case": rows.detectable.round(3),
    "detectable, own rate": ["n/a" if np.isnan(x) else f"{x:.3f}" for x in rows.at_own_rate], "observed gap": rows.value.map("{:+.3f}".format),
    "p-value": p_text,
}).sort_values("detectable, worst case", ascending=False).set_index("audit and attribute")
_show(table)
_figures(3)

# --- block 4 (explainers/minimum-detectable-gap.md, line 191) ---
import matplotlib.pyplot as plt
from faircode.plots import power_curve

cases = [("german_credit_lending", "age"), ("insurance_denial", "sex"), ("benefits_denial", "sex")]
picked = [rows[(rows.audit == audit) & (rows.protected_attribute == attribute)].iloc[0]
          for audit, attribute in cases]
sizes = {f"{r.audit} / {r.protected_attribute} ({r.n_disadvantaged}, {r.n_advantaged})":
         (int(r.n_disadvantaged), int(r.n_advantaged)) for r in picked}
fig, ax = plt.subplots(figsize=(8, 4))
power_curve(sizes, gaps=np.linspace(0, 0.4, 161), ax=ax)
planted = np.arange(0.04, 0.40, 0.04)
for line, r, (a, b) in zip(ax.get_lines(), picked, sizes.values()):
    colour = line.get_color()
    simulated = [simulated_power(a, b, g, n_sim=1000, random_state=7) for g in planted]
    ax.plot(planted, simulated, "o", ms=4, color=colour)
    ax.plot([abs(r.value)] * 2, [0, 0.06], color=colour, lw=3)  # the observed gap
ax.set_xlabel("true gap in rates (absolute)")
ax.legend(frameon=False, fontsize=8, loc="lower right")
fig.tight_layout()
_show(plt.show())
_figures(4)
