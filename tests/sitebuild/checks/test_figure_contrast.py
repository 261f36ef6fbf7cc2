"""The contrast check of dark figures: SVG paint read with SVG's rules, and figures drawn in
a real kernel whose dark renderings must keep every mark at 3:1 on the dark page (the known
failures: black interval dots, navy markers, light grey bands)."""

from __future__ import annotations

import pytest
from site_helpers import site_config

from sitebuild.checks.figure_contrast import (
    DARK_BACKGROUND,
    FAINT_FIGURE,
    MINIMUM_CONTRAST,
    contrast_ratio,
    faint_marks,
    parse_colour,
    svg_marks,
)
from sitebuild.commands.build import run_build

SVG = '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink">{}</svg>'


def test_contrast_ratio_is_wcags():
    assert contrast_ratio((0, 0, 0), (1, 1, 1)) == pytest.approx(21)
    assert contrast_ratio(parse_colour("#777777"), parse_colour("#ffffff")) == pytest.approx(4.48, abs=0.01)
    with pytest.raises(ValueError):
        parse_colour("rebeccapurple")


def test_paint_is_inherited_and_an_unset_fill_is_black():
    svg = SVG.format('<g id="axes_1" style="stroke: #ffffff"><path id="p" d="M 0 0 L 1 1 z"/></g>')
    paints = {(m.paint, m.colour) for m in svg_marks(svg)}
    assert paints == {("stroke", "#ffffff"), ("fill", "black")}
    ratio = contrast_ratio((0, 0, 0), parse_colour(DARK_BACKGROUND))
    assert [str(m) for m in faint_marks(svg)] == [f"fill black at axes_1 > p ({ratio:.2f}:1)"]


def test_a_use_shows_its_targets_own_style_over_its_own():
    svg = SVG.format('<defs><path id="m" d="M 0 3 C 1 1 2 2 3 0 z" style="stroke: #1f3b73"/></defs>'
                     '<g id="line2d_1"><use xlink:href="#m" style="fill: #eeeeee; stroke: #eeeeee"/></g>')
    assert {(m.paint, m.colour) for m in svg_marks(svg)} == {("stroke", "#1f3b73"), ("fill", "#eeeeee")}
    assert [(m.paint, m.colour) for m in faint_marks(svg)] == [("stroke", "#1f3b73")]


def test_shading_knockouts_open_paths_and_boxes_behind_text_are_no_marks():
    svg = SVG.format(
        '<path d="M 0 0 L 5 5 z" style="fill: #1f3b73; fill-opacity: 0.15"/>'  # an interval band
        '<path d="M 0 0 L 5 5 z" style="fill: #14171c; stroke: #eeeeee"/>'  # a hollow marker
        '<path d="M 0 0 L 0 3.5" style="stroke: #eeeeee"/>'  # a tick: its (black) fill covers nothing
        '<g id="legend_1"><g id="patch_9"><path d="M 0 0 L 9 9 z" style="fill: #222222; stroke: #999999"/></g></g>')
    assert faint_marks(svg) == []
    assert {(m.paint, m.colour) for m in svg_marks(svg)} == {("stroke", "#eeeeee"), ("stroke", "#999999")}


def test_opacity_multiplies_down_the_tree():
    svg = SVG.format('<g style="opacity: 0.8"><path d="M 0 0 L 1 1" style="stroke: #aaaaaa; stroke-opacity: 0.7"/></g>')
    (mark,) = svg_marks(svg)
    assert mark.opacity == pytest.approx(0.56) and mark.ratio < contrast_ratio(parse_colour("#aaaaaa"),
                                                                                parse_colour(DARK_BACKGROUND))


FIGURES = '''---
title: Figures
summary: The marks the dark rendering used to lose.
---

```python {caption="Black interval dots on grey bands"}
import matplotlib.pyplot as plt
fig, ax = plt.subplots()
ax.hlines([0, 1], [0, 0], [1, 2], color="0.75", linewidth=8)
ax.hlines([0, 1], [0.2, 0.4], [0.8, 1.6], color="black", linewidth=2)
ax.plot([0.5, 1.0], [0, 1], "o", color="black", label="gap")
ax.axvline(0, color="0.4", linestyle="--", linewidth=1)
ax.legend()
ax.set_title("Walkthrough")
plt.show()
```

```python {caption="Navy markers, hollow and filled, with a band and a label box"}
fig, ax = plt.subplots()
ax.scatter([1, 2, 3], [1, 2, 3], s=28, color="#1f3b73", label="significant")
ax.scatter([1, 2, 3], [2, 3, 4], s=28, facecolors="none", edgecolors="#1f3b73", label="not significant")
ax.errorbar([2], [1], xerr=[[0.2], [0.3]], fmt="o", color="#1f4e79", markerfacecolor="white", capsize=3)
ax.fill_between([1, 3], [0, 0], [1, 1], color="#1f3b73", alpha=0.15)
ax.bar([4], [2], color="#1f3b73", edgecolor="white")
ax.annotate("seed 42", (2, 2), bbox=dict(facecolor="white", edgecolor="black"))
ax.grid(True)
ax.legend()
plt.show()
```
'''


def test_dark_renderings_of_real_figures_keep_every_mark_at_three_to_one(tmp_path):
    (tmp_path / "explainers").mkdir()
    (tmp_path / "explainers" / "figures.md").write_text(FIGURES, encoding="utf-8")
    summary = run_build(site_config(tmp_path))
    assert summary.ok, [str(p) for p in summary.problems]
    assert not [p for p in summary.problems if "dark rendering" in p.message], [str(p) for p in summary.problems]
    figures = sorted((tmp_path / "site" / "figures").glob("*.svg"))
    dark = [p for p in figures if p.stem.endswith("-dark")]
    light = [p for p in figures if not p.stem.endswith("-dark")]
    assert len(dark) == len(light) == 2
    for path in dark:
        marks = svg_marks(path.read_text())
        assert len(marks) > 50 and min(m.ratio for m in marks) >= MINIMUM_CONTRAST, \
            (path.name, [str(m) for m in faint_marks(path.read_text())])
    # The check is no formality: the light renderings, put on the dark page, fail it.
    colours = {m.colour for p in light for m in faint_marks(p.read_text())}
    assert {"#000000", "#1f3b73", "#1f4e79"} <= colours, colours


def test_a_figure_drawn_too_dark_is_a_warning_naming_its_block(tmp_path):
    """A dark rendering published by hand (as the kernel would) with a navy line."""
    from sitebuild.checks.figure_contrast import check_dark_figures
    from sitebuild.execution.executed import ExecutedPage
    from sitebuild.execution.outputs import Output
    from sitebuild.source.read import read_page

    (tmp_path / "explainers").mkdir()
    source = tmp_path / "explainers" / "dim.md"
    source.write_text("---\ntitle: Dim\nsummary: s\n---\n\n```python\nx = 1\n```\n", encoding="utf-8")
    page = read_page(source, tmp_path)
    svg = SVG.format('<g id="line2d_1"><path d="M 0 0 L 9 9" style="stroke: #1f3b73"/></g>')
    figure = Output("figure", figure="dim-1-0.svg", figure_dark="dim-1-0-dark.svg")
    figures = {"dim-1-0.svg": b"", "dim-1-0-dark.svg": svg.encode()}
    executed = ExecutedPage(slug="dim", blocks={1: [figure]}, figures=figures)
    (problem,) = check_dark_figures(page, executed)
    assert (problem.path, problem.line, problem.severity) == ("explainers/dim.md", 6, "warning")
    ratio = contrast_ratio(parse_colour("#1f3b73"), parse_colour(DARK_BACKGROUND))
    assert problem.message == FAINT_FIGURE.format(number=1, count=1, minimum=MINIMUM_CONTRAST,
                                                  background=DARK_BACKGROUND,
                                                  marks=f"stroke #1f3b73 at line2d_1 ({ratio:.2f}:1)")
