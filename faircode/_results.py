"""The results files: tidy tables, the seed spread summary, and atomic writing."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from faircode.exceptions import BenchmarkError

FAIRNESS_FILE = "results_fairness.csv"
PERFORMANCE_FILE = "results_performance.csv"
SPREAD_FILE = "results_seed_spread.csv"
DEFAULT_SEED = 42
ROW_KEY = ["audit", "protected_attribute", "strategy", "model", "metric"]


def seed_spread(fairness: pd.DataFrame, default_seed: int = DEFAULT_SEED) -> pd.DataFrame:
    """Per audit x attribute x strategy x model x metric: how the value moves across seeds.

    Columns: n_seeds, mean, sd, min, max, range, share_significant (raw p < 0.05),
    share_same_sign (share of seeds whose value has the sign of the default seed's value;
    the default seed is ``default_seed`` when it was run, else the smallest seed run).
    """
    seeds = sorted(fairness["seed"].unique())
    reference_seed = default_seed if default_seed in seeds else seeds[0]
    reference = (fairness[fairness["seed"] == reference_seed]
                 .set_index(ROW_KEY)["value"].rename("default_value"))
    data = fairness.join(reference, on=ROW_KEY)
    data["same_sign"] = np.sign(data["value"]) == np.sign(data["default_value"])
    data["is_significant"] = data["significant"].astype("boolean").fillna(False).astype(float)
    grouped = data.groupby(ROW_KEY, sort=True, dropna=False)
    summary = grouped["value"].agg(n_seeds="count", mean="mean", sd="std", min="min", max="max")
    summary["range"] = summary["max"] - summary["min"]
    summary["share_significant"] = grouped["is_significant"].mean()
    summary["share_same_sign"] = grouped["same_sign"].mean()
    summary["default_seed"] = reference_seed
    summary["default_value"] = grouped["default_value"].first()
    return summary.reset_index()


def _file_mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def write_results(fairness: pd.DataFrame, performance: pd.DataFrame, out: str | Path) -> list[Path]:
    """Write the results files into ``out``, all or nothing.

    Every table is first written to a temporary file in ``out``; only when all are written
    are they moved into place with ``os.replace``. A failure removes the temporary files and
    leaves the previous results as they were.
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    tables = {FAIRNESS_FILE: fairness, PERFORMANCE_FILE: performance}
    if fairness["seed"].nunique() > 1:
        tables[SPREAD_FILE] = seed_spread(fairness)
    staged: list[tuple[str, Path]] = []
    try:
        for name, table in tables.items():
            fd, tmp = tempfile.mkstemp(dir=out, prefix=f".{name}.", suffix=".tmp")
            os.close(fd)
            staged.append((tmp, out / name))
            table.to_csv(tmp, index=False)
            os.chmod(tmp, _file_mode())  # mkstemp makes 0600 files; results are shared
    except Exception as err:
        for tmp, _ in staged:
            Path(tmp).unlink(missing_ok=True)
        raise BenchmarkError(f"could not write the results into {out} ({err}); the previous results are "
                             "unchanged") from err
    for tmp, final in staged:
        os.replace(tmp, final)
    return [final for _, final in staged]
