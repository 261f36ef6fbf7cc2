"""The "nothing changed" fast path. A stamp records, for the last successful build:

- a fingerprint of the state (size, times, inode) of every source, template, generated
  script, site.yaml and engine module, of the git files naming the commit checked out
  (every page names it), and of the build's options, taken when the build *started* (an
  edit during the build makes the next one run);
- what the pages depended on, as recorded when they were read: each file's state, the
  digest of each folder listed, each environment variable's value, each package's state
  and the declared inputs.

If both still hold and the output folder is there, the build has nothing to do. Standard
library only, so the check itself costs a few milliseconds. :func:`recorded_inputs` gives
the files and folders the last build recorded (what ``serve`` watches)."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from sitebuild.store.files import (
    RACY_NS,
    git_entry,
    is_racy,
    listing_digest,
    package_stamp,
    path_state,
    stat_line,
    tree_lines,
)
from sitebuild.store.memo import Memo

__all__ = ["RACY_NS", "stat_line", "tree_lines", "fingerprint", "deps_state", "read_stamp", "write_stamp",
           "is_up_to_date",
           "recorded_inputs", "write_recorded_inputs", "generated_digest", "STAMP_FILE", "INPUTS_FILE"]

STAMP_FORMAT = 2
STAMP_FILE = "last-build.json"
INPUTS_FILE = "recorded-inputs.json"  # what the last build's pages read, stamp or not
INPUTS_FORMAT = "1"
PACKAGE_DIR = Path(__file__).resolve().parent.parent  # the whole engine, every stage


def fingerprint(root: Path, source: Path, templates: Path, options: dict, newest: list[int] | None = None) -> str:
    """Hash the state of every source of a build (the explainers, their scripts, the
    templates, site.yaml, the engine's modules) and the build's options. ``newest``, when
    given, receives the latest modification or change time seen (in its first item)."""
    lines = [json.dumps(options, sort_keys=True, default=str), stat_line(root / "site.yaml", newest)]
    lines += (tree_lines(source, ".md", newest) + tree_lines(templates, "", newest, recursive=True)
              + tree_lines(PACKAGE_DIR, ".py", newest, recursive=True) + _head_lines(root))
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()


def _head_lines(root: Path) -> list[str]:
    """The states of the files of the git repository holding ``root`` that say which commit
    is checked out (HEAD, the branch it names, packed-refs): a commit or a checkout changes
    one of them. Nothing outside a repository. Whether the work tree has local changes is
    not looked at here (that takes ``git status``): a build that changes no source keeps
    the last site's line."""
    git = git_entry(root)
    if git is None:
        return []
    if not git.is_dir():
        return [stat_line(git)]
    try:
        head = (git / "HEAD").read_text(encoding="utf-8").strip()
    except OSError:
        return [stat_line(git / "HEAD")]
    branch = [stat_line(git / head[5:].strip())] if head.startswith("ref:") else []
    return [f"HEAD:{head}", *branch, stat_line(git / "packed-refs")]


def generated_digest(source: Path, extra: dict) -> str:
    """Hash the state of what the build itself writes beside the sources (the generated
    scripts, and ``extra``): taken at the end of a build, never racy."""
    lines = [json.dumps(extra, sort_keys=True, default=str)] + tree_lines(source / "code", ".py", None)
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()


def deps_state(root: Path, record: dict, env: dict[str, str]) -> dict:
    """The current state of what ``record`` (a stamp's ``deps``) names, in the same form,
    so that the two are equal when nothing changed."""
    return {
        "files": {name: path_state(root / name) for name in record.get("files", {})},
        "listings": {folder: listing_digest(root / folder) for folder in record.get("listings", {})},
        "env": {name: env.get(name) for name in record.get("env", {})},
        "packages": {name: package_stamp(stamp[0]) if stamp else None
                     for name, stamp in record.get("packages", {}).items()},
    }


def stamp_memo(path: Path) -> Memo:
    """The memo holding the stamp at ``path``."""
    return Memo(path, "build stamp", str(STAMP_FORMAT))


def read_stamp(path: Path) -> dict:
    """The stamp of the last successful build, or an empty dict."""
    return stamp_memo(path).load({})


def write_stamp(path: Path, stamp: dict) -> None:
    """Record the stamp of a successful build (atomically)."""
    stamp_memo(path).save(stamp)


def is_fresh(record: dict) -> bool:
    """False when a file state in ``record`` is too recent to vouch for its contents."""
    return not any(state and is_racy(state) for state in record.get("files", {}).values())


def is_up_to_date(path: Path, out: Path, root: Path, source: Path, templates: Path, options: dict,
                  env: dict[str, str] | None = None, generated: dict | None = None) -> bool:
    """True when the last successful build's fingerprint and dependencies still hold and
    its site exists. ``env`` is the environment the kernels get (default ``os.environ``)."""
    stamp = read_stamp(path)
    if not stamp or not (out / "index.html").exists():
        return False
    if fingerprint(root, source, templates, options) != stamp.get("fingerprint") \
            or generated_digest(source, generated or {}) != stamp.get("generated"):
        return False
    record = stamp.get("deps", {})
    return deps_state(root, record, dict(os.environ) if env is None else env) == {k: record.get(k, {}) for k in
                                                                                   ("files", "listings", "env",
                                                                                    "packages")}


def recorded_inputs(cache_dir: Path, root: Path) -> list[Path]:
    """The files and folders the last successful build recorded as read or listed by its
    pages (absolute paths, sorted); empty before the first build that rendered. ``serve``
    watches these besides the sources, templates and site.yaml."""
    names = inputs_memo(cache_dir).load([])
    return sorted({(root / name).resolve() for name in names if isinstance(name, str)})


def inputs_memo(cache_dir: Path) -> Memo:
    """The memo of the names of the files and folders the last build's pages read."""
    return Memo(cache_dir / INPUTS_FILE, "recorded inputs", INPUTS_FORMAT)


def write_recorded_inputs(cache_dir: Path, record: dict) -> None:
    """Keep the names of the files and folders the pages read or listed, for ``serve``:
    written after every build that renders, even when the stamp itself is not (a racy or
    volatile build), so the preview never stops watching a data file."""
    # A prose edit reads the same files: the memo holds them already, and is not written.
    inputs_memo(cache_dir).save(sorted(set(record.get("files", {})) | set(record.get("listings", {}))))
