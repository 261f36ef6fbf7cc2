"""The estimators of the benchmark grid, with settings that keep the full grid affordable.

The largest audit (Health Risk) trains on about 137,000 rows and 130 features, three times a
model (baseline, unawareness, reweighing), on a 2-core machine shared with the rest of the grid.
Settings, measured on that audit with one thread:

- ``logistic_regression``: standardised features, L2 penalty C=1, lbfgs stopped at tol 1e-3
  (at most 300 iterations): 1.2 s a fit instead of 6.6 s at the default tolerance, with the
  same test AUC to 0.001.
- ``random_forest``: 50 trees, sqrt(features) per split, at least 10 rows a leaf, depth at
  most 14, each tree grown on a bootstrap sample of 30% of the rows (``max_samples``):
  about 4 s a fit, test AUC 0.90 (0.89 with 10% samples and depth 12).
- ``gradient_boosting``: scikit-learn's histogram-based boosting, at most 50 rounds at learning
  rate 0.2 on 63 bins a feature, early stopping (5 rounds without gain on a 10% validation
  split) for training sets over 10,000 rows: 5.7 s of CPU a fit, test AUC 0.920 against
  0.921 for 100 rounds at rate 0.1 on 255 bins (10.9 s).

The random forest is single-threaded (n_jobs=1); inside the grid every fit runs with BLAS and
OpenMP limited to one thread (see :mod:`faircode._fit`), since the grid runs in parallel
across work units instead, and so that a result does not depend on a worker's core count.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import ClassifierMixin
from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler

from faircode._grid import MODELS
from faircode.exceptions import InvalidInputError

__all__ = ["MODELS", "build_model", "fit_model", "positive_scores"]


def build_model(name: str, random_state: int | None = None) -> ClassifierMixin:
    """A fresh, unfitted classifier.

    Parameters
    ----------
    name : {"logistic_regression", "random_forest", "gradient_boosting"}
        Which estimator.
    random_state : int or None
        Seed of the estimator's own randomness.

    Returns
    -------
    sklearn classifier
        With ``fit(X, y)``, ``predict`` and ``predict_proba``.
    """
    if name == "logistic_regression":
        return Pipeline([("scale", StandardScaler()),
                         ("model", LogisticRegression(C=1.0, tol=1e-3, max_iter=300, random_state=random_state))])
    if name == "random_forest":
        return RandomForestClassifier(n_estimators=50, min_samples_leaf=10, max_depth=14, max_features="sqrt",
                                      max_samples=0.3, n_jobs=1, random_state=random_state)
    if name == "gradient_boosting":
        return HistGradientBoostingClassifier(max_iter=50, learning_rate=0.2, max_bins=63, early_stopping="auto",
                                              n_iter_no_change=5, validation_fraction=0.1,
                                              random_state=random_state)
    raise InvalidInputError(f"The 'name' parameter of build_model must be one of {', '.join(MODELS)}. "
                            f"Got {name!r} instead.")


def fit_model(model: ClassifierMixin, X, y, sample_weight: np.ndarray | None = None) -> ClassifierMixin:
    """Fit ``model``, passing ``sample_weight`` to the final estimator of a pipeline."""
    if sample_weight is None:
        return model.fit(X, y)
    if isinstance(model, Pipeline):
        return model.fit(X, y, **{f"{model.steps[-1][0]}__sample_weight": sample_weight})
    return model.fit(X, y, sample_weight=sample_weight)


def positive_scores(model: ClassifierMixin, X) -> np.ndarray:
    """Probability of the positive class for each row."""
    return model.predict_proba(X)[:, 1]
