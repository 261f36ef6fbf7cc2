"""Stage 2: a Page's blocks -> the standalone script ``<source>/code/<slug>.py``, the
notebook the kernel runs (each block compiled under the .md's name and lines), and the
notebook readers download (prose as Markdown cells, code as written)."""

from __future__ import annotations

import ast
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from sitebuild.source.read import Page

if TYPE_CHECKING:
    from nbformat import NotebookNode

KERNEL_SETUP = (Path(__file__).with_name("kernel_setup.py")).read_text(encoding="utf-8")
#: Kernel-side figure capture (light and dark SVG), sent after the setup in the same cell.
KERNEL_FIGURES = (Path(__file__).with_name("kernel_figures.py")).read_text(encoding="utf-8")
#: The name the setup code is compiled under (in tracebacks, and as its frames' file name).
KERNEL_SETUP_NAME = "<sitebuild kernel setup>"
#: The first cell of every page's kernel notebook: the tracing and the figure capture, as one
#: string compiled and run in the page's namespace. Sent as the code itself, its thousand
#: lines went through IPython's input transforms token by token and were compiled statement by
#: statement, 0.1 s of every page's start; one string literal is a single token.
KERNEL_SETUP_CELL = f"exec(compile({KERNEL_SETUP + chr(10) + KERNEL_FIGURES!r}, {KERNEL_SETUP_NAME!r}, 'exec'))"
KERNELSPEC = {"display_name": "Python 3", "language": "python", "name": "python3"}


# Notebooks are built as plain nbformat-4.5 dicts: nbformat's constructors validate every
# cell against the JSON schema, which costs more than rendering the whole site.
def new_markdown_cell(source: str) -> dict:
    """A Markdown cell."""
    return {"cell_type": "markdown", "metadata": {}, "source": source}


def new_code_cell(source: str, metadata: dict | None = None) -> dict:
    """A code cell without outputs."""
    return {"cell_type": "code", "execution_count": None, "metadata": metadata or {}, "outputs": [], "source": source}


def new_notebook(cells: list[dict]) -> dict:
    """A notebook of ``cells`` for the ``python3`` kernel, with stable cell ids."""
    for i, cell in enumerate(cells):
        cell["id"] = f"cell-{i}"
    return {"cells": cells, "metadata": {"kernelspec": KERNELSPEC, "language_info": {"name": "python"}},
            "nbformat": 4, "nbformat_minor": 5}


def script_path(page: Page) -> Path:
    """Where the page's generated script lives: ``<source>/code/<slug>.py``."""
    return page.path.parent / "code" / f"{page.slug}.py"


#: The helpers at the top of every script: what a notebook shows at the end of a block,
#: the script prints; the figures a block draws are saved beside the script (or shown,
#: where matplotlib has a window to show them in).
SCRIPT_HELPERS = """
import sys as _sys
from pathlib import Path as _Path


def _show(value):
    \"\"\"Print what a notebook shows for a block's last expression (tables as text).\"\"\"
    if value is not None:
        print(value.to_string() if hasattr(value, "to_string") else repr(value))


def _figures(block):
    \"\"\"Save the block's matplotlib figures beside this script, or show them on a display.\"\"\"
    plt = _sys.modules.get("matplotlib.pyplot")
    if plt is None or not plt.get_fignums():
        return
    if plt.get_backend().lower() not in ("agg", "pdf", "svg", "ps", "cairo", "template"):
        plt.show()
        return
    for k, number in enumerate(plt.get_fignums()):
        path = _Path(__file__).with_name(f"{_Path(__file__).stem}-{block}-{k}.png")
        plt.figure(number).savefig(path, bbox_inches="tight")
        print(f"saved {path.name}")
    plt.close("all")
"""


@lru_cache(maxsize=4096)
def _shown_last_expression(source: str) -> str:
    """``source`` with its last statement, when it is a bare expression whose value a
    notebook would display, wrapped in ``_show(...)`` (a trailing ``;`` keeps it silent)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return source
    last = tree.body[-1] if tree.body else None
    if not isinstance(last, ast.Expr) or source.rstrip().endswith(";"):
        return source
    if isinstance(last.value, ast.Call) and isinstance(last.value.func,
                                                       ast.Name) and last.value.func.id in ("print", "display"):
        return source
    lines = source.splitlines(True)
    start, end = last.lineno - 1, last.end_lineno
    expression = "".join(lines[start:end]).strip()
    return "".join(lines[:start]) + f"_show({expression})\n" + "".join(lines[end:])


def script_text(page: Page) -> str:
    """The page's runnable script: a header naming its source, the helpers, then each
    block in order. Run, it prints what each block's last expression shows on the page
    and saves (or shows) the figures each block draws.

    Blocks marked {expect-error} are kept as comments so the script runs to its end."""
    script_rel = f"{Path(page.rel_path).parent.as_posix()}/code/{page.slug}.py"
    parts = [
        f"# Generated from {page.rel_path} by `python build.py`: edit the Markdown, not this file.\n"
        f"# Run from the repository root: PYTHONPATH=. python {script_rel}\n" + SCRIPT_HELPERS
    ]
    for block in page.code_blocks:
        header = f"\n# --- block {block.n} ({page.rel_path}, line {block.line}) ---\n"
        if block.options.get("expect-error"):
            body = "".join(f"# {line}" if line.strip() else "#\n" for line in block.source.splitlines(True))
            parts.append(header + "# This block is expected to raise an error, so it is not run here:\n" + body)
        else:
            body = _shown_last_expression(block.source)
            parts.append(header + (body if body.endswith("\n") else body + "\n") + f"_figures({block.n})\n")
    return "".join(p if p.endswith("\n") else p + "\n" for p in parts)


def kernel_notebook(page: Page) -> NotebookNode:
    """The notebook the kernel executes: setup, one cell per runnable block, then a report."""
    cells = [new_code_cell(KERNEL_SETUP_CELL, metadata={"sitebuild": {"role": "setup"}})]
    for block in page.code_blocks:
        call = f"_sb_run({block.source!r}, {page.rel_path!r}, {block.line})"
        cells.append(new_code_cell(call, metadata={"sitebuild": {"role": "block", "n": block.n}}))
    items = [(e.expr, e.format_spec, page.rel_path, e.line) for e in page.inline]
    claims = [(c.expression, page.rel_path, c.line) for c in page.claims]
    cells.append(new_code_cell(f"_sb_finish({items!r}, {claims!r})", metadata={"sitebuild": {"role": "finish"}}))
    from nbformat import from_dict

    return from_dict(new_notebook(cells))


def reader_notebook(page: Page, outputs: dict[int, list] | None = None, lines: list[str] | None = None) -> dict:
    """The downloadable notebook: prose as Markdown cells, each Python block as a code cell
    carrying ``outputs[n]`` (nbformat output dicts) when given. ``lines``, the page's lines
    as a reader reads them (same count, see :mod:`sitebuild.render.notebook`), give the
    Markdown cells instead of the source's lines."""
    lines = lines if lines is not None else page.text.splitlines(True)
    front_end = page.tokens[0].map[1] if page.tokens and page.tokens[0].type == "front_matter" else 0
    cells = [new_markdown_cell(f"# {page.front.title}\n\n{page.front.summary}")]
    cursor = front_end
    fences = [t for t in page.tokens if t.type == "fence"]
    for token, block in zip(fences, page.blocks):
        if not block.executable:
            continue
        prose = "".join(lines[cursor:token.map[0]]).strip()
        if prose:
            cells.append(new_markdown_cell(prose))
        cell = new_code_cell(block.source.rstrip("\n"))
        cell["outputs"] = [dict(o) for o in (outputs or {}).get(block.n, [])]
        cells.append(cell)
        cursor = token.map[1]
    rest = "".join(lines[cursor:]).strip()
    if rest:
        cells.append(new_markdown_cell(rest))
    return new_notebook(cells)
