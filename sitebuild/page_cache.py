"""Stage 1, remembered: the parsed pages of the last build. A page is a function of its
text, its path and the engine's code (with the versions of the Markdown parser, its
plugins and PyYAML), so a page whose text digest and path are unchanged is taken from
``<cache>/pages.pickle`` instead of being parsed again; every other page is read as
:func:`sitebuild.read.read_pages` reads it (a page with an error is never remembered).
An unreadable memo is ignored (every page is parsed)."""

from __future__ import annotations

import hashlib
import os
import pickle
import tempfile
from pathlib import Path

PAGES_FILE = "pages.pickle"
PAGES_FORMAT = 1
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


def _load(path: Path, version: str) -> dict:
    try:
        with open(path, "rb") as stream:
            data = pickle.load(stream)
    except Exception:  # missing, truncated or written by another version: parse every page
        return {}
    if not isinstance(data, dict) or data.get("format") != PAGES_FORMAT or data.get("version") != version:
        return {}
    pages = data.get("pages")
    return pages if isinstance(pages, dict) else {}


def write_bytes_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder and a rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def read_pages_cached(source: Path, root: Path, cache_dir: Path) -> tuple[list, list]:
    """:func:`sitebuild.read.read_pages`, with each unchanged page from the memo of the
    last build in ``cache_dir``; the memo is rewritten when a page changed."""
    from sitebuild.errors import SourceError
    from sitebuild.read import read_page

    version = engine_version()
    memo_path = cache_dir / PAGES_FILE
    known = _load(memo_path, version)
    pages, errors, kept = [], [], {}
    for path in sorted(source.glob("*.md")):
        try:
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
        except OSError:
            digest = None
        key = (str(path.resolve()), str(root), digest)
        found = known.get(str(path))
        if digest is not None and found is not None and found[0] == key:
            page = found[1]
        else:
            try:
                page = read_page(path, root)
            except SourceError as error:
                errors.append(error)
                continue
            if hashlib.sha256(page.text.encode("utf-8")).hexdigest() != digest:
                key = None  # changed while being read (or not UTF-8 as written): not remembered
        pages.append(page)
        if key is not None:
            kept[str(path)] = (key, page)
    if kept.keys() != known.keys() or any(kept[name][0] != known[name][0] for name in kept):
        write_bytes_atomic(memo_path, pickle.dumps({"format": PAGES_FORMAT, "version": version, "pages": kept},
                                                   protocol=pickle.HIGHEST_PROTOCOL))
    return pages, errors
