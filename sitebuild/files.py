"""Writing files so that a failure never leaves half a file behind."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def file_mode(path: Path) -> int:
    """The permissions for a file written in place of ``path``: those of the file it
    replaces, or 0o644 for a new one (a temporary file is created private)."""
    try:
        return path.stat().st_mode & 0o777
    except OSError:
        return 0o644


def write_text_atomic(path: str | Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder and a rename,
    so readers see the old file or the new one, never a mix; the folder is created if
    needed and the file keeps its permissions."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as stream:
            stream.write(text)
        os.chmod(temporary, file_mode(path))
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
