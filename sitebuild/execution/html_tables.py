"""The cells of the HTML tables in an output (a pandas table's ``text/html``), row by row.

Imported only where a table is read (when an execution is stored, or a quote is located
in a table), so that a build taking every output from the cache never loads
:mod:`html.parser`."""

from __future__ import annotations

from html.parser import HTMLParser


class _CellParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.rows: list[list[tuple[str, bool]]] = []
        self.spans: list[list[tuple[int, int]]] = []
        self._cell: list[str] | None = None
        self._header = False
        self._span = (1, 1)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "tr":
            self.rows.append([])
            self.spans.append([])
        elif tag in ("td", "th") and self.rows:
            self._cell, self._header = [], tag == "th"
            named = dict(attrs)
            self._span = (_span(named.get("rowspan")), _span(named.get("colspan")))

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None:
            self.rows[-1].append((" ".join("".join(self._cell).split()), self._header))
            self.spans[-1].append(self._span)
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def _span(value: str | None) -> int:
    """A ``rowspan`` or ``colspan`` attribute as a count (1 when absent or not a number)."""
    try:
        return max(1, int(value or 1))
    except ValueError:
        return 1


def table_spans(html: str) -> list[list[tuple[int, int]]]:
    """The (rowspan, colspan) of each cell of :func:`table_cells`, row by row."""
    parser = _CellParser()
    parser.feed(html)
    parser.close()
    return parser.spans


def table_cells(html: str) -> list[list[tuple[str, bool]]]:
    """Each ``<tr>`` of ``html`` in document order, as its cells: (text with whitespace
    collapsed, whether it is a ``<th>``)."""
    parser = _CellParser()
    parser.feed(html)
    parser.close()
    return parser.rows
