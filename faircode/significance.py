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
* a Monte Carlo p-value is ``(hits + 1) / (n_permutations + 1)`` (Phipson and Smyth
  2010): the observed labelling counts as one relabelling, so the p-value is never 0 and
  a family of them can be adjusted safely; :func:`format_p` prints its floor,
  ``1 / (n_permutations + 1)``, as ``p < 1/n_permutations``;
* the interval of a report is, by default, for 0/1 data the exact unconditional interval
  (Chan and Zhang 1999: two one-sided exact tests inverted, so its coverage is at least
  the nominal level at every pair of rates; see :mod:`faircode._unconditional`) when the
  two groups have at most ``EXACT_TABLES`` = 10,201 tables of counts, ``(n_a + 1) (n_b + 1)``
  (two groups of 100 rows, or lopsided pairs such as 44 and 156), and Agresti and Caffo's
  adjusted Wald interval on more,
  where its coverage is close to nominal (:func:`exact_coverage` computes it); for other
  data the percentile bootstrap;
  :func:`bootstrap_ci` is the percentile bootstrap (numpy's linear rule, as
  ``scipy.stats.bootstrap(method="percentile")``), whose exact limit is also available;
* every function that draws random numbers takes ``random_state`` as None, an int, a
  ``numpy.random.Generator`` or a ``numpy.random.RandomState``, and defaults to 42.

:func:`equivalence_test` asks the opposite question: do the data show the gap lies
within a margin?

For metrics measured on two strata, such as equalized odds (TPR gap on the y = 1 rows,
FPR gap on the y = 0 rows), :func:`stratified_permutation_test` tests the largest |gap|
with labels shuffled within each stratum.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from scipy.stats import binom

from faircode import _exact, _intervals, _monte_carlo, _unconditional
from faircode._checks import (
    DEFAULT_SEED,
    as_binary_array,
    check_one_of,
    check_open_unit,
    check_positive_int,
    check_random_state,
    is_binary,
)
from faircode._equivalence import EQUIVALENCE_METHODS, EquivalenceResult, tost
from faircode._multiple_testing import ADJUSTMENTS, P_OUT_OF_RANGE, adjust_p_values, format_p
from faircode._report import (
    CI_METHODS,
    DEFAULT_CI_METHOD,
    EXACT_NEEDS_BINARY,
    EXACT_TABLES,
    LARGE_GROUPS_CI_METHOD,
    METHODS,
    RESAMPLING_METHODS,
    SCORE_NEEDS_BINARY,
    SMALL_SAMPLE_SIZE,
    TOO_MANY_TABLES,
    RandomState,
    Settings,
    SignificanceReport,
    as_pair,
    binary_monte_carlo_p,
    binary_report,
    checked_counts,
    counts,
    default_gap_method,
    interval_levels,
    make_report,
    percentile_interval,
    require_binary,
    resolve_ci_method,
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
from faircode.exceptions import InvalidInputError

__all__ = [
    "ADJUSTMENTS",
    "CI_METHODS",
    "INTERVAL_TABLE_METHODS",
    "RATE_OUT_OF_RANGE",
    "DEFAULT_CI_METHOD",
    "EQUIVALENCE_METHODS",
    "EXACT_NEEDS_BINARY",
    "EXACT_TABLES",
    "LARGE_GROUPS_CI_METHOD",
    "EquivalenceResult",
    "METHODS",
    "SCORE_NEEDS_BINARY",
    "NO_EXACT_STRATIFIED_INTERVAL",
    "NO_STRATA",
    "P_OUT_OF_RANGE",
    "SMALL_SAMPLE_SIZE",
    "TOO_MANY_TABLES",
    "SignificanceReport",
    "adjust_p_values",
    "bootstrap_ci",
    "equivalence_test",
    "exact_coverage",
    "interval_table",
    "format_p",
    "permutation_test",
    "significance_report",
    "significance_report_from_counts",
    "stratified_bootstrap_ci",
    "stratified_permutation_test",
    "stratified_report_from_counts",
]


RATE_OUT_OF_RANGE = "The '{name}' parameter must be a rate in [0, 1]. Got {value!r} instead."
MARGIN_NOT_POSITIVE = "The 'margin' parameter must be a float in (0, 1), a gap in rates. Got {value!r} instead."
TOST_ALPHA = (
    "The 'alpha' parameter of an equivalence test must be a float in (0, 0.5): the test's interval is the "
    "1 - 2 alpha interval, which is empty from 0.5 on. Got {value!r} instead."
)
MARGIN_NEEDS_BINARY = (
    "margin= adds an equivalence test of two rates, which needs 0/1 data, but {name} holds other values; "
    "leave margin out for other data."
)


def permutation_test(
    a, b, n_permutations: int = 2000, random_state: RandomState = DEFAULT_SEED, method: str = "auto"
) -> float:
    """Two-sided permutation p-value of the gap mean(a) - mean(b).

    Parameters
    ----------
    a, b : list, numpy array or pandas Series of numbers
        The two groups. 0/1 data use the exact hypergeometric distribution.
    n_permutations : int, default 2000
        Relabellings drawn by the Monte Carlo method (ignored when exact).
    random_state : None, int, numpy.random.Generator or numpy.random.RandomState, default 42
        Seed of the Monte Carlo method; a Generator or RandomState is drawn from in turn.
    method : {"auto", "exact", "monte_carlo", "boschloo"}
        "exact" needs 0/1 data; "auto" is exact for 0/1 data, else Monte Carlo.
        "boschloo" (0/1 data, groups of up to 200 rows each or as many tables) is
        Boschloo's exact unconditional test: the exact p-value used as the statistic,
        its tail maximised over the common rate. Its size is at most alpha like the exact
        test's, and it is less conservative (more powerful) on small groups.

    Returns
    -------
    float
        Exact: the probability that a relabelling's |gap| is at least the observed |gap|.
        Boschloo: the largest probability, over the common rate of two binomial groups, of
        a table whose exact p-value is at most the observed one.
        Monte Carlo: ``(hits + 1) / (n_permutations + 1)``, never 0.

    See Also
    --------
    significance_report : the p-value with the gap's interval and sample sizes.
    stratified_permutation_test : the test of equalized odds.
    format_p : print a p-value as its method allows.

    Examples
    --------
    >>> from faircode.significance import permutation_test
    >>> a, b = [1] * 12 + [0] * 18, [1] * 5 + [0] * 25
    >>> round(permutation_test(a, b), 4)
    0.084
    >>> round(permutation_test(a, b, method="boschloo"), 4)
    0.0519
    >>> permutation_test(a, b, n_permutations=2000, method="monte_carlo", random_state=0)
    0.0864567716141929
    """
    a, b = two_groups(a, b)
    n_permutations = check_positive_int(n_permutations, "n_permutations")
    method = resolve_method(method, a, b)
    if method == "exact":
        return float(_exact.permutation_p(*counts(a, b)))
    if method == "boschloo":
        return _unconditional.boschloo_p(*counts(a, b))
    rng = check_random_state(random_state)
    if is_binary(a) and is_binary(b):
        return binary_monte_carlo_p(*counts(a, b), n_permutations, rng)
    return shuffled_monte_carlo_p(a, b, n_permutations, rng)


def bootstrap_ci(
    a,
    b,
    n_resamples: int = 2000,
    confidence: float = 0.95,
    random_state: RandomState = DEFAULT_SEED,
    method: str = "auto",
) -> tuple[float, float]:
    """Percentile bootstrap interval of mean(a*) - mean(b*), each group resampled to its size.

    On small groups and rare rates this interval covers the true gap far less often than
    its confidence says (bench/coverage.py); :func:`significance_report` gives an interval
    of two proportions with honest coverage by default.

    Parameters
    ----------
    a, b : list, numpy array or pandas Series of numbers
        The two groups.
    n_resamples : int, default 2000
        Bootstrap resamples (ignored when exact).
    confidence : float in (0, 1), default 0.95
        The nominal coverage; the ends are the (1 - confidence) / 2 and
        (1 + confidence) / 2 quantiles of the resampled gaps.
    random_state : None, int, numpy.random.Generator or numpy.random.RandomState, default 42
        Seed of the resampling.
    method : {"auto", "exact", "monte_carlo"}
        For 0/1 data "auto" and "monte_carlo" draw binomial counts; "exact" enumerates
        both binomial distributions (the limit of infinitely many resamples). Other data
        are resampled row by row.

    Returns
    -------
    (float, float)
        The low and high ends of the interval.

    See Also
    --------
    significance_report : the gap with an interval of honest coverage (or this one,
        with ``ci_method="bootstrap"``).

    Examples
    --------
    >>> from faircode.significance import bootstrap_ci
    >>> a, b = [1] * 12 + [0] * 18, [1] * 5 + [0] * 25
    >>> low, high = bootstrap_ci(a, b, method="exact")
    >>> print(f"{low:+.3f} to {high:+.3f}")
    +0.000 to +0.467
    """
    a, b = two_groups(a, b)
    n_resamples = check_positive_int(n_resamples, "n_resamples")
    levels = interval_levels(check_open_unit(confidence, "confidence"))
    check_one_of(method, "method", RESAMPLING_METHODS)
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


INTERVAL_TABLE_METHODS = ("auto", "exact_unconditional", "agresti_caffo", "newcombe", "miettinen_nurminen")


def interval_table(n_a: int, n_b: int, confidence: float = 0.95,
                   ci_method: str = "auto") -> tuple[np.ndarray, np.ndarray]:
    """The interval of the gap p_a - p_b for every possible table of two 0/1 groups of these sizes.

    Parameters
    ----------
    n_a, n_b : int
        Rows in the two groups.
    confidence : float, default 0.95
        Nominal coverage of each interval.
    ci_method : {"auto", "exact_unconditional", "agresti_caffo", "newcombe", "miettinen_nurminen"}
        As in :func:`significance_report`; "auto" is the report's default for these sizes.

    Returns
    -------
    (low, high) : two arrays of shape (n_a + 1, n_b + 1)
        Entry ``[x_a, x_b]`` is the interval reported for ``x_a`` ones in group a and ``x_b``
        in group b. The exact unconditional intervals are computed for every table at once
        and remembered, which is also what makes later reports on these sizes fast.

    See Also
    --------
    exact_coverage : the coverage of these intervals, from every table's probability.

    Examples
    --------
    >>> from faircode.significance import interval_table
    >>> low, high = interval_table(30, 30)
    >>> print(f"12 of 30 against 5 of 30: {low[12, 5]:+.2f} to {high[12, 5]:+.2f}")
    12 of 30 against 5 of 30: -0.01 to +0.46
    """
    n_a, n_b = check_positive_int(n_a, "n_a"), check_positive_int(n_b, "n_b")
    confidence = check_open_unit(confidence, "confidence")
    check_one_of(ci_method, "ci_method", INTERVAL_TABLE_METHODS)
    method = default_gap_method(n_a, n_b) if ci_method == "auto" else ci_method
    if method == "exact_unconditional":
        _unconditional.check_affordable(n_a, n_b, "The exact unconditional interval (ci_method='exact_unconditional')")
        return _unconditional.difference_intervals(n_a, n_b, confidence)
    ones_a, ones_b = np.meshgrid(np.arange(n_a + 1), np.arange(n_b + 1), indexing="ij")
    low, high = getattr(_intervals, method)(ones_a, n_a, ones_b, n_b, confidence)
    return np.asarray(low, dtype=float), np.asarray(high, dtype=float)


def exact_coverage(n_a: int, n_b: int, rate_a: float, rate_b: float, confidence: float = 0.95,
                   ci_method: str = "auto") -> float:
    """The probability that the interval of the gap holds the true gap ``rate_a - rate_b``, computed exactly.

    Every table of the two group sizes is weighted by its probability under independent
    binomial groups with these rates, so there is no simulation error.

    Parameters
    ----------
    n_a, n_b : int
        Rows in the two groups.
    rate_a, rate_b : float in [0, 1]
        The true rates.
    confidence, ci_method
        As in :func:`interval_table`.

    Returns
    -------
    float
        The coverage; a method keeps its promise at these rates when it is at least
        ``confidence``.

    See Also
    --------
    interval_table : the intervals whose coverage this is.

    Examples
    --------
    Five rows a group, true rates 0.90 and 0.01: Agresti and Caffo's adjusted Wald interval
    covers 91.8% of the time, the exact unconditional interval at least 95%.

    >>> from faircode.significance import exact_coverage
    >>> round(exact_coverage(5, 5, 0.90, 0.01, ci_method="agresti_caffo"), 3)
    0.918
    >>> exact_coverage(5, 5, 0.90, 0.01) >= 0.95
    True
    """
    for value, name in ((rate_a, "rate_a"), (rate_b, "rate_b")):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
            raise InvalidInputError(RATE_OUT_OF_RANGE.format(name=name, value=value))
    low, high = interval_table(n_a, n_b, confidence, ci_method)
    truth = float(rate_a) - float(rate_b)
    covered = (low <= truth + 1e-12) & (high >= truth - 1e-12)
    mass_a = binom.pmf(np.arange(n_a + 1), n_a, rate_a)
    mass_b = binom.pmf(np.arange(n_b + 1), n_b, rate_b)
    return float(mass_a @ covered @ mass_b)


def equivalence_test(a, b, margin: float, alpha: float = 0.05, method: str = "auto") -> EquivalenceResult:
    """Do the data show that the gap mean(a) - mean(b) of two 0/1 groups lies within +-margin?

    Two one-sided tests (TOST): the null hypothesis is that the gap is at least ``margin``
    from zero; rejecting both of its halves at ``alpha`` shows, at that level, that
    ``-margin < gap < +margin``. A non-significant difference test never shows this:
    a small audit fails to find even large gaps.

    Parameters
    ----------
    a, b : list, numpy array or pandas Series of 0/1
        The two groups.
    margin : float in (0, 1)
        The largest gap, in rates, that counts as no gap. Fix it before looking at the
        data, from what matters in the decision audited (a common choice is the
        audit's minimum detectable gap, or a policy threshold).
    alpha : float in (0, 0.5), default 0.05
        Level of each one-sided test, and so of the equivalence claim.
    method : {"auto", "exact", "score", "wald"}, default "auto"
        "exact": exact unconditional one-sided tests, whose size is at most alpha at every
        rate; "score": score tests with the restricted variance (Miettinen-Nurminen);
        "wald": the unrestricted variance, as statsmodels' ``tost_proportions_2indep``
        default. "auto" is "exact" for two groups with at most ``EXACT_TABLES``
        = 10,201 tables of counts, ``(n_a + 1) (n_b + 1)`` (two groups of 100 rows,
        or 44 and 156), else "score".

    Returns
    -------
    EquivalenceResult
        ``p_value`` (the larger one-sided p), ``p_lower`` and ``p_upper``, the 1 - 2 alpha
        interval ``ci_low``-``ci_high`` that matches the tests, and ``equivalent``
        (``p_value < alpha``, the same as the interval lying inside +-margin).

    See Also
    --------
    significance_report : ``margin=`` adds this test to the report of a gap.
    faircode.power.minimum_detectable_gap : a margin the audit could detect.

    Examples
    --------
    Two groups of 400 with selection rates 0.30 and 0.32: is the gap within 10 points?

    >>> from faircode.significance import equivalence_test
    >>> a = [1] * 120 + [0] * 280
    >>> b = [1] * 128 + [0] * 272
    >>> result = equivalence_test(a, b, margin=0.10)
    >>> result.equivalent, round(result.p_value, 5)
    (True, 0.00711)
    >>> print(f"90% interval {result.ci_low:+.3f} to {result.ci_high:+.3f}")
    90% interval -0.074 to +0.034

    Within 3 points it is not shown: the 90% interval reaches past -0.03.

    >>> equivalence_test(a, b, margin=0.03).equivalent
    False
    """
    a, b = as_binary_array(a, "a"), as_binary_array(b, "b")
    return _equivalence(*counts(a, b), margin, alpha, method)


def _equivalence(ones_a, n_a, ones_b, n_b, margin, alpha, method) -> EquivalenceResult:
    if isinstance(margin, bool) or not isinstance(margin, (int, float)) or not 0 < float(margin) < 1:
        raise InvalidInputError(MARGIN_NOT_POSITIVE.format(value=margin))
    alpha = check_open_unit(alpha, "alpha")
    if alpha >= 0.5:
        raise InvalidInputError(TOST_ALPHA.format(value=alpha))
    check_one_of(method, "method", EQUIVALENCE_METHODS)
    return tost(ones_a, n_a, ones_b, n_b, float(margin), alpha, method)


def significance_report(
    a,
    b,
    *,
    n_resamples: int = 2000,
    n_permutations: int = 2000,
    confidence: float = 0.95,
    alpha: float = 0.05,
    random_state: RandomState = DEFAULT_SEED,
    method: str = "auto",
    ci_method: str = "auto",
    margin: float | None = None,
) -> SignificanceReport:
    """The gap mean(a) - mean(b) with its interval, p-value, sample sizes and detectable gap.

    Parameters
    ----------
    a, b : list, numpy array or pandas Series of numbers
        The two groups (a is the disadvantaged group in faircode's metrics).
    n_resamples, n_permutations : int, default 2000
        Bootstrap resamples (when the interval is a bootstrap) and Monte Carlo relabellings.
    confidence : float, default 0.95
        Nominal coverage of the interval.
    alpha : float, default 0.05
        Level of the test: ``significant`` is ``p_value < alpha``.
    random_state : None, int, numpy.random.Generator or numpy.random.RandomState, default 42
        One generator serves the interval (if a bootstrap) and the p-value (if Monte Carlo).
    method : {"auto", "exact", "monte_carlo", "boschloo"}
        Method of :func:`permutation_test`.
    ci_method : {"auto", "exact_unconditional", "agresti_caffo", "newcombe", "miettinen_nurminen", \
"bootstrap", "bootstrap_exact"}
        The interval. "auto", for 0/1 data: the exact unconditional interval (Chan and
        Zhang), whose coverage is at least ``confidence`` at every pair of rates, for
        two groups with at most ``EXACT_TABLES`` = 10,201 tables of counts,
        ``(n_a + 1) (n_b + 1)`` (two groups of 100 rows, or 44 and 156), and Agresti and
        Caffo's adjusted Wald interval for groups with more; for other data, the
        percentile bootstrap. "newcombe" is Newcombe's hybrid of each group's Wilson
        score interval and "miettinen_nurminen" the inverted score test. "bootstrap" is
        :func:`bootstrap_ci`'s percentile interval and "bootstrap_exact" its exact limit
        (0/1 data). The others need 0/1 data.
    margin : float in (0, 1), optional
        Add :func:`equivalence_test` at this margin (0/1 data; ``alpha`` then below 0.5)
        as ``equivalence``.

    Returns
    -------
    SignificanceReport
        ``ci_method`` names the interval; ``small_sample_warning`` is set when a group
        has fewer than 30 rows; ``minimum_detectable_gap`` is the gap this test would
        detect with 80% power, planned at the groups' pooled rate (``mdg_rate``; 0.5 for
        data that are not 0/1), from the exact test's power when a group has under 200
        rows (:func:`faircode.power.minimum_detectable_gap`); NaN, with ``note`` saying
        why, when no gap the rate allows is detectable.

    See Also
    --------
    significance_report_from_counts : the same from counts of ones and rows.
    equivalence_test : whether the data show the gap is small.
    faircode.metrics.fairness_report : every metric of an audit, with these statistics.

    Examples
    --------
    >>> from faircode.significance import significance_report
    >>> a, b = [1] * 12 + [0] * 18, [1] * 5 + [0] * 25
    >>> report = significance_report(a, b)
    >>> print(f"gap {report.gap:+.3f}, 95% interval {report.ci_low:+.3f} to {report.ci_high:+.3f}"
    ...       f" ({report.ci_method}), p = {report.p_value:.4f}")
    gap +0.233, 95% interval -0.010 to +0.460 (exact_unconditional), p = 0.0840
    >>> round(report.minimum_detectable_gap, 3), round(report.mdg_rate, 3)
    (0.342, 0.283)
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
            margin=margin,
        )
    settings = Settings.checked(n_resamples, n_permutations, confidence, alpha, method, ci_method)
    resolve_method(method, a, b)
    ci_method = resolve_ci_method(ci_method, a, b)
    if margin is not None:
        name = "a" if not is_binary(a) else "b"
        raise InvalidInputError(MARGIN_NEEDS_BINARY.format(name=name))
    rng = check_random_state(random_state)
    low, high = percentile_interval(_monte_carlo.resampled_gaps(rng, a, b, n_resamples), settings.levels)
    p = shuffled_monte_carlo_p(a, b, n_permutations, rng)
    return make_report(float(a.mean() - b.mean()), (low, high), p, a.size, b.size, settings, False, ci_method)


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
    random_state: RandomState = DEFAULT_SEED,
    method: str = "auto",
    ci_method: str = "auto",
    margin: float | None = None,
) -> SignificanceReport:
    """:func:`significance_report` for 0/1 groups given by their counts of ones and rows.

    The counts are all the 0/1 data carry: a group of ``n_a`` rows with ``ones_a`` ones.
    Same parameters and result as :func:`significance_report`; this is the fast path
    the metrics use once they have counted a confusion table. Counts of any size are
    safe (billions of rows).

    See Also
    --------
    significance_report : the same from the rows.

    Examples
    --------
    >>> from faircode.significance import significance_report_from_counts
    >>> report = significance_report_from_counts(127, 2153, 475, 4360, margin=0.06)
    >>> print(f"{report.gap:+.4f} ({report.ci_low:+.4f} to {report.ci_high:+.4f}), {report.p_value:.1e}")
    -0.0500 (-0.0633 to -0.0361), 6.2e-11
    >>> report.equivalence.equivalent
    False
    """
    settings = Settings.checked(n_resamples, n_permutations, confidence, alpha, method, ci_method)
    counted = checked_counts(ones_a, n_a, ones_b, n_b)
    report = binary_report(counted, n_resamples, settings, check_random_state(random_state))
    if margin is None:
        return report
    return replace(report, equivalence=_equivalence(*counted, margin, alpha, "auto"))
