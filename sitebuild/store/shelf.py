"""A folder of pickled values by name, stamped with a format and a version (the engine's
state): what the page memo and the quote memo keep between builds.

Most values sit together in one pack file, read with a single open; a value stored since
the pack was written is a file of its own beside it (and wins over the pack). So a build
that changed one page reads two or three files and writes one. Once more than
:data:`COMPACT_AFTER` values sit beside the pack, or the pack holds a name no longer
wanted or cannot be used, :meth:`Shelf.keep_only` writes a new pack and removes the
single files. Each file is a memo (see :mod:`sitebuild.store.memo`): one of another kind
or version, or one that cannot be read, counts as missing.

A process that builds again and again (the preview) hands each shelf its
:class:`ResidentValues`: the values it read or stored stay in memory, so a rebuild reads
no file of the shelf at all. A shelf holds values that are functions of their keys (the
caller checks each value it gets against what it stands for), so a value kept in memory
is as good as the file; a value the caller receives that way is shared between builds and
must never be changed."""

from __future__ import annotations

import hashlib
import os
import pickle
from pathlib import Path

from msgspec import Struct, field

from sitebuild.store.files import write_bytes_atomic
from sitebuild.store.memo import IGNORED, unwrap, wrap

SUFFIX = ".pickle"
PACK = "pack" + SUFFIX
#: How many values may sit beside the pack before it is written again.
COMPACT_AFTER = 16


class ResidentValues(Struct):
    """The values of one shelf that the builds of one process share in memory: by name, for
    the shelf's kind and version (another version empties it), with the names the shelf was
    last told to keep (None before the first build)."""

    values: dict[str, object] = field(default_factory=dict)
    version: str = ""
    kept: frozenset[str] | None = None

    def of_version(self, version: str) -> ResidentValues:
        """This memory, emptied first when it holds another version's values."""
        if version != self.version:
            self.values, self.version, self.kept = {}, version, None
        return self


class Shelf:
    """Values by name under ``folder``, valid for one ``kind`` (what the shelf keeps, with
    its format) and ``version``; with ``resident``, the values read or stored are kept in
    memory for the next build of this process."""

    def __init__(self, folder: Path, kind: str | int, version: str, resident: ResidentValues | None = None):
        self.folder, self.kind, self.version = folder, str(kind), version
        self.resident = resident.of_version(f"{kind}\0{version}") if resident is not None else None
        self._pack: dict | None = None
        self._pack_unusable = False  # a pack file is there but cannot be used: write it again
        self._singles: set[str] | None = None  # the file names of the values beside the pack
        self._file_names: dict[str, str] = {}

    def _file_name(self, name: str) -> str:
        if name not in self._file_names:
            self._file_names[name] = hashlib.sha256(name.encode()).hexdigest()[:32] + SUFFIX
        return self._file_names[name]

    def _path(self, name: str) -> Path:
        return self.folder / self._file_name(name)

    def _kind(self, name: str | None) -> str:
        """The memo kind of one file: the shelf's kind and the value's name (None: the pack)."""
        return f"{self.kind} pack" if name is None else f"{self.kind} value {name}"

    def _dumps(self, name: str | None, value: object) -> bytes:
        return pickle.dumps(wrap(self._kind(name), self.version, value), protocol=pickle.HIGHEST_PROTOCOL)

    def _single_names(self) -> set[str]:
        if self._singles is None:
            try:
                self._singles = {entry.name for entry in os.scandir(self.folder)
                                 if entry.name.endswith(SUFFIX) and entry.name != PACK}
            except OSError:
                self._singles = set()
        return self._singles

    def _pack_values(self) -> dict:
        if self._pack is None:
            self._pack = {}
            try:
                with open(self.folder / PACK, "rb") as stream:
                    data = pickle.load(stream)
            except FileNotFoundError:
                return self._pack
            except Exception:  # truncated, or unreadable by this Python
                self._pack_unusable = True
                return self._pack
            values = unwrap(data, self._kind(None), self.version, lambda value: isinstance(value, dict))
            if values is IGNORED:  # another kind, format or version of the engine
                self._pack_unusable = True
            else:
                self._pack = values
        return self._pack

    def _read_single(self, path: Path, name: str) -> object:
        try:
            with open(path, "rb") as stream:
                data = pickle.load(stream)
        except Exception:  # truncated, or unreadable by this Python
            return IGNORED
        return unwrap(data, self._kind(name), self.version)

    def get(self, name: str) -> object | None:
        """The value stored under ``name``, or None (from memory, when it is resident)."""
        if self.resident is not None and name in self.resident.values:
            return self.resident.values[name]
        value = self._read(name)
        if self.resident is not None and value is not None:
            self.resident.values[name] = value
        return value

    def _read(self, name: str) -> object | None:
        file_name = self._file_name(name)
        if file_name in self._single_names():
            value = self._read_single(self.folder / file_name, name)
            if value is not IGNORED:
                return value
        return self._pack_values().get(name)

    def put(self, name: str, value: object) -> None:
        """Store ``value`` under ``name`` (atomically), in a file of its own."""
        path = self._path(name)
        write_bytes_atomic(path, self._dumps(name, value))
        self._single_names().add(path.name)
        if self.resident is not None:
            self.resident.values[name] = value

    def put_many(self, values: dict[str, object]) -> None:
        """Store several values: each in a file of its own when they are few, else in a new
        pack (the values packed already and these), so that storing hundreds writes one file."""
        if len(values) <= COMPACT_AFTER:
            for name, value in values.items():
                self.put(name, value)
            return
        pack = {**self._pack_values(), **values}
        write_bytes_atomic(self.folder / PACK, self._dumps(None, pack))
        self._pack, self._pack_unusable = pack, False
        singles = self._single_names()
        for name in values:  # an older value beside the pack would win over the new one
            if self._file_name(name) in singles:
                (self.folder / self._file_name(name)).unlink(missing_ok=True)
                singles.discard(self._file_name(name))
        if self.resident is not None:
            self.resident.values.update(values)

    def keep_only(self, names: set[str]) -> None:
        """Forget every name not in ``names``; write a new pack when it is due. A resident
        shelf told to keep the same names as last time only looks whether a pack is due
        (without reading the pack)."""
        if self.resident is not None and self.resident.kept == frozenset(names) \
                and len(self._single_names()) <= COMPACT_AFTER:
            return
        wanted = {self._file_name(name): name for name in names}
        singles = self._single_names()
        for file_name in sorted(singles - set(wanted)):
            (self.folder / file_name).unlink(missing_ok=True)
        singles &= set(wanted)
        stale = not set(self._pack_values()) <= set(names) or self._pack_unusable
        if len(singles) > COMPACT_AFTER or stale:
            self._compact(wanted)
        if self.resident is not None:
            self.resident.values = {name: value for name, value in self.resident.values.items() if name in names}
            self.resident.kept = frozenset(names)

    def _compact(self, wanted: dict[str, str]) -> None:
        values = {}
        for file_name, name in wanted.items():
            value = self.get(name)
            if value is not None:
                values[name] = value
        write_bytes_atomic(self.folder / PACK, self._dumps(None, values))
        self._pack, self._pack_unusable = values, False
        for file_name in sorted(self._single_names()):
            (self.folder / file_name).unlink(missing_ok=True)  # the pack holds the same value now
        self._singles = set()
