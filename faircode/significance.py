"""Is a gap between two groups a finding or noise? Permutation tests and bootstrap intervals.

The gap is always ``mean(a) - mean(b)``. For 0/1 data (selection, error, recidivism...)
both answers are exact or nearly free:

* under the null hypothesis that the group label carries no information, the count of
  ones in group a after a random relabelling is hypergeometric, so the permutation
  p-value is a sum of hypergeometric probabilities (``method="exact"``), or, with
  ``method="monte_carlo"``, the share of relabellings drawn as hypergeometric counts;
* a bootstrap resample's count of ones is binomial, so the interval comes from binomial
  draws, or from the exact enumeration of both binomials (``method="exact"``).

Other data are shuffled and resampled for real, in vectorised batches.

Conventions, kept everywhere:

* two-sided: a relabelling counts when its |gap| is at least the observed |gap|, compared
  in whole numbers for 0/1 data (``|x N - K n_a|``), so no tie is lost to rounding;
* a Monte Carlo p-value is ``hits / n_permutations``, the share of relabellings, as the
  definition reads (not ``(hits + 1) / (n_permutations + 1)``); it can be 0, which
  :func:`format_p` prints as ``p < 1/n_permutations``;
* intervals are percentile intervals of the bootstrap gaps (numpy's linear rule, as
  ``scipy.stats.bootstrap(method="percentile")``); the exact interval is their limit.

For metrics measured on two strata, such as equalized odds (TPR gap on the y = 1 rows,
FPR gap on the y = 0 rows), :func:`stratified_permutation_test` tests the largest |gap|
with labels shuffled within each stratum.
"""

from __future__ import annotations

from faircode import _exact, _monte_carlo
from faircode._checks import check_one_of, check_open_unit, check_positive_int, check_random_state, is_binary
from faircode._multiple_testing import ADJUSTMENTS, P_OUT_OF_RANGE, adjust_p_values, format_p
from faircode._report import (
    EXACT_NEEDS_BINARY,
    METHODS,
    SMALL_SAMPLE_SIZE,
    RandomState,
    Settings,
    SignificanceReport,
    as_pair,
    binary_monte_carlo_p,
    binary_report,
    checked_counts,
    counts,
    interval_levels,
    make_report,
    percentile_interval,
    require_binary,
    resolve_method,
    shuffled_monte_carlo_p,
    two_groups,
)
from faircode._stratified import (
    NO_EXACT_STRATIFIED_INTERVAL,
    NO_STRATA,
    stratified_bootstrap_ci,
    stratified_permutation_test,
    stratified_report_from_counts,
)

__all__ = [
    "ADJUSTMENTS",
    "EXACT_NEEDS_BINARY",
    "METHODS",
    "NO_EXACT_STRATIFIED_INTERVAL",
    "NO_STRATA",
    "P_OUT_OF_RANGE",
    "SMALL_SAMPLE_SIZE",
    "SignificanceReport",
    "adjust_p_values",
    "bootstrap_ci",
    "format_p",
    "permutation_test",
    "significance_report",
    "significance_report_from_counts",
    "stratified_bootstrap_ci",
    "stratified_permutation_test",
    "stratified_report_from_counts",
]


def permutation_test(
    a, b, n_permutations: int = 2000, random_state: RandomState = None, method: str = "auto"
) -> float:
    """Two-sided permutation p-value of the gap mean(a) - mean(b).

    Parameters
    ----------
    a, b : list, numpy array or pandas Series of numbers
        The two groups. 0/1 data use the exact hypergeometric distribution.
    n_permutations : int, default 2000
        Relabellings drawn by the Monte Carlo method (ignored when exact).
    random_state : None, int or numpy.random.Generator
        Seed of the Monte Carlo method.
    method : {"auto", "exact", "monte_carlo"}
        "exact" needs 0/1 data; "auto" is exact for 0/1 data, else Monte Carlo.

    Returns
    -------
    float
        The share of relabellings whose |gap| is at least the observed |gap|.
    """
    a, b = two_groups(a, b)
    n_permutations = check_positive_int(n_permutations, "n_permutations")
    method = resolve_method(method, a, b)
    if method == "exact":
        return float(_exact.permutation_p(*counts(a, b)))
    rng = check_random_state(random_state)
    if is_binary(a) and is_binary(b):
        return binary_monte_carlo_p(*counts(a, b), n_permutations, rng)
    return shuffled_monte_carlo_p(a, b, n_permutations, rng)


def bootstrap_ci(
    a,
    b,
    n_resamples: int = 2000,
    confidence: float = 0.95,
    random_state: RandomState = None,
    method: str = "auto",
) -> tuple[float, float]:
    """Percentile bootstrap interval of mean(a*) - mean(b*), each group resampled to its size.

    Parameters
    ----------
    a, b : list, numpy array or pandas Series of numbers
        The two groups.
    n_resamples : int, default 2000
        Bootstrap resamples (ignored when exact).
    confidence : float in (0, 1), default 0.95
        Coverage of the interval; its ends are the (1 - confidence) / 2 and
        (1 + confidence) / 2 quantiles of the resampled gaps.
    random_state : None, int or numpy.random.Generator
        Seed of the resampling.
    method : {"auto", "exact", "monte_carlo"}
        For 0/1 data "auto" and "monte_carlo" draw binomial counts; "exact" enumerates
        both binomial distributions (the limit of infinitely many resamples). Other data
        are resampled row by row.

    Returns
    -------
    (float, float)
        The low and high ends of the interval.
    """
    a, b = two_groups(a, b)
    n_resamples = check_positive_int(n_resamples, "n_resamples")
    levels = interval_levels(check_open_unit(confidence, "confidence"))
    check_one_of(method, "method", METHODS)
    binary = is_binary(a) and is_binary(b)
    if method == "exact":
        require_binary(a, b)
        return as_pair(_exact.bootstrap_quantiles(*counts(a, b), levels))
    rng = check_random_state(random_state)
    if binary:
        gaps = _monte_carlo.binomial_gaps(rng, *counts(a, b), n_resamples)
    else:
        gaps = _monte_carlo.resampled_gaps(rng, a, b, n_resamples)
    return percentile_interval(gaps, levels)


def significance_report(
    a,
    b,
    *,
    n_resamples: int = 2000,
    n_permutations: int = 2000,
    confidence: float = 0.95,
    alpha: float = 0.05,
    random_state: RandomState = 42,
    method: str = "auto",
    ci_method: str = "auto",
) -> SignificanceReport:
    """The gap mean(a) - mean(b) with its bootstrap interval, p-value and sample sizes.

    Parameters
    ----------
    a, b : list, numpy array or pandas Series of numbers
        The two groups (a is the disadvantaged group in faircode's metrics).
    n_resamples, n_permutations : int, default 2000
        Bootstrap resamples and Monte Carlo relabellings.
    confidence : float, default 0.95
        Coverage of the interval.
    alpha : float, default 0.05
        Level of the test: ``significant`` is ``p_value < alpha``.
    random_state : None, int or numpy.random.Generator, default 42
        One generator serves the interval and, if Monte Carlo, the p-value.
    method, ci_method : {"auto", "exact", "monte_carlo"}
        Methods of :func:`permutation_test` and :func:`bootstrap_ci`.

    Returns
    -------
    SignificanceReport
        ``small_sample_warning`` is set when a group has fewer than 30 rows;
        ``minimum_detectable_gap`` is the gap this test would detect with 80% power
        (normal approximation at rate 0.5, see :mod:`faircode.power`).
    """
    a, b = two_groups(a, b)
    if is_binary(a) and is_binary(b):
        return significance_report_from_counts(
            *counts(a, b),
            n_resamples=n_resamples,
            n_permutations=n_permutations,
            confidence=confidence,
            alpha=alpha,
            random_state=random_state,
            method=method,
            ci_method=ci_method,
        )
    settings = Settings.checked(n_resamples, n_permutations, confidence, alpha, method, ci_method)
    resolve_method(method, a, b)
    resolve_method(ci_method, a, b)
    rng = check_random_state(random_state)
    low, high = percentile_interval(_monte_carlo.resampled_gaps(rng, a, b, n_resamples), settings.levels)
    p = shuffled_monte_carlo_p(a, b, n_permutations, rng)
    return make_report(float(a.mean() - b.mean()), (low, high), p, a.size, b.size, settings, False)


def significance_report_from_counts(
    ones_a: int,
    n_a: int,
    ones_b: int,
    n_b: int,
    *,
    n_resamples: int = 2000,
    n_permutations: int = 2000,
    confidence: float = 0.95,
    alpha: float = 0.05,
    random_state: RandomState = 42,
    method: str = "auto",
    ci_method: str = "auto",
) -> SignificanceReport:
    """:func:`significance_report` for 0/1 groups given by their counts of ones and rows.

    The counts are all the 0/1 data carry: a group of ``n_a`` rows with ``ones_a`` ones.
    Same parameters and result as :func:`significance_report`; this is the fast path
    the metrics use once they have counted a confusion table.
    """
    settings = Settings.checked(n_resamples, n_permutations, confidence, alpha, method, ci_method)
    counted = checked_counts(ones_a, n_a, ones_b, n_b)
    return binary_report(counted, n_resamples, settings, check_random_state(random_state))
