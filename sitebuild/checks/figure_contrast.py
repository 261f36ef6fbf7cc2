"""The dark rendering of a figure, checked mark by mark: every line, marker, edge, bar and
text it draws must stand at least 3:1 against the dark page (the WCAG contrast ratio for
graphics), as the browser paints it (its opacity blended over the page).

The colours are read from the SVG itself, with SVG's own rules: a property is inherited
from the enclosing groups, a ``<use>`` passes its style to the element it shows, an unset
fill is black. Three kinds of paint are no mark and are not checked: shading (opacity
under one half: an interval band), paint of the page's own colour (a knockout: a hollow
marker's inside, a white edge between bars) and the boxes matplotlib draws behind other marks (the figure's and each
axes' background, a legend's frame, a text's bbox)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from msgspec import Struct
from msgspec.structs import astuple

from sitebuild.checks.check import Problem
from sitebuild.execution.executed import ExecutedPage
from sitebuild.source.read import Page
from sitebuild.store.memo import Memo, engine_version

if TYPE_CHECKING:
    import xml.etree.ElementTree as ElementTree

#: The dark theme's page background (--bg in templates/static/palette.css).
DARK_BACKGROUND = "#14171c"
#: WCAG 2.2, success criterion 1.4.11: graphical objects stand 3:1 against what is next to them.
MINIMUM_CONTRAST = 3.0
#: Paint under this opacity is shading, not a mark.
SHADING_OPACITY = 0.5
#: Paint within this ratio of the background is a knockout, not a mark.
KNOCKOUT_CONTRAST = 1.1
FAINT_FIGURE = ("the dark rendering of figure {number} has {count} mark(s) under {minimum:g}:1 against the dark "
                "background {background}: {marks}")
UNREADABLE_COLOUR = "the dark rendering of figure {number}: cannot read the colour {colour!r} of {where}"
LISTED_MARKS = 4

_SVG = "{http://www.w3.org/2000/svg}"
_XLINK_HREF = "{http://www.w3.org/1999/xlink}href"
_HIDDEN = {"defs", "clipPath", "mask", "pattern", "marker", "symbol", "metadata", "style", "title", "desc"}
_SHAPES = {"path", "rect", "circle", "ellipse", "polygon", "polyline", "line", "use"}
_CLOSED = {"rect", "circle", "ellipse", "polygon"}
_INHERITED = ("fill", "stroke", "fill-opacity", "stroke-opacity", "stroke-width")
_NAMED = {"black": "#000000", "white": "#ffffff"}
_BOX_PARENTS = re.compile(r"^(figure|axes|legend)_\d+$")


class Mark(Struct, frozen=True):
    """One painted colour of an SVG: a ``stroke`` or ``fill`` of ``colour`` at ``opacity``,
    drawn by the element at ``where`` (the ids of its groups), standing ``ratio``:1."""

    paint: str
    colour: str
    opacity: float
    where: str
    ratio: float

    def __str__(self) -> str:
        return f"{self.paint} {self.colour} at {self.where} ({self.ratio:.2f}:1)"


def parse_colour(text: str) -> tuple[float, float, float]:
    """An SVG colour (``#rgb``, ``#rrggbb``, black or white) as sRGB channels in 0..1.

    Raises ValueError for any other colour."""
    text = _NAMED.get(text.strip().lower(), text.strip().lower())
    if re.fullmatch(r"#[0-9a-f]{3}", text):
        text = "#" + "".join(c * 2 for c in text[1:])
    if not re.fullmatch(r"#[0-9a-f]{6}", text):
        raise ValueError(text)
    return tuple(int(text[i:i + 2], 16) / 255 for i in (1, 3, 5))  # type: ignore[return-value]


def relative_luminance(rgb: tuple[float, float, float]) -> float:
    """WCAG relative luminance of sRGB channels in 0..1."""
    def linear(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (linear(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast_ratio(a: tuple[float, float, float], b: tuple[float, float, float]) -> float:
    """WCAG contrast ratio of two sRGB colours, from 1 to 21."""
    high, low = sorted((relative_luminance(a), relative_luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def _style(element: ElementTree.Element) -> dict[str, str]:
    found = {k: v for k, v in element.attrib.items() if "}" not in k}
    for item in element.get("style", "").split(";"):
        name, _, value = item.partition(":")
        if name.strip() and value.strip():
            found[name.strip()] = value.strip()
    return found


def _closed(target: ElementTree.Element) -> bool:
    tag = target.tag.removeprefix(_SVG)
    return tag in _CLOSED or (tag == "path" and "z" in target.get("d", "").lower())


class _Walk(Struct):
    background: tuple[float, float, float]
    ids: dict[str, ElementTree.Element]
    marks: list[Mark]

    def element(self, element: ElementTree.Element, inherited: dict, opacity: float, where: tuple[str, ...],
                box: bool) -> None:
        tag = element.tag.removeprefix(_SVG)
        if tag in _HIDDEN:
            return
        style = _style(element)
        here = {**inherited, **{k: style[k] for k in _INHERITED if k in style}}
        opacity *= float(style.get("opacity", 1))
        where = where + (element.get("id"),) if element.get("id") else where
        if tag == "use":
            target = self.ids.get(element.get(_XLINK_HREF, element.get("href", "")).lstrip("#"))
            if target is not None:
                target_style = _style(target)
                shown = {**here, **{k: target_style[k] for k in _INHERITED if k in target_style}}
                self.paint(target, shown, opacity * float(target_style.get("opacity", 1)), where, box)
            return
        if tag in _SHAPES:
            self.paint(element, here, opacity, where, box)
        children = list(element)
        for index, child in enumerate(children):
            child_box = box or (_BOX_PARENTS.match(element.get("id", "")) is not None and index == 0
                                and child.get("id", "").startswith("patch_")) \
                or (element.get("id", "").startswith("text_") and child.get("id", "").startswith("patch_"))
            self.element(child, here, opacity, where, child_box)

    def paint(self, shape: ElementTree.Element, style: dict, opacity: float, where: tuple[str, ...], box: bool) -> None:
        stroke_width = float(re.sub(r"[a-z]+$", "", style.get("stroke-width", "1")) or 1)
        if style.get("stroke", "none") != "none" and stroke_width > 0:
            self.add("stroke", style["stroke"], opacity * float(style.get("stroke-opacity", 1)), where)
        if style.get("fill", "black") != "none" and _closed(shape) and not box:
            self.add("fill", style.get("fill", "black"), opacity * float(style.get("fill-opacity", 1)), where)

    def add(self, paint: str, colour: str, opacity: float, where: tuple[str, ...]) -> None:
        if opacity < SHADING_OPACITY or colour.startswith("url("):
            return
        ratio = _shown_ratio(colour, opacity, self.background)
        if ratio is not None:
            self.marks.append(Mark(paint, colour, opacity, " > ".join(where) or "svg", ratio))


@lru_cache(maxsize=4096)
def _shown_ratio(colour: str, opacity: float, background: tuple[float, float, float]) -> float | None:
    """The contrast of ``colour`` at ``opacity`` over ``background``; None for a knockout."""
    rgb = parse_colour(colour)
    if contrast_ratio(rgb, background) < KNOCKOUT_CONTRAST:
        return None
    shown = tuple(opacity * c + (1 - opacity) * b for c, b in zip(rgb, background))
    return contrast_ratio(shown, background)  # type: ignore[arg-type]


def svg_marks(svg: str | bytes, background: str = DARK_BACKGROUND) -> list[Mark]:
    """Every mark an SVG paints (see the module's docstring for what is no mark), with its
    contrast against ``background``. Raises ValueError naming a colour it cannot read."""
    import xml.etree.ElementTree as ElementTree  # only once a figure is parsed: most builds remember every one

    root = ElementTree.fromstring(svg)
    ids = {e.get("id"): e for e in root.iter() if e.get("id")}
    walk = _Walk(parse_colour(background), ids, [])
    walk.element(root, {}, 1.0, (), False)
    return walk.marks


#: The faint marks of the SVGs already checked in this process, by digest and settings: a
#: preview's rebuilds check again only the figures that changed.
_CHECKED: dict[tuple[str, str, float], list[Mark]] = {}
CHECKED_KEPT = 1024


def faint_marks(svg: str | bytes, background: str = DARK_BACKGROUND, minimum: float = MINIMUM_CONTRAST) -> list[Mark]:
    """The marks of ``svg`` that stand under ``minimum``:1 against ``background``, one per
    colour and group (a line's hundred markers count once)."""
    import hashlib

    data = svg.encode() if isinstance(svg, str) else svg
    key = (hashlib.sha256(data).hexdigest(), background, minimum)
    if key not in _CHECKED:
        if len(_CHECKED) >= CHECKED_KEPT:
            _CHECKED.clear()
        _CHECKED[key] = _faint_marks(data, background, minimum)
    return list(_CHECKED[key])


#: The memo of the faint marks found in each dark figure, kept in the build's cache, so
#: that a build or a check in a new process parses only the figures it has not seen.
CONTRAST_FILE = "figure-contrast.json"


def contrast_memo(cache_dir: Path) -> Memo:
    """The memo of :data:`_CHECKED` between processes (its result depends on this module's
    code: keyed by the engine's version)."""
    return Memo(cache_dir / CONTRAST_FILE, "figure contrast", engine_version())


def _valid_checked(saved: dict) -> bool:
    return all(isinstance(marks, list) and all(isinstance(m, list) and len(m) == 5 for m in marks)
               for marks in saved.values())


@contextmanager
def remembered_contrasts(cache_dir: Path) -> Iterator[None]:
    """Within it, :func:`faint_marks` starts from what earlier builds found (the memo in
    ``cache_dir``) and, at its end, the memo keeps what this one found."""
    memo = contrast_memo(cache_dir)
    for text, marks in memo.load({}, _valid_checked).items():
        digest, background, minimum = text.split("|")
        _CHECKED.setdefault((digest, background, float(minimum)), [Mark(*m) for m in marks])
    yield
    memo.save({f"{d}|{b}|{m!r}": [list(astuple(mark)) for mark in marks]
               for (d, b, m), marks in list(_CHECKED.items())[-CHECKED_KEPT:]})


def _faint_marks(svg: bytes, background: str, minimum: float) -> list[Mark]:
    faint: dict[tuple[str, str, str], Mark] = {}
    for mark in svg_marks(svg, background):
        if mark.ratio < minimum:
            faint.setdefault((mark.paint, mark.colour, mark.where), mark)
    return list(faint.values())


def check_dark_figures(page: Page, executed: ExecutedPage | None) -> list[Problem]:
    """A warning at the block of every figure whose dark rendering has a faint mark."""
    from sitebuild.checks.figures import figure_numbers

    if executed is None:
        return []
    problems = []
    lines = {block.n: block.line - 1 for block in page.blocks}
    for (n, k), number in figure_numbers(page, executed).items():
        name = executed.blocks[n][k].figure_dark
        if not name or name not in executed.figures:
            continue
        try:
            faint = faint_marks(executed.figures[name])
        except ValueError as error:
            problems.append(Problem(page.rel_path, lines.get(n), UNREADABLE_COLOUR.format(
                number=number, colour=str(error), where=name), "warning"))
            continue
        if faint:
            listed = "; ".join(str(m) for m in faint[:LISTED_MARKS]) + ("; ..." if len(faint) > LISTED_MARKS else "")
            problems.append(Problem(page.rel_path, lines.get(n), FAINT_FIGURE.format(
                number=number, count=len(faint), minimum=MINIMUM_CONTRAST, background=DARK_BACKGROUND,
                marks=listed), "warning"))
    return problems
