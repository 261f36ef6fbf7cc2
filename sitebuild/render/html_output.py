"""HTML outputs (pandas tables) made safe: an allow-list of table elements is kept, every
other tag is dropped and its text escaped (style sheets are dropped whole), so ``<script>`` in an output shows as text.
The empty top-left header cell gets a label only screen readers hear ("Row label"); any
other empty header cell (the blanks beside an index name) becomes a plain empty ``td``, so
a screen reader announces no heading for it instead of "No heading" again and again."""

from __future__ import annotations

import re
from functools import lru_cache
from html import escape
from html.parser import HTMLParser

TABLE_TAGS = frozenset({"table", "thead", "tbody", "tfoot", "tr", "th", "td", "caption"})
KEPT_ATTRIBUTES = frozenset({"colspan", "rowspan"})
HYPHENATED = re.compile(r"[^\s<>&;]*-[^\s<>&;]*")
ROW_LABEL_HEADER = '<span class="visually-hidden">Row label</span>'


class _TableSanitiser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.cells: list[str] = []
        self._cell: list[str] | None = None
        self._in_style = False
        self._row_cells = 0
        self._rows = 0
        self._cell_start = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._in_style = tag == "style"
        if tag not in TABLE_TAGS:
            return
        if tag == "tr":
            self._row_cells = 0
            self._rows += 1
        kept = "".join(f' {k}="{escape(v or "")}"' for k, v in attrs if k in KEPT_ATTRIBUTES and (v or "").isdigit())
        self.parts.append(f"<{tag}{kept}>")
        if tag in ("td", "th"):
            self._cell = []
            self._cell_start = len(self.parts) - 1

    def handle_endtag(self, tag: str) -> None:
        self._in_style = False
        if tag not in TABLE_TAGS:
            return
        if tag in ("td", "th") and self._cell is not None:
            text = " ".join("".join(self._cell).split())
            if tag == "th" and not text and self._rows == 1 and self._row_cells == 0:
                self.parts.append(ROW_LABEL_HEADER)
            elif tag == "th" and not text:
                self.parts[self._cell_start] = self.parts[self._cell_start].replace("<th", "<td", 1)
                tag = "td"
            self.cells.append(text)
            self._cell = None
            self._row_cells += 1
        self.parts.append(f"</{tag}>")

    def handle_data(self, data: str) -> None:
        if self._in_style:
            return
        text = escape(data)
        if self._cell is not None:  # cells wrap at spaces only, never inside "1.3e-91" or "-0.42"
            text = HYPHENATED.sub(r'<span class="nobreak">\g<0></span>', text)
        self.parts.append(text)
        if self._cell is not None:
            self._cell.append(data)


def _parse(html: str) -> _TableSanitiser:
    parser = _TableSanitiser()
    parser.feed(html)
    parser.close()
    return parser


@lru_cache(maxsize=256)
def sanitise_table_html(html: str) -> str:
    """Return ``html`` with only table markup kept; all other markup is shown as text.
    Kept for the tables last seen: the preview renders an edited page's unchanged tables
    again on every save."""
    return "".join(_parse(html).parts)


def table_cell_texts(html: str) -> list[str]:
    """The text of every ``th``/``td`` cell, in document order (whitespace collapsed)."""
    return _parse(html).cells
