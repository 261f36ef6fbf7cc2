"""Writing files so that a failure never leaves half a file behind, and telling whether a
file or folder changed without reading it."""

from __future__ import annotations

import hashlib
import os
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

#: Files changed this recently may change again within the same timestamp tick: their
#: state cannot vouch for their contents (a stamp is not written, a hash not remembered).
#: The long window is for file systems that keep whole seconds (FAT keeps two); the short
#: one covers the clock tick (a few ms) of those that keep nanoseconds.
RACY_NS = 2_000_000_000
FINE_RACY_NS = 20_000_000
#: The files that make an output folder and a cache folder the build's own: only a folder
#: holding its marker (or an empty one) is ever replaced or deleted.
OUTPUT_MARKER = ".sitebuild-output"
CACHE_MARKER = ".sitebuild-cache"


def file_state(stat: os.stat_result) -> list[int]:
    """What identifies a file's contents without reading it: size, modification and
    change times (ns), inode and device. Any write moves the change time, which no
    program can set back (unlike the modification time)."""
    return [stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_ino, stat.st_dev]


def path_state(path: str | Path) -> list[int] | None:
    """The :func:`file_state` of the file at ``path``, or None when it cannot be seen."""
    try:
        return file_state(os.stat(path))
    except OSError:
        return None


def is_racy(state: Sequence[int], now_ns: int | None = None) -> bool:
    """True when the file of ``state`` changed too recently (before ``now_ns``, default
    now) for its state to be trusted."""
    coarse = state[1] % 1_000_000_000 == 0 and state[2] % 1_000_000_000 == 0
    window = RACY_NS if coarse else FINE_RACY_NS
    return (time.time_ns() if now_ns is None else now_ns) - max(state[1], state[2]) < window


def listing_digest(folder: Path) -> str:
    """sha256 of the sorted names in ``folder`` (of None when it cannot be listed), as the
    kernel computes it for a folder a page listed."""
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        names = None
    return hashlib.sha256(repr(names).encode()).hexdigest()


def package_stamp(path: str) -> list | None:
    """The state of an installed package's file (a reinstall replaces it), or None."""
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return [path, stat.st_size, stat.st_mtime_ns, stat.st_ino]


def file_mode(path: Path) -> int:
    """The permissions for a file written in place of ``path``: those of the file it
    replaces, or 0o644 for a new one (a temporary file is created private)."""
    try:
        return path.stat().st_mode & 0o777
    except OSError:
        return 0o644


def file_sha256(path: str | Path) -> str:
    """The sha256 of the file at ``path``, as hex (read in chunks by :func:`hashlib.file_digest`)."""
    with open(path, "rb") as stream:
        return hashlib.file_digest(stream, "sha256").hexdigest()


def stat_line(path: str | Path, newest: list[int] | None = None) -> str:
    """``path`` with its size, modification and change times and inode (or "missing"):
    what a fingerprint of the file's state holds. ``newest`` receives the latest time seen."""
    try:
        state = file_state(os.stat(path))
    except OSError:
        return f"{path}:missing"
    if newest is not None:
        newest[0] = max(newest[0], state[1], state[2])
    return f"{path}:{state[0]}:{state[1]}:{state[2]}:{state[3]}"


def tree_lines(folder: Path, suffix: str, newest: list[int] | None, recursive: bool = False) -> list[str]:
    """The stat lines of the files under ``folder`` whose names end in ``suffix`` (in it
    alone, or with ``recursive`` in every folder below too), in a fixed order."""
    return [stat_line(path, newest) for path in sorted(_files(str(folder), suffix, recursive))]


def _files(folder: str, suffix: str, recursive: bool) -> list[str]:
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return []
    found = []
    for entry in entries:
        if entry.is_file() and entry.name.endswith(suffix):
            found.append(entry.path)
        elif recursive and entry.is_dir(follow_symlinks=False):
            found += _files(entry.path, suffix, recursive)
    return found


def names_ending(folder: str | Path, suffix: str) -> list[str]:
    """The names in ``folder`` that end in ``suffix``, sorted: what ``folder.glob("*" +
    suffix)`` finds (hidden names too, folders and broken links as well; nothing when
    ``folder`` cannot be listed), without a Path made and compared per name.

    Examples
    --------
    >>> names_ending("/no/such/folder", ".md")
    []
    """
    try:
        return sorted(name for name in os.listdir(folder) if name.endswith(suffix))
    except OSError:
        return []


def write_text_atomic(path: str | Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder and a rename,
    so readers see the old file or the new one, never a mix; the folder is created if
    needed and the file keeps its permissions."""
    write_bytes_atomic(path, text.encode("utf-8"))


def write_bytes_atomic(path: str | Path, data: bytes) -> None:
    """:func:`write_text_atomic` for bytes. An ``OSError`` names ``path`` when the system
    named no file (a full disk fails a write, not an open)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        os.chmod(temporary, file_mode(path))
        os.replace(temporary, path)
    except OSError as error:  # a failed write() names no file: name the one being written
        Path(temporary).unlink(missing_ok=True)
        if error.filename is None:
            raise OSError(error.errno, error.strerror, str(path)) from error
        raise
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def git_entry(path: Path) -> Path | None:
    """The ``.git`` of the repository holding ``path`` (a folder, or the file a worktree
    has), looked for from ``path`` up; None outside a repository."""
    for folder in (path, *path.resolve().parents):
        if (folder / ".git").exists():
            return folder / ".git"
    return None
