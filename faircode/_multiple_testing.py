"""A family of tests: adjusted p-values, and printing a p-value honestly for its method.

Re-exported by :mod:`faircode.significance`.
"""

from __future__ import annotations

import math

import numpy as np

from faircode._checks import check_one_of, check_positive_int
from faircode.exceptions import InvalidInputError

ADJUSTMENTS = ("holm", "bh")
P_OUT_OF_RANGE = "p_values must lie in [0, 1] (NaN allowed); found {value!r} at position {position}."


def adjust_p_values(p_values, method: str = "holm") -> np.ndarray:
    """Adjust a family of p-values for multiple comparisons.

    Parameters
    ----------
    p_values : list, numpy array or pandas Series of floats in [0, 1]
        One p-value per test of the family. NaN entries (tests not run) stay NaN and do
        not count towards the family size.
    method : {"holm", "bh"}
        "holm": Holm's step-down adjustment, controlling the family-wise error rate.
        "bh": Benjamini-Hochberg, controlling the false discovery rate.

    Returns
    -------
    numpy.ndarray
        Adjusted p-values in the input order; compare them with alpha as usual.

    See Also
    --------
    faircode.metrics.fairness_report : ``adjust=`` adjusts a report's family, each test once.

    Examples
    --------
    >>> from faircode.significance import adjust_p_values
    >>> adjust_p_values([0.01, 0.04, 0.03, float("nan")], method="holm")
    array([0.03, 0.06, 0.06,  nan])
    >>> adjust_p_values([0.01, 0.04, 0.03], method="bh")
    array([0.03, 0.04, 0.04])
    """
    check_one_of(method, "method", ADJUSTMENTS)
    p = np.asarray(p_values, dtype=float).reshape(-1)
    _check_p_values(p)
    adjusted = np.full(p.shape, np.nan)
    present = ~np.isnan(p)
    if present.any():
        adjust = _holm if method == "holm" else _benjamini_hochberg
        adjusted[present] = adjust(p[present])
    return adjusted


def format_p(p: float, n_permutations: int | None = None) -> str:
    """Print a p-value honestly for its method.

    A Monte Carlo p-value (give ``n_permutations``) is ``(hits + 1) / (n + 1)``; at its
    floor, ``1 / (n + 1)``, no relabelling reached the observed gap, so it prints as an
    upper bound, "p < 0.0005" for 2000 relabellings (a p of 0, from an older count of
    hits / n, prints the same). Exact p-values under 0.001 print in scientific notation
    ("p = 3.2e-12"); others with three decimals ("p = 0.034"). NaN prints as "p = n/a".

    See Also
    --------
    permutation_test : exact and Monte Carlo p-values.

    Examples
    --------
    >>> from faircode.significance import format_p
    >>> format_p(1 / 2001, 2000), format_p(0.0344, 2000), format_p(3.2e-12), format_p(0.0344)
    ('p < 0.0005', 'p = 0.034', 'p = 3.2e-12', 'p = 0.034')
    """
    if p is None or math.isnan(p):
        return "p = n/a"
    if n_permutations is not None:
        n_permutations = check_positive_int(n_permutations, "n_permutations")
        if p <= 1 / (n_permutations + 1) * (1 + 1e-9):
            return f"p < {_round_up(1 / n_permutations)}"
        if p < 0.001:
            return f"p = {np.format_float_positional(p, precision=2, fractional=False, trim='-')}"
    elif p == 0:
        return f"p < {np.finfo(float).tiny:.0e}"
    elif p < 0.001:
        return f"p = {p:.1e}"
    return f"p = {p:.3f}"


def _check_p_values(p: np.ndarray) -> None:
    bad = ~np.isnan(p) & ((p < 0) | (p > 1))
    if bad.any():
        position = int(np.argmax(bad))
        raise InvalidInputError(P_OUT_OF_RANGE.format(value=float(p[position]), position=position))


def _holm(p: np.ndarray) -> np.ndarray:
    order = np.argsort(p, kind="stable")
    m = p.size
    stepped = np.maximum.accumulate((m - np.arange(m)) * p[order])
    adjusted = np.empty(m)
    adjusted[order] = np.minimum(stepped, 1.0)
    return adjusted


def _benjamini_hochberg(p: np.ndarray) -> np.ndarray:
    order = np.argsort(p, kind="stable")
    m = p.size
    scaled = p[order] * m / np.arange(1, m + 1)
    stepped = np.minimum.accumulate(scaled[::-1])[::-1]
    adjusted = np.empty(m)
    adjusted[order] = np.minimum(stepped, 1.0)
    return adjusted


def _round_up(value: float) -> str:
    """``value`` rounded up to two significant digits, printed without trailing zeros."""
    exponent = math.floor(math.log10(value)) - 1
    rounded = math.ceil(round(value / 10**exponent, 9)) * 10**exponent
    return np.format_float_positional(round(rounded, -exponent), trim="-")
