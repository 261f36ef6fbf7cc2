"""Stage 7b: the generated scripts beside the sources (``<source>/code/<slug>.py``),
written only when their text changed.

``<cache>/scripts.json`` remembers, for each script, the digest of the page text it was
made from and the state of its file as the build left it (size, times, inode, see
:func:`sitebuild.store.files.file_state`). A script whose page text, engine and file are all as
remembered is neither generated nor read again; any other is generated, compared with
its file and written when they differ. A state too recent to vouch for the file's
contents is not remembered, so the next build reads that file."""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path

from sitebuild.execution.extract import script_path, script_text
from sitebuild.store.files import is_racy, path_state, write_text_atomic
from sitebuild.store.memo import Memo

SCRIPTS_FILE = "scripts.json"


def scripts_memo(path: Path, engine: str) -> Memo:
    """The memo of the scripts (path -> [page text digest, file state]) made by ``engine``."""
    return Memo(path, "generated scripts", engine)


def _holds(path: Path, text: str) -> bool:
    try:
        return path.read_text(encoding="utf-8") == text
    except (OSError, ValueError):
        return False


def update_scripts(pages: list, memo_path: Path, engine: str) -> list[Path]:
    """Bring the script of every page with code up to date; return the paths written.
    ``engine`` is the state of the engine's code (what a script is made with besides its
    page), ``memo_path`` the memo of the last build's scripts."""
    store = scripts_memo(memo_path, engine)
    memo, remembered, written = store.load({}), {}, []
    started_ns = time.time_ns()
    for page in pages:
        if not page.code_blocks:
            continue
        name = os.path.join(os.path.dirname(page.path), "code", page.slug + ".py")  # script_path(page)
        source = hashlib.sha256(page.text.encode("utf-8")).hexdigest()
        state = path_state(name)
        if state is not None and memo.get(name) == [source, state]:
            remembered[name] = [source, state]
            continue
        path, text = script_path(page), script_text(page)
        if state is None or not _holds(path, text):
            write_text_atomic(path, text)
            written.append(path)
            state = path_state(path)
        if state is not None and not is_racy(state, started_ns):
            remembered[name] = [source, state]
    if remembered != memo:
        store.save(remembered)
    return written
