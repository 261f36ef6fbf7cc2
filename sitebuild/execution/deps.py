"""What a page's execution depended on, and whether it still holds.

The kernel records, as the page runs (see ``kernel_setup.py``), each file it read with
the file's state at that moment, the folders it listed, the environment variables it
read and the installed packages it imported. :func:`entry_deps` turns that record into
the part of a cache entry that says when the entry stops being valid: each file's sha256
as of when it was read (or None when it moved while the page ran: never trusted), the
names in each folder listed, each variable's value and each package's version and files;
it also keeps the files the page wrote (``writes``), which order the pages.
:func:`stale_reason` says, in a few words, what changed since."""

from __future__ import annotations

import glob
import hashlib
import os
import sys
from pathlib import Path

from sitebuild.store.files import file_state, is_racy, listing_digest, package_stamp, write_text_atomic

PACKAGE_DIR = Path(__file__).resolve().parent
#: The engine's files that shape an execution: a change to any of them re-runs every page.
EXECUTION_CODE: tuple[Path, ...] = tuple(PACKAGE_DIR / name for name in (
    "kernel_setup.py", "kernel_figures.py", "extract.py", "execute.py", "executed.py", "kernels.py", "outputs.py",
    "html_tables.py"))
#: Absent: the file did not exist when the page tried to read it.
ABSENT = "absent"


def code_digest(paths: tuple[Path, ...] = ()) -> str:
    """sha256 over the contents of ``paths`` (default :data:`EXECUTION_CODE`)."""
    digest = hashlib.sha256()
    for path in paths or EXECUTION_CODE:
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        for chunk in iter(lambda: stream.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


class FileHasher:
    """sha256 of files, remembered by their full state (size, times, inode, device), so
    an unchanged file is read once; a file changed too recently is never remembered."""

    def __init__(self, root: Path, memo: dict | None = None):
        self.root = root
        self.memo: dict[str, list] = memo if isinstance(memo, dict) else {}
        self.changed = False
        #: The state each file had when it was last hashed or checked (for the stamp).
        self.seen: dict[str, list[int]] = {}

    def digest(self, rel: str, expected_state: list[int] | None = None) -> str | None:
        """The sha256 of ``rel`` (relative to the root, or absolute), or None when it is
        missing, or when ``expected_state`` is given and the file is no longer in it."""
        path = self.root / rel
        try:
            state = file_state(path.stat())
        except OSError:
            return None
        if expected_state is not None and state != list(expected_state):
            return None
        known = self.memo.get(rel)
        if isinstance(known, list) and len(known) == 2 and known[0] == state:
            self.seen[rel] = state
            return known[1]
        try:
            digest = _sha256(path)
            after = file_state(path.stat())
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
    import json

    state = _site_dirs_state()
    try:
        memo = json.loads(memo_path.read_text(encoding="utf-8")) if memo_path is not None else {}
        table = memo["table"] if memo.get("state") == state else None
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        table = None
    if table is None:
        from importlib import metadata  # only here: importing it costs more than reading the memo

        table = {}
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
        if memo_path is not None:
            write_text_atomic(memo_path, json.dumps({"state": state, "table": table}, sort_keys=True))
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


def entry_deps(report: dict, hasher: FileHasher, inputs: list[str], engine: str) -> dict:
    """The validity conditions of a new cache entry, from the kernel's record ``report``
    and the declared ``inputs`` (record names). A file whose state moved between its
    first read and now gets None: the entry will not be trusted."""
    files = {}
    for name, seen in report.get("files", {}).items():
        if seen.get("changed"):
            files[name] = None
        elif seen.get("stat") is None:
            files[name] = ABSENT
        else:
            now = hasher.digest(name, expected_state=seen["stat"])
            files[name] = None if now is None or (seen.get("sha256") and seen["sha256"] != now) else now
    packages = {}
    for name, info in report.get("packages", {}).items():
        stamp = package_stamp(info["path"])
        if stamp is not None:
            packages[name] = {"stamp": stamp, "version": info.get("version") or installed_version(name)}
    states = {name: seen["stat"] for name, seen in report.get("files", {}).items() if seen.get("stat")}
    return {"engine": engine, "files": files, "states": states, "listings": dict(report.get("listings", {})),
            "env": dict(report.get("env", {})), "packages": packages, "writes": list(report.get("writes", [])),
            "inputs": {name: hasher.digest(name) for name in inputs}}


def stale_reason(deps: dict, hasher: FileHasher, env: dict[str, str], inputs: list[str], engine: str,
                 memo: dict | None = None, package_set: str | None = None) -> str:
    """Why an entry with ``deps`` no longer holds ("" when it does), in a few words:
    "engine changed", "`data.csv` changed", "numpy 2.3.1 -> 2.4.0", "env FOO changed"...
    ``memo`` keeps folder digests and package states across the lookups of one build;
    ``package_set`` names the entry's packages by the digest of their stored set, so a set
    many entries share is checked once."""
    memo = {} if memo is None else memo
    if deps.get("engine") != engine:
        return "engine changed"
    for name, digest in deps["files"].items():
        if digest is None:
            return f"`{name}` changed while the page ran"
        now = hasher.digest(name)
        if digest == ABSENT:
            if now is not None:
                return f"`{name}` appeared"
        elif now != digest:
            return f"`{name}` {'was removed' if now is None else 'changed'}"
    for folder, digest in deps["listings"].items():
        if folder not in memo:
            memo[folder] = listing_digest(hasher.root / folder)
        if memo[folder] != digest:
            return f"the files in `{folder}` changed"
    for name, value in deps["env"].items():
        if env.get(name) != value:
            return f"env {name} changed"
    packages = _packages_stale(deps["packages"], memo, package_set)
    if packages:
        return packages
    declared = deps.get("inputs", {})
    if sorted(declared) != inputs or any(hasher.digest(name) != digest for name, digest in declared.items()):
        return "declared input changed"
    return ""


def _packages_stale(packages: dict, memo: dict, package_set: str | None) -> str:
    """Why a page's ``packages`` (name -> version and stamp) no longer hold ("" when they
    do); the verdict on a stored set (``package_set``, its digest) is remembered in ``memo``."""
    if package_set is not None and ("package set", package_set) in memo:
        return memo["package set", package_set]
    verdict = ""
    for name, info in packages.items():
        path = info["stamp"][0]
        if ("package", path) not in memo:
            memo["package", path] = package_stamp(path)
        if memo["package", path] != info["stamp"]:
            new = installed_version(name)
            old = info.get("version")
            verdict = f"{name} {old} -> {new}" if old and new and old != new else f"package {name} changed"
            break
    if package_set is not None:
        memo["package set", package_set] = verdict
    return verdict


def is_trusted(deps: dict) -> bool:
    """False when a file the page read moved while it ran (the entry is kept but never used)."""
    return all(digest is not None for digest in deps["files"].values())


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
