"""The benchmark's cache entries: pickles read leniently and written atomically."""

from __future__ import annotations

import os
import pickle
import tempfile
from pathlib import Path
from typing import Any

UNREADABLE = (OSError, pickle.UnpicklingError, EOFError, ValueError, TypeError, AttributeError)


def load_entry(path: Path) -> Any | None:
    """The object pickled at ``path``, or None when it is absent or unreadable (a corrupt
    entry is recomputed, never trusted)."""
    try:
        with open(path, "rb") as handle:
            return pickle.load(handle)
    except UNREADABLE:
        return None


def store_entry(path: Path, value: Any) -> None:
    """Pickle ``value`` to ``path`` through a temporary file and a rename, so a reader never
    sees half an entry; the temporary file is removed if writing fails."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            pickle.dump(value, handle, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
