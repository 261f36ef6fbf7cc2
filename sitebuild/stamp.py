"""The "nothing changed" fast path: a fingerprint, from file sizes and modification times
only, of everything a build depends on (sources, templates, site.yaml, the files and
packages the cached pages depend on, the options). If it equals the last successful
build's and the output folder is there, the build has nothing to do. Standard library
only, so the check itself costs a few milliseconds."""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path

from sitebuild.files import write_text_atomic

STAMP_FORMAT = 1
#: Files modified this recently may change again within the same timestamp tick, so a
#: build that saw one does not record a stamp (the next build takes the full path).
RACY_NS = 2_000_000_000


def stat_line(path: Path, newest: list[int] | None = None) -> str:
    """``path`` with its size and modification time (or "missing"): what a fingerprint
    of the file's state holds. ``newest`` receives the latest modification time seen."""
    try:
        stat = path.stat()
    except OSError:
        return f"{path}:missing"
    if newest is not None:
        newest[0] = max(newest[0], stat.st_mtime_ns)
    return f"{path}:{stat.st_size}:{stat.st_mtime_ns}"


def _tree_lines(folder: Path, pattern: str, newest: list[int] | None) -> list[str]:
    return [stat_line(p, newest) for p in sorted(folder.glob(pattern)) if p.is_file()] if folder.is_dir() else []


def fingerprint(root: Path, source: Path, templates: Path, options: dict, deps: list[str], packages: list[str],
                newest: list[int] | None = None) -> str:
    """Hash the stat data of every input of a build, and the build's options. ``newest``,
    when given, receives the latest modification time seen (in its first item)."""
    lines = [json.dumps(options, sort_keys=True, default=str), stat_line(root / "site.yaml", newest)]
    lines += (_tree_lines(source, "*.md", newest) + _tree_lines(source / "code", "*.py", None)  # scripts: ours
              + _tree_lines(templates, "**/*", newest))
    lines += [stat_line(root / rel, newest) for rel in sorted(deps)]
    lines += [stat_line(Path(p), newest) for p in sorted(packages)]
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()


def is_racy(newest_ns: int) -> bool:
    """True when a file was modified too recently for its timestamp to be trusted."""
    return time.time_ns() - newest_ns < RACY_NS


def read_stamp(path: Path) -> dict:
    """The stamp of the last successful build, or an empty dict."""
    try:
        stamp = json.loads(path.read_text(encoding="utf-8"))
        return stamp if stamp.get("format") == STAMP_FORMAT else {}
    except (OSError, ValueError, AttributeError):
        return {}


def write_stamp(path: Path, stamp: dict) -> None:
    """Record the stamp of a successful build (atomically)."""
    write_text_atomic(path, json.dumps({"format": STAMP_FORMAT, **stamp}, sort_keys=True))


def is_up_to_date(path: Path, out: Path, root: Path, source: Path, templates: Path, options: dict) -> bool:
    """True when the last successful build's fingerprint still holds and its site exists."""
    stamp = read_stamp(path)
    if not stamp or not (out / "index.html").exists():
        return False
    current = fingerprint(root, source, templates, options, stamp.get("deps", []), stamp.get("packages", []))
    return current == stamp.get("fingerprint")
