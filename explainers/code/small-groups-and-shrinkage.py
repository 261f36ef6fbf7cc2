# Generated from explainers/small-groups-and-shrinkage.md by `python build.py`: edit the Markdown, not this file.
# Run from the repository root: PYTHONPATH=. python explainers/code/small-groups-and-shrinkage.py

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

# --- block 1 (explainers/small-groups-and-shrinkage.md, line 53) ---
import numpy as np
import pandas as pd
from faircode.benchmark import load_audit

audit = load_audit("benefits_denial")
people = audit.df.assign(flagged=audit.y.to_numpy())
us_rate = people[people.native_country == "United-States"].flagged.mean()
abroad = people[people.native_country.notna() & (people.native_country != "United-States")]
countries = abroad.groupby("native_country").flagged.agg(flagged="sum", rows="size")
countries["raw"] = countries.flagged / countries.rows
print(f"countries: {len(countries)}, people born abroad: {countries.rows.sum()}")
print(f"rows per country: smallest {countries.rows.min()}, median {countries.rows.median():.0f}, "
      f"largest {countries.rows.max()}")
print(f"flag rate of people born in the United States: {us_rate:.3f}")
by_raw = countries.sort_values("raw")
listed = lambda rows: ", ".join(f"{r.Index} ({r.flagged}/{r.rows})" for r in rows.itertuples())
print("lowest raw rates:", listed(by_raw.head(3)))
print("highest raw rates:", listed(by_raw.tail(3)))
_figures(1)

# --- block 2 (explainers/small-groups-and-shrinkage.md, line 82) ---
from scipy import optimize, stats
from scipy.special import betaln, gammaln


def log_likelihood(a, b, flagged, rows):
    """Log-likelihood of every group's count under the beta-binomial model with prior Beta(a, b)."""
    log_choose = gammaln(rows + 1) - gammaln(flagged + 1) - gammaln(rows - flagged + 1)
    return float(np.sum(log_choose + betaln(flagged + a, rows - flagged + b) - betaln(a, b)))


def fit_prior(flagged, rows):
    """(a, b) of the Beta prior that maximise the likelihood (searched on the log scale, so both stay positive)."""
    found = optimize.minimize(lambda log_ab: -log_likelihood(*np.exp(log_ab), flagged, rows), x0=[0.0, 1.0],
                              method="Nelder-Mead", options={"xatol": 1e-6, "fatol": 1e-9})
    return tuple(np.exp(found.x))


flagged, rows = countries.flagged.to_numpy(), countries.rows.to_numpy()
a, b = fit_prior(flagged, rows)
scipy_value = stats.betabinom.logpmf(flagged, rows, a, b).sum()
print(f"prior: Beta({a:.2f}, {b:.2f}), common mean {a / (a + b):.3f}, prior rows a + b = {a + b:.1f}")
print(f"log-likelihood by hand {log_likelihood(a, b, flagged, rows):.6f}, by scipy.stats.betabinom {scipy_value:.6f}")
countries["weight"] = countries.rows / (countries.rows + a + b)
countries["shrunk"] = (countries.flagged + a) / (countries.rows + a + b)
_figures(2)

# --- block 3 (explainers/small-groups-and-shrinkage.md, line 113) ---
shown = pd.concat([countries.sort_values("rows").head(5), countries.sort_values("rows").tail(3)])
_show(shown[["rows", "flagged", "raw", "weight", "shrunk"]].rename_axis("country of birth").round(3))
_figures(3)

# --- block 4 (explainers/small-groups-and-shrinkage.md, line 118) ---
import matplotlib.pyplot as plt

fig, ax = plt.subplots(figsize=(7, 4))
for country in countries.itertuples():
    ax.plot([country.rows, country.rows], [country.raw, country.shrunk], color="grey", linewidth=0.8)
ax.scatter(countries.rows, countries.raw, facecolors="none", edgecolors="tab:blue", label="raw rate")
ax.scatter(countries.rows, countries.shrunk, color="tab:blue", label="shrunk rate")
ax.axhline(a / (a + b), color="black", linestyle="--", linewidth=1, label="common mean")
ax.set_xscale("log")
ax.set_xlabel("rows of the country (log scale)")
ax.set_ylabel("share flagged ineligible")
ax.legend(frameon=False)
fig.tight_layout()
_show(plt.show())
_figures(4)

# --- block 5 (explainers/small-groups-and-shrinkage.md, line 152) ---
rng = np.random.default_rng(2024)
held_out = []
for _ in range(100):
    in_first = rng.random(len(abroad)) < 0.5
    first = abroad[in_first].groupby("native_country").flagged.agg(flagged="sum", rows="size")
    second = abroad[~in_first].groupby("native_country").flagged.agg(flagged="sum", rows="size")
    both = first.join(second.add_suffix("_second"), how="inner")
    a_half, b_half = fit_prior(both.flagged.to_numpy(), both.rows.to_numpy())
    raw_half = both.flagged / both.rows
    shrunk_half = (both.flagged + a_half) / (both.rows + a_half + b_half)
    truth_proxy = both.flagged_second / both.rows_second
    weights = both.rows_second / both.rows_second.sum()
    held_out.append((np.sum(weights * (raw_half - truth_proxy) ** 2), np.sum(weights * (shrunk_half - truth_proxy) ** 2)))
held_out = np.array(held_out)
print(f"median held-out squared error: raw {np.median(held_out[:, 0]):.4f}, shrunk {np.median(held_out[:, 1]):.4f}")
print(f"share of splits in which shrinkage is closer: {np.mean(held_out[:, 1] < held_out[:, 0]):.2f}")
_figures(5)

# --- block 6 (explainers/small-groups-and-shrinkage.md, line 183) ---
from scipy.stats import beta as beta_distribution

TRUE_RATE, ROWS = 0.60, 15
draws = rng.binomial(ROWS, TRUE_RATE, size=20_000)
raw_estimates = draws / ROWS
shrunk_estimates = (draws + a) / (ROWS + a + b)
low, high = beta_distribution.ppf([0.025, 0.975], draws[:, None] + a, ROWS - draws[:, None] + b).T
covered = np.mean((low <= TRUE_RATE) & (TRUE_RATE <= high))
print(f"mean raw estimate {raw_estimates.mean():.3f}, mean shrunk estimate {shrunk_estimates.mean():.3f}")
print(f"gap to the US-born rate: true {TRUE_RATE - us_rate:+.3f}, raw {raw_estimates.mean() - us_rate:+.3f}, "
      f"shrunk {shrunk_estimates.mean() - us_rate:+.3f}")
print(f"95% posterior interval covers the true rate in {covered:.1%} of draws")
_figures(6)
