"""The folders the engine writes: it only ever replaces or deletes an output folder or a
cache it made itself (a marker file inside says so, nothing else does) or an empty one;
it refuses, before touching anything, an output inside a source folder (the explainers,
the templates, a folder holding files git tracks, the repository's ``.git``) and an
output and a cache that overlap; two builds on the same output or cache take turns (an
``fcntl.flock`` lock); and it removes the temporary folders a killed build left behind."""

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
from sitebuild.store.files import CACHE_MARKER, OUTPUT_MARKER

TEMPORARY_PARTS = (".tmp-new-", ".tmp-old-")

#: A folder that is, holds or (for the sources) lies inside a folder the build reads.
PROTECTED = ("{option} {folder}: refused, this folder {what} {place}, which the build reads; nothing was changed. "
             "Choose a folder of its own")
#: The output inside a folder of the root that holds files tracked by git.
TRACKED = ("--out {folder}: refused, it is inside {place}, which holds files tracked by git (sources); nothing was "
           "changed. Choose a folder of its own, such as site/ in the root")
#: The output and the cache overlap.
OVERLAP = ("--out {out} and --cache-dir {cache}: refused, {relation}; nothing was changed. "
           "Give the site and the cache a folder each, neither inside the other")
SAME, OUT_IN_CACHE, CACHE_IN_OUT = ("they are the same folder", "the output is inside the cache",
                                    "the cache is inside the output")
NOT_A_FOLDER = "{option} {folder}: expected a folder, found a file; nothing was changed"
NOT_OURS = ("{option} {folder}: this folder was not made by the build (it has no {marker} file) and is not empty, "
            "so it is never replaced or deleted; nothing was changed. Choose another folder, or empty it yourself")


def _is_empty(folder: Path) -> bool:
    return not any(folder.iterdir())


def is_ours(folder: Path, marker: str) -> bool:
    """True when ``folder`` holds the engine's ``marker``: nothing else makes a folder ours."""
    return (folder / marker).is_file()


def check_folder(folder: Path, marker: str, option: str, protected: tuple[Path, ...] = (),
                 sources: tuple[Path, ...] = ()) -> None:
    """Raise :class:`FolderRefused` unless ``folder`` is missing, empty, or the engine's.

    ``protected`` folders (the repository root) are refused even when empty, as is any
    folder that contains one of them; ``sources`` (the explainers, the templates) are
    refused too, and so is any folder inside one of them."""
    folder = folder.resolve()
    for place, refuse_inside in [(p, False) for p in protected] + [(s, True) for s in sources]:
        what = _relation(folder, place.resolve(), refuse_inside)
        if what:
            raise FolderRefused(PROTECTED.format(option=option, folder=folder, what=what, place=place.resolve()))
    if not folder.exists():
        return
    if not folder.is_dir():
        raise FolderRefused(NOT_A_FOLDER.format(option=option, folder=folder))
    if _is_empty(folder) or is_ours(folder, marker):
        return
    raise FolderRefused(NOT_OURS.format(option=option, folder=folder, marker=marker))


def _relation(folder: Path, place: Path, refuse_inside: bool) -> str:
    """How ``folder`` meets ``place`` in a way that refuses it ("is", "holds", "is inside"), or ""."""
    if folder == place:
        return "is"
    if folder in place.parents:
        return "holds"
    return "is inside" if refuse_inside and place in folder.parents else ""


def check_apart(out: Path, cache_dir: Path) -> None:
    """Raise :class:`FolderRefused` when the output and the cache are one folder or one
    lies inside the other (each build would replace the other with itself)."""
    out, cache_dir = out.resolve(), cache_dir.resolve()
    relation = (SAME if out == cache_dir else OUT_IN_CACHE if cache_dir in out.parents
                else CACHE_IN_OUT if out in cache_dir.parents else "")
    if relation:
        raise FolderRefused(OVERLAP.format(out=out, cache=cache_dir, relation=relation))


def tracked_place(folder: Path, root: Path) -> Path | None:
    """The folder of ``root`` that ``folder`` lies inside and that holds files tracked by
    git (or the repository's ``.git`` itself); None when there is none. A folder right
    under the root needs no question to git: it is the output's own, and one that is not
    the engine's is refused by its marker."""
    folder, root = folder.resolve(), root.resolve()
    if not folder.is_relative_to(root) or len(folder.relative_to(root).parts) < 2:
        return None
    top = root / folder.relative_to(root).parts[0]
    if top.name == ".git":
        return top
    import subprocess  # only for a folder below the root: the fast path never asks git

    try:
        listed = subprocess.run(["git", "-C", str(root), "ls-files", "-z", "--", top.name], capture_output=True,
                                timeout=30)
    except (OSError, subprocess.SubprocessError):  # no git here: nothing is known to be tracked
        return None
    return top if listed.returncode == 0 and listed.stdout else None


def check_build_folders(out: Path | None, cache_dir: Path, root: Path, sources: tuple[Path, ...]) -> None:
    """Every refusal of a build's folders, before anything is touched: the output
    (``None`` when nothing is written) and the cache must be apart, neither may be, hold
    or lie inside a source folder, the output may not lie inside a folder git tracks, and
    each must be missing, empty or the engine's."""
    if out is not None:
        check_apart(out, cache_dir)
        check_folder(out, OUTPUT_MARKER, "--out", (root,), sources)
        place = tracked_place(out, root)
        if place is not None:
            raise FolderRefused(TRACKED.format(folder=out.resolve(), place=place))
    check_folder(cache_dir, CACHE_MARKER, "--cache-dir", (root,), sources)


def mark(folder: Path, marker: str) -> None:
    """Put the engine's marker in ``folder`` (creating the folder)."""
    folder.mkdir(parents=True, exist_ok=True)
    if not (folder / marker).exists():
        (folder / marker).write_text("Made by the site build (sitebuild); it may replace or delete this folder.\n")


def remove_leftovers(out: Path) -> list[Path]:
    """Delete the temporary folders that a killed build left beside ``out`` (only those
    holding the engine's marker); return them. Call while holding the output lock. A
    replaced site of this process (a preview's last rebuild), still being deleted in the
    background, is not a leftover."""
    removed = []
    if not out.parent.is_dir():
        return removed
    own = f"{out.name}.tmp-old-{os.getpid()}-"
    for candidate in out.parent.glob(f"{out.name}.tmp-*"):
        if candidate.is_dir() and any(part in candidate.name for part in TEMPORARY_PARTS) \
                and not candidate.name.startswith(own) and (candidate / OUTPUT_MARKER).is_file():
            shutil.rmtree(candidate, ignore_errors=True)
            removed.append(candidate)
    return removed


def remove_folder(folder: Path, marker: str, option: str, protected: tuple[Path, ...] = (),
                  sources: tuple[Path, ...] = ()) -> bool:
    """Delete ``folder`` if it is the engine's (see :func:`check_folder`); True if removed."""
    check_folder(folder, marker, option, protected, sources)
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
    with open(path, "a+b", buffering=0) as handle:  # unbuffered: closing it writes nothing
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().decode("utf-8", "replace").strip() or "another build"
            say(f"waiting for {holder} to finish with {what}")
            fcntl.flock(handle, fcntl.LOCK_EX)
        _say_who_holds(handle, path)
        try:
            yield
        finally:
            handle.seek(0)
            handle.truncate()
            fcntl.flock(handle, fcntl.LOCK_UN)


def _say_who_holds(handle, path: Path) -> None:
    """Write into the lock file which build holds it (an ``OSError`` names the lock file)."""
    try:
        handle.seek(0)
        handle.truncate()
        handle.write(f"the build of process {os.getpid()} (started {time.strftime('%H:%M:%S')})\n".encode())
    except OSError as error:
        raise OSError(error.errno, error.strerror, str(path)) from error


@contextmanager
def build_locks(out: Path, cache_dir: Path, say: Callable[[str], None]) -> Iterator[None]:
    """The output folder's lock, then the cache's (always in that order)."""
    with locked(output_lock_path(out), str(out), say):
        mark(cache_dir, CACHE_MARKER)
        with locked(cache_dir / "build.lock", str(cache_dir), say):
            yield


def clean(out: Path, cache_dir: Path, root: Path, sources: tuple[Path, ...], say: Callable[[str], None]) -> list[Path]:
    """``clean``: delete the output folder (and the temporary folders of interrupted
    builds beside it) and the cache, once both are known to be the engine's; nothing is
    deleted if either is refused. Returns what was removed."""
    check_build_folders(out, cache_dir, root, sources)
    removed = []
    with locked(output_lock_path(out), str(out), say):
        removed += remove_leftovers(out)
        if remove_folder(out, OUTPUT_MARKER, "--out", (root,), sources):
            removed.append(out)
        if cache_dir.exists():
            with locked(cache_dir / "build.lock", str(cache_dir), say):
                shutil.rmtree(cache_dir)
            removed.append(cache_dir)
    return removed
