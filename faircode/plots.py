"""Figures of fairness gaps: forest plots, power curves, null distributions, spreads.

Each helper draws on the Axes it is given (or a new one) and returns that Axes, so a
caller can add to it, and none of them changes matplotlib's global style. Gaps are signed
disadvantaged minus advantaged, as everywhere in faircode.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from faircode.exceptions import InvalidInputError
from faircode.power import power_at_gap

__all__ = ["forest_panels", "forest_plot", "null_histogram", "power_curve", "spread_plot"]

GAP_AXIS_LABEL = "gap (disadvantaged - advantaged)"
PLAIN_COLOR = "#4a5a6a"
HIGHLIGHT_COLOR = "#c0392b"
REFERENCE_COLOR = "#7f8c8d"
TARGET_POWER = 0.80

MISSING_COLUMN = "forest_plot: frame has no column {column!r} (the {role}); its columns are {columns}."
EMPTY_FRAME = "forest_plot: frame has no rows; pass at least one gap to plot."
BAD_SIZES = (
    "power_curve: sizes must be a pair (n_a, n_b), a list of pairs or a mapping of label to pair; "
    "got {value!r}."
)
EMPTY_VALUES = "{name}: {what} is empty; pass at least one value."


def forest_plot(
    frame: pd.DataFrame,
    *,
    label: str,
    value: str = "value",
    low: str = "ci_low",
    high: str = "ci_high",
    ax: Axes | None = None,
    title: str | None = None,
    reference: float | None = 0.0,
    highlight: str | Iterable | None = None,
) -> Axes:
    """Draw each row's gap as a point with its interval, one row per line, first row on top.

    Parameters
    ----------
    frame : pandas.DataFrame
        One row per gap, e.g. rows of :func:`faircode.fairness_report` or of the results file.
    label : str
        Column whose values name the rows (tick labels on the vertical axis).
    value, low, high : str, default "value", "ci_low", "ci_high"
        Columns of the gap and of its interval's ends; a row whose interval is missing
        (NaN) is drawn as a point alone.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new figure's Axes by default.
    title : str, optional
        Title of the Axes.
    reference : float or None, default 0.0
        Where to draw the dashed "no gap" line; None draws none.
    highlight : str, iterable or None
        Rows to draw in the highlight colour: the name of a boolean column (such as
        ``"significant"``) or the labels of the rows.

    Returns
    -------
    matplotlib.axes.Axes
        The Axes drawn on: one errorbar container per colour used, the reference line,
        one tick label per row.
    """
    _require_columns(frame, {label: "label", value: "value", low: "low", high: "high"})
    if frame.empty:
        raise InvalidInputError(EMPTY_FRAME)
    ax = _axes(ax)
    y = np.arange(len(frame))[::-1]
    marked = _highlight_mask(frame, label, highlight)
    for mask, color in ((~marked, PLAIN_COLOR), (marked, HIGHLIGHT_COLOR)):
        if mask.any():
            _interval_bars(ax, frame[mask], y[mask], value, low, high, color)
    if reference is not None:
        ax.axvline(reference, color=REFERENCE_COLOR, linestyle="--", linewidth=1)
    ax.set_yticks(y, [str(text) for text in frame[label]])
    ax.set_ylim(-0.7, len(frame) - 0.3)
    ax.locator_params(axis="x", nbins=6)
    ax.set_xlabel(GAP_AXIS_LABEL)
    if title:
        ax.set_title(title)
    return ax


def forest_panels(
    frame: pd.DataFrame,
    *,
    by: str,
    label: str,
    highlight: str | Iterable | None = None,
    columns: int = 2,
    margin: float = 0.02,
) -> Figure:
    """A :func:`forest_plot` per value of ``by`` (e.g. per protected attribute), side by
    side on one shared scale, so that gaps can be compared across panels.

    Parameters
    ----------
    frame : pandas.DataFrame
        One row per gap with ``value``, ``ci_low`` and ``ci_high`` columns.
    by : str
        Column whose values get a panel each, in order of first appearance.
    label : str
        Column naming the rows within a panel.
    highlight : str, iterable or None
        As in :func:`forest_plot`.
    columns : int, default 2
        Panels per row of the figure.
    margin : float, default 0.02
        Room left on the shared scale beyond the widest interval.

    Returns
    -------
    matplotlib.figure.Figure
        The figure; unused cells of the grid are hidden.
    """
    _require_columns(frame, {by: "by", label: "label"})
    if frame.empty:
        raise InvalidInputError(EMPTY_FRAME)
    panels = list(dict.fromkeys(frame[by]))
    columns = min(columns, len(panels))
    lines = -(-len(panels) // columns)  # ceiling division
    figure, axes = plt.subplots(lines, columns, figsize=(5.2 * columns, 3.0 * lines), squeeze=False)
    span = (frame["ci_low"].min() - margin, frame["ci_high"].max() + margin)
    for ax, panel in zip(axes.flat, panels):
        forest_plot(frame[frame[by] == panel], label=label, ax=ax, title=str(panel), highlight=highlight)
        ax.set_xlim(span)
    for ax in axes.flat[len(panels):]:
        ax.set_visible(False)
    figure.tight_layout()
    return figure


def power_curve(
    sizes: tuple[int, int] | Sequence[tuple[int, int]] | Mapping[str, tuple[int, int]],
    *,
    gaps: Sequence[float] | np.ndarray,
    rate: float = 0.5,
    alpha: float = 0.05,
    ax: Axes | None = None,
) -> Axes:
    """Plot the power of a two-sided test against the true gap, one curve per pair of group sizes.

    Parameters
    ----------
    sizes : (n_a, n_b), list of (n_a, n_b) or mapping of label to (n_a, n_b)
        Rows in the two groups; a mapping's keys name the curves in the legend.
    gaps : array-like of float
        True gaps at which to evaluate the power (see :func:`faircode.power_at_gap`).
    rate : float in (0, 1), default 0.5
        The common rate near which the gap is measured.
    alpha : float in (0, 1), default 0.05
        Level of the test.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new figure's Axes by default.

    Returns
    -------
    matplotlib.axes.Axes
        One line per pair of sizes, a dashed line at 80% power, and a legend.
    """
    curves = _named_sizes(sizes)
    gaps = np.asarray(gaps, dtype=float)
    if gaps.size == 0:
        raise InvalidInputError(EMPTY_VALUES.format(name="power_curve", what="gaps"))
    ax = _axes(ax)
    for name, (n_a, n_b) in curves.items():
        power = [power_at_gap(n_a, n_b, gap, rate=rate, alpha=alpha) for gap in gaps]
        ax.plot(gaps, power, label=name)
    ax.axhline(TARGET_POWER, color=REFERENCE_COLOR, linestyle="--", linewidth=1,
               label=f"{TARGET_POWER:.0%} power")
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("true gap in rates")
    ax.set_ylabel(f"power (two-sided, alpha {alpha:g})")
    ax.legend(frameon=False)
    return ax


def null_histogram(
    null_gaps: Sequence[float] | np.ndarray,
    weights: Sequence[float] | np.ndarray | None = None,
    *,
    observed: float,
    ax: Axes | None = None,
    bins: int = 40,
) -> Axes:
    """Histogram of the gap under "no difference", with the observed gap marked on both sides.

    Parameters
    ----------
    null_gaps : array-like of float
        Gaps from a permutation test (one per shuffle) or the support of the exact null.
    weights : array-like of float, optional
        Probability of each value of ``null_gaps`` (the exact distribution); without it
        each value counts once. The bars show the share of the null in each bin.
    observed : float
        The gap measured on the real labels; drawn at ``+observed`` and ``-observed``,
        since a two-sided p-value counts both tails.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new figure's Axes by default.
    bins : int, default 40
        Number of bins.

    Returns
    -------
    matplotlib.axes.Axes
        The bars of the histogram and two vertical lines at the observed gap and its mirror.
    """
    null_gaps = np.asarray(null_gaps, dtype=float)
    if null_gaps.size == 0:
        raise InvalidInputError(EMPTY_VALUES.format(name="null_histogram", what="null_gaps"))
    shares = _shares(null_gaps, weights)
    ax = _axes(ax)
    ax.hist(null_gaps, bins=bins, weights=shares, color=PLAIN_COLOR, alpha=0.75, label="null distribution")
    ax.axvline(observed, color=HIGHLIGHT_COLOR, linewidth=2, label=f"observed gap {observed:+.4f}")
    ax.axvline(-observed, color=HIGHLIGHT_COLOR, linewidth=2, linestyle=":", label="its mirror image")
    ax.set_xlabel(GAP_AXIS_LABEL)
    ax.set_ylabel("share of the null distribution")
    ax.legend(frameon=False)
    return ax


def spread_plot(
    values_by_label: Mapping[str, Sequence[float]] | pd.DataFrame,
    *,
    reference: Mapping[str, float] | None = None,
    ax: Axes | None = None,
) -> Axes:
    """Box plot of a gap measured many times (over seeds or folds), one box per label.

    Parameters
    ----------
    values_by_label : mapping of label to values, or pandas.DataFrame
        The repeated measurements of each gap; a DataFrame's columns are the labels.
    reference : mapping of label to float, optional
        A single value per label to compare with the spread (e.g. the gap of the default
        split), drawn as a diamond; labels missing from it get none.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new figure's Axes by default.

    Returns
    -------
    matplotlib.axes.Axes
        One box per label with its points jittered on top, first label on top, a dashed
        zero line and, if given, one diamond per reference value.
    """
    series = _value_lists(values_by_label)
    ax = _axes(ax)
    labels = list(series)
    y = np.arange(len(labels))[::-1] + 1.0
    ax.boxplot([series[name] for name in labels], positions=y, orientation="horizontal", widths=0.5,
               showfliers=False, medianprops={"color": PLAIN_COLOR})
    jitter = np.random.default_rng(0)
    for position, name in zip(y, labels):
        values = series[name]
        ax.scatter(values, position + jitter.uniform(-0.12, 0.12, len(values)),
                   s=10, color=PLAIN_COLOR, alpha=0.6, zorder=3)
    for position, name in zip(y, labels):
        if reference is not None and name in reference:
            ax.scatter([reference[name]], [position], marker="D", s=40, color=HIGHLIGHT_COLOR, zorder=4)
    ax.axvline(0.0, color=REFERENCE_COLOR, linestyle="--", linewidth=1)
    ax.set_yticks(y, [str(name) for name in labels])
    ax.set_xlabel(GAP_AXIS_LABEL)
    return ax


def _axes(ax: Axes | None) -> Axes:
    if ax is not None:
        return ax
    _, new_ax = plt.subplots(figsize=(7, 4))
    return new_ax


def _require_columns(frame: pd.DataFrame, roles: dict[str, str]) -> None:
    for column, role in roles.items():
        if column not in frame.columns:
            raise InvalidInputError(MISSING_COLUMN.format(column=column, role=role, columns=list(frame.columns)))


def _highlight_mask(frame: pd.DataFrame, label: str, highlight: str | Iterable | None) -> np.ndarray:
    if highlight is None:
        return np.zeros(len(frame), dtype=bool)
    if isinstance(highlight, str) and highlight in frame.columns:
        return frame[highlight].astype("boolean").fillna(False).to_numpy(dtype=bool)
    chosen = {highlight} if isinstance(highlight, str) else set(highlight)
    return frame[label].isin(chosen).to_numpy()


def _interval_bars(ax: Axes, rows: pd.DataFrame, y: np.ndarray, value: str, low: str, high: str,
                   color: str) -> None:
    gaps = rows[value].to_numpy(dtype=float)
    below = np.nan_to_num(gaps - rows[low].to_numpy(dtype=float), nan=0.0)
    above = np.nan_to_num(rows[high].to_numpy(dtype=float) - gaps, nan=0.0)
    ax.errorbar(gaps, y, xerr=[below, above], fmt="o", color=color, ecolor=color, capsize=3, markersize=5)


def _named_sizes(sizes) -> dict[str, tuple[int, int]]:
    if isinstance(sizes, Mapping):
        pairs = {str(name): pair for name, pair in sizes.items()}
    elif _is_pair(sizes):
        pairs = {_pair_name(sizes): sizes}
    elif isinstance(sizes, Sequence) and sizes and all(_is_pair(pair) for pair in sizes):
        pairs = {_pair_name(pair): pair for pair in sizes}
    else:
        raise InvalidInputError(BAD_SIZES.format(value=sizes))
    if not pairs or not all(_is_pair(pair) for pair in pairs.values()):
        raise InvalidInputError(BAD_SIZES.format(value=sizes))
    return {name: (int(pair[0]), int(pair[1])) for name, pair in pairs.items()}


def _is_pair(value) -> bool:
    return (isinstance(value, Sequence) and not isinstance(value, str) and len(value) == 2
            and all(isinstance(n, (int, np.integer)) for n in value))


def _pair_name(pair: tuple[int, int]) -> str:
    return f"{int(pair[0]):,} vs {int(pair[1]):,} rows"


def _shares(null_gaps: np.ndarray, weights) -> np.ndarray:
    if weights is None:
        return np.full(null_gaps.size, 1.0 / null_gaps.size)
    weights = np.asarray(weights, dtype=float)
    if weights.shape != null_gaps.shape:
        raise InvalidInputError(
            f"null_histogram: weights has shape {weights.shape} but null_gaps has {null_gaps.shape}; "
            "give one weight per null gap.")
    return weights / weights.sum()


def _value_lists(values_by_label) -> dict[str, np.ndarray]:
    if isinstance(values_by_label, pd.DataFrame):
        series = {str(name): values_by_label[name].dropna().to_numpy(dtype=float) for name in values_by_label}
    else:
        series = {str(name): np.asarray(values, dtype=float) for name, values in values_by_label.items()}
    if not series:
        raise InvalidInputError(EMPTY_VALUES.format(name="spread_plot", what="values_by_label"))
    for name, values in series.items():
        if values.size == 0:
            raise InvalidInputError(EMPTY_VALUES.format(name="spread_plot", what=f"the values of {name!r}"))
    return series
