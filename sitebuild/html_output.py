"""HTML outputs (pandas tables) made safe: an allow-list of table elements is kept, every
other tag is dropped and its text escaped (style sheets are dropped whole), so ``<script>`` in an output shows as text."""

from __future__ import annotations

from html import escape
from html.parser import HTMLParser

TABLE_TAGS = frozenset({"table", "thead", "tbody", "tfoot", "tr", "th", "td", "caption"})
KEPT_ATTRIBUTES = frozenset({"colspan", "rowspan"})


class _TableSanitiser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.cells: list[str] = []
        self._cell: list[str] | None = None
        self._in_style = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._in_style = tag == "style"
        if tag not in TABLE_TAGS:
            return
        kept = "".join(f' {k}="{escape(v or "")}"' for k, v in attrs if k in KEPT_ATTRIBUTES and (v or "").isdigit())
        self.parts.append(f"<{tag}{kept}>")
        if tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        self._in_style = False
        if tag not in TABLE_TAGS:
            return
        self.parts.append(f"</{tag}>")
        if tag in ("td", "th") and self._cell is not None:
            self.cells.append(" ".join("".join(self._cell).split()))
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._in_style:
            return
        self.parts.append(escape(data))
        if self._cell is not None:
            self._cell.append(data)


def _parse(html: str) -> _TableSanitiser:
    parser = _TableSanitiser()
    parser.feed(html)
    parser.close()
    return parser


def sanitise_table_html(html: str) -> str:
    """Return ``html`` with only table markup kept; all other markup is shown as text."""
    return "".join(_parse(html).parts)


def table_cell_texts(html: str) -> list[str]:
    """The text of every ``th``/``td`` cell, in document order (whitespace collapsed)."""
    return _parse(html).cells
