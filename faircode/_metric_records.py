"""Metric records computed from two confusion tables, the engine of :mod:`faircode.metrics`.

Each group's rows are counted once into true/false positives and negatives; every rate,
gap, interval and test of every metric is then a function of those eight counts.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields
from functools import cached_property

import numpy as np

from faircode import _exact, _intervals, _monte_carlo, _unconditional
from faircode._checks import check_random_state
from faircode._report import SMALL_SAMPLE_SIZE, Settings, SignificanceReport, binary_report, percentile_interval, planned_gap
from faircode._stratified import stratified_binary_report

Counts = tuple[int, int, int, int]
PValues = dict[tuple, float]  # exact p-values keyed by a test's counts, or by its strata's counts
Tables = tuple["GroupConfusion", "GroupConfusion"]  # the disadvantaged group's, then the advantaged's

NOTE_EMPTY = "no {rows} in the {group} group"
NOTE_RATIO_UNDEFINED = ("the advantaged group's selection rate is 0, so the ratio has no finite value and its "
                        "interval reaches infinity")
NOTE_LARGER_GAP = "the larger gap is the {rate}'s"
EXACT_RATIO_CI_METHOD = "exact_unconditional_ratio"
"""The default interval of the ratio for groups of up to 100 rows each (at most
:data:`faircode._unconditional.EXACT_TABLES` tables): the exact unconditional interval of p_a / p_b."""
RATIO_CI_METHOD = "miettinen_nurminen_ratio"
"""The default interval of the ratio for larger groups: the score interval of p_a / p_b with Miettinen and
Nurminen's factor. Its exact coverage on bench/coverage.py's cells beyond the bound: median 95.1%, lowest
91.1% (50 rows against 200, rates 0.01 and 0.97), under 94% in 72 of 1,134 cells, where a rate is 0.01."""
RECORD_CI_METHODS = ("auto", "bootstrap")
"""``ci_method`` of the metrics: "auto" gives each metric its interval of honest coverage (the gaps
and the ratio their exact unconditional intervals on groups of up to 100 rows each, Agresti-Caffo's
and the ratio's score interval on larger groups, equalized odds the Sidak combination); "bootstrap"
gives every metric its percentile bootstrap interval."""


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
    ci_method: str = ""
    mdg_rate: float = math.nan

    def to_dict(self) -> dict:
        """The record as a plain dict of its fields, in field order."""
        return {name: getattr(self, name) for name in _RECORD_FIELDS}


# Every field holds a scalar or a string, so a flat dict is the whole record (no deep copy).
_RECORD_FIELDS = tuple(f.name for f in fields(MetricRecord))


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
    random_state: object
    ci_method: str = "auto"

    def rng(self) -> np.random.Generator:
        """A generator per metric: an int seed restarts, so each metric matches its own call."""
        return check_random_state(self.random_state)

    @cached_property
    def settings(self) -> Settings:
        """The significance settings, as :func:`faircode.significance.significance_report` takes them."""
        return Settings.checked(self.n_resamples, self.n_permutations, self.confidence, self.alpha, "auto",
                                self.ci_method)

    @property
    def bootstrap(self) -> bool:
        """Whether the intervals are percentile bootstraps (else each metric's score interval)."""
        return self.ci_method == "bootstrap"

    @property
    def restarts(self) -> bool:
        """Whether every metric restarts the same random stream (an int seed)."""
        return isinstance(self.random_state, numbers.Integral) and not isinstance(self.random_state, bool)


@dataclass
class _Tests:
    """The significance work of the metrics of one pair of confusion tables.

    Work two metrics would repeat is done once: the exact p-values, all computed up front,
    and, when each metric restarts the same random stream (an int seed), the first
    bootstrap draws of tests that begin with the same counts (the selection rate's, drawn
    by demographic parity and the ratio; the true positive rate's, by equal opportunity and
    equalized odds). Those draws are kept with the generator's state after them, so a later
    metric continues the stream exactly where its own call would. Restarting the stream
    resets one generator to the seed's first state rather than seeding a new one.
    """

    options: Options
    p_values: PValues
    repeated: set[Counts]
    kept: dict[Counts, tuple[np.ndarray, dict]] = field(default_factory=dict)
    _rng: np.random.Generator | None = None
    _start: dict | None = None

    def __post_init__(self) -> None:
        if self.options.restarts and self.options.bootstrap:
            self._rng = self.options.rng()
            self._start = self._rng.bit_generator.state

    def report(self, counts: Counts) -> tuple[SignificanceReport, np.random.Generator]:
        """significance_report_from_counts of a metric's counts, with the generator after it."""
        gaps, rng = self._first_gaps(counts)
        report = binary_report(counts, self.options.n_resamples, self.options.settings, rng,
                               exact_p=self.p_values.get(counts), gaps=gaps)
        return report, rng

    def stratified_report(self, strata: tuple[Counts, ...]) -> SignificanceReport:
        """stratified_report_from_counts of a metric's strata."""
        gaps, rng = self._first_gaps(strata[0])
        return stratified_binary_report(list(strata), self.options.n_resamples, self.options.settings, rng,
                                        self.p_values.get(strata), first_gaps=gaps)

    def _first_gaps(self, counts: Counts) -> tuple[np.ndarray | None, np.random.Generator | None]:
        if not self.options.bootstrap:
            return None, None  # the score intervals and exact tests draw nothing
        rng = self._generator()
        if counts in self.kept:
            gaps, state = self.kept[counts]
            rng.bit_generator.state = state
            return gaps, rng
        gaps = _monte_carlo.binomial_gaps(rng, *counts, self.options.n_resamples)
        if counts in self.repeated:
            self.kept[counts] = (gaps, rng.bit_generator.state)
        return gaps, rng

    def _generator(self) -> np.random.Generator:
        """The metric's generator: the seed's stream from its start, else Options.rng()."""
        if self._rng is None:
            return self.options.rng()
        self._rng.bit_generator.state = self._start
        return self._rng


def confusion_from_codes(y_true, y_pred, codes) -> tuple[GroupConfusion, GroupConfusion]:
    """Count both groups' confusion tables from validated 0/1 labels and group codes (-1 = out)."""
    kept = codes >= 0
    cell = codes[kept].astype(np.int64) * 4 + y_true[kept] * 2 + y_pred[kept]
    counts = np.bincount(cell, minlength=8)

    def table(offset: int) -> GroupConfusion:
        tn, fp, fn, tp = (int(c) for c in counts[offset : offset + 4])
        return GroupConfusion(tp=tp, fp=fp, tn=tn, fn=fn)

    return table(4), table(0)



def compute_records(names: list[str], tables: Sequence[Tables], options: Options) -> list[list[MetricRecord]]:
    """Per pair of confusion tables (disadvantaged, advantaged), the records of the named metrics.

    The exact p-values of every pair are computed first, in one vectorised call.
    """
    p_values = _exact_p_values(names, tables) if options.significance else {}
    records = []
    for dis, adv in tables:
        tests = _tests(names, dis, adv, options, p_values) if options.significance else None
        records.append([_compute_record(name, dis, adv, options, tests) for name in names])
    return records


def _compute_record(name: str, dis, adv, options: Options, tests: _Tests | None) -> MetricRecord:
    if name == "equalized_odds_diff":
        return _equalized_odds_record(dis, adv, options, tests)
    if name == "disparate_impact_ratio":
        return _ratio_record(dis, adv, options, tests)
    return _gap_record(name, _RATES[_GAP_METRICS[name]], dis, adv, options, tests)


def _tests(names: list[str], dis: GroupConfusion, adv: GroupConfusion, options: Options, p_values: PValues):
    first_counts = [_strata(dis, adv)[0] if name == "equalized_odds_diff" else _counts(_rate_of(name), dis, adv)
                    for name in names]
    repeated = {c for c in first_counts if first_counts.count(c) > 1} if options.restarts and options.bootstrap else set()
    return _Tests(options, p_values, repeated)


def _exact_p_values(names: list[str], tables: Sequence[Tables]) -> PValues:
    """Exact permutation p-values of the metrics in ``names``, keyed by their counts (or strata).

    Every hypergeometric tail they need, for every pair of tables, is computed in one
    vectorised call, element by element, so each p-value is the one a call of its own
    would give.
    """
    two_group = sorted({c for c in (_counts(_rate_of(name), dis, adv) for name in names
                                    if name != "equalized_odds_diff" for dis, adv in tables) if c[1] and c[3]})
    stratified = [] if "equalized_odds_diff" not in names else [
        strata for strata in dict.fromkeys(_strata(dis, adv) for dis, adv in tables)
        if all(s[1] and s[3] for s in strata)]
    strata_requests = [_exact.stratified_requests(strata) for strata in stratified]
    requests = [_exact.permutation_request(*c) for c in two_group] + [r for group in strata_requests for r in group]
    tails = iter([float(t) for t in np.atleast_1d(_exact.tail_probability(*zip(*requests)))] if requests else [])
    p_values: PValues = {counts: next(tails) for counts in two_group}
    for strata, group in zip(stratified, strata_requests):
        p_values[strata] = _exact.combine_stratum_tails([next(tails) for _ in group]) if group else 1.0
    return p_values


def _rate_of(name: str) -> _Rate:
    return _RATES["selection" if name == "disparate_impact_ratio" else _GAP_METRICS[name]]


def _counts(rate: _Rate, dis: GroupConfusion, adv: GroupConfusion) -> Counts:
    return rate.ones(dis), rate.rows(dis), rate.ones(adv), rate.rows(adv)


def _strata(dis: GroupConfusion, adv: GroupConfusion) -> tuple[Counts, Counts]:
    """The true positive rate's counts, then the false positive rate's: equalized odds' strata."""
    return _counts(_RATES["tpr"], dis, adv), _counts(_RATES["fpr"], dis, adv)


def _gap_record(name: str, rate: _Rate, dis, adv, options: Options, tests: _Tests | None) -> MetricRecord:
    counts = (rate.ones(dis), rate.rows(dis), rate.ones(adv), rate.rows(adv))
    record = _base_fields(name, *counts, alpha=options.alpha)
    note = _empty_note(rate, counts)
    if note:
        return MetricRecord(**{**record, "note": note})
    record["value"] = record["rate_disadvantaged"] - record["rate_advantaged"]
    if tests is not None:
        record.update(_report_fields(tests.report(counts)[0]))
    return MetricRecord(**record)


def _ratio_record(dis, adv, options: Options, tests: _Tests | None) -> MetricRecord:
    rate = _RATES["selection"]
    counts = (rate.ones(dis), rate.rows(dis), rate.ones(adv), rate.rows(adv))
    record = _base_fields("disparate_impact_ratio", *counts, alpha=options.alpha)
    undefined = counts[2] == 0
    if undefined:  # a/0: infinite, or 0/0; its interval still has a low end, and infinity above
        record["value"] = math.inf if counts[0] > 0 else math.nan
        record["note"] = _joined(NOTE_RATIO_UNDEFINED, record["note"])
    else:
        record["value"] = record["rate_disadvantaged"] / record["rate_advantaged"]
    if tests is None or (undefined and options.bootstrap):
        return MetricRecord(**record)
    report, rng = tests.report(counts)
    record.update(_report_fields(report))
    if options.bootstrap:
        record["ci_low"], record["ci_high"] = _ratio_interval(*counts, options, rng)
    else:
        low, high, method = ratio_interval(*counts, options.confidence)
        record.update(ci_low=low, ci_high=high, ci_method=method)
    return MetricRecord(**record)


def ratio_interval(ones_a: int, n_a: int, ones_b: int, n_b: int, confidence: float) -> tuple[float, float, str]:
    """The default interval of p_a / p_b and its name: exact unconditional where affordable, else the score interval.

    With no ones in group b the upper end is infinity (and with none in group a the low end is 0).
    """
    if _unconditional.exact_sized(n_a, n_b):
        return (*_unconditional.ratio_interval(ones_a, n_a, ones_b, n_b, confidence), EXACT_RATIO_CI_METHOD)
    low, high = _intervals.ratio_score(ones_a, n_a, ones_b, n_b, confidence, correction=True)
    return float(low), float(high), RATIO_CI_METHOD


def _equalized_odds_record(dis, adv, options: Options, tests: _Tests | None) -> MetricRecord:
    rates = (_RATES["tpr"], _RATES["fpr"])
    strata = _strata(dis, adv)
    record = _base_fields("equalized_odds_diff", 0, dis.total, 0, adv.total, alpha=options.alpha)
    record.update(rate_disadvantaged=math.nan, rate_advantaged=math.nan)
    record.update(minimum_detectable_gap=math.nan, mdg_rate=math.nan, note="")
    for rate, counts in zip(rates, strata):
        note = _empty_note(rate, counts)
        if note:
            return MetricRecord(**{**record, "small_sample_warning": True, "note": note})
    gaps = [s[0] / s[1] - s[2] / s[3] for s in strata]
    chosen = 0 if abs(gaps[0]) >= abs(gaps[1]) else 1
    ones_d, n_d, ones_a, n_a = strata[chosen]
    pooled = (ones_d + ones_a) / (n_d + n_a)
    mdg, mdg_note = planned_gap(n_d, n_a, pooled, options.alpha)
    record.update(
        value=gaps[chosen],
        rate_disadvantaged=ones_d / n_d,
        rate_advantaged=ones_a / n_a,
        small_sample_warning=any(min(s[1], s[3]) < SMALL_SAMPLE_SIZE for s in strata),
        minimum_detectable_gap=mdg,
        mdg_rate=pooled,
        note=_joined(NOTE_LARGER_GAP.format(rate=rates[chosen].rate_name), mdg_note),
    )
    if tests is not None:
        record.update(_report_fields(tests.stratified_report(strata)))
    return MetricRecord(**record)


def _base_fields(name: str, ones_d: int, n_d: int, ones_a: int, n_a: int, *, alpha: float) -> dict:
    """The fields every record has, before its value, interval and test are known.

    The minimum detectable gap is planned at the two groups' pooled rate (``mdg_rate``);
    ``note`` says so when no gap is detectable there.
    """
    pooled = (ones_d + ones_a) / (n_d + n_a) if n_d and n_a else math.nan
    mdg, note = planned_gap(n_d, n_a, pooled, alpha) if n_d and n_a else (math.nan, "")
    return dict(
        metric=name,
        value=math.nan,
        rate_disadvantaged=ones_d / n_d if n_d else math.nan,
        rate_advantaged=ones_a / n_a if n_a else math.nan,
        n_disadvantaged=int(n_d),
        n_advantaged=int(n_a),
        small_sample_warning=min(n_d, n_a) < SMALL_SAMPLE_SIZE,
        minimum_detectable_gap=mdg,
        mdg_rate=pooled,
        note=note,
    )


def _joined(*notes: str) -> str:
    return "; ".join(n for n in notes if n)


def _empty_note(rate: _Rate, counts: tuple[int, int, int, int]) -> str:
    for n, group in ((counts[1], "disadvantaged"), (counts[3], "advantaged")):
        if n == 0:
            return NOTE_EMPTY.format(rows=rate.rows_name, group=group)
    return ""


def _report_fields(report: SignificanceReport) -> dict:
    """The interval and test of a significance report, as record fields."""
    return dict(
        ci_low=report.ci_low,
        ci_high=report.ci_high,
        p_value=report.p_value,
        significant=report.significant,
        ci_method=report.ci_method,
    )


def _ratio_interval(ones_d, n_d, ones_a, n_a, options: Options, rng) -> tuple[float, float]:
    """Percentile interval of resampled ratios; a resampled advantaged rate of 0 gives inf.

    A resample in which both rates are 0 counts as parity (ratio 1).
    """
    resampled_d = rng.binomial(n_d, ones_d / n_d, size=options.n_resamples) / n_d
    resampled_a = rng.binomial(n_a, ones_a / n_a, size=options.n_resamples) / n_a
    with np.errstate(divide="ignore", invalid="ignore"):
        ratios = np.where(resampled_a > 0, resampled_d / resampled_a, np.where(resampled_d > 0, np.inf, 1.0))
    levels = ((1 - options.confidence) / 2, (1 + options.confidence) / 2)
    return _quantiles_allowing_inf(ratios, levels)


def _quantiles_allowing_inf(values: np.ndarray, levels) -> tuple[float, float]:
    """numpy's linear quantiles (see percentile_interval), where interpolating towards an inf gives inf (not NaN)."""
    finite = values[np.isfinite(values)]
    if finite.size == 0:
        return math.inf, math.inf
    ceiling = float(finite.max())
    stand_in = np.where(np.isinf(values), 4 * abs(ceiling) + 1, values)
    quantiles = percentile_interval(stand_in, levels)
    return tuple(math.inf if q > ceiling else float(q) for q in quantiles)
