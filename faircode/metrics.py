"""Group fairness metrics, each measured on its own rows, with significance on request.

Inputs: ``y_true`` and ``y_pred`` (0/1; 1 is the label's positive class) and a group mask
(1 = disadvantaged, 0 = advantaged, any other value or NaN = left out). Every gap is
signed **disadvantaged minus advantaged**; the ratio is **disadvantaged / advantaged**.

=========================  =====================================  =======================
metric                     rate compared                          rows it is measured on
=========================  =====================================  =======================
demographic_parity_diff    selection rate P(y_pred = 1)           all rows
disparate_impact_ratio     selection rate, as a ratio             all rows
equal_opportunity_diff     true positive rate P(y_pred=1 | y=1)   rows with y_true = 1
false_positive_rate_diff   false positive rate P(y_pred=1 | y=0)  rows with y_true = 0
equalized_odds_diff        the larger |gap| of TPR and FPR,       all rows (two strata)
                           with its sign (TPR on a tie)
predictive_parity_diff     precision P(y = 1 | y_pred = 1)        rows with y_pred = 1
accuracy_diff              accuracy P(y_pred = y_true)            all rows
=========================  =====================================  =======================

Each metric returns a :class:`MetricRecord`: the value, both groups' rates, the rows
counted in each group (those the metric is measured on), ``small_sample_warning`` (a
group under 30 of those rows), ``minimum_detectable_gap`` (in rate units, 80% power at
``alpha``, planned at the two groups' pooled rate, ``mdg_rate``, from the exact test's
power when a group has under 200 rows) and, with ``significance=True``, the interval
(``ci_method`` names it), the exact permutation p-value and ``significant``, computed on
exactly those rows. Every gap is a difference of two proportions (selection rates, true
and false positive rates, precisions among the predicted positives, accuracies), so its
interval is an interval of two proportions: the exact unconditional one (Chan and Zhang),
whose coverage is at least nominal at every pair of rates, for groups of up to 100 rows
each, and Agresti and Caffo's adjusted Wald interval for larger groups. The ratio's
p-value is that of the selection-rate gap (the same null hypothesis: equal rates; it is
one test, and :func:`fairness_report` counts it once in a family); its interval is the
exact unconditional interval of a ratio of proportions on the same small groups, else the
score interval (Miettinen-Nurminen). Equalized odds is tested with
:func:`faircode.significance.stratified_permutation_test`; its interval combines the two
rates' intervals at the Sidak level and covers the signed larger gap (see
:mod:`faircode._stratified`). ``ci_method="bootstrap"`` gives every metric its
percentile bootstrap interval instead.

A rate with no rows to be measured on (no positives in a group, say) makes the value NaN
and ``note`` says why. :func:`fairness_report` stacks the records of every protected
attribute into one tidy DataFrame.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from faircode._checks import (
    DEFAULT_SEED,
    as_binary_array,
    as_group_mask,
    check_one_of,
    check_open_unit,
    check_positive_int,
    check_random_state,
    check_same_length,
)
from faircode._multiple_testing import ADJUSTMENTS, adjust_p_values
from faircode.exceptions import InvalidInputError
from faircode._metric_records import (
    NOTE_EMPTY,
    NOTE_LARGER_GAP,
    NOTE_RATIO_UNDEFINED,
    RATIO_CI_METHOD,
    RECORD_CI_METHODS,
    GroupConfusion,
    MetricRecord,
    Options,
    compute_records,
    confusion_from_codes,
)

COLUMNS = (
    "protected_attribute",
    "metric",
    "value",
    "rate_disadvantaged",
    "rate_advantaged",
    "ci_low",
    "ci_high",
    "ci_method",
    "p_value",
    "significant",
    "n_disadvantaged",
    "n_advantaged",
    "small_sample_warning",
    "minimum_detectable_gap",
    "mdg_rate",
    "note",
)
"""The columns of :func:`fairness_report`, in order."""

ADJUSTED_COLUMNS = ("p_adjusted", "significant_adjusted")
"""The columns :func:`fairness_report` adds with ``adjust=``, after ``significant``."""

SHARED_TESTS = {"disparate_impact_ratio": "demographic_parity_diff"}
"""Metrics whose test is another metric's: the ratio's p-value is the selection-rate gap's."""

METRICS = (
    "demographic_parity_diff",
    "disparate_impact_ratio",
    "equal_opportunity_diff",
    "false_positive_rate_diff",
    "equalized_odds_diff",
    "predictive_parity_diff",
    "accuracy_diff",
)
"""Every metric faircode computes, in report order."""

__all__ = [
    "ADJUSTED_COLUMNS",
    "ADJUSTING_NEEDS_SIGNIFICANCE",
    "COLUMNS",
    "METRICS",
    "NOTE_EMPTY",
    "NOTE_LARGER_GAP",
    "NOTE_RATIO_UNDEFINED",
    "RATIO_CI_METHOD",
    "SHARED_TESTS",
    "GroupConfusion",
    "MetricRecord",
    "accuracy_diff",
    "count_confusion",
    "demographic_parity_diff",
    "disparate_impact_ratio",
    "equal_opportunity_diff",
    "equalized_odds_diff",
    "family_p_values",
    "fairness_report",
    "false_positive_rate_diff",
    "metric_records",
    "predictive_parity_diff",
]


ADJUSTING_NEEDS_SIGNIFICANCE = (
    "adjust={adjust!r} adjusts the p-values of the tests, so it needs significance=True; got significance=False."
)


def count_confusion(y_true, y_pred, group) -> tuple[GroupConfusion, GroupConfusion]:
    """Confusion counts of the disadvantaged (group = 1) and advantaged (group = 0) rows.

    Parameters
    ----------
    y_true, y_pred : list, numpy array or pandas Series of 0/1
        True and predicted labels.
    group : list, numpy array or pandas Series
        1 = disadvantaged, 0 = advantaged, missing (NaN, None) = row left out. Any other
        value is an error, so no row is dropped because of a mistyped code.

    Returns
    -------
    (GroupConfusion, GroupConfusion)
        The disadvantaged group's counts, then the advantaged group's.

    See Also
    --------
    metric_records : every metric from the same counts.

    Examples
    --------
    >>> from faircode.metrics import count_confusion
    >>> count_confusion([1, 0, 1, 0, 1], [1, 1, 0, 0, 1], [1, 1, 0, 0, float("nan")])
    (GroupConfusion(tp=1, fp=1, tn=0, fn=0), GroupConfusion(tp=0, fp=0, tn=1, fn=1))
    """
    y_true, y_pred, codes = _checked_inputs(y_true, y_pred, group, "group")
    return confusion_from_codes(y_true, y_pred, codes)


def metric_records(
    y_true,
    y_pred,
    group,
    *,
    metrics: Sequence[str] = METRICS,
    significance: bool = False,
    n_resamples: int = 2000,
    n_permutations: int = 2000,
    confidence: float = 0.95,
    alpha: float = 0.05,
    random_state=DEFAULT_SEED,
    ci_method: str = "auto",
) -> list[MetricRecord]:
    """Every requested metric for one protected attribute: a pure function of its inputs.

    Parameters are those of :func:`fairness_report`, with one ``group`` mask. The rows are
    counted once into two confusion tables; every metric and test is computed from them.

    See Also
    --------
    fairness_report : the same for several attributes, as a table.

    Examples
    --------
    >>> from faircode.metrics import metric_records
    >>> y_true = [1, 1, 0, 0, 1, 1, 0, 0]
    >>> y_pred = [1, 1, 1, 0, 1, 0, 0, 0]
    >>> group = [1, 1, 1, 1, 0, 0, 0, 0]
    >>> [(r.metric, round(r.value, 3)) for r in metric_records(y_true, y_pred, group)][:3]
    [('demographic_parity_diff', 0.5), ('disparate_impact_ratio', 3.0), ('equal_opportunity_diff', 0.5)]
    """
    confusion = count_confusion(y_true, y_pred, group)
    options = _options(significance, n_resamples, n_permutations, confidence, alpha, random_state, ci_method)
    return compute_records(_checked_metrics(metrics), [confusion], options)[0]


def fairness_report(
    y_true,
    y_pred,
    masks: Mapping[str, object] | pd.DataFrame,
    *,
    metrics: Sequence[str] = METRICS,
    significance: bool = False,
    n_resamples: int = 2000,
    n_permutations: int = 2000,
    confidence: float = 0.95,
    alpha: float = 0.05,
    random_state=DEFAULT_SEED,
    ci_method: str = "auto",
    adjust: str | None = None,
) -> pd.DataFrame:
    """A tidy table of fairness metrics: one row per protected attribute and metric.

    Parameters
    ----------
    y_true, y_pred : list, numpy array or pandas Series of 0/1
        True and predicted labels, one per row.
    masks : mapping of name -> mask, or a DataFrame of mask columns
        Per protected attribute, 1 = disadvantaged, 0 = advantaged, missing (NaN, None)
        = row left out of that attribute's comparison; any other value is an error.
        Rows are matched by position (a pandas index is not used for alignment).
    metrics : sequence of str, default all of :data:`METRICS`
        The metrics to compute, in this order.
    significance : bool, default False
        Add the interval, the exact permutation p-value and ``significant``.
    n_resamples, n_permutations : int, default 2000
        Bootstrap resamples (``ci_method="bootstrap"``); relabellings if a Monte Carlo
        test is needed.
    confidence : float, default 0.95
        Nominal coverage of the intervals.
    alpha : float, default 0.05
        Level of ``significant`` (unadjusted) and of ``significant_adjusted``.
    random_state : None, int, numpy.random.Generator or numpy.random.RandomState, default 42
        Seed of the bootstrap intervals (the default intervals and exact tests draw
        nothing). An int seeds every metric's resampling afresh, so a row equals the
        single metric function called with the same seed; a Generator or RandomState is
        drawn from in order.
    ci_method : {"auto", "bootstrap"}, default "auto"
        "auto": each metric's interval of honest coverage (see the module docstring);
        "bootstrap": every metric's percentile bootstrap interval.
    adjust : {"holm", "bh"} or None, default None
        Adjust the p-values for the family of tests in this call (every attribute and
        metric): adds ``p_adjusted`` and ``significant_adjusted`` (``p_adjusted <
        alpha``). Each distinct test counts once: the ratio shares demographic parity's
        test (:data:`SHARED_TESTS`), so it carries that test's adjusted p and does not
        enlarge the family. Untested rows (NaN p) stay out of the family. Needs
        ``significance=True``.

    Returns
    -------
    pandas.DataFrame
        The columns of :data:`COLUMNS` (with :data:`ADJUSTED_COLUMNS` after
        ``significant`` when adjusted); ``significant`` is a nullable boolean, missing
        when the metric could not be tested (``note`` says why).

    See Also
    --------
    metric_records : the records of one attribute.
    faircode.significance.adjust_p_values : Holm and Benjamini-Hochberg.

    Examples
    --------
    >>> import numpy as np
    >>> from faircode.metrics import fairness_report
    >>> rng = np.random.default_rng(0)
    >>> group = rng.integers(0, 2, 400)
    >>> y_true = rng.integers(0, 2, 400)
    >>> y_pred = (rng.random(400) < np.where(group == 1, 0.35, 0.5)).astype(int)
    >>> table = fairness_report(y_true, y_pred, {"group": group}, significance=True, adjust="holm",
    ...                         metrics=["demographic_parity_diff", "disparate_impact_ratio", "accuracy_diff"])
    >>> table[["metric", "value", "ci_low", "ci_high", "p_value", "p_adjusted"]].round(4)
                        metric   value  ci_low  ci_high  p_value  p_adjusted
    0  demographic_parity_diff -0.0860 -0.1816   0.0109   0.0831      0.1661
    1   disparate_impact_ratio  0.8100  0.6391   1.0271   0.0831      0.1661
    2            accuracy_diff  0.0727 -0.0258   0.1697   0.1598      0.1661
    """
    y_true, y_pred = _checked_labels(y_true, y_pred)
    options = _options(significance, n_resamples, n_permutations, confidence, alpha, random_state, ci_method)
    if adjust is not None:
        check_one_of(adjust, "adjust", ADJUSTMENTS)
        if not options.significance:
            raise InvalidInputError(ADJUSTING_NEEDS_SIGNIFICANCE.format(adjust=adjust))
    names = _checked_metrics(metrics)
    attributes, confusions = [], []
    for attribute, mask in _mask_items(masks):
        codes = as_group_mask(mask, f"masks[{attribute!r}]")
        check_same_length(y_true=y_true, **{f"masks[{attribute!r}]": codes})
        confusions.append(confusion_from_codes(y_true, y_pred, codes))
        attributes.extend([attribute] * len(names))
    records = [record for group in compute_records(names, confusions, options) for record in group]
    table = _as_table(attributes, records)
    if adjust is None:
        return table
    return _with_adjusted(table, adjust, options.alpha)


def family_p_values(table: pd.DataFrame, method: str) -> np.ndarray:
    """Adjusted p-values of a report's rows, each distinct test counted once.

    A row's test is its attribute and its metric, the metrics of :data:`SHARED_TESTS`
    standing for the metric whose test they share; the family is those tests with a
    p-value, adjusted together by :func:`faircode.significance.adjust_p_values`, and each
    row gets its test's adjusted p (NaN where untested).

    See Also
    --------
    fairness_report : ``adjust=`` adds these to the report.
    faircode.significance.adjust_p_values : the adjustment itself.

    Examples
    --------
    >>> import pandas as pd
    >>> from faircode.metrics import family_p_values
    >>> rows = pd.DataFrame({"protected_attribute": ["sex"] * 3,
    ...                      "metric": ["demographic_parity_diff", "disparate_impact_ratio", "accuracy_diff"],
    ...                      "p_value": [0.01, 0.01, 0.04]})
    >>> family_p_values(rows, "holm")  # a family of two tests, not three
    array([0.02, 0.02, 0.04])
    """
    tests = list(zip(table["protected_attribute"], table["metric"].map(lambda m: SHARED_TESTS.get(m, m))))
    p_values = table["p_value"].to_numpy(dtype=float)
    first: dict[tuple, float] = {}
    for test, p in zip(tests, p_values):
        if not np.isnan(p):
            first.setdefault(test, p)
    family = list(first)
    adjusted = dict(zip(family, adjust_p_values([first[t] for t in family], method=method))) if family else {}
    return np.array([adjusted.get(test, np.nan) if not np.isnan(p) else np.nan for test, p in zip(tests, p_values)])


def _with_adjusted(table: pd.DataFrame, method: str, alpha: float) -> pd.DataFrame:
    adjusted = family_p_values(table, method)
    position = table.columns.get_loc("significant") + 1
    table.insert(position, "p_adjusted", adjusted)
    significant = pd.array([None if np.isnan(p) else bool(p < alpha) for p in adjusted], dtype="boolean")
    table.insert(position + 1, "significant_adjusted", significant)
    return table


def demographic_parity_diff(y_true, y_pred, group, **options) -> MetricRecord:
    """Selection rate of the disadvantaged group minus the advantaged group's, on all rows.

    Parameters
    ----------
    y_true, y_pred : list, numpy array or pandas Series of 0/1
        True and predicted labels (y_true is validated but does not enter the rate).
    group : list, numpy array or pandas Series
        1 = disadvantaged, 0 = advantaged, missing (NaN) = left out.
    **options
        ``significance``, ``n_resamples``, ``n_permutations``, ``confidence``, ``alpha``,
        ``random_state``, ``ci_method`` as in :func:`fairness_report`.

    Returns
    -------
    MetricRecord

    See Also
    --------
    disparate_impact_ratio : the same rates as a ratio.
    fairness_report : every metric in one table.

    Examples
    --------
    >>> from faircode.metrics import demographic_parity_diff
    >>> record = demographic_parity_diff([0] * 8, [1, 1, 1, 0, 1, 0, 0, 0], [1, 1, 1, 1, 0, 0, 0, 0],
    ...                                  significance=True)
    >>> round(record.value, 2), round(record.ci_low, 3), round(record.ci_high, 3), record.ci_method
    (0.5, -0.31, 0.94, 'exact_unconditional')
    """
    return _single("demographic_parity_diff", y_true, y_pred, group, options)


def disparate_impact_ratio(y_true, y_pred, group, **options) -> MetricRecord:
    """Selection rate of the disadvantaged group divided by the advantaged group's.

    Infinite when the advantaged rate is 0 (NaN when both are), with a note. Parameters
    and result as :func:`demographic_parity_diff`; the interval is the exact unconditional
    interval of a ratio of two proportions for groups of up to 100 rows each
    (``ci_method`` "exact_unconditional_ratio"), else the score interval
    ("miettinen_nurminen_ratio"). With no selections in the advantaged group its upper
    end is infinity.

    See Also
    --------
    demographic_parity_diff : the same rates as a gap, with the same test.

    Examples
    --------
    >>> from faircode.metrics import disparate_impact_ratio
    >>> group = [1] * 50 + [0] * 50
    >>> y_pred = [1] * 20 + [0] * 30 + [1] * 30 + [0] * 20
    >>> record = disparate_impact_ratio([0] * 100, y_pred, group, significance=True)
    >>> round(record.value, 3), round(record.ci_low, 3), round(record.ci_high, 3)
    (0.667, 0.415, 1.041)
    """
    return _single("disparate_impact_ratio", y_true, y_pred, group, options)


def equal_opportunity_diff(y_true, y_pred, group, **options) -> MetricRecord:
    """True positive rate gap (disadvantaged minus advantaged), on the y_true = 1 rows.

    Parameters and result as :func:`demographic_parity_diff`.

    See Also
    --------
    equalized_odds_diff : the larger of this gap and the false positive rate's.

    Examples
    --------
    >>> from faircode.metrics import equal_opportunity_diff
    >>> record = equal_opportunity_diff([1, 1, 1, 0, 1, 1, 1, 0], [1, 0, 0, 1, 1, 1, 1, 0],
    ...                                 [1, 1, 1, 1, 0, 0, 0, 0])
    >>> round(record.value, 3), record.n_disadvantaged
    (-0.667, 3)
    """
    return _single("equal_opportunity_diff", y_true, y_pred, group, options)


def false_positive_rate_diff(y_true, y_pred, group, **options) -> MetricRecord:
    """False positive rate gap (disadvantaged minus advantaged), on the y_true = 0 rows.

    Parameters and result as :func:`demographic_parity_diff`.

    See Also
    --------
    equalized_odds_diff : the larger of this gap and the true positive rate's.

    Examples
    --------
    >>> from faircode.metrics import false_positive_rate_diff
    >>> record = false_positive_rate_diff([0, 0, 0, 1, 0, 0, 0, 1], [1, 1, 0, 1, 0, 0, 1, 1],
    ...                                   [1, 1, 1, 1, 0, 0, 0, 0])
    >>> round(record.value, 3), record.n_disadvantaged
    (0.333, 3)
    """
    return _single("false_positive_rate_diff", y_true, y_pred, group, options)


def equalized_odds_diff(y_true, y_pred, group, **options) -> MetricRecord:
    """The larger |gap| of the true and false positive rates, with its sign.

    The rates in the record are those of the component whose gap is reported (the true
    positive rate on a tie), ``note`` names it, and the counts are all rows. With
    ``significance=True`` the p-value is the stratified permutation test of the larger
    |gap| (labels shuffled within y = 1 and within y = 0 rows), and the interval covers
    the signed larger gap: the two rates' intervals at the Sidak level, combined
    (``ci_method`` "sidak_exact_unconditional" or "sidak_agresti_caffo", by the size of
    each rate's groups; see :mod:`faircode._stratified`). Parameters
    as :func:`demographic_parity_diff`.

    See Also
    --------
    faircode.significance.stratified_permutation_test : the test.

    Examples
    --------
    >>> from faircode.metrics import equalized_odds_diff
    >>> y_true = [1] * 20 + [0] * 20 + [1] * 20 + [0] * 20
    >>> y_pred = [1] * 16 + [0] * 4 + [1] * 6 + [0] * 14 + [1] * 10 + [0] * 10 + [1] * 4 + [0] * 16
    >>> group = [1] * 40 + [0] * 40
    >>> record = equalized_odds_diff(y_true, y_pred, group, significance=True)
    >>> round(record.value, 2), record.note
    (0.3, "the larger gap is the true positive rate's")
    >>> round(record.ci_low, 3), round(record.ci_high, 3), record.ci_method
    (-0.23, 0.61, 'sidak_exact_unconditional')
    """
    return _single("equalized_odds_diff", y_true, y_pred, group, options)


def predictive_parity_diff(y_true, y_pred, group, **options) -> MetricRecord:
    """Precision gap (disadvantaged minus advantaged), on the y_pred = 1 rows.

    Parameters and result as :func:`demographic_parity_diff`. Each precision is a
    proportion among the group's predicted positives, so the interval is that of two
    proportions, on those rows.

    See Also
    --------
    fairness_report : every metric in one table.

    Examples
    --------
    >>> from faircode.metrics import predictive_parity_diff
    >>> record = predictive_parity_diff([1, 0, 0, 1, 1, 1, 0, 0], [1, 1, 1, 0, 1, 1, 0, 0],
    ...                                 [1, 1, 1, 1, 0, 0, 0, 0])
    >>> round(record.value, 3), record.n_disadvantaged
    (-0.667, 3)
    """
    return _single("predictive_parity_diff", y_true, y_pred, group, options)


def accuracy_diff(y_true, y_pred, group, **options) -> MetricRecord:
    """Accuracy gap (disadvantaged minus advantaged), on all rows.

    Parameters and result as :func:`demographic_parity_diff`.

    See Also
    --------
    fairness_report : every metric in one table.

    Examples
    --------
    >>> from faircode.metrics import accuracy_diff
    >>> record = accuracy_diff([1, 0, 0, 1, 1, 1, 0, 0], [1, 1, 1, 0, 1, 1, 0, 0],
    ...                        [1, 1, 1, 1, 0, 0, 0, 0])
    >>> round(record.value, 2)
    -0.75
    """
    return _single("accuracy_diff", y_true, y_pred, group, options)


def _checked_labels(y_true, y_pred) -> tuple[np.ndarray, np.ndarray]:
    y_true = as_binary_array(y_true, "y_true")
    y_pred = as_binary_array(y_pred, "y_pred")
    check_same_length(y_true=y_true, y_pred=y_pred)
    return y_true, y_pred


def _checked_inputs(y_true, y_pred, group, group_name: str):
    y_true, y_pred = _checked_labels(y_true, y_pred)
    codes = as_group_mask(group, group_name)
    check_same_length(y_true=y_true, **{group_name: codes})
    return y_true, y_pred, codes


def _checked_metrics(metrics: Sequence[str]) -> list[str]:
    names = [metrics] if isinstance(metrics, str) else list(metrics)
    for name in names:
        check_one_of(name, "metrics", METRICS)
    return names


def _options(significance, n_resamples, n_permutations, confidence, alpha, random_state, ci_method="auto") -> Options:
    if not isinstance(random_state, (np.random.Generator, np.random.RandomState)):
        check_random_state(random_state)  # validated once here, re-created per metric
    return Options(
        significance=bool(significance),
        n_resamples=check_positive_int(n_resamples, "n_resamples"),
        n_permutations=check_positive_int(n_permutations, "n_permutations"),
        confidence=check_open_unit(confidence, "confidence"),
        alpha=check_open_unit(alpha, "alpha"),
        random_state=random_state,
        ci_method=check_one_of(ci_method, "ci_method", RECORD_CI_METHODS),
    )


def _single(name: str, y_true, y_pred, group, options: dict) -> MetricRecord:
    return metric_records(y_true, y_pred, group, metrics=[name], **options)[0]


def _mask_items(masks) -> list[tuple[str, object]]:
    if isinstance(masks, pd.DataFrame):
        return [(str(column), masks[column]) for column in masks.columns]
    return [(str(name), mask) for name, mask in masks.items()]


# The record fields of a fixed numpy type; the text columns are left to pandas to type.
_TYPED_COLUMNS = {
    **dict.fromkeys(("value", "rate_disadvantaged", "rate_advantaged", "ci_low", "ci_high", "p_value",
                     "minimum_detectable_gap", "mdg_rate"), np.float64),
    **dict.fromkeys(("n_disadvantaged", "n_advantaged"), np.int64),
    "small_sample_warning": np.bool_,
}


def _as_table(attributes: list[str], records: list[MetricRecord]) -> pd.DataFrame:
    """One row per record, built column by column with each column's type given, not inferred."""
    if not records:
        table = pd.DataFrame([], columns=list(COLUMNS))
        table["significant"] = table["significant"].astype("boolean")
        return table
    columns: dict[str, object] = {"protected_attribute": attributes}
    for name in COLUMNS[1:]:
        values = [getattr(record, name) for record in records]
        if name in _TYPED_COLUMNS:
            columns[name] = np.array(values, dtype=_TYPED_COLUMNS[name])
        elif name == "significant":
            columns[name] = pd.array(values, dtype="boolean")
        else:
            columns[name] = values
    return pd.DataFrame(columns, columns=list(COLUMNS))
