"""Figures of a page: their numbers ("Figure 3."), their labels and the checks on them.

A block's options name its figures: ``{caption="..."}`` (required: a figure without one
is a warning, an error under ``--strict``), ``{alt="..."}`` and ``{label="fig-gap"}``.
Figures are numbered in page order; prose refers to a labelled one with an empty link,
``[](#fig-gap)``, which renders as "Figure 3" (a link with text keeps its text).

Tables are numbered the same way: the table outputs of a block with a ``caption`` are
"Table 1", "Table 2", ... in page order, and a ``label`` on a block that draws no figure
names its first table, so ``[](#tab-rates)`` renders as "Table 2"."""

from __future__ import annotations

from sitebuild.checks.check import Problem
from sitebuild.execution.executed import ExecutedPage
from sitebuild.source.read import Page


def figure_numbers(page: Page, executed: ExecutedPage | None) -> dict[tuple[int, int], int]:
    """The number of each figure output, by (block n, output index), from 1 in page order."""
    numbers: dict[tuple[int, int], int] = {}
    if executed is None:
        return numbers
    for block in page.blocks:
        for k, output in enumerate(executed.blocks.get(block.n, [])):
            if output.kind == "figure":
                numbers[(block.n, k)] = len(numbers) + 1
    return numbers


def figure_labels(page: Page, executed: ExecutedPage | None) -> dict[str, int]:
    """Each block label -> the number of the block's first figure."""
    numbers = figure_numbers(page, executed)
    labels = {}
    for block in page.blocks:
        label = block.options.get("label")
        first = min((num for (n, _), num in numbers.items() if n == block.n), default=None)
        if label and first is not None:
            labels[label] = first
    return labels


#: The "block" of a Markdown table of the prose in :func:`table_numbers` (blocks count from 1).
PROSE_TABLE = 0


def table_numbers(page: Page, executed: ExecutedPage | None) -> dict[tuple[int, int], int]:
    """The number of each numbered table, from 1 in page order: each table output of a
    captioned block, by (block n, output index), and each Markdown table with a
    ``Table: ...`` caption, by (:data:`PROSE_TABLE`, its .md line)."""
    found: list[tuple[int, tuple[int, int]]] = [
        (token.map[0] + 1, (PROSE_TABLE, token.map[0] + 1))
        for token in page.tokens if token.type == "table_open" and token.meta.get("captioned") and token.map]
    for block in page.blocks:
        if executed is None or not block.options.get("caption"):
            continue
        found += [(block.line, (block.n, k)) for k, output in enumerate(executed.blocks.get(block.n, []))
                  if output.kind == "html"]
    return {key: number for number, (_, key) in enumerate(sorted(found), start=1)}


def table_labels(page: Page, executed: ExecutedPage | None) -> dict[str, int]:
    """Each label of a block that draws no figure -> the number of the block's first table."""
    drawn = {n for n, _ in figure_numbers(page, executed)}
    numbers = table_numbers(page, executed)
    labels = {}
    for block in page.blocks:
        label = block.options.get("label")
        first = min((num for (n, _), num in numbers.items() if n == block.n), default=None)
        if label and first is not None and block.n not in drawn:
            labels[label] = first
    return labels


def check_figures(page: Page, executed: ExecutedPage | None) -> list[Problem]:
    """A warning for every block whose figures have no caption, and for a label on a block
    that draws no figure and numbers no table."""
    problems = []
    numbers = figure_numbers(page, executed)
    drawn = {n for n, _ in numbers} | {n for n, _ in table_numbers(page, executed)}
    for block in page.blocks:
        fence_line = block.line - 1
        if block.n in drawn and not block.options.get("caption"):
            count = sum(1 for n, _ in numbers if n == block.n)
            problems.append(Problem(page.rel_path, fence_line,
                                    f"the block draws {count} figure(s) without a caption: add "
                                    '{caption="One sentence saying what the figure shows"} to its ``` line', "warning"))
        ran = executed is not None and executed.error is None
        if block.options.get("label") and block.n not in drawn and ran:
            problems.append(Problem(page.rel_path, fence_line,
                                    f"code block option {{label=\"{block.options['label']}\"}}: the block draws no "
                                    "figure or captioned table to label", "warning"))
        if block.options.get("caption") and block.n not in drawn and ran and block.language == "python" \
                and not block.options.get("no-exec"):
            problems.append(Problem(page.rel_path, fence_line,
                                    "code block option {caption}: the block shows no figure or table to caption "
                                    "(a figure drawn after matplotlib.use(...) switched away from the page's "
                                    "backend, or closed before the block ends, is not shown)", "warning"))
    return problems
