"""Feature sets and mitigation strategies of the benchmark grid.

- ``baseline``: every feature, protected columns and proxies included.
- ``unawareness_proxy_removal``: core features only (no protected column, no proxy).
- ``reweighing``: baseline features, training rows weighted as Kamiran and Calders (2012)
  propose, so that group and label are independent in the weighted training data.
- ``group_thresholds``: the baseline model's scores, cut at one threshold per group so that
  every group's selection rate on the training rows equals the overall training selection
  rate at the 0.5 cut (post-processing; groups of the audit's primary attribute).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from faircode._grid import STRATEGIES
from faircode.exceptions import InvalidInputError
from faircode.manifest import Manifest

OTHER_GROUP = 2  # code of rows in neither compared group of the primary attribute


def feature_columns(manifest: Manifest, strategy: str) -> list[str]:
    """The data columns a strategy's model sees.

    Parameters
    ----------
    manifest : Manifest
        The audit's manifest.
    strategy : str
        One of :data:`STRATEGIES`.

    Returns
    -------
    list of str
        Core features only for ``unawareness_proxy_removal``; core features, protected
        columns and proxies for the others.
    """
    check_strategy(strategy)
    if strategy == "unawareness_proxy_removal":
        return list(dict.fromkeys(manifest.core_features))
    return list(dict.fromkeys((*manifest.core_features, *manifest.protected_columns, *manifest.proxies)))


def check_strategy(strategy: str) -> None:
    """Raise InvalidInputError unless ``strategy`` is one of :data:`STRATEGIES`."""
    if strategy not in STRATEGIES:
        raise InvalidInputError(f"The 'strategy' parameter must be one of {', '.join(STRATEGIES)}. "
                                f"Got {strategy!r} instead.")


def encode_features(df: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """Numeric feature matrix of ``columns``: numbers as floats, other columns one-hot.

    Parameters
    ----------
    df : pandas.DataFrame
        The audit's rows.
    columns : list of str
        The columns to encode, in order.

    Returns
    -------
    pandas.DataFrame
        One float column per numeric column (missing values filled with the median) and
        one per level of every other column, named ``column=level`` (a missing value is
        its own level, ``missing``). Same index as ``df``.
    """
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise InvalidInputError(f"The 'columns' parameter names columns not in the data: {missing}.")
    parts = []
    for column in columns:
        values = df[column]
        if pd.api.types.is_bool_dtype(values) or not pd.api.types.is_numeric_dtype(values):
            text = values.astype("object").where(values.notna(), "missing").astype(str)
            parts.append(pd.get_dummies(text, prefix=column, prefix_sep="=", dtype=float))
        else:
            numbers = values.astype(float)
            parts.append(numbers.fillna(numbers.median()).to_frame(column))
    if not parts:
        return pd.DataFrame(index=df.index)
    return pd.concat(parts, axis=1)


def group_codes(mask: pd.Series | np.ndarray) -> np.ndarray:
    """Integer group of each row: 1 disadvantaged, 0 advantaged, 2 neither."""
    values = np.asarray(mask, dtype=float)
    return np.where(np.isnan(values), OTHER_GROUP, values).astype(int)


def reweighing_weights(groups: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Kamiran-Calders weights ``P(g) P(y) / P(g, y)`` for every row.

    Parameters
    ----------
    groups : array of int
        Group code of each training row.
    y : array of 0/1
        Label of each training row.

    Returns
    -------
    numpy.ndarray
        One weight a row; the weighted data has group and label independent.
    """
    groups, y = np.asarray(groups), np.asarray(y)
    if groups.shape != y.shape:
        raise InvalidInputError(f"'groups' and 'y' must have the same length. Got {len(groups)} and {len(y)}.")
    weights = np.ones(len(y), dtype=float)
    n = len(y)
    for g in np.unique(groups):
        in_group = groups == g
        for label in (0, 1):
            cell = in_group & (y == label)
            if cell.any():
                weights[cell] = in_group.mean() * (y == label).mean() / (cell.sum() / n)
    return weights


def fit_group_thresholds(scores: np.ndarray, groups: np.ndarray, target_rate: float) -> dict[int, float]:
    """Per-group score thresholds giving each group the selection rate ``target_rate`` on these rows.

    Parameters
    ----------
    scores : array of float
        Training scores (higher = more likely positive).
    groups : array of int
        Group code of each training row.
    target_rate : float
        The selection rate every group should get, in [0, 1].

    Returns
    -------
    dict
        Group code -> threshold; a row is positive when its score is at least its group's threshold.
    """
    scores, groups = np.asarray(scores, dtype=float), np.asarray(groups)
    if not 0.0 <= target_rate <= 1.0:
        raise InvalidInputError(f"'target_rate' must be in [0, 1]. Got {target_rate}.")
    thresholds = {}
    for g in np.unique(groups):
        ranked = np.sort(scores[groups == g])[::-1]
        k = int(round(target_rate * len(ranked)))
        thresholds[int(g)] = np.inf if k == 0 else float(ranked[k - 1])
    return thresholds


def apply_group_thresholds(scores: np.ndarray, groups: np.ndarray, thresholds: dict[int, float],
                           default: float = 0.5) -> np.ndarray:
    """0/1 predictions: score at least the row's group threshold (``default`` for an unseen group)."""
    scores, groups = np.asarray(scores, dtype=float), np.asarray(groups)
    cut = np.array([thresholds.get(int(g), default) for g in groups])
    return (scores >= cut).astype(int)
