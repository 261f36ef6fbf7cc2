"""Stage 4a: the execution cache. An entry is stored under the hash of what the page runs
(code, block options, inline expressions, Python version) and is valid only while the
engine's execution code and everything the page depended on (see :mod:`sitebuild.execution.deps`)
are unchanged. Prose is not in the key. A corrupt entry is discarded with a warning.

``index.json`` names each page's latest entry, so a lookup can tell a new page from a
code change, and ``--only`` can keep a page it does not run.

The packages an execution depended on are mostly the kernel's own (IPython, ipykernel,
zmq, ...), the same for every page: an entry names its set of package states by digest,
stored once under ``package-sets/``, so that reading every entry stays cheap. An entry
that lists its packages itself (as earlier entries do) is read as it is.

The index, the package sets and the file hashes are memos (:mod:`sitebuild.store.memo`)
of the cache's format: an engine edit that leaves the execution code as it was keeps
them (each entry says itself which execution code made it).

Decoding an entry (its JSON, its records, its outputs) costs more than checking it, so
each entry is decoded once: the decoded entries are kept, each with the state its file
had, on a shelf (:mod:`sitebuild.store.shelf`, under ``decoded/``, of this engine's
version), and a build decodes again only the entries whose files changed. Every
dependency of each entry is still checked on every build. A process that builds again
and again (the preview) keeps that shelf in memory too (:class:`ResidentEntries`)."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import shutil
import sys
from pathlib import Path

from msgspec import Struct, field, to_builtins
from msgspec.structs import replace

from sitebuild.execution.deps import CheckContext, Deps, FileHasher, Package, decode_section, entry_deps, expand_inputs
from sitebuild.execution.executed import ClaimValue, ExecutedPage, InlineValue
from sitebuild.execution.outputs import Output
from sitebuild.source.read import Page
from sitebuild.store.files import CACHE_MARKER, is_racy, path_state, write_text_atomic
from sitebuild.store.memo import Memo, engine_version
from sitebuild.store.shelf import ResidentValues, Shelf

CACHE_FORMAT = 3
#: The entries, one file per page execution, named by its key.
PAGES_DIR = "pages"
#: The memo of file digests (by file state) kept beside the entries.
HASHES_FILE = "file-hashes.json"
#: The package states the entries share, one file per set, named by its digest.
PACKAGE_SETS_DIR = "package-sets"
#: The memo naming each page's latest entry.
INDEX_FILE = "index.json"
#: The shelf of decoded entries, by key: (the state of the entry's file, entry, result).
DECODED_DIR = "decoded"


class ForeignEntry(Exception):
    """An entry written by an engine that keeps entries in another format (never corrupt:
    the page runs again, and its new entry replaces it)."""


def page_key(page: Page) -> str:
    """The content address of a page's execution: its runnable code and options only."""
    material = {
        "format": CACHE_FORMAT,
        "source": page.rel_path,
        "python": sys.version,
        "blocks": [[b.n, b.source, sorted(b.options.items())] for b in page.code_blocks],
        "inline": [[e.expr, e.format_spec] for e in page.inline],
    }
    if page.claims:  # pages without claims keep their entries
        material["claims"] = [c.expression for c in page.claims]
    return hashlib.sha256(json.dumps(material, sort_keys=True).encode()).hexdigest()


class Lookup(Struct, frozen=True):
    """The outcome of a cache lookup: the page (when valid) and why not (when not)."""

    page: ExecutedPage | None
    reason: str = ""
    warnings: tuple[str, ...] = ()


def index_memo(cache_dir: Path) -> Memo:
    """The memo of each page's latest entry (source path -> key)."""
    return Memo(cache_dir / INDEX_FILE, "execution index", str(CACHE_FORMAT))


def hashes_memo(cache_dir: Path) -> Memo:
    """The memo of file digests by file state (see :class:`sitebuild.execution.deps.FileHasher`)."""
    return Memo(cache_dir / HASHES_FILE, "file hashes", str(CACHE_FORMAT))


def package_set_memo(folder: Path, digest: str) -> Memo:
    """The memo of one set of package states, named by its digest."""
    return Memo(folder / f"{digest}.json", "package set", str(CACHE_FORMAT))


def packages_digest(packages: dict) -> str:
    """The digest naming a set of package states."""
    return hashlib.sha256(json.dumps(packages, sort_keys=True).encode()).hexdigest()


def _all_text(mapping: dict) -> bool:
    return all(isinstance(key, str) and isinstance(value, str) for key, value in mapping.items())


class ResidentEntries(Struct):
    """The cache entries that the builds of one process share in memory: the shelf of
    decoded entries (by key, the state the entry's file had, the entry with its ``deps``
    decoded, and its result; an entry whose file is in another state now is read again)
    and the package sets by digest (named by their contents). Nothing taken from here is
    ever changed."""

    decoded: ResidentValues = field(default_factory=ResidentValues)
    package_sets: dict[str, tuple] = field(default_factory=dict)


class ExecutionCache:
    """Content-addressed execution results under ``<cache_dir>/pages/``.

    ``env`` is the environment the kernels get, ``site_inputs`` the inputs site.yaml
    declares for every page and ``engine`` the digest of the execution code; with
    ``resident``, the entries read stay in memory for the next build of this process."""

    def __init__(self, cache_dir: Path, root: Path, *, env: dict[str, str] | None = None,
                 site_inputs: tuple[str, ...] = (), engine: str = "", resident: ResidentEntries | None = None):
        self.dir = cache_dir / PAGES_DIR
        self._dir_text = os.path.join(self.dir, "")  # entries' paths are joined as text: see _entry_file
        self.root = root
        self.hashes_memo, self.index_memo = hashes_memo(cache_dir), index_memo(cache_dir)
        self.hasher = FileHasher(root, self.hashes_memo.load({}))
        self.index = self.index_memo.load({}, _all_text)
        self.index_changed = False
        self.env = dict(env or {})
        self.site_inputs = tuple(site_inputs)
        self.engine = engine
        self.context = CheckContext(self.hasher, self.env)
        self.package_sets_dir = cache_dir / PACKAGE_SETS_DIR
        self.decoded = Shelf(cache_dir / DECODED_DIR, f"decoded execution entries {CACHE_FORMAT}", engine_version(),
                             resident.decoded if resident is not None else None)
        self.newly_decoded: dict[str, tuple[list[int], dict, ExecutedPage]] = {}
        self.looked_up: set[str] = set()
        self.package_sets: dict[str, tuple] = resident.package_sets if resident is not None else {}

    def entry_path(self, key: str) -> Path:
        """Where the entry of ``key`` lives."""
        return Path(self._entry_file(key))

    def _entry_file(self, key: str) -> str:
        """:meth:`entry_path` as text, for the lookup of every page (no Path made per page)."""
        return f"{self._dir_text}{key}.json"

    def inputs(self, page: Page) -> list[str]:
        """The files the page and site.yaml declare as inputs (record names)."""
        return expand_inputs(self.site_inputs + page.front.inputs, self.root)

    def _entry(self, key: str) -> dict | None:
        """The stored entry of ``key`` (None when there is none; :class:`ForeignEntry` when
        an engine of another format wrote it), its ``deps`` decoded (:class:`Deps`, its package set read in):
        ``entry["package_set"]`` keeps the set's digest (None for an entry that lists its
        packages itself)."""
        try:
            with open(self.entry_path(key), encoding="utf-8") as stream:
                entry = json.load(stream)
        except FileNotFoundError:
            return None
        if entry.get("format") != CACHE_FORMAT:
            raise ForeignEntry(entry.get("format"))
        if entry.get("key") != key:
            raise ValueError("the entry does not match its address")
        packages = entry["deps"].get(Package.kind)
        entry["package_set"] = packages if isinstance(packages, str) else None
        shared = {Package.kind: self._package_set(packages)} if isinstance(packages, str) else {}
        entry["deps"] = Deps.from_json(entry["deps"], shared)
        return entry

    def _cached_entry(self, key: str) -> tuple[dict, ExecutedPage] | None:
        """The entry of ``key`` (see :meth:`_entry`: its ``deps`` and ``package_set``) and
        its result as a cached execution (its ``deps`` as stored); from the shelf of decoded
        entries while its file is in the state it was decoded in."""
        self.looked_up.add(key)
        state = path_state(self._entry_file(key))
        known = self.decoded.get(key)
        if state is not None and isinstance(known, tuple) and len(known) == 3 and known[0] == state:
            return known[1], known[2]
        entry = self._entry(key)
        if entry is None:
            return None
        result = _decode(entry["result"], status="cached", deps=entry["deps"], digest=entry.get("digest", ""))
        entry = {"deps": entry["deps"], "package_set": entry["package_set"]}  # what a lookup reads
        if state is not None and not is_racy(state):  # a state this recent may not tell a later write
            self.newly_decoded[key] = (state, entry, result)
        return entry, result

    def _package_set(self, digest: str) -> tuple:
        if digest not in self.package_sets:
            memo = package_set_memo(self.package_sets_dir, digest)
            missing: dict = {}
            packages = memo.load(missing, lambda found: packages_digest(found) == digest)
            if packages is missing:
                raise ValueError(f"its package set {memo.path} is missing, damaged or not of this cache")
            self.package_sets[digest] = decode_section(Package.kind, packages)
        return self.package_sets[digest]

    def _store_package_set(self, deps: Deps) -> str:
        packages = deps.section_json(Package.kind)
        digest = packages_digest(packages)
        memo = package_set_memo(self.package_sets_dir, digest)
        if digest not in self.package_sets or not memo.path.exists():
            memo.save(packages)
            self.package_sets[digest] = deps.of_kind(Package)
        return digest

    def lookup(self, page: Page) -> Lookup:
        """Return the cached result of ``page`` if its code and every dependency are unchanged."""
        key = page_key(page)
        try:
            found = self._cached_entry(key)
            if found is None:
                return Lookup(None, "code changed" if page.rel_path in self.index else "new page")
            entry, cached = found
            deps: Deps = entry["deps"]
            groups = {Package.kind: entry["package_set"]} if entry["package_set"] else {}
            stale = deps.stale(self.context, self.inputs(page), self.engine, groups)
            if stale:
                return Lookup(None, stale)
            refreshed = deps.refreshed(self.context)
            result = cached if refreshed is cached.deps else replace(cached, deps=refreshed)
        except ForeignEntry:
            return Lookup(None, "engine changed")
        except (ValueError, KeyError, TypeError, AttributeError) as error:
            self.entry_path(key).unlink(missing_ok=True)
            return Lookup(None, "its cache entry was corrupt",
                          (f"{self.entry_path(key)}: corrupt cache entry discarded ({error}); the page will re-run",))
        return Lookup(result)

    def latest(self, page: Page) -> ExecutedPage | None:
        """The page's latest stored execution, valid or not (what the last site showed)."""
        key = self.index.get(page.rel_path)
        try:
            entry = self._entry(key) if isinstance(key, str) else None
            return _decode(entry["result"], status="kept", deps=entry["deps"],
                           digest=entry.get("digest", "")) if entry else None
        except (ValueError, KeyError, TypeError, AttributeError, ForeignEntry):
            return None

    def store(self, page: Page, result: ExecutedPage) -> ExecutedPage:
        """Record a successful execution with what it depended on (from the kernel's
        ``result.trace``); return it with its validity conditions (``deps``) and digest. A
        failed execution is not stored and comes back as it is."""
        if result.error is not None:
            return result
        deps = entry_deps(result.trace, self.hasher, self.inputs(page), self.engine)
        key = page_key(page)
        encoded = _encode(result)
        stored_result = replace(result, deps=deps, digest=result_digest(encoded))
        stored = dict(deps.to_json(), **{Package.kind: self._store_package_set(deps)})
        entry = {"format": CACHE_FORMAT, "key": key, "slug": page.slug, "deps": stored, "result": encoded,
                 "digest": stored_result.digest}
        write_text_atomic(self.entry_path(key), json.dumps(entry))
        if self.index.get(page.rel_path) != key:
            self.index[page.rel_path] = key
            self.index_changed = True
        return stored_result

    def save(self) -> None:
        """Persist the file-hash memo and the page index (atomically) if they changed, and
        the entries decoded in this build; the shelf of decoded entries keeps those this
        build looked up and each page's latest, no others."""
        self.decoded.put_many(self.newly_decoded)
        self.newly_decoded = {}
        self.decoded.keep_only(self.looked_up | {key for key in self.index.values() if isinstance(key, str)})
        if self.hasher.changed:
            self.hashes_memo.save(self.hasher.memo)
            self.hasher.changed = False
        if self.index_changed:
            self.index_memo.save(self.index)
            self.index_changed = False


#: Fields of an encoded result that say how it ran, not what it produced.
RUN_FIELDS = ("seconds", "status", "reason", "warnings")


def copy_page_results(seed: Path, cache: Path) -> None:
    """Make ``cache`` (a new folder) a cache of the engine's own that holds the page
    executions stored in ``seed``: the entries, the package sets they name (an entry
    without its set is discarded) and the index, with ``seed``'s marker. A build on it
    runs only what changed since ``seed``'s."""
    for name in (PAGES_DIR, PACKAGE_SETS_DIR):
        if (seed / name).is_dir():
            shutil.copytree(seed / name, cache / name)
    for name in (INDEX_FILE, CACHE_MARKER):
        if (seed / name).is_file():
            cache.mkdir(parents=True, exist_ok=True)
            shutil.copy2(seed / name, cache / name)


def result_digest(encoded: dict) -> str:
    """The digest of what an execution produced: its encoded result without how it ran.
    Two executions with the same digest render (and download) the same."""
    produced = {name: value for name, value in encoded.items() if name not in RUN_FIELDS}
    return hashlib.sha256(json.dumps(produced, sort_keys=True).encode()).hexdigest()


#: Fields of a result that its cache entry keeps elsewhere or not at all.
NOT_ENCODED = ("deps", "trace", "digest")


def _encode(result: ExecutedPage) -> dict:
    data = to_builtins(replace(result, deps=None, trace={}, figures={}))  # nested records as dicts
    for name in NOT_ENCODED:
        data.pop(name, None)
    data["figures"] = {name: base64.b64encode(png).decode("ascii") for name, png in result.figures.items()}
    return data


#: Fields of an encoded result decoded on their own.
DECODED = ("blocks", "figures", "inline", "error", "claims", "notebook_outputs", "status", "deps", "digest")


def _decode(data: dict, *, status: str, deps: Deps, digest: str) -> ExecutedPage:
    plain = {k: v for k, v in data.items() if k not in DECODED}
    return ExecutedPage(
        **plain, status=status, deps=deps, digest=digest,
        blocks={int(n): [Output(**o) for o in outputs] for n, outputs in data["blocks"].items()},
        notebook_outputs={int(n): v for n, v in data["notebook_outputs"].items()},
        figures={name: base64.b64decode(png, validate=True) for name, png in data["figures"].items()},
        inline=[InlineValue(**v) for v in data["inline"]], claims=[ClaimValue(**v) for v in data.get("claims", [])])
