"""The quote lock: which output line backs each verified number of the prose.

One JSON file in the source folder (``explainers/quotes.lock.json``), committed with the
pages, written sorted and indented so that a change reads as a small diff::

    {
      "version": 3,
      "quotes": [
        {"page": "explainers/x.md", "quote": "72%", "context": "significant in # of ...",
         "occurrence": 0, "line": 42, "block": 3, "output": 0, "output_line": 2,
         "index": 1, "shape": "share significant: #", "value": "0.72",
         "label": "share significant"}
      ]
    }

An entry is keyed by the words of the number's sentence (``context``: the sentence with
its numbers masked) and ``occurrence``, the number's place among the page's numbers in
sentences of those words (not its line, so edits above it do not break the binding, and
not its text, so a number edited in place keeps its memory). The lock is memory, not
evidence (see :mod:`sitebuild.quotes.binding`): it settles a tie between outputs its words
name as well, in favour of the ``label`` it remembers, and a number bound elsewhere is
reported as rebound; it never overrides what the words choose. ``build`` and
``check --fix`` write it, ``check`` only reads it.

A lock of version 1 or 2 (which keyed an entry by the number's text) is read, its
entries checked, and then forgotten: the next passing build writes version 3.
"""

from __future__ import annotations

import json
from json.encoder import encode_basestring as _encode_string
from operator import attrgetter
from pathlib import Path
from typing import Any, Iterable

from msgspec import Struct

from sitebuild.errors import SourceError
from sitebuild.store.files import is_racy, path_state, write_text_atomic

LOCK_VERSION = 3
READABLE_VERSIONS = (1, 2, 3)
#: Fields an entry may lack (added after version 1), with the value they then take.
OPTIONAL_FIELDS = {"label": ""}
#: The lock last read in this process, by its path and file state (a preview reads it on
#: every rebuild), and the entries last turned into text with that text.
_READ: dict[tuple, tuple[LockEntry, ...]] = {}
_TEXT: dict[tuple[LockEntry, ...], str] = {}


class LockEntry(Struct, frozen=True):
    """One verified number and the output position that backs it."""

    page: str
    quote: str
    context: str
    occurrence: int
    line: int
    block: int
    output: int
    output_line: int
    index: int
    shape: str
    value: str
    label: str = ""

    def sort_key(self) -> tuple[Any, ...]:
        """Order of entries in the file: by page, then where the number stands."""
        return (self.page, self.line, self.quote, self.context, self.occurrence)


_FIELD_TYPES = {name: (int if LockEntry.__annotations__[name] == "int" else str)
                for name in LockEntry.__struct_fields__}
_FIELD_VALUES = attrgetter(*_FIELD_TYPES)


def load_lock(path: str | Path) -> list[LockEntry]:
    """Read the lock file at ``path``; a missing file is an empty lock.

    Raises
    ------
    SourceError
        When the file is not valid JSON or an entry lacks a field or has a field of
        the wrong type; the message names the file, the entry and the field. A file
    in the state it was last read in (and old enough for its state to vouch for it) is
    not read again."""
    path = Path(path)
    state = path_state(path)
    if state is None:
        return []
    key = (str(path), *state)
    if key in _READ:
        return list(_READ[key])
    text = path.read_text(encoding="utf-8")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise SourceError(path, f"the quote lock is not valid JSON ({error.msg}); fix it or delete the file "
                          "and run `python build.py check --fix` to rebuild it", line=error.lineno) from error
    entries = _entries_from(path, data)
    if not is_racy(state):
        _READ.clear()
        _READ[key] = tuple(entries)
    return entries


def _entries_from(path: Path, data: object) -> list[LockEntry]:
    if not isinstance(data,
                      dict) or data.get("version") not in READABLE_VERSIONS or not isinstance(data.get("quotes"), list):
        raise SourceError(path, f'expected an object {{"version": {LOCK_VERSION}, "quotes": [...]}}, '
                          f"found {_describe(data)}; delete the file to rebuild it")
    entries = [_entry_from(path, position, item) for position, item in enumerate(data["quotes"])]
    return entries if data["version"] == LOCK_VERSION else []  # older locks keyed numbers otherwise: forgotten


def _describe(data: object) -> str:
    if isinstance(data, dict):
        return f"an object with version {data.get('version')!r} and keys {sorted(data)}"
    return f"a {type(data).__name__}"


def _entry_from(path: Path, position: int, item: object) -> LockEntry:
    if not isinstance(item, dict):
        raise SourceError(path, f"quotes[{position}]: expected an object, found a {type(item).__name__}")
    values: dict[str, Any] = {}
    for name, kind in _FIELD_TYPES.items():
        if name not in item and name in OPTIONAL_FIELDS:
            values[name] = OPTIONAL_FIELDS[name]
            continue
        if name not in item:
            raise SourceError(path, f"quotes[{position}]: the field {name!r} is missing")
        value = item[name]
        if not isinstance(value, kind) or isinstance(value, bool):
            raise SourceError(path, f"quotes[{position}].{name}: expected {kind.__name__}, found {value!r}")
        values[name] = value
    unknown = sorted(set(item) - set(_FIELD_TYPES))
    if unknown:
        raise SourceError(path, f"quotes[{position}]: unknown field(s) {unknown}")
    return LockEntry(**values)


def lock_text(entries: Iterable[LockEntry]) -> str:
    """Return the file text for ``entries``: sorted, indented, one trailing newline (the
    text last made is remembered, with its entries)."""
    entries = tuple(entries)
    if entries not in _TEXT:
        ordered = sorted(entries, key=LockEntry.sort_key)
        _TEXT.clear()
        _TEXT[entries] = _indented_json(ordered)
    return _TEXT[entries]


def _indented_json(ordered: list[LockEntry]) -> str:
    """``json.dumps({"version": ..., "quotes": [...]}, indent=2, ensure_ascii=False) + "\\n"``,
    byte for byte (a test compares them), made several times faster.

    With ``indent``, the json module encodes in pure Python: a few milliseconds for the 300
    entries of a large site, on every build that changes one of them. Every field is a
    string or an integer, so each string is encoded by the module's own C encoder and the
    layout is one format string."""
    if not ordered:
        return f'{{\n  "version": {LOCK_VERSION},\n  "quotes": []\n}}\n'
    layout = "    {\n" + ",\n".join(f'      "{name}": %s' for name in _FIELD_TYPES) + "\n    }"
    encoders = [_encode_string if kind is str else str for kind in _FIELD_TYPES.values()]
    objects = [layout % tuple(encode(value) for encode, value in zip(encoders, _FIELD_VALUES(entry)))
               for entry in ordered]
    return f'{{\n  "version": {LOCK_VERSION},\n  "quotes": [\n' + ",\n".join(objects) + "\n  ]\n}\n"


def save_lock(path: str | Path, entries: Iterable[LockEntry]) -> None:
    """Write ``entries`` to ``path`` atomically (a temporary file, then a rename), so a
    failure leaves the previous lock as it was."""
    write_text_atomic(path, lock_text(entries))


def replace_page_entries(entries: Iterable[LockEntry], page: str, new_entries: Iterable[LockEntry]) -> list[LockEntry]:
    """Return the lock with ``page``'s entries replaced by ``new_entries`` (other pages,
    for example pages that failed to build, keep theirs)."""
    kept = [entry for entry in entries if entry.page != page]
    return sorted(kept + list(new_entries), key=LockEntry.sort_key)


def drop_missing_pages(entries: Iterable[LockEntry], pages: Iterable[str]) -> list[LockEntry]:
    """Return the lock without the entries of pages that no longer exist."""
    existing = set(pages)
    return [entry for entry in entries if entry.page in existing]
