"""The table of faircode's fairness metrics: one entry per metric, and nothing else to edit.

Everything that lists the metrics is made from :data:`METRIC_TABLE`: ``METRICS`` (report
order), the public function of each metric in :mod:`faircode.metrics` (its name and
docstring), ``__all__`` there and in :mod:`faircode`, the table in the docstring of
:mod:`faircode.metrics`, the shared tests (:data:`faircode.metrics.SHARED_TESTS`) and the
way :mod:`faircode._metric_records` computes each one (its ``kind`` and ``rates``).
Standard library only: :mod:`faircode` reads it without loading numpy.

Examples
--------
>>> from faircode._metric_table import METRIC_TABLE
>>> [(entry.name, entry.kind, entry.rates) for entry in METRIC_TABLE][:2]
[('demographic_parity_diff', 'gap', ('selection',)), ('disparate_impact_ratio', 'ratio', ('selection',))]
"""

from __future__ import annotations

from dataclasses import dataclass

#: How a metric is computed from its rates: the difference of one rate between the groups,
#: their ratio, or the larger |difference| of two rates (equalized odds).
KINDS = ("gap", "ratio", "larger gap")


@dataclass(frozen=True)
class MetricEntry:
    """One fairness metric: its ``name`` (that of its function), ``kind`` (one of
    :data:`KINDS`), the ``rates`` it compares (keys of ``faircode._metric_records._RATES``),
    what its docs table says it compares (``compared``, one line or two) and on which
    ``rows``, its function's docstring ``doc`` (numpydoc, with Examples and See Also), and
    ``shares_test``: the metric whose test it reports (the ratio reports the gap's)."""

    name: str
    kind: str
    rates: tuple[str, ...]
    compared: tuple[str, ...]
    rows: str
    doc: str
    shares_test: str | None = None


METRIC_TABLE: tuple[MetricEntry, ...] = (
    MetricEntry(
        name='demographic_parity_diff',
        kind='gap',
        rates=('selection',),
        compared=('selection rate P(y_pred = 1)',),
        rows='all rows',
        shares_test=None,
        doc="""Selection rate of the disadvantaged group minus the advantaged group's, on all rows.

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
    (0.5, -0.2, 0.867, 'agresti_caffo')
    """,
    ),
    MetricEntry(
        name='disparate_impact_ratio',
        kind='ratio',
        rates=('selection',),
        compared=('selection rate, as a ratio',),
        rows='all rows',
        shares_test='demographic_parity_diff',
        doc="""Selection rate of the disadvantaged group divided by the advantaged group's.

    NaN when the advantaged rate is 0. Parameters and result as
    :func:`demographic_parity_diff`; the interval is the score interval of a ratio of
    two proportions (``ci_method`` "miettinen_nurminen_ratio").

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
    (0.667, 0.436, 0.994)
    """,
    ),
    MetricEntry(
        name='equal_opportunity_diff',
        kind='gap',
        rates=('tpr',),
        compared=('true positive rate P(y_pred=1 | y=1)',),
        rows='rows with y_true = 1',
        shares_test=None,
        doc="""True positive rate gap (disadvantaged minus advantaged), on the y_true = 1 rows.

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
    """,
    ),
    MetricEntry(
        name='false_positive_rate_diff',
        kind='gap',
        rates=('fpr',),
        compared=('false positive rate P(y_pred=1 | y=0)',),
        rows='rows with y_true = 0',
        shares_test=None,
        doc="""False positive rate gap (disadvantaged minus advantaged), on the y_true = 0 rows.

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
    """,
    ),
    MetricEntry(
        name='equalized_odds_diff',
        kind='larger gap',
        rates=('tpr', 'fpr'),
        compared=('the larger |gap| of TPR and FPR,', 'with its sign (TPR on a tie)'),
        rows='all rows (two strata)',
        shares_test=None,
        doc="""The larger |gap| of the true and false positive rates, with its sign.

    The rates in the record are those of the component whose gap is reported (the true
    positive rate on a tie), ``note`` names it, and the counts are all rows. With
    ``significance=True`` the p-value is the stratified permutation test of the larger
    |gap| (labels shuffled within y = 1 and within y = 0 rows), and the interval covers
    the signed larger gap: the two rates' intervals at the Sidak level, combined
    (``ci_method`` "sidak_agresti_caffo"; see :mod:`faircode._stratified`). Parameters
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
    (-0.208, 0.584, 'sidak_agresti_caffo')
    """,
    ),
    MetricEntry(
        name='predictive_parity_diff',
        kind='gap',
        rates=('precision',),
        compared=('precision P(y = 1 | y_pred = 1)',),
        rows='rows with y_pred = 1',
        shares_test=None,
        doc="""Precision gap (disadvantaged minus advantaged), on the y_pred = 1 rows.

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
    """,
    ),
    MetricEntry(
        name='accuracy_diff',
        kind='gap',
        rates=('accuracy',),
        compared=('accuracy P(y_pred = y_true)',),
        rows='all rows',
        shares_test=None,
        doc="""Accuracy gap (disadvantaged minus advantaged), on all rows.

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
    """,
    ),
)
"""Every metric faircode computes, in report order."""


def metrics_table() -> str:
    """The reStructuredText table of the metrics (name, rate compared, rows), for the docs.

    Examples
    --------
    >>> print(metrics_table().splitlines()[1])
    metric                     rate compared                          rows it is measured on
    """
    widths = (25, 37, 23)
    rule = "  ".join("=" * width for width in widths)
    lines = [rule, _row(("metric", "rate compared", "rows it is measured on"), widths), rule]
    for entry in METRIC_TABLE:
        lines.append(_row((entry.name, entry.compared[0], entry.rows), widths))
        lines.extend(_row(("", more, ""), widths) for more in entry.compared[1:])
    lines.append(rule)
    return "\n".join(lines)


def _row(cells: tuple[str, str, str], widths: tuple[int, ...]) -> str:
    return "  ".join(cell.ljust(width) for cell, width in zip(cells, widths)).rstrip()
