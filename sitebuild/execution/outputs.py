"""Kernel outputs as plain data: :class:`Output` and the conversion from nbformat output
dicts, keeping every quotable text (stream lines, text/plain lines, table rows)."""

from __future__ import annotations

import base64
import re

from msgspec import Struct, field

ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
ERROR_MIME = "application/vnd.sitebuild.error+json"
DEPS_MIME = "application/vnd.sitebuild.execution.deps+json"
#: What the page's report cell is evaluating (an inline value or a claim, at its line),
#: published before each, so that a timeout names the one that ran past it.
EVALUATING_MIME = "application/vnd.sitebuild.evaluating+json"
#: The dark rendering of a figure, next to its light ``image/svg+xml`` (kernel_figures.py).
FIGURE_DARK_MIME = "application/vnd.sitebuild.figure-dark+svg"
#: How the cells of one table row are joined into one quotable line.
CELL_SEPARATOR = " | "


class Output(Struct):
    """One output of a block. ``kind`` is stream, stderr, text, html, figure or error;
    ``texts`` are its quotable strings: lines of text, or the rows of an HTML table (one
    line per ``<tr>``, cells joined by :data:`CELL_SEPARATOR`, so line ``i`` is the
    row rendered with the id ``out-{n}-{k}-l{i}``). A table's rows are derived from its
    HTML when they are not given; a stored record gives them back as they were derived
    (a change to this module changes the engine digest, so no entry derived by older code
    is ever read)."""

    kind: str
    text: str = ""
    texts: list[str] = field(default_factory=list)
    figure: str = ""
    alt: str = ""
    #: The figure's dark rendering ("" when it has only one).
    figure_dark: str = ""

    def __post_init__(self) -> None:
        if self.kind == "html" and not self.texts:
            self.texts = table_row_texts(self.text)


def table_row_texts(html: str) -> list[str]:
    """One line per ``<tr>`` of ``html``, in document order: its cells' texts (whitespace
    collapsed) joined by :data:`CELL_SEPARATOR`."""
    from sitebuild.execution.html_tables import table_cells

    return [CELL_SEPARATOR.join(text for text, _ in cells) for cells in table_cells(html)]


class BlockError(Struct):
    """An exception raised by a block, located in the .md."""

    line: int | None
    ename: str
    evalue: str
    traceback: str


def strip_ansi(text: str) -> str:
    """Remove terminal colour codes."""
    return ANSI.sub("", text)


def _joined(value: str | list[str]) -> str:
    return "".join(value) if isinstance(value, list) else value


def convert_outputs(slug: str, n: int, raw_outputs: list[dict]) -> tuple[list[Output], dict[str, bytes],
                                                                         BlockError | None]:
    """Turn a cell's nbformat outputs into :class:`Output` records, the figures they carry
    (named ``<slug>-<n>-<k>.png``, ``k`` the output's index) and the block's error, if any."""
    outputs: list[Output] = []
    figures: dict[str, bytes] = {}
    error: BlockError | None = None
    for raw in raw_outputs:
        kind = raw.get("output_type")
        data = raw.get("data", {})
        k = len(outputs)
        if kind == "stream":
            text = strip_ansi(_joined(raw.get("text", "")))
            name = "stderr" if raw.get("name") == "stderr" else "stream"
            if outputs and outputs[-1].kind == name:
                text = outputs.pop().text + text
            outputs.append(Output(kind=name, text=text, texts=text.splitlines()))
        elif ERROR_MIME in data:
            report = data[ERROR_MIME]
            error = BlockError(report.get("line"), report.get("ename", ""), report.get("evalue", ""),
                               report.get("traceback", ""))
            outputs.append(Output(kind="error", text=error.traceback, texts=error.traceback.splitlines()))
        elif DEPS_MIME in data:
            continue
        elif kind == "error":
            text = strip_ansi("\n".join(raw.get("traceback", []))) or f"{raw.get('ename')}: {raw.get('evalue')}"
            error = BlockError(None, raw.get("ename", ""), raw.get("evalue", ""), text)
            outputs.append(Output(kind="error", text=text, texts=text.splitlines()))
        elif "image/svg+xml" in data:
            name = f"{slug}-{n}-{k}.svg"
            figures[name] = _joined(data["image/svg+xml"]).encode()
            dark = f"{slug}-{n}-{k}-dark.svg" if FIGURE_DARK_MIME in data else ""
            if dark:
                figures[dark] = _joined(data[FIGURE_DARK_MIME]).encode()
            outputs.append(Output(kind="figure", figure=name, text=_joined(data.get("text/plain", "")),
                                  figure_dark=dark))
        elif "image/png" in data:
            name = f"{slug}-{n}-{k}.png"
            figures[name] = base64.b64decode(_joined(data["image/png"]))
            outputs.append(Output(kind="figure", figure=name, text=_joined(data.get("text/plain", ""))))
        elif "text/html" in data and "<table" in _joined(data["text/html"]):
            html = _joined(data["text/html"])
            outputs.append(Output(kind="html", text=html))
        elif "text/plain" in data:
            text = strip_ansi(_joined(data["text/plain"]))
            outputs.append(Output(kind="text", text=text, texts=text.splitlines()))
    return outputs, figures, error
