"""Kernel-side code sent after kernel_setup.py (never imported by the engine): every
matplotlib figure a block shows is published as SVG twice, as drawn (the light rendering)
and recoloured for a dark page (the dark rendering), instead of one PNG.

The dark rendering keeps every saturated colour (the data) and turns the neutral ones
(white backgrounds, black text, grey spines and grids) to their mirror on a dark
background; the figure's own background becomes transparent so the page's shows."""

_SB_DARK_MIME = "application/vnd.sitebuild.figure-dark+svg"


def _sb_mirror(colour):
    """A neutral (grey) colour mirrored in lightness; other colours unchanged."""
    from matplotlib.colors import to_rgba
    r, g, b, a = to_rgba(colour)
    if max(r, g, b) - min(r, g, b) > 0.12:  # a hue: keep the data's colour
        return (r, g, b, a)
    level = 1.0 - (r + g + b) / 3.0
    level = 0.08 + 0.84 * level  # never pure black or white: softer on a dark page
    return (level, level, level, a)


def _sb_svg(figure, transparent=False):
    import io

    import matplotlib
    buffer = io.StringIO()
    # A fixed salt: the SVG's element ids are the same on every build of the same figure.
    with matplotlib.rc_context({"svg.hashsalt": "sitebuild"}):
        figure.savefig(buffer, format="svg", bbox_inches="tight", transparent=transparent,
                       metadata={"Date": None, "Creator": None})
    return buffer.getvalue()


def _sb_recolour(figure):
    """Recolour ``figure`` in place for a dark page; returns a function that undoes it."""
    undo = []

    def swap(getter, setter):
        try:
            old = getter()
            setter(_sb_mirror(old))
            undo.append((setter, old))
        except (ValueError, TypeError, AttributeError):
            pass

    from matplotlib.collections import Collection
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
    from matplotlib.text import Text
    for artist in figure.findobj():
        if isinstance(artist, Text):
            swap(artist.get_color, artist.set_color)
        elif isinstance(artist, Line2D):
            swap(artist.get_color, artist.set_color)
            swap(artist.get_markerfacecolor, artist.set_markerfacecolor)
            swap(artist.get_markeredgecolor, artist.set_markeredgecolor)
        elif isinstance(artist, Patch):
            swap(artist.get_facecolor, artist.set_facecolor)
            swap(artist.get_edgecolor, artist.set_edgecolor)
        elif isinstance(artist, Collection):
            for getter, setter in ((artist.get_facecolor, artist.set_facecolor),
                                   (artist.get_edgecolor, artist.set_edgecolor)):
                try:
                    old = getter()
                    if len(old):
                        setter([_sb_mirror(c) for c in old])
                        undo.append((setter, old))
                except (ValueError, TypeError, AttributeError):
                    pass
    for axes in figure.axes:
        for axis in (axes.xaxis, axes.yaxis):
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                swap(lambda t=tick: t.tick1line.get_color(), tick.tick1line.set_color)
                swap(lambda t=tick: t.tick2line.get_color(), tick.tick2line.set_color)

    def restore():
        for setter, old in reversed(undo):
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
