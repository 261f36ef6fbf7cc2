"""How often does a "95%" interval hold the true gap? A coverage table, method by cell.

By default (``python bench/coverage.py``) every number is computed by exact enumeration:
for each pair of group sizes every table of counts is weighted by its binomial probability
at each pair of true rates, so there is no simulation error. The grid is set with
``--sizes`` (default 5 8 15 25 50 100 200 500, every ordered pair: balanced and unbalanced
both ways) and ``--rates`` (default 0.01 0.03 0.1 0.25 0.5 0.75 0.9 0.97 0.99, every pair).
It prints, per interval method, the minimum and median coverage and the cells below the
nominal 95%; per test, its largest size at the null (equal rates) and TOST's largest size
at the margin (true gap = +-margin, margins ``--margins``, default 0.1 and 0.2). "auto" is
faircode's default (exact unconditional for two groups of at most
``faircode._unconditional.EXACT_TABLES`` = 10,201 tables, i.e. 100 rows each, Agresti-Caffo
or the score tests beyond). Then the power of Boschloo's test against the conditional exact
test at the minimum detectable gap, and the gap each detects with 80% power, by exact
enumeration too. ``--speed`` times the exact intervals instead (``--against COMMIT``: that
commit's engine too, in the same rounds; ``--grid results/results_fairness.csv``: the exact
intervals that file's rows carry); ``--simulate`` prints the
older simulated tables described next.

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

The methods: faircode's default interval of a gap (Agresti-Caffo), the two alternatives
it was chosen over (Newcombe's hybrid score interval, Miettinen-Nurminen), the percentile
bootstrap of the gap (binomial resamples, as faircode.bootstrap_ci), the ratio's default
score interval (Miettinen-Nurminen), Koopman's and the percentile bootstrap of the ratio.
Beside the simulated coverage, the exact coverage of the defaults (every pair of counts
weighted by its binomial probability): with 2,000 audits a cell, simulation alone puts a
method of exactly 95% coverage below 94% in about 2% of cells. A second table covers
equalized odds: the Sidak-combined interval against the percentile bootstrap of the signed
maximum. A benchmark, not a test: nothing is asserted (tests/faircode/test_coverage.py
asserts the minimum on a cheaper grid).
"""

from __future__ import annotations

import argparse
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

# Run as a script, this file's folder is first on sys.path, and this file would stand in for the
# coverage package that numba (faircode's exact engine) imports if it is installed.
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != Path(__file__).resolve().parent]

try:
    import faircode  # noqa: F401  (installed with `pip install -e .`)
except ModuleNotFoundError:  # run from a checkout without installing
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from faircode import _exact, _intervals, _unconditional  # noqa: E402

exact_sized = _unconditional.exact_sized  # where faircode's "auto" takes the exact unconditional methods

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


def exact_coverage(method: str, cell: Cell, tail: float = 1e-12) -> float:
    """The coverage itself, without simulation: every pair of counts weighted by its probability.

    Counts whose binomial probability lies in a tail below ``tail`` are left out (their
    total mass is under 4e-12). Ratio methods are weighted over the audits whose second
    group has a one, as :func:`coverage` scores them. Only closed-form and vectorised
    methods: not the bootstrap.
    """
    from scipy.stats import binom

    def support(n: int, rate: float):
        low = max(0, int(binom.ppf(tail, n, rate)) - 1)
        high = min(n, int(binom.isf(tail, n, rate)) + 1)
        counts = np.arange(low, high + 1)
        return counts, binom.pmf(counts, n, rate)

    ones_a, mass_a = support(cell.n_a, cell.rate_a)
    ones_b, mass_b = support(cell.n_b, cell.rate_b)
    grid_a, grid_b = (g.ravel() for g in np.meshgrid(ones_a, ones_b, indexing="ij"))
    weight = np.outer(mass_a, mass_b).ravel()
    ratio = method.startswith("ratio")
    if ratio:
        keep = grid_b > 0
        grid_a, grid_b, weight = grid_a[keep], grid_b[keep], weight[keep]
    low, high = intervals(method, grid_a, cell.n_a, grid_b, cell.n_b, None, 0)
    truth = cell.rate_a / cell.rate_b if ratio else cell.rate_a - cell.rate_b
    slack = 1e-12 * max(1.0, abs(truth))
    covered = (low <= truth + slack) & (truth - slack <= high)
    return float(weight[covered].sum() / weight.sum())


def table(methods, audits: int, seed: int, resamples: int, sizes=SIZES, rates=RATES) -> list[tuple[Cell, dict]]:
    """Coverage of every method in every cell; cell i is simulated from seed + i."""
    return [(cell, coverage(cell, methods, audits, seed + i, resamples)) for i, cell in enumerate(cells(sizes, rates))]


@dataclass(frozen=True)
class OddsCell:
    """Equalized odds: each group has ``n`` positives and ``n`` negatives (group b ``ratio`` times as many)."""

    n: int
    ratio: int
    tpr: tuple[float, float]
    fpr: tuple[float, float]

    @property
    def truth(self) -> float:
        """The signed larger gap (the true positive rate's on a tie), as faircode defines the metric."""
        tpr_gap, fpr_gap = self.tpr[0] - self.tpr[1], self.fpr[0] - self.fpr[1]
        return tpr_gap if abs(tpr_gap) >= abs(fpr_gap) else fpr_gap

    @property
    def label(self) -> str:
        return (f"{self.n:>5} vs {self.n * self.ratio:<6} TPR {self.tpr[0]:.2f}/{self.tpr[1]:.2f} "
                f"FPR {self.fpr[0]:.2f}/{self.fpr[1]:.2f}")


def odds_cells(sizes=(10, 30, 100, 1000)) -> list[OddsCell]:
    """No gap in either rate; a gap in the false positive rate only; gaps in both."""
    settings = [((0.6, 0.6), (0.1, 0.1)), ((0.6, 0.6), (0.1, 0.2)), ((0.5, 0.7), (0.1, 0.2))]
    return [OddsCell(n, ratio, tpr, fpr) for n in sizes for ratio in (1, 10) for tpr, fpr in settings]


def odds_coverage(cell: OddsCell, audits: int, seed: int, resamples: int) -> dict[str, float]:
    """Coverage of the signed larger gap: faircode's Sidak-combined interval and the percentile bootstrap."""
    rng = np.random.default_rng(seed)
    n_a, n_b = cell.n, cell.n * cell.ratio
    strata = [(rng.binomial(n_a, rates[0], audits),
               rng.binomial(n_b, rates[1], audits)) for rates in (cell.tpr, cell.fpr)]
    level = _intervals.sidak_confidence(CONFIDENCE, 2)
    parts = [_intervals.agresti_caffo(ones_a, n_a, ones_b, n_b, level) for ones_a, ones_b in strata]
    low, high = _intervals.larger_gap_interval(*parts[0], *parts[1])
    resampled = np.stack([rng.binomial(n_a, (ones_a / n_a)[:, None], (audits, resamples)) / n_a
                          - rng.binomial(n_b, (ones_b / n_b)[:, None], (audits, resamples)) / n_b
                          for ones_a, ones_b in strata])
    signed = np.where(np.abs(resampled[0]) >= np.abs(resampled[1]), resampled[0], resampled[1])
    boot_low, boot_high = np.quantile(signed, ((1 - CONFIDENCE) / 2, (1 + CONFIDENCE) / 2), axis=1)
    truth, slack = cell.truth, 1e-12
    return {"sidak_agresti_caffo": float(np.mean((low <= truth + slack) & (truth - slack <= high))),
            "bootstrap": float(np.mean((boot_low <= truth + slack) & (truth - slack <= boot_high)))}


def _summary(names: dict, rows, methods) -> None:
    print(f"\n{'method':<16}{'min':>8}{'median':>9}{'cells < 94%':>13}   worst cell")
    for m in methods:
        values = [result[m] for _, result in rows if m in result]
        worst = min((i for i, (_, r) in enumerate(rows) if m in r), key=lambda i: rows[i][1][m])
        below = sum(v < 0.94 for v in values)
        print(f"{names[m]:<16}{100 * min(values):>7.1f}%{100 * statistics.median(values):>8.1f}%{below:>13}   "
              f"{rows[worst][0].label}")


EXACT_SIZES = (5, 8, 15, 25, 50, 100, 200, 500)
EXACT_RATES = (0.01, 0.03, 0.1, 0.25, 0.5, 0.75, 0.9, 0.97, 0.99)
MARGINS = (0.1, 0.2)
INTERVALS = ("auto", "exact_unconditional", "agresti_caffo", "newcombe", "miettinen_nurminen",
             "ratio_auto", "ratio_mn", "sidak_auto", "sidak_agresti_caffo")
TESTS = ("conditional", "boschloo")
TOSTS = ("tost_auto", "tost_exact", "tost_score")


def _masses(n: int, rates) -> np.ndarray:
    from scipy.stats import binom
    return binom.pmf(np.arange(n + 1)[None, :], n, np.asarray(rates, dtype=float)[:, None])


def gap_intervals(method: str, n_a: int, n_b: int, confidence: float = CONFIDENCE):
    """(low, high) of every table of the sizes, shape (n_a + 1, n_b + 1), for a gap method."""
    if method == "auto":
        method = "exact_unconditional" if exact_sized(n_a, n_b) else "agresti_caffo"
    if method == "exact_unconditional":
        return _unconditional.difference_intervals(n_a, n_b, confidence)
    x, y = np.meshgrid(np.arange(n_a + 1), np.arange(n_b + 1), indexing="ij")
    return getattr(_intervals, method)(x, n_a, y, n_b, confidence)


def ratio_intervals(method: str, n_a: int, n_b: int):
    if method == "ratio_auto" and exact_sized(n_a, n_b):
        return _unconditional.ratio_intervals(n_a, n_b, CONFIDENCE)
    x, y = np.meshgrid(np.arange(n_a + 1), np.arange(n_b + 1), indexing="ij")
    return _intervals.ratio_score(x, n_a, y, n_b, CONFIDENCE)


def covered_mass(low, high, truth, mass_a, mass_b) -> float:
    """P(low <= truth <= high) when the tables have probability mass_a[x] * mass_b[y]."""
    return float(mass_a @ ((low <= truth + 1e-12) & (high >= truth - 1e-12)) @ mass_b)


def exact_sizes_study(sizes, rates) -> dict[str, list[float]]:
    """Exact coverage of every interval method at every cell of the grid."""
    result: dict[str, list[float]] = {m: [] for m in INTERVALS}
    for n_a in sizes:
        for n_b in sizes:
            mass_a, mass_b = _masses(n_a, rates), _masses(n_b, rates)
            gap = {m: gap_intervals(m, n_a, n_b) for m in INTERVALS[:5]}
            ratio = {m: ratio_intervals(m, n_a, n_b) for m in ("ratio_auto", "ratio_mn")}
            for i, r_a in enumerate(rates):
                for j, r_b in enumerate(rates):
                    for m, (low, high) in gap.items():
                        result[m].append(covered_mass(low, high, r_a - r_b, mass_a[i], mass_b[j]))
                    for m, (low, high) in ratio.items():
                        result[m].append(covered_mass(low, high, r_a / r_b, mass_a[i], mass_b[j]))
    return result


def beyond_bound_study(sizes, rates) -> dict[str, list[float]]:
    """Exact coverage of the intervals "auto" takes past the exact bound, on those cells only."""
    result: dict[str, list[float]] = {"agresti_caffo past the bound": [], "ratio_mn past the bound": []}
    for n_a in sizes:
        for n_b in sizes:
            if exact_sized(n_a, n_b):
                continue
            mass_a, mass_b = _masses(n_a, rates), _masses(n_b, rates)
            gap, ratio = gap_intervals("agresti_caffo", n_a, n_b), ratio_intervals("ratio_mn", n_a, n_b)
            for i, r_a in enumerate(rates):
                for j, r_b in enumerate(rates):
                    result["agresti_caffo past the bound"].append(covered_mass(*gap, r_a - r_b, mass_a[i], mass_b[j]))
                    result["ratio_mn past the bound"].append(covered_mass(*ratio, r_a / r_b, mass_a[i], mass_b[j]))
    return result


def odds_study(sizes, rates) -> dict[str, list[float]]:
    """Exact lower bounds on the Sidak interval's coverage of the signed larger gap, two strata.

    Each stratum's interval is at the Sidak level; both hold with the product of their
    coverages, and then the combined interval holds the larger gap. Strata of sizes
    (n_a, n_b) each, at every pair of the grid's cells.
    """
    result: dict[str, list[float]] = {"sidak_auto": [], "sidak_agresti_caffo": []}
    level = _intervals.sidak_confidence(CONFIDENCE, 2)
    for n_a in sizes:
        for n_b in sizes:
            mass_a, mass_b = _masses(n_a, rates), _masses(n_b, rates)
            for name, method in (("sidak_auto", "auto"), ("sidak_agresti_caffo", "agresti_caffo")):
                low, high = gap_intervals(method, n_a, n_b, level)
                each = np.array([covered_mass(low, high, r_a - r_b, mass_a[i], mass_b[j])
                                 for i, r_a in enumerate(rates) for j, r_b in enumerate(rates)])
                result[name].extend(np.outer(each, each)[np.triu_indices(each.size)].tolist())
    return result


def test_sizes(sizes, rates, alpha: float = 0.05) -> dict[str, list[float]]:
    """Size at the null (both rates equal) of the conditional and Boschloo tests, every cell."""
    result: dict[str, list[float]] = {m: [] for m in TESTS}
    for n_a in sizes:
        for n_b in sizes:
            mass_a, mass_b = _masses(n_a, rates), _masses(n_b, rates)
            x, y = np.meshgrid(np.arange(n_a + 1), np.arange(n_b + 1), indexing="ij")
            rejects = {"conditional": _exact.permutation_p(x, n_a, y, n_b) < alpha}
            if (n_a + 1) * (n_b + 1) <= 20_000:
                rejects["boschloo"] = _unconditional.boschloo_p_values(n_a, n_b) < alpha
            for i in range(len(rates)):
                for m, reject in rejects.items():
                    result[m].append(float(mass_a[i] @ reject @ mass_b[i]))
    return result


def tost_sizes(sizes, rates, margins=MARGINS, alpha: float = 0.05) -> dict[str, list[float]]:
    """TOST's chance of declaring equivalence when the true gap is exactly +-margin, every cell."""
    result: dict[str, list[float]] = {m: [] for m in TOSTS}
    for n_a in sizes:
        for n_b in sizes:
            x, y = np.meshgrid(np.arange(n_a + 1), np.arange(n_b + 1), indexing="ij")
            for margin in margins:
                score = np.maximum(_normal_p(-_intervals.difference_score(x, n_a, y, n_b, -margin)),
                                   _normal_p(_intervals.difference_score(x, n_a, y, n_b, margin))) < alpha
                declared = {"tost_score": score}
                if exact_sized(n_a, n_b):
                    p = np.maximum(_unconditional.difference_tails(n_a, n_b, -margin)[0],
                                   _unconditional.difference_tails(n_a, n_b, margin)[1])
                    declared["tost_exact"] = p < alpha
                declared["tost_auto"] = declared.get("tost_exact", score)
                for r_b in rates:
                    for r_a in (r_b + margin, r_b - margin):
                        if not 0 < r_a < 1:
                            continue
                        mass_a, mass_b = _masses(n_a, [r_a])[0], _masses(n_b, [r_b])[0]
                        for m, d in declared.items():
                            result[m].append(float(mass_a @ d @ mass_b))
    return result


def _normal_p(z):
    from scipy.special import ndtr
    return ndtr(z)


def _exact_summary(title: str, values: dict[str, list[float]], nominal: float, below: bool) -> None:
    print(f"\n{title}")
    outside = "cells " + ("< " if below else "> ") + f"{nominal:.0%}"
    print(f"{'method':<22}{'cells':>7}{'min':>9}{'median':>9}{'max':>9}{outside:>12}")
    for method, numbers in values.items():
        if not numbers:
            continue
        bad = sum(v < nominal - 1e-9 for v in numbers) if below else sum(v > nominal + 1e-9 for v in numbers)
        print(f"{method:<22}{len(numbers):>7}{100 * min(numbers):>8.2f}%{100 * statistics.median(numbers):>8.2f}%"
              f"{100 * max(numbers):>8.2f}%{bad:>12}")


POWER_SIZES = ((10, 10), (20, 20), (30, 30), (50, 50), (100, 100), (15, 60), (30, 120), (25, 200))
POWER_RATE, POWER_TARGET, ALPHA = 0.5, 0.80, 0.05


def rejections(n_a: int, n_b: int, alpha: float = ALPHA) -> dict[str, np.ndarray]:
    """Where each two-sided test rejects, for every table of the sizes."""
    x, y = np.meshgrid(np.arange(n_a + 1), np.arange(n_b + 1), indexing="ij")
    return {"conditional": _exact.permutation_p(x, n_a, y, n_b) < alpha,
            "boschloo": _unconditional.boschloo_p_values(n_a, n_b) < alpha}


def exact_power(reject: np.ndarray, n_a: int, n_b: int, gap: float, rate: float = POWER_RATE) -> float:
    """The smaller of the powers at +gap and -gap, centred on ``rate`` (faircode.power's convention)."""
    powers = []
    for sign in (1, -1):
        mass_a = _masses(n_a, [min(max(rate + sign * gap / 2, 0.0), 1.0)])[0]
        mass_b = _masses(n_b, [min(max(rate - sign * gap / 2, 0.0), 1.0)])[0]
        powers.append(float(mass_a @ reject @ mass_b))
    return min(powers)


def detectable_gap(reject: np.ndarray, n_a: int, n_b: int, target: float = POWER_TARGET) -> float:
    """The smallest gap (to 1e-4) detected with ``target`` power, by a scan then bisection; NaN if none."""
    gaps = np.linspace(0.0, 1.0, 201)[1:]
    reached = [exact_power(reject, n_a, n_b, g) >= target for g in gaps]
    if not any(reached):
        return float("nan")
    first = reached.index(True)
    low, high = (gaps[first - 1] if first else 0.0), gaps[first]
    while high - low > 1e-4:
        middle = (low + high) / 2
        low, high = (low, middle) if exact_power(reject, n_a, n_b, middle) >= target else (middle, high)
    return float(high)


def power_main(pairs=POWER_SIZES) -> None:
    """Boschloo's test against the conditional exact test: size, power at the MDG, and each test's MDG."""
    from faircode.power import minimum_detectable_gap

    print(f"\nBoschloo against the conditional exact test, alpha {ALPHA:.0%}, gaps centred on {POWER_RATE}")
    print(f"{'n_a vs n_b':<12}{'size cond':>10}{'size Bosch':>11}{'MDG (faircode)':>16}{'power cond':>12}"
          f"{'power Bosch':>12}{'MDG cond':>10}{'MDG Bosch':>11}")
    grid = np.linspace(0.01, 0.99, 99)
    for n_a, n_b in pairs:
        reject = rejections(n_a, n_b)
        sizes = {m: max(float(_masses(n_a, [r])[0] @ region @ _masses(n_b, [r])[0]) for r in grid)
                 for m, region in reject.items()}
        mdg = minimum_detectable_gap(n_a, n_b, POWER_RATE, ALPHA)
        power = {m: exact_power(region, n_a, n_b, mdg) for m, region in reject.items()}
        gaps = {m: detectable_gap(region, n_a, n_b) for m, region in reject.items()}
        print(f"{f'{n_a} vs {n_b}':<12}{100 * sizes['conditional']:>9.2f}%{100 * sizes['boschloo']:>10.2f}%"
              f"{mdg:>16.3f}{100 * power['conditional']:>11.1f}%{100 * power['boschloo']:>11.1f}%"
              f"{gaps['conditional']:>10.3f}{gaps['boschloo']:>11.3f}")
    print("(size: the largest rejection rate over equal rates 0.01 to 0.99; MDG (faircode): "
          "faircode.power.minimum_detectable_gap, the conditional test's exact MDG)")


SPEED_PAIRS = ((20, 20), (50, 50), (100, 100), (100, 20), (100, 99), (200, 49), (1000, 9))


def speed_main(rounds: int = 3, against: str | None = None) -> None:
    """Time the first exact interval of a size pair (every table at once) and a later one, medians of rounds.

    With ``against`` (a commit), its ``faircode/_unconditional.py`` is timed in the same rounds,
    in alternating order with the working tree's, for the first gap and ratio intervals.
    """
    import time

    from faircode.significance import significance_report_from_counts

    engines = _engines(against)
    print(f"exact unconditional intervals, seconds (median of {rounds} rounds; each round forgets what it computed)")
    heading = "".join(f"{f'gap first {name}':>18}{f'ratio first {name}':>20}" for name in engines)
    print(f"{'n_a vs n_b':<14}{'tables':>8}{heading}{'later (ms)':>12}{'report first':>14}{'report later (ms)':>19}")
    for n_a, n_b in SPEED_PAIRS:
        timings: dict[str, list[float]] = {}
        for round_ in range(rounds):
            for name in _alternating(engines, round_):
                engine = engines[name]
                for cached in (engine.difference_intervals, engine.ratio_intervals, engine._tables):
                    cached.cache_clear()
                calls = ((f"gap {name}", lambda: engine.difference_interval(1, n_a, 0, n_b, CONFIDENCE)),
                         (f"ratio {name}", lambda: engine.ratio_interval(1, n_a, 1, n_b, CONFIDENCE)))
                if name == "now":
                    calls += (("later", lambda: engine.difference_interval(n_a // 2, n_a, 3, n_b, CONFIDENCE)),)
                for key, call in calls:
                    start = time.perf_counter()
                    call()
                    timings.setdefault(key, []).append(time.perf_counter() - start)
            _unconditional.difference_intervals.cache_clear()
            for key in ("report", "report_later"):
                start = time.perf_counter()
                significance_report_from_counts(n_a // 3, n_a, n_b // 4, n_b)
                timings.setdefault(key, []).append(time.perf_counter() - start)
        median = {k: statistics.median(v) for k, v in timings.items()}
        firsts = "".join(f"{median[f'gap {name}']:>18.3f}{median[f'ratio {name}']:>20.3f}" for name in engines)
        print(f"{f'{n_a} vs {n_b}':<14}{(n_a + 1) * (n_b + 1):>8}{firsts}"
              f"{1000 * median['later']:>12.3f}{median['report']:>14.3f}{1000 * median['report_later']:>19.3f}")
    print("\nthe first interval in a new process, numba imported and the compiled tail sums loaded from their cache "
          f"(median of {rounds} processes):")
    for function, n_a, n_b in (("difference_interval", 100, 100), ("ratio_interval", 100, 99)):
        seconds = statistics.median(_first_in_new_process(function, n_a, n_b) for _ in range(rounds))
        print(f"  {function}, {n_a} vs {n_b}: {seconds:.3f} s")


def _first_in_new_process(function: str, n_a: int, n_b: int) -> float:
    """Seconds of one exact interval in a fresh interpreter that has imported faircode.significance."""
    import subprocess

    code = ("import time, faircode.significance\n"
            "from faircode import _unconditional\n"
            "start = time.perf_counter()\n"
            f"_unconditional.{function}(1, {n_a}, 1, {n_b}, {CONFIDENCE})\n"
            "print(time.perf_counter() - start)\n")
    shown = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    return float(shown.stdout.split()[-1])


def grid_speed_main(results: Path, against: str | None = None) -> None:
    """Time the exact intervals the rows of a results CSV carry, every size pair computed afresh.

    The gap rows marked ``exact_unconditional`` and the ratio rows marked
    ``exact_unconditional_ratio`` are timed at 95%, each distinct pair of group sizes once, with
    the working tree's engine and, with ``against``, that commit's, alternately. (The Sidak rows
    are left out: their parts' group sizes are not in the CSV.)
    """
    import csv
    import time

    with results.open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    wanted = {"exact_unconditional": "difference_intervals", "exact_unconditional_ratio": "ratio_intervals"}
    calls = sorted({(wanted[row["ci_method"]], int(row["n_disadvantaged"]), int(row["n_advantaged"]))
                    for row in rows if row["ci_method"] in wanted})
    engines = _engines(against)
    seconds = dict.fromkeys(engines, 0.0)
    for k, (function, n_a, n_b) in enumerate(calls):
        for name in _alternating(engines, k):
            engine = engines[name]
            getattr(engine, function).cache_clear()
            engine._tables.cache_clear()
            start = time.perf_counter()
            getattr(engine, function)(n_a, n_b, CONFIDENCE)
            seconds[name] += time.perf_counter() - start
    print(f"{results}: {len(calls)} exact interval tables (size pair and kind) its rows carry, computed afresh")
    for name, total in seconds.items():
        print(f"  {name}: {total:.1f} s" + (f" ({seconds[name] / seconds['now']:.2f}x now)" if name != "now" else ""))


def _engines(against: str | None) -> dict:
    """The engines to time by name: the working tree's ("now") and, with ``against``, that commit's."""
    return {"now": _unconditional, **({against: _engine_at(against)} if against else {})}


def _alternating(engines: dict, k: int) -> list[str]:
    """The engines' names in order on even rounds, reversed on odd ones (neither always runs first)."""
    return list(engines) if k % 2 == 0 else list(reversed(engines))


def _engine_at(commit: str):
    """faircode/_unconditional.py and faircode/_tails.py as they were at ``commit``, loaded as modules
    of their own (git show); the other modules they import (``_exact``, ``_intervals``) are the
    working tree's."""
    tails = _module_at(commit, "_tails")
    engine = _module_at(commit, "_unconditional")
    engine._tails = tails  # looked up at every call, so the commit's engine sums its own tails
    return engine


def _module_at(commit: str, stem: str):
    """``faircode/{stem}.py`` as it was at ``commit``, as a module named ``faircode.{stem}_before``.

    The source is written to a temporary file first, so that a compiled function of it has a
    file to cache beside.
    """
    import importlib.util
    import subprocess
    import tempfile

    root = Path(__file__).resolve().parents[1]
    shown = subprocess.run(["git", "show", f"{commit}:faircode/{stem}.py"], cwd=root,
                           capture_output=True, text=True)
    if shown.returncode != 0:
        raise SystemExit(f"bench/coverage.py --against {commit}: git show failed: {shown.stderr.strip()}")
    source = Path(tempfile.mkdtemp(prefix="faircode-engine-")) / f"{stem}_before.py"
    source.write_text(shown.stdout)
    name = f"faircode.{stem}_before"
    module = importlib.util.module_from_spec(importlib.util.spec_from_file_location(name, source))
    sys.modules[name] = module  # dataclasses look their module up
    exec(compile(shown.stdout, str(source), "exec"), module.__dict__)
    return module


def exact_main(sizes, rates, margins) -> None:
    """Print the exact-enumeration tables."""
    print(f"exact enumeration: sizes {list(sizes)} (every ordered pair), rates {list(rates)} (every pair)")
    _exact_summary("coverage of 95% intervals (gap; ratio; equalized odds)",
                   {**exact_sizes_study(sizes, rates), **odds_study(sizes, rates)}, CONFIDENCE, below=True)
    _exact_summary("coverage past the exact bound (where auto is Agresti-Caffo or the ratio's score interval)",
                   beyond_bound_study(sizes, rates), CONFIDENCE, below=True)
    _exact_summary("size at the null (rates equal), alpha 5%", test_sizes(sizes, rates), 0.05, below=False)
    _exact_summary(f"TOST: chance of declaring equivalence at a true gap of +-margin {list(margins)}, alpha 5%",
                   tost_sizes(sizes, rates, margins), 0.05, below=False)
    power_main()


def main(argv: list[str] | None = None) -> None:
    """Print the coverage tables and each method's minimum and median over the cells."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--audits", type=int, default=2000, help="simulated audits per cell (default 2000)")
    parser.add_argument("--resamples", type=int, default=2000, help="bootstrap resamples (default 2000)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--simulate", action="store_true", help="the simulated tables instead of the exact ones")
    parser.add_argument("--speed", action="store_true", help="time the exact intervals instead")
    parser.add_argument("--against", metavar="COMMIT", help="with --speed: time that commit's engine alongside")
    parser.add_argument("--grid", type=Path, metavar="CSV",
                        help="with --speed: time the exact intervals the rows of this results CSV carry instead")
    parser.add_argument("--sizes", type=int, nargs="+", default=list(EXACT_SIZES))
    parser.add_argument("--rates", type=float, nargs="+", default=list(EXACT_RATES))
    parser.add_argument("--margins", type=float, nargs="+", default=list(MARGINS))
    args = parser.parse_args(argv)
    if args.speed and args.grid:
        grid_speed_main(args.grid, against=args.against)
        return
    if args.speed:
        speed_main(against=args.against)
        return
    if not args.simulate:
        exact_main(args.sizes, args.rates, args.margins)
        return
    methods = GAP_METHODS + RATIO_METHODS
    rows = table(methods, args.audits, args.seed, args.resamples)
    for cell, result in rows:  # the coverage itself, for the defaults (no simulation error)
        result["exact_agresti_caffo"] = exact_coverage("agresti_caffo", cell)
        result["exact_newcombe"] = exact_coverage("newcombe", cell)
        if cell.n_b <= 1000:
            result["exact_ratio_mn"] = exact_coverage("ratio_mn", cell)
    names = {"newcombe": "Newcombe", "miettinen_nurminen": "MN", "agresti_caffo": "AC*", "bootstrap": "boot",
             "ratio_mn": "ratio MN*", "ratio_koopman": "Koopman", "ratio_bootstrap": "ratio boot",
             "exact_agresti_caffo": "AC* exact", "exact_newcombe": "Newc exact", "exact_ratio_mn": "rMN exact"}
    shown = ("agresti_caffo", "exact_agresti_caffo", "newcombe", "exact_newcombe", "miettinen_nurminen",
             "bootstrap", "ratio_mn", "exact_ratio_mn", "ratio_koopman", "ratio_bootstrap")
    print(f"coverage of 95% intervals: {args.audits} simulated audits a cell (simulation standard error about "
          f"{100 * (0.95 * 0.05 / args.audits) ** 0.5:.1f} points), and the exact coverage of three methods "
          "(* = faircode's default)")
    print(f"{'n_a vs n_b    rate_a vs rate_b':<32}" + "".join(f"{names[m]:>11}" for m in shown))
    for cell, result in rows:
        print(f"{cell.label:<32}" + "".join(f"{100 * result[m]:>10.1f}%" if m in result else f"{'-':>11}"
                                            for m in shown))
    _summary(names, rows, shown)

    odds = [(cell, odds_coverage(cell, args.audits, args.seed + 1000 + i, args.resamples))
            for i, cell in enumerate(odds_cells())]
    odds_names = {"sidak_agresti_caffo": "Sidak AC*", "bootstrap": "boot signed max"}
    print(f"\nequalized odds: coverage of the signed larger gap, {args.audits} simulated audits a cell")
    print(f"{'cell':<46}" + "".join(f"{odds_names[m]:>17}" for m in odds_names))
    for cell, result in odds:
        print(f"{cell.label:<46}" + "".join(f"{100 * result[m]:>16.1f}%" for m in odds_names))
    _summary(odds_names, odds, list(odds_names))


if __name__ == "__main__":
    main()
