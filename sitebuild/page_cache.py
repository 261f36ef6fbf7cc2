"""Stage 1, remembered: the parsed pages of the last build. A page is a function of its
text, its path and the engine's code (with the versions of the Markdown parser, its
plugins and PyYAML), so a page whose file and path are unchanged is taken from
``<cache>/parsed/`` (see :mod:`sitebuild.shelf`) instead of being
parsed again; every other page is read as :func:`sitebuild.read.read_pages` reads it (a
page with an error is never remembered). An unreadable memo is ignored (the page is
parsed)."""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path

from sitebuild.files import file_state, is_racy
from sitebuild.shelf import Shelf

PAGES_DIR = "parsed"
PAGES_FORMAT = 3
ENGINE_DIR = Path(__file__).resolve().parent


def engine_version() -> str:
    """The state (size, times, inode) of every module of the engine and the versions of
    markdown-it-py, mdit-py-plugins and PyYAML: what shapes a parsed page or a quote check
    besides the page itself."""
    import markdown_it
    import mdit_py_plugins
    import yaml

    lines = [f"{markdown_it.__version__} {mdit_py_plugins.__version__} {yaml.__version__}"]
    for path in sorted(ENGINE_DIR.rglob("*.py")):
        stat = path.stat()
        lines.append(f"{path}:{stat.st_size}:{stat.st_mtime_ns}:{stat.st_ctime_ns}:{stat.st_ino}")
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()


def _state(path: Path) -> list[int] | None:
    try:
        return file_state(os.stat(path))
    except OSError:
        return None


def _digest(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def _remembered(found: object, key: tuple, state: list[int] | None, path: Path) -> object | None:
    """The remembered page when it still holds: the file's state (size, times, inode) is
    the one recorded, and was then old enough to vouch for its contents; or else its
    bytes have the recorded digest."""
    if not (isinstance(found, tuple) and len(found) == 5 and found[0] == key) or state is None:
        return None
    _, recorded, trusted, digest, page = found
    if trusted and recorded == state:
        return page
    return page if _digest(path) == digest else None


def read_pages_cached(source: Path, root: Path, cache_dir: Path) -> tuple[list, list]:
    """:func:`sitebuild.read.read_pages`, with each unchanged page from the memo of the
    last build in ``cache_dir``; only a page parsed now is written to it. An unchanged
    page is known by its file's state, not read (see :func:`_remembered`)."""
    from sitebuild.errors import SourceError
    from sitebuild.read import read_page

    shelf = Shelf(cache_dir / PAGES_DIR, PAGES_FORMAT, engine_version())
    pages, errors, names = [], [], set()
    started_ns = time.time_ns()
    for path in sorted(source.glob("*.md")):
        state, key = _state(path), (str(path), str(root))
        page = _remembered(shelf.get(str(path)), key, state, path)
        if page is None:
            try:
                page = read_page(path, root)
            except SourceError as error:
                errors.append(error)
                continue
            digest = hashlib.sha256(page.text.encode("utf-8")).hexdigest()
            if state is not None and state == _state(path) and digest == _digest(path):
                shelf.put(str(path), (key, state, not is_racy(state, started_ns), digest, page))
            # else: changed while being read (or not UTF-8 as written): not remembered
        pages.append(page)
        names.add(str(path))
    shelf.keep_only(names)
    return pages, errors
