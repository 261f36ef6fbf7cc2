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

Two more tables follow. Boschloo's exact unconditional test against the conditional
(permutation) test: for pairs of small groups at a planned rate, each test's largest size
at the null (over a grid of common rates), its power at the conditional test's minimum
detectable gap, and the MDG under each (80% power, alpha 5%). Then the exact unconditional
intervals: the time of the first interval of a pair of group sizes (every table of the
pair computed at once), of a later one (remembered), and of significance_report_from_counts
once the sizes are remembered. ``--quick`` skips the 100 vs 100 pair.
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
from scipy.stats import binom

try:
    import faircode  # noqa: F401  (installed with `pip install -e .`)
except ModuleNotFoundError:  # run from a checkout without installing
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from faircode import _unconditional  # noqa: E402
from faircode.power import _rejection_region, minimum_detectable_gap  # noqa: E402
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


POWER_CASES = ((10, 10, 0.3), (20, 20, 0.3), (30, 30, 0.25), (15, 45, 0.2), (50, 50, 0.5), (80, 40, 0.1))
INTERVAL_CASES = ((10, 10), (30, 30), (25, 75), (50, 50), (100, 100))


def _power(region: np.ndarray, n_a: int, n_b: int, rate: float, gap: float) -> float:
    """P(reject) when the rates are rate + gap / 2 and rate - gap / 2."""
    mass_a = binom.pmf(np.arange(n_a + 1), n_a, min(max(rate + gap / 2, 0.0), 1.0))
    mass_b = binom.pmf(np.arange(n_b + 1), n_b, min(max(rate - gap / 2, 0.0), 1.0))
    return float(mass_a @ region @ mass_b)


def _detectable(region: np.ndarray, n_a: int, n_b: int, rate: float, power: float = 0.8) -> float:
    """Smallest gap centred on rate detected with ``power`` both ways (bisection; NaN if none)."""
    def reached(gap):
        return min(_power(region, n_a, n_b, rate, gap), _power(region, n_a, n_b, rate, -gap)) >= power
    high = 2 * min(rate, 1 - rate)
    if not reached(high):
        return float("nan")
    low = 0.0
    for _ in range(30):
        middle = (low + high) / 2
        low, high = (low, middle) if reached(middle) else (middle, high)
    return high


def power_table() -> None:
    """Boschloo against the conditional test: size at the null, power at the conditional MDG, MDG of each."""
    print("\nBoschloo's exact unconditional test against the conditional (permutation) test, alpha 5%")
    print(f"  {'groups':<12}{'rate':>6}{'size cond':>11}{'size Bosch':>12}{'MDG cond':>10}"
          f"{'power cond':>12}{'power Bosch':>13}{'MDG Bosch':>11}")
    for n_a, n_b, rate in POWER_CASES:
        conditional = _rejection_region(n_a, n_b, 0.05)
        boschloo = (_unconditional.boschloo_p_values(n_a, n_b) < 0.05).astype(float)
        nulls = np.linspace(0.01, 0.99, 99)
        size_c = max(_power(conditional, n_a, n_b, r, 0.0) for r in nulls)
        size_b = max(_power(boschloo, n_a, n_b, r, 0.0) for r in nulls)
        mdg = minimum_detectable_gap(n_a, n_b, rate=rate, method="exact")
        power_c = min(_power(conditional, n_a, n_b, rate, mdg), _power(conditional, n_a, n_b, rate, -mdg))
        power_b = min(_power(boschloo, n_a, n_b, rate, mdg), _power(boschloo, n_a, n_b, rate, -mdg))
        print(f"  {f'{n_a} vs {n_b}':<12}{rate:>6.2f}{100 * size_c:>10.2f}%{100 * size_b:>11.2f}%{mdg:>10.3f}"
              f"{100 * power_c:>11.1f}%{100 * power_b:>12.1f}%{_detectable(boschloo, n_a, n_b, rate):>11.3f}")


def interval_table(quick: bool) -> None:
    """The time of the exact unconditional intervals: first of a pair of sizes, later ones, a whole report."""
    print("\nexact unconditional intervals (every table of a pair of sizes at once, then remembered)")
    print(f"  {'groups':<12}{'tables':>8}{'first (gap)':>13}{'first (ratio)':>15}{'later':>10}{'report':>10}")
    for n_a, n_b in INTERVAL_CASES:
        if quick and n_a * n_b > 5000:
            continue
        start = time.perf_counter()
        _unconditional.difference_intervals(n_a, n_b, 0.95)
        first = time.perf_counter() - start
        start = time.perf_counter()
        _unconditional.ratio_intervals(n_a, n_b, 0.95)
        ratio = time.perf_counter() - start
        significance_report_from_counts(n_a // 3, n_a, n_b // 4, n_b)
        later = median_seconds(lambda: _unconditional.difference_intervals(n_a, n_b, 0.95), 50)
        report = median_seconds(lambda: significance_report_from_counts(n_a // 3, n_a, n_b // 4, n_b), 20)
        print(f"  {f'{n_a} vs {n_b}':<12}{(n_a + 1) * (n_b + 1):>8}{first:>11.2f} s{ratio:>13.2f} s"
              f"{later * 1e6:>7.1f} us{report * 1e3:>7.2f} ms")


def main(argv: list[str] | None = None) -> None:
    """Time every method on every case and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=25, help="repeats of the fast methods (default 25)")
    parser.add_argument("--quick", action="store_true", help="skip the largest pair of the interval table")
    parser.add_argument("--only", choices=("speed", "power", "intervals"), help="print one table only")
    args = parser.parse_args(argv)
    if args.only in (None, "power"):
        power_table()
    if args.only in (None, "intervals"):
        interval_table(args.quick)
    if args.only is not None:
        return
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
