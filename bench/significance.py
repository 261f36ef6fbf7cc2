"""How fast are faircode's tests and intervals next to the usual ways of getting them?

Prints one table: for three realistic pairs of groups of 0/1 predictions, the median
time of a naive Python shuffle loop, scipy.stats.permutation_test and
scipy.stats.bootstrap (vectorised), and faircode's exact and Monte Carlo p-values,
bootstrap intervals and whole significance report (default: Agresti-Caffo interval, exact
p, the minimum detectable gap at the pooled rate), with each one's speed-up over the naive
loop. The report's minimum detectable gap is remembered per group sizes and rate; the
"nothing remembered" row empties those caches before every call (for groups under 200
rows it then recomputes the exact test's rejection table and power). Run from the repository root:

    python bench/significance.py            # a few seconds to a minute
    python bench/significance.py --repeats 5

Resampling methods all use 2,000 resamples. A benchmark, not a test: nothing is asserted.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from scipy import stats

# Run as a script, this file's folder is first on sys.path, and bench/coverage.py would stand in
# for the coverage package that numba (faircode's exact engine) imports if it is installed (as
# bench/coverage.py itself does not let it).
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != Path(__file__).resolve().parent]

try:
    import faircode  # noqa: F401  (installed with `pip install -e .`)
except ModuleNotFoundError:  # run from a checkout without installing
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from faircode.significance import (  # noqa: E402
    bootstrap_ci,
    permutation_test,
    significance_report,
    significance_report_from_counts,
)

RESAMPLES = 2000
# (label, n_disadvantaged, n_advantaged, rate_disadvantaged, rate_advantaged): a small, a
# medium and a large pair of groups, the sizes fairness audits meet, with realistic rates.
CASES = [
    ("medium groups", 2153, 4360, 0.059, 0.109),
    ("small groups", 69, 131, 0.64, 0.73),
    ("large groups", 10661, 9238, 0.112, 0.111),
]
SLOW_REPEATS = 3  # the naive loop and scipy's resamplers take up to seconds per call


def groups(n_a: int, n_b: int, rate_a: float, rate_b: float, seed: int = 0):
    """Two shuffled 0/1 float arrays with exactly round(rate * n) ones each."""
    rng = np.random.default_rng(seed)
    def make(n, rate): return rng.permutation(np.r_[np.ones(round(rate * n)), np.zeros(n - round(rate * n))])
    return make(n_a, rate_a), make(n_b, rate_b)


def naive_shuffle_loop(a: np.ndarray, b: np.ndarray, n_permutations: int = RESAMPLES, seed: int = 42) -> float:
    """The loop an explainer would write: shuffle, split, compare, 2,000 times."""
    rng = np.random.default_rng(seed)
    pooled = np.concatenate([a, b])
    observed = abs(a.mean() - b.mean())
    hits = 0
    for _ in range(n_permutations):
        rng.shuffle(pooled)
        hits += abs(pooled[: a.size].mean() - pooled[a.size :].mean()) >= observed
    return hits / n_permutations


def absolute_gap(x, y, axis):
    return np.abs(x.mean(axis=axis) - y.mean(axis=axis))


def gap(x, y, axis):
    return x.mean(axis=axis) - y.mean(axis=axis)


def scipy_permutation(a, b):
    return stats.permutation_test(
        (a, b), absolute_gap, permutation_type="independent", alternative="greater",
        n_resamples=RESAMPLES, vectorized=True, batch=200, rng=np.random.default_rng(0),
    ).pvalue


def scipy_bootstrap(a, b):
    return stats.bootstrap(
        (a, b), gap, n_resamples=RESAMPLES, method="percentile", vectorized=True, batch=200,
        rng=np.random.default_rng(0),
    ).confidence_interval


def methods(a: np.ndarray, b: np.ndarray) -> list[tuple[str, Callable[[], object], bool]]:
    """(name, call, slow) for every method timed on one pair of groups."""
    counts = (int(a.sum()), a.size, int(b.sum()), b.size)
    return [
        ("naive shuffle loop (2,000)", lambda: naive_shuffle_loop(a, b), True),
        ("scipy permutation_test (2,000)", lambda: scipy_permutation(a, b), True),
        ("scipy bootstrap percentile (2,000)", lambda: scipy_bootstrap(a, b), True),
        ("faircode exact p", lambda: permutation_test(a, b, method="exact"), False),
        ("faircode Monte Carlo p (2,000)", lambda: permutation_test(a, b, method="monte_carlo", random_state=0), False),
        ("faircode bootstrap, binomial (2,000)", lambda: bootstrap_ci(a, b, random_state=0), False),
        ("faircode bootstrap, exact", lambda: bootstrap_ci(a, b, method="exact"), False),
        ("faircode significance_report (rows)", lambda: significance_report(a, b), False),
        ("faircode significance_report (counts)", lambda: significance_report_from_counts(*counts), False),
        ("  ... nothing remembered (cold MDG)", lambda: cold_report(counts), False),
        ("  ... percentile bootstrap interval", lambda: significance_report(a, b, ci_method="bootstrap"), False),
    ]


def cold_report(counts):
    """The report with the minimum detectable gap's caches emptied first (its exact power recomputed)."""
    from faircode import _report, power

    _report.detectable_gap.cache_clear()
    power._detectable_gap.cache_clear()
    power._rejection_region.cache_clear()
    return significance_report_from_counts(*counts)


def median_seconds(call: Callable[[], object], repeats: int) -> float:
    call()  # warm caches and imports
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> None:
    """Time every method on every case and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=25, help="repeats of the fast methods (default 25)")
    args = parser.parse_args(argv)
    print(f"median of {args.repeats} runs ({SLOW_REPEATS} for the slow ones); speed-up = naive loop / method")
    for label, n_a, n_b, rate_a, rate_b in CASES:
        a, b = groups(n_a, n_b, rate_a, rate_b)
        print(f"\n{label}: groups of {n_a} and {n_b} ({n_a + n_b:,} rows), rates {a.mean():.3f} vs {b.mean():.3f}")
        print(f"  {'method':<40}{'median':>12}{'speed-up':>12}")
        naive = None
        for name, call, slow in methods(a, b):
            seconds = median_seconds(call, SLOW_REPEATS if slow else args.repeats)
            naive = naive or seconds
            speed_up = naive / seconds
            print(f"  {name:<40}{seconds * 1e3:>9.3f} ms{speed_up:>11.{1 if speed_up < 10 else 0}f}x")


if __name__ == "__main__":
    main()
