"""An audit at a glance: who is compared with whom, and what the benchmark found.

:func:`audit_groups` describes every compared pair of groups of an audit (the rule defining
each group, its size in the whole data and in the test split, and its base rate of the
positive label); :func:`audit_results` reads one audit's rows of the benchmark's
``results_fairness.csv`` (each metric's gap, interval, p-value, Holm-adjusted p-value and
minimum detectable gap). :func:`results_table` and :func:`strategy_table` turn those rows
into the tables a reader sees on an audit's page.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from faircode.datasets import AuditData, find_manifest_path, load_audit
from faircode.exceptions import BenchmarkError
from faircode.manifest import Manifest, intersection_name
from faircode.significance import format_p

__all__ = [
    "GROUP_COLUMNS", "METRIC_LABELS", "RESULT_COLUMNS", "audit_groups", "audit_overview", "audit_results",
    "default_results_dir", "describe_groups", "group_table", "results_table", "strategy_table",
]

GROUP_COLUMNS = (
    "attribute", "disadvantaged", "advantaged", "n_disadvantaged", "n_advantaged",
    "n_test_disadvantaged", "n_test_advantaged", "base_rate_disadvantaged", "base_rate_advantaged",
    "base_rate_gap",
)
"""The columns of :func:`audit_groups`, in order."""

RESULT_COLUMNS = (
    "protected_attribute", "metric", "strategy", "model", "seed", "value", "ci_low", "ci_high",
    "p_value", "p_adjusted", "minimum_detectable_gap", "significant", "significant_adjusted",
    "rate_disadvantaged", "rate_advantaged", "n_disadvantaged", "n_advantaged",
    "small_sample_warning", "note",
)
"""The columns of :func:`audit_results`, in order."""

METRIC_LABELS = {
    "demographic_parity_diff": "demographic parity",
    "disparate_impact_ratio": "disparate impact (ratio)",
    "equal_opportunity_diff": "equal opportunity",
    "false_positive_rate_diff": "false positive rate",
    "equalized_odds_diff": "equalized odds",
    "predictive_parity_diff": "predictive parity",
    "accuracy_diff": "accuracy",
}
"""A reader's name for each metric of the results file."""

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
    """One line per compared pair of :func:`audit_groups`: the rule of each group."""
    return "\n".join(f"{g.attribute}: {g.disadvantaged} (disadvantaged) against {g.advantaged}"
                      for g in groups.itertuples())


def group_table(groups: pd.DataFrame) -> pd.DataFrame:
    """The sizes and base rates of :func:`audit_groups` under a reader's column names,
    indexed by attribute, rates rounded to three decimals."""
    sizes = groups.set_index("attribute").drop(columns=["disadvantaged", "advantaged"])
    sizes.columns = ["rows (disadv.)", "rows (adv.)", "test rows (disadv.)", "test rows (adv.)",
                     "base rate (disadv.)", "base rate (adv.)", "base-rate gap"]
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
        Keep only this split seed's rows; None keeps the smallest seed in the file when it
        holds several (the file written by ``--seeds 42`` holds one).

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
    chosen_seed = int(rows["seed"].min()) if seed is None else int(seed)
    rows = _select(rows, path / RESULTS_FILE, slug, "seed", chosen_seed)
    return rows.reindex(columns=list(RESULT_COLUMNS)).reset_index(drop=True)


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
        Indexed by attribute and metric, with text columns: the gap (signed; the disparate
        impact ratio unsigned), its 95% interval, the p-value and the Holm p-value as
        :func:`faircode.significance.format_p` writes them, the minimum detectable gap, the
        rows compared, whether it is a finding, and the small-sample flag.
    """
    return pd.DataFrame({
        "attribute": rows.protected_attribute,
        "metric": rows.metric.map(METRIC_LABELS),
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
        Indexed by strategy, with text columns.
    """
    path = Path(results_dir) if results_dir is not None else default_results_dir()
    every = audit_results(audit, path, strategy=None, model=model)
    focus = every[(every.protected_attribute == attribute) & every.metric.isin(metrics)]

    def by_strategy(column: str) -> pd.DataFrame:
        return focus.pivot(index="strategy", columns="metric", values=column)

    table = (by_strategy("value").map("{:+.3f}".format).add_suffix(" gap")
             .join(by_strategy("p_adjusted").map(_p_text).add_suffix(" Holm p")))
    table.columns = [column.replace("_diff", "").replace("_", " ") for column in table.columns]
    performance = pd.read_csv(path / PERFORMANCE_FILE)
    mine = performance[(performance.audit == _slug(audit)) & (performance.model == model)]
    accuracy = mine.set_index("strategy")["balanced_accuracy"]
    return table.assign(**{"balanced accuracy": accuracy.map("{:.3f}".format)})


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


def _gap_text(value: float, metric: str = "") -> str:
    """A gap with its sign; the disparate impact ratio (1 = parity) without one."""
    if pd.isna(value):
        return "n/a"
    return f"{value:+.3f}" if metric.endswith("_diff") else f"{value:.3f}"
