"""Equivalence of two rates: two one-sided tests (TOST) that the gap lies within +-margin.

A test of difference can only fail to find a gap; it cannot show the gap is small. TOST
turns the question round: the null hypothesis is that the gap is at least ``margin`` away
from zero (gap <= -margin, or gap >= +margin), and rejecting both halves at level alpha
shows, at that level, that -margin < gap < +margin. Its p-value is the larger of the two
one-sided p-values. Re-exported by :mod:`faircode.significance`.

* ``method="exact"``: each one-sided test is the exact unconditional test of the gap at the
  margin (:func:`faircode._unconditional.equivalence_p_values`: the score statistic's tail
  maximised over the nuisance rate, Berger and Boos's restriction), so the chance of declaring
  equivalence when the true gap is at the margin is at most alpha at every rate. The 1 - 2
  alpha interval reported with it is the exact unconditional interval, which lies inside
  (-margin, +margin) when the tests reject, up to the grids of the two computations.
* ``method="auto"`` (the default): "exact" for two groups with at most
  :data:`faircode._unconditional.EXACT_TABLES` tables of counts, ``(n_a + 1) (n_b + 1)``
  (two groups of 100 rows, or lopsided pairs such as 44 and 156), else "score".
* ``method="score"``: each one-sided test is the score test of the gap at
  the margin, with the restricted maximum-likelihood variance and the ``N / (N - 1)``
  factor (Miettinen and Nurminen). The 1 - 2 alpha interval reported with it is the
  inverted score test (:func:`faircode._intervals.miettinen_nurminen`), so the data show
  equivalence exactly when that interval lies inside (-margin, +margin).
* ``method="wald"``: the same with the unrestricted variance ``p_a (1 - p_a) / n_a +
  p_b (1 - p_b) / n_b`` and the Wald interval, as statsmodels' ``tost_proportions_2indep``
  computes it. It is anti-conservative on small groups; it is there to compare.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np
from scipy.special import ndtr

from faircode import _intervals, _unconditional

EQUIVALENCE_METHODS = ("auto", "exact", "score", "wald")


@dataclass(frozen=True)
class EquivalenceResult:
    """The two one-sided tests of ``-margin < gap < +margin`` and their verdict.

    ``p_value`` is the larger of ``p_lower`` (the test of gap <= -margin) and ``p_upper``
    (gap >= +margin); ``equivalent`` is ``p_value < alpha``; ``ci_low`` and ``ci_high``
    are the 1 - 2 alpha interval of the gap that matches the tests.
    """

    gap: float
    margin: float
    p_value: float
    p_lower: float
    p_upper: float
    ci_low: float
    ci_high: float
    alpha: float
    equivalent: bool
    method: str

    def to_dict(self) -> dict:
        """The result as a plain dict of its fields."""
        return asdict(self)


def tost(ones_a: int, n_a: int, ones_b: int, n_b: int, margin: float, alpha: float, method: str) -> EquivalenceResult:
    """TOST of validated counts (see the module docstring)."""
    gap = ones_a / n_a - ones_b / n_b
    if method == "auto":
        method = "exact" if _unconditional.exact_sized(n_a, n_b) else "score"
    if method == "exact":
        p_lower, p_upper = _unconditional.equivalence_p_values(ones_a, n_a, ones_b, n_b, margin)
        low, high = _unconditional.difference_interval(ones_a, n_a, ones_b, n_b, 1 - 2 * alpha)
        return _result(gap, margin, p_lower, p_upper, low, high, alpha, method)
    if method == "score":
        z_lower = float(_intervals.difference_score(ones_a, n_a, ones_b, n_b, -margin))
        z_upper = float(_intervals.difference_score(ones_a, n_a, ones_b, n_b, margin))
        low, high = _intervals.miettinen_nurminen(ones_a, n_a, ones_b, n_b, 1 - 2 * alpha)
    else:
        se = math.sqrt(ones_a / n_a * (1 - ones_a / n_a) / n_a + ones_b / n_b * (1 - ones_b / n_b) / n_b)
        with np.errstate(divide="ignore", invalid="ignore"):
            z_lower = float(np.divide(gap + margin, se))
            z_upper = float(np.divide(gap - margin, se))
        half = _intervals.z_value(1 - 2 * alpha) * se
        low, high = gap - half, gap + half
    p_lower = float(ndtr(-z_lower))  # small when the gap is clearly above -margin
    p_upper = float(ndtr(z_upper))  # small when the gap is clearly below +margin
    return _result(gap, margin, p_lower, p_upper, low, high, alpha, method)


def _result(gap, margin, p_lower, p_upper, low, high, alpha, method) -> EquivalenceResult:
    p = max(p_lower, p_upper)
    return EquivalenceResult(
        gap=float(gap), margin=float(margin), p_value=p, p_lower=p_lower, p_upper=p_upper,
        ci_low=float(low), ci_high=float(high), alpha=float(alpha), equivalent=bool(p < alpha), method=method,
    )
