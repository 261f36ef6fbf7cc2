"""The downloadable notebook of a page, whose Markdown cells read as the page does: each
inline ``{python} expr`` value is its printed value, each checked claim its words, each
citation its formatted reference ("Hardt et al. 2016", or the whole entry where a list
item begins with it), each ``[](#label)`` its "Figure N" or "Table N", each callout a
quoted block under its bold kind, and no ``{.nocheck}`` or other attribute is left. Fenced
code, formulas (which Jupyter renders) and the front matter keep their lines as written."""

from __future__ import annotations

import json
import re

from sitebuild.checks.figures import figure_labels, table_labels
from sitebuild.execution.executed import ExecutedPage
from sitebuild.execution.extract import reader_notebook
from sitebuild.source.markdown import CALLOUT_KINDS, callout_title
from sitebuild.source.read import Page
from sitebuild.source.references import CITATION, Reference, citation_keys, short_citation

_VALUE = r"""(?:"[^"\n]*"|'[^'\n]*'|[^\s{}"']+)"""
_ATTRIBUTE = rf"(?:[.#][\w-]+|[A-Za-z_][\w-]*={_VALUE})"
#: An attribute list as the attributes plugin reads it: ``{.nocheck}``, ``{check="p < 0.05"}``, ``{#id .a b=c}``.
ATTRIBUTES = rf"\{{\s*{_ATTRIBUTE}(?:\s+{_ATTRIBUTE})*\s*\}}"
#: ``[words]{attributes}``: a span (a claim, a ``nocheck`` marker), kept as its words.
SPAN = re.compile(rf"(?<![!\]\\])\[((?:[^\[\]\\]|\\.|\[[^\[\]]*\])*)\]{ATTRIBUTES}")
#: Attributes after a link, an image, emphasis or code, dropped.
TRAILING_ATTRIBUTES = re.compile(rf"(?<=[)*_`]){ATTRIBUTES}")
LIST_ITEM_START = re.compile(r"^(\s*(?:[-*+]|\d+[.)])\s+)$")
#: ``[](#label)``: an empty link to a figure or a table.
CROSS_REFERENCE = re.compile(r"\[\]\(#([a-z][a-z0-9]*(?:-[a-z0-9]+)*)\)")


def _replace_inline_values(lines: list[str], page: Page, values: dict[int, str]) -> None:
    """Each inline ``{python} expr`` span of ``lines`` replaced in place by its value
    (right to left on each line, so that the columns of the others hold)."""
    for expr in sorted(page.inline, key=lambda e: (e.line, -e.col)):
        value = values.get(expr.index)
        line = lines[expr.line - 1] if 0 < expr.line <= len(lines) else ""
        start = expr.col - 1
        ticks = len(line[start:]) - len(line[start:].lstrip("`"))
        end = line.find("`" * ticks, start + ticks) if ticks else -1
        if value is None or end < 0:
            continue
        lines[expr.line - 1] = line[:start] + value + line[end + ticks:]


def full_reference(entry: Reference) -> str:
    """The whole entry as Markdown: authors (year). title. *venue*. [doi:...](link)."""
    names = list(entry.authors)
    authors = ", ".join(names[:-1]) + (" and " if len(names) > 1 else "") + names[-1] if names else ""
    parts = [f"{authors} ({entry.year}). " if authors else f"({entry.year}). ", f"{entry.title.rstrip('.')}."]
    if entry.venue:
        parts.append(f" *{entry.venue}*.")
    if entry.doi:
        parts.append(f" [doi:{entry.doi}]({entry.link})")
    elif entry.url:
        parts.append(f" <{entry.url}>")
    return "".join(parts)


def _citations(text: str, bibliography: dict[str, Reference]) -> str:
    """``[@key; ...]`` as "(Author Year; ...)", each name linked to its entry's address, or
    the whole entry where a list item begins with a single key; an unknown key stays as
    written."""

    def cite(key: str, entry: Reference | None) -> str:
        if entry is None:
            return f"@{key}"
        return f"[{entry.short()}]({entry.link})" if entry.link else entry.short()

    def replace(match: re.Match) -> str:
        keys = citation_keys(match)
        if not any(key in bibliography for key in keys):
            return match.group(0)
        line_start = text.rfind("\n", 0, match.start()) + 1
        if len(keys) == 1 and LIST_ITEM_START.match(text[line_start:match.start()]):
            return full_reference(bibliography[keys[0]])
        return short_citation(keys, bibliography, cite)

    return CITATION.sub(replace, text)


def _callouts(lines: list[str], page: Page) -> None:
    """Each ``:::{note}`` callout of ``lines`` made, in place, a quoted block under its bold
    kind (and title); the closing ``:::`` becomes an empty line."""
    for token in page.tokens:
        kind = token.type.removeprefix("container_").removesuffix("_open")
        if token.nesting != 1 or kind not in CALLOUT_KINDS or not token.map:
            continue
        start, end = token.map
        title = callout_title(token.info)
        lines[start] = f"> **{CALLOUT_KINDS[kind]}{': ' + title if title else ''}**\n>\n" if start < len(lines) else ""
        closing = next((n for n in (end - 1, end)
                        if start < n < len(lines) and lines[n].strip().startswith(":::")), None)
        for number in range(start + 1, min(closing if closing is not None else end, len(lines))):
            lines[number] = "> " + lines[number] if lines[number].strip() else ">\n"
        if closing is not None:
            lines[closing] = "\n"


def plain_markdown(text: str, bibliography: dict[str, Reference], references: dict[str, str] | None = None) -> str:
    """Prose with its authoring syntax removed: spans as their words, attributes dropped,
    citations formatted, ``[](#label)`` as its ``references[label]`` ("Table 2"). Keeps
    the number of lines.

    Examples
    --------
    >>> plain_markdown('The gap [is small]{check="gap < 0.1"} in [1998]{.nocheck}.', {})
    'The gap is small in 1998.'
    """
    previous = None
    while previous != text:  # a span inside a span
        previous, text = text, SPAN.sub(lambda match: match.group(1), text)
    labels = references or {}
    text = CROSS_REFERENCE.sub(lambda match: labels.get(match.group(1), match.group(0)), text)
    return _citations(TRAILING_ATTRIBUTES.sub("", text), bibliography)


def _code_lines(page: Page) -> set[int]:
    """The 0-based lines of the front matter and of every fenced or indented code block."""
    kept: set[int] = set()
    for token in page.tokens:
        if token.type in ("front_matter", "fence", "code_block") and token.map:
            kept.update(range(*token.map))
    return kept


def reader_lines(page: Page, values: dict[int, str], bibliography: dict[str, Reference],
                 references: dict[str, str] | None = None) -> list[str]:
    """The page's lines as a reader reads them: its prose in plain Markdown (inline values
    from ``values``, by index; ``[](#label)`` from ``references``), its code as written.
    A callout's opening line becomes two, so a line may hold a line break."""
    lines = page.text.splitlines(True)
    _replace_inline_values(lines, page, values)
    code = _code_lines(page)
    out: list[str] = []
    run: list[str] = []
    for number, line in enumerate(lines):
        if number in code:
            out.extend(_plain_run(run, bibliography, references))
            run = []
            out.append(line)
        else:
            run.append(line)
    out.extend(_plain_run(run, bibliography, references))
    _callouts(out, page)
    return out


def _plain_run(run: list[str], bibliography: dict[str, Reference], references: dict[str, str] | None) -> list[str]:
    if not run:
        return []
    plain = plain_markdown("".join(run), bibliography, references).splitlines(True)
    return plain if len(plain) == len(run) else run  # never shift the cells' lines


def notebook_json(page: Page, executed: ExecutedPage | None, bibliography: dict[str, Reference] | None = None) -> str:
    """The downloadable notebook of ``page``, with its outputs and its prose as plain Markdown."""
    values = {v.index: v.text for v in (executed.inline if executed else []) if not v.error}
    references = {label: f"Figure {number}" for label, number in figure_labels(page, executed).items()}
    references.update((label, f"Table {number}") for label, number in table_labels(page, executed).items())
    lines = reader_lines(page, values, bibliography or {}, references)
    notebook = reader_notebook(page, executed.notebook_outputs if executed else None, lines)
    return json.dumps(notebook, indent=1, ensure_ascii=False, sort_keys=True) + "\n"
