# Generated from explainers/audit-credit-card-default.md by `python build.py`: edit the Markdown, not this file.
# Run from the repository root: PYTHONPATH=. python explainers/code/audit-credit-card-default.py

# --- block 1 (explainers/audit-credit-card-default.md, line 21) ---
from faircode.benchmark import load_audit

audit = load_audit("credit_card_default")
manifest, label = audit.manifest, audit.manifest.label
print(f"{manifest.name}: {len(audit.df)} rows, {len(audit.idx_test)} in the test split")
print(f"label: {label.column} {label.positive.describe()}, meaning {label.meaning}")
print(f"a positive label is {manifest.positive_label} for the person; "
      f"{int(audit.y.sum())} rows are positive ({audit.y.mean():.1%})")

# --- block 2 (explainers/audit-credit-card-default.md, line 41) ---
from faircode.audit_summary import audit_groups

groups = audit_groups(audit)
for g in groups.itertuples():
    print(f"{g.attribute}: {g.disadvantaged} (disadvantaged) against {g.advantaged}")
sizes = groups.set_index("attribute").drop(columns=["disadvantaged", "advantaged"])
sizes.columns = ["rows (disadv.)", "rows (adv.)", "test rows (disadv.)", "test rows (adv.)",
                 "base rate (disadv.)", "base rate (adv.)", "base-rate gap"]
sizes.round(3)

# --- block 3 (explainers/audit-credit-card-default.md, line 65) ---
import pandas as pd
from faircode.audit_summary import audit_results
from faircode.significance import SMALL_SAMPLE_SIZE, format_p

ALPHA = 0.05
NAMES = {
    "demographic_parity_diff": "demographic parity",
    "disparate_impact_ratio": "disparate impact (ratio)",
    "equal_opportunity_diff": "equal opportunity",
    "false_positive_rate_diff": "false positive rate",
    "equalized_odds_diff": "equalized odds",
    "predictive_parity_diff": "predictive parity",
    "accuracy_diff": "accuracy",
}

def p_text(p):
    """A p-value as format_p prints it, without the leading "p = " (or "p ")."""
    return format_p(p).removeprefix("p = ").removeprefix("p ")

def number(value, metric=""):
    """A gap with its sign; the disparate impact ratio (1 = parity) without one."""
    if pd.isna(value):
        return "n/a"
    return f"{value:+.3f}" if metric.endswith("_diff") else f"{value:.3f}"

def results_table(rows):
    """One line per test: gap, interval, p-values, MDG, rows compared, verdict."""
    return pd.DataFrame({
        "attribute": rows.protected_attribute,
        "metric": rows.metric.map(NAMES),
        "gap": [number(v, m) for v, m in zip(rows.value, rows.metric)],
        "95% interval": [f"{number(lo, m)} to {number(hi, m)}"
                         for lo, hi, m in zip(rows.ci_low, rows.ci_high, rows.metric)],
        "p": rows.p_value.map(p_text),
        "Holm p": rows.p_adjusted.map(p_text),
        "MDG": rows.minimum_detectable_gap.map(number),
        "rows compared": [f"{d:.0f} vs {a:.0f}"
                          for d, a in zip(rows.n_disadvantaged, rows.n_advantaged)],
        "finding": ["yes" if p < ALPHA else "no" for p in rows.p_adjusted],
        "small sample": rows.small_sample_warning.map({True: "yes", False: ""}),
    }).set_index(["attribute", "metric"])

results = audit_results("credit_card_default", strategy="baseline", model="logistic_regression")
print(f"{len(results)} tests, Holm-adjusted together; a finding is a Holm p below {ALPHA}; "
      f"small sample: a group under {SMALL_SAMPLE_SIZE} rows")
results_table(results)

# --- block 4 (explainers/audit-credit-card-default.md, line 126) ---
import matplotlib.pyplot as plt
from faircode.plots import forest_plot

gaps = results[results.metric != "disparate_impact_ratio"]
gaps = gaps.assign(name=gaps.metric.map(NAMES))
span = (gaps.ci_low.min() - 0.02, gaps.ci_high.max() + 0.02)   # one scale for every panel
attributes = list(dict.fromkeys(gaps.protected_attribute))
columns = min(2, len(attributes))
lines = -(-len(attributes) // columns)                         # ceiling division
fig, axes = plt.subplots(lines, columns, figsize=(5.2 * columns, 3.0 * lines), squeeze=False)
for ax, attribute in zip(axes.flat, attributes):
    forest_plot(gaps[gaps.protected_attribute == attribute], label="name", ax=ax,
                title=attribute, highlight="significant_adjusted")
    ax.set_xlim(span)
for ax in axes.flat[len(attributes):]:
    ax.set_visible(False)
fig.tight_layout()
plt.show()

# --- block 5 (explainers/audit-credit-card-default.md, line 157) ---
from faircode.audit_summary import default_results_dir

primary = manifest.primary_attribute
every = audit_results("credit_card_default", strategy=None, model="logistic_regression")
focus = every[(every.protected_attribute == primary)
              & every.metric.isin(["demographic_parity_diff", "equal_opportunity_diff"])]

def by_strategy(column):
    return focus.pivot(index="strategy", columns="metric", values=column)

table = (by_strategy("value").map("{:+.3f}".format).add_suffix(" gap")
         .join(by_strategy("p_adjusted").map(p_text).add_suffix(" Holm p")))
table.columns = [column.replace("_diff", "").replace("_", " ") for column in table.columns]
performance = pd.read_csv(default_results_dir() / "results_performance.csv")
mine = performance[(performance.audit == "credit_card_default")
                   & (performance.model == "logistic_regression")]
accuracy = mine.set_index("strategy")["balanced_accuracy"]
print(f"attribute {primary}, logistic regression; gaps are disadvantaged minus advantaged")
table.assign(**{"balanced accuracy": accuracy.map("{:.3f}".format)})
