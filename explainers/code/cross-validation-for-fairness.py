# Generated from explainers/cross-validation-for-fairness.md by `python build.py`: edit the Markdown, not this file.
# Run from the repository root: PYTHONPATH=. python explainers/code/cross-validation-for-fairness.py

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

# --- block 1 (explainers/cross-validation-for-fairness.md, line 62) ---
import numpy as np
from sklearn.model_selection import StratifiedKFold, train_test_split
from faircode.benchmark import load_audit
from faircode.models import build_model
from faircode.significance import significance_report


def fit_predict(audit, train, test, seed):
    """Train a logistic regression on the core features; predict the test rows."""
    model = build_model("logistic_regression", seed).fit(audit.X_core.iloc[train], audit.y.iloc[train])
    return model.predict(audit.X_core.iloc[test]).astype(float)


def gap_report(predicted, group):
    """Gap in the predicted rate, disadvantaged (1) minus advantaged (0), with faircode's interval."""
    return significance_report(predicted[group == 1], predicted[group == 0])


def single_split(audit, group, seed):
    """The benchmark's recipe: one split stratified on the label, with another seed."""
    train, test = train_test_split(np.arange(len(group)), test_size=audit.manifest.test_size,
                                   random_state=seed, stratify=audit.y)
    return gap_report(fit_predict(audit, train, test, seed), group[test])


def cross_validated(audit, group, n_splits=5, seed=0):
    """Per-fold gap reports and every row's out-of-fold prediction, folds stratified on label x group."""
    strata = 2 * group + audit.y.to_numpy()
    folds = StratifiedKFold(n_splits=n_splits, shuffle=True, random_state=seed)
    predicted = np.empty(len(group))
    reports = []
    for train, test in folds.split(audit.X_core, strata):
        predicted[test] = fit_predict(audit, train, test, seed)
        reports.append(gap_report(predicted[test], group[test]))
    return reports, predicted


german = load_audit("german_credit_lending")
age = german.masks["age"].to_numpy().astype(int)       # 1 = the young group
print("German Credit Lending, age:")
print(f"  applicants: {len(age)}")
print(f"  of them young: {age.sum()}")

single = single_split(german, age, german.manifest.random_state)
print(f"  the benchmark's own split: gap {single.gap:+.3f} "
      f"[{single.ci_low:+.3f}, {single.ci_high:+.3f}], p {single.p_value:.3f}, "
      f"{single.n_a} young, {single.n_a + single.n_b} test rows")

folds, out_of_fold = cross_validated(german, age)
fold_gaps = np.array([f.gap for f in folds])
print("  gaps of the five folds:", " ".join(f"{g:+.3f}" for g in fold_gaps))
print(f"  mean of the five folds: {fold_gaps.mean():+.3f}")
print(f"  sd of the five folds: {fold_gaps.std(ddof=1):.3f}")
print(f"  fold range of the five folds: {fold_gaps.min():+.3f} to {fold_gaps.max():+.3f}")
pooled = gap_report(out_of_fold, age)
print(f"  pooled out-of-fold: gap {pooled.gap:+.3f} [{pooled.ci_low:+.3f}, {pooled.ci_high:+.3f}], "
      f"p {pooled.p_value:.4f}, {pooled.n_a} young, {pooled.n_a + pooled.n_b} rows")
_figures(1)

# --- block 2 (explainers/cross-validation-for-fairness.md, line 142) ---
singles = np.array([single_split(german, age, seed).gap for seed in range(30)])
repeats = [cross_validated(german, age, seed=seed)[0] for seed in range(6)]
repeat_folds = np.array([[f.gap for f in folds] for folds in repeats])
cv_means = repeat_folds.mean(axis=1)
print(f"German Credit Lending, single splits over {len(singles)} seeds:")
print(f"  mean of single splits: {singles.mean():+.3f}")
print(f"  sd of single splits: {singles.std(ddof=1):.3f}")
print(f"  range of single splits: {singles.min():+.3f} to {singles.max():+.3f}")
print(f"German Credit Lending, repeats of the cross-validation over {len(cv_means)} shuffles:")
print(f"  mean over repeats: {cv_means.mean():+.3f}")
print(f"  sd over repeats: {cv_means.std(ddof=1):.3f}")
print(f"  range over repeats: {cv_means.min():+.3f} to {cv_means.max():+.3f}")
print("German Credit Lending, folds of the repeats:")
print(f"  folds: {repeat_folds.size}")
print(f"  sd of the folds of all repeats: {repeat_folds.std(ddof=1):.3f}")
_figures(2)

# --- block 3 (explainers/cross-validation-for-fairness.md, line 172) ---
benefits = load_audit("benefits_denial")
sex = benefits.masks["sex"].to_numpy().astype(int)     # 1 = women
print("Benefits Denial, sex:")
print(f"  adults: {len(sex)}")
print(f"  of them women: {sex.sum()}")

r_single = single_split(benefits, sex, benefits.manifest.random_state)
print(f"  the benchmark's own split: gap {r_single.gap:+.4f} "
      f"[{r_single.ci_low:+.4f}, {r_single.ci_high:+.4f}], {r_single.n_a} women of {r_single.n_a + r_single.n_b}")
benefit_folds, benefit_oof = cross_validated(benefits, sex)
benefit_gaps = np.array([f.gap for f in benefit_folds])
print("  gaps of the five folds:", " ".join(f"{g:+.4f}" for g in benefit_gaps))
print(f"  mean of the five folds: {benefit_gaps.mean():+.4f}")
print(f"  sd of the five folds: {benefit_gaps.std(ddof=1):.4f}")
print(f"  fold range of the five folds: {benefit_gaps.min():+.4f} to {benefit_gaps.max():+.4f}")
r_pooled = gap_report(benefit_oof, sex)
print(f"  pooled out-of-fold: gap {r_pooled.gap:+.4f} [{r_pooled.ci_low:+.4f}, {r_pooled.ci_high:+.4f}]")
_figures(3)

# --- block 4 (explainers/cross-validation-for-fairness.md, line 204) ---
from scipy.stats import chi2

split_gaps = np.array([single_split(benefits, sex, seed).gap for seed in range(30)])
splits_sd = split_gaps.std(ddof=1)
dof = len(benefit_gaps) - 1
fold_sd = benefit_gaps.std(ddof=1)
sd_low, sd_high = fold_sd * np.sqrt(dof / chi2.ppf([0.975, 0.025], dof))
print("Benefits Denial, sex:")
print(f"  fold sd: {fold_sd:.4f}")
print(f"  95% interval for the fold standard deviation: {sd_low:.4f} to {sd_high:.4f}")
print(f"  single splits: {len(split_gaps)}")
print(f"  sd over single splits: {splits_sd:.4f}")
_figures(4)

# --- block 5 (explainers/cross-validation-for-fairness.md, line 233) ---
import matplotlib.pyplot as plt

fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.5))
jitter = np.random.default_rng(1)
columns = [("single splits\n(30 seeds)", singles), (f"folds\n({repeat_folds.size})", repeat_folds.ravel()),
           ("cross-validated\nmeans (6)", cv_means)]
for x, (label, values) in enumerate(columns):
    left.scatter(x + jitter.uniform(-0.12, 0.12, len(values)), values, alpha=0.7, color="#1f4e79", s=22)
left.axhline(gap_report(out_of_fold, age).gap, color="#e6550d", linestyle="--", linewidth=1,
             label="pooled out-of-fold gap")
left.axhline(0, color="grey", linewidth=0.8)
left.set_xticks(range(len(columns)))
left.set_xticklabels([label for label, _ in columns])
left.set_ylabel("gap in share rated bad (young minus older)")
left.set_title("German Credit Lending, age")
left.legend(frameon=False)

rows = [(f"fold {i + 1}", f) for i, f in enumerate(benefit_folds)]
rows += [("single split", r_single), ("pooled out-of-fold", r_pooled)]
for i, (label, r) in enumerate(rows):
    colour = "#e6550d" if label.startswith("pooled") else "#1f4e79"
    right.errorbar(r.gap, i, xerr=[[r.gap - r.ci_low], [r.ci_high - r.gap]], fmt="o", color=colour, capsize=3)
right.set_yticks(range(len(rows)))
right.set_yticklabels([label for label, _ in rows])
right.invert_yaxis()
right.set_xlabel("gap in share flagged (women minus men), 95% interval")
right.set_title("Benefits Denial, sex")
fig.tight_layout()
_show(plt.show())
_figures(5)
