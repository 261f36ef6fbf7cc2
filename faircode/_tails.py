"""The largest tail probabilities of a statistic over ranges of pairs of rates, every table at once.

The exact unconditional tests of :mod:`faircode._unconditional` need, for every table of two
group sizes, the largest P(Z >= z) and P(Z <= z) of its own statistic ``z`` over a range of
columns, each column a pair of rates ``(rate_a, rate_b)`` under which a table has the
probability of two independent binomials. :func:`largest_tails` computes them in one pass:

* the tables are sorted by their statistic once;
* the columns are taken in blocks of :data:`BLOCK_COLUMNS`; under a block, only the tables in
  the box of counts that holds all but :data:`NEGLIGIBLE` of each group's mass (below and
  above, under every column of the block), widened to hold every table asking about the
  block, are summed. Leaving the rest out lowers a P(Z <= z) by at most ``4 * NEGLIGIBLE``,
  which is added to it, and can only raise a P(Z >= z) (read as 1 - P(Z < z)), so both stay
  at least the exact ones;
* the blocks' sums are one compiled loop (:func:`faircode._block_sums.block_sums`, numba):
  the sums under a block run on from those of the block before, as one cumulative sum over
  boxes laid end to end would, and each block's tails are read off by subtracting the sums
  before its first table;
* on small groups (at most :data:`DIRECT_CELLS` tables x columns) every table is summed
  under every column in one array instead, since the boxes would cost more than they save.

Written by hand because no library computes tails of an arbitrary statistic over a grid of
binomial pairs (scipy's ``boschloo_exact`` and ``barnard_exact`` do one table at a time). The
loop is compiled with numba (:mod:`faircode._block_sums`) because in numpy the same sums took
some fifteen passes over the cells and readings: 2.7 times the time, on two cores, for the
first intervals of a pair of groups of 100 (bench/coverage.py --speed --against 62d6f61).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import gammaln, xlog1py, xlogy

BLOCK_COLUMNS = 8
"""Columns a block: few, so each group's mass under them lies in a narrow box of counts."""
NEGLIGIBLE = 1e-12
"""Mass of each group's counts, below and above, that a block may leave out."""
DIRECT_CELLS = 100_000
"""Up to this many cells (tables x columns), every table is summed under every column in one
array, with no blocks or boxes: they cost more than they save on small groups."""
CELLS_AT_ONCE = 2_000_000
"""Cells (tables x columns) of one group of blocks, after which the running sums start again from 0:
the bound on the arrays (16 MB each) of the numpy form the compiled loop replaced, kept so that
every tail is the same to the last bit as it gave."""


def binomial_masses(n: int, rates: np.ndarray) -> np.ndarray:
    """Binomial(n, rate) pmf for each rate (rows) at every count 0..n (columns).

    Examples
    --------
    >>> binomial_masses(2, np.array([0.5])).round(3).tolist()
    [[0.25, 0.5, 0.25]]
    """
    k = np.arange(n + 1, dtype=float)
    r = np.asarray(rates, dtype=float)[:, None]
    return np.exp(_log_choose(n)[None, :] + xlogy(k[None, :], r) + xlog1py(n - k[None, :], -r))


def _log_choose(n: int) -> np.ndarray:
    k = np.arange(n + 1, dtype=float)
    return gammaln(n + 1) - gammaln(k + 1) - gammaln(n - k + 1)


def largest_tails(z: np.ndarray, ones_a: np.ndarray, ones_b: np.ndarray, mass_a: np.ndarray,
                  mass_b: np.ndarray, first: np.ndarray, stop: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per table, the largest P(Z >= z) and P(Z <= z) over its columns ``first:stop``.

    ``z`` is every table's statistic (ties must be exactly equal), ``ones_a`` and ``ones_b``
    its counts (integers), ``mass_a`` and ``mass_b`` each group's binomial masses under each
    column's rate (rows: columns, as from :func:`binomial_masses`). Returns ``(upper, lower)``;
    a table with an empty range gets 0 for both. Each is at least the exact value and at most
    ``4 * NEGLIGIBLE`` (plus rounding) above it.

    Examples
    --------
    Groups of one row under rates 0.5 and 0.5: each of the four tables has probability 1/4, so
    the table (1, 0), the only one with Z = 1, has P(Z >= 1) = 1/4, and (0, 1) has P(Z <= -1) = 1/4.

    >>> rates = np.array([0.5])
    >>> z = np.array([0.0, -1.0, 1.0, 0.0])  # tables (0, 0), (0, 1), (1, 0), (1, 1)
    >>> a, b = np.array([0, 0, 1, 1]), np.array([0, 1, 0, 1])
    >>> upper, lower = largest_tails(z, a, b, binomial_masses(1, rates), binomial_masses(1, rates),
    ...                              np.zeros(4, dtype=int), np.ones(4, dtype=int))
    >>> float(upper[2]), round(float(lower[1]), 6)
    (0.25, 0.25)
    """
    tables, columns = z.size, mass_b.shape[0]
    order = np.argsort(z, kind="stable")
    if tables * columns <= DIRECT_CELLS:
        upper, lower = _every_table(_SortedTables(z[order], ones_a[order], ones_b[order], first[order], stop[order]),
                                    mass_a, mass_b)
        result_upper, result_lower = np.empty(tables), np.empty(tables)
        result_upper[order], result_lower[order] = upper, lower
    else:
        result_upper, result_lower = _by_blocks(order, z, ones_a, ones_b, first, stop,
                                                _Blocks(mass_a, mass_b, min(BLOCK_COLUMNS, columns)))
    result_lower[first < stop] += 4 * NEGLIGIBLE
    return result_upper, result_lower


class _Blocks:
    """Each group's masses laid out by block, and each block's range of kept counts.

    ``rows_a`` holds one row per (block, count): the mass of count ``k`` under the ``width``
    columns of block ``b`` is row ``b * (n_a + 1) + k``, so the masses of one table under a
    block are gathered as one short contiguous row. ``kept_a`` has shape (2, blocks): the
    smallest and largest count whose mass is not negligible under some column of the block.
    """

    def __init__(self, mass_a: np.ndarray, mass_b: np.ndarray, width: int) -> None:
        self.width = width
        self.count = math.ceil(mass_b.shape[0] / width)
        self.counts_a, self.counts_b = mass_a.shape[1], mass_b.shape[1]
        self.rows_a = _by_block_and_count(_padded(mass_a, width, self.count), width)
        self.rows_b = _by_block_and_count(_padded(mass_b, width, self.count), width)
        self.kept_a, self.kept_b = _kept_counts(mass_a, width, self.count), _kept_counts(mass_b, width, self.count)


def _by_block_and_count(mass: np.ndarray, width: int) -> np.ndarray:
    """``mass`` (blocks * width columns, counts) as rows of ``width`` columns, one per (block, count)."""
    counts = mass.shape[1]
    return np.ascontiguousarray(mass.reshape(-1, width, counts).transpose(0, 2, 1)).reshape(-1, width)


def _padded(mass: np.ndarray, width: int, count: int) -> np.ndarray:
    """``mass`` (columns, counts) with its last column repeated up to ``count`` blocks of ``width``."""
    return np.concatenate([mass, np.repeat(mass[-1:], count * width - mass.shape[0], axis=0)])


def _kept_counts(mass: np.ndarray, width: int, count: int) -> np.ndarray:
    """Per block, the smallest and largest count whose mass is not negligible under some column of it."""
    negligible_below = (np.cumsum(mass, axis=1) <= NEGLIGIBLE).sum(axis=1)
    negligible_above = (np.cumsum(mass[:, ::-1], axis=1) <= NEGLIGIBLE).sum(axis=1)
    low, high = negligible_below, mass.shape[1] - 1 - negligible_above
    starts = np.arange(0, mass.shape[0], width)
    return np.stack([np.minimum.reduceat(low, starts), np.maximum.reduceat(high, starts)])[:, :count]


@dataclass(frozen=True)
class _SortedTables:
    """The tables in the order of their statistic: each statistic, counts and range of columns."""

    z: np.ndarray
    ones_a: np.ndarray
    ones_b: np.ndarray
    first: np.ndarray
    stop: np.ndarray


def _every_table(tables: _SortedTables, mass_a: np.ndarray, mass_b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The largest tails (in sorted order) with every table summed under every column."""
    size = tables.z.size
    before = np.empty((mass_b.shape[0], size + 1))  # column i: the mass of the first i tables
    before[:, 0] = 0.0
    np.cumsum(np.take(mass_a, tables.ones_a, axis=1) * np.take(mass_b, tables.ones_b, axis=1), axis=1,
              out=before[:, 1:])
    tie_start, tie_end = _ties(tables.z)
    column = np.arange(mass_b.shape[0])[:, None]
    return _largest_inside(column, tables.first, tables.stop, np.take(before, tie_start, axis=1),
                           np.take(before, tie_end, axis=1))


def _by_blocks(order: np.ndarray, z: np.ndarray, ones_a: np.ndarray, ones_b: np.ndarray, first: np.ndarray,
               stop: np.ndarray, blocks: _Blocks) -> tuple[np.ndarray, np.ndarray]:
    """The largest tails, block by block (the running sums start again every :data:`CELLS_AT_ONCE` cells)."""
    # Imported here: numba takes 0.15 s to import, and most audits never reach tables this many.
    from faircode import _block_sums

    upper, lower = np.zeros(z.size), np.zeros(z.size)
    per_group = max(1, CELLS_AT_ONCE // (z.size * blocks.width))
    box, asked = _block_sums.widened_boxes(first, stop, ones_a, ones_b, blocks.kept_a, blocks.kept_b, blocks.width)
    _block_sums.block_sums(order, z, ones_a, ones_b, first, stop, blocks.rows_a, blocks.rows_b, blocks.counts_a,
                           blocks.counts_b, box, asked, per_group, upper, lower)
    return upper, lower


def _ties(z: np.ndarray, segment: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Per position of the sorted statistics ``z``, where its tie starts and where the next one
    does: the positions whose cumulative sums before them give P(Z < z) and P(Z <= z). With
    ``segment`` (non-decreasing), a tie also ends where the segment changes."""
    opens = np.empty(z.size, dtype=bool)
    opens[0] = True
    np.not_equal(z[1:], z[:-1], out=opens[1:])
    if segment is not None:
        opens[1:] |= segment[1:] != segment[:-1]
    starts = np.flatnonzero(opens)
    tie = np.cumsum(opens) - 1
    return starts[tie], np.append(starts[1:], z.size)[tie]


def _largest_inside(column: np.ndarray, first: np.ndarray, stop: np.ndarray, below: np.ndarray,
                    at_most: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per table (columns of ``below`` and ``at_most``, rows: the nuisance columns ``column``), the
    largest P(Z >= z) = 1 - P(Z < z) and P(Z <= z) over the columns in ``first:stop``."""
    inside = (column >= first[None, :]) & (column < stop[None, :])
    return 1.0 - np.where(inside, below, 1.0).min(axis=0), np.where(inside, at_most, 0.0).max(axis=0)
