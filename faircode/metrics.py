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
group under 30 of those rows), ``minimum_detectable_gap`` (in rate units, 80% power,
alpha 0.05, rate 0.5) and, with ``significance=True``, the bootstrap interval, the exact
permutation p-value and ``significant``, computed on exactly those rows. The ratio's
p-value is that of the selection-rate gap (the same null hypothesis: equal rates); its
interval is the percentile interval of resampled ratios. Equalized odds is tested with
:func:`faircode.significance.stratified_permutation_test`.

A rate with no rows to be measured on (no positives in a group, say) makes the value NaN
and ``note`` says why. :func:`fairness_report` stacks the records of every protected
attribute into one tidy DataFrame.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from faircode._checks import (
    as_binary_array,
    as_group_mask,
    check_one_of,
    check_open_unit,
    check_positive_int,
    check_random_state,
    check_same_length,
)
from faircode._metric_records import (
    NOTE_EMPTY,
    NOTE_LARGER_GAP,
    NOTE_RATIO_UNDEFINED,
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
    "p_value",
    "significant",
    "n_disadvantaged",
    "n_advantaged",
    "small_sample_warning",
    "minimum_detectable_gap",
    "note",
)
"""The columns of :func:`fairness_report`, in order."""

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
    "COLUMNS",
    "METRICS",
    "NOTE_EMPTY",
    "NOTE_LARGER_GAP",
    "NOTE_RATIO_UNDEFINED",
    "GroupConfusion",
    "MetricRecord",
    "accuracy_diff",
    "count_confusion",
    "demographic_parity_diff",
    "disparate_impact_ratio",
    "equal_opportunity_diff",
    "equalized_odds_diff",
    "fairness_report",
    "false_positive_rate_diff",
    "metric_records",
    "predictive_parity_diff",
]


def count_confusion(y_true, y_pred, group) -> tuple[GroupConfusion, GroupConfusion]:
    """Confusion counts of the disadvantaged (group = 1) and advantaged (group = 0) rows.

    Parameters
    ----------
    y_true, y_pred : list, numpy array or pandas Series of 0/1
        True and predicted labels.
    group : list, numpy array or pandas Series
        1 = disadvantaged, 0 = advantaged, anything else (NaN included) = left out.

    Returns
    -------
    (GroupConfusion, GroupConfusion)
        The disadvantaged group's counts, then the advantaged group's.
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
    random_state: None | int | np.random.Generator = 42,
) -> list[MetricRecord]:
    """Every requested metric for one protected attribute: a pure function of its inputs.

    Parameters are those of :func:`fairness_report`, with one ``group`` mask. The rows are
    counted once into two confusion tables; every metric and test is computed from them.
    """
    confusion = count_confusion(y_true, y_pred, group)
    options = _options(significance, n_resamples, n_permutations, confidence, alpha, random_state)
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
    random_state: None | int | np.random.Generator = 42,
) -> pd.DataFrame:
    """A tidy table of fairness metrics: one row per protected attribute and metric.

    Parameters
    ----------
    y_true, y_pred : list, numpy array or pandas Series of 0/1
        True and predicted labels, one per row.
    masks : mapping of name -> mask, or a DataFrame of mask columns
        Per protected attribute, 1 = disadvantaged, 0 = advantaged, anything else
        (NaN included) = row left out of that attribute's comparison. Rows are matched
        by position (a pandas index is not used for alignment).
    metrics : sequence of str, default all of :data:`METRICS`
        The metrics to compute, in this order.
    significance : bool, default False
        Add the bootstrap interval, the exact permutation p-value and ``significant``.
    n_resamples, n_permutations : int, default 2000
        Bootstrap resamples; relabellings if a Monte Carlo test is needed.
    confidence : float, default 0.95
        Coverage of the intervals.
    alpha : float, default 0.05
        Level of ``significant`` (unadjusted; see
        :func:`faircode.significance.adjust_p_values` for a family of tests).
    random_state : None, int or numpy.random.Generator, default 42
        An int seeds every metric's resampling afresh, so a row equals the single
        metric function called with the same seed; a Generator is drawn from in order.

    Returns
    -------
    pandas.DataFrame
        The columns of :data:`COLUMNS`; ``significant`` is a nullable boolean, missing
        when the metric could not be tested (``note`` says why).
    """
    y_true, y_pred = _checked_labels(y_true, y_pred)
    options = _options(significance, n_resamples, n_permutations, confidence, alpha, random_state)
    names = _checked_metrics(metrics)
    attributes, confusions = [], []
    for attribute, mask in _mask_items(masks):
        codes = as_group_mask(mask, f"masks[{attribute!r}]")
        check_same_length(y_true=y_true, **{f"masks[{attribute!r}]": codes})
        confusions.append(confusion_from_codes(y_true, y_pred, codes))
        attributes.extend([attribute] * len(names))
    records = [record for group in compute_records(names, confusions, options) for record in group]
    return _as_table(attributes, records)


def demographic_parity_diff(y_true, y_pred, group, **options) -> MetricRecord:
    """Selection rate of the disadvantaged group minus the advantaged group's, on all rows.

    Parameters
    ----------
    y_true, y_pred : list, numpy array or pandas Series of 0/1
        True and predicted labels (y_true is validated but does not enter the rate).
    group : list, numpy array or pandas Series
        1 = disadvantaged, 0 = advantaged, anything else = left out.
    **options
        ``significance``, ``n_resamples``, ``n_permutations``, ``confidence``, ``alpha``,
        ``random_state`` as in :func:`fairness_report`.

    Returns
    -------
    MetricRecord
    """
    return _single("demographic_parity_diff", y_true, y_pred, group, options)


def disparate_impact_ratio(y_true, y_pred, group, **options) -> MetricRecord:
    """Selection rate of the disadvantaged group divided by the advantaged group's.

    NaN when the advantaged rate is 0. Parameters and result as
    :func:`demographic_parity_diff`.
    """
    return _single("disparate_impact_ratio", y_true, y_pred, group, options)


def equal_opportunity_diff(y_true, y_pred, group, **options) -> MetricRecord:
    """True positive rate gap (disadvantaged minus advantaged), on the y_true = 1 rows.

    Parameters and result as :func:`demographic_parity_diff`.
    """
    return _single("equal_opportunity_diff", y_true, y_pred, group, options)


def false_positive_rate_diff(y_true, y_pred, group, **options) -> MetricRecord:
    """False positive rate gap (disadvantaged minus advantaged), on the y_true = 0 rows.

    Parameters and result as :func:`demographic_parity_diff`.
    """
    return _single("false_positive_rate_diff", y_true, y_pred, group, options)


def equalized_odds_diff(y_true, y_pred, group, **options) -> MetricRecord:
    """The larger |gap| of the true and false positive rates, with its sign.

    The rates in the record are those of the component whose gap is reported (the true
    positive rate on a tie), ``note`` names it, and the counts are all rows. With
    ``significance=True`` the p-value is the stratified permutation test of the larger
    |gap| (labels shuffled within y = 1 and within y = 0 rows). Parameters as
    :func:`demographic_parity_diff`.
    """
    return _single("equalized_odds_diff", y_true, y_pred, group, options)


def predictive_parity_diff(y_true, y_pred, group, **options) -> MetricRecord:
    """Precision gap (disadvantaged minus advantaged), on the y_pred = 1 rows.

    Parameters and result as :func:`demographic_parity_diff`.
    """
    return _single("predictive_parity_diff", y_true, y_pred, group, options)


def accuracy_diff(y_true, y_pred, group, **options) -> MetricRecord:
    """Accuracy gap (disadvantaged minus advantaged), on all rows.

    Parameters and result as :func:`demographic_parity_diff`.
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


def _options(significance, n_resamples, n_permutations, confidence, alpha, random_state) -> Options:
    if not isinstance(random_state, np.random.Generator):
        check_random_state(random_state)  # validated once here, re-created per metric
    return Options(
        significance=bool(significance),
        n_resamples=check_positive_int(n_resamples, "n_resamples"),
        n_permutations=check_positive_int(n_permutations, "n_permutations"),
        confidence=check_open_unit(confidence, "confidence"),
        alpha=check_open_unit(alpha, "alpha"),
        random_state=random_state,
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
                     "minimum_detectable_gap"), np.float64),
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
