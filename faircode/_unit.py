"""One work unit of the grid, as it runs on a worker: its types, and fit, predict, audit, adjust.

A unit is one audit x model x seed with the strategies to run. Everything it needs travels
with it: the :class:`WorkUnit` names the work and carries its cache keys, the
:class:`AuditSource` carries the audit's manifest and the bytes of its data files, so a worker
needs faircode installed but not the client's files. A unit reads and writes no cache: the
client does (see :mod:`faircode.harness`). A unit given the predictions of an earlier run
(the first level of the cache) only recomputes the statistics.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from faircode._digest import UNIT_ENTRY, process_code_digest
from faircode._fit import StrategyOutput, fit_outputs, split_for_seed
from faircode.datasets import AuditData, audit_from_manifest
from faircode.exceptions import BenchmarkError
from faircode.manifest import Manifest

ALPHA = 0.05
FAIRNESS_COLUMNS = (
    "audit", "protected_attribute", "strategy", "model", "seed", "metric", "value",
    "rate_disadvantaged", "rate_advantaged", "ci_low", "ci_high", "ci_method", "p_value", "p_adjusted",
    "significant", "significant_adjusted", "n_disadvantaged", "n_advantaged",
    "small_sample_warning", "minimum_detectable_gap", "mdg_rate", "note",
)
PERFORMANCE_COLUMNS = ("audit", "strategy", "model", "seed", "accuracy", "balanced_accuracy", "roc_auc",
                       "selection_rate", "n_test")


@dataclass(frozen=True)
class AuditSource:
    """An audit's validated manifest and the bytes of its data files: what a worker loads it from.

    ``digest`` covers the manifest file and every data file, so it names the audit's inputs.
    """

    manifest: Manifest
    files: dict[Path, bytes] = field(repr=False, hash=False, compare=False)
    digest: str = ""


@dataclass(frozen=True)
class WorkUnit:
    """One audit x model x seed of the grid, with its strategies and cache keys.

    ``fit_key`` names its predictions (the fitting code, the audit's inputs, model, seed and
    strategies); ``key`` names its tables (``fit_key`` and the statistics code); ``code`` is
    the digest of the code a unit runs, which a worker checks against its own.
    """

    audit: str
    manifest_path: Path
    model: str
    seed: int
    strategies: tuple[str, ...]
    key: str = ""
    fit_key: str = ""
    code: str = ""

    @property
    def label(self) -> str:
        """How messages name the unit: ``compas x random_forest x seed 42``."""
        return f"{self.audit} x {self.model} x seed {self.seed}"


@dataclass
class Predictions:
    """A unit's test-set outputs per strategy, with the time the fits took."""

    outputs: list[StrategyOutput]
    seconds: float
    cpu_seconds: float


@dataclass
class UnitResult:
    """What a work unit produced: tidy fairness and performance rows, its predictions and timings.

    ``cpu_seconds`` is the CPU time of the fits (0 when the predictions came from the cache)
    plus that of the tables; ``from_cache`` is "tables" (nothing ran), "predictions" (only
    the statistics ran) or "" (everything ran); ``worker`` names where it ran.
    """

    unit: WorkUnit
    fairness: pd.DataFrame
    performance: pd.DataFrame
    predictions: Predictions | None
    seconds: float
    significance_seconds: float
    cpu_seconds: float = 0.0
    from_cache: str = ""
    worker: str = ""


_LOADED: dict[str, AuditData] = {}


def _audit_data(source: AuditSource) -> AuditData:
    """The audit loaded from its source, kept per process for the next units of the same audit."""
    data = _LOADED.get(source.digest)
    if data is None:
        data = audit_from_manifest(source.manifest, files=source.files)
        while len(_LOADED) >= 2:
            _LOADED.pop(next(iter(_LOADED)))
        _LOADED[source.digest] = data
    return data


def run_unit(unit: WorkUnit, source: AuditSource, predictions: Predictions | None = None) -> UnitResult:
    """Run one work unit: fit and predict (unless ``predictions`` are given), then audit.

    Raises
    ------
    BenchmarkError
        Naming the unit, whatever went wrong inside it (the original error is chained).
    """
    try:
        return _run(unit, source, predictions)
    except Exception as err:  # noqa: BLE001 - any failure of a unit fails the grid, naming the unit
        raise BenchmarkError(f"work unit {unit.label} failed: {type(err).__name__}: {err}") from err


def _run(unit: WorkUnit, source: AuditSource, predictions: Predictions | None) -> UnitResult:
    if unit.code and process_code_digest(UNIT_ENTRY) != unit.code:
        raise BenchmarkError("this process runs other faircode code than the unit was planned with (a faircode "
                             "module changed after this process imported it, or a worker has another version); "
                             "restart the process, and install the same faircode on the client and every worker")
    start = time.perf_counter()
    data = split_for_seed(_audit_data(source), unit.seed)
    if predictions is None:
        fit_start, fit_cpu = time.perf_counter(), time.process_time()
        outputs = fit_outputs(data, unit.model, unit.seed, unit.strategies)
        predictions = Predictions(outputs, time.perf_counter() - fit_start, time.process_time() - fit_cpu)
        fit_cpu_seconds, cached = predictions.cpu_seconds, ""
    else:
        fit_cpu_seconds, cached = 0.0, "predictions"
    cpu_start = time.process_time()
    with threadpool_limits(limits=1):
        fairness, sig_seconds = _audit_outputs(unit, data, predictions.outputs)
        performance = _performance(unit, data, predictions.outputs)
    return UnitResult(unit, fairness, performance, predictions, time.perf_counter() - start, sig_seconds,
                      fit_cpu_seconds + time.process_time() - cpu_start, cached)


def masks_on_test_rows(data: AuditData) -> dict[str, np.ndarray]:
    """Masks on the test rows, rows in neither group NaN (left out); attributes with an empty
    test group are left out."""
    masks = {}
    for name, mask in data.masks.items():
        values = mask.to_numpy(dtype=float)[data.idx_test]
        if (values == 1).any() and (values == 0).any():
            masks[name] = values
    return masks


def _audit_outputs(unit: WorkUnit, data: AuditData, outputs: list[StrategyOutput]) -> tuple[pd.DataFrame, float]:
    from faircode.metrics import fairness_report

    y_test = data.y.to_numpy()[data.idx_test]
    masks = masks_on_test_rows(data)
    tables, seconds = [], 0.0
    for output in outputs:
        start = time.process_time()
        # Holm over the strategy's family, each distinct test once (the ratio shares demographic parity's)
        report = fairness_report(y_test, output.predictions, masks, significance=True, random_state=unit.seed,
                                 alpha=ALPHA, adjust="holm")
        seconds += time.process_time() - start
        report = report.assign(audit=unit.audit, strategy=output.strategy, model=unit.model, seed=unit.seed)
        tables.append(report)
    table = pd.concat(tables, ignore_index=True)
    return table.reindex(columns=list(FAIRNESS_COLUMNS)), seconds


def _performance(unit: WorkUnit, data: AuditData, outputs: list[StrategyOutput]) -> pd.DataFrame:
    from sklearn.metrics import accuracy_score, balanced_accuracy_score, roc_auc_score

    y_test = data.y.to_numpy()[data.idx_test]
    rows = [{
        "audit": unit.audit, "strategy": o.strategy, "model": unit.model, "seed": unit.seed,
        "accuracy": accuracy_score(y_test, o.predictions),
        "balanced_accuracy": balanced_accuracy_score(y_test, o.predictions),
        "roc_auc": roc_auc_score(y_test, o.scores),
        "selection_rate": float(np.mean(o.predictions)), "n_test": len(y_test),
    } for o in outputs]
    return pd.DataFrame(rows, columns=list(PERFORMANCE_COLUMNS))
