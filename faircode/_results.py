"""The results files: tidy tables, the seed spread summary, reading them back, and atomic writing.

Precision: every float in results/ is rounded to 10 significant digits (``%.10g``), then
written as the shortest text that reads back as that float (``1.0``, ``0.1234567891``). That
is far finer than any number a page shows (three decimals at most) and far coarser than the
last-bit differences of floating-point summation (about 1e-16 relative), so the files are
reproducible byte for byte while they still carry more precision than any reader needs.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from faircode._grid import FAIRNESS_FILE, PERFORMANCE_FILE, SPREAD_FILE
from faircode.exceptions import BenchmarkError

FLOAT_FORMAT = "%.10g"
DEFAULT_SEED = 42
ROW_KEY = ("audit", "protected_attribute", "strategy", "model", "metric")
#: The columns of results_seed_spread.csv, in order (see :func:`seed_spread`).
SPREAD_COLUMNS = (*ROW_KEY, "n_seeds", "mean", "sd", "min", "max", "share_significant",
                  "share_significant_adjusted", "share_opposite_sign", "default_seed", "default_value")
_REPO_RESULTS = Path(__file__).resolve().parent.parent / "results"


def seed_spread(fairness: pd.DataFrame, default_seed: int = DEFAULT_SEED) -> pd.DataFrame:
    """How each gap moves across seeds: one row per audit x attribute x strategy x model x metric.

    Parameters
    ----------
    fairness : pandas.DataFrame
        The fairness table of a grid run with several seeds (the rows of results_fairness.csv).
    default_seed : int
        The seed the headline results use; when it was not run, the smallest seed run.

    Returns
    -------
    pandas.DataFrame
        The columns :data:`SPREAD_COLUMNS`: ``n_seeds`` (seeds where the value is defined),
        ``mean``, ``sd`` (sample standard deviation, ddof=1), ``min``, ``max``,
        ``share_significant`` (share of seeds with raw p < 0.05), ``share_significant_adjusted``
        (after the Holm adjustment within each run), ``share_opposite_sign`` (share of seeds
        whose value is strictly of the other sign than the default seed's value; 0 when that
        value is 0), ``default_seed`` and ``default_value``. Sorted by the key columns.

    Examples
    --------
    >>> table = pd.DataFrame({"audit": "a", "protected_attribute": "sex", "strategy": "baseline",
    ...                       "model": "m", "metric": "demographic_parity_diff", "seed": [1, 2, 42],
    ...                       "value": [0.1, -0.1, 0.2], "significant": [True, False, True],
    ...                       "significant_adjusted": [False, False, True]})
    >>> row = seed_spread(table).iloc[0]
    >>> int(row["n_seeds"]), float(row["share_opposite_sign"]), float(row["default_value"])
    (3, 0.3333333333333333, 0.2)
    """
    key = list(ROW_KEY)
    seeds = sorted(fairness["seed"].unique())
    reference_seed = default_seed if default_seed in seeds else seeds[0]
    reference = (fairness[fairness["seed"] == reference_seed]
                 .set_index(key)["value"].rename("default_value"))
    data = fairness.join(reference, on=key)
    data["opposite_sign"] = (np.sign(data["value"]) * np.sign(data["default_value"]) < 0).astype(float)
    data["opposite_sign"] = data["opposite_sign"].where(data["value"].notna())
    for column in ("significant", "significant_adjusted"):
        data[f"is_{column}"] = data[column].astype("boolean").fillna(False).astype(float)
    grouped = data.groupby(key, sort=True, dropna=False)
    summary = grouped["value"].agg(n_seeds="count", mean="mean", sd="std", min="min", max="max")
    summary["share_significant"] = grouped["is_significant"].mean()
    summary["share_significant_adjusted"] = grouped["is_significant_adjusted"].mean()
    summary["share_opposite_sign"] = grouped["opposite_sign"].mean()
    summary["default_seed"] = reference_seed
    summary["default_value"] = grouped["default_value"].first()
    return summary.reset_index().reindex(columns=list(SPREAD_COLUMNS))


def load_seed_spread(path: str | Path | None = None) -> pd.DataFrame:
    """Read results_seed_spread.csv: the spread of every gap over the seed sweep.

    Parameters
    ----------
    path : str or Path, optional
        The file, or the folder holding it (default: the repository's results/). The sweep
        that writes it is ``python -m faircode.benchmark --seeds 0-29,42 --sweep --out results``.

    Returns
    -------
    pandas.DataFrame
        One row per audit x protected attribute x strategy x model x metric, with the columns
        :data:`SPREAD_COLUMNS` (see :func:`seed_spread` for their meaning).

    Raises
    ------
    BenchmarkError
        When the file is missing or lacks a column, naming the file and the command that writes it.

    Examples
    --------
    >>> spread = load_seed_spread()  # doctest: +SKIP
    >>> spread.query("audit == 'compas' and metric == 'demographic_parity_diff'")[["mean", "sd"]]  # doctest: +SKIP
    """
    path = Path(path) if path is not None else _REPO_RESULTS
    if path.is_dir():
        path = path / SPREAD_FILE
    if not path.is_file():
        raise BenchmarkError(f"{path}: no seed spread file; run `python -m faircode.benchmark --seeds 0-29,42 "
                             "--sweep --out results` (or `python build.py --step sweep`) to write it")
    table = pd.read_csv(path, dtype={"n_seeds": "int64", "default_seed": "int64"})
    missing = [c for c in SPREAD_COLUMNS if c not in table.columns]
    if missing:
        raise BenchmarkError(f"{path}: expected the columns {', '.join(SPREAD_COLUMNS)}; missing {', '.join(missing)}. "
                             "The file is from an older faircode: rerun the sweep to rewrite it")
    return table.reindex(columns=list(SPREAD_COLUMNS))


def combine(results: list) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The fairness and performance tables of a grid's unit results (see :class:`faircode._unit.UnitResult`),
    in a stable order: audit, model, seed, then the strategies in the order they ran."""
    ordered = sorted(results, key=lambda r: (r.unit.audit, r.unit.model, r.unit.seed))
    fairness = pd.concat([r.fairness for r in ordered], ignore_index=True)
    performance = pd.concat([r.performance for r in ordered], ignore_index=True)
    return fairness, performance


def _file_mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def round_significant(values: pd.Series) -> pd.Series:
    """Floats rounded to the significant digits of :data:`FLOAT_FORMAT` (NaN stays NaN)."""
    return values.map(lambda x: float(FLOAT_FORMAT % x) if x == x else x)


def csv_bytes(table: pd.DataFrame) -> bytes:
    """A table as the bytes of its results file (floats rounded by :func:`round_significant`,
    LF line ends)."""
    table = table.copy()
    for column in table.columns:
        if pd.api.types.is_float_dtype(table[column]):
            table[column] = round_significant(table[column])
    return table.to_csv(index=False, lineterminator="\n").encode("utf-8")


def write_files(contents: dict[str, bytes], out: str | Path) -> list[Path]:
    """Write ``{file name: bytes}`` into ``out``, all or nothing.

    Every file is first written to a temporary file in ``out``; only when all are written
    are they moved into place with ``os.replace``. A failure removes the temporary files and
    leaves the previous results as they were.
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    staged: list[tuple[str, Path]] = []
    try:
        for name, content in contents.items():
            fd, tmp = tempfile.mkstemp(dir=out, prefix=f".{name}.", suffix=".tmp")
            staged.append((tmp, out / name))
            with os.fdopen(fd, "wb") as handle:
                handle.write(content)
            os.chmod(tmp, _file_mode())  # mkstemp makes 0600 files; results are shared
    except Exception as err:
        for tmp, _ in staged:
            Path(tmp).unlink(missing_ok=True)
        raise BenchmarkError(f"could not write the results into {out} ({err}); the previous results are "
                             "unchanged") from err
    for tmp, final in staged:
        os.replace(tmp, final)
    return [final for _, final in staged]


def results_tables(fairness: pd.DataFrame, performance: pd.DataFrame, sweep: bool = False) -> dict[str, pd.DataFrame]:
    """The files a grid run writes: the fairness and performance tables, plus the seed spread
    when several seeds ran; with ``sweep``, the seed spread only."""
    several = fairness["seed"].nunique() > 1
    if sweep:
        if not several:
            raise BenchmarkError("--sweep summarises several seeds; got one. Give --seeds 0-29,42")
        return {SPREAD_FILE: seed_spread(fairness)}
    tables = {FAIRNESS_FILE: fairness, PERFORMANCE_FILE: performance}
    if several:
        tables[SPREAD_FILE] = seed_spread(fairness)
    return tables


def results_contents(fairness: pd.DataFrame, performance: pd.DataFrame, sweep: bool = False) -> dict[str, bytes]:
    """The bytes of each results file of a grid run (see :func:`results_tables`)."""
    try:
        return {name: csv_bytes(table) for name, table in results_tables(fairness, performance, sweep).items()}
    except BenchmarkError:
        raise
    except Exception as err:
        raise BenchmarkError(f"could not format the results ({err}); the previous results are unchanged") from err


def write_results(fairness: pd.DataFrame, performance: pd.DataFrame, out: str | Path,
                  sweep: bool = False) -> list[Path]:
    """Write a grid's results files into ``out`` (see :func:`results_tables`), all or nothing."""
    return write_files(results_contents(fairness, performance, sweep), out)
