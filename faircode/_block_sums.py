"""The compiled loop of the exact engine's tails (:func:`faircode._tails.largest_tails`, by blocks).

A module of its own so that numba is imported only when a pair of groups is large enough
for the tails to be summed by blocks. The compiled code is cached beside this file (numba's
``cache=True``): the first call on a machine compiles it, in about 4 s; later processes load it.
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True, nogil=True)
def widened_boxes(first, stop, ones_a, ones_b, kept_a, kept_b, width):
    """Each block's box, and whether any table asks about it.

    The box, shape (4, blocks): the low and high counts of group a, then of group b, that a
    block sums, which are its kept counts (``kept_a[:, block]``, ``kept_b[:, block]``) widened
    to the counts of every table asking about the block (``first // width`` to
    ``(stop - 1) // width``), so that those tables have a place in its sums.
    """
    count = kept_a.shape[1]
    box = np.empty((4, count), dtype=np.int64)
    box[0], box[1], box[2], box[3] = kept_a[0], kept_a[1], kept_b[0], kept_b[1]
    asked = np.zeros(count, dtype=np.bool_)
    for table in range(first.size):
        if first[table] < stop[table]:
            for block in range(first[table] // width, (stop[table] - 1) // width + 1):
                asked[block] = True
                box[0, block], box[1, block] = min(box[0, block], ones_a[table]), max(box[1, block], ones_a[table])
                box[2, block], box[3, block] = min(box[2, block], ones_b[table]), max(box[3, block], ones_b[table])
    return box, asked


@numba.njit(cache=True, nogil=True)
def block_sums(order, z, ones_a, ones_b, first, stop, rows_a, rows_b, counts_a, counts_b, box, asked,
               per_group, upper, lower):
    """Raise ``upper`` and ``lower`` to the largest tails of each table under every block.

    A block sums the tables of its box (from :func:`widened_boxes`); they are taken in
    the order of their statistic (``order``) and their masses under the block's columns
    added to running sums, a tie at a time; a table that asks about the block reads
    P(Z < z) before its tie and P(Z <= z) after it, less the sums before the block. The
    running sums go on from block to block and start again from 0 every ``per_group``
    blocks. Those are the additions, in their order, of the numpy form this loop replaced (one
    cumulative sum over the boxes of a group of blocks laid end to end), so every interval is
    the same to the last bit as before.

    Written as a compiled loop because in numpy the same sums take some fifteen passes over
    the cells and readings, and no library sums the tails of a sorted statistic under many
    columns. It is one function on purpose: split into compiled helpers for the box test, a
    tie's sums and a tie's readings, the first ratio intervals of 100 v 99 took 1.1 s instead
    of 0.5 s.
    """
    width = rows_a.shape[1]
    tables, count = z.size, asked.size
    running = np.zeros(width)
    before_block = np.empty(width)
    before_tie = np.empty(width)
    for block in range(count):
        if block % per_group == 0:
            running[:] = 0.0
        if not asked[block]:
            continue
        before_block[:] = running
        low_a, high_a, low_b, high_b = box[0, block], box[1, block], box[2, block], box[3, block]
        column_0 = block * width
        position = 0
        while position < tables:
            table = order[position]
            if not (low_a <= ones_a[table] <= high_a and low_b <= ones_b[table] <= high_b):
                position += 1
                continue
            before_tie[:] = running  # a tie: the boxed tables from here with this statistic
            tie_end = position
            while tie_end < tables and z[order[tie_end]] == z[table]:
                a, b = ones_a[order[tie_end]], ones_b[order[tie_end]]
                if low_a <= a <= high_a and low_b <= b <= high_b:
                    row_a, row_b = block * counts_a + a, block * counts_b + b
                    for column in range(width):
                        running[column] += rows_a[row_a, column] * rows_b[row_b, column]
                tie_end += 1
            for reader in order[position:tie_end]:
                if not (low_a <= ones_a[reader] <= high_a and low_b <= ones_b[reader] <= high_b):
                    continue
                if not first[reader] // width <= block <= (stop[reader] - 1) // width or first[reader] >= stop[reader]:
                    continue
                smallest_below, largest_at_most = 1.0, 0.0
                for column in range(width):
                    if first[reader] <= column_0 + column < stop[reader]:
                        smallest_below = min(smallest_below, before_tie[column] - before_block[column])
                        largest_at_most = max(largest_at_most, running[column] - before_block[column])
                upper[reader] = max(upper[reader], 1.0 - smallest_below)
                lower[reader] = max(lower[reader], largest_at_most)
            position = tie_end
