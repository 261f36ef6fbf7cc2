# Generated from explainers/audit-hiring-callbacks.md by `python build.py`: edit the Markdown, not this file.
# Run from the repository root: PYTHONPATH=. python explainers/code/audit-hiring-callbacks.py

# --- block 1 (explainers/audit-hiring-callbacks.md, line 22) ---
from faircode.audit_summary import audit_overview
from faircode.benchmark import load_audit

audit = load_audit("hiring_callbacks")
manifest = audit.manifest
print(audit_overview(audit))

# --- block 2 (explainers/audit-hiring-callbacks.md, line 42) ---
from faircode.audit_summary import audit_groups, describe_groups, group_table

groups = audit_groups(audit)
print(describe_groups(groups))
group_table(groups)

# --- block 3 (explainers/audit-hiring-callbacks.md, line 61) ---
from faircode.audit_summary import audit_results, results_table
from faircode.significance import SMALL_SAMPLE_SIZE

ALPHA = 0.05

results = audit_results("hiring_callbacks", strategy="baseline", model="logistic_regression")
print(f"{len(results)} tests, Holm-adjusted together; a finding is a Holm p below {ALPHA}; "
      f"small sample: a group under {SMALL_SAMPLE_SIZE} rows")
results_table(results, alpha=ALPHA)

# --- block 4 (explainers/audit-hiring-callbacks.md, line 80) ---
import matplotlib.pyplot as plt
from faircode.audit_summary import METRIC_LABELS
from faircode.plots import forest_panels

gaps = results[results.metric != "disparate_impact_ratio"]       # a ratio has another scale
gaps = gaps.assign(name=gaps.metric.map(METRIC_LABELS))
forest_panels(gaps, by="protected_attribute", label="name", highlight="significant_adjusted")
plt.show()

# --- block 5 (explainers/audit-hiring-callbacks.md, line 100) ---
from faircode.audit_summary import strategy_table

primary = manifest.primary_attribute
print(f"attribute {primary}, logistic regression; gaps are disadvantaged minus advantaged")
strategy_table("hiring_callbacks", primary, model="logistic_regression")

# --- block 6 (explainers/audit-hiring-callbacks.md, line 120) ---
import pandas as pd
from faircode.audit_summary import default_results_dir
from faircode.significance import bootstrap_ci, format_p, permutation_test

callback = audit.y.to_numpy()
race = audit.masks["race"].to_numpy()
black, white = callback[race == 1], callback[race == 0]
callback_gap = black.mean() - white.mean()
low, high = bootstrap_ci(black, white, n_resamples=2000, random_state=0)
p = permutation_test(black, white)                 # exact for 0/1 outcomes
print(f"callback rate: Black-sounding names {black.mean():.4f}, "
      f"white-sounding names {white.mean():.4f}")
print(f"gap {callback_gap:+.4f}, 95% interval {low:+.4f} to {high:+.4f}, exact {format_p(p)}")
performance = pd.read_csv(default_results_dir() / "results_performance.csv")
baseline = performance[(performance.audit == "hiring_callbacks")
                       & (performance.strategy == "baseline")]
for row in baseline.itertuples():
    print(f"{row.model}: predicts a callback for {row.selection_rate:.2%} "
          f"of the {row.n_test} test resumes")
