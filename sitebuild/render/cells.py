"""HTML of one code cell: highlighted input (Pygments) and its outputs, escaped, in the
structure of the site's HTML contract."""

from __future__ import annotations

import itertools
import re
from html import escape
from typing import Callable

from sitebuild.execution.outputs import Output
from sitebuild.render.highlight import highlight_code
from sitebuild.source.read import CodeBlock

COLLAPSE_AFTER = 25
TABLE_ROW = re.compile(r"<tr(?=[\s>])")
#: Turns (source, language) into highlighted HTML.
Highlighter = Callable[[str, str], str]


def _lines_html(n: int, k: int, text: str) -> str:
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return "\n".join(f'<span class="line" id="out-{n}-{k}-l{i}">{escape(line)}</span>' for i, line in enumerate(lines))


def _table_html(n: int, k: int, html: str) -> str:
    """The sanitised table, each ``<tr>`` given the id of its quotable line (``out-{n}-{k}-l{i}``)."""
    from sitebuild.render.html_output import sanitise_table_html  # html.parser, loaded only for a table

    rows = itertools.count()
    return TABLE_ROW.sub(lambda _: f'<tr id="out-{n}-{k}-l{next(rows)}"', sanitise_table_html(html))


def _collapsible(html: str, line_count: int) -> str:
    if line_count <= COLLAPSE_AFTER:
        return html
    return f'<details class="output-collapse"><summary>Show all {line_count} lines</summary>{html}</details>'


def figure_html(block: CodeBlock, k: int, output: Output, title: str, number: int | None, first: bool) -> str:
    """A figure: its light rendering and, when there is one, its dark rendering (the theme
    shows one of them), then "Figure N." and the block's caption. The block's first figure
    carries its ``{label}`` as id, so prose can link to it."""
    n = block.n
    caption = block.options.get("caption", "")
    alt = block.options.get("alt") or caption or f"Figure from block {n} of {title}"
    label = block.options.get("label") if first else None
    ident = f' id="{escape(label)}"' if label else ""
    light_class = ' class="figure-light"' if output.figure_dark else ""
    images = f'<img{light_class} src="figures/{escape(output.figure)}" alt="{escape(alt)}" loading="lazy">'
    if output.figure_dark:
        images += (f'<img class="figure-dark" src="figures/{escape(output.figure_dark)}" alt="{escape(alt)}" '
                   'loading="lazy">')
    prefix = f'<span class="figure-number">Figure {number}.</span> ' if number else ""
    figcaption = f"<figcaption>{prefix}{escape(caption)}</figcaption>" if caption or prefix else ""
    return f'<figure class="output output-figure"{ident}><div id="out-{n}-{k}">{images}</div>{figcaption}</figure>'


def table_html(block: CodeBlock, k: int, output: Output, number: int | None, first: bool) -> str:
    """A table output in its scroll box; a numbered one (its block has a caption) is a
    figure of its own, "Table N." and the caption above the table, and the block's first
    table carries its ``{label}`` as id when the block draws no figure."""
    n = block.n
    box = f'<div class="output output-html table-scroll" id="out-{n}-{k}">{_table_html(n, k, output.text)}</div>'
    if number is None:
        return box
    label = block.options.get("label") if first else None
    ident = f' id="{escape(label)}"' if label else ""
    caption = (f'<figcaption><span class="table-number">Table {number}.</span> '
               f'{escape(block.options.get("caption", ""))}</figcaption>')
    return f'<figure class="output output-table"{ident}>{caption}{box}</figure>'


def output_html(block: CodeBlock, k: int, output: Output, slug: str, title: str,
                figure_numbers: dict[tuple[int, int], int] | None = None,
                table_numbers: dict[tuple[int, int], int] | None = None) -> str:
    """One output as HTML; every text is escaped, tables are sanitised; figures numbered
    from ``figure_numbers`` and tables from ``table_numbers`` ((block, output) -> number)."""
    n = block.n
    if output.kind in ("stream", "text"):
        html = f'<pre class="output output-stream" id="out-{n}-{k}">{_lines_html(n, k, output.text)}</pre>'
        return _collapsible(html, len(output.texts))
    if output.kind == "stderr":
        html = f'<pre class="output output-stderr" id="out-{n}-{k}">{_lines_html(n, k, output.text)}</pre>'
        return _collapsible(html, len(output.texts))
    if output.kind == "html":
        tables = table_numbers or {}
        drawn = any(m == n for (m, _) in figure_numbers or {})
        first = not drawn and min((j for (m, j) in tables if m == n), default=k) == k
        return table_html(block, k, output, tables.get((n, k)), first)
    if output.kind == "figure":
        numbers = figure_numbers or {}
        first = min((j for (m, j) in numbers if m == n), default=k) == k
        return figure_html(block, k, output, title, numbers.get((n, k)), first)
    if output.kind == "error":
        return f'<pre class="output output-error" id="out-{n}-{k}">{escape(output.text)}</pre>'
    return ""


def cell_html(block: CodeBlock, outputs: list[Output] | None, slug: str, title: str,
              figure_numbers: dict[tuple[int, int], int] | None = None, highlight: Highlighter = highlight_code,
              table_numbers: dict[tuple[int, int], int] | None = None) -> str:
    """The whole cell of a fenced block: input unless {hide-code} (highlighted by
    ``highlight``), outputs unless {hide-output} (figures and tables numbered)."""
    parts = [f'<div class="cell" id="cell-{block.n}">']
    if not block.options.get("hide-code"):
        parts.append('<div class="cell-input"><div class="cell-toolbar"><button class="copy-button" type="button" '
                     'aria-label="Copy code">Copy</button></div>'
                     '<div class="highlight"><pre><code>'
                     f'{highlight(block.source, block.language)}</code></pre></div></div>')
    if outputs and not block.options.get("hide-output"):
        rendered = "".join(output_html(block, k, o, slug, title, figure_numbers, table_numbers)
                           for k, o in enumerate(outputs))
        parts.append(f'<div class="cell-outputs">{rendered}</div>')
    parts.append("</div>\n")
    return "".join(parts)
