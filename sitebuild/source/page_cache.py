"""Stage 1, remembered: the parsed pages of the last build. A page is a function of its
text, its path and the engine's code (with the versions of the Markdown parser, its
plugins and PyYAML), so a page whose file and path are unchanged is taken from
``<cache>/parsed/`` (see :mod:`sitebuild.store.shelf`) instead of being
parsed again; every other page is read as :func:`sitebuild.source.read.read_pages` reads it (a
page with an error is never remembered). An unreadable memo is ignored (the page is
parsed)."""

from __future__ import annotations

import hashlib
import os
import time
from functools import lru_cache
from pathlib import Path

from sitebuild.store import memo
from sitebuild.store.files import file_sha256, is_racy, names_ending, path_state, stat_line
from sitebuild.store.shelf import ResidentValues, Shelf

PAGES_DIR = "parsed"
PAGES_FORMAT = 6


@lru_cache(maxsize=1)
def engine_version() -> str:
    """The engine's version (:func:`sitebuild.store.memo.engine_version`, looked up afresh),
    the versions of markdown-it-py and mdit-py-plugins and the state of PyYAML's module:
    what shapes a parsed page or a quote check besides the page itself. Looked up once per
    build (a build starts with ``engine_version.cache_clear()``)."""
    import markdown_it
    import mdit_py_plugins

    memo.engine_version.cache_clear()
    lines = [f"{markdown_it.__version__} {mdit_py_plugins.__version__}", _yaml_state(), memo.engine_version()]
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()


def _digest(path: str) -> str | None:
    try:
        return file_sha256(path)
    except OSError:
        return None


def _remembered(found: object, key: tuple) -> tuple | None:
    """The memo's record of a page (state, trusted, digest, page), if it is one of this file."""
    if isinstance(found, tuple) and len(found) == 5 and found[0] == key:
        return found[1:]
    return None


def _still_holds(record: tuple, state: list[int] | None, path: str) -> bool:
    """True when the remembered page is the file's: its state (size, times, inode) is the
    one recorded, and was then old enough to vouch for its contents; or else its bytes
    have the recorded digest."""
    recorded, trusted, digest, _ = record
    if state is None:
        return False
    return (trusted and recorded == state) or _digest(path) == digest


def _yaml_state() -> str:
    """The state of PyYAML's module, found without loading it (a new version is a new file)."""
    from importlib.util import find_spec

    spec = find_spec("yaml")
    return stat_line(spec.origin) if spec is not None and spec.origin else "no yaml"


def read_pages_cached(source: Path, root: Path, cache_dir: Path,
                      resident: ResidentValues | None = None) -> tuple[list, list]:
    """:func:`sitebuild.source.read.read_pages`, with each unchanged page from the memo of the
    last build in ``cache_dir``; only a page parsed now is written to it. An unchanged
    page is known by its file's state, not read (see :func:`_still_holds`). With
    ``resident``, the memo's records stay in memory between the builds of this process
    (the pages it gives are then shared by those builds, and never changed by them)."""
    from sitebuild.errors import SourceError
    from sitebuild.source.read import read_page

    shelf = Shelf(cache_dir / PAGES_DIR, f"parsed pages {PAGES_FORMAT}", engine_version(), resident)
    pages, errors, names = [], [], set()
    started_ns, folder, root_text = time.time_ns(), os.path.join(source, ""), str(root)
    for name in names_ending(source, ".md"):
        path = folder + name  # the text of source / name: a Path only for a page read now
        state, key = path_state(path), (path, root_text)
        record = _remembered(shelf.get(path), key)
        page = record[3] if record is not None and _still_holds(record, state, path) else None
        if page is None:
            try:
                page = read_page(Path(path), root, previous=record[3] if record is not None else None)
            except SourceError as error:
                errors.extend(error.each())
                continue
            digest = hashlib.sha256(page.text.encode("utf-8")).hexdigest()
            if state is not None and state == path_state(path) and digest == _digest(path):
                shelf.put(path, (key, state, not is_racy(state, started_ns), digest, page))
            # else: changed while being read (or not UTF-8 as written): not remembered
        pages.append(page)
        names.add(path)
    shelf.keep_only(names)
    return pages, errors
