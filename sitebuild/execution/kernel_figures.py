"""Kernel-side code sent after kernel_setup.py (never imported by the engine): every
matplotlib figure a block shows is published as SVG twice, as drawn (the light rendering)
and recoloured for a dark page (the dark rendering), instead of one PNG.

The dark rendering follows one rule for every colour, by the role it plays:

- a mark (a line, a marker, an edge, a bar, a text) keeps its hue; a neutral one (black
  text, grey spines and grids) is mirrored in lightness; then any mark that would stand
  under the aim against the dark page is lightened, hue kept, until it stands at the aim
  (WCAG asks 3:1 of graphics; the aim leaves room for rounding colours to 8 bits);
- white and near-white (a knockout: a hollow marker's inside, a label's box) and the
  boxes behind text (a legend's frame, a text's bbox) become the dark page's own colour
  or their mirror, never lighter;
- the figure's own background becomes transparent so the page's shows.

Every colour is read before any is set, so a colour derived from another (a marker's
"auto" face follows its line) is recoloured once, not twice."""

_SB_DARK_MIME = "application/vnd.sitebuild.figure-dark+svg"
#: The dark theme's page background (--bg in templates/static/palette.css).
_SB_DARK_PAGE = (0x14 / 255, 0x17 / 255, 0x1C / 255)
#: The contrast a mark is lightened to: 3:1 (WCAG, graphics) with room for 8-bit rounding.
_SB_MARK_AIM = 3.3
#: Below this opacity a colour is shading (an interval band): lightened as if opaque.
_SB_SHADING = 0.5
#: A neutral colour this close to white (contrast against white) is the page's own colour.
_SB_KNOCKOUT = 1.1


def _sb_luminance(rgb):
    """WCAG relative luminance of an sRGB colour (channels in 0..1)."""
    def linear(c):
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (linear(c) for c in rgb[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _sb_contrast(a, b):
    """WCAG contrast ratio of two sRGB colours."""
    la, lb = sorted((_sb_luminance(a), _sb_luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def _sb_over(rgb, alpha, under=_SB_DARK_PAGE):
    """``rgb`` at ``alpha`` painted over ``under``, as a browser blends an SVG."""
    return tuple(alpha * c + (1 - alpha) * u for c, u in zip(rgb[:3], under))


def _sb_is_neutral(rgb):
    return max(rgb[:3]) - min(rgb[:3]) <= 0.12


def _sb_mirror(rgb):
    """A neutral (grey) colour mirrored in lightness, never pure black or white; a hue kept."""
    if not _sb_is_neutral(rgb):
        return tuple(rgb[:3])
    level = 0.08 + 0.84 * (1.0 - sum(rgb[:3]) / 3.0)
    return (level, level, level)


def _sb_lift(rgb, alpha):
    """``rgb`` lightened (hue and saturation kept) until, at ``alpha`` over the dark page,
    it stands at :data:`_SB_MARK_AIM`; white when no lightness reaches it."""
    import colorsys
    if _sb_contrast(_sb_over(rgb, alpha), _SB_DARK_PAGE) >= _SB_MARK_AIM:
        return tuple(rgb[:3])
    hue, low, saturation = colorsys.rgb_to_hls(*rgb[:3])
    high = 1.0
    for _ in range(24):
        middle = (low + high) / 2
        shade = colorsys.hls_to_rgb(hue, middle, saturation)
        if _sb_contrast(_sb_over(shade, alpha), _SB_DARK_PAGE) >= _SB_MARK_AIM:
            high = middle
        else:
            low = middle
    return colorsys.hls_to_rgb(hue, high, saturation)


def _sb_is_knockout(rgb):
    return _sb_is_neutral(rgb) and _sb_contrast(rgb, (1.0, 1.0, 1.0)) < _SB_KNOCKOUT


def _sb_dark(colour, role="mark", alpha=None):
    """The dark rendering of ``colour`` (anything matplotlib reads) in ``role`` ("mark" or
    "box"); ``alpha`` is the artist's own opacity, if any, on top of the colour's."""
    from matplotlib.colors import to_rgba
    rgba = to_rgba(colour)
    if rgba[3] == 0:
        return rgba
    if _sb_is_knockout(rgba):
        return (*_SB_DARK_PAGE, rgba[3])
    mirrored = _sb_mirror(rgba)
    if role == "box":
        return (*mirrored, rgba[3])
    seen = rgba[3] * (1.0 if alpha is None else alpha)
    return (*_sb_lift(mirrored, seen if seen >= _SB_SHADING else 1.0), rgba[3])


def _sb_svg(figure, transparent=False):
    import io

    import matplotlib
    buffer = io.StringIO()
    # A fixed salt: the SVG's element ids are the same on every build of the same figure.
    with matplotlib.rc_context({"svg.hashsalt": "sitebuild"}):
        figure.savefig(buffer, format="svg", bbox_inches="tight", transparent=transparent,
                       metadata={"Date": None, "Creator": None})
    return buffer.getvalue()


def _sb_boxes(figure):
    """The patches that sit behind other marks: the figure's, each axes', each legend's
    frame and each text's bbox."""
    from matplotlib.text import Text
    boxes = [figure.patch] + [axes.patch for axes in figure.axes]
    for artist in figure.findobj():
        frame = getattr(artist, "legendPatch", None)
        if frame is not None:
            boxes.append(frame)
        if isinstance(artist, Text) and artist.get_bbox_patch() is not None:
            boxes.append(artist.get_bbox_patch())
    return boxes


def _sb_artists(figure, boxes):
    """Every artist of ``figure`` once, and the ``boxes`` (a text's bbox is no child of
    its text); its ticks are made first (ticks made while saving would copy the first
    tick's colours as they are then)."""
    for axes in figure.axes:
        for axis in (axes.xaxis, axes.yaxis):
            axis.get_major_ticks()
            axis.get_minor_ticks()
    seen = {}
    for artist in figure.findobj() + boxes:
        seen.setdefault(id(artist), artist)
    return list(seen.values())


def _sb_changes(artist, role):
    """(setter, new colour, old value) for each colour of ``artist``, all read first."""
    from matplotlib.collections import Collection
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
    from matplotlib.text import Text
    alpha = artist.get_alpha()
    if isinstance(artist, Text):
        return [(artist.set_color, _sb_dark(artist.get_color(), "mark", alpha), artist.get_color())]
    if isinstance(artist, Line2D):
        return [(artist.set_color, _sb_dark(artist.get_color(), "mark", alpha), artist.get_color()),
                (artist.set_markerfacecolor, _sb_dark(artist.get_markerfacecolor(), "mark", alpha),
                 getattr(artist, "_markerfacecolor", artist.get_markerfacecolor())),
                (artist.set_markeredgecolor, _sb_dark(artist.get_markeredgecolor(), "mark", alpha),
                 getattr(artist, "_markeredgecolor", artist.get_markeredgecolor()))]
    if isinstance(artist, Patch):
        return [(artist.set_facecolor, _sb_dark(artist.get_facecolor(), role), artist.get_facecolor()),
                (artist.set_edgecolor, _sb_dark(artist.get_edgecolor()), artist.get_edgecolor())]
    if isinstance(artist, Collection):
        changes = []
        for getter, setter in ((artist.get_facecolor, artist.set_facecolor),
                               (artist.get_edgecolor, artist.set_edgecolor)):
            old = getter()
            if len(old):
                changes.append((setter, [_sb_dark(c) for c in old], old))
        return changes
    return []


def _sb_recolour(figure):
    """Recolour ``figure`` in place for a dark page; returns a function that undoes it."""
    boxes = _sb_boxes(figure)
    box_ids = {id(box) for box in boxes}
    changes = []
    for artist in _sb_artists(figure, boxes):
        try:
            changes += _sb_changes(artist, "box" if id(artist) in box_ids else "mark")
        except (ValueError, TypeError, AttributeError):
            pass
    for setter, new, _ in changes:
        setter(new)

    def restore():
        for setter, _, old in reversed(changes):
            setter(old)
    return restore


def _sb_figure_bundle(figure):
    """The display bundle of a figure: light SVG (standard) and dark SVG."""
    from IPython import get_ipython
    formatters = get_ipython().display_formatter.formatters
    formatters["image/png"].pop(type(figure), None)  # the SVGs replace the PNG
    light = _sb_svg(figure)
    restore = _sb_recolour(figure)
    try:
        dark = _sb_svg(figure, transparent=True)
    finally:
        restore()
    return {"image/svg+xml": light, _SB_DARK_MIME: dark, "text/plain": repr(figure)}


def _sb_install_figures():
    from IPython import get_ipython
    shell = get_ipython()
    if shell is not None:
        shell.display_formatter.mimebundle_formatter.for_type_by_name("matplotlib.figure", "Figure", _sb_figure_bundle)


_sb_install_figures()
