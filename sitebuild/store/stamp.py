"""The "nothing changed" fast path. A stamp records, for the last successful build:

- a fingerprint of the state (size, times, inode) of every source, template, generated
  script, site.yaml and engine module, of the git files naming the commit checked out
  (every page names it), and of the build's options, taken when the build *started* (an
  edit during the build makes the next one run);
- what the pages depended on, as recorded when they were read: one state line per
  record of :mod:`sitebuild.execution.deps` (a file's state, the digest of a folder
  listed, a variable's value, a package's state), which the record's own kind takes again;
- the site as written: each file the build wrote into the output folder, with its state
  (size, modification time, inode), so a file deleted or edited there makes the next
  build write it again.

If all of it still holds, the build has nothing to do. Standard library only, so the
check itself costs a few milliseconds. :func:`recorded_inputs` gives the files and
folders the last build recorded (what ``serve`` watches)."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping

from sitebuild.store.files import RACY_NS, git_entry, stat_line, tree_lines
from sitebuild.store.memo import Memo

__all__ = ["RACY_NS", "stat_line", "tree_lines", "fingerprint", "deps_state", "read_stamp", "write_stamp",
           "is_up_to_date", "recorded_inputs", "write_recorded_inputs", "generated_digest", "output_state",
           "output_states", "site_states", "site_unchanged", "read_site_files", "write_site_files", "STAMP_FILE",
           "INPUTS_FILE", "SITE_FILES", "CurrentState"]

STAMP_FORMAT = 4
STAMP_FILE = "last-build.json"
INPUTS_FILE = "recorded-inputs.json"  # what the last build's pages read, stamp or not
INPUTS_FORMAT = "1"
SITE_FILES = "site-files.json"  # the files the last build wrote into the output folder, with their states
SITE_FILES_FORMAT = "1"
#: Takes a stamp's state line again: (line, its recorded state, root, environment, where
#: each kind's function lives: the stamp's ``states``) -> the state now.
CurrentState = Callable[[str, Any, Path, Mapping[str, str], Mapping[str, str]], Any]
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


def deps_state(root: Path, record: Mapping[str, Any], env: Mapping[str, str], current: CurrentState,
               locations: Mapping[str, str] | None = None) -> dict:
    """The current state of each line of ``record`` (a stamp's ``deps``: line -> state),
    taken by ``current`` (told ``locations``, the stamp's ``states``), so that the two are
    equal when nothing changed."""
    where = locations if isinstance(locations, dict) else {}
    return {line: current(line, recorded, root, env, where) for line, recorded in record.items()}


def output_state(path: str | Path, folder: int | None = None) -> list[int] | None:
    """The state of a file the build wrote (size, modification time, inode), or None when
    it is missing. The change time is left out: linking a file into the next site, and
    removing the replaced site, change it without changing the file. ``folder``: an open
    folder that ``path`` is relative to."""
    try:
        stat = os.stat(path, dir_fd=folder)
    except OSError:
        return None
    return [stat.st_size, stat.st_mtime_ns, stat.st_ino]


def site_states(out: Path) -> dict[str, list[int]]:
    """The :func:`output_state` of every file in the output folder, by its path there
    (folders are not followed through links, as :func:`os.walk` does not)."""
    states: dict[str, list[int]] = {}

    def visit(folder: str, prefix: str) -> None:
        try:
            entries = list(os.scandir(folder))
        except OSError:
            return
        for entry in entries:  # scandir's entries: no path joins, no relpath per file
            if entry.is_dir():
                if not entry.is_symlink():
                    visit(entry.path, f"{prefix}{entry.name}/")
                continue
            try:
                stat = entry.stat()
            except OSError:
                continue
            states[prefix + entry.name] = [stat.st_size, stat.st_mtime_ns, stat.st_ino]

    visit(os.fspath(out), "")
    return states


def site_unchanged(out: Path, recorded: Mapping[str, list[int]]) -> bool:
    """True when every file of ``recorded`` is in ``out`` in the state recorded."""
    return bool(recorded) and all(state == recorded[rel] for rel, state in output_states(out, recorded))


def output_states(out: Path, names: Iterable[str]) -> Iterator[tuple[str, list[int] | None]]:
    """Each of ``names`` (paths in ``out``) with its :func:`output_state`, looked up from the
    open folder: no path joined, none walked from the root (a third faster than by path)."""
    if os.stat not in os.supports_dir_fd:
        base = os.fspath(out)
        yield from ((name, output_state(os.path.join(base, name))) for name in names)
        return
    try:
        folder = os.open(out, os.O_RDONLY)
    except OSError:  # no output folder: none of them is there
        yield from ((name, None) for name in names)
        return
    try:
        for name in names:
            yield name, output_state(name, folder)
    finally:
        os.close(folder)


def site_files_memo(cache_dir: Path) -> Memo:
    """The memo of the files the last build wrote into the output folder, with their states."""
    return Memo(cache_dir / SITE_FILES, "site as written", SITE_FILES_FORMAT)


def read_site_files(cache_dir: Path) -> dict[str, list[int]]:
    """The files the last build wrote into the output folder, with their states ({} when unknown)."""
    return site_files_memo(cache_dir).load({}, lambda states: all(isinstance(s, list) for s in states.values()))


def write_site_files(cache_dir: Path, states: Mapping[str, list[int]]) -> None:
    """Keep the states of the files just written into the output folder."""
    site_files_memo(cache_dir).save(dict(states))


def stamp_memo(path: Path) -> Memo:
    """The memo holding the stamp at ``path``."""
    return Memo(path, "build stamp", str(STAMP_FORMAT))


def read_stamp(path: Path) -> dict:
    """The stamp of the last successful build, or an empty dict."""
    return stamp_memo(path).load({})


def write_stamp(path: Path, stamp: dict) -> None:
    """Record the stamp of a successful build (atomically)."""
    stamp_memo(path).save(stamp)


def is_up_to_date(path: Path, out: Path, root: Path, source: Path, templates: Path, options: dict,
                  env: Mapping[str, str] | None = None, generated: dict | None = None, *,
                  current: CurrentState, sources: str | None = None) -> bool:
    """True when the last successful build's fingerprint, dependencies (each line taken
    again by ``current``) and written site still hold. ``env`` is the environment the
    kernels get (default ``os.environ``); ``sources``, the :func:`fingerprint` of this
    build when it was taken already (it is taken here otherwise)."""
    stamp = read_stamp(path)
    if not stamp or stamp.get("fingerprint") != (sources or fingerprint(root, source, templates, options)):
        return False  # the sources first: an edit, the usual reason, is found with the fewest stats
    if generated_digest(source, generated or {}) != stamp.get("generated") \
            or not site_unchanged(out, read_site_files(path.parent)):
        return False  # the site as written is the memo beside the stamp (the render cache reads it too)
    record = stamp.get("deps", {})
    return deps_state(root, record, dict(os.environ) if env is None else env, current, stamp.get("states")) == record


def recorded_inputs(cache_dir: Path, root: Path) -> list[Path]:
    """The files and folders the last successful build recorded as read or listed by its
    pages (absolute paths, sorted); empty before the first build that rendered. ``serve``
    watches these besides the sources, templates and site.yaml."""
    names = inputs_memo(cache_dir).load([])
    return sorted({(root / name).resolve() for name in names if isinstance(name, str)})


def inputs_memo(cache_dir: Path) -> Memo:
    """The memo of the names of the files and folders the last build's pages read."""
    return Memo(cache_dir / INPUTS_FILE, "recorded inputs", INPUTS_FORMAT)


def write_recorded_inputs(cache_dir: Path, names: Iterable[str]) -> None:
    """Keep the names of the files and folders the pages depended on, for ``serve``:
    written after every build that renders, even when the stamp itself is not (a racy or
    volatile build), so the preview never stops watching a data file."""
    # A prose edit reads the same files: the memo holds them already, and is not written.
    inputs_memo(cache_dir).save(sorted(set(names)))
