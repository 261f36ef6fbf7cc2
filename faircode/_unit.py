"""Running one work unit of the grid: fit, predict per strategy, audit, adjust p-values."""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd

from faircode._pickles import load_entry, store_entry
from faircode.datasets import AuditData, load_audit
from faircode.harness import ALPHA, UnitResult, WorkUnit

EXCLUDED = -1.0  # mask value of rows in neither compared group, as passed to fairness_report
FAIRNESS_COLUMNS = (
    "audit", "protected_attribute", "strategy", "model", "seed", "metric", "value",
    "rate_disadvantaged", "rate_advantaged", "ci_low", "ci_high", "p_value", "p_adjusted",
    "significant", "significant_adjusted", "n_disadvantaged", "n_advantaged",
    "small_sample_warning", "minimum_detectable_gap", "note",
)
PERFORMANCE_COLUMNS = ("audit", "strategy", "model", "seed", "accuracy", "balanced_accuracy", "roc_auc",
                       "selection_rate", "n_test")


@dataclass
class StrategyOutput:
    """Test-set predictions (0/1) and scores of one strategy."""

    strategy: str
    predictions: np.ndarray
    scores: np.ndarray


@lru_cache(maxsize=2)
def _cached_audit(unit: WorkUnit, cache_dir: Path | None) -> AuditData:
    """Load a unit's audit, through a pickle keyed by the unit's code and input digests
    when a cache folder is given."""
    if cache_dir is None:
        return load_audit(unit.manifest_path, random_state=unit.seed)
    path = cache_dir / f"audit-{unit.code[:16]}-{unit.inputs[:16]}-{unit.seed}.pkl"
    data = load_entry(path)
    if data is None:
        data = load_audit(unit.manifest_path, random_state=unit.seed)
        store_entry(path, data)
    return data


def run_unit(unit: WorkUnit, cache_dir: Path | None = None) -> UnitResult:
    """Run one audit x model x seed for all its strategies; return tidy tables and timings."""
    start, cpu_start = time.perf_counter(), time.process_time()
    data = _cached_audit(unit, cache_dir)
    deployed = {s.name: s for s in data.manifest.deployed_scores}
    if unit.model in deployed:
        outputs = _score_outputs(data, deployed[unit.model], unit.strategies)
    else:
        outputs = _model_outputs(data, unit.model, unit.seed, unit.strategies)
    fairness, sig_seconds = _audit_outputs(unit, data, outputs)
    performance = _performance(unit, data, outputs)
    return UnitResult(unit, fairness, performance, time.perf_counter() - start, sig_seconds,
                      time.process_time() - cpu_start)


def _primary_groups(data: AuditData, rows: np.ndarray) -> np.ndarray:
    from faircode.strategies import group_codes

    return group_codes(data.masks[data.manifest.primary_attribute].to_numpy()[rows])


def _model_outputs(data: AuditData, model_name: str, seed: int, strategies: tuple[str, ...]) -> list[StrategyOutput]:
    from faircode.models import build_model, fit_model, positive_scores
    from faircode.strategies import reweighing_weights

    train, test = data.idx_train, data.idx_test
    y_train = data.y.to_numpy()[train]
    outputs, baseline = [], None
    if "baseline" in strategies or "group_thresholds" in strategies:
        baseline = fit_model(build_model(model_name, seed), data.X.iloc[train], y_train)
        test_scores = positive_scores(baseline, data.X.iloc[test])
        if "baseline" in strategies:
            outputs.append(StrategyOutput("baseline", (test_scores >= 0.5).astype(int), test_scores))
    if "unawareness_proxy_removal" in strategies:
        model = fit_model(build_model(model_name, seed), data.X_core.iloc[train], y_train)
        scores = positive_scores(model, data.X_core.iloc[test])
        outputs.append(StrategyOutput("unawareness_proxy_removal", (scores >= 0.5).astype(int), scores))
    if "reweighing" in strategies:
        weights = reweighing_weights(_primary_groups(data, train), y_train)
        model = fit_model(build_model(model_name, seed), data.X.iloc[train], y_train, sample_weight=weights)
        scores = positive_scores(model, data.X.iloc[test])
        outputs.append(StrategyOutput("reweighing", (scores >= 0.5).astype(int), scores))
    if "group_thresholds" in strategies:
        train_scores = positive_scores(baseline, data.X.iloc[train])
        outputs.append(_thresholded(data, train_scores, test_scores, cut=0.5))
    return outputs


def _score_outputs(data: AuditData, score, strategies: tuple[str, ...]) -> list[StrategyOutput]:
    values = data.df[score.column].to_numpy(dtype=float)
    train_scores, test_scores = values[data.idx_train], values[data.idx_test]
    outputs = []
    if "baseline" in strategies:
        outputs.append(StrategyOutput("baseline", (test_scores >= score.at_least).astype(int), test_scores))
    if "group_thresholds" in strategies:
        outputs.append(_thresholded(data, train_scores, test_scores, cut=score.at_least))
    return outputs


def _thresholded(data: AuditData, train_scores: np.ndarray, test_scores: np.ndarray, cut: float) -> StrategyOutput:
    from faircode.strategies import apply_group_thresholds, fit_group_thresholds

    target = float(np.mean(train_scores >= cut))
    thresholds = fit_group_thresholds(train_scores, _primary_groups(data, data.idx_train), target)
    predictions = apply_group_thresholds(test_scores, _primary_groups(data, data.idx_test), thresholds, default=cut)
    return StrategyOutput("group_thresholds", predictions, test_scores)


def masks_on_test_rows(data: AuditData) -> dict[str, np.ndarray]:
    """Masks on the test rows, excluded rows marked -1; attributes with an empty test group are left out."""
    masks = {}
    for name, mask in data.masks.items():
        values = mask.to_numpy(dtype=float)[data.idx_test]
        if (values == 1).any() and (values == 0).any():
            masks[name] = np.where(np.isnan(values), EXCLUDED, values)
    return masks


def _audit_outputs(unit: WorkUnit, data: AuditData, outputs: list[StrategyOutput]) -> tuple[pd.DataFrame, float]:
    from faircode.metrics import fairness_report
    from faircode.significance import adjust_p_values

    y_test = data.y.to_numpy()[data.idx_test]
    masks = masks_on_test_rows(data)
    tables, seconds = [], 0.0
    for output in outputs:
        start = time.process_time()
        report = fairness_report(y_test, output.predictions, masks, significance=True, random_state=unit.seed)
        seconds += time.process_time() - start
        report = report.assign(audit=unit.audit, strategy=output.strategy, model=unit.model, seed=unit.seed)
        report["p_adjusted"] = adjust_p_values(report["p_value"].to_numpy(dtype=float), method="holm")
        report["significant_adjusted"] = report["p_adjusted"] < ALPHA
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
