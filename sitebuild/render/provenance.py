"""Provenance of a build: when it ran, from which commit, with which Python and package
versions, and the digest of every data file the pages read. Shown on the pages and the
report only: it never feeds the quote check, and it is the only part of a page that
changes between two builds of the same sources (each page marks it, see
:data:`PROVENANCE_START`)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

from msgspec import Struct, field

from sitebuild.execution.deps import package_versions
from sitebuild.store.files import file_sha256, git_entry

#: Comments around the changing part of every page, so that two builds can be compared.
PROVENANCE_START, PROVENANCE_END = "<!--provenance-->", "<!--/provenance-->"
CODE_SUFFIXES = (".py", ".pyc")


class DataFile(Struct, frozen=True):
    """A file the pages read (not a module): its path from the root, sha256 and readers."""

    path: str
    sha256: str
    size: int
    pages: tuple[str, ...]


class Provenance(Struct, frozen=True):
    """Where a build came from."""

    built_at: str
    commit: str = ""
    dirty: bool = False
    python: str = ""
    packages: tuple[tuple[str, str], ...] = ()
    data_files: tuple[DataFile, ...] = field(default_factory=tuple)
    #: Files outside the project that the pages read (fonts, configuration): they count for
    #: the cache, but are not the site's data, and their paths are the build machine's.
    outside_files: int = 0

    @property
    def short_commit(self) -> str:
        """The commit's first 10 hex digits ("" outside a git repository)."""
        return self.commit[:10]


def _git(root: Path, *args: str) -> subprocess.Popen | None:
    try:
        return subprocess.Popen(["git", *args], cwd=root, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    except OSError:
        return None


def _output(process: subprocess.Popen | None) -> str:
    if process is None:
        return ""
    try:
        out, _ = process.communicate(timeout=10)
    except subprocess.SubprocessError:
        process.kill()
        process.communicate()
        return ""
    return out.strip() if process.returncode == 0 else ""


def start_git(root: Path) -> Callable[[], tuple[str, bool]]:
    """Ask git for the commit of ``root`` and whether the work tree differs from it, in
    the background; the returned function waits for the answer: (commit, dirty), ("",
    False) outside a repository or without git (no git is started where no folder from
    ``root`` up holds a ``.git``)."""
    if "GIT_DIR" not in os.environ and git_entry(root) is None:
        return lambda: ("", False)
    commit, status = _git(root, "rev-parse", "HEAD"), _git(root, "status", "--porcelain", "--untracked-files=no")
    answered: list[tuple[str, bool]] = []

    def answer() -> tuple[str, bool]:
        if not answered:
            head, changes = _output(commit), _output(status)
            answered.append((head, bool(head) and bool(changes)))
        return answered[0]

    return answer


def data_files(root: Path, reads: dict[str, list[str]],
               digest: Callable[[str], str | None] | None = None) -> tuple[DataFile, ...]:
    """The non-code files of ``reads`` (slug -> paths from ``root``) inside ``root``, with
    their digests (from ``digest``, given the path as read, when it knows the file; else
    computed). Files outside ``root`` are counted by :func:`outside_files`."""
    found = []
    for path, slugs in sorted(_readers(reads).items()):
        full = root / path  # an absolute path stays as it is
        if _inside(full, root) and full.is_file():
            sha = (digest(path) if digest is not None else None) or file_sha256(full)
            found.append(DataFile(path, sha, full.stat().st_size, tuple(sorted(slugs))))
    return tuple(found)


def outside_files(root: Path, reads: dict[str, list[str]]) -> int:
    """How many of the non-code files of ``reads`` lie outside ``root``."""
    return sum(1 for path in _readers(reads) if not _inside(root / path, root))


def _readers(reads: dict[str, list[str]]) -> dict[str, list[str]]:
    """The pages that read each non-code file of ``reads``."""
    readers: dict[str, list[str]] = {}
    for slug, paths in reads.items():
        for path in paths:
            if not path.endswith(CODE_SUFFIXES):
                readers.setdefault(path, []).append(slug)
    return readers


def _inside(path: Path, root: Path) -> bool:
    return os.path.normpath(path).startswith(os.path.join(os.path.normpath(root), ""))


def collect_provenance(root: Path, reads: dict[str, list[str]], packages: set[str],
                       now: float | None = None, git: Callable[[], tuple[str, bool]] | None = None,
                       digest: Callable[[str], str | None] | None = None,
                       package_memo: Path | None = None) -> Provenance:
    """The provenance of a build over ``root``: the git commit (and whether the work tree
    differs from it; ``git``, from :func:`start_git`, when it was asked earlier), the
    Python and ``packages`` versions (the table of installed distributions kept in
    ``package_memo`` when given), and the data files read (see :func:`data_files`)."""
    stamp = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(now if now is not None else time.time()))
    commit, dirty = (git or start_git(root))()
    versions = package_versions(packages, package_memo)
    return Provenance(built_at=stamp, commit=commit, dirty=dirty, python=sys.version.split()[0],
                      packages=versions, data_files=data_files(root, reads, digest),
                      outside_files=outside_files(root, reads))
