"""Metric records computed from two confusion tables, the engine of :mod:`faircode.metrics`.

Each group's rows are counted once into true/false positives and negatives; every rate,
gap, interval and test of every metric is then a function of those eight counts.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import asdict, dataclass

import numpy as np

from faircode._checks import check_random_state
from faircode.power import minimum_detectable_gap
from faircode.significance import (
    SMALL_SAMPLE_SIZE,
    SignificanceReport,
    significance_report_from_counts,
    stratified_report_from_counts,
)

NOTE_EMPTY = "no {rows} in the {group} group"
NOTE_RATIO_UNDEFINED = "the advantaged group's selection rate is 0, so the ratio is undefined"
NOTE_LARGER_GAP = "the larger gap is the {rate}'s"


@dataclass(frozen=True)
class GroupConfusion:
    """Confusion counts of one group: true/false positives and negatives."""

    tp: int
    fp: int
    tn: int
    fn: int

    @property
    def total(self) -> int:
        """All rows of the group."""
        return self.tp + self.fp + self.tn + self.fn


@dataclass(frozen=True)
class MetricRecord:
    """One metric for one protected attribute (see the module docstring for the fields)."""

    metric: str
    value: float
    rate_disadvantaged: float
    rate_advantaged: float
    n_disadvantaged: int
    n_advantaged: int
    small_sample_warning: bool
    minimum_detectable_gap: float
    ci_low: float = math.nan
    ci_high: float = math.nan
    p_value: float = math.nan
    significant: bool | None = None
    note: str = ""

    def to_dict(self) -> dict:
        """The record as a plain dict of its fields."""
        return asdict(self)


@dataclass(frozen=True)
class _Rate:
    """A rate measured on some rows: ones / rows, counted from a group's confusion."""

    ones: Callable[[GroupConfusion], int]
    rows: Callable[[GroupConfusion], int]
    rows_name: str
    rate_name: str


_RATES = {
    "selection": _Rate(lambda c: c.tp + c.fp, lambda c: c.total, "rows", "selection rate"),
    "tpr": _Rate(lambda c: c.tp, lambda c: c.tp + c.fn, "positives (y_true = 1)", "true positive rate"),
    "fpr": _Rate(lambda c: c.fp, lambda c: c.fp + c.tn, "negatives (y_true = 0)", "false positive rate"),
    "precision": _Rate(
        lambda c: c.tp, lambda c: c.tp + c.fp, "predicted positives (y_pred = 1)", "precision"
    ),
    "accuracy": _Rate(lambda c: c.tp + c.tn, lambda c: c.total, "rows", "accuracy"),
}
_GAP_METRICS = {
    "demographic_parity_diff": "selection",
    "equal_opportunity_diff": "tpr",
    "false_positive_rate_diff": "fpr",
    "predictive_parity_diff": "precision",
    "accuracy_diff": "accuracy",
}


@dataclass(frozen=True)
class Options:
    """Validated settings of one metric computation (see :func:`faircode.metrics.fairness_report`)."""

    significance: bool
    n_resamples: int
    n_permutations: int
    confidence: float
    alpha: float
    random_state: None | int | np.random.Generator

    def rng(self) -> np.random.Generator:
        """A generator per metric: an int seed restarts, so each metric matches its own call."""
        return check_random_state(self.random_state)

    def resampling(self) -> dict:
        """The keyword arguments of the significance functions."""
        return dict(
            n_resamples=self.n_resamples,
            n_permutations=self.n_permutations,
            confidence=self.confidence,
            alpha=self.alpha,
        )


def confusion_from_codes(y_true, y_pred, codes) -> tuple[GroupConfusion, GroupConfusion]:
    """Count both groups' confusion tables from validated 0/1 labels and group codes (-1 = out)."""
    kept = codes >= 0
    cell = codes[kept].astype(np.int64) * 4 + y_true[kept] * 2 + y_pred[kept]
    counts = np.bincount(cell, minlength=8)

    def table(offset: int) -> GroupConfusion:
        tn, fp, fn, tp = (int(c) for c in counts[offset : offset + 4])
        return GroupConfusion(tp=tp, fp=fp, tn=tn, fn=fn)

    return table(4), table(0)



def compute_record(name: str, dis: GroupConfusion, adv: GroupConfusion, options: Options) -> MetricRecord:
    """One metric's record from the disadvantaged and advantaged confusion tables."""
    if name == "equalized_odds_diff":
        return _equalized_odds_record(dis, adv, options)
    if name == "disparate_impact_ratio":
        return _ratio_record(dis, adv, options)
    return _gap_record(name, _RATES[_GAP_METRICS[name]], dis, adv, options)


def _gap_record(name: str, rate: _Rate, dis, adv, options: Options) -> MetricRecord:
    counts = (rate.ones(dis), rate.rows(dis), rate.ones(adv), rate.rows(adv))
    base = _base_record(name, *counts, alpha=options.alpha)
    note = _empty_note(rate, counts)
    if note:
        return _with(base, note=note)
    value = base.rate_disadvantaged - base.rate_advantaged
    if not options.significance:
        return _with(base, value=value)
    report = significance_report_from_counts(*counts, random_state=options.rng(), **options.resampling())
    return _with_report(_with(base, value=value), report)


def _ratio_record(dis, adv, options: Options) -> MetricRecord:
    rate = _RATES["selection"]
    counts = (rate.ones(dis), rate.rows(dis), rate.ones(adv), rate.rows(adv))
    base = _base_record("disparate_impact_ratio", *counts, alpha=options.alpha)
    if counts[2] == 0:
        return _with(base, note=NOTE_RATIO_UNDEFINED)
    value = base.rate_disadvantaged / base.rate_advantaged
    if not options.significance:
        return _with(base, value=value)
    rng = options.rng()
    report = significance_report_from_counts(*counts, random_state=rng, **options.resampling())
    low, high = _ratio_interval(*counts, options, rng)
    return _with(_with_report(base, report), value=value, ci_low=low, ci_high=high)


def _equalized_odds_record(dis, adv, options: Options) -> MetricRecord:
    strata = [
        (rate.ones(dis), rate.rows(dis), rate.ones(adv), rate.rows(adv))
        for rate in (_RATES["tpr"], _RATES["fpr"])
    ]
    base = _base_record("equalized_odds_diff", 0, dis.total, 0, adv.total, alpha=options.alpha)
    base = _with(base, rate_disadvantaged=math.nan, rate_advantaged=math.nan)
    for rate, counts in zip((_RATES["tpr"], _RATES["fpr"]), strata):
        note = _empty_note(rate, counts)
        if note:
            return _with(base, note=note, small_sample_warning=True)
    gaps = [s[0] / s[1] - s[2] / s[3] for s in strata]
    chosen = 0 if abs(gaps[0]) >= abs(gaps[1]) else 1
    ones_d, n_d, ones_a, n_a = strata[chosen]
    record = _with(
        base,
        value=gaps[chosen],
        rate_disadvantaged=ones_d / n_d,
        rate_advantaged=ones_a / n_a,
        small_sample_warning=any(min(s[1], s[3]) < SMALL_SAMPLE_SIZE for s in strata),
        minimum_detectable_gap=minimum_detectable_gap(n_d, n_a, alpha=options.alpha),
        note=NOTE_LARGER_GAP.format(rate=(_RATES["tpr"], _RATES["fpr"])[chosen].rate_name),
    )
    if not options.significance:
        return record
    report = stratified_report_from_counts(
        strata,
        n_resamples=options.n_resamples,
        n_permutations=options.n_permutations,
        confidence=options.confidence,
        alpha=options.alpha,
        random_state=options.rng(),
    )
    return _with(_with_report(record, report), value=gaps[chosen])


def _base_record(name: str, ones_d: int, n_d: int, ones_a: int, n_a: int, *, alpha: float) -> MetricRecord:
    return MetricRecord(
        metric=name,
        value=math.nan,
        rate_disadvantaged=ones_d / n_d if n_d else math.nan,
        rate_advantaged=ones_a / n_a if n_a else math.nan,
        n_disadvantaged=int(n_d),
        n_advantaged=int(n_a),
        small_sample_warning=min(n_d, n_a) < SMALL_SAMPLE_SIZE,
        minimum_detectable_gap=minimum_detectable_gap(n_d, n_a, alpha=alpha) if n_d and n_a else math.nan,
    )


def _empty_note(rate: _Rate, counts: tuple[int, int, int, int]) -> str:
    for n, group in ((counts[1], "disadvantaged"), (counts[3], "advantaged")):
        if n == 0:
            return NOTE_EMPTY.format(rows=rate.rows_name, group=group)
    return ""


def _with_report(record: MetricRecord, report: SignificanceReport) -> MetricRecord:
    return _with(
        record,
        ci_low=report.ci_low,
        ci_high=report.ci_high,
        p_value=report.p_value,
        significant=report.significant,
        minimum_detectable_gap=report.minimum_detectable_gap,
    )


def _with(record: MetricRecord, **changes) -> MetricRecord:
    return MetricRecord(**{**asdict(record), **changes})


def _ratio_interval(ones_d, n_d, ones_a, n_a, options: Options, rng) -> tuple[float, float]:
    """Percentile interval of resampled ratios; a resampled advantaged rate of 0 gives inf.

    A resample in which both rates are 0 counts as parity (ratio 1).
    """
    resampled_d = rng.binomial(n_d, ones_d / n_d, size=options.n_resamples) / n_d
    resampled_a = rng.binomial(n_a, ones_a / n_a, size=options.n_resamples) / n_a
    with np.errstate(divide="ignore", invalid="ignore"):
        ratios = np.where(resampled_a > 0, resampled_d / resampled_a, np.where(resampled_d > 0, np.inf, 1.0))
    levels = ((1 - options.confidence) / 2, (1 + options.confidence) / 2)
    low, high = _quantiles_allowing_inf(ratios, levels)
    return low, high


def _quantiles_allowing_inf(values: np.ndarray, levels) -> tuple[float, float]:
    """numpy's linear quantiles, where interpolating towards an inf gives inf (not NaN)."""
    finite = values[np.isfinite(values)]
    if finite.size == 0:
        return math.inf, math.inf
    ceiling = float(finite.max())
    stand_in = np.where(np.isinf(values), 4 * abs(ceiling) + 1, values)
    quantiles = np.quantile(stand_in, levels)
    return tuple(math.inf if q > ceiling else float(q) for q in quantiles)
