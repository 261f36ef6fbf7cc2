# Generated from explainers/audit-benefits-denial.md by `python build.py`: edit the Markdown, not this file.
# Run from the repository root: PYTHONPATH=. python explainers/code/audit-benefits-denial.py

# --- block 1 (explainers/audit-benefits-denial.md, line 22) ---
from faircode.audit_summary import audit_overview
from faircode.benchmark import load_audit

audit = load_audit("benefits_denial")
manifest = audit.manifest
print(audit_overview(audit))

# --- block 2 (explainers/audit-benefits-denial.md, line 43) ---
from faircode.audit_summary import audit_groups, describe_groups, group_table

groups = audit_groups(audit)
print(describe_groups(groups))
group_table(groups)

# --- block 3 (explainers/audit-benefits-denial.md, line 64) ---
from faircode.audit_summary import audit_results, results_table
from faircode.significance import SMALL_SAMPLE_SIZE

ALPHA = 0.05

results = audit_results("benefits_denial", strategy="baseline", model="logistic_regression")
print(f"{len(results)} tests, Holm-adjusted together; a finding is a Holm p below {ALPHA}; "
      f"small sample: a group under {SMALL_SAMPLE_SIZE} rows")
results_table(results, alpha=ALPHA)

# --- block 4 (explainers/audit-benefits-denial.md, line 90) ---
import matplotlib.pyplot as plt
from faircode.audit_summary import METRIC_LABELS
from faircode.plots import forest_panels

gaps = results[results.metric != "disparate_impact_ratio"]       # a ratio has another scale
gaps = gaps.assign(name=gaps.metric.map(METRIC_LABELS))
forest_panels(gaps, by="protected_attribute", label="name", highlight="significant_adjusted")
plt.show()

# --- block 5 (explainers/audit-benefits-denial.md, line 114) ---
from faircode.audit_summary import strategy_table

primary = manifest.primary_attribute
print(f"attribute {primary}, logistic regression; gaps are disadvantaged minus advantaged")
strategy_table("benefits_denial", primary, model="logistic_regression")
