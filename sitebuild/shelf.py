"""A folder of pickles, one per name, each stamped with a format and a version (the
engine's state): what the page memo and the quote memo keep between builds. One file per
name means a build that changed one page reads every file but writes only that page's;
a file of another format or version, or one that cannot be read, counts as missing."""

from __future__ import annotations

import hashlib
import os
import pickle
from pathlib import Path

from sitebuild.files import write_bytes_atomic

SUFFIX = ".pickle"


class Shelf:
    """Values by name under ``folder``, valid for one ``fmt`` and ``version``."""

    def __init__(self, folder: Path, fmt: int, version: str):
        self.folder, self.fmt, self.version = folder, fmt, version

    def _path(self, name: str) -> Path:
        return self.folder / (hashlib.sha256(name.encode()).hexdigest()[:32] + SUFFIX)

    def get(self, name: str) -> object | None:
        """The value stored under ``name``, or None."""
        try:
            with open(self._path(name), "rb") as stream:
                data = pickle.load(stream)
        except Exception:  # missing, truncated or written by another version: not there
            return None
        if not isinstance(data, dict) or (data.get("format"), data.get("version"), data.get("name")) != \
                (self.fmt, self.version, name):
            return None
        return data.get("value")

    def put(self, name: str, value: object) -> None:
        """Store ``value`` under ``name`` (atomically)."""
        data = {"format": self.fmt, "version": self.version, "name": name, "value": value}
        write_bytes_atomic(self._path(name), pickle.dumps(data, protocol=pickle.HIGHEST_PROTOCOL))

    def keep_only(self, names: set[str]) -> None:
        """Remove the files of every name not in ``names``."""
        wanted = {self._path(name).name for name in names}
        try:
            present = [entry for entry in os.scandir(self.folder) if entry.name.endswith(SUFFIX)]
        except OSError:
            return
        for entry in present:
            if entry.name not in wanted:
                Path(entry.path).unlink(missing_ok=True)
