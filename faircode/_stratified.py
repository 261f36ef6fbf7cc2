"""Tests of the largest gap over several strata, labels shuffled within each stratum.

Equalized odds is the case in point: its strata are the y = 1 rows (true positive rate)
and the y = 0 rows (false positive rate), and its value is the signed gap of the stratum
whose |gap| is largest. Re-exported by :mod:`faircode.significance`.

The interval of that value, by default, is built from one interval per stratum: each
stratum's default interval of two proportions at the Sidak level ``confidence ** (1 / S)``
(S strata, shuffled and resampled independently, so all S intervals hold together with
probability at least ``confidence``), combined by
:func:`faircode._intervals.larger_gap_interval` into the smallest interval holding every
value the signed larger gap can take while each stratum's gap is inside its interval.
It covers the signed larger gap whenever the strata's intervals cover theirs, so with at
least the stated confidence. (A percentile bootstrap of the signed maximum, still
available as ``ci_method="bootstrap"``, has no such guarantee: the statistic jumps
between strata and its bootstrap distribution is not centred on it.)
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from faircode import _exact, _intervals, _monte_carlo
from faircode._checks import (
    DEFAULT_SEED,
    as_numeric_array,
    check_one_of,
    check_open_unit,
    check_positive_int,
    check_random_state,
    is_binary,
)
from faircode._report import (
    RESAMPLING_METHODS,
    SMALL_SAMPLE_SIZE,
    RandomState,
    Settings,
    SignificanceReport,
    centred,
    checked_counts,
    counts,
    float_tolerance,
    interval_levels,
    monte_carlo_p,
    percentile_interval,
    planned_gap,
    resolve_method,
    score_interval,
)
from faircode.exceptions import InvalidInputError

NO_EXACT_STRATIFIED_INTERVAL = (
    "stratified_bootstrap_ci has no exact method; use method='monte_carlo' or 'auto'."
)

NO_STRATA = "strata must hold at least one (a, b) pair of groups; got {count}."

STRATIFIED_CI_METHODS = ("auto", "exact_unconditional", "agresti_caffo", "newcombe", "miettinen_nurminen", "bootstrap")
STRATIFIED_METHODS = RESAMPLING_METHODS
"""Intervals of the signed larger gap: a score method names the per-stratum interval combined at
the Sidak level ("auto" is Agresti-Caffo's); "bootstrap" is the percentile bootstrap of the statistic."""


def stratified_permutation_test(
    strata: Sequence[tuple],
    n_permutations: int = 2000,
    random_state: RandomState = DEFAULT_SEED,
    method: str = "auto",
) -> float:
    """Permutation p-value of the largest |gap| over strata, labels shuffled within each.

    This is the test of equalized odds: the strata are the y = 1 rows (the gap in true
    positive rate) and the y = 0 rows (the gap in false positive rate), the statistic is
    the larger of the two |gaps|, and relabelling happens inside each stratum so each keeps
    its own rows and rates.

    Parameters
    ----------
    strata : sequence of (a, b) pairs
        Per stratum, the values of groups a and b.
    n_permutations : int, default 2000
        Relabellings drawn by the Monte Carlo method.
    random_state : None, int, numpy.random.Generator or numpy.random.RandomState, default 42
        Seed of the Monte Carlo method.
    method : {"auto", "exact", "monte_carlo"}
        "exact" (0/1 data only): with t the observed largest |gap| and p_s(t) the exact
        probability that stratum s alone reaches |gap| >= t under relabelling, the strata
        being shuffled independently, p = 1 - prod_s (1 - p_s(t)). Each p_s is evaluated
        at the common threshold t, not at the stratum's own gap. "monte_carlo" counts the
        joint relabellings whose largest |gap| reaches t: ``(hits + 1) / (n + 1)``.

    Returns
    -------
    float
        The p-value.

    See Also
    --------
    stratified_report_from_counts : the test with the value's interval, from counts.
    faircode.metrics.equalized_odds_diff : the metric this tests.

    Examples
    --------
    True positive rates 8/10 vs 5/10 (y = 1 rows), false positive rates 3/20 vs 2/20:

    >>> from faircode.significance import stratified_permutation_test
    >>> tpr = ([1] * 8 + [0] * 2, [1] * 5 + [0] * 5)
    >>> fpr = ([1] * 3 + [0] * 17, [1] * 2 + [0] * 18)
    >>> round(stratified_permutation_test([tpr, fpr]), 4)
    0.3498
    """
    pairs = _strata(strata)
    n_permutations = check_positive_int(n_permutations, "n_permutations")
    values = [v for pair in pairs for v in pair]
    check_one_of(method, "method", STRATIFIED_METHODS)
    method = resolve_method(method, *values)
    if method == "exact":
        return _exact.stratified_permutation_p([counts(a, b) for a, b in pairs])
    rng = check_random_state(random_state)
    if all(is_binary(v) for v in values):
        return _stratified_binary_monte_carlo_p([counts(a, b) for a, b in pairs], n_permutations, rng)
    pairs = [tuple(centred([a, b])) for a, b in pairs]
    observed = max(abs(a.mean() - b.mean()) for a, b in pairs)
    largest = np.max(
        [np.abs(_monte_carlo.shuffled_gaps(rng, a, b, n_permutations)) for a, b in pairs], axis=0
    )
    return monte_carlo_p(np.count_nonzero(largest >= observed - float_tolerance(values)), n_permutations)


def stratified_bootstrap_ci(
    strata: Sequence[tuple],
    n_resamples: int = 2000,
    confidence: float = 0.95,
    random_state: RandomState = DEFAULT_SEED,
    method: str = "auto",
) -> tuple[float, float]:
    """Percentile interval of the signed gap of the stratum whose |gap| is largest.

    Each group of each stratum is resampled to its own size; in every resample the
    statistic is the gap (with its sign) of the stratum with the largest |gap|, the
    first stratum on a tie. Parameters as :func:`bootstrap_ci`; there is no exact method.
    Its coverage is not guaranteed (see the module docstring); the reports use the
    Sidak-combined interval by default.

    See Also
    --------
    stratified_report_from_counts : the default interval of the same value.

    Examples
    --------
    >>> from faircode.significance import stratified_bootstrap_ci
    >>> tpr = ([1] * 8 + [0] * 2, [1] * 5 + [0] * 5)
    >>> fpr = ([1] * 3 + [0] * 17, [1] * 2 + [0] * 18)
    >>> low, high = stratified_bootstrap_ci([tpr, fpr], random_state=0)
    >>> print(f"{low:+.2f} to {high:+.2f}")
    -0.10 to +0.70
    """
    pairs = _strata(strata)
    n_resamples = check_positive_int(n_resamples, "n_resamples")
    levels = interval_levels(check_open_unit(confidence, "confidence"))
    if check_one_of(method, "method", STRATIFIED_METHODS) == "exact":
        raise InvalidInputError(NO_EXACT_STRATIFIED_INTERVAL)
    rng = check_random_state(random_state)
    gaps = []
    for a, b in pairs:
        if is_binary(a) and is_binary(b):
            gaps.append(_monte_carlo.binomial_gaps(rng, *counts(a, b), n_resamples))
        else:
            gaps.append(_monte_carlo.resampled_gaps(rng, a, b, n_resamples))
    return percentile_interval(_signed_largest(np.array(gaps)), levels)


def stratified_report_from_counts(
    strata: Sequence[tuple[int, int, int, int]],
    *,
    n_resamples: int = 2000,
    n_permutations: int = 2000,
    confidence: float = 0.95,
    alpha: float = 0.05,
    random_state: RandomState = DEFAULT_SEED,
    method: str = "auto",
    ci_method: str = "auto",
) -> SignificanceReport:
    """Report on the largest |gap| over 0/1 strata given as (ones_a, n_a, ones_b, n_b).

    ``gap`` is the signed gap of the stratum with the largest |gap| (the first on a tie);
    the p-value is :func:`stratified_permutation_test`'s. The interval, by default, is
    the Sidak combination of the strata's default intervals (see the module docstring:
    exact unconditional for small strata, Agresti-Caffo for large; ``ci_method`` names
    it, e.g. "sidak_exact_unconditional"); with
    ``ci_method="bootstrap"``, :func:`stratified_bootstrap_ci`'s. ``n_a`` and ``n_b`` count
    the rows of all strata; ``small_sample_warning`` is set when any group of any
    stratum has fewer than 30 rows; ``minimum_detectable_gap`` is that of the stratum
    whose gap is reported, at its pooled rate.

    See Also
    --------
    stratified_permutation_test : the test alone.
    faircode.metrics.equalized_odds_diff : the metric this reports.

    Examples
    --------
    >>> from faircode.significance import stratified_report_from_counts
    >>> report = stratified_report_from_counts([(8, 10, 5, 10), (3, 20, 2, 20)])
    >>> print(f"{report.gap:+.2f} ({report.ci_low:+.2f} to {report.ci_high:+.2f}), {report.ci_method}")
    +0.30 (-0.23 to +0.71), sidak_exact_unconditional
    """
    check_one_of(ci_method, "ci_method", STRATIFIED_CI_METHODS)
    check_one_of(method, "method", STRATIFIED_METHODS)
    settings = Settings.checked(n_resamples, n_permutations, confidence, alpha, method, ci_method)
    tables = [checked_counts(*s) for s in strata]
    if not tables:
        raise InvalidInputError(NO_STRATA.format(count=0))
    return stratified_binary_report(tables, n_resamples, settings, check_random_state(random_state))


def stratified_binary_report(
    tables: list[tuple[int, int, int, int]],
    n_resamples: int,
    settings: Settings,
    rng: np.random.Generator,
    exact_p: float | None = None,
    first_gaps: np.ndarray | None = None,
) -> SignificanceReport:
    """:func:`stratified_report_from_counts` on validated strata.

    Work the caller has already done is passed in: ``exact_p``, the exact p-value (used
    only when the p-value is exact), and ``first_gaps``, the first stratum's resampled
    gaps, drawn from ``rng`` just before (``rng`` then continues after them).
    """
    if settings.ci_method == "bootstrap":
        drawn = [] if first_gaps is None else [first_gaps]
        drawn += [_monte_carlo.binomial_gaps(rng, *s, n_resamples) for s in tables[len(drawn):]]
        interval = percentile_interval(_signed_largest(np.array(drawn)), settings.levels)
        ci_method = "bootstrap"
    else:
        methods = [settings.binary_ci_method(n_a, n_b) for _, n_a, _, n_b in tables]
        interval, ci_method = sidak_interval(tables, methods, settings.confidence)
    if settings.method == "monte_carlo":
        p = _stratified_binary_monte_carlo_p(tables, settings.n_permutations, rng)
    elif exact_p is not None:
        p = exact_p
    else:
        p = _exact.stratified_permutation_p(tables)
    index, _ = _exact.largest_gap(tables)
    ones_a, n_a, ones_b, n_b = tables[index]
    pooled = (ones_a + ones_b) / (n_a + n_b)
    mdg, note = planned_gap(n_a, n_b, pooled, settings.alpha)
    return SignificanceReport(
        gap=ones_a / n_a - ones_b / n_b,
        ci_low=float(interval[0]),
        ci_high=float(interval[1]),
        p_value=p,
        significant=bool(p < settings.alpha),
        n_a=sum(s[1] for s in tables),
        n_b=sum(s[3] for s in tables),
        small_sample_warning=any(min(s[1], s[3]) < SMALL_SAMPLE_SIZE for s in tables),
        minimum_detectable_gap=mdg,
        n_permutations=settings.n_permutations if settings.method == "monte_carlo" else None,
        ci_method=ci_method,
        mdg_rate=pooled,
        note=note,
    )


def sidak_interval(tables, methods: Sequence[str], confidence: float) -> tuple[tuple[float, float], str]:
    """The interval of the signed larger gap from the strata's intervals at the Sidak level.

    ``methods`` names each stratum's interval. Returns the interval and its name, "sidak_"
    + the per-stratum methods, distinct ones joined by "+" in stratum order (e.g.
    "sidak_exact_unconditional+agresti_caffo" for a small first stratum and a large
    second). With more than two strata the combination is applied pairwise, in stratum
    order (the signed larger gap of three is the larger of the first two's and the third's).
    """
    level = _intervals.sidak_confidence(confidence, len(tables))
    low, high = score_interval(methods[0], *tables[0], level)
    for table, method in zip(tables[1:], methods[1:]):
        other = score_interval(method, *table, level)
        low, high = (float(v) for v in _intervals.larger_gap_interval(low, high, *other))
    return (low, high), "sidak_" + "+".join(dict.fromkeys(methods))


def _stratified_binary_monte_carlo_p(tables, n_permutations, rng) -> float:
    _, gap = _exact.largest_gap(tables)
    thresholds = _exact.stratum_thresholds(tables, gap)
    reached = np.zeros(n_permutations, dtype=bool)
    for (ones_a, n_a, ones_b, n_b), threshold in zip(tables, thresholds):
        drawn = _monte_carlo.hypergeometric_numerators(rng, n_a, n_b, ones_a + ones_b, n_permutations)
        reached |= drawn >= threshold
    return monte_carlo_p(np.count_nonzero(reached), n_permutations)


def _signed_largest(gaps: np.ndarray) -> np.ndarray:
    """Per column, the entry with the largest absolute value (first row on a tie)."""
    rows = np.argmax(np.abs(gaps), axis=0)
    return gaps[rows, np.arange(gaps.shape[1])]


def _strata(strata) -> list[tuple[np.ndarray, np.ndarray]]:
    pairs = list(strata)
    if not pairs:
        raise InvalidInputError(NO_STRATA.format(count=0))
    return [
        (as_numeric_array(a, f"strata[{i}][0]"), as_numeric_array(b, f"strata[{i}][1]"))
        for i, (a, b) in enumerate(pairs)
    ]
