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
#: A paragraph right after a Markdown table that starts with this is the table's caption.
TABLE_CAPTION_PREFIX = "Table: "


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


def mark_table_captions(state: StateCore) -> None:
    """A paragraph ``Table: words`` right after a Markdown table is that table's caption:
    the prefix is dropped, the paragraph's ``meta["table_caption"]`` holds the table's .md
    line and the table's ``meta["captioned"]`` is set. Its words stay an inline token where
    they stand, so their numbers are checked like the prose's."""
    tokens = state.tokens
    opener = None
    for i, token in enumerate(tokens[:-3]):
        if token.type == "table_open":
            opener = token
        if token.type != "table_close" or opener is None:
            continue
        paragraph, inline = tokens[i + 1], tokens[i + 2]
        first = inline.children[0] if inline.type == "inline" and inline.children else None
        if paragraph.type != "paragraph_open" or first is None or first.type != "text" \
                or not first.content.startswith(TABLE_CAPTION_PREFIX):
            continue
        first.content = first.content[len(TABLE_CAPTION_PREFIX):]
        inline.content = inline.content.removeprefix(TABLE_CAPTION_PREFIX)
        paragraph.meta["table_caption"] = opener.map[0] + 1 if opener.map else 0
        opener.meta["captioned"] = True


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
    ``:::{note}`` / ``:::{warning}`` callouts, and ``Table: ...`` captions of Markdown tables.
    Raw HTML in the source is escaped, not passed through."""
    md = MarkdownIt("commonmark", {"html": False, "typographer": False})
    md.enable(["table", "strikethrough"])
    md.use(front_matter_plugin)
    md.use(footnote_plugin)
    md.use(anchors_plugin, min_level=1, max_level=3, permalink=True, permalinkSymbol="#")
    md.core.ruler.after("anchor", "anchor_label", label_heading_anchors)
    md.core.ruler.after("inline", "table_captions", mark_table_captions)
    md.use(attrs_plugin, spans=True)
    md.use(citations_plugin)
    md.use(dollarmath_plugin, allow_labels=False, allow_space=False, allow_digits=False, double_inline=True)
    md.use(amsmath_plugin)
    for kind in CALLOUT_KINDS:
        md.use(container_plugin, kind, validate=_callout_validator(kind))
    return md
