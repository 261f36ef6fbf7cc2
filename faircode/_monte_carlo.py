"""Monte Carlo relabellings and resamples, vectorised.

For 0/1 data a relabelling only matters through the count of ones that lands in group a,
which is hypergeometric, and a bootstrap resample of a group only through its count of
ones, which is binomial: drawing those counts costs O(draws) whatever the number of rows,
and has exactly the distribution of shuffling or resampling the rows one by one.

For other data the rows are shuffled (or resampled) for real, in batches of whole
permutations, so memory stays bounded.
"""

from __future__ import annotations

import numpy as np

from faircode.exceptions import InvalidInputError

# Upper bound on the number of array cells held at once by a batch of shuffles/resamples.
_BATCH_CELLS = 2_000_000


MONTE_CARLO_TOO_LARGE = (
    "method='monte_carlo' draws relabellings as hypergeometric counts, which numpy allows only below "
    "{limit:,} ones and {limit:,} zeros; got {ones:,} ones and {zeros:,} zeros. "
    "Use method='exact' (or 'auto'), which is exact at any size."
)
_HYPERGEOMETRIC_LIMIT = 10**9


def hypergeometric_numerators(
    rng: np.random.Generator, n_a: int, n_b: int, total_ones: int, size: int
) -> np.ndarray:
    """|x N - K n_a| for ``size`` random relabellings of two 0/1 groups (int64).

    Fewer than 1e9 ones and 1e9 zeros (numpy's limit) keep every product below 4e18, inside int64.
    """
    zeros = n_a + n_b - total_ones
    if max(total_ones, zeros) >= _HYPERGEOMETRIC_LIMIT:
        raise InvalidInputError(MONTE_CARLO_TOO_LARGE.format(limit=_HYPERGEOMETRIC_LIMIT, ones=total_ones,
                                                             zeros=zeros))
    x = rng.hypergeometric(total_ones, zeros, n_a, size=size).astype(np.int64)
    return np.abs(x * (n_a + n_b) - total_ones * n_a)


def binomial_gaps(
    rng: np.random.Generator, ones_a: int, n_a: int, ones_b: int, n_b: int, size: int
) -> np.ndarray:
    """mean(a*) - mean(b*) for ``size`` bootstrap resamples of two 0/1 groups."""
    resampled_a = rng.binomial(n_a, ones_a / n_a, size=size)
    resampled_b = rng.binomial(n_b, ones_b / n_b, size=size)
    return resampled_a / n_a - resampled_b / n_b


def shuffled_gaps(rng: np.random.Generator, a: np.ndarray, b: np.ndarray, size: int) -> np.ndarray:
    """mean(a') - mean(b') for ``size`` random relabellings of the pooled rows."""
    pooled = np.concatenate([a, b])
    n_a, n_total = a.size, pooled.size
    total = pooled.sum()
    gaps = []
    for batch in _batches(size, n_total):
        shuffled = rng.permuted(np.broadcast_to(pooled, (batch, n_total)), axis=1)
        sum_a = shuffled[:, :n_a].sum(axis=1)
        gaps.append(sum_a / n_a - (total - sum_a) / (n_total - n_a))
    return np.concatenate(gaps)


def resampled_gaps(rng: np.random.Generator, a: np.ndarray, b: np.ndarray, size: int) -> np.ndarray:
    """mean(a*) - mean(b*) for ``size`` bootstrap resamples, each group to its own size."""
    return _resampled_means(rng, a, size) - _resampled_means(rng, b, size)


def _resampled_means(rng: np.random.Generator, values: np.ndarray, size: int) -> np.ndarray:
    means = []
    for batch in _batches(size, values.size):
        rows = rng.integers(0, values.size, size=(batch, values.size))
        means.append(values[rows].mean(axis=1))
    return np.concatenate(means)


def _batches(size: int, row_count: int):
    per_batch = max(1, _BATCH_CELLS // max(row_count, 1))
    for start in range(0, size, per_batch):
        yield min(per_batch, size - start)
