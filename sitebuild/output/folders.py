"""The folders the engine writes: it only ever replaces or deletes an output folder or a
cache it made itself (a marker file inside says so) or an empty one; two builds on the
same output or cache take turns (an ``fcntl.flock`` lock); and it removes the temporary
folders a killed build left behind."""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

from sitebuild.errors import FolderRefused

OUTPUT_MARKER = ".sitebuild-output"
CACHE_MARKER = ".sitebuild-cache"
#: What a site built before markers existed always holds: such a folder is ours too.
LEGACY_SITE = ("report.html", "static/search-index.js")
LEGACY_CACHE = ("pages", "file-hashes.json", "last-build.json", "steps.json")
TEMPORARY_PARTS = (".tmp-new-", ".tmp-old-")


def _is_empty(folder: Path) -> bool:
    return not any(folder.iterdir())


def is_ours(folder: Path, marker: str) -> bool:
    """True when ``folder`` holds the engine's ``marker``, or is a site or cache the
    engine made before markers existed."""
    if (folder / marker).is_file():
        return True
    if marker == OUTPUT_MARKER:
        return all((folder / name).is_file() for name in LEGACY_SITE)
    names = {p.name for p in folder.iterdir()}
    return bool(names) and names <= set(LEGACY_CACHE) | {"index.json", "build.lock"} and "pages" in names


def check_folder(folder: Path, marker: str, option: str, protected: tuple[Path, ...] = ()) -> None:
    """Raise :class:`FolderRefused` unless ``folder`` is missing, empty, or the engine's.

    ``protected`` folders (the repository root, the sources, the templates) are refused
    even when empty, as is any folder that contains one of them."""
    folder = folder.resolve()
    for place in protected:
        place = place.resolve()
        if folder == place or folder in place.parents:
            what = "is" if folder == place else "holds"
            raise FolderRefused(f"{option} {folder}: refused, this folder {what} {place}, which the build reads; "
                                f"nothing was changed. Choose a folder of its own")
    if not folder.exists():
        return
    if not folder.is_dir():
        raise FolderRefused(f"{option} {folder}: expected a folder, found a file; nothing was changed")
    if _is_empty(folder) or is_ours(folder, marker):
        return
    raise FolderRefused(f"{option} {folder}: this folder was not made by the build (it has no {marker} file) "
                        f"and is not empty, so it is never replaced or deleted; nothing was changed. "
                        f"Choose another folder, or empty it yourself")


def mark(folder: Path, marker: str) -> None:
    """Put the engine's marker in ``folder`` (creating the folder)."""
    folder.mkdir(parents=True, exist_ok=True)
    if not (folder / marker).exists():
        (folder / marker).write_text("Made by the site build (sitebuild); it may replace or delete this folder.\n")


def remove_leftovers(out: Path) -> list[Path]:
    """Delete the temporary folders that a killed build left beside ``out`` (only those
    holding the engine's marker); return them. Call while holding the output lock."""
    removed = []
    if not out.parent.is_dir():
        return removed
    for candidate in out.parent.glob(f"{out.name}.tmp-*"):
        if candidate.is_dir() and any(part in candidate.name for part in TEMPORARY_PARTS) \
                and (candidate / OUTPUT_MARKER).is_file():
            shutil.rmtree(candidate, ignore_errors=True)
            removed.append(candidate)
    return removed


def remove_folder(folder: Path, marker: str, option: str, protected: tuple[Path, ...] = ()) -> bool:
    """Delete ``folder`` if it is the engine's (see :func:`check_folder`); True if removed."""
    check_folder(folder, marker, option, protected)
    if not folder.exists():
        return False
    shutil.rmtree(folder)
    return True


def output_lock_path(out: Path) -> Path:
    """The lock file of output folder ``out``: outside it (the folder is swapped) and
    outside the repository (it must not show in ``git status``)."""
    name = hashlib.sha256(str(out.resolve()).encode()).hexdigest()[:20]
    return Path(tempfile.gettempdir()) / f"sitebuild-locks-{os.getuid()}" / f"{name}.lock"


@contextmanager
def locked(path: Path, what: str, say: Callable[[str], None]) -> Iterator[None]:
    """Hold an exclusive lock on ``path`` for the block; if another build holds it, say
    so (naming it) and wait."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+", encoding="utf-8") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "another build"
            say(f"waiting for {holder} to finish with {what}")
            fcntl.flock(handle, fcntl.LOCK_EX)
        handle.seek(0)
        handle.truncate()
        handle.write(f"the build of process {os.getpid()} (started {time.strftime('%H:%M:%S')})\n")
        handle.flush()
        try:
            yield
        finally:
            handle.seek(0)
            handle.truncate()
            fcntl.flock(handle, fcntl.LOCK_UN)


@contextmanager
def build_locks(out: Path, cache_dir: Path, say: Callable[[str], None]) -> Iterator[None]:
    """The output folder's lock, then the cache's (always in that order)."""
    with locked(output_lock_path(out), str(out), say):
        mark(cache_dir, CACHE_MARKER)
        with locked(cache_dir / "build.lock", str(cache_dir), say):
            yield


def clean(out: Path, cache_dir: Path, protected: tuple[Path, ...], say: Callable[[str], None]) -> list[Path]:
    """``clean``: delete the output folder (and the temporary folders of interrupted
    builds beside it) and the cache, once both are known to be the engine's; nothing is
    deleted if either is refused. Returns what was removed."""
    check_folder(out, OUTPUT_MARKER, "--out", protected)
    check_folder(cache_dir, CACHE_MARKER, "--cache-dir", protected)
    removed = []
    with locked(output_lock_path(out), str(out), say):
        removed += remove_leftovers(out)
        if remove_folder(out, OUTPUT_MARKER, "--out", protected):
            removed.append(out)
        if cache_dir.exists():
            with locked(cache_dir / "build.lock", str(cache_dir), say):
                shutil.rmtree(cache_dir)
            removed.append(cache_dir)
    return removed
