"""faircode.plots: each helper returns its Axes with the expected artists on tiny data."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from matplotlib.colors import to_hex  # noqa: E402
from matplotlib.container import ErrorbarContainer  # noqa: E402

from faircode.exceptions import InvalidInputError  # noqa: E402
from faircode.plots import HIGHLIGHT_COLOR, PLAIN_COLOR, forest_plot, null_histogram, power_curve, spread_plot  # noqa: E402
from faircode.power import power_at_gap  # noqa: E402


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


@pytest.fixture
def gaps() -> pd.DataFrame:
    return pd.DataFrame({
        "metric": ["demographic parity", "equal opportunity", "disparate impact"],
        "value": [-0.10, 0.02, 0.05],
        "ci_low": [-0.15, -0.04, np.nan],
        "ci_high": [-0.05, 0.08, np.nan],
        "significant": [True, False, None],
    })


def vertical_line_positions(ax) -> list[float]:
    return sorted(float(line.get_xdata()[0]) for line in ax.lines
                  if len(set(np.atleast_1d(line.get_xdata()))) == 1 and len(line.get_xdata()) == 2)


def errorbar_containers(ax) -> list[ErrorbarContainer]:
    return [c for c in ax.containers if isinstance(c, ErrorbarContainer)]


def test_forest_plot_puts_the_first_row_on_top_with_its_label(gaps):
    ax = forest_plot(gaps, label="metric")
    labels = {tick.get_text(): y for tick, y in zip(ax.get_yticklabels(), ax.get_yticks())}
    assert labels == {"demographic parity": 2, "equal opportunity": 1, "disparate impact": 0}
    assert ax.get_xlabel() == "gap (disadvantaged - advantaged)"


def test_forest_plot_draws_each_interval_and_a_zero_line(gaps):
    ax = forest_plot(gaps, label="metric", title="Gaps")
    (container,) = errorbar_containers(ax)
    points = container.lines[0]
    assert list(points.get_xdata()) == [-0.10, 0.02, 0.05]
    segments = container.lines[2][0].get_segments()
    spans = sorted((round(seg[0][0], 6), round(seg[1][0], 6)) for seg in segments)
    assert spans == [(-0.15, -0.05), (-0.04, 0.08), (0.05, 0.05)]  # missing interval: no bar
    assert vertical_line_positions(ax) == [0.0]
    assert ax.get_title() == "Gaps"


def test_forest_plot_colours_the_rows_of_a_boolean_highlight_column(gaps):
    ax = forest_plot(gaps, label="metric", highlight="significant", reference=None)
    colours = {to_hex(c.lines[0].get_color()): list(c.lines[0].get_xdata()) for c in errorbar_containers(ax)}
    assert colours == {PLAIN_COLOR: [0.02, 0.05], HIGHLIGHT_COLOR: [-0.10]}
    assert vertical_line_positions(ax) == []


def test_forest_plot_highlights_rows_named_by_label(gaps):
    ax = forest_plot(gaps, label="metric", highlight=["disparate impact"])
    colours = {to_hex(c.lines[0].get_color()): list(c.lines[0].get_xdata()) for c in errorbar_containers(ax)}
    assert colours[HIGHLIGHT_COLOR] == [0.05]


def test_forest_plot_draws_on_the_axes_it_is_given(gaps):
    fig, (left, right) = plt.subplots(1, 2)
    assert forest_plot(gaps, label="metric", ax=right) is right
    assert not left.containers


def test_forest_plot_names_a_missing_column(gaps):
    with pytest.raises(InvalidInputError, match="no column 'gap' \\(the value\\)"):
        forest_plot(gaps, label="metric", value="gap")


def test_forest_plot_rejects_an_empty_frame(gaps):
    with pytest.raises(InvalidInputError, match="no rows"):
        forest_plot(gaps.iloc[:0], label="metric")


def test_power_curve_draws_one_curve_per_pair_and_the_80_percent_line():
    grid = np.linspace(0, 0.3, 7)
    ax = power_curve({"small": (50, 50), "large": (500, 800)}, gaps=grid)
    small, large, target = ax.lines
    assert small.get_label() == "small" and large.get_label() == "large"
    assert np.allclose(large.get_ydata(), [power_at_gap(500, 800, g) for g in grid])
    assert np.all(np.asarray(large.get_ydata()) >= np.asarray(small.get_ydata()))
    assert list(target.get_ydata()) == [0.8, 0.8]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["small", "large", "80% power"]


def test_power_curve_accepts_a_single_pair_and_names_it():
    ax = power_curve((120, 3000), gaps=[0.0, 0.1, 0.2], alpha=0.01)
    assert ax.lines[0].get_label() == "120 vs 3,000 rows"
    # At no gap, power is the exact test's true size, which never exceeds the level.
    size = ax.lines[0].get_ydata()[0]
    assert 0 < size <= 0.01 and size == pytest.approx(power_at_gap(120, 3000, 0.0, alpha=0.01))
    assert "alpha 0.01" in ax.get_ylabel()


@pytest.mark.parametrize("sizes", [(10,), "10,20", [(10, 20), (5,)], {}])
def test_power_curve_rejects_sizes_that_are_not_pairs(sizes):
    with pytest.raises(InvalidInputError, match="must be a pair"):
        power_curve(sizes, gaps=[0.1])


def test_null_histogram_marks_the_observed_gap_on_both_sides():
    null = np.random.default_rng(1).normal(0, 0.02, 500)
    ax = null_histogram(null, observed=-0.03, bins=20)
    assert len(ax.patches) == 20
    assert sum(bar.get_height() for bar in ax.patches) == pytest.approx(1.0)
    assert vertical_line_positions(ax) == [-0.03, 0.03]


def test_null_histogram_weights_an_exact_distribution():
    support = np.array([-0.2, -0.1, 0.0, 0.1, 0.2])
    probability = np.array([1, 4, 6, 4, 1]) / 16
    ax = null_histogram(support, probability, observed=0.1, bins=5)
    heights = [bar.get_height() for bar in ax.patches]
    assert heights == pytest.approx(list(probability))


def test_null_histogram_rejects_weights_of_another_length():
    with pytest.raises(InvalidInputError, match="one weight per null gap"):
        null_histogram([0.1, 0.2], [1.0], observed=0.1)


def test_spread_plot_draws_a_box_and_points_per_label_and_the_reference():
    values = {"seed spread": [0.01, 0.03, 0.02, 0.05], "fold spread": [-0.02, 0.0, 0.01]}
    ax = spread_plot(values, reference={"seed spread": 0.04})
    assert [t.get_text() for t in ax.get_yticklabels()] == ["seed spread", "fold spread"]
    point_sets = [c for c in ax.collections if len(c.get_offsets())]
    sizes = sorted(len(c.get_offsets()) for c in point_sets)
    assert sizes == [1, 3, 4]
    (diamond,) = [c for c in point_sets if len(c.get_offsets()) == 1]
    assert tuple(diamond.get_offsets()[0]) == (0.04, 2.0)
    dashed = [line for line in ax.lines if line.get_linestyle() == "--"]
    assert [list(line.get_xdata()) for line in dashed] == [[0.0, 0.0]]


def test_spread_plot_takes_the_columns_of_a_frame_as_labels():
    frame = pd.DataFrame({"a": [0.1, 0.2, np.nan], "b": [0.0, 0.1, 0.2]})
    ax = spread_plot(frame)
    assert [t.get_text() for t in ax.get_yticklabels()] == ["a", "b"]
    assert sorted(len(c.get_offsets()) for c in ax.collections) == [2, 3]


def test_spread_plot_rejects_a_label_without_values():
    with pytest.raises(InvalidInputError, match="the values of 'b' is empty"):
        spread_plot({"a": [0.1], "b": []})


def test_forest_panels_draws_a_panel_per_group_on_one_scale(gaps):
    from faircode.plots import forest_panels

    frame = pd.concat([gaps.assign(attribute=name) for name in ("race", "sex", "age")], ignore_index=True)
    frame.loc[frame.attribute == "age", ["ci_low", "ci_high"]] = [[-0.4, 0.1], [-0.1, 0.3], [np.nan, np.nan]]
    figure = forest_panels(frame, by="attribute", label="metric", highlight="significant")
    visible = [ax for ax in figure.axes if ax.get_visible()]
    assert [ax.get_title() for ax in visible] == ["race", "sex", "age"]
    assert len(figure.axes) == 4 and not figure.axes[3].get_visible()
    assert all(ax.get_xlim() == pytest.approx((-0.42, 0.32)) for ax in visible)
