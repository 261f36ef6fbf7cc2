"""The tail pass of the exact engine (faircode._tails) against direct enumeration of every table.

The brute force sums each table's probability under each column with scipy's binomial pmf,
with no sorting, blocks or boxes; the pass must give each largest tail at least the exact one
and at most the documented allowance above it.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import binom

from faircode import _block_sums, _tails

ALLOWANCE = 4 * _tails.NEGLIGIBLE + 1e-13  # the left-out mass, plus rounding of sums of up to 1


def _brute_force(z, ones_a, ones_b, n_a, n_b, rates_a, rates_b, first, stop):
    upper, lower = np.zeros(z.size), np.zeros(z.size)
    for column, (rate_a, rate_b) in enumerate(zip(rates_a, rates_b)):
        mass = binom.pmf(ones_a, n_a, rate_a) * binom.pmf(ones_b, n_b, rate_b)
        for table in np.flatnonzero((first <= column) & (column < stop)):
            upper[table] = max(upper[table], mass[z >= z[table]].sum())
            lower[table] = max(lower[table], mass[z <= z[table]].sum())
    return upper, lower


def _case(n_a, n_b, columns, seed, narrow, span=1.0):
    """Every table of the two sizes, a statistic with many ties, random rates (of group b within
    ``span`` above 0.1, or anywhere) and random ranges of columns."""
    rng = np.random.default_rng(seed)
    ones_a, ones_b = (v.ravel() for v in np.meshgrid(np.arange(n_a + 1), np.arange(n_b + 1), indexing="ij"))
    z = np.round(ones_a / n_a - ones_b / n_b + rng.normal(0, 0.05, ones_a.size), 1)  # ties
    rates_b = np.sort(rng.uniform(0.1, 0.1 + span, columns) if span < 0.7 else rng.uniform(0, 1, columns))
    rates_a = np.clip(rates_b + (rng.uniform(-0.2, 0.2, columns) if span >= 0.7 else 0.1), 0, 1)
    if narrow:  # each table asks about the columns near its own rates, as the tests' confidence sets do
        centre = np.minimum(np.searchsorted(rates_b, ones_b / n_b), columns - 1)
        near = (np.abs(rates_b[centre] - ones_b / n_b) < 0.1) & (np.abs(rates_a[centre] - ones_a / n_a) < 0.1)
        first, stop = np.maximum(centre - 2, 0), np.where(near, np.minimum(centre + 2, columns), 0)
    else:
        first = rng.integers(0, columns, ones_a.size)
        stop = first + rng.integers(0, columns + 1, ones_a.size)  # some empty, some past the last column
        stop = np.minimum(stop, columns)
    return z, ones_a, ones_b, rates_a, rates_b, first, stop


@pytest.mark.parametrize(("n_a", "n_b", "columns", "narrow", "span"),
                         [(1, 1, 1, False, 1.0), (7, 5, 3, False, 1.0), (12, 12, 23, False, 1.0),
                          (30, 9, 17, True, 1.0), (80, 60, 21, True, 0.05), (80, 60, 21, False, 0.05)])
@pytest.mark.parametrize("boxes", [True, False])
def test_largest_tails_are_the_exact_ones_within_the_allowance(n_a, n_b, columns, narrow, span, boxes, monkeypatch):
    monkeypatch.setattr(_tails, "DIRECT_CELLS", 0 if boxes else 10**9)  # blocks and boxes, or every table at once
    z, ones_a, ones_b, rates_a, rates_b, first, stop = _case(n_a, n_b, columns, n_a + columns, narrow, span)
    upper, lower = _tails.largest_tails(z, ones_a, ones_b, _tails.binomial_masses(n_a, rates_a),
                                        _tails.binomial_masses(n_b, rates_b), first, stop)
    exact_upper, exact_lower = _brute_force(z, ones_a, ones_b, n_a, n_b, rates_a, rates_b, first, stop)
    for ours, exact in ((upper, exact_upper), (lower, exact_lower)):
        assert (ours >= exact - 1e-13).all()
        assert (ours <= exact + ALLOWANCE).all()
    empty = first >= stop
    assert (~empty).any() and (narrow or empty.any())
    assert (upper[empty] == 0).all() and (lower[empty] == 0).all()


def test_boxes_leave_tables_out_when_groups_are_large():
    """At 80 v 60 with rates close together and narrow ranges (the case of the brute-force test
    above), the blocks really sum fewer tables than there are, so the allowance is exercised."""
    z, ones_a, ones_b, rates_a, rates_b, first, stop = _case(80, 60, 21, 101, narrow=True, span=0.05)
    blocks = _tails._Blocks(_tails.binomial_masses(80, rates_a), _tails.binomial_masses(60, rates_b),
                            _tails.BLOCK_COLUMNS)
    box, asked = _block_sums.widened_boxes(first, stop, ones_a, ones_b, blocks.kept_a, blocks.kept_b, blocks.width)
    summed = [((box[0, k] <= ones_a) & (ones_a <= box[1, k]) & (box[2, k] <= ones_b) & (ones_b <= box[3, k])).sum()
              for k in np.flatnonzero(asked)]
    assert 0 < max(summed) < z.size / 2


def test_groups_of_blocks_do_not_change_the_tails(monkeypatch):
    z, ones_a, ones_b, rates_a, rates_b, first, stop = _case(30, 20, 40, seed=3, narrow=False)
    masses = _tails.binomial_masses(30, rates_a), _tails.binomial_masses(20, rates_b)
    together = _tails.largest_tails(z, ones_a, ones_b, *masses, first, stop)  # every table at once (small)
    monkeypatch.setattr(_tails, "DIRECT_CELLS", 0)
    monkeypatch.setattr(_tails, "CELLS_AT_ONCE", 1)  # one block at a time
    apart = _tails.largest_tails(z, ones_a, ones_b, *masses, first, stop)
    for a, b in zip(together, apart):
        assert np.allclose(a, b, rtol=0, atol=1e-13)
