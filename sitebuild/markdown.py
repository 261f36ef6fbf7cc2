"""The one Markdown parser every stage shares, so that reading, checking and rendering
see the same tokens (with their ``map`` source lines)."""

from __future__ import annotations

from markdown_it import MarkdownIt
from mdit_py_plugins.anchors import anchors_plugin
from mdit_py_plugins.attrs import attrs_plugin
from mdit_py_plugins.footnote import footnote_plugin
from mdit_py_plugins.front_matter import front_matter_plugin


def make_parser() -> MarkdownIt:
    """Return the site's Markdown parser: CommonMark with tables, strikethrough, front
    matter, footnotes, heading anchors (h1-h3) and ``[text]{.class}`` spans. Raw HTML in
    the source is escaped, not passed through."""
    md = MarkdownIt("commonmark", {"html": False, "typographer": False})
    md.enable(["table", "strikethrough"])
    md.use(front_matter_plugin)
    md.use(footnote_plugin)
    md.use(anchors_plugin, min_level=1, max_level=3, permalink=True, permalinkSymbol="#")
    md.use(attrs_plugin, spans=True)
    return md
