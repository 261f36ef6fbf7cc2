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
them (each entry says itself which execution code made it)."""

from __future__ import annotations

import base64
import hashlib
import json
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path

from sitebuild.execution.deps import FileHasher, entry_deps, expand_inputs, is_trusted, stale_reason
from sitebuild.execution.executed import ClaimValue, ExecutedPage, InlineValue
from sitebuild.execution.outputs import Output
from sitebuild.source.read import Page
from sitebuild.store.files import write_text_atomic
from sitebuild.store.memo import Memo

CACHE_FORMAT = 2
#: The memo of file digests (by file state) kept beside the entries.
HASHES_FILE = "file-hashes.json"
#: The package states the entries share, one file per set, named by its digest.
PACKAGE_SETS_DIR = "package-sets"
#: The memo naming each page's latest entry.
INDEX_FILE = "index.json"


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


@dataclass
class Lookup:
    """The outcome of a cache lookup: the page (when valid) and why not (when not)."""

    page: ExecutedPage | None
    reason: str = ""
    warnings: list[str] = field(default_factory=list)


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


class ExecutionCache:
    """Content-addressed execution results under ``<cache_dir>/pages/``.

    ``env`` is the environment the kernels get, ``site_inputs`` the inputs site.yaml
    declares for every page and ``engine`` the digest of the execution code."""

    def __init__(self, cache_dir: Path, root: Path, *, env: dict[str, str] | None = None,
                 site_inputs: tuple[str, ...] = (), engine: str = ""):
        self.dir = cache_dir / "pages"
        self.root = root
        self.hashes_memo, self.index_memo = hashes_memo(cache_dir), index_memo(cache_dir)
        self.hasher = FileHasher(root, self.hashes_memo.load({}))
        self.index = self.index_memo.load({}, _all_text)
        self.index_changed = False
        self.env = dict(env or {})
        self.site_inputs = tuple(site_inputs)
        self.engine = engine
        self.memo: dict = {}
        self.package_sets_dir = cache_dir / PACKAGE_SETS_DIR
        self.package_sets: dict[str, dict] = {}

    def entry_path(self, key: str) -> Path:
        """Where the entry of ``key`` lives."""
        return self.dir / f"{key}.json"

    def inputs(self, page: Page) -> list[str]:
        """The files the page and site.yaml declare as inputs (record names)."""
        return expand_inputs(self.site_inputs + page.front.inputs, self.root)

    def _entry(self, key: str) -> dict | None:
        """The stored entry of ``key`` (None when there is none), its package set read in:
        ``entry["package_set"]`` keeps the set's digest (None for an entry that lists its
        packages itself)."""
        try:
            with open(self.entry_path(key), encoding="utf-8") as stream:
                entry = json.load(stream)
        except FileNotFoundError:
            return None
        if entry.get("format") != CACHE_FORMAT or entry.get("key") != key:
            raise ValueError("the entry does not match its address")
        entry["package_set"] = None
        if isinstance(entry["deps"].get("packages"), str):
            entry["package_set"] = entry["deps"]["packages"]
            entry["deps"]["packages"] = self._package_set(entry["package_set"])
        return entry

    def _package_set(self, digest: str) -> dict:
        if digest not in self.package_sets:
            memo = package_set_memo(self.package_sets_dir, digest)
            missing: dict = {}
            packages = memo.load(missing, lambda found: packages_digest(found) == digest)
            if packages is missing:
                raise ValueError(f"its package set {memo.path} is missing, damaged or not of this cache")
            self.package_sets[digest] = packages
        return self.package_sets[digest]

    def _store_package_set(self, packages: dict) -> str:
        digest = packages_digest(packages)
        memo = package_set_memo(self.package_sets_dir, digest)
        if digest not in self.package_sets or not memo.path.exists():
            memo.save(packages)
            self.package_sets[digest] = packages
        return digest

    def lookup(self, page: Page) -> Lookup:
        """Return the cached result of ``page`` if its code and every dependency are unchanged."""
        key = page_key(page)
        try:
            entry = self._entry(key)
            if entry is None:
                return Lookup(None, "code changed" if page.rel_path in self.index else "new page")
            stale = stale_reason(entry["deps"], self.hasher, self.env, self.inputs(page), self.engine,
                                 self.memo, entry["package_set"])
            if stale:
                return Lookup(None, stale)
            result = _decode(entry["result"])
        except (ValueError, KeyError, TypeError, AttributeError) as error:
            self.entry_path(key).unlink(missing_ok=True)
            return Lookup(None, "its cache entry was corrupt",
                          [f"{self.entry_path(key)}: corrupt cache entry discarded ({error}); the page will re-run"])
        result.status, result.deps, result.digest = "cached", entry["deps"], entry.get("digest", "")
        return Lookup(result)

    def latest(self, page: Page) -> ExecutedPage | None:
        """The page's latest stored execution, valid or not (what the last site showed)."""
        key = self.index.get(page.rel_path)
        try:
            entry = self._entry(key) if isinstance(key, str) else None
            result = _decode(entry["result"]) if entry else None
        except (ValueError, KeyError, TypeError, AttributeError):
            return None
        if result is not None:
            result.status, result.deps, result.digest = "kept", entry["deps"], entry.get("digest", "")
        return result

    def store(self, page: Page, result: ExecutedPage) -> None:
        """Record a successful execution with what it depended on (``result.deps`` becomes
        the entry's validity conditions)."""
        if result.error is not None:
            return
        deps = entry_deps(result.deps, self.hasher, self.inputs(page), self.engine)
        result.deps = deps
        key = page_key(page)
        encoded = _encode(result)
        result.digest = result_digest(encoded)
        stored = dict(deps, packages=self._store_package_set(deps["packages"]))
        entry = {"format": CACHE_FORMAT, "key": key, "slug": page.slug, "deps": stored, "result": encoded,
                 "digest": result.digest}
        write_text_atomic(self.entry_path(key), json.dumps(entry))
        if self.index.get(page.rel_path) != key:
            self.index[page.rel_path] = key
            self.index_changed = True

    def save(self) -> None:
        """Persist the file-hash memo and the page index (atomically) if they changed."""
        if self.hasher.changed:
            self.hashes_memo.save(self.hasher.memo)
            self.hasher.changed = False
        if self.index_changed:
            self.index_memo.save(self.index)
            self.index_changed = False


def trusted(result: ExecutedPage) -> bool:
    """False when the execution read a file that moved while it ran."""
    return not result.deps or "engine" not in result.deps or is_trusted(result.deps)


#: Fields of an encoded result that say how it ran, not what it produced.
RUN_FIELDS = ("seconds", "status", "reason", "warnings")


def result_digest(encoded: dict) -> str:
    """The digest of what an execution produced: its encoded result without how it ran.
    Two executions with the same digest render (and download) the same."""
    produced = {name: value for name, value in encoded.items() if name not in RUN_FIELDS}
    return hashlib.sha256(json.dumps(produced, sort_keys=True).encode()).hexdigest()


def _encode(result: ExecutedPage) -> dict:
    data = asdict(result)
    data.pop("deps", None)
    data.pop("digest", None)
    data["figures"] = {name: base64.b64encode(png).decode("ascii") for name, png in result.figures.items()}
    return data


def _decode(data: dict) -> ExecutedPage:
    result = ExecutedPage(**{k: v for k, v in data.items() if k not in ("blocks", "figures", "inline", "error")})
    result.blocks = {int(n): [Output(**o) for o in outputs] for n, outputs in data["blocks"].items()}
    result.notebook_outputs = {int(n): v for n, v in data["notebook_outputs"].items()}
    result.figures = {name: base64.b64decode(png, validate=True) for name, png in data["figures"].items()}
    result.inline = [InlineValue(**v) for v in data["inline"]]
    result.claims = [ClaimValue(**v) for v in data.get("claims", [])]
    return result
