"""The names of the benchmark grid: its models, strategies and results files, and which
models and strategies apply to an audit.

Kept free of numpy, pandas and scikit-learn, so that planning a grid and checking the
committed results against their inputs stays fast.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from faircode._manifest_schema import Manifest

#: The trained models of the grid (see :func:`faircode.models.build_model`).
MODELS = ("logistic_regression", "random_forest", "gradient_boosting")
#: The mitigation strategies of the grid (see :mod:`faircode.strategies`).
STRATEGIES = ("baseline", "unawareness_proxy_removal", "reweighing", "group_thresholds")
#: The strategies that apply to a deployed score, which cannot be refitted.
SCORE_STRATEGIES = ("baseline", "group_thresholds")
FAIRNESS_FILE = "results_fairness.csv"
PERFORMANCE_FILE = "results_performance.csv"
SPREAD_FILE = "results_seed_spread.csv"
#: The results files, in the order they are described in README.md.
RESULTS_FILES = (FAIRNESS_FILE, PERFORMANCE_FILE, SPREAD_FILE)


def models_of(manifest: Manifest, models: Sequence[str] | None,
              strategies: Sequence[str]) -> Iterator[tuple[str, tuple[str, ...]]]:
    """The (model, strategies) pairs of the grid for one audit.

    ``models=None`` means the trained models plus the audit's deployed scores; a named
    deployed score of another audit is skipped, and so is a model none of whose strategies
    applies.
    """
    scores = {s.name for s in manifest.deployed_scores}
    wanted = list(models) if models else [*MODELS, *sorted(scores)]
    for model in wanted:
        if model in scores:
            chosen = tuple(s for s in strategies if s in SCORE_STRATEGIES)
        elif model in MODELS:
            chosen = tuple(strategies)
        else:
            continue
        if chosen:
            yield model, chosen
