"""How often does a "95%" interval hold the true gap? A coverage table, method by cell.

Each cell is a pair of group sizes and a pair of true rates. 2,000 audits are simulated
per cell, all at once: each audit's counts of ones are binomial draws, and every interval
is computed from those counts, vectorised over the audits. An interval covers when it
holds the true value (low <= truth <= high). Run from the repository root:

    python bench/coverage.py               # about a minute
    python bench/coverage.py --audits 500  # a quick look

The cells:

* group sizes (n, n) and (n, 10 n) for n in 10, 30, 100, 200, 1000, 5000: the first group
  is the small one, as the disadvantaged group of an audit usually is;
* true rates: for r in 0.02, 0.05, 0.1, 0.3, 0.5, no gap (r, r) and a doubled rate
  (r, min(2 r, (1 + r) / 2)): 0.02 vs 0.04 up to 0.3 vs 0.6, and 0.5 vs 0.75 where doubling
  would reach 1. The true gap is r_a - r_b and the true ratio r_a / r_b.

The methods: faircode's default interval of a gap (Newcombe's hybrid score interval), the
two alternatives it was chosen over (Miettinen-Nurminen, Agresti-Caffo), the percentile
bootstrap of the gap (binomial resamples, as faircode.bootstrap_ci), the ratio's default
score interval (Miettinen-Nurminen), Koopman's and the percentile bootstrap of the ratio.
A benchmark, not a test: nothing is asserted (tests/faircode/test_coverage.py asserts the
minimum on a cheaper grid).
"""

from __future__ import annotations

import argparse
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

try:
    import faircode  # noqa: F401  (installed with `pip install -e .`)
except ModuleNotFoundError:  # run from a checkout without installing
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from faircode import _intervals  # noqa: E402

SIZES = (10, 30, 100, 200, 1000, 5000)
RATES = (0.02, 0.05, 0.1, 0.3, 0.5)
CONFIDENCE = 0.95
GAP_METHODS = ("newcombe", "miettinen_nurminen", "agresti_caffo", "bootstrap")
RATIO_METHODS = ("ratio_mn", "ratio_koopman", "ratio_bootstrap")


@dataclass(frozen=True)
class Cell:
    """Two group sizes and their true rates."""

    n_a: int
    n_b: int
    rate_a: float
    rate_b: float

    @property
    def label(self) -> str:
        return f"{self.n_a:>5} vs {self.n_b:<6} {self.rate_a:.2f} vs {self.rate_b:.2f}"


def cells(sizes=SIZES, rates=RATES) -> list[Cell]:
    """Every cell of the table: sizes balanced and ten-to-one, rates equal and doubled."""
    out = []
    for n in sizes:
        for n_b in (n, 10 * n):
            for r in rates:
                for r_b in (r, min(2 * r, (1 + r) / 2)):
                    out.append(Cell(n, n_b, r, r_b))
    return out


def simulate_counts(cell: Cell, audits: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Counts of ones of ``audits`` simulated audits of one cell."""
    return rng.binomial(cell.n_a, cell.rate_a, size=audits), rng.binomial(cell.n_b, cell.rate_b, size=audits)


def intervals(method: str, ones_a, n_a, ones_b, n_b, rng, resamples: int):
    """(low, high) arrays of one method over all simulated audits."""
    if method == "newcombe":
        return _intervals.newcombe(ones_a, n_a, ones_b, n_b, CONFIDENCE)
    if method == "miettinen_nurminen":
        return _intervals.miettinen_nurminen(ones_a, n_a, ones_b, n_b, CONFIDENCE)
    if method == "agresti_caffo":
        return _intervals.agresti_caffo(ones_a, n_a, ones_b, n_b, CONFIDENCE)
    if method == "ratio_mn":
        return _intervals.ratio_score(ones_a, n_a, ones_b, n_b, CONFIDENCE, correction=True)
    if method == "ratio_koopman":
        return _intervals.ratio_score(ones_a, n_a, ones_b, n_b, CONFIDENCE, correction=False)
    resampled_a = rng.binomial(n_a, (ones_a / n_a)[:, None], size=(ones_a.size, resamples)) / n_a
    resampled_b = rng.binomial(n_b, (ones_b / n_b)[:, None], size=(ones_b.size, resamples)) / n_b
    levels = ((1 - CONFIDENCE) / 2, (1 + CONFIDENCE) / 2)
    if method == "bootstrap":
        low, high = np.quantile(resampled_a - resampled_b, levels, axis=1)
        return low, high
    with np.errstate(divide="ignore", invalid="ignore"):
        ratios = np.where(resampled_b > 0, resampled_a / resampled_b, np.where(resampled_a > 0, np.inf, 1.0))
    low, high = np.quantile(ratios, levels, axis=1)
    return np.nan_to_num(low, nan=np.inf), np.nan_to_num(high, nan=np.inf)


def coverage(cell: Cell, methods, audits: int, seed: int, resamples: int = 2000) -> dict[str, float]:
    """Share of a cell's simulated audits whose interval holds the truth, per method.

    Ratio methods are scored on the audits whose second group has a one (else the ratio
    is undefined and faircode reports none); the truth of a ratio is rate_a / rate_b.
    """
    rng = np.random.default_rng(seed)
    ones_a, ones_b = simulate_counts(cell, audits, rng)
    out = {}
    for method in methods:
        if method.startswith("ratio"):
            defined = ones_b > 0
            low, high = intervals(method, ones_a[defined], cell.n_a, ones_b[defined], cell.n_b, rng, resamples)
            truth = cell.rate_a / cell.rate_b
        else:
            low, high = intervals(method, ones_a, cell.n_a, ones_b, cell.n_b, rng, resamples)
            truth = cell.rate_a - cell.rate_b
        slack = 1e-12 * max(1.0, abs(truth))  # a bound equal to the truth up to rounding covers it
        out[method] = float(np.mean((low <= truth + slack) & (truth - slack <= high)))
    return out


def table(methods, audits: int, seed: int, resamples: int, sizes=SIZES, rates=RATES) -> list[tuple[Cell, dict]]:
    """Coverage of every method in every cell; cell i is simulated from seed + i."""
    return [(cell, coverage(cell, methods, audits, seed + i, resamples)) for i, cell in enumerate(cells(sizes, rates))]


def main(argv: list[str] | None = None) -> None:
    """Print the coverage table and each method's minimum and median over the cells."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--audits", type=int, default=2000, help="simulated audits per cell (default 2000)")
    parser.add_argument("--resamples", type=int, default=2000, help="bootstrap resamples (default 2000)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    methods = GAP_METHODS + RATIO_METHODS
    rows = table(methods, args.audits, args.seed, args.resamples)
    names = {"newcombe": "Newcombe*", "miettinen_nurminen": "MN", "agresti_caffo": "AC", "bootstrap": "boot",
             "ratio_mn": "ratio MN*", "ratio_koopman": "Koopman", "ratio_bootstrap": "ratio boot"}
    print(f"coverage of 95% intervals, {args.audits} simulated audits a cell (* = faircode's default)")
    print(f"{'n_a vs n_b    rate_a vs rate_b':<32}" + "".join(f"{names[m]:>11}" for m in methods))
    for cell, result in rows:
        print(f"{cell.label:<32}" + "".join(f"{100 * result[m]:>10.1f}%" for m in methods))
    print(f"\n{'method':<14}{'min':>8}{'median':>9}{'cells < 94%':>13}   worst cell")
    for m in methods:
        values = [result[m] for _, result in rows]
        worst = min(range(len(rows)), key=lambda i: values[i])
        below = sum(v < 0.94 for v in values)
        print(f"{names[m]:<14}{100 * min(values):>7.1f}%{100 * statistics.median(values):>8.1f}%{below:>13}   "
              f"{rows[worst][0].label}")


if __name__ == "__main__":
    main()
