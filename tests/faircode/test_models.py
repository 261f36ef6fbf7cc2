"""Tests of faircode.models: the three estimators and sample-weight routing."""

import numpy as np
import pytest
from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
from sklearn.pipeline import Pipeline

from faircode.benchmark import load_audit
from faircode.exceptions import InvalidInputError
from faircode.models import MODELS, build_model, fit_model, positive_scores


@pytest.fixture(scope="module")
def german():
    return load_audit("german_credit_lending")


def test_model_kinds():
    assert isinstance(build_model("logistic_regression", 0), Pipeline)
    assert build_model("logistic_regression", 0).steps[0][0] == "scale"
    assert isinstance(build_model("random_forest", 0), RandomForestClassifier)
    assert isinstance(build_model("gradient_boosting", 0), HistGradientBoostingClassifier)
    with pytest.raises(InvalidInputError, match="must be one of logistic_regression, random_forest, "
                                                "gradient_boosting. Got 'svm' instead"):
        build_model("svm", 0)


@pytest.mark.parametrize("name", MODELS)
def test_each_model_learns_the_real_audit_and_is_reproducible(german, name):
    train, test = german.idx_train, german.idx_test
    X, y = german.X, german.y.to_numpy()
    first = positive_scores(fit_model(build_model(name, 3), X.iloc[train], y[train]), X.iloc[test])
    again = positive_scores(fit_model(build_model(name, 3), X.iloc[train], y[train]), X.iloc[test])
    assert np.array_equal(first, again)
    assert first.min() >= 0 and first.max() <= 1
    from sklearn.metrics import roc_auc_score
    assert roc_auc_score(y[test], first) > 0.65  # better than chance on German credit


def test_zero_weights_equal_dropping_rows_in_the_pipeline(german):
    X, y = german.X.to_numpy(), german.y.to_numpy()
    keep = np.arange(len(y)) % 2 == 0
    weighted = fit_model(build_model("logistic_regression", 0), X, y, sample_weight=keep.astype(float))
    dropped = fit_model(build_model("logistic_regression", 0), X[keep], y[keep])
    # the scaler sees every row, so compare the probability ranking, not the coefficients
    a, b = positive_scores(weighted, X), positive_scores(dropped, X)
    assert np.corrcoef(a, b)[0, 1] > 0.98
    unweighted = positive_scores(fit_model(build_model("logistic_regression", 0), X, y), X)
    assert not np.allclose(a, unweighted)
