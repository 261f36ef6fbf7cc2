"""Tests of the largest gap over several strata, labels shuffled within each stratum.

Equalized odds is the case in point: its strata are the y = 1 rows (true positive rate)
and the y = 0 rows (false positive rate). Re-exported by :mod:`faircode.significance`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from faircode import _exact, _monte_carlo
from faircode._checks import (
    as_numeric_array,
    check_one_of,
    check_open_unit,
    check_positive_int,
    check_random_state,
    is_binary,
)
from faircode._report import (
    METHODS,
    SMALL_SAMPLE_SIZE,
    RandomState,
    Settings,
    SignificanceReport,
    checked_counts,
    counts,
    detectable_gap,
    float_tolerance,
    interval_levels,
    percentile_interval,
    resolve_method,
)
from faircode.exceptions import InvalidInputError

NO_EXACT_STRATIFIED_INTERVAL = (
    "stratified_bootstrap_ci has no exact method; use method='monte_carlo' or 'auto'."
)

NO_STRATA = "strata must hold at least one (a, b) pair of groups; got {count}."


def stratified_permutation_test(
    strata: Sequence[tuple],
    n_permutations: int = 2000,
    random_state: RandomState = None,
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
    random_state : None, int or numpy.random.Generator
        Seed of the Monte Carlo method.
    method : {"auto", "exact", "monte_carlo"}
        "exact" (0/1 data only): with t the observed largest |gap| and p_s(t) the exact
        probability that stratum s alone reaches |gap| >= t under relabelling, the strata
        being shuffled independently, p = 1 - prod_s (1 - p_s(t)). Each p_s is evaluated
        at the common threshold t, not at the stratum's own gap. "monte_carlo" counts the
        share of joint relabellings whose largest |gap| reaches t.

    Returns
    -------
    float
        The p-value.
    """
    pairs = _strata(strata)
    n_permutations = check_positive_int(n_permutations, "n_permutations")
    values = [v for pair in pairs for v in pair]
    method = resolve_method(method, *values)
    if method == "exact":
        return _exact.stratified_permutation_p([counts(a, b) for a, b in pairs])
    rng = check_random_state(random_state)
    if all(is_binary(v) for v in values):
        return _stratified_binary_monte_carlo_p([counts(a, b) for a, b in pairs], n_permutations, rng)
    observed = max(abs(a.mean() - b.mean()) for a, b in pairs)
    largest = np.max(
        [np.abs(_monte_carlo.shuffled_gaps(rng, a, b, n_permutations)) for a, b in pairs], axis=0
    )
    return float(np.mean(largest >= observed - float_tolerance(values)))


def stratified_bootstrap_ci(
    strata: Sequence[tuple],
    n_resamples: int = 2000,
    confidence: float = 0.95,
    random_state: RandomState = None,
    method: str = "auto",
) -> tuple[float, float]:
    """Percentile interval of the signed gap of the stratum whose |gap| is largest.

    Each group of each stratum is resampled to its own size; in every resample the
    statistic is the gap (with its sign) of the stratum with the largest |gap|, the
    first stratum on a tie. Parameters as :func:`bootstrap_ci`; there is no exact method.
    """
    pairs = _strata(strata)
    n_resamples = check_positive_int(n_resamples, "n_resamples")
    levels = interval_levels(check_open_unit(confidence, "confidence"))
    if check_one_of(method, "method", METHODS) == "exact":
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
    random_state: RandomState = 42,
    method: str = "auto",
) -> SignificanceReport:
    """Report on the largest |gap| over 0/1 strata given as (ones_a, n_a, ones_b, n_b).

    ``gap`` is the signed gap of the stratum with the largest |gap| (the first on a tie);
    the interval comes from :func:`stratified_bootstrap_ci`'s resampling and the p-value
    from :func:`stratified_permutation_test`. ``n_a`` and ``n_b`` count the rows of all
    strata; ``small_sample_warning`` is set when any group of any stratum has fewer than
    30 rows; ``minimum_detectable_gap`` is that of the stratum whose gap is reported.
    """
    settings = Settings.checked(n_resamples, n_permutations, confidence, alpha, method, "auto")
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
    drawn = [] if first_gaps is None else [first_gaps]
    drawn += [_monte_carlo.binomial_gaps(rng, *s, n_resamples) for s in tables[len(drawn):]]
    gaps = np.array(drawn)
    interval = percentile_interval(_signed_largest(gaps), settings.levels)
    if settings.method == "monte_carlo":
        p = _stratified_binary_monte_carlo_p(tables, settings.n_permutations, rng)
    elif exact_p is not None:
        p = exact_p
    else:
        p = _exact.stratified_permutation_p(tables)
    index, _ = _exact.largest_gap(tables)
    ones_a, n_a, ones_b, n_b = tables[index]
    return SignificanceReport(
        gap=ones_a / n_a - ones_b / n_b,
        ci_low=float(interval[0]),
        ci_high=float(interval[1]),
        p_value=p,
        significant=bool(p < settings.alpha),
        n_a=sum(s[1] for s in tables),
        n_b=sum(s[3] for s in tables),
        small_sample_warning=any(min(s[1], s[3]) < SMALL_SAMPLE_SIZE for s in tables),
        minimum_detectable_gap=detectable_gap(n_a, n_b, settings.alpha),
        n_permutations=settings.n_permutations if settings.method == "monte_carlo" else None,
    )


def _stratified_binary_monte_carlo_p(tables, n_permutations, rng) -> float:
    _, gap = _exact.largest_gap(tables)
    thresholds = _exact.stratum_thresholds(tables, gap)
    reached = np.zeros(n_permutations, dtype=bool)
    for (ones_a, n_a, ones_b, n_b), threshold in zip(tables, thresholds):
        drawn = _monte_carlo.hypergeometric_numerators(rng, n_a, n_b, ones_a + ones_b, n_permutations)
        reached |= drawn >= threshold
    return float(np.mean(reached))


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
