"""The one annotation type shared by the checker (which makes them) and the renderer
(which draws them): a mark on a piece of the prose, a checked number or a checked claim.
Neither side imports the other; both import this module."""

from __future__ import annotations

from msgspec import Struct


class Annotation(Struct, frozen=True):
    """A mark on the prose.

    ``text`` is the marked text (for a claim, its words); ``status`` is what the check
    concluded: verified, stale, unverified or ambiguous for a number, holds or broken
    for a claim. ``anchor`` is the id of the output line that backs a verified number;
    ``title`` a short tooltip; ``id`` the mark's own unique id on the page; ``note`` the
    plain-text explanation a popover shows (the output line a number quotes and where,
    or a claim's condition and the values it was evaluated with); ``kind`` is "quote"
    or "claim"."""

    text: str
    status: str
    anchor: str = ""
    title: str = ""
    id: str = ""
    note: str = ""
    kind: str = "quote"


#: Marks for one page: (index of an inline token in the page's tokens, index of a child
#: of it) -> [(offset in that child's content, Annotation)], offsets ascending. A number
#: mark sits on a text child; a claim mark on the ``span_open`` child of its
#: ``[words]{check="..."}`` span, at offset 0.
PageMarks = dict[tuple[int, int], list[tuple[int, Annotation]]]
