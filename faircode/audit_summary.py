"""An audit at a glance: who is compared with whom, and what the benchmark found.

:func:`audit_groups` describes every compared pair of groups of an audit (the rule defining
each group, its size in the whole data and in the test split, and its base rate of the
positive label); :func:`audit_results` reads one audit's rows of the benchmark's
``results_fairness.csv`` (each metric's gap, interval, p-value, Holm-adjusted p-value and
minimum detectable gap). :func:`results_table`, :func:`strategy_table`, :func:`group_table`,
:func:`describe_groups` and :func:`favourable_ratio` (the disparate impact ratio of the
favourable outcome, as the four-fifths rule reads it) turn those rows into the tables a reader
sees on an audit's page, under a reader's names (:func:`attribute_label`, :data:`METRIC_LABELS`,
:data:`STRATEGY_LABELS`, :data:`INTERVAL_DESCRIPTIONS`) rather than the results file's keys,
which the returned rows of :func:`audit_groups` and :func:`audit_results` keep.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd

from faircode.datasets import AuditData, find_manifest_path, load_audit
from faircode.exceptions import BenchmarkError, InvalidInputError
from faircode.manifest import Manifest, intersection_name, load_manifest
from faircode.significance import format_p

__all__ = [
    "FAVOURABLE_RATIO_LABEL", "GROUP_COLUMNS", "HARMFUL_RATIO_LABEL", "HEADLINE_METRICS", "INTERVAL_DESCRIPTIONS",
    "METRIC_LABELS", "RESULT_COLUMNS", "STRATEGY_LABELS",
    "audit_groups", "audit_overview", "audit_results",
    "SPREAD_RESULT_COLUMNS", "default_results_dir", "describe_groups", "favourable_ratio", "group_table",
    "attribute_label", "headline_rows", "interval_note", "results_table", "spread_note", "strategy_table",
    "with_seed_spread",
]

GROUP_COLUMNS = (
    "attribute", "disadvantaged", "advantaged", "n_disadvantaged", "n_advantaged",
    "n_test_disadvantaged", "n_test_advantaged", "base_rate_disadvantaged", "base_rate_advantaged",
    "base_rate_gap",
)
"""The columns of :func:`audit_groups`, in order."""

RESULT_COLUMNS = (
    "protected_attribute", "metric", "strategy", "model", "seed", "value", "ci_low", "ci_high",
    "ci_method", "p_value", "p_adjusted", "minimum_detectable_gap", "significant", "significant_adjusted",
    "rate_disadvantaged", "rate_advantaged", "n_disadvantaged", "n_advantaged",
    "small_sample_warning", "note",
)
"""The columns of :func:`audit_results`, in order."""

SPREAD_RESULT_COLUMNS = ("seed_n", "seed_mean", "seed_sd", "seed_min", "seed_max",
                         "seed_share_significant_adjusted", "seed_share_opposite_sign")
"""The columns :func:`with_seed_spread` adds: the spread of each gap over the seed sweep."""

HEADLINE_SEED = 42
"""The split seed of every headline number (the benchmark's default seed)."""

HEADLINE_METRICS = ("demographic_parity_diff", "equal_opportunity_diff", "false_positive_rate_diff")
"""The metrics of an audit's headline rows (see :func:`headline_rows`)."""

METRIC_LABELS = {
    "demographic_parity_diff": "demographic parity",
    "disparate_impact_ratio": "ratio of positive rates",  # of the positive label, harm or not: see favourable_ratio
    "equal_opportunity_diff": "equal opportunity",
    "false_positive_rate_diff": "false positive rate",
    "equalized_odds_diff": "equalized odds",
    "predictive_parity_diff": "predictive parity",
    "accuracy_diff": "accuracy",
}
"""A reader's name for each metric of the results file."""

HARMFUL_RATIO_LABEL = "ratio of harmful rates"
"""The name of ``disparate_impact_ratio`` on an audit whose positive label is adverse: the
results file divides the rates of the positive prediction, which is then a harm, while the
disparate impact ratio of the four-fifths rule divides the rates of the favourable outcome
(see :func:`favourable_ratio`)."""

FAVOURABLE_RATIO_LABEL = "disparate impact ratio"
"""The name of ``disparate_impact_ratio`` on an audit whose positive label is favourable,
where the ratio of positive rates is the disparate impact ratio of the four-fifths rule."""

STRATEGY_LABELS = {
    "baseline": "baseline",
    "unawareness_proxy_removal": "unawareness (proxies removed)",
    "reweighing": "reweighing",
    "group_thresholds": "group thresholds",
}
"""A reader's name for each mitigation strategy of the results file."""

RESULTS_FILE = "results_fairness.csv"
PERFORMANCE_FILE = "results_performance.csv"
NO_RESULTS_FILE = (
    "no benchmark results at {path}; create them with "
    "`python -m faircode.benchmark --seeds 42 --out {folder}`."
)
MISSING_RESULT_COLUMNS = "{path} lacks the column(s) {missing}; regenerate it with `python -m faircode.benchmark`."
NO_MATCHING_ROWS = (
    "{path} has no rows for audit {audit!r} with {field} {value!r}; it has {field} {available}."
)


def audit_groups(audit: str | Path | AuditData) -> pd.DataFrame:
    """Describe each compared pair of groups of an audit: definitions, sizes and base rates.

    Parameters
    ----------
    audit : str, pathlib.Path or AuditData
        An audit slug (``"compas"``), display name (``"COMPAS Recidivism"``), folder path,
        or an audit already loaded with :func:`faircode.benchmark.load_audit`.

    Returns
    -------
    pandas.DataFrame
        One row per protected attribute, then per intersection, with the columns
        :data:`GROUP_COLUMNS`: the rule of each group in words, its rows in the whole
        (filtered) data and in the test split, the share of its rows with a positive label
        (``base_rate_*``), and ``base_rate_gap`` = disadvantaged minus advantaged.
    """
    data = audit if isinstance(audit, AuditData) else load_audit(audit)
    definitions = _group_definitions(data.manifest)
    label = data.y.to_numpy(dtype=float)
    test = np.zeros(len(label), dtype=bool)
    test[data.idx_test] = True
    rows = []
    for name, mask in data.masks.items():
        values = mask.to_numpy(dtype=float)
        low, high = values == 1, values == 0
        rows.append({
            "attribute": name,
            "disadvantaged": definitions[name][0],
            "advantaged": definitions[name][1],
            "n_disadvantaged": int(low.sum()),
            "n_advantaged": int(high.sum()),
            "n_test_disadvantaged": int((low & test).sum()),
            "n_test_advantaged": int((high & test).sum()),
            "base_rate_disadvantaged": float(label[low].mean()),
            "base_rate_advantaged": float(label[high].mean()),
        })
    table = pd.DataFrame(rows)
    table["base_rate_gap"] = table["base_rate_disadvantaged"] - table["base_rate_advantaged"]
    return table.reindex(columns=list(GROUP_COLUMNS))


def audit_overview(audit: AuditData) -> str:
    """Three lines on a loaded audit: its size and split, its label and what the label means,
    and whether a positive label is favourable or adverse for the person."""
    manifest, label = audit.manifest, audit.manifest.label
    return "\n".join([
        f"{manifest.name}: {len(audit.df)} rows, {len(audit.idx_test)} in the test split",
        f"label: {label.column} {label.positive.describe()}, meaning {label.meaning}",
        f"a positive label is {manifest.positive_label} for the person; "
        f"{int(audit.y.sum())} rows are positive ({audit.y.mean():.1%})",
    ])


def describe_groups(groups: pd.DataFrame) -> str:
    """One line per compared pair of :func:`audit_groups`: the rule of each group.

    Parameters
    ----------
    groups : pandas.DataFrame
        The table of :func:`audit_groups` (its ``attribute``, ``disadvantaged`` and
        ``advantaged`` columns).

    Returns
    -------
    str
        One line per row, led by the attribute's reader's name (:func:`attribute_label`):
        the rule of the disadvantaged group, then that of the advantaged group.

    Examples
    --------
    >>> groups = pd.DataFrame({"attribute": ["age_x_sex"],
    ...                        "disadvantaged": ["age <= 25 and sex in ['female']"],
    ...                        "advantaged": ["age > 25 and sex in ['male']"]})
    >>> print(describe_groups(groups))
    age by sex: age <= 25 and sex in ['female'] (disadvantaged) against age > 25 and sex in ['male']
    """
    return "\n".join(f"{attribute_label(g.attribute)}: {g.disadvantaged} (disadvantaged) against {g.advantaged}"
                     for g in groups.itertuples())


def group_table(groups: pd.DataFrame) -> pd.DataFrame:
    """The sizes and base rates of :func:`audit_groups` as a reader's table.

    Parameters
    ----------
    groups : pandas.DataFrame
        The table of :func:`audit_groups`.

    Returns
    -------
    pandas.DataFrame
        Indexed by attribute under its reader's name (:func:`attribute_label`: ``race by sex``,
        not ``race_x_sex``), with the rows of each group in the whole data and in the test
        split, each group's base rate of the positive label and the base-rate gap
        (disadvantaged minus advantaged), rates rounded to three decimals.

    Examples
    --------
    >>> groups = pd.DataFrame({"attribute": ["race_x_sex"],
    ...                        "disadvantaged": ["race in ['Black'] and sex in ['female']"],
    ...                        "advantaged": ["race in ['White'] and sex in ['male']"],
    ...                        "n_disadvantaged": [40], "n_advantaged": [160], "n_test_disadvantaged": [8],
    ...                        "n_test_advantaged": [32], "base_rate_disadvantaged": [0.25],
    ...                        "base_rate_advantaged": [0.40625], "base_rate_gap": [-0.15625]})
    >>> table = group_table(groups)
    >>> list(table.index), float(table.loc["race by sex", "base-rate gap"])
    (['race by sex'], -0.156)
    """
    sizes = groups.set_index("attribute").drop(columns=["disadvantaged", "advantaged"])
    sizes.columns = ["rows (disadv.)", "rows (adv.)", "test rows (disadv.)", "test rows (adv.)",
                     "base rate (disadv.)", "base rate (adv.)", "base-rate gap"]
    sizes.index = sizes.index.map(attribute_label)
    sizes.index.name = "attribute"
    return sizes.round(3)


def audit_results(
    audit: str | Path,
    results_dir: str | Path | None = None,
    *,
    strategy: str | None = "baseline",
    model: str | None = "logistic_regression",
    seed: int | None = None,
) -> pd.DataFrame:
    """One audit's rows of the benchmark's fairness results.

    Parameters
    ----------
    audit : str or pathlib.Path
        An audit slug, display name or folder path.
    results_dir : str or pathlib.Path, optional
        The folder holding ``results_fairness.csv``; the repository's ``results/`` by default.
    strategy : str or None, default "baseline"
        Keep only this strategy's rows; None keeps every strategy.
    model : str or None, default "logistic_regression"
        Keep only this model's rows; None keeps every model (and deployed score).
    seed : int or None
        Keep only this split seed's rows; None keeps the headline seed (42, the benchmark's
        default) when the file holds it, else the smallest seed in the file.

    Returns
    -------
    pandas.DataFrame
        The rows in the file's order with the columns :data:`RESULT_COLUMNS`: each metric's
        gap (``value``, disadvantaged minus advantaged), its interval, raw and Holm-adjusted
        p-values, the minimum detectable gap and the significance flags.

    Raises
    ------
    BenchmarkError
        When the file is missing or lacks columns, or holds no row for the audit, strategy,
        model or seed asked for (the message lists what it does hold).
    """
    slug = _slug(audit)
    path = Path(results_dir) if results_dir is not None else default_results_dir()
    table = _read_results(path / RESULTS_FILE)
    rows = _select(table, path / RESULTS_FILE, slug, "audit", slug)
    for field, value in (("strategy", strategy), ("model", model)):
        if value is not None:
            rows = _select(rows, path / RESULTS_FILE, slug, field, value)
    if seed is not None:
        chosen_seed = int(seed)
    elif (rows["seed"] == HEADLINE_SEED).any():
        chosen_seed = HEADLINE_SEED
    else:
        chosen_seed = int(rows["seed"].min())
    rows = _select(rows, path / RESULTS_FILE, slug, "seed", chosen_seed)
    chosen = rows.reindex(columns=list(RESULT_COLUMNS)).reset_index(drop=True)
    chosen.attrs["audit"] = slug
    return chosen


def results_table(rows: pd.DataFrame, *, alpha: float = 0.05) -> pd.DataFrame:
    """The rows of :func:`audit_results` as a reader's table, one line per test.

    Parameters
    ----------
    rows : pandas.DataFrame
        Rows of :func:`audit_results` (any subset).
    alpha : float, default 0.05
        A test is a finding when its Holm-adjusted p-value is below ``alpha``.

    Returns
    -------
    pandas.DataFrame
        Indexed by attribute and metric (readable names; on an audit whose positive label is
        adverse the ratio row is named :data:`HARMFUL_RATIO_LABEL`), with text columns: the gap
        (signed; the ratio unsigned), its 95% interval (:func:`interval_note` names each
        metric's interval in words), the p-value and the Holm p-value as
        :func:`faircode.significance.format_p` writes them, the minimum detectable gap, the
        rows compared, whether it is a finding, and the small-sample flag. Rows joined by
        :func:`with_seed_spread` add the gap's standard deviation and range over the seed
        sweep and the share of seeds whose gap has the other sign than the headline seed's.
    """
    table = pd.DataFrame({
        "attribute": rows.protected_attribute.map(attribute_label),
        "metric": _metric_names(rows),
        "gap": [_gap_text(v, m) for v, m in zip(rows.value, rows.metric)],
        "95% interval": [f"{_gap_text(lo, m)} to {_gap_text(hi, m)}"
                         for lo, hi, m in zip(rows.ci_low, rows.ci_high, rows.metric)],
        "p": rows.p_value.map(_p_text),
        "Holm p": rows.p_adjusted.map(_p_text),
        "MDG": rows.minimum_detectable_gap.map(_gap_text),
        "rows compared": [f"{d:.0f} vs {a:.0f}" for d, a in zip(rows.n_disadvantaged, rows.n_advantaged)],
        "finding": ["yes" if p < alpha else "no" for p in rows.p_adjusted],
        "small sample": rows.small_sample_warning.map({True: "yes", False: ""}),
    }).set_index(["attribute", "metric"])
    if "seed_sd" in rows.columns:
        table = table.assign(**{
            "seed sd": rows.seed_sd.map(_spread_text).to_numpy(),
            "seed range": [f"{_gap_text(lo, m)} to {_gap_text(hi, m)}"
                           for lo, hi, m in zip(rows.seed_min, rows.seed_max, rows.metric)],
            "seeds opposite sign": rows.seed_share_opposite_sign.map(_share_text).to_numpy(),
        })
    return table


def strategy_table(
    audit: str | Path,
    attribute: str,
    *,
    model: str = "logistic_regression",
    metrics: tuple[str, ...] = ("demographic_parity_diff", "equal_opportunity_diff"),
    results_dir: str | Path | None = None,
) -> pd.DataFrame:
    """How the mitigation strategies compare on one attribute: gaps, Holm p-values and the
    model's balanced accuracy, one line per strategy.

    Parameters
    ----------
    audit : str or pathlib.Path
        An audit slug, display name or folder path.
    attribute : str
        The protected attribute (or intersection) to compare on.
    model : str, default "logistic_regression"
        The model whose results are compared.
    metrics : tuple of str
        The metrics shown, each as a gap column and a Holm p column.
    results_dir : str or pathlib.Path, optional
        The folder of the results files; the repository's ``results/`` by default.

    Returns
    -------
    pandas.DataFrame
        Indexed by strategy (its reader's name, :data:`STRATEGY_LABELS`: ``unawareness
        (proxies removed)``, not ``unawareness_proxy_removal``), with text columns named by
        each metric's reader's name (:data:`METRIC_LABELS`; the ratio as :func:`results_table`
        names it): first each metric's gap (signed; a ratio unsigned and without "gap" in its
        name), then each metric's Holm p, both in the order of ``metrics``, then the balanced
        accuracy.

    Examples
    --------
    >>> table = strategy_table("german_credit_lending", "age")
    >>> list(table.columns)
    ['demographic parity gap', 'equal opportunity gap', 'demographic parity Holm p', 'equal opportunity Holm p', \
'balanced accuracy']
    >>> "unawareness (proxies removed)" in table.index
    True
    """
    path = Path(results_dir) if results_dir is not None else default_results_dir()
    every = audit_results(audit, path, strategy=None, model=model)
    focus = every[(every.protected_attribute == attribute) & every.metric.isin(metrics)]

    def by_strategy(column: str) -> pd.DataFrame:
        return focus.pivot(index="strategy", columns="metric", values=column).reindex(columns=list(metrics))

    names = {metric: _metric_name(metric, _slug(audit)) for metric in metrics}
    gaps = by_strategy("value")
    gaps = gaps.apply(lambda column: column.map(lambda v: _gap_text(v, column.name)))
    gaps.columns = [f"{names[m]} gap" if m.endswith("_diff") else names[m] for m in gaps.columns]
    table = gaps.join(by_strategy("p_adjusted").map(_p_text).rename(columns=names).add_suffix(" Holm p"))
    performance = pd.read_csv(path / PERFORMANCE_FILE)
    mine = performance[(performance.audit == _slug(audit)) & (performance.model == model)]
    accuracy = mine.set_index("strategy")["balanced_accuracy"]
    table = table.assign(**{"balanced accuracy": accuracy.map("{:.3f}".format)})
    table.index = table.index.map(lambda strategy: STRATEGY_LABELS.get(strategy, strategy))
    table.index.name = "strategy"
    return table


def with_seed_spread(rows: pd.DataFrame, audit: str | Path, results_dir: str | Path | None = None, *,
                     missing: str = "raise") -> pd.DataFrame:
    """Join to rows of :func:`audit_results` how each gap moves over the seed sweep.

    Parameters
    ----------
    rows : pandas.DataFrame
        Rows of :func:`audit_results` (with the ``strategy`` and ``model`` columns).
    audit : str or pathlib.Path
        The audit the rows belong to (slug, display name or folder).
    results_dir : str or pathlib.Path, optional
        The folder of ``results_seed_spread.csv``; the repository's ``results/`` by default.
    missing : {"raise", "keep"}, default "raise"
        What to do when the sweep lacks a row (or the file is missing): raise, or keep the
        row with NaN spread columns; ``rows.attrs["seed_spread"]`` then says what is missing.

    Returns
    -------
    pandas.DataFrame
        ``rows`` with the columns :data:`SPREAD_RESULT_COLUMNS` added: the number of seeds,
        the mean, standard deviation, minimum and maximum of the gap over the seeds, the share
        of seeds where it is a finding after the Holm adjustment, and the share whose gap has
        the other sign than the headline seed's.

    Raises
    ------
    BenchmarkError
        When the spread file is missing, or holds no row for one of ``rows``.

    Examples
    --------
    >>> rows = with_seed_spread(audit_results("german_credit_lending"), "german_credit_lending")
    >>> int(rows.seed_n.min()) >= 30
    True
    """
    from faircode.benchmark import load_seed_spread  # the benchmark imports this module's neighbours

    if missing not in ("raise", "keep"):
        raise InvalidInputError(f"with_seed_spread: missing must be 'raise' or 'keep'; got {missing!r}")
    path = Path(results_dir) if results_dir is not None else default_results_dir()
    try:
        spread = load_seed_spread(path)
    except BenchmarkError as error:
        if missing == "raise":
            raise
        kept = rows.assign(**{column: np.nan for column in SPREAD_RESULT_COLUMNS})
        kept.attrs["seed_spread"] = str(error)
        return kept
    spread = spread[spread.audit == _slug(audit)].rename(columns={
        "n_seeds": "seed_n", "mean": "seed_mean", "sd": "seed_sd", "min": "seed_min", "max": "seed_max",
        "share_significant_adjusted": "seed_share_significant_adjusted",
        "share_opposite_sign": "seed_share_opposite_sign"})
    key = ["protected_attribute", "strategy", "model", "metric"]
    joined = rows.merge(spread[key + list(SPREAD_RESULT_COLUMNS)], on=key, how="left", validate="many_to_one")
    joined.attrs.update(rows.attrs)
    absent = joined[joined.seed_n.isna()]
    if not absent.empty:
        first = absent.iloc[0]
        message = (f"{path}: the seed spread has no row for {_slug(audit)} {first.protected_attribute} "
                   f"{first.strategy} {first.model} {first.metric}; rerun the sweep "
                   "(`python -m faircode.benchmark --seeds 0-29,42 --sweep --out results`)")
        if missing == "raise":
            raise BenchmarkError(message)
        joined.attrs["seed_spread"] = message
    return joined


def interval_note(rows: pd.DataFrame) -> str:
    """One line naming the interval method of each kind of metric in rows of :func:`audit_results`.

    Parameters
    ----------
    rows : pandas.DataFrame
        Rows of :func:`audit_results` (their ``metric`` and ``ci_method`` columns).

    Returns
    -------
    str
        ``"intervals: "`` and each method in words (:data:`INTERVAL_DESCRIPTIONS`), followed by
        the kinds of metric it serves: ``gaps`` for the differences of rates, the reader's name
        of equalized odds, and the ratio's name as :func:`results_table` gives it (on an audit
        whose positive label is adverse, :data:`HARMFUL_RATIO_LABEL`).

    Examples
    --------
    >>> rows = pd.DataFrame({"metric": ["demographic_parity_diff", "disparate_impact_ratio"],
    ...                      "ci_method": ["agresti_caffo", "miettinen_nurminen_ratio"]})
    >>> interval_note(rows)
    "intervals: Agresti-Caffo's adjusted Wald (gaps), Miettinen-Nurminen's score (ratio of positive rates)"
    >>> interval_note(rows.assign(audit="compas"))
    "intervals: Agresti-Caffo's adjusted Wald (gaps), Miettinen-Nurminen's score (ratio of harmful rates)"
    """
    named: dict[str, list[str]] = {}
    for metric, name, method in zip(rows.metric, _metric_names(rows), rows.ci_method):
        if isinstance(method, str):
            kind = name if metric in ("disparate_impact_ratio", "equalized_odds_diff") else "gaps"
            named.setdefault(method, [])
            if kind not in named[method]:
                named[method].append(kind)
    return "intervals: " + ", ".join(f"{INTERVAL_DESCRIPTIONS.get(m, m)} ({', '.join(k)})" for m, k in named.items())


INTERVAL_DESCRIPTIONS = {
    "agresti_caffo": "Agresti-Caffo's adjusted Wald",
    "newcombe": "Newcombe's hybrid score",
    "miettinen_nurminen": "Miettinen-Nurminen's score",
    "miettinen_nurminen_ratio": "Miettinen-Nurminen's score",
    "exact_unconditional": "exact unconditional",
    "exact_unconditional_ratio": "exact unconditional",
    "sidak_agresti_caffo": "Sidak's combination of two Agresti-Caffo intervals",
    "sidak_exact_unconditional": "Sidak's combination of two exact unconditional intervals",
    "sidak_exact_unconditional+agresti_caffo": "Sidak's combination of an exact unconditional interval (true "
                                               "positive rates) and an Agresti-Caffo one (false positive rates)",
    "sidak_agresti_caffo+exact_unconditional": "Sidak's combination of an Agresti-Caffo interval (true positive "
                                               "rates) and an exact unconditional one (false positive rates)",
    "bootstrap": "percentile bootstrap",
}
"""What :func:`interval_note` calls each interval method."""


def attribute_label(attribute: str) -> str:
    """A reader's name for a protected attribute or intersection of the results file.

    Examples
    --------
    >>> attribute_label("race_x_sex"), attribute_label("national_origin")
    ('race by sex', 'national origin')
    """
    return attribute.replace("_x_", " by ").replace("_", " ")


def _metric_names(rows: pd.DataFrame) -> list[str]:
    """The reader's name of each row's metric; the ratio's name says when it divides harms."""
    audits = rows["audit"] if "audit" in rows.columns else [rows.attrs.get("audit")] * len(rows)
    return [_metric_name(metric, audit) for audit, metric in zip(audits, rows.metric)]


def _metric_name(metric: str, audit: str | None) -> str:
    """The reader's name of one metric of an audit (None: an audit not known)."""
    if metric == "disparate_impact_ratio" and audit is not None:
        return HARMFUL_RATIO_LABEL if _outcome(audit) == "adverse" else FAVOURABLE_RATIO_LABEL
    return METRIC_LABELS.get(metric, metric)


@lru_cache(maxsize=None)
def _outcome(audit: str) -> str:
    """Whether the audit's positive label is 'adverse' or 'favourable' (its manifest, read once)."""
    return load_manifest(find_manifest_path(audit)).label.outcome


def spread_note(rows: pd.DataFrame) -> str:
    """One line on the seed columns of rows from :func:`with_seed_spread`: how many splits
    they summarise, or what the sweep lacks."""
    if "seed_n" not in rows.columns:
        return "no seed spread joined"
    if rows.seed_n.isna().any():
        why = rows.attrs.get("seed_spread", "not in the sweep")
        return f"seed columns n/a for {int(rows.seed_n.isna().sum())} row(s): {why}"
    return f"seed columns: the gap over {rows.seed_n.max():.0f} splits of the seed sweep (seeds 0-29 and 42)"


def headline_rows(audit: str | Path, results_dir: str | Path | None = None, *,
                  model: str = "logistic_regression") -> pd.DataFrame:
    """An audit's headline rows: the baseline model's flag-rate and error-rate gaps on the
    primary attribute, with their seed spread.

    Parameters
    ----------
    audit : str or pathlib.Path
        An audit slug, display name or folder path.
    results_dir : str or pathlib.Path, optional
        The folder of the results files; the repository's ``results/`` by default.
    model : str, default "logistic_regression"
        The model (or deployed score) whose rows are the headline.

    Returns
    -------
    pandas.DataFrame
        One row per metric of :data:`HEADLINE_METRICS`, as :func:`with_seed_spread` returns them.

    Examples
    --------
    >>> list(headline_rows("compas").metric)
    ['demographic_parity_diff', 'equal_opportunity_diff', 'false_positive_rate_diff']
    """
    primary = load_manifest(find_manifest_path(audit)).primary_attribute
    rows = audit_results(audit, results_dir, strategy="baseline", model=model)
    rows = rows[(rows.protected_attribute == primary) & rows.metric.isin(HEADLINE_METRICS)]
    return with_seed_spread(rows.reset_index(drop=True), audit, results_dir)


def favourable_ratio(rows: pd.DataFrame, *, outcome: str | None = None) -> pd.DataFrame:
    """The disparate impact ratio as the four-fifths rule reads it: the ratio of the rates of
    the *favourable* outcome, disadvantaged over advantaged.

    The results file's ``disparate_impact_ratio`` divides the rates of the *positive*
    prediction. When a positive prediction is favourable (a callback, a predicted pass) that
    is the disparate impact ratio; when it is a harm (a denial, a flag), the favourable
    outcome is the negative prediction, and the ratio is ``(1 - rate_disadvantaged) /
    (1 - rate_advantaged)``. This function computes it from the demographic-parity rows, on
    the same test rows.

    Parameters
    ----------
    rows : pandas.DataFrame
        Rows of :func:`audit_results` of one model and strategy (one demographic-parity row
        per attribute).
    outcome : {"adverse", "favourable"}, optional
        What a positive prediction is for the person. By default the audit's manifest says
        (the rows' ``audit`` column or ``rows.attrs["audit"]``, which :func:`audit_results`
        sets); rows that name no audit are read as adverse.

    Returns
    -------
    pandas.DataFrame
        Indexed by attribute under its reader's name (:func:`attribute_label`): the favourable
        rate of each group, their ratio, and whether the ratio is below the four-fifths
        threshold (0.8), rates and ratio rounded to three decimals. A ratio of two zero rates
        is NaN and not below the threshold.

    Raises
    ------
    InvalidInputError
        When ``outcome`` is neither "adverse" nor "favourable".

    Examples
    --------
    >>> rows = pd.DataFrame({"protected_attribute": ["sex", "race_x_sex"],
    ...                      "metric": ["demographic_parity_diff"] * 2,
    ...                      "rate_disadvantaged": [0.5, 0.1], "rate_advantaged": [0.2, 0.2]})
    >>> favourable_ratio(rows)["favourable ratio"].to_dict()
    {'sex': 0.625, 'race by sex': 1.125}
    >>> favourable_ratio(rows, outcome="favourable")["favourable ratio"].to_dict()
    {'sex': 2.5, 'race by sex': 0.5}
    """
    if outcome is None:
        audit = rows["audit"].iloc[0] if "audit" in rows.columns and len(rows) else rows.attrs.get("audit")
        outcome = _outcome(audit) if audit is not None else "adverse"
    if outcome not in ("adverse", "favourable"):
        raise InvalidInputError(f"favourable_ratio: outcome must be 'adverse' or 'favourable'; got {outcome!r}")
    parity = rows[rows.metric == "demographic_parity_diff"].set_index("protected_attribute")
    favourable_low, favourable_high = parity.rate_disadvantaged, parity.rate_advantaged
    if outcome == "adverse":
        favourable_low, favourable_high = 1 - favourable_low, 1 - favourable_high
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = favourable_low / favourable_high
    table = pd.DataFrame({
        "favourable rate (disadv.)": favourable_low,
        "favourable rate (adv.)": favourable_high,
        "favourable ratio": ratio,
    })
    table["below four-fifths"] = table["favourable ratio"] < 0.8
    table.index = table.index.map(attribute_label)
    table.index.name = "attribute"
    return table.round(3)


def default_results_dir() -> Path:
    """The repository's ``results/`` folder (next to the faircode package)."""
    return Path(__file__).resolve().parent.parent / "results"


def _slug(audit: str | Path) -> str:
    return find_manifest_path(audit).parent.name


def _group_definitions(manifest: Manifest) -> dict[str, tuple[str, str]]:
    by_name = {}
    for a in manifest.protected_attributes:
        by_name[a.name] = (f"{a.column} {a.disadvantaged.describe()}", f"{a.column} {a.advantaged.describe()}")
    for first, second in manifest.intersections:
        (low_a, high_a), (low_b, high_b) = by_name[first], by_name[second]
        by_name[intersection_name((first, second))] = (f"{low_a} and {low_b}", f"{high_a} and {high_b}")
    return by_name


def _read_results(path: Path) -> pd.DataFrame:
    if not path.is_file():
        raise BenchmarkError(NO_RESULTS_FILE.format(path=path, folder=path.parent))
    table = pd.read_csv(path)
    missing = [c for c in (*RESULT_COLUMNS, "audit") if c not in table.columns]
    if missing:
        raise BenchmarkError(MISSING_RESULT_COLUMNS.format(path=path, missing=", ".join(missing)))
    return table


def _select(table: pd.DataFrame, path: Path, slug: str, field: str, value) -> pd.DataFrame:
    rows = table[table[field] == value]
    if rows.empty:
        available = sorted(map(str, table[field].dropna().unique()))
        raise BenchmarkError(NO_MATCHING_ROWS.format(path=path, audit=slug, field=field, value=value,
                                                     available=", ".join(available) or "none"))
    return rows


def _p_text(p: float) -> str:
    """A p-value as format_p prints it, without the leading "p = " (or "p ")."""
    return format_p(p).removeprefix("p = ").removeprefix("p ")


def _spread_text(value: float) -> str:
    return "n/a" if pd.isna(value) else f"{value:.3f}"


def _share_text(value: float) -> str:
    return "n/a" if pd.isna(value) else f"{value:.0%}"


def _gap_text(value: float, metric: str = "") -> str:
    """A gap with its sign; the disparate impact ratio (1 = parity) without one."""
    if pd.isna(value):
        return "n/a"
    return f"{value:+.3f}" if metric.endswith("_diff") else f"{value:.3f}"
