"""Walking a page's markdown-it tokens with the .md line of each inline child."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from markdown_it.token import Token


def inline_children(tokens: Sequence[Token]) -> Iterator[tuple[int, int, int, Token]]:
    """(.md line, token index, child index, child) of every child of every inline token,
    the line counted from the token's line map and its soft and hard breaks."""
    for token_index, token in enumerate(tokens):
        if token.type != "inline" or not token.map:
            continue
        line = token.map[0] + 1
        for child_index, child in enumerate(token.children or []):
            if child.type in ("softbreak", "hardbreak"):
                line += 1
            yield line, token_index, child_index, child


#: What is left of a link or an attribute list that did not parse, in a text of the prose.
_UNPARSED = re.compile(r"\]\([^()\s]+\)|\]\{[.#]?[\w-]")


def unparsed_syntax(tokens: Sequence[Token]) -> list[tuple[int, str]]:
    """(.md line, text) of each piece of a link or an attribute list that did not parse, and
    so would show as raw syntax (a ``[span]{...}`` inside a link's text breaks the link)."""
    return [(line, found.group()) for line, _, _, child in inline_children(tokens)
            if child.type == "text" and "]" in child.content for found in _UNPARSED.finditer(child.content)]
