# Generated from explainers/audit-walkthrough.md by `python build.py`: edit the Markdown, not this file.
# Run from the repository root: PYTHONPATH=. python explainers/code/audit-walkthrough.py

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

# --- block 1 (explainers/audit-walkthrough.md, line 41) ---
PLAN = {
    "audit": "compas",
    "decision": "flag a defendant as likely to be charged again (adverse for the person)",
    "attribute": "race",                       # Black against white defendants
    "model": "logistic_regression",            # the benchmark's baseline: all features
    "strategy": "baseline",
    "family": ["demographic_parity_diff", "equal_opportunity_diff",
               "false_positive_rate_diff", "predictive_parity_diff"],
    "adjustment": "holm",
    "alpha": 0.05,
    "smallest gap that matters": 0.10,         # ten points in any of the four rates
    "power wanted": 0.80,
}
from faircode.audit_summary import METRIC_LABELS, STRATEGY_LABELS
from faircode.datasets import find_manifest_path
from faircode.manifest import load_manifest

READABLE = {"audit": lambda slug: load_manifest(find_manifest_path(slug)).name, "model": str.capitalize, "strategy": STRATEGY_LABELS.get, "adjustment": str.capitalize,
            "family": lambda metrics: ", ".join(METRIC_LABELS[m] for m in metrics)}
for key, value in PLAN.items():
    shown = READABLE[key](value.replace("_", " ") if key == "model" else value) if key in READABLE else value
    print(f"{key:26s} {shown}")
_figures(1)

# --- block 2 (explainers/audit-walkthrough.md, line 77) ---
import numpy as np
import pandas as pd
from faircode.audit_summary import METRIC_LABELS, audit_results, spread_note, with_seed_spread
from faircode.power import power_at_gap

rows = audit_results(PLAN["audit"], strategy=PLAN["strategy"], model=PLAN["model"])
rows = rows[(rows.protected_attribute == PLAN["attribute"]) & rows.metric.isin(PLAN["family"])]
rows = with_seed_spread(rows.reset_index(drop=True), PLAN["audit"], missing="keep").set_index("metric")
print(spread_note(rows))
gap = PLAN["smallest gap that matters"]
planned = pd.DataFrame({
    "rows compared": [f"{int(r.n_disadvantaged)} vs {int(r.n_advantaged)}" for r in rows.itertuples()],
    "pooled rate": (rows.rate_disadvantaged * rows.n_disadvantaged + rows.rate_advantaged * rows.n_advantaged)
                   / (rows.n_disadvantaged + rows.n_advantaged),
}, index=rows.index)
planned["power at 0.10"] = [power_at_gap(int(r.n_disadvantaged), int(r.n_advantaged), gap,
                                         rate=min(max(p, gap / 2), 1 - gap / 2), alpha=PLAN["alpha"])
                            for r, p in zip(rows.itertuples(), planned["pooled rate"])]
planned["MDG"] = rows.minimum_detectable_gap
enough = planned["power at 0.10"] >= PLAN["power wanted"]
_show(planned.rename(index=METRIC_LABELS).rename_axis("measure").round(3))
_figures(2)

# --- block 3 (explainers/audit-walkthrough.md, line 116) ---
from faircode.audit_summary import INTERVAL_DESCRIPTIONS
from faircode.significance import adjust_p_values, format_p


def p_text(p):
    return format_p(p).removeprefix("p = ").removeprefix("p ")


headline = pd.DataFrame({
    "gap": rows.value, "low": rows.ci_low, "high": rows.ci_high, "interval": rows.ci_method.map(INTERVAL_DESCRIPTIONS),
    "p": rows.p_value.map(p_text),
    "Holm p (plan)": pd.Series(adjust_p_values(rows.p_value.to_numpy(), PLAN["adjustment"]), index=rows.index),
    "seed mean": rows.seed_mean, "seed sd": rows.seed_sd, "seed min": rows.seed_min, "seed max": rows.seed_max,
    "seeds opposite sign": rows.seed_share_opposite_sign,
}, index=rows.index)
findings = headline["Holm p (plan)"] < PLAN["alpha"]
headline["Holm p (plan)"] = headline["Holm p (plan)"].map(p_text)
print(f"{int(findings.sum())} of {len(headline)} planned tests are findings at alpha {PLAN['alpha']}")
_show(headline.rename(index=METRIC_LABELS).rename_axis("measure").round(3))
_figures(3)

# --- block 4 (explainers/audit-walkthrough.md, line 138) ---
import matplotlib.pyplot as plt

fig, ax = plt.subplots(figsize=(7.5, 2.8))
at = np.arange(len(headline))
ax.hlines(at, headline["seed min"], headline["seed max"], color="0.75", linewidth=8)
ax.hlines(at, headline["low"], headline["high"], color="black", linewidth=2)
ax.plot(headline["gap"], at, "o", color="black")
ax.axvline(0, color="0.4", linestyle="--", linewidth=1)
ax.set_yticks(at, [METRIC_LABELS[metric] for metric in headline.index])
ax.invert_yaxis()
ax.set_xlabel("gap (Black minus white)")
fig.tight_layout()
_show(plt.show())
_figures(4)

# --- block 5 (explainers/audit-walkthrough.md, line 175) ---
from faircode.benchmark import load_audit
from faircode.metrics import false_positive_rate_diff
from faircode.models import build_model, fit_model, positive_scores
from faircode.strategies import group_codes, reweighing_weights

audit = load_audit(PLAN["audit"])
train, test = audit.idx_train, audit.idx_test
y_train, y_test = audit.y.to_numpy()[train], audit.y.to_numpy()[test]
race_test = audit.masks[PLAN["attribute"]].to_numpy()[test]
primary_train = group_codes(audit.masks[audit.manifest.primary_attribute].to_numpy()[train])
decisions = {}
for strategy, weights in (("baseline", None), ("reweighing", reweighing_weights(primary_train, y_train))):
    model = fit_model(build_model(PLAN["model"], audit.manifest.random_state), audit.X.iloc[train], y_train,
                      sample_weight=weights)
    decisions[strategy] = (positive_scores(model, audit.X.iloc[test]) >= 0.5).astype(int)
refit = {s: false_positive_rate_diff(y_test, d, race_test).value for s, d in decisions.items()}
stored = audit_results(PLAN["audit"], strategy=None, model=PLAN["model"])
stored = stored[(stored.protected_attribute == PLAN["attribute"]) & (stored.metric == "false_positive_rate_diff")]
stored = stored.set_index("strategy").value
print("refit vs results/: " + ", ".join(f"{s} {refit[s]:+.4f} vs {stored[s]:+.4f}" for s in refit))

rng = np.random.default_rng(0)
negatives = np.flatnonzero((y_test == 0) & ~np.isnan(race_test))
black, white = negatives[race_test[negatives] == 1], negatives[race_test[negatives] == 0]


def fpr_gap(d, b, w):
    return d[b].mean() - d[w].mean()


changes = []
for _ in range(2000):
    b, w = rng.choice(black, len(black)), rng.choice(white, len(white))
    changes.append(fpr_gap(decisions["reweighing"], b, w) - fpr_gap(decisions["baseline"], b, w))
change = refit["reweighing"] - refit["baseline"]
change_low, change_high = np.quantile(changes, [0.025, 0.975])
print(f"reweighing minus baseline, false positive rate gap: {change:+.3f} "
      f"(95% percentile bootstrap {change_low:+.3f} to {change_high:+.3f})")

reweighed = audit_results(PLAN["audit"], strategy="reweighing", model=PLAN["model"])
reweighed = reweighed[(reweighed.protected_attribute == PLAN["attribute"])
                      & (reweighed.metric == "false_positive_rate_diff")].reset_index(drop=True)
reweighed = with_seed_spread(reweighed, PLAN["audit"], missing="keep").iloc[0]
print(f"reweighed false positive rate gap over the seed sweep: mean {reweighed.seed_mean:+.3f}, "
      f"sd {reweighed.seed_sd:.3f}, other sign than seed 42's in {reweighed.seed_share_opposite_sign:.0%}")
_figures(5)
