"""Exact distributions behind the tests on 0/1 data.

Two groups of 0/1 values, sizes ``n_a`` and ``n_b`` (``N = n_a + n_b`` rows, ``K`` ones
in all). Every gap here is kept as a whole number so no tie is lost to rounding:

* gap = x / n_a - (K - x) / n_b = (x * N - K * n_a) / (n_a * n_b), so a relabelling is at
  least as extreme as the data when ``|x * N - K * n_a|`` is at least the observed value.
* Under relabelling, the count ``x`` of ones landing in group a is hypergeometric
  (population N, K successes, n_a draws): the permutation distribution, exactly.
* A bootstrap resample of a group draws its count of ones from a binomial, so the
  bootstrap gap is ``(A * n_b - B * n_a) / (n_a * n_b)`` with A and B independent
  binomials.

All probabilities come from scipy.stats (hypergeom, binom).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

import numpy as np
from scipy.special import gammaln
from scipy.stats import binom, hypergeom

# Binomial mass left out of the exact bootstrap enumeration, per tail and group. The
# quantiles are exact unless a requested level lies within this distance of a jump.
_NEGLIGIBLE_TAIL = 1e-15


def gap_numerator(ones_a, n_a, total_ones, n_total):
    """The whole-number numerator ``x * N - K * n_a`` of the gap (denominator n_a * n_b)."""
    return ones_a * n_total - total_ones * n_a


def tail_probability(n_a, n_b, total_ones, threshold):
    """P(|X * N - K * n_a| >= threshold) for X ~ Hypergeometric(N, K, n_a).

    Vectorised over its arguments (int64, or Python ints past two billion rows a group, so
    no product overflows). The set of X passing is the two tails
    ``X <= x_low`` and ``X >= x_high``. The upper tail is read as a lower tail of the
    count of zeros in group a, n_a - X ~ Hypergeometric(N, N - K, n_a), so both tails come
    from one vectorised cdf call (scipy's, up to 100,000 rows; a windowed sum beyond, see
    :func:`_windowed_lower_tail`) and keep full relative precision when tiny. A threshold
    of zero or less is passed by every relabelling, so p is exactly 1.
    """
    if max(int(np.max(np.asarray(v, dtype=object))) for v in (n_a, n_b)) > _INT64_SAFE_ROWS:
        return _tail_probability_in_python_ints(n_a, n_b, total_ones, threshold)
    n_a, n_b, total_ones, threshold = np.broadcast_arrays(
        *(np.asarray(v, dtype=np.int64) for v in (n_a, n_b, total_ones, threshold))
    )
    n_total = n_a + n_b
    centre = total_ones * n_a
    x_low = np.floor_divide(centre - threshold, n_total)
    x_high = -np.floor_divide(-(centre + threshold), n_total)
    big = np.asarray(n_total > _BOOST_ROWS, dtype=bool)
    p = np.zeros(x_low.shape)
    if not big.all():
        small = ~big
        tails = hypergeom.cdf(
            np.stack([x_low[small], n_a[small] - x_high[small]]).astype(float),
            n_total[small].astype(float),
            np.stack([total_ones[small], n_total[small] - total_ones[small]]).astype(float),
            n_a[small].astype(float),
        )
        p[small] = tails.sum(axis=0)
    if big.any():
        p[big] = [_windowed_lower_tail(int(x), int(m), int(k), int(n))
                  + _windowed_lower_tail(int(n - y), int(m), int(m - k), int(n))
                  for x, y, m, k, n in zip(x_low[big], x_high[big], n_total[big], total_ones[big], n_a[big])]
    p = np.where(threshold <= 0, 1.0, np.clip(p, 0.0, 1.0))
    return p[()] if p.ndim == 0 else p


# Above this many rows in a group, x * N may overflow int64: the arithmetic uses Python ints.
_INT64_SAFE_ROWS = 2**31 - 1
# Above this many rows in all, scipy's hypergeometric cdf loses digits (a relative error of 5e-11
# at 300,000 rows, 1e-10 at a million) and time; the tails are summed over a window of the counts
# that carry their mass instead, each term from Loader's saddle-point form.
_BOOST_ROWS = 100_000


def _tail_probability_in_python_ints(n_a, n_b, total_ones, threshold):
    """:func:`tail_probability` past two billion rows a group: the whole-number arithmetic in Python ints."""
    arrays = np.broadcast_arrays(*(np.asarray(v, dtype=object) for v in (n_a, n_b, total_ones, threshold)))
    p = []
    for a, b, k, t in zip(*(array.ravel() for array in arrays)):
        a, b, k, t = int(a), int(b), int(k), int(t)
        n = a + b
        if t <= 0:
            p.append(1.0)
            continue
        x_low, x_high = (k * a - t) // n, -((-(k * a + t)) // n)
        p.append(min(1.0, _windowed_lower_tail(x_low, n, k, a) + _windowed_lower_tail(a - x_high, n, n - k, a)))
    result = np.array(p).reshape(arrays[0].shape)
    return result[()] if result.ndim == 0 else result


def _windowed_lower_tail(x: int, n_total: int, ones: int, draws: int) -> float:
    """P(X <= x) for X ~ Hypergeometric(n_total, ones, draws), x at or below the mean.

    The sum runs down from x over the counts whose probability is not negligible next to
    the tail's (more than 40 / z standard deviations, at most 9, where z is x's distance
    below the mean in standard deviations), each term's logarithm from Loader's saddle-point
    form of the binomial (:func:`_log_binomial_mass`), so the sum keeps a relative
    precision near 1e-13 at any size.
    """
    lowest = max(0, draws - (n_total - ones))
    if x < lowest:
        return 0.0
    share = draws / n_total
    mean = ones * share
    variance = draws * (ones / n_total) * (1 - ones / n_total) * (n_total - draws) / max(n_total - 1, 1)
    sd = math.sqrt(max(variance, 1e-300))
    z = max((mean - x) / sd, 1e-9)
    width = int(math.ceil(sd * min(9.0, 40.0 / z))) + 30
    counts = np.arange(max(lowest, x - width), x + 1, dtype=float)
    log_mass = (_log_binomial_mass(counts, ones, share) + _log_binomial_mass(draws - counts, n_total - ones, share)
                - _log_binomial_mass(np.array([float(draws)]), n_total, share)[0])
    top = float(np.max(log_mass))
    return float(math.exp(top) * np.sum(np.exp(log_mass - top)))


_HALF_LOG_TWO_PI = 0.5 * math.log(2 * math.pi)


def _log_binomial_mass(k: np.ndarray, n: int, p: float) -> np.ndarray:
    """log P(K = k) for K ~ Binomial(n, p), by Loader's saddle-point expansion (no cancellation at large n)."""
    k = np.asarray(k, dtype=float)
    n = float(n)
    inner = (k > 0) & (k < n)
    kk = np.where(inner, k, 1.0)
    out = (_stirling_error(n) - _stirling_error(kk) - _stirling_error(n - kk)
           - _deviance(kk, n * p) - _deviance(n - kk, n * (1 - p))
           - _HALF_LOG_TWO_PI - 0.5 * (np.log(kk) + np.log1p(-kk / n)))
    with np.errstate(divide="ignore"):
        edge = np.where(k == 0, n * np.log1p(-p) if p < 1 else (0.0 if n == 0 else -np.inf),
                        n * np.log(p) if p > 0 else -np.inf)
    return np.where(inner, out, np.where((k == 0) | (k == n), edge, -np.inf))


def _stirling_error(n) -> np.ndarray:
    """log(n!) - log(sqrt(2 pi n) (n / e)^n), by its asymptotic series above 15, else from lgamma."""
    n = np.asarray(n, dtype=float)
    small = n <= 15
    safe = np.where(small, 16.0, n)
    n2 = safe * safe
    series = (1 / 12 - (1 / 360 - (1 / 1260 - (1 / 1680 - 1 / (1188 * n2)) / n2) / n2) / n2) / safe
    tiny = np.where(small, np.maximum(n, 1e-300), 1.0)
    direct = gammaln(tiny + 1) - (tiny + 0.5) * np.log(tiny) + tiny - _HALF_LOG_TWO_PI
    return np.where(small, direct, series)


def _deviance(x, mean) -> np.ndarray:
    """x log(x / mean) + mean - x, by its series when x is near the mean (Loader's bd0)."""
    x, mean = np.broadcast_arrays(np.asarray(x, dtype=float), np.asarray(mean, dtype=float))
    near = np.abs(x - mean) < 0.1 * (x + mean)
    v = np.where(near, (x - mean) / np.where(near, x + mean, 1.0), 0.0)
    total = (x - mean) * v
    term = 2 * x * v
    v2 = v * v
    for j in range(1, 60):
        term = term * v2
        step = term / (2 * j + 1)
        total = total + step
        if not np.any(np.abs(step) > 1e-17 * np.abs(total)):
            break
    with np.errstate(divide="ignore", invalid="ignore"):
        far = x * np.log(x / mean) + mean - x
    return np.where(near, total, far)


TailRequest = tuple[int, int, int, int]
"""The arguments (n_a, n_b, total_ones, threshold) of one :func:`tail_probability`."""


def permutation_p(ones_a, n_a, ones_b, n_b):
    """Exact two-sided permutation p-value of the gap in means of two 0/1 groups.

    Vectorised over its arguments; a single test of any size is computed in Python ints.
    """
    if all(np.ndim(v) == 0 for v in (ones_a, n_a, ones_b, n_b)):
        ones_a, n_a, ones_b, n_b = (int(v) for v in (ones_a, n_a, ones_b, n_b))
        return tail_probability(n_a, n_b, ones_a + ones_b, abs(_numerator(ones_a, n_a, ones_b, n_b)))
    total_ones = np.asarray(ones_a) + np.asarray(ones_b)
    observed = np.abs(gap_numerator(np.asarray(ones_a), n_a, total_ones, np.asarray(n_a) + n_b))
    return tail_probability(n_a, n_b, total_ones, observed)


def permutation_request(ones_a: int, n_a: int, ones_b: int, n_b: int) -> TailRequest:
    """The tail whose probability is :func:`permutation_p`, for batching many tests in one call."""
    return n_a, n_b, ones_a + ones_b, abs(_numerator(ones_a, n_a, ones_b, n_b))


def largest_gap(strata: Sequence[tuple[int, int, int, int]]) -> tuple[int, Fraction]:
    """Index and exact |gap| of the stratum whose |gap| is largest (first one on a tie).

    Each stratum is ``(ones_a, n_a, ones_b, n_b)``.
    """
    sizes = [Fraction(abs(_numerator(*s)), s[1] * s[3]) for s in strata]
    index = max(range(len(sizes)), key=lambda i: (sizes[i], -i))
    return index, sizes[index]


def stratum_thresholds(strata: Sequence[tuple[int, int, int, int]], gap: Fraction) -> list[int]:
    """Per stratum, the smallest whole numerator whose |gap| reaches ``gap``.

    A relabelling of stratum s reaches the gap when |x N_s - K_s n_a| / (n_a n_b) >= gap,
    that is when the integer |x N_s - K_s n_a| >= ceil(gap * n_a * n_b).
    """
    return [math.ceil(gap * s[1] * s[3]) for s in strata]


def stratified_permutation_p(strata: Sequence[tuple[int, int, int, int]]) -> float:
    """Exact p of max_s |gap_s| when labels are shuffled within each stratum independently.

    With t the observed largest |gap|, P(max_s |G_s| >= t) = 1 - prod_s (1 - P(|G_s| >= t)),
    each factor a hypergeometric tail at the common threshold t (not at the stratum's own
    observed gap). Computed as -expm1(sum log1p(-p_s)) so tiny p-values keep their digits.
    """
    requests = stratified_requests(strata)
    if not requests:
        return 1.0
    tails = np.atleast_1d(tail_probability(*zip(*requests)))  # one vectorised call for all strata
    return combine_stratum_tails([float(t) for t in tails])


def stratified_requests(strata: Sequence[tuple[int, int, int, int]]) -> list[TailRequest]:
    """Per stratum, the tail at the common threshold; none when the largest gap is 0 (p = 1)."""
    _, gap = largest_gap(strata)
    if gap == 0:
        return []
    thresholds = stratum_thresholds(strata, gap)
    return [(s[1], s[3], s[0] + s[2], c) for s, c in zip(strata, thresholds)]


def combine_stratum_tails(tails: Sequence[float]) -> float:
    """p of the largest gap from the strata's tails: 1 - prod_s (1 - p_s), digits kept."""
    if any(t >= 1.0 for t in tails):
        return 1.0
    return float(min(1.0, -math.expm1(sum(math.log1p(-t) for t in tails))))


def bootstrap_quantiles(ones_a, n_a, ones_b, n_b, levels: Sequence[float]) -> np.ndarray:
    """Exact quantiles of the bootstrap gap A / n_a - B / n_b at the given levels.

    A ~ Binomial(n_a, ones_a / n_a) and B ~ Binomial(n_b, ones_b / n_b) independently: the
    limit of infinitely many resamples. The quantile at level q is the smallest attainable
    gap g with P(gap <= g) >= q, which is where the percentile of n Monte Carlo resamples
    (numpy's default linear rule) converges as n grows. Found by bisection on the whole
    numerator m = A * n_b - B * n_a, using
    P(M <= m) = sum_j P(B = j) * P(A <= floor((m + j * n_a) / n_b)).
    """
    cdf_a, first_a = _truncated_binomial(n_a, ones_a / n_a, cumulative=True)
    pmf_b, first_b = _truncated_binomial(n_b, ones_b / n_b, cumulative=False)
    j = first_b + np.arange(pmf_b.size)

    def cdf_of_numerator(m: np.ndarray) -> np.ndarray:
        i = np.floor_divide(m[:, None] + j[None, :] * n_a, n_b) - first_a
        below = i < 0
        inside = np.where(below, 0.0, cdf_a[np.clip(i, 0, cdf_a.size - 1)])
        return inside @ pmf_b

    last_a = first_a + cdf_a.size - 1
    low = np.full(len(levels), first_a * n_b - j[-1] * n_a - 1, dtype=np.int64)
    high = np.full(len(levels), last_a * n_b - j[0] * n_a, dtype=np.int64)
    targets = np.asarray(levels, dtype=float)
    while np.any(high - low > 1):
        middle = (low + high) // 2
        reached = cdf_of_numerator(middle) >= targets
        high = np.where(reached, middle, high)
        low = np.where(reached, low, middle)
    return high / (n_a * n_b)


def _truncated_binomial(n: int, p: float, *, cumulative: bool) -> tuple[np.ndarray, int]:
    """pmf (or cdf) of Binomial(n, p) on the range holding all but a negligible mass."""
    first = int(binom.ppf(_NEGLIGIBLE_TAIL, n, p)) if 0 < p < 1 else round(n * p)
    last = int(binom.isf(_NEGLIGIBLE_TAIL, n, p)) if 0 < p < 1 else round(n * p)
    first, last = max(0, first - 1), min(n, last + 1)
    support = np.arange(first, last + 1)
    values = binom.cdf(support, n, p) if cumulative else binom.pmf(support, n, p)
    if cumulative:
        values[-1] = 1.0
    return values, first


def _numerator(ones_a: int, n_a: int, ones_b: int, n_b: int) -> int:
    return int(gap_numerator(ones_a, n_a, ones_a + ones_b, n_a + n_b))
