"""The one way the engine remembers something between builds.

A memo is a file that holds a value together with the two things that say whose it is:
its ``kind`` (what it remembers, such as "file hashes") and its ``version`` (what makes an
older one wrong: the engine's version, see :func:`engine_version`, or the memo's own
format where its contents do not depend on the engine's code). :func:`unwrap` is the one
place that decides whether what was read can be used: a memo that cannot be read or
parsed, that belongs to another kind (foreign) or to another version, or whose value is
not what its reader expects, is ignored and the reader starts empty. Writes are atomic
(:func:`sitebuild.store.files.write_text_atomic`): a reader sees the old memo or the
new one, never half of one.

:class:`Memo` is one JSON file; :class:`sitebuild.store.shelf.Shelf`, a folder of
pickled values by name, wraps and unwraps each of its files the same way.

Examples
--------
>>> import tempfile; from pathlib import Path
>>> path = Path(tempfile.mkdtemp()) / "hashes.json"
>>> Memo(path, "file hashes", "1").save({"a.csv": "9f86d0"})
True
>>> Memo(path, "file hashes", "1").load({})
{'a.csv': '9f86d0'}
>>> Memo(path, "file hashes", "2").load({})
{}
"""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, TypeVar

from sitebuild.store.files import tree_lines, write_text_atomic

__all__ = ["Memo", "wrap", "unwrap", "engine_version", "ENGINE_DIR", "IGNORED"]

#: The engine's own code (every stage): its state is the engine's version.
ENGINE_DIR = Path(__file__).resolve().parent.parent
#: What :func:`unwrap` returns for a memo that must be ignored.
IGNORED: Any = object()

T = TypeVar("T")


@lru_cache(maxsize=1)
def engine_version() -> str:
    """The digest of the state (size, times, inode) of every module of the engine: it
    changes with any edit or reinstall of the engine. Standard library only, a few stat
    calls; looked up once per process until :func:`engine_version.cache_clear`."""
    return hashlib.sha256("\n".join(tree_lines(ENGINE_DIR, ".py", None, recursive=True)).encode()).hexdigest()


def wrap(kind: str, version: str, value: object) -> dict:
    """What a memo file holds: ``value`` stamped with its ``kind`` and ``version``."""
    return {"memo": kind, "version": version, "value": value}


def unwrap(raw: object, kind: str, version: str, valid: Callable[[Any], bool] | None = None) -> Any:
    """The value inside ``raw`` (what a memo file held), or :data:`IGNORED` when it is not
    a memo of ``kind`` and ``version`` or its value fails ``valid``. The one place where a
    foreign, outdated or damaged memo is turned away."""
    if not isinstance(raw, dict) or raw.get("memo") != kind or raw.get("version") != version or "value" not in raw:
        return IGNORED
    value = raw["value"]
    if valid is not None and not valid(value):
        return IGNORED
    return value


class Memo:
    """One memo in a JSON file at ``path``, of ``kind`` and ``version``.

    :meth:`load` returns the remembered value or the given empty one; :meth:`save` writes
    a value atomically, and not at all when the file already holds exactly that text."""

    def __init__(self, path: Path, kind: str, version: str):
        self.path, self.kind, self.version = Path(path), kind, str(version)
        self._text: str | None = None  # the text last read or written

    def load(self, empty: T, valid: Callable[[Any], bool] | None = None) -> T:
        """The remembered value, or ``empty`` when there is none that can be used. The value
        must be of the type of ``empty`` and pass ``valid`` (when given)."""
        try:
            self._text = self.path.read_text(encoding="utf-8")
            raw = json.loads(self._text)
        except (OSError, ValueError):
            return empty
        value = unwrap(raw, self.kind, self.version,
                       lambda found: isinstance(found, type(empty)) and (valid is None or valid(found)))
        return empty if value is IGNORED else value

    def save(self, value: object) -> bool:
        """Remember ``value`` (JSON, keys sorted); False when the file held it already."""
        text = json.dumps(wrap(self.kind, self.version, value), sort_keys=True)
        if text == self._text:
            return False
        if self._text is None:
            try:
                if self.path.read_text(encoding="utf-8") == text:
                    self._text = text
                    return False
            except (OSError, ValueError):
                pass
        write_text_atomic(self.path, text)
        self._text = text
        return True

    def forget(self) -> None:
        """Remove the memo (nothing happens when there is none)."""
        self.path.unlink(missing_ok=True)
        self._text = None
