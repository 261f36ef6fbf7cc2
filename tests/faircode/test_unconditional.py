"""Exact unconditional intervals and tests (faircode._unconditional): brute force, scipy's Boschloo,
exact coverage and size, against references no one here wrote. The engine is faircode's default
interval on small groups (tests/faircode/test_exact_defaults.py); published values are checked in
tests/faircode/test_published_values.py."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import binom, boschloo_exact, hypergeom

from faircode import _intervals, _tails, _unconditional
from faircode.significance import permutation_test

N_A, N_B = 4, 6


def brute_force_tails(n_a, n_b, delta, ones_a, ones_b, step=_unconditional.NUISANCE_STEP):
    """One table's one-sided p-values at delta, by a plain loop over the nuisance grid, every table summed."""
    x, y = (v.ravel() for v in np.meshgrid(np.arange(n_a + 1), np.arange(n_b + 1), indexing="ij"))
    z = np.round(_intervals.difference_score(x, n_a, y, n_b, delta, correction=False), 9)
    z_obs = z[ones_a * (n_b + 1) + ones_b]
    low_a, high_a = _unconditional._clopper_pearson(np.array([ones_a]), n_a, _unconditional.GAMMA / 2)
    low_b, high_b = _unconditional._clopper_pearson(np.array([ones_b]), n_b, _unconditional.GAMMA / 2)
    allowed_low = max(low_b[0] - step, low_a[0] - step - delta)
    allowed_high = min(high_b[0] + step, high_a[0] + step - delta)
    start, stop = max(0.0, -delta), min(1.0, 1.0 - delta)
    points = max(2, math.ceil((stop - start) / step) + 1)
    best_upper = best_lower = 0.0
    for rate_b in np.linspace(start, stop, points):
        if not allowed_low <= rate_b <= allowed_high:
            continue
        mass = binom.pmf(x, n_a, min(max(rate_b + delta, 0.0), 1.0)) * binom.pmf(y, n_b, rate_b)
        best_upper = max(best_upper, float(mass[z >= z_obs].sum()))
        best_lower = max(best_lower, float(mass[z <= z_obs].sum()))
    gamma = _unconditional.GAMMA
    return min(best_upper + gamma, 1.0), min(best_lower + gamma, 1.0)


@pytest.mark.parametrize("delta", [-0.5, -0.12, 0.0, 0.3, 0.77])
def test_one_sided_p_values_agree_with_brute_force_loops(delta):
    upper, lower = _unconditional.difference_tails(N_A, N_B, delta)
    for x, y in [(0, 0), (1, 5), (2, 3), (4, 0), (4, 6), (3, 1)]:
        expected = brute_force_tails(N_A, N_B, delta, x, y, step=_unconditional.TEST_NUISANCE_STEP)
        for ours, exact in zip((upper[x, y], lower[x, y]), expected):  # never below; above by the allowance at most
            assert exact - 1e-13 <= ours <= exact + 4 * _tails.NEGLIGIBLE + 1e-13


def test_each_interval_end_is_rejected_and_the_next_grid_point_inwards_is_not():
    lows, highs = _unconditional.difference_intervals(N_A, N_B, 0.95)
    step = _unconditional.DIFFERENCE_STEP
    for x in range(N_A + 1):
        for y in range(N_B + 1):
            low, high = float(lows[x, y]), float(highs[x, y])
            assert low <= x / N_A - y / N_B <= high
            if low > -1:
                assert min(brute_force_tails(N_A, N_B, low, x, y)) <= 0.025
            if high < 1:
                assert min(brute_force_tails(N_A, N_B, high, x, y)) <= 0.025
            assert min(brute_force_tails(N_A, N_B, round(low + step, 12), x, y)) > 0.025 or high - low <= 2 * step


def exact_coverage(lows, highs, n_a, n_b, rate_a, rate_b, truth):
    mass_a, mass_b = binom.pmf(np.arange(n_a + 1), n_a, rate_a), binom.pmf(np.arange(n_b + 1), n_b, rate_b)
    return float(mass_a @ ((lows <= truth + 1e-12) & (highs >= truth - 1e-12)) @ mass_b)


@pytest.mark.parametrize("n_a, n_b", [(5, 5), (5, 20), (20, 8)])
def test_exact_coverage_of_the_gap_and_ratio_intervals_is_at_least_nominal(n_a, n_b):
    rates = (0.01, 0.1, 0.5, 0.9, 0.99)
    gap = _unconditional.difference_intervals(n_a, n_b, 0.95)
    ratio = _unconditional.ratio_intervals(n_a, n_b, 0.95)
    worst_gap = min(exact_coverage(*gap, n_a, n_b, r_a, r_b, r_a - r_b) for r_a in rates for r_b in rates)
    worst_ratio = min(exact_coverage(*ratio, n_a, n_b, r_a, r_b, r_a / r_b) for r_a in rates for r_b in rates)
    assert worst_gap >= 0.95
    assert worst_ratio >= 0.95
    # Agresti-Caffo falls short at the same cells (91.8% at 5 vs 5, rates 0.90 and 0.01)
    x, y = np.meshgrid(np.arange(n_a + 1), np.arange(n_b + 1), indexing="ij")
    caffo = _intervals.agresti_caffo(x, n_a, y, n_b, 0.95)
    assert min(exact_coverage(*caffo, n_a, n_b, r_a, r_b, r_a - r_b) for r_a in rates for r_b in rates) < 0.95


def test_the_ratio_with_no_ones_in_the_denominator_group_has_an_infinite_upper_end():
    lows, highs = _unconditional.ratio_intervals(12, 9, 0.95)
    assert np.isinf(highs[:, 0]).all()
    assert not np.isnan(lows).any() and not np.isnan(highs).any()
    assert (lows[0, :] == 0).all()
    assert 0 < lows[6, 3] < 2 < highs[6, 3] < np.inf


def test_exact_tost_has_size_at_most_alpha_at_the_margin():
    n_a, n_b, margin = 15, 25, 0.2
    p = np.maximum(_unconditional.difference_tails(n_a, n_b, -margin)[0],
                   _unconditional.difference_tails(n_a, n_b, margin)[1])
    for rate_b in (0.03, 0.23, 0.5, 0.75):
        for rate_a in (rate_b + margin, rate_b - margin):
            if 0 < rate_a < 1:
                mass_a, mass_b = binom.pmf(np.arange(n_a + 1), n_a, rate_a), binom.pmf(np.arange(n_b + 1), n_b, rate_b)
                assert float(mass_a @ (p < 0.05) @ mass_b) <= 0.05


BOSCHLOO_TABLES = [(12, 30, 5, 30), (3, 10, 8, 12), (0, 7, 4, 9), (20, 25, 11, 25)]


@pytest.mark.parametrize("table", BOSCHLOO_TABLES)
def test_the_unconditional_engine_gives_scipys_one_sided_boschloo(table):
    ones_a, n_a, ones_b, n_b = table
    tables = _unconditional._tables(n_a, n_b)
    x, y = tables.ones_a, tables.ones_b
    # scipy's "greater" (group a's rate above b's): Fisher's p P(X_a >= x | margins) as the statistic
    fisher = hypergeom.sf(x - 1, n_a + n_b, x + y, n_a)
    ours = _unconditional._unconditional_from_statistic(tables, -np.log(fisher), 2001)
    reference = boschloo_exact([[ones_a, ones_b], [n_a - ones_a, n_b - ones_b]], alternative="greater").pvalue
    assert ours[ones_a * (n_b + 1) + ones_b] == pytest.approx(reference, rel=1e-4)


@pytest.mark.parametrize("table", BOSCHLOO_TABLES)
def test_two_sided_boschloo_agrees_with_a_brute_force_supremum(table):
    """The two-sided test orders tables by the conditional two-sided p-value (scipy doubles the smaller one-sided p)."""
    ones_a, n_a, ones_b, n_b = table
    a, b = [1] * ones_a + [0] * (n_a - ones_a), [1] * ones_b + [0] * (n_b - ones_b)
    ours = float(_unconditional.boschloo_p_values(n_a, n_b)[ones_a, ones_b])
    observed = permutation_test(a, b)
    extreme = [(x, y) for x in range(n_a + 1) for y in range(n_b + 1)
               if permutation_test([1] * x + [0] * (n_a - x), [1] * y + [0] * (n_b - y)) <= observed * (1 + 1e-9)]
    xs, ys = np.array(extreme).T
    brute = max(float(np.sum(binom.pmf(xs, n_a, p) * binom.pmf(ys, n_b, p))) for p in np.linspace(0, 1, 2001))
    assert ours == pytest.approx(brute, rel=2e-3)
    assert ours <= observed + 1e-12  # never above the conditional p-value here
    if n_a == n_b:  # balanced: both conventions order the tables alike
        reference = boschloo_exact([[ones_a, ones_b], [n_a - ones_a, n_b - ones_b]]).pvalue
        assert ours == pytest.approx(reference, rel=2e-3)


@pytest.mark.parametrize("family_name, n_a, n_b", [("difference", 7, 9), ("difference", 12, 12), ("ratio", 8, 8)])
def test_the_grids_reflection_gives_the_intervals_that_testing_every_point_gives(family_name, n_a, n_b):
    """The engine computes half the grid and reflects it; testing every point must give the same ends."""
    tables = _unconditional._tables(n_a, n_b)
    if family_name == "difference":
        family, mirror = _unconditional._difference_family(), np.arange(tables.ones_a.size)[::-1]
    else:
        family = _unconditional._ratio_family()
        mirror = np.arange(tables.ones_a.size).reshape(n_a + 1, n_b + 1).T.ravel()
    reflected = _unconditional._interval_indexes(tables, family, 0.95, mirror)
    every_point = _unconditional._interval_indexes(tables, family, 0.95, None)
    assert all((r == e).all() for r, e in zip(reflected, every_point))


def test_tails_computed_in_blocks_of_nuisance_values_equal_those_computed_at_once(monkeypatch):
    tables = _unconditional._tables(30, 20)
    family = _unconditional._difference_family()
    monkeypatch.setattr(_tails, "DIRECT_CELLS", 0)  # blocks and boxes even at this size (else summed directly)
    at_once = _unconditional.one_sided_tails(tables, family, 0.2)
    monkeypatch.setattr(_tails, "CELLS_AT_ONCE", 700)  # 700 cells: one block of nuisance values at a time
    in_blocks = _unconditional.one_sided_tails(tables, family, 0.2)
    assert np.allclose(at_once[0], in_blocks[0], rtol=0, atol=1e-13)
    assert np.allclose(at_once[1], in_blocks[1], rtol=0, atol=1e-13)
