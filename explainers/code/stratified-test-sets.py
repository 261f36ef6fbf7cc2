# Generated from explainers/stratified-test-sets.md by `python build.py`: edit the Markdown, not this file.
# Run from the repository root: PYTHONPATH=. python explainers/code/stratified-test-sets.py

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

# --- block 1 (explainers/stratified-test-sets.md, line 63) ---
import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split
from faircode.benchmark import load_audit
from faircode.models import build_model
from faircode.power import minimum_detectable_gap
from faircode.significance import significance_report

audit = load_audit("german_credit_lending")
young = audit.masks["age"].to_numpy()       # 1 = the young group, 0 = older
y = audit.y.to_numpy()                      # 1 = rated a bad credit risk
rows = np.arange(len(y))
print(f"applicants: {len(y)}")
print(f"of them young: {int(young.sum())} ({young.mean():.1%}), aged {audit.df.age[young == 1].max()} or under")
print(f"of them older: {int((young == 0).sum())}")
print(f"rated bad: {y[young == 1].mean():.3f} of the young, {y[young == 0].mean():.3f} of the older")
_figures(1)

# --- block 2 (explainers/stratified-test-sets.md, line 87) ---
TEST_ROWS = 200
print(f"rows in each test set: {TEST_ROWS}")
young_in_random_test = np.array([
    int(young[train_test_split(rows, test_size=TEST_ROWS, random_state=seed)[1]].sum())
    for seed in range(200)
])
print("random split over 200 seeds, young applicants in the test set:")
print(f"  median: {np.median(young_in_random_test):.0f}")
print(f"  range: {young_in_random_test.min()} to {young_in_random_test.max()}")
young_in_label_test = np.array([
    int(young[train_test_split(rows, test_size=TEST_ROWS, random_state=seed, stratify=y)[1]].sum())
    for seed in range(200)
])
print("split stratified on the label only (the benchmark's) over 200 seeds, young applicants in the test set:")
print(f"  range: {young_in_label_test.min()} to {young_in_label_test.max()}")

cell = 2 * young + y                        # four strata: age group x label
_, test = train_test_split(rows, test_size=TEST_ROWS, random_state=0, stratify=cell)
print("split stratified by age group x label:")
print(f"  young applicants in each split: {int(young[test].sum())}")
print(f"  of them rated bad: {int(y[test][young[test] == 1].sum())}")
_figures(2)

# --- block 3 (explainers/stratified-test-sets.md, line 124) ---
def balanced_split(per_group, seed):
    """A test set with per_group rows from each age group, stratified on the label within it."""
    test = []
    for group in (0, 1):
        members = rows[young == group]
        _, picked = train_test_split(members, test_size=per_group, random_state=seed, stratify=y[members])
        test.append(picked)
    test = np.concatenate(test)
    return np.setdiff1d(rows, test), test


def split(design, seed):
    if design == "unstratified":
        return train_test_split(rows, test_size=TEST_ROWS, random_state=seed)
    if design == "by label":
        return train_test_split(rows, test_size=TEST_ROWS, random_state=seed, stratify=y)
    if design == "by group x label":
        return train_test_split(rows, test_size=TEST_ROWS, random_state=seed, stratify=cell)
    return balanced_split(TEST_ROWS // 2, seed)


def audit_once(design, seed):
    train, test = split(design, seed)
    model = build_model("logistic_regression", seed).fit(audit.X_core.iloc[train], y[train])
    rated_bad = model.predict(audit.X_core.iloc[test]).astype(float)
    group = young[test]
    r = significance_report(rated_bad[group == 1], rated_bad[group == 0], random_state=seed)
    return r.n_a, r.gap, r.ci_high - r.ci_low, r.minimum_detectable_gap, r.p_value


designs, table = {}, {}
for design in ("unstratified", "by label", "by group x label", "balanced"):
    designs[design] = np.array([audit_once(design, seed) for seed in range(30)])
    n, gap, width, detectable, p = designs[design].T
    table[design] = {"young test rows (median)": f"{np.median(n):.0f}",
                     "young test rows (range)": f"{n.min():.0f} to {n.max():.0f}",
                     "gap mean": f"{gap.mean():+.3f}", "gap sd": f"{gap.std(ddof=1):.3f}",
                     "median interval width": f"{np.median(width):.3f}",
                     "median detectable gap": f"{np.median(detectable):.3f}",
                     "share of splits with p < 0.05": f"{np.mean(p < 0.05):.0%}"}
_show(pd.DataFrame(table).T.rename_axis("design"))
_figures(3)

# --- block 4 (explainers/stratified-test-sets.md, line 192) ---
share = young.mean()


def smallest(enough, low, high):
    """An n in [low, high] with enough(n), by bisection. The exact test's power rises with n
    in a sawtooth, not smoothly, so this is an n that suffices, near the smallest."""
    while low < high:
        middle = (low + high) // 2
        low, high = (low, middle) if enough(middle) else (middle + 1, high)
    return low


def rows_per_group(target):
    """Smallest n with a minimum detectable gap of at most target for two groups of n."""
    # NaN (no gap detectable at all, on tiny groups) fails the comparison, as it should
    return smallest(lambda n: minimum_detectable_gap(n, n) <= target, 2, 100_000)


def rows_drawn_at_random(target, share):
    """Smallest total when the small group is only its population share of the rows."""
    def enough(total):
        young_rows = round(total * share)
        return minimum_detectable_gap(young_rows, total - young_rows) <= target
    return smallest(enough, 10, 1_000_000)


print("test rows needed for 80% power at alpha 0.05 (rate 0.5, the worst case)")
POINTS = {0.20: "twenty", 0.15: "fifteen", 0.10: "ten", 0.05: "five"}
plan = {}
for target in (0.20, 0.15, 0.10, 0.05):
    n = rows_per_group(target)
    total = rows_drawn_at_random(target, share)
    plan[target] = n
    print(f"for a gap of {POINTS[target]} points ({target:.2f}):")
    print(f"  balanced per group: {n}")
    print(f"  balanced rows to label: {2 * n}")
    print(f"  random rows to label: {total}")
    print(f"  random rows, young applicants among them: {round(total * share)}")

# the whole data set as a test set, at the worst case and at the rate the model really rates bad
n_young, n_older = int(young.sum()), int((young == 0).sum())
benchmark_model = build_model("logistic_regression", 42).fit(audit.X_core.iloc[audit.idx_train], y[audit.idx_train])
model_rate = benchmark_model.predict(audit.X_core.iloc[audit.idx_test]).mean()
everyone = {0.5: minimum_detectable_gap(n_young, n_older), model_rate: minimum_detectable_gap(n_young, n_older, rate=model_rate)}
print(f"every applicant tested ({n_young} young, {n_older} older): detectable gap {everyone[0.5]:.3f} at rate 0.5, "
      f"{everyone[model_rate]:.3f} at the benchmark model's rate of rating bad ({model_rate:.3f})")
_figures(4)

# --- block 5 (explainers/stratified-test-sets.md, line 252) ---
import matplotlib.pyplot as plt

fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
left.hist(young_in_random_test, bins=range(young_in_random_test.min(), young_in_random_test.max() + 2),
          color="#9ecae1", edgecolor="white")
left.axvline(int(young[test].sum()), color="#1f4e79", linewidth=2, label="stratified split")
left.set_xlabel("young applicants in a 200-row test set")
left.set_ylabel("random splits (of 200)")
left.set_title("A random split decides the small group's size")
left.legend(frameon=False)

totals = np.arange(40, 4001, 20)
right.plot(totals, [minimum_detectable_gap(t // 2, t - t // 2) for t in totals],
           color="#1f4e79", label="balanced: half the rows from each group")
right.plot(totals, [minimum_detectable_gap(round(t * share), t - round(t * share)) for t in totals],
           color="#e6550d", label=f"at random: the young are {share:.0%} of rows")
for target in (0.20, 0.10, 0.05):
    right.axhline(target, color="grey", linestyle=":", linewidth=1)
right.set_xscale("log")
right.set_xlabel("rows labelled (log scale)")
right.set_ylabel("minimum detectable gap (80% power)")
right.set_title("What a test set of each size can detect")
right.legend(frameon=False)
fig.tight_layout()
_show(plt.show())
_figures(5)
