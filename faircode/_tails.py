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
* the boxes of many blocks are laid end to end, so one gather, one product and one
  cumulative sum serve them all, and each block's sums are read off by subtracting the sum
  before its first table;
* on small groups (at most :data:`DIRECT_CELLS` tables x columns) every table is summed
  under every column in one array instead, since the boxes would cost more than they save.

Written by hand because no library computes tails of an arbitrary statistic over a grid of
binomial pairs (scipy's ``boschloo_exact`` and ``barnard_exact`` do one table at a time).
"""

from __future__ import annotations

import math

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
"""Bound on the cells (tables x columns) of the arrays laid out for one group of blocks (16 MB each)."""


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
    width = min(BLOCK_COLUMNS, columns)
    sorted_tables = _SortedTables(z[order], ones_a[order], ones_b[order], first[order], stop[order], width)
    if tables * columns <= DIRECT_CELLS:
        upper, lower = _every_table(sorted_tables, mass_a, mass_b)
    else:
        upper, lower = _by_blocks(sorted_tables, _Blocks(mass_a, mass_b, width))
    lower[sorted_tables.first < sorted_tables.stop] += 4 * NEGLIGIBLE
    result_upper, result_lower = np.empty(tables), np.empty(tables)
    result_upper[order], result_lower[order] = upper, lower
    return result_upper, result_lower


class _Blocks:
    """Each group's masses laid out by block, and each block's range of kept counts.

    ``mass_a`` is flat: the mass of count ``k`` under column ``j`` of block ``b`` is at
    ``(b * width + j) * (n_a + 1) + k``. ``kept_a`` has shape (2, blocks): the smallest and
    largest count whose mass is not negligible under some column of the block.
    """

    def __init__(self, mass_a: np.ndarray, mass_b: np.ndarray, width: int) -> None:
        self.width = width
        self.count = math.ceil(mass_b.shape[0] / width)
        self.counts_a, self.counts_b = mass_a.shape[1], mass_b.shape[1]
        self.mass_a = _padded(mass_a, width, self.count).ravel()
        self.mass_b = _padded(mass_b, width, self.count).ravel()
        self.kept_a, self.kept_b = _kept_counts(mass_a, width, self.count), _kept_counts(mass_b, width, self.count)

    def cells(self, block: np.ndarray, ones_a: np.ndarray, ones_b: np.ndarray) -> np.ndarray:
        """The probability of each table ``(ones_a[e], ones_b[e])`` under each column of ``block[e]``.

        Shape (width, entries).
        """
        column = (block * self.width)[None, :] + np.arange(self.width)[:, None]
        return (np.take(self.mass_a, column * self.counts_a + ones_a[None, :])
                * np.take(self.mass_b, column * self.counts_b + ones_b[None, :]))


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


class _SortedTables:
    """The tables in the order of their statistic, with the blocks each asks about."""

    def __init__(self, z: np.ndarray, ones_a: np.ndarray, ones_b: np.ndarray, first: np.ndarray,
                 stop: np.ndarray, width: int) -> None:
        self.z, self.ones_a, self.ones_b, self.first, self.stop = z, ones_a, ones_b, first, stop
        asks = np.flatnonzero(first < stop)
        self.first_block = np.where(first < stop, first // width, 0)
        self.last_block = np.where(first < stop, (stop - 1) // width, -1)  # -1: asks about no block
        blocks_asked = self.last_block[asks] - self.first_block[asks] + 1
        self.asking_table = np.repeat(asks, blocks_asked)  # every (table, block) it asks about
        runs = np.cumsum(blocks_asked) - blocks_asked
        self.asking_block = (np.repeat(self.first_block[asks] - runs, blocks_asked)
                             + np.arange(self.asking_table.size))


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


def _by_blocks(tables: _SortedTables, blocks: _Blocks) -> tuple[np.ndarray, np.ndarray]:
    """The largest tails (in sorted order), block by block, as many blocks at once as :data:`CELLS_AT_ONCE` allows."""
    upper, lower = np.zeros(tables.z.size), np.zeros(tables.z.size)
    per_group = max(1, CELLS_AT_ONCE // (tables.z.size * blocks.width))
    for start in range(0, blocks.count, per_group):
        _add_group(tables, blocks, range(start, min(start + per_group, blocks.count)), upper, lower)
    return upper, lower


def _add_group(tables: _SortedTables, blocks: _Blocks, group: range, upper: np.ndarray, lower: np.ndarray) -> None:
    """Raise ``upper`` and ``lower`` (in sorted order) to the largest tails over the blocks of ``group``."""
    segment, position = np.nonzero(_boxes(tables, blocks, group))  # by block, then in sorted order
    if segment.size == 0:
        return
    block_of = segment + group.start
    before = np.empty((blocks.width, segment.size + 1))  # column e: the mass of entries 0..e-1, across segments
    before[:, 0] = 0.0
    np.cumsum(blocks.cells(block_of, tables.ones_a[position], tables.ones_b[position]), axis=1, out=before[:, 1:])
    tie_start, tie_end = _ties(tables.z[position], segment)  # a tie ends at a new statistic or a new block
    reading = np.flatnonzero((tables.first_block[position] <= block_of) & (tables.last_block[position] >= block_of))
    block_start = np.searchsorted(segment, np.arange(group.stop - group.start), side="left")[segment[reading]]
    offset = np.take(before, block_start, axis=1)
    rows = position[reading]
    column = (block_of[reading] * blocks.width)[None, :] + np.arange(blocks.width)[:, None]
    upper_here, lower_here = _largest_inside(column, tables.first[rows], tables.stop[rows],
                                             np.take(before, tie_start[reading], axis=1) - offset,
                                             np.take(before, tie_end[reading], axis=1) - offset)
    np.maximum.at(lower, rows, lower_here)
    np.maximum.at(upper, rows, upper_here)


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


def _boxes(tables: _SortedTables, blocks: _Blocks, group: range) -> np.ndarray:
    """Which tables each block of ``group`` sums, (blocks, tables): its box of kept counts, widened to those asking."""
    blocks_here = group.stop - group.start
    here = (tables.asking_block >= group.start) & (tables.asking_block < group.stop)
    block, table = tables.asking_block[here] - group.start, tables.asking_table[here]
    box_a = _widened(blocks.kept_a[:, group.start:group.stop], block, tables.ones_a[table])
    box_b = _widened(blocks.kept_b[:, group.start:group.stop], block, tables.ones_b[table])
    some = np.bincount(block, minlength=blocks_here) > 0
    in_a = _in_range(box_a, blocks.counts_a) & some[:, None]
    in_b = _in_range(box_b, blocks.counts_b)
    return np.take_along_axis(in_a, np.broadcast_to(tables.ones_a, (blocks_here, tables.z.size)), axis=1) & \
        np.take_along_axis(in_b, np.broadcast_to(tables.ones_b, (blocks_here, tables.z.size)), axis=1)


def _widened(kept: np.ndarray, block: np.ndarray, ones: np.ndarray) -> np.ndarray:
    """Each block's (low, high) of kept counts widened to the counts ``ones`` of the tables asking (``block``)."""
    low, high = kept[0].copy(), kept[1].copy()
    np.minimum.at(low, block, ones)
    np.maximum.at(high, block, ones)
    return np.stack([low, high])


def _in_range(box: np.ndarray, counts: int) -> np.ndarray:
    """(blocks, counts): whether each count lies in each block's (low, high)."""
    count = np.arange(counts)[None, :]
    return (count >= box[0][:, None]) & (count <= box[1][:, None])
