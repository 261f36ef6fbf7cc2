"""What a page's execution depended on, and whether it still holds: typed records.

The kernel records, as the page runs (see ``kernel_setup.py``), one section per kind of
traced input: each file it read with the file's state at that moment, the folders it
listed, the environment variables it read, the installed packages it imported, and the
files it wrote. :func:`entry_deps` turns that record into :class:`Deps`, frozen: one
record per input (:class:`FileRead`, :class:`Listing`, :class:`EnvRead`,
:class:`Package`, :class:`FileWritten`), each of which knows

- how it is stale (:meth:`Record.stale`, "" while it holds, else a few words such as
  "`data.csv` changed"),
- the state line the "nothing changed" stamp keeps for it (:meth:`Record.state`, and
  :meth:`Record.state_now` for the same line taken again),
- the paths the preview watches for it (:meth:`Record.watched`),
- how it is kept in a cache entry (:meth:`Record.to_json`, :meth:`Record.from_json`).

A new kind of traced input is one recorder in the kernel (its section of the report) and
one subclass of :class:`Record` here, registered with :func:`record_type`; see
CONTRIBUTING.md."""

from __future__ import annotations

import glob
import os
import sys
from functools import cached_property
from pathlib import Path
from types import MappingProxyType
from typing import Any, ClassVar, Iterable, Mapping

from msgspec import Struct, field
from msgspec.structs import replace

from sitebuild.execution.states import (
    file_state_now,
    listing_now,
    package_now,
    state_location,
    variable_now,
    written_now,
)
from sitebuild.store.files import file_sha256, file_state, is_racy, listing_digest, package_stamp
from sitebuild.store.memo import Memo


class FileHasher:
    """sha256 of files, remembered by their full state (size, times, inode, device), so
    an unchanged file is read once; a file changed too recently is never remembered."""

    def __init__(self, root: Path, memo: dict | None = None):
        self.root = root
        self._base = os.fspath(root)  # joined as text: a build checks a thousand files, pathlib's joins cost more
        self.memo: dict[str, list] = memo if isinstance(memo, dict) else {}
        self.changed = False
        #: The state each file had when it was last hashed or checked (for the stamp).
        self.seen: dict[str, list[int]] = {}

    def digest(self, rel: str, expected_state: list[int] | None = None) -> str | None:
        """The sha256 of ``rel`` (relative to the root, or absolute), or None when it is
        missing, or when ``expected_state`` is given and the file is no longer in it."""
        path = os.path.join(self._base, rel)
        try:
            state = file_state(os.stat(path))
        except OSError:
            return None
        if expected_state is not None and state != list(expected_state):
            return None
        known = self.memo.get(rel)
        if isinstance(known, list) and len(known) == 2 and known[0] == state:
            self.seen[rel] = state
            return known[1]
        try:
            digest = file_sha256(path)
            after = file_state(os.stat(path))
        except OSError:
            return None
        if after != state:  # written while being read
            return None
        self.seen[rel] = state
        if not is_racy(state):
            self.memo[rel] = [state, digest]
            self.changed = True
        return digest


def installed_version(name: str) -> str | None:
    """The installed version of distribution ``name`` (None when unknown)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(name)
    except (PackageNotFoundError, ValueError):
        return None


def _site_dirs_state() -> list:
    """The folders packages are installed in (site-packages, dist-packages), with their
    modification times: installing or removing a distribution adds or removes a folder
    in one of them."""
    state = []
    for folder in sorted(f for f in set(sys.path) if f.rstrip("/").endswith(("site-packages", "dist-packages"))):
        try:
            state.append([folder, os.stat(folder).st_mtime_ns])
        except OSError:
            continue
    return state


#: The memo of :func:`package_versions` in the build's cache.
PACKAGE_VERSIONS_FILE = "package-versions.json"
#: The format of that memo.
PACKAGE_TABLE_FORMAT = "1"


def package_versions(modules: set[str], memo_path: Path | None = None) -> tuple[tuple[str, str], ...]:
    """(distribution, version) of the installed distributions that provide ``modules``
    (top-level import names, such as ``sklearn`` -> ``scikit-learn``). Scanning every
    installed distribution takes most of a second, so the table is kept in ``memo_path``
    (when given) while the install folders are unchanged (:func:`package_table` fills it
    ahead of time)."""
    if not modules:
        return ()
    table = package_table(memo_path)
    found = {dist: version for module in modules for dist, version in table.get(module, [])}
    return tuple(sorted(found.items(), key=lambda item: item[0].lower()))


def package_table(memo_path: Path | None) -> dict[str, list[list[str]]]:
    """Top-level import name -> [[distribution, version], ...] for every installed
    distribution: from ``memo_path`` while the install folders are unchanged, else
    scanned now and kept there (``None``: scanned, not kept)."""
    state = _site_dirs_state()
    memo = Memo(memo_path, "package table", PACKAGE_TABLE_FORMAT) if memo_path is not None else None
    found = memo.load({}, lambda value: value.get("state") == state and isinstance(value.get("table"), dict)) \
        if memo is not None else {}
    if found:
        return found["table"]
    table = _scan_distributions()
    if memo is not None:
        memo.save({"state": state, "table": table})
    return table


def _scan_distributions() -> dict[str, list[list[str]]]:
    """Top-level import name -> [[distribution, version], ...], scanned from every installed distribution."""
    from importlib import metadata  # only here: importing it costs more than reading the memo

    table: dict[str, list[list[str]]] = {}
    versions: dict[str, str | None] = {}
    for module, dists in metadata.packages_distributions().items():
        for dist in dists:
            if dist not in versions:
                try:
                    versions[dist] = metadata.version(dist)
                except metadata.PackageNotFoundError:
                    versions[dist] = None
            if versions[dist] is not None:
                table.setdefault(module, []).append([dist, versions[dist]])
    return table


def expand_inputs(patterns: tuple[str, ...], root: Path) -> list[str]:
    """The files matched by declared ``inputs`` (paths or globs, relative to ``root`` or
    absolute), as record names: relative inside the root, absolute elsewhere."""
    found: set[str] = set()
    for pattern in patterns:
        full = pattern if os.path.isabs(pattern) else str(root / pattern)
        matches = glob.glob(full, recursive=True) if glob.has_magic(full) else [full]
        for match in matches:
            path = Path(match)
            if path.is_dir():
                found.update(str(p) for p in path.rglob("*") if p.is_file())
            else:
                found.add(str(path))
    return sorted(_record_name(Path(p), root) for p in found)


def _record_name(path: Path, root: Path) -> str:
    full = path.absolute()
    return full.relative_to(root).as_posix() if full.is_relative_to(root) else str(full)


# -- The records -------------------------------------------------------------------------

class CheckContext(Struct):
    """What checking a record against the present needs: the file hasher (its root is the
    repository), the environment the kernels get, and a memo shared by the lookups of one
    build (folder digests, package states, verdicts on shared package sets)."""

    hasher: FileHasher
    env: Mapping[str, str] = field(default_factory=dict)
    memo: dict = field(default_factory=dict)

    @property
    def root(self) -> Path:
        """The repository root, which record names are relative to."""
        return self.hasher.root


class Record(Struct, frozen=True):
    """One input a page was seen to depend on. Subclasses are frozen structs whose first
    field, ``name``-like, names the input within its kind; ``kind`` is the section of the
    kernel's report they come from and of the cache entry they are kept in."""

    kind: ClassVar[str] = ""
    #: The name of the field that names the input (the first; set by :func:`record_type`).
    key_field: ClassVar[str] = ""

    @property
    def key(self) -> str:
        """The record's name within its kind (a path, a variable's name...)."""
        return getattr(self, self.key_field)

    @classmethod
    def from_report(cls, section: Any, context: CheckContext) -> Iterable[Record]:
        """The records of the kernel's report ``section`` (its key is ``kind``), as of now."""
        raise NotImplementedError

    def stale(self, context: CheckContext) -> str:
        """Why the record no longer holds, in a few words ("" while it holds)."""
        raise NotImplementedError

    def refreshed(self, context: CheckContext) -> Record:
        """The record as just checked by :meth:`stale` (a file's state as seen now)."""
        return self

    @property
    def trusted(self) -> bool:
        """False when the record cannot vouch for the execution (a file that moved while the page ran)."""
        return True

    def state(self) -> Any:
        """The state line of the "nothing changed" stamp: cheap to take again, JSON."""
        raise NotImplementedError

    def fresh(self, now_ns: int | None = None) -> bool:
        """False when the state line is too recent, at ``now_ns`` (default now), to vouch for
        the input (no stamp then)."""
        return True

    @classmethod
    def state_now(cls, key: str, recorded: Any, root: Path, env: Mapping[str, str]) -> Any:
        """The state line of the input named ``key`` as it is now (``recorded``: as the
        stamp holds it), equal to the recorded one while nothing changed. A kind may give
        a plain function instead (``state_now = staticmethod(f)``): one defined in a module
        that imports no record type, such as :mod:`sitebuild.execution.states`, keeps the
        up-to-date check from importing them (the stamp names where it lives)."""
        raise NotImplementedError

    def watched(self) -> tuple[str, ...]:
        """The names (relative to the root, or absolute) of what the preview watches for it:
        they follow from :attr:`key` alone."""
        return ()

    def to_json(self) -> Any:
        """The record's value in a cache entry (its key is the entry's name for it)."""
        raise NotImplementedError

    @classmethod
    def from_json(cls, key: str, value: Any) -> Record:
        """The record kept in a cache entry as ``key``: ``value``."""
        raise NotImplementedError

    @classmethod
    def stale_group(cls, records: tuple[Record, ...], context: CheckContext, group: str | None = None) -> str:
        """The first reason among ``records`` (all of this kind); ``group`` names a stored set
        of records many entries share, whose verdict may be remembered."""
        return next((reason for record in records if (reason := record.stale(context))), "")


#: The kinds of traced input, by the name of their section (in the order their staleness is checked).
RECORD_TYPES: dict[str, type[Record]] = {}
#: A record type whose kind is empty or taken.
RECORD_KIND_ERROR = "record type {name}: its kind {kind!r} must be new and not empty"


def record_type(cls: type[Record]) -> type[Record]:
    """Register a kind of traced input (a class decorator)."""
    if not cls.kind or cls.kind in RECORD_TYPES or cls.kind in ENTRY_FIELDS:
        raise ValueError(RECORD_KIND_ERROR.format(name=cls.__name__, kind=cls.kind))
    RECORD_TYPES[cls.kind] = cls
    cls.key_field = _first_field(cls)
    return cls


def _may_not_vouch(cls: type[Record]) -> bool:
    """False for a kind whose records are always trusted and fresh (the base class's answers)."""
    return cls.fresh is not Record.fresh or cls.trusted is not Record.trusted


def _first_field(cls: type) -> str:
    return cls.__struct_fields__[0]


def _tuple(value: Any) -> tuple | None:
    return None if value is None else tuple(value)


#: Names of a cache entry's ``deps`` that are not record kinds.
ENTRY_FIELDS = ("engine", "inputs")


@record_type
class FileRead(Record, frozen=True):
    """A file the page read, imported or looked for: its sha256 (None: it was absent), the
    state it had when that digest was taken, and whether it moved while the page ran (an
    execution that read a moving file is kept but never trusted)."""

    path: str
    digest: str | None
    state_seen: tuple[int, ...] | None = None
    moved: bool = False
    kind: ClassVar[str] = "files"

    @classmethod
    def from_report(cls, section: dict, context: CheckContext) -> Iterable[FileRead]:
        for name, seen in section.items():
            if seen.get("changed"):
                yield cls(name, None, None, moved=True)
            elif seen.get("stat") is None:
                yield cls(name, None)
            else:
                now = context.hasher.digest(name, expected_state=seen["stat"])
                moved = now is None or bool(seen.get("sha256") and seen["sha256"] != now)
                yield cls(name, None, None, moved=True) if moved else cls(name, now, tuple(seen["stat"]))

    def stale(self, context: CheckContext) -> str:
        if self.moved:
            return f"`{self.path}` changed while the page ran"
        now = context.hasher.digest(self.path)
        if self.digest is None:
            return f"`{self.path}` appeared" if now is not None else ""
        return "" if now == self.digest else f"`{self.path}` {'was removed' if now is None else 'changed'}"

    def refreshed(self, context: CheckContext) -> FileRead:
        seen = context.hasher.seen.get(self.path)
        if (seen is None and self.state_seen is None) or (seen is not None and tuple(seen) == self.state_seen):
            return self  # as it was: most files, on most builds
        return replace(self, state_seen=_tuple(seen))

    @property
    def trusted(self) -> bool:
        return not self.moved

    def state(self) -> list[int] | None:
        return None if self.state_seen is None else list(self.state_seen)

    def fresh(self, now_ns: int | None = None) -> bool:
        return self.state_seen is None or not is_racy(self.state_seen, now_ns)

    state_now = staticmethod(file_state_now)

    def watched(self) -> tuple[str, ...]:
        return (self.path,)

    def to_json(self) -> list:
        return [self.digest, self.state(), self.moved]

    @classmethod
    def from_json(cls, key: str, value: list) -> FileRead:
        digest, state, moved = value
        return cls(key, digest, _tuple(state), bool(moved))


@record_type
class Listing(Record, frozen=True):
    """A folder the page listed: the digest of the names it held (see :func:`listing_digest`)."""

    folder: str
    digest: str
    kind: ClassVar[str] = "listings"

    @classmethod
    def from_report(cls, section: dict, context: CheckContext) -> Iterable[Listing]:
        return (cls(folder, digest) for folder, digest in section.items())

    def stale(self, context: CheckContext) -> str:
        memo = context.memo
        if ("listing", self.folder) not in memo:
            memo["listing", self.folder] = listing_digest(context.root / self.folder)
        return "" if memo["listing", self.folder] == self.digest else f"the files in `{self.folder}` changed"

    def state(self) -> str:
        return self.digest

    state_now = staticmethod(listing_now)

    def watched(self) -> tuple[str, ...]:
        return (self.folder,)

    def to_json(self) -> str:
        return self.digest

    @classmethod
    def from_json(cls, key: str, value: str) -> Listing:
        return cls(key, value)


@record_type
class EnvRead(Record, frozen=True):
    """An environment variable the page read, with its value then (None: it was not set)."""

    name: str
    value: str | None
    kind: ClassVar[str] = "env"

    @classmethod
    def from_report(cls, section: dict, context: CheckContext) -> Iterable[EnvRead]:
        return (cls(name, value) for name, value in section.items())

    def stale(self, context: CheckContext) -> str:
        return "" if context.env.get(self.name) == self.value else f"env {self.name} changed"

    def state(self) -> str | None:
        return self.value

    state_now = staticmethod(variable_now)

    def to_json(self) -> str | None:
        return self.value

    @classmethod
    def from_json(cls, key: str, value: str | None) -> EnvRead:
        return cls(key, value)


@record_type
class Package(Record, frozen=True):
    """An installed top-level package the page imported: its version and the state of its
    file (``stamp``: path, size, modification time, inode; a reinstall replaces the file)."""

    name: str
    version: str | None
    stamp: tuple
    kind: ClassVar[str] = "packages"

    @classmethod
    def from_report(cls, section: dict, context: CheckContext) -> Iterable[Package]:
        for name, info in section.items():
            stamp = package_stamp(info["path"])
            if stamp is not None:
                yield cls(name, info.get("version") or installed_version(name), tuple(stamp))

    def stale(self, context: CheckContext) -> str:
        path, memo = self.stamp[0], context.memo
        if ("package", path) not in memo:
            memo["package", path] = _tuple(package_stamp(path))
        if memo["package", path] == self.stamp:
            return ""
        new = installed_version(self.name)
        old = self.version
        return f"{self.name} {old} -> {new}" if old and new and old != new else f"package {self.name} changed"

    @classmethod
    def stale_group(cls, records: tuple[Record, ...], context: CheckContext, group: str | None = None) -> str:
        if group is not None and ("package set", group) in context.memo:
            return context.memo["package set", group]
        verdict = super().stale_group(records, context)
        if group is not None:
            context.memo["package set", group] = verdict
        return verdict

    def state(self) -> list:
        return list(self.stamp)

    state_now = staticmethod(package_now)

    def to_json(self) -> dict:
        return {"stamp": list(self.stamp), "version": self.version}

    @classmethod
    def from_json(cls, key: str, value: dict) -> Package:
        return cls(key, value.get("version"), tuple(value["stamp"]))


@record_type
class FileWritten(Record, frozen=True):
    """A file the page wrote (made, truncated, appended to, renamed onto or removed), and
    whether it was there once the page had run. One that was there runs the page again
    when it is gone, so that the pages reading it find it (see
    :mod:`sitebuild.execution.order`). Never watched: the build writes it."""

    path: str
    present: bool = True
    kind: ClassVar[str] = "writes"

    @classmethod
    def from_report(cls, section: list, context: CheckContext) -> Iterable[FileWritten]:
        return (cls(name, (context.root / name).is_file()) for name in sorted(set(section)))

    def stale(self, context: CheckContext) -> str:
        if not self.present or (context.root / self.path).is_file():
            return ""
        return f"`{self.path}`, which it writes, is missing"

    def state(self) -> bool:
        return self.present

    state_now = staticmethod(written_now)

    def to_json(self) -> bool:
        return self.present

    @classmethod
    def from_json(cls, key: str, value: bool) -> FileWritten:
        return cls(key, bool(value))


def _frozen(mapping: dict) -> Mapping:
    return MappingProxyType(mapping)


class Deps(Struct, frozen=True, dict=True):
    """The validity conditions of a cache entry: the engine's digest, the records of each
    kind (by :attr:`Record.kind`) and the declared inputs (name, sha256 or None)."""

    engine: str
    records: Mapping[str, tuple[Record, ...]] = field(default_factory=lambda: _frozen({}))
    inputs: tuple[tuple[str, str | None], ...] = ()

    def __reduce__(self):
        # Pickled (the shelf of decoded entries) without the read-only view pickle cannot
        # take, and without what was worked out from it (``reads``).
        return _deps_from_parts, (self.engine, dict(self.records), self.inputs)

    def of_kind(self, kind: type[Record]) -> tuple[Record, ...]:
        """The records of one kind."""
        return self.records.get(kind.kind, ())

    def all_records(self) -> Iterable[Record]:
        """Every record, kind by kind."""
        for records in self.records.values():
            yield from records

    @property
    def files_read(self) -> list[str]:
        """The files read or imported (not those looked for and absent), sorted."""
        return sorted(r.path for r in self.of_kind(FileRead) if r.digest is not None)

    @property
    def writes(self) -> tuple[str, ...]:
        """The files the page wrote (record names), sorted."""
        return tuple(r.path for r in self.of_kind(FileWritten))

    @cached_property
    def reads(self) -> frozenset[str]:
        """The names of every file and folder the page read, listed or looked for (taken once
        per object: the records are frozen, and the preview keeps decoded entries)."""
        return frozenset(r.key for r in self.all_records() if isinstance(r, (FileRead, Listing)))

    def stamp_lines(self, into: dict[str, Any] | None = None, watched: set[str] | None = None,
                    done: set[int] | None = None) -> dict[str, Any]:
        """The stamp's state line of every record, by ``kind:key``, added to ``into`` (a new
        dict by default) where it has no such line yet: the first page's line wins, and a
        file most pages read costs one state, not one per page. The watched names of each
        new line's record are added to ``watched`` (they follow from the key). ``done``
        holds the ids of record tuples already added to ``into`` in this pass (a tuple that
        entries share, see :func:`decode_section`, is then added once); the tuples must
        stay alive for the whole pass, as the entries that hold them do."""
        lines: dict[str, Any] = {} if into is None else into
        for kind, records in self.records.items():  # one kind at a time: its prefix and key field once
            if done is not None:
                if id(records) in done:
                    continue
                done.add(id(records))
            prefix, key_field = f"{kind}:", RECORD_TYPES[kind].key_field
            for record in records:
                line = prefix + getattr(record, key_field)
                if line not in lines:
                    lines[line] = record.state()
                    if watched is not None:
                        watched.update(record.watched())
        return lines

    def vouches(self, now_ns: int, done: set[int] | None = None) -> bool:
        """True when the stamp may rely on these records: each is trusted (see
        :attr:`Record.trusted`) and fresh at ``now_ns`` (see :meth:`Record.fresh`). ``done``
        holds the ids of record tuples already found to vouch at ``now_ns`` in this pass
        (they are not asked again; tuples found here to vouch are added)."""
        for kind, records in self.records.items():
            if not _may_not_vouch(RECORD_TYPES[kind]) or (done is not None and id(records) in done):
                continue
            if not all(record.trusted and record.fresh(now_ns) for record in records):
                return False
            if done is not None:
                done.add(id(records))
        return True

    def watched(self) -> set[str]:
        """The names of everything the preview watches for these records."""
        return {name for record in self.all_records() for name in record.watched()}

    def stale(self, context: CheckContext, inputs: list[str], engine: str, groups: Mapping[str, str] = {}) -> str:
        """Why the entry no longer holds ("" when it does), in a few words: "engine changed",
        "`data.csv` changed", "numpy 2.3.1 -> 2.4.0", "env FOO changed"... ``groups`` names,
        by kind, a stored set of records many entries share (see :meth:`Record.stale_group`)."""
        if self.engine != engine:
            return "engine changed"
        for kind, records in self.records.items():
            reason = _group_verdict(kind, records, context, groups.get(kind))
            if reason:
                return reason
        declared = dict(self.inputs)
        if sorted(declared) != inputs or any(context.hasher.digest(name) != d for name, d in declared.items()):
            return "declared input changed"
        return ""

    def refreshed(self, context: CheckContext) -> Deps:
        """The records as just checked (see :meth:`Record.refreshed`); a kind whose records do
        not change keeps its tuple (shared package sets stay shared)."""
        records, changed = {}, False
        for kind, group in self.records.items():
            if RECORD_TYPES[kind].refreshed is Record.refreshed:  # a kind whose check never changes a record
                records[kind] = group
                continue
            fresh = tuple(record.refreshed(context) for record in group)
            same = all(a is b for a, b in zip(fresh, group))
            records[kind], changed = (group if same else fresh), changed or not same
        return replace(self, records=_frozen(records)) if changed else self

    def section_json(self, kind: str) -> dict:
        """The records of ``kind`` as a cache entry keeps them: key -> value."""
        return {record.key: record.to_json() for record in self.records.get(kind, ())}

    def to_json(self) -> dict:
        """The entry's ``deps``: the engine, each kind's records and the inputs."""
        data: dict = {"engine": self.engine, "inputs": dict(self.inputs)}
        data.update((kind, self.section_json(kind)) for kind in self.records)
        return data

    @classmethod
    def from_json(cls, data: dict, shared: Mapping[str, tuple[Record, ...]] = {}) -> Deps:
        """The ``deps`` of a cache entry; ``shared`` gives, by kind, records already decoded
        (a stored set), in place of the entry's section. Raises KeyError, TypeError or
        ValueError for a malformed one."""
        records = {}
        for kind, record_type_ in RECORD_TYPES.items():
            if kind in shared:
                records[kind] = shared[kind]
            elif kind in data:
                records[kind] = decode_section(kind, data[kind])
        inputs = tuple(sorted(dict(data.get("inputs", {})).items()))
        return cls(data["engine"], _frozen(records), inputs)


def _deps_from_parts(engine: str, records: dict, inputs: tuple) -> Deps:
    return Deps(engine, _frozen(records), inputs)


#: Sections already decoded, by kind and contents: records are frozen, so entries whose
#: sections are equal (the variables most pages read) share one tuple. Bounded: cleared
#: when it holds this many.
_DECODED_LIMIT = 4096
_decoded_sections: dict[tuple, tuple[Record, ...]] = {}


def _group_verdict(kind: str, records: tuple[Record, ...], context: CheckContext, group: str | None) -> str:
    """:meth:`Record.stale_group` of ``records``, asked once per build for a tuple that
    several entries share (see :func:`decode_section`): the verdict depends only on the
    records and the build's context. The memo holds the tuple, so its id stays its own."""
    memo_key = ("group verdict", kind, id(records))
    known = context.memo.get(memo_key)
    if known is not None and known[0] is records:
        return known[1]
    reason = RECORD_TYPES[kind].stale_group(records, context, group)
    context.memo[memo_key] = (records, reason)
    return reason


def decode_section(kind: str, section: dict) -> tuple[Record, ...]:
    """The records of ``kind`` kept as ``section`` (key -> value), decoded once per process
    for each distinct section and shared: records are frozen, so entries whose sections are
    equal (the variables and start-up files every page reads) hold one tuple."""
    memo_key = (kind, tuple((key, _hashable(value)) for key, value in section.items()))
    records = _decoded_sections.get(memo_key)
    if records is None:
        if len(_decoded_sections) >= _DECODED_LIMIT:
            _decoded_sections.clear()
        records = _decoded_sections[memo_key] = tuple(RECORD_TYPES[kind].from_json(key, value)
                                                     for key, value in section.items())
    return records


def _hashable(value: Any) -> Any:
    """A JSON value as a key: a list (a file's state) as a tuple, an object as its items and
    a boolean as itself, each tagged with its type (which no JSON value is), so that two
    different values never make equal keys (``true`` is not ``1``)."""
    if isinstance(value, list):
        return tuple(_hashable(item) for item in value)
    if isinstance(value, dict):
        return dict, tuple((key, _hashable(item)) for key, item in value.items())
    if isinstance(value, bool):
        return bool, value
    return value


def entry_deps(report: dict, hasher: FileHasher, inputs: list[str], engine: str) -> Deps:
    """The validity conditions of a new cache entry, from the kernel's record ``report``
    (one section per kind of record) and the declared ``inputs`` (record names). A file
    whose state moved between its first read and now is marked moved: the entry will not
    be trusted."""
    context = CheckContext(hasher)
    records = {kind: tuple(cls.from_report(report.get(kind, {}), context)) for kind, cls in RECORD_TYPES.items()}
    return Deps(engine, _frozen(records), tuple((name, hasher.digest(name)) for name in inputs))


def state_locations() -> dict[str, str]:
    """Where each kind's :meth:`Record.state_now` lives, by kind (kept in the stamp, see
    :func:`sitebuild.commands.uptodate.current_state`)."""
    return {kind: state_location(record_type.state_now) for kind, record_type in RECORD_TYPES.items()}


def current_state(line: str, recorded: Any, root: Path, env: Mapping[str, str]) -> Any:
    """The state now of the stamp's ``line`` (``kind:key``, see :meth:`Deps.stamp_lines`),
    taken by its kind's record type; a kind this engine does not know never equals what
    was recorded."""
    kind, _, key = line.partition(":")
    record_class = RECORD_TYPES.get(kind)
    if record_class is None:
        return ["unknown kind", kind]
    return record_class.state_now(key, recorded, root, env)


def untraced_warning(report: dict) -> str:
    """A warning naming what the kernel could not follow in ``report`` ("" when nothing)."""
    untraced = report.get("untraced", {})
    parts = []
    if untraced.get("subprocesses"):
        parts.append(f"it started {', '.join(f'`{c}`' for c in untraced['subprocesses'])} (files a subprocess "
                     "reads are not traced)")
    if untraced.get("native_readers"):
        parts.append(f"it imported {', '.join(untraced['native_readers'])} (files read natively are not traced)")
    if untraced.get("ctypes"):
        parts.append(f"it called {', '.join(f'`{c}`' for c in untraced['ctypes'])} through ctypes (files read "
                     "natively are not traced)")
    if not parts:
        return ""
    return ("; ".join(parts) + ": declare what they read in the front matter, `inputs: [path or glob, ...]`, "
            "or set `cache: false`")
