"""The expensive half of a work unit: fit its model once per strategy and score the test rows.

What this module's import closure computes is cached on its own (the first level of the
benchmark cache), keyed by the digest of exactly this code, the audit's files, the model,
the seed and the strategies; the statistics computed from these predictions are the second
level. Numeric libraries run single-threaded here, whatever the process: BLAS and OpenMP
sum in an order that depends on their thread count (joblib's workers get fewer threads than
the main process, and a machine with more cores more), so the same fit gave test scores
that differed in the last digits (up to 2e-13 for logistic regression on Health Risk, one
BLAS thread against two), enough to reorder nearly tied scores and move ROC AUC.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from threadpoolctl import threadpool_limits

from faircode.datasets import AuditData, split_indices


@dataclass
class StrategyOutput:
    """Test-set predictions (0/1) and scores of one strategy."""

    strategy: str
    predictions: np.ndarray
    scores: np.ndarray


def split_for_seed(data: AuditData, seed: int) -> AuditData:
    """The audit with the train/test split of ``seed`` (rows, features and masks unchanged)."""
    if data.split_seed == seed:
        return data
    train, test = split_indices(data.y, data.manifest.test_size, seed)
    return replace(data, idx_train=train, idx_test=test, split_seed=seed)


def fit_outputs(data: AuditData, model: str, seed: int, strategies: tuple[str, ...]) -> list[StrategyOutput]:
    """Each strategy's test-set predictions and scores, for a trained model or a deployed score.

    ``data`` must already carry the split of ``seed`` (see :func:`split_for_seed`).
    """
    with threadpool_limits(limits=1):
        deployed = {s.name: s for s in data.manifest.deployed_scores}
        if model in deployed:
            return _score_outputs(data, deployed[model], strategies)
        return _model_outputs(data, model, seed, strategies)


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
