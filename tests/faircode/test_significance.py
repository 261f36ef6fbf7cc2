"""faircode.significance against references written elsewhere: scipy.stats and statsmodels."""

from __future__ import annotations

import math
from fractions import Fraction
from itertools import product

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import confint_proportions_2indep

from faircode import _checks, _monte_carlo, _unconditional
from faircode._report import COUNT_OUT_OF_RANGE
from faircode.exceptions import InvalidInputError
from faircode.significance import (
    EXACT_NEEDS_BINARY,
    NO_EXACT_STRATIFIED_INTERVAL,
    NO_STRATA,
    P_OUT_OF_RANGE,
    SCORE_NEEDS_BINARY,
    SignificanceReport,
    adjust_p_values,
    bootstrap_ci,
    format_p,
    permutation_test,
    significance_report,
    significance_report_from_counts,
    stratified_bootstrap_ci,
    stratified_permutation_test,
    stratified_report_from_counts,
)


def zeros_and_ones(ones: int, n: int) -> np.ndarray:
    return np.r_[np.ones(ones), np.zeros(n - ones)]


def brute_force_p(ones_a: int, n_a: int, ones_b: int, n_b: int) -> float:
    """Sum scipy's hypergeometric pmf over every count at least as extreme (in fractions)."""
    n, k = n_a + n_b, ones_a + ones_b
    def gap(x): return abs(Fraction(x, n_a) - Fraction(k - x, n_b))
    support = np.arange(max(0, k - n_b), min(k, n_a) + 1)
    extreme = np.array([gap(int(x)) >= gap(ones_a) for x in support])
    return float(stats.hypergeom.pmf(support[extreme], n, k, n_a).sum())


def random_count_cases(count: int, max_rows: int, seed: int):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        n_a, n_b = rng.integers(1, max_rows, size=2)
        rate_a, rate_b = rng.random(2)
        yield int(rng.binomial(n_a, rate_a)), int(n_a), int(rng.binomial(n_b, rate_b)), int(n_b)


# --- exact permutation p ------------------------------------------------------------


@pytest.mark.parametrize("case", list(random_count_cases(150, 400, seed=1)))
def test_exact_p_equals_brute_force_hypergeometric_sum(case):
    ones_a, n_a, ones_b, n_b = case
    p = permutation_test(zeros_and_ones(ones_a, n_a), zeros_and_ones(ones_b, n_b), method="exact")
    expected = brute_force_p(*case)
    assert p == pytest.approx(expected, rel=1e-9, abs=1e-300)


@pytest.mark.parametrize(
    "case, below",
    [((127, 2153, 475, 4360), 1e-10), ((3, 69, 20, 131), 0.05), ((5500, 10661, 4400, 9238), 1e-7)],
)
def test_exact_p_at_audit_sizes_equals_brute_force(case, below):
    ones_a, n_a, ones_b, n_b = case
    p = permutation_test(zeros_and_ones(ones_a, n_a), zeros_and_ones(ones_b, n_b))
    assert p == pytest.approx(brute_force_p(*case), rel=1e-9)
    assert 0 < p < below  # tiny p-values are resolved, not rounded to 0


def test_exact_p_equals_scipy_full_enumeration_of_relabellings():
    a, b = zeros_and_ones(4, 7), zeros_and_ones(1, 8)
    scipy_result = stats.permutation_test(
        (a, b),
        lambda x, y, axis: np.abs(x.mean(axis=axis) - y.mean(axis=axis)),
        permutation_type="independent",
        alternative="greater",
        n_resamples=np.inf,
        vectorized=True,
    )
    assert permutation_test(a, b, method="exact") == pytest.approx(scipy_result.pvalue, rel=1e-9)


def test_exact_p_of_a_tie_counts_the_tie():
    # gap 1/2 - 1/2 = 0 can only tie; a gap whose mirror image is a tie counts both tails
    assert permutation_test([1, 0], [1, 0], method="exact") == 1.0
    p = permutation_test([1, 1], [0, 0], method="exact")
    assert p == pytest.approx(2 / 6)


# --- Monte Carlo p ------------------------------------------------------------------


@pytest.mark.parametrize("case", [(127, 2153, 475, 4360), (10, 69, 30, 131), (40, 100, 52, 100)])
def test_monte_carlo_p_within_four_standard_errors_of_exact(case):
    a, b = zeros_and_ones(*case[:2]), zeros_and_ones(*case[2:])
    exact = permutation_test(a, b, method="exact")
    n = 20_000
    estimate = permutation_test(a, b, n_permutations=n, method="monte_carlo", random_state=7)
    standard_error = math.sqrt(max(exact * (1 - exact), 1 / n) / n)
    assert abs(estimate - exact) <= 4 * standard_error


def test_monte_carlo_p_on_real_valued_data_agrees_with_scipy():
    rng = np.random.default_rng(3)
    a, b = rng.normal(0.0, 1.0, 60), rng.normal(0.35, 1.3, 45)
    n = 9_999
    ours = permutation_test(a, b, n_permutations=n, random_state=1)
    reference = stats.permutation_test(
        (a, b),
        lambda x, y, axis: np.abs(x.mean(axis=axis) - y.mean(axis=axis)),
        permutation_type="independent",
        alternative="greater",
        n_resamples=n,
        vectorized=True,
        rng=np.random.default_rng(2),
    ).pvalue
    standard_error = math.sqrt(2 * reference * (1 - reference) / n)
    assert abs(ours - reference) <= 4 * standard_error


def test_monte_carlo_p_counts_the_observed_labelling_and_is_never_zero():
    a, b = zeros_and_ones(0, 500), zeros_and_ones(500, 500)
    p = permutation_test(a, b, n_permutations=2000, method="monte_carlo", random_state=0)
    assert p == 1 / 2001  # no relabelling reaches the gap: (0 + 1) / (2000 + 1)
    assert format_p(p, 2000) == "p < 0.0005"
    assert format_p(2 / 2001, 2000) == "p = 0.001"


def test_monte_carlo_p_is_hits_plus_one_over_n_plus_one():
    a, b = zeros_and_ones(12, 30), zeros_and_ones(5, 30)
    n = 999
    p = permutation_test(a, b, n_permutations=n, method="monte_carlo", random_state=3)
    # the same relabellings drawn by hand from the same stream
    drawn = np.random.default_rng(3).hypergeometric(17, 43, 30, size=n)
    hits = np.count_nonzero(np.abs(drawn * 60 - 17 * 30) >= abs(12 * 60 - 17 * 30))
    assert p == (hits + 1) / (n + 1)


def test_monte_carlo_p_values_keep_holm_family_wise_error_at_alpha():
    # ten true nulls on continuous data, 49 relabellings each: a p of hits / n would be 0 in
    # about 1 test in 50, and Holm always rejects a 0, so the family-wise error would be
    # near 18%; (hits + 1) / (n + 1) is at least 0.02 and keeps it at or below alpha
    rng = np.random.default_rng(11)
    n_audits, n_tests, n_permutations = 300, 10, 49
    rejected = 0
    for _ in range(n_audits):
        p = [permutation_test(rng.normal(size=10), rng.normal(size=10), n_permutations=n_permutations,
                              random_state=rng) for _ in range(n_tests)]
        assert min(p) >= 1 / (n_permutations + 1)
        rejected += bool(np.any(adjust_p_values(p, method="holm") < 0.05))
    assert rejected / n_audits <= 0.05


def test_monte_carlo_p_is_reproducible_with_an_int_seed_and_streams_with_a_generator():
    a, b = zeros_and_ones(30, 80), zeros_and_ones(40, 90)
    first = permutation_test(a, b, method="monte_carlo", random_state=5)
    assert permutation_test(a, b, method="monte_carlo", random_state=5) == first
    rng = np.random.default_rng(5)
    assert permutation_test(a, b, method="monte_carlo", random_state=rng) == first
    values = {permutation_test(a, b, n_permutations=50, method="monte_carlo", random_state=rng) for _ in range(20)}
    assert len(values) > 1


# --- bootstrap intervals ------------------------------------------------------------


def brute_force_bootstrap_quantile(ones_a, n_a, ones_b, n_b, level):
    """Smallest gap whose cumulative probability reaches ``level``, from every (i, j) pair."""
    outcomes = {}
    for i, j in product(range(n_a + 1), range(n_b + 1)):
        mass = stats.binom.pmf(i, n_a, ones_a / n_a) * stats.binom.pmf(j, n_b, ones_b / n_b)
        key = Fraction(i, n_a) - Fraction(j, n_b)
        outcomes[key] = outcomes.get(key, 0.0) + mass
    cumulative = 0.0
    for gap in sorted(outcomes):
        cumulative += outcomes[gap]
        if cumulative >= level - 1e-12:
            return float(gap)
    raise AssertionError("the masses do not sum to one")


@pytest.mark.parametrize("case", [(2, 5, 5, 7), (1, 9, 4, 6), (6, 12, 3, 11), (0, 8, 3, 10)])
def test_exact_bootstrap_equals_brute_force_enumeration(case):
    a, b = zeros_and_ones(*case[:2]), zeros_and_ones(*case[2:])
    low, high = bootstrap_ci(a, b, confidence=0.9, method="exact")
    assert low == pytest.approx(brute_force_bootstrap_quantile(*case, 0.05), abs=1e-12)
    assert high == pytest.approx(brute_force_bootstrap_quantile(*case, 0.95), abs=1e-12)


@pytest.mark.parametrize("case", [(127, 2153, 475, 4360), (10, 69, 30, 131)])
def test_monte_carlo_bootstrap_within_monte_carlo_error_of_exact(case):
    ones_a, n_a, ones_b, n_b = case
    a, b = zeros_and_ones(ones_a, n_a), zeros_and_ones(ones_b, n_b)
    exact = bootstrap_ci(a, b, method="exact")
    n = 20_000
    estimate = bootstrap_ci(a, b, n_resamples=n, random_state=11)
    sd = math.sqrt(sum(k / m * (1 - k / m) / m for k, m in ((ones_a, n_a), (ones_b, n_b))))
    # standard error of a sample quantile: sqrt(q (1 - q) / n) / density at the quantile
    quantile_se = math.sqrt(0.025 * 0.975 / n) / (stats.norm.pdf(1.96) / sd)
    lattice = 1 / min(n_a, n_b)
    for ours, reference in zip(estimate, exact):
        assert abs(ours - reference) <= 4 * quantile_se + lattice


def test_binary_bootstrap_agrees_with_scipy_bootstrap_on_rows():
    a, b = zeros_and_ones(60, 300), zeros_and_ones(110, 400)
    n = 9_999
    reference = stats.bootstrap(
        (a, b),
        lambda x, y, axis: x.mean(axis=axis) - y.mean(axis=axis),
        n_resamples=n,
        method="percentile",
        vectorized=True,
        rng=np.random.default_rng(0),
    ).confidence_interval
    ours = bootstrap_ci(a, b, n_resamples=n, random_state=0)
    sd = math.sqrt(0.2 * 0.8 / 300 + 0.275 * 0.725 / 400)
    tolerance = 2 * 4 * math.sqrt(0.025 * 0.975 / n) / (stats.norm.pdf(1.96) / sd) + 1 / 300
    assert abs(ours[0] - reference.low) <= tolerance
    assert abs(ours[1] - reference.high) <= tolerance


def test_real_valued_bootstrap_agrees_with_scipy_bootstrap():
    rng = np.random.default_rng(4)
    a, b = rng.exponential(1.0, 80), rng.exponential(1.4, 120)
    n = 9_999
    reference = stats.bootstrap(
        (a, b),
        lambda x, y, axis: x.mean(axis=axis) - y.mean(axis=axis),
        n_resamples=n,
        method="percentile",
        vectorized=True,
        rng=np.random.default_rng(1),
    )
    ours = bootstrap_ci(a, b, n_resamples=n, random_state=2)
    tolerance = 8 * math.sqrt(0.025 * 0.975 / n) / stats.norm.pdf(1.96) * reference.standard_error
    assert ours[0] == pytest.approx(reference.confidence_interval.low, abs=tolerance)
    assert ours[1] == pytest.approx(reference.confidence_interval.high, abs=tolerance)


# --- stratified test (equalized odds) ----------------------------------------------


def brute_force_stratified_p(strata):
    """Enumerate every joint relabelling outcome of all strata with scipy's pmf."""
    def gap(x, n_a, n_b, k): return abs(Fraction(x, n_a) - Fraction(k - x, n_b))
    observed = max(gap(oa, na, nb, oa + ob) for oa, na, ob, nb in strata)
    supports = []
    for ones_a, n_a, ones_b, n_b in strata:
        k = ones_a + ones_b
        xs = range(max(0, k - n_b), min(k, n_a) + 1)
        supports.append([(gap(x, n_a, n_b, k), stats.hypergeom.pmf(x, n_a + n_b, k, n_a)) for x in xs])
    total = 0.0
    for combination in product(*supports):
        if max(g for g, _ in combination) >= observed:
            total += math.prod(m for _, m in combination)
    return total


@pytest.mark.parametrize(
    "strata",
    [
        [(7, 12, 3, 15), (2, 20, 6, 18)],
        [(9, 10, 4, 10), (1, 14, 2, 16)],
        [(5, 9, 5, 9), (3, 11, 8, 13)],
        [(0, 6, 6, 6), (4, 8, 4, 8)],
    ],
)
def test_stratified_exact_p_equals_brute_force_enumeration(strata):
    pairs = [(zeros_and_ones(oa, na), zeros_and_ones(ob, nb)) for oa, na, ob, nb in strata]
    assert stratified_permutation_test(pairs, method="exact") == pytest.approx(
        brute_force_stratified_p(strata), rel=1e-9
    )


@pytest.mark.parametrize(
    "strata", [[(30, 80, 20, 90), (15, 120, 9, 100)], [(200, 1900, 160, 966), (800, 1795, 350, 1488)]]
)
def test_stratified_monte_carlo_within_four_standard_errors_of_exact(strata):
    pairs = [(zeros_and_ones(oa, na), zeros_and_ones(ob, nb)) for oa, na, ob, nb in strata]
    exact = stratified_permutation_test(pairs, method="exact")
    n = 20_000
    estimate = stratified_permutation_test(pairs, n_permutations=n, method="monte_carlo", random_state=3)
    assert abs(estimate - exact) <= 4 * math.sqrt(max(exact * (1 - exact), 1 / n) / n)


def test_stratified_real_valued_monte_carlo_reduces_to_the_single_test_on_one_stratum():
    rng = np.random.default_rng(8)
    a, b = rng.normal(0, 1, 40), rng.normal(0.5, 1, 50)
    assert stratified_permutation_test([(a, b)], random_state=4) == permutation_test(a, b, random_state=4)


def test_stratified_bootstrap_of_one_stratum_is_the_plain_bootstrap():
    a, b = zeros_and_ones(40, 100), zeros_and_ones(30, 120)
    assert stratified_bootstrap_ci([(a, b)], random_state=9) == bootstrap_ci(a, b, random_state=9)
    with pytest.raises(InvalidInputError) as error:
        stratified_bootstrap_ci([(a, b)], method="exact")
    assert str(error.value) == NO_EXACT_STRATIFIED_INTERVAL
    with pytest.raises(InvalidInputError) as error:
        stratified_permutation_test([])
    assert str(error.value) == NO_STRATA.format(count=0)


# --- properties ---------------------------------------------------------------------

binary_groups = st.lists(st.integers(0, 1), min_size=1, max_size=60)


@settings(max_examples=150, deadline=None)
@given(binary_groups, binary_groups)
def test_exact_p_is_a_probability_and_swapping_groups_keeps_it(a, b):
    p = permutation_test(a, b)
    assert 0.0 <= p <= 1.0
    assert permutation_test(b, a) == pytest.approx(p, rel=1e-12)


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 30), st.integers(0, 30), st.integers(1, 5))
def test_p_is_one_when_the_gap_is_zero(n, ones, scale):
    ones = min(ones, n)
    a, b = zeros_and_ones(ones, n), zeros_and_ones(ones * scale, n * scale)
    assert permutation_test(a, b) == 1.0
    assert permutation_test(a, b, method="monte_carlo", random_state=0) == 1.0


@settings(max_examples=60, deadline=None)
@given(binary_groups, binary_groups, st.integers(0, 2**32 - 1))
def test_swapping_groups_flips_the_gap_and_mirrors_the_interval(a, b, seed):
    for ci_method in ("bootstrap_exact", "agresti_caffo", "newcombe", "miettinen_nurminen"):
        forward = significance_report(a, b, random_state=seed, ci_method=ci_method)
        backward = significance_report(b, a, random_state=seed, ci_method=ci_method)
        assert backward.gap == pytest.approx(-forward.gap, abs=1e-12)
        assert (backward.ci_low, backward.ci_high) == pytest.approx((-forward.ci_high, -forward.ci_low), abs=1e-9)
        assert backward.ci_method == forward.ci_method == ci_method
    forward = significance_report(a, b, random_state=seed)
    backward = significance_report(b, a, random_state=seed)
    assert backward.gap == pytest.approx(-forward.gap, abs=1e-12)
    assert backward.p_value == pytest.approx(forward.p_value, rel=1e-12)
    assert (backward.ci_low, backward.ci_high) == pytest.approx((-forward.ci_high, -forward.ci_low), abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(-100, 100, allow_nan=False), min_size=2, max_size=30),
    st.lists(st.floats(-100, 100, allow_nan=False), min_size=2, max_size=30),
)
def test_monte_carlo_p_on_real_data_is_a_probability(a, b):
    p = permutation_test(a, b, n_permutations=200, random_state=0)
    assert 0.0 <= p <= 1.0


# --- the report ---------------------------------------------------------------------


def test_significance_report_fields_match_the_separate_calls():
    a, b = zeros_and_ones(127, 2153), zeros_and_ones(475, 4360)
    report = significance_report(a, b)
    assert isinstance(report, SignificanceReport)
    assert report.gap == pytest.approx(127 / 2153 - 475 / 4360)
    assert report.p_value == permutation_test(a, b)
    assert report.ci_method == "agresti_caffo"
    expected = confint_proportions_2indep(127, 2153, 475, 4360, method="agresti-caffo")
    assert (report.ci_low, report.ci_high) == pytest.approx(expected, rel=1e-12)
    bootstrapped = significance_report(a, b, ci_method="bootstrap")
    assert (bootstrapped.ci_low, bootstrapped.ci_high) == bootstrap_ci(a, b, random_state=42)
    assert bootstrapped.ci_method == "bootstrap"
    assert report.significant and report.n_permutations is None
    assert (report.n_a, report.n_b) == (2153, 4360)
    assert report.small_sample_warning is False
    pooled = (127 + 475) / (2153 + 4360)
    assert report.mdg_rate == pooled
    assert report.minimum_detectable_gap == pytest.approx(
        2.8016 * math.sqrt(pooled * (1 - pooled) * (1 / 2153 + 1 / 4360)), rel=1e-4)
    assert set(report.to_dict()) == {
        "gap", "ci_low", "ci_high", "p_value", "significant", "n_a", "n_b",
        "small_sample_warning", "minimum_detectable_gap", "n_permutations", "ci_method", "mdg_rate", "note",
        "equivalence",
    }


def test_significance_report_warns_on_a_group_under_30_rows_and_uses_monte_carlo_when_asked():
    report = significance_report([1, 0, 1] * 9, [0, 0, 1] * 20, method="monte_carlo")
    assert report.small_sample_warning
    assert report.n_permutations == 2000
    hits = report.p_value * 2001 - 1
    assert hits == pytest.approx(round(hits), abs=1e-9)


def test_significance_report_on_real_valued_data_is_monte_carlo():
    rng = np.random.default_rng(0)
    a, b = rng.normal(0, 1, 100), rng.normal(1, 1, 100)
    report = significance_report(a, b, n_permutations=500)
    assert report.n_permutations == 500 and report.p_value == 1 / 501 and report.significant
    assert report.ci_method == "bootstrap" and report.mdg_rate == 0.5
    assert report.ci_low < report.gap < report.ci_high


def test_report_from_counts_equals_report_from_rows():
    a, b = zeros_and_ones(20, 69), zeros_and_ones(58, 131)
    assert significance_report_from_counts(20, 69, 58, 131) == significance_report(a, b)
    with pytest.raises(InvalidInputError) as error:
        significance_report_from_counts(70, 69, 58, 131)
    assert str(error.value) == COUNT_OUT_OF_RANGE.format(group="a", n=69, ones=70)


@pytest.mark.parametrize("container", [list, np.asarray, pd.Series])
def test_inputs_as_list_array_or_series_give_the_same_answer(container):
    a, b = [1, 0, 0, 1, 1, 0, 1], [0, 0, 1, 0, 0, 0]
    reference = significance_report(np.array(a), np.array(b))
    assert significance_report(container(a), container(b)) == reference
    series = pd.Series(a, index=list("abcdefg"))
    assert permutation_test(series, container(b)) == reference.p_value


# --- validation ---------------------------------------------------------------------


def test_nan_is_refused_naming_the_argument():
    with pytest.raises(InvalidInputError) as error:
        permutation_test([1, 0, np.nan, np.nan], [0, 1])
    assert str(error.value) == _checks.HAS_NAN.format(name="a", count=2, position=2)
    assert isinstance(error.value, ValueError)


def test_empty_group_is_refused():
    with pytest.raises(InvalidInputError) as error:
        bootstrap_ci([1, 0], [])
    assert str(error.value) == _checks.EMPTY_ARRAY.format(name="b")


def test_exact_on_real_valued_data_is_refused():
    with pytest.raises(InvalidInputError) as error:
        permutation_test([0, 1], [0.5, 1], method="exact")
    assert str(error.value) == EXACT_NEEDS_BINARY.format(name="b", method="exact")


@pytest.mark.parametrize(
    "call, expected",
    [
        (lambda: permutation_test([1], [0], method="fast"),
         _checks.NOT_ONE_OF.format(name="method", allowed="'auto', 'exact', 'monte_carlo', 'boschloo'", value="fast")),
        (lambda: permutation_test([1], [0], n_permutations=0),
         _checks.NOT_POSITIVE_INT.format(name="n_permutations", value=0)),
        (lambda: bootstrap_ci([1], [0], confidence=95),
         _checks.NOT_IN_OPEN_UNIT.format(name="confidence", value=95)),
        (lambda: significance_report([1], [0], alpha=0),
         _checks.NOT_IN_OPEN_UNIT.format(name="alpha", value=0)),
        (lambda: permutation_test([1], [0], method="monte_carlo", random_state="seed"),
         _checks.BAD_RANDOM_STATE.format(value="seed")),
        (lambda: permutation_test([[1, 0]], [0]),
         _checks.NOT_ONE_DIMENSIONAL.format(name="a", shape=(1, 2))),
        (lambda: permutation_test(["yes", "no"], [0]),
         _checks.NOT_NUMERIC.format(name="a", dtype="<U3")),
        (lambda: adjust_p_values([0.1, 1.5]), P_OUT_OF_RANGE.format(value=1.5, position=1)),
        (lambda: adjust_p_values([0.1], method="bonferroni"),
         _checks.NOT_ONE_OF.format(name="method", allowed="'holm', 'bh'", value="bonferroni")),
    ],
)
def test_bad_arguments_get_a_message_naming_them(call, expected):
    with pytest.raises(InvalidInputError) as error:
        call()
    assert str(error.value) == expected


# --- multiple comparisons and printing ----------------------------------------------


@pytest.mark.parametrize("method, reference", [("holm", "holm"), ("bh", "fdr_bh")])
def test_adjusted_p_values_equal_statsmodels(method, reference):
    rng = np.random.default_rng(12)
    p = np.concatenate([rng.random(25) ** 3, [0.0, 1.0, 0.04, 0.04]])
    expected = multipletests(p, method=reference)[1]
    np.testing.assert_allclose(adjust_p_values(p, method=method), expected, rtol=1e-12)


def test_adjustment_keeps_nan_out_of_the_family():
    p = [0.01, np.nan, 0.02, 0.2]
    adjusted = adjust_p_values(pd.Series(p), method="holm")
    assert np.isnan(adjusted[1])
    np.testing.assert_allclose(adjusted[[0, 2, 3]], multipletests([0.01, 0.02, 0.2], method="holm")[1])


@pytest.mark.parametrize(
    "p, n_permutations, text",
    [
        (0.0, 2000, "p < 0.0005"),
        (0.0, 300, "p < 0.0034"),
        (0.0005, 2000, "p = 0.0005"),
        (0.0342, 2000, "p = 0.034"),
        (3.2e-12, None, "p = 3.2e-12"),
        (0.0, None, "p < 2e-308"),
        (0.27271, None, "p = 0.273"),
        (float("nan"), None, "p = n/a"),
    ],
)
def test_format_p(p, n_permutations, text):
    assert format_p(p, n_permutations) == text


# --- inputs: infinities, magnitude, huge counts, random states ---------------------


@pytest.mark.parametrize("call", [
    lambda a, b: permutation_test(a, b), lambda a, b: bootstrap_ci(a, b), lambda a, b: significance_report(a, b)])
def test_infinite_values_are_refused_naming_the_group(call):
    with pytest.raises(InvalidInputError) as error:
        call([1.0, 2.0, np.inf], [0.0, 1.0])
    assert str(error.value) == _checks.HAS_INF.format(name="a", count=1, position=2, value="inf")
    with pytest.raises(InvalidInputError) as error:
        call([1.0, 2.0], [-np.inf, 1.0])
    assert str(error.value) == _checks.HAS_INF.format(name="b", count=1, position=0, value="-inf")


def test_ties_are_decided_relative_to_the_spread_not_the_magnitude():
    rng = np.random.default_rng(8)
    a, b = rng.integers(0, 5, 40).astype(float), rng.integers(1, 6, 40).astype(float)  # many ties
    small = permutation_test(a, b, n_permutations=999, random_state=1)
    assert small < 0.05
    for shift in (1e6, 1e9, 1e12):
        assert permutation_test(a + shift, b + shift, n_permutations=999, random_state=1) == small
    for scale in (1e-9, 1e9):
        assert permutation_test(a * scale, b * scale, n_permutations=999, random_state=1) == small


def mpmath_two_sided_p(ones_a: int, n_a: int, ones_b: int, n_b: int) -> float:
    """The exact permutation p, independently: each tail's first term by mpmath's log-gamma at 40
    digits, the rest by the ratio of consecutive hypergeometric terms (float64 products), summed
    until the terms no longer count."""
    import mpmath

    mpmath.mp.dps = 40
    n, k = n_a + n_b, ones_a + ones_b
    observed = abs(ones_a * n - k * n_a)
    low, high = (k * n_a - observed) // n, -((-(k * n_a + observed)) // n)

    def first_term(x):
        log_mass = (mpmath.loggamma(k + 1) - mpmath.loggamma(x + 1) - mpmath.loggamma(k - x + 1)
                    + mpmath.loggamma(n - k + 1) - mpmath.loggamma(n_a - x + 1)
                    - mpmath.loggamma(n - k - n_a + x + 1)
                    - mpmath.loggamma(n + 1) + mpmath.loggamma(n_a + 1) + mpmath.loggamma(n - n_a + 1))
        return float(mpmath.e ** log_mass)

    def tail(start, step, terms=400_000):
        x = start + step * np.arange(terms - 1, dtype=float)  # the counts before each next term
        if step < 0:
            ratios = x * (n - k - n_a + x) / ((k - x + 1) * (n_a - x + 1))
        else:
            ratios = (k - x) * (n_a - x) / ((x + 1) * (n - k - n_a + x + 1))
        ratios = np.clip(ratios, 0.0, None)
        masses = first_term(start) * np.concatenate([[1.0], np.cumprod(ratios)])
        return float(np.sum(masses))

    return tail(low, -1) + tail(high, +1)


@pytest.mark.parametrize("case", [
    (1_000_064_000, 2_000_000_000, 1_000_000_000, 2_000_000_000),  # a z of about 2.9 on 4 billion rows
    (1_000_300_000, 2_000_000_000, 1_000_000_000, 2_000_000_000),  # about 13
    (3_000_100_000, 5_000_000_000, 1_799_900_000, 3_000_000_000),  # 8 billion rows, unequal groups
    (130_000, 1_000_000, 129_000, 1_000_000),                      # a million rows each (windowed path)
])
def test_exact_p_on_billions_of_rows_equals_mpmath_to_1e_10(case):
    p = significance_report_from_counts(*case).p_value
    expected = mpmath_two_sided_p(*case)
    assert p == pytest.approx(expected, rel=1e-10)
    assert 0 < p < 1


def test_a_z_of_22_on_billions_of_rows_is_not_p_one():
    n = 2_000_000_000
    ones_a = 1_000_000_000 + 491_935  # z about 22 for two groups of two billion
    p = significance_report_from_counts(ones_a, n, 1_000_000_000, n).p_value
    assert p == pytest.approx(2 * stats.norm.sf(22), rel=0.05)


def test_monte_carlo_on_counts_beyond_numpy_s_hypergeometric_says_to_use_exact():
    with pytest.raises(InvalidInputError) as error:
        significance_report_from_counts(2_000_000_000, 4_000_000_000, 1_000, 10_000, method="monte_carlo")
    assert "use method='exact'" in str(error.value).lower()
    assert str(error.value) == _monte_carlo.MONTE_CARLO_TOO_LARGE.format(
        limit=10**9, ones=2_000_001_000, zeros=2_000_009_000)


def test_a_random_state_is_accepted_where_a_seed_is_and_streams():
    a, b = zeros_and_ones(30, 80), zeros_and_ones(40, 90)
    legacy = np.random.RandomState(6)
    shared = np.random.Generator(np.random.RandomState(6)._bit_generator)
    assert permutation_test(a, b, method="monte_carlo", random_state=legacy) == permutation_test(
        a, b, method="monte_carlo", random_state=shared)
    assert bootstrap_ci(a, b, random_state=legacy) == bootstrap_ci(a, b, random_state=shared)
    report = significance_report(a, b, random_state=np.random.RandomState(2), ci_method="bootstrap")
    assert report.ci_method == "bootstrap"


def test_every_function_that_draws_defaults_to_seed_42():
    a, b = zeros_and_ones(30, 80), zeros_and_ones(40, 90)
    assert permutation_test(a, b, method="monte_carlo") == permutation_test(a, b, method="monte_carlo", random_state=42)
    assert bootstrap_ci(a, b) == bootstrap_ci(a, b, random_state=42)
    strata = [(a, b), (b, a)]
    assert stratified_bootstrap_ci(strata) == stratified_bootstrap_ci(strata, random_state=42)
    from faircode.power import simulated_power
    assert simulated_power(30, 30, 0.2, n_sim=200) == simulated_power(30, 30, 0.2, n_sim=200, random_state=42)


def test_score_intervals_need_zero_one_data():
    with pytest.raises(InvalidInputError) as error:
        significance_report([0.5, 1.0, 2.0], [0.0, 1.0], ci_method="newcombe")
    assert str(error.value) == SCORE_NEEDS_BINARY.format(ci_method="newcombe", name="a")


def test_a_small_and_a_large_stratum_name_both_parts_of_the_sidak_interval():
    report = stratified_report_from_counts([(8, 10, 5, 10), (300, 2000, 200, 2100)])
    assert report.ci_method == "sidak_exact_unconditional+agresti_caffo"
    assert report.ci_low < report.gap < report.ci_high


def test_equalized_odds_interval_is_the_sidak_combination_of_its_rates_intervals():
    strata = [(8, 10, 5, 10), (3, 20, 2, 20)]
    report = stratified_report_from_counts(strata)
    level = math.sqrt(0.95)
    tpr = _unconditional.difference_interval(*strata[0], level)
    fpr = _unconditional.difference_interval(*strata[1], level)
    assert report.ci_method == "sidak_exact_unconditional"
    assert report.ci_low <= min(tpr[0], fpr[0]) + 1e-12 and report.ci_high >= max(tpr[1], fpr[1]) - 1e-12
    # with Agresti-Caffo's parts, statsmodels' intervals at the Sidak level
    report = stratified_report_from_counts(strata, ci_method="agresti_caffo")
    tpr = confint_proportions_2indep(*strata[0], method="agresti-caffo", alpha=1 - level)
    fpr = confint_proportions_2indep(*strata[1], method="agresti-caffo", alpha=1 - level)
    # the larger gap is the TPR's where |TPR gap| >= |FPR gap|: its low end is the TPR's low end unless
    # the FPR interval reaches lower while still the larger
    assert report.ci_method == "sidak_agresti_caffo"
    assert report.ci_low <= min(tpr[0], fpr[0]) + 1e-12 and report.ci_high >= max(tpr[1], fpr[1]) - 1e-12
    assert report.ci_low < report.gap < report.ci_high
    booted = stratified_report_from_counts(strata, ci_method="bootstrap")
    assert (booted.ci_low, booted.ci_high) == stratified_bootstrap_ci(
        [(zeros_and_ones(8, 10), zeros_and_ones(5, 10)), (zeros_and_ones(3, 20), zeros_and_ones(2, 20))],
        random_state=42)
