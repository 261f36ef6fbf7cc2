"""The one Markdown parser every stage shares, so that reading, checking and rendering
see the same tokens (with their ``map`` source lines)."""

from __future__ import annotations

import re

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from mdit_py_plugins.amsmath import amsmath_plugin
from mdit_py_plugins.anchors import anchors_plugin
from mdit_py_plugins.attrs import attrs_plugin
from mdit_py_plugins.container import container_plugin
from mdit_py_plugins.dollarmath import dollarmath_plugin
from mdit_py_plugins.footnote import footnote_plugin
from mdit_py_plugins.front_matter import front_matter_plugin

from sitebuild.source.references import citations_plugin

ANCHOR_CLASS = "header-anchor"
#: The kinds of callout, ``:::{note}`` ... ``:::`` (MyST's syntax), and the word each is announced with.
CALLOUT_KINDS = {"note": "Note", "warning": "Warning"}


def label_heading_anchors(state: StateCore) -> None:
    """Give each heading's permalink an accessible name ("Link to the section …")
    instead of its bare "#" symbol, kept on the heading's last line."""
    for index, token in enumerate(state.tokens):
        if token.type != "heading_open" or index + 1 >= len(state.tokens):
            continue
        children = state.tokens[index + 1].children or []
        title = "".join(c.content for c in children if c.type in ("text", "code_inline")).strip()
        for position, child in enumerate(children):
            if child.type == "link_open" and child.attrGet("class") == ANCHOR_CLASS:
                before = children[position - 1] if position else None
                if before is not None and before.type == "text" and before.content == " ":
                    before.content = "\u00a0"  # the "#" never wraps onto a line of its own
                child.attrSet("aria-label", f"Link to the section “{title}”" if title else "Link to this section")


def _callout_validator(kind: str):
    """Accept the opening line ``:::{kind}`` (an optional title may follow)."""
    opening = re.compile(r"^\{" + kind + r"\}(?:\s.*)?$")
    return lambda params, *_: bool(opening.match(params.strip()))


def callout_title(info: str) -> str:
    """The title written after ``:::{note}`` ("" when none)."""
    return info.strip().partition("}")[2].strip()


def make_parser() -> MarkdownIt:
    """Return the site's Markdown parser: CommonMark with tables, strikethrough, front
    matter, footnotes, heading anchors (h1-h3, each permalink with an accessible name)
    ``[text]{.class}`` spans, ``[@key]`` citations (sitebuild.source.references), ``$...$``
    and ``$$...$$`` formulas and amsmath environments (sitebuild.source.math), and
    ``:::{note}`` / ``:::{warning}`` callouts. Raw HTML in the source is escaped, not
    passed through."""
    md = MarkdownIt("commonmark", {"html": False, "typographer": False})
    md.enable(["table", "strikethrough"])
    md.use(front_matter_plugin)
    md.use(footnote_plugin)
    md.use(anchors_plugin, min_level=1, max_level=3, permalink=True, permalinkSymbol="#")
    md.core.ruler.after("anchor", "anchor_label", label_heading_anchors)
    md.use(attrs_plugin, spans=True)
    md.use(citations_plugin)
    md.use(dollarmath_plugin, allow_labels=False, allow_space=False, allow_digits=False, double_inline=True)
    md.use(amsmath_plugin)
    for kind in CALLOUT_KINDS:
        md.use(container_plugin, kind, validate=_callout_validator(kind))
    return md
