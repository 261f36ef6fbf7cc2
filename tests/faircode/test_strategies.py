"""Tests of faircode.strategies: feature sets, encoding, reweighing and group thresholds."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from faircode.exceptions import InvalidInputError
from faircode.manifest import load_manifest
from faircode.strategies import (
    STRATEGIES,
    apply_group_thresholds,
    encode_features,
    feature_columns,
    fit_group_thresholds,
    group_codes,
    reweighing_weights,
)

TINY = Path(__file__).resolve().parents[1] / "fixtures" / "audits" / "tiny"


def test_feature_sets_of_each_strategy():
    manifest = load_manifest(TINY)
    assert feature_columns(manifest, "unawareness_proxy_removal") == ["years", "score"]
    for strategy in ("baseline", "reweighing", "group_thresholds"):
        assert feature_columns(manifest, strategy) == ["years", "score", "region", "sex", "kind"]
    with pytest.raises(InvalidInputError, match="must be one of baseline"):
        feature_columns(manifest, "fairness_magic")


def test_encode_features_one_hot_and_numbers():
    df = pd.DataFrame({"n": [1, None, 3], "c": ["a", "b", None], "b": [True, False, True]})
    X = encode_features(df, ["n", "c", "b"])
    assert list(X.columns) == ["n", "c=a", "c=b", "c=missing", "b=False", "b=True"]
    assert X["n"].tolist() == [1.0, 2.0, 3.0]  # the median fills the gap
    assert X["c=missing"].tolist() == [0.0, 0.0, 1.0]
    assert all(dtype == np.dtype("float64") for dtype in X.dtypes)
    with pytest.raises(InvalidInputError, match=r"columns not in the data: \['zz'\]"):
        encode_features(df, ["n", "zz"])


def test_reweighing_makes_group_and_label_independent():
    rng = np.random.default_rng(0)
    groups = rng.integers(0, 3, 500)
    y = (rng.random(500) < np.where(groups == 1, 0.7, 0.2)).astype(int)
    w = reweighing_weights(groups, y)
    overall = np.average(y, weights=w)
    for g in range(3):
        in_group = groups == g
        assert np.average(y[in_group], weights=w[in_group]) == pytest.approx(overall, abs=1e-12)
        # each group keeps its total weight (its size): P(g) is unchanged
        assert w[in_group].sum() == pytest.approx(in_group.sum())
    # the formula, one cell by hand
    cell = (groups == 1) & (y == 1)
    expected = (groups == 1).mean() * y.mean() / cell.mean()
    assert np.allclose(w[cell], expected)


def test_reweighing_rejects_mismatched_lengths():
    with pytest.raises(InvalidInputError, match="same length"):
        reweighing_weights(np.zeros(3), np.zeros(4))


def test_group_thresholds_equalise_training_selection_rates():
    rng = np.random.default_rng(1)
    groups = rng.integers(0, 3, 900)
    scores = rng.random(900) + 0.3 * (groups == 0)
    thresholds = fit_group_thresholds(scores, groups, target_rate=0.25)
    predictions = apply_group_thresholds(scores, groups, thresholds)
    for g in range(3):
        n_g = (groups == g).sum()
        assert abs(predictions[groups == g].mean() - 0.25) <= 1 / n_g
    assert thresholds[0] > thresholds[1]  # the group with higher scores needs a higher cut


def test_group_thresholds_edge_rates_and_unseen_group():
    scores, groups = np.array([0.1, 0.9, 0.5]), np.array([0, 0, 1])
    assert apply_group_thresholds(scores, groups, fit_group_thresholds(scores, groups, 0.0)).sum() == 0
    assert apply_group_thresholds(scores, groups, fit_group_thresholds(scores, groups, 1.0)).sum() == 3
    assert apply_group_thresholds(np.array([0.6, 0.4]), np.array([7, 7]), {}, default=0.5).tolist() == [1, 0]
    with pytest.raises(InvalidInputError, match=r"'target_rate' must be in \[0, 1\]"):
        fit_group_thresholds(scores, groups, 1.5)


def test_group_codes_marks_excluded_rows():
    assert group_codes(pd.Series([1.0, 0.0, np.nan])).tolist() == [1, 0, 2]


def test_strategy_names_are_the_documented_four():
    assert STRATEGIES == ("baseline", "unawareness_proxy_removal", "reweighing", "group_thresholds")
