"""Stage 4a: the execution cache. An entry is stored under the hash of what the page runs
(code, block options, inline expressions, Python version) and is valid only while every
file the page read or imported, and every package it imported, is unchanged. Prose is
not in the key. A corrupt entry is discarded with a warning."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from sitebuild.execute import ClaimValue, ExecutedPage, InlineValue
from sitebuild.files import write_text_atomic
from sitebuild.outputs import Output
from sitebuild.read import Page
from sitebuild.stamp import RACY_NS

CACHE_FORMAT = 1


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


class FileHasher:
    """sha256 of repository files, remembered by (size, mtime) so unchanged files are not re-read."""

    def __init__(self, root: Path, memo_path: Path):
        self.root, self.memo_path = root, memo_path
        self.memo: dict[str, list] = {}
        self.changed = False
        try:
            self.memo = json.loads(memo_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            self.memo = {}

    def digest(self, rel: str) -> str | None:
        """The file's sha256, or None when it no longer exists."""
        path = self.root / rel
        try:
            stat = path.stat()
        except OSError:
            return None
        known = self.memo.get(rel)
        if isinstance(known, list) and len(known) == 3 and known[:2] == [stat.st_size, stat.st_mtime_ns]:
            return known[2]
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        if time.time_ns() - stat.st_mtime_ns > RACY_NS:  # a just-written file may change within its mtime tick
            self.memo[rel] = [stat.st_size, stat.st_mtime_ns, digest]
            self.changed = True
        return digest

    def save(self) -> None:
        """Write the memo back (atomically) if it changed."""
        if self.changed:
            write_text_atomic(self.memo_path, json.dumps(self.memo, sort_keys=True))
            self.changed = False


def _package_stamp(path: str) -> list | None:
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return [path, stat.st_size, stat.st_mtime_ns]


@dataclass
class Lookup:
    """The outcome of a cache lookup: the page (when valid) and why not (when not)."""

    page: ExecutedPage | None
    reason: str = ""
    warnings: list[str] = field(default_factory=list)


class ExecutionCache:
    """Content-addressed execution results under ``<cache_dir>/pages/``."""

    def __init__(self, cache_dir: Path, root: Path):
        self.dir = cache_dir / "pages"
        self.hasher = FileHasher(root, cache_dir / "file-hashes.json")

    def entry_path(self, key: str) -> Path:
        """Where the entry of ``key`` lives."""
        return self.dir / f"{key}.json"

    def lookup(self, page: Page) -> Lookup:
        """Return the cached result of ``page`` if its code and every dependency are unchanged."""
        key = page_key(page)
        path = self.entry_path(key)
        if not path.exists():
            return Lookup(None, "its code changed or it never ran")
        try:
            entry = json.loads(path.read_text(encoding="utf-8"))
            if entry.get("format") != CACHE_FORMAT or entry.get("key") != key:
                raise ValueError("the entry does not match its address")
            stale = self._stale_dependency(entry["deps"])
            if stale:
                return Lookup(None, stale)
            result = _decode(entry["result"])
        except (ValueError, KeyError, TypeError, AttributeError) as error:
            path.unlink(missing_ok=True)
            return Lookup(None, "its cache entry was corrupt", [f"{path}: corrupt cache entry discarded ({error}); the page will re-run"])
        result.status = "cached"
        return Lookup(result)

    def _stale_dependency(self, deps: dict) -> str:
        for rel, digest in deps["files"].items():
            if self.hasher.digest(rel) != digest:
                return f"{rel} changed"
        for name, stamp in deps["packages"].items():
            if _package_stamp(stamp[0]) != stamp:
                return f"package {name} changed"
        return ""

    def store(self, page: Page, result: ExecutedPage) -> None:
        """Record a successful execution with the hashes of what it read and imported."""
        if result.error is not None:
            return
        deps = {
            "files": {rel: self.hasher.digest(rel) for rel in result.files_read},
            "packages": {name: _package_stamp(path) for name, path in result.packages.items() if _package_stamp(path)},
        }
        key = page_key(page)
        entry = {"format": CACHE_FORMAT, "key": key, "slug": page.slug, "deps": deps, "result": _encode(result)}
        write_text_atomic(self.entry_path(key), json.dumps(entry))

    def save(self) -> None:
        """Persist the file-hash memo."""
        self.hasher.save()


def _encode(result: ExecutedPage) -> dict:
    data = asdict(result)
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
