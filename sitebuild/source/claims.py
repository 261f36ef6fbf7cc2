"""The claim syntax: ``[words]{check="expression"}`` spans of a page's tokens.

markdown-it's attributes plugin reads the span; this module finds the spans that carry a
``check`` attribute, and the ones the parser did not read as a claim, so that they are
reported instead of silently left unchecked. Judging a claim is the quote checker's work
(:mod:`sitebuild.quotes.claims`).
"""

from __future__ import annotations

import ast
import re
from typing import Sequence

from markdown_it.token import Token
from msgspec import Struct

from sitebuild.source.tokens import inline_children

CHECK_ATTRIBUTE = "check"


class Claim(Struct, frozen=True):
    """One ``[words]{check="expression"}`` span of a page: its index in page order, its
    words, its expression and its .md line (1-based); ``token_index`` and
    ``child_index`` place its ``span_open`` in the page's tokens."""

    index: int
    words: str
    expression: str
    line: int
    token_index: int
    child_index: int


def find_claims(tokens: Sequence[Token]) -> list[Claim]:
    """Every ``[words]{check="expression"}`` span of a page's tokens, in page order."""
    claims: list[Claim] = []
    for line, token_index, child_index, child in inline_children(tokens):
        if child.type == "span_open" and CHECK_ATTRIBUTE in child.attrs:
            words = _span_words(tokens[token_index].children or [], child_index)
            claims.append(Claim(len(claims), words, str(child.attrs[CHECK_ATTRIBUTE]).strip(), line,
                                token_index, child_index))
    return claims


MALFORMED = re.compile(r"\]\{[^}]*\bcheck\s*=")


def malformed_claims(tokens: Sequence[Token]) -> list[tuple[int, str]]:
    """(line, text) of each ``[...]{check=...}`` the parser did not read as a claim (the
    expression in single quotes, a space before ``{``, a quote inside it), so that it is
    reported instead of silently left unchecked."""
    return [(line, child.content.strip()) for line, _, _, child in inline_children(tokens)
            if child.type == "text" and MALFORMED.search(child.content)]


def _span_words(children: list[Token], open_index: int) -> str:
    depth, words = 0, []
    for child in children[open_index + 1:]:
        if child.type == "span_open":
            depth += 1
        elif child.type == "span_close":
            if depth == 0:
                break
            depth -= 1
        elif child.type in ("text", "code_inline"):
            words.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            words.append(" ")
    return " ".join("".join(words).split())


def syntax_error(expression: str) -> str:
    """Why ``expression`` is not a Python expression, or "" when it is."""
    if not expression:
        return "the expression is empty"
    try:
        ast.parse(expression, mode="eval")
    except SyntaxError as error:
        return f"SyntaxError: {error.msg}"
    return ""
