"""An audit at a glance: who is compared with whom, and what the benchmark found.

:func:`audit_groups` describes every compared pair of groups of an audit (the rule defining
each group, its size in the whole data and in the test split, and its base rate of the
positive label); :func:`audit_results` reads one audit's rows of the benchmark's
``results_fairness.csv`` (each metric's gap, interval, p-value, Holm-adjusted p-value and
minimum detectable gap).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from faircode.datasets import AuditData, find_manifest_path, load_audit
from faircode.exceptions import BenchmarkError
from faircode.manifest import Manifest, intersection_name

__all__ = ["GROUP_COLUMNS", "RESULT_COLUMNS", "audit_groups", "audit_results", "default_results_dir"]

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

RESULTS_FILE = "results_fairness.csv"
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
