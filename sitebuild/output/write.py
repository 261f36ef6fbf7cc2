"""Stage 7: write a rendered site into a temporary folder beside the output folder, then
swap it in. If anything fails before the swap, the previous site is left untouched; the
swap itself is not interrupted by SIGINT or SIGTERM. The new folder carries the engine's
marker, so later builds and ``clean`` know it is theirs."""

from __future__ import annotations

import os
import shutil
import signal
import time
from pathlib import Path
from typing import Mapping

from sitebuild.output.folders import OUTPUT_MARKER, mark
from sitebuild.render.render import RenderedSite
from sitebuild.store.stamp import output_state


def _static_files(static: Path | None) -> dict[str, bytes]:
    """The files of the templates' static folder, by their path in the site."""
    if static is None or not static.is_dir():
        return {}
    return {f"static/{path.relative_to(static).as_posix()}": path.read_bytes()
            for path in sorted(static.rglob("*")) if path.is_file()}


def _unchanged(previous: str | Path, content: bytes) -> bool:
    """True when ``previous`` (a file of the last site) holds exactly ``content``."""
    try:
        with open(previous, "rb") as stream:
            return stream.read(len(content) + 1) == content
    except OSError:
        return False


def _fill(folder: Path, site: RenderedSite, static: Path | None, last: Path | None = None,
          known: Mapping[str, list[int]] | None = None) -> dict[str, list[int]]:
    """Write every file of the site into ``folder``; return the :func:`output_state` of
    each (by its path in the site). A file whose bytes equal those of the same file in
    ``last`` (the site being replaced), and each file the site keeps as it is, is a hard
    link to it instead of a copy: no build ever writes into a file of a site, it always
    writes a new folder, so the two names can never diverge by a later write. A link has
    the state of the file it links to (the state leaves out the change time), so a file
    whose state ``known`` gives (by its path, joined as text to ``last``'s) is not looked
    at again. Paths are joined as text: a site of hundreds of pages links thousands of
    files per build, and pathlib's joins cost more than the links."""
    files = {**_static_files(static), **site.files}
    base, states, known = os.path.join(folder, ""), {}, known or {}  # base ends with a separator
    made = {""}  # the folders made in ``folder``, by their paths in the site

    def target_of(rel: str) -> str:
        parent = rel.rpartition("/")[0]
        if parent not in made:
            os.makedirs(base + parent, exist_ok=True)
            made.add(parent)
        return base + rel

    def link(source: str, target: str) -> list[int] | None:
        """The state of ``target``, made a link to ``source`` (None when it cannot be)."""
        try:
            os.link(source, target)
        except OSError:  # a file system without hard links, or a link limit
            return None
        return known.get(source) or output_state(target)

    for rel, kept in site.kept.items():
        if rel in files:
            continue
        target = target_of(rel)
        state = link(os.fspath(kept), target)
        if state is None:
            shutil.copyfile(kept, target)
        states[rel] = state or output_state(target)
    previous = None if last is None else os.path.join(last, "")
    for rel, content in files.items():
        target = target_of(rel)
        if previous is not None:
            old = previous + rel
            state = link(old, target) if _unchanged(old, content) else None
            if state is not None:
                states[rel] = state
                continue
        with open(target, "wb") as stream:
            stream.write(content)
        states[rel] = output_state(target)
    return states


def write_site(site: RenderedSite, out: Path, static: Path | None = None,
               known: Mapping[str, list[int]] | None = None) -> dict[str, list[int]]:
    """Replace ``out`` with ``site`` (plus the files of ``static`` under ``static/``);
    return the :func:`output_state` of every file of the new site, the engine's marker
    included, by its path there. ``known`` gives the states of files of the last site the
    new one keeps, by their paths (see :func:`_fill`)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.parent / f"{out.name}.tmp-new-{os.getpid()}"
    # Unique per swap: a preview rebuilds in the same process while the last replaced site
    # may still be being deleted in the background.
    old = out.parent / f"{out.name}.tmp-old-{os.getpid()}-{time.monotonic_ns()}"
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        tmp.mkdir()
        mark(tmp, OUTPUT_MARKER)
        states = _fill(tmp, site, static, out if (out / OUTPUT_MARKER).is_file() else None, known)
        states[OUTPUT_MARKER] = output_state(tmp / OUTPUT_MARKER)
    except OSError as error:  # named by the output folder, not by the temporary one
        shutil.rmtree(tmp, ignore_errors=True)
        raise OSError(error.errno, error.strerror, str(out)) from error
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    _swap(tmp, out, old)
    remove_in_background(old)
    return states  # a rename moves no file: each keeps its state


def _swap(new: Path, out: Path, old: Path) -> None:
    """Put ``new`` in the place of ``out`` (moving the last site to ``old``), with SIGINT and
    SIGTERM held off; if the second move fails, the last site is moved back."""
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    try:
        moved = out.exists()
        if moved:
            os.replace(out, old)
        try:
            os.replace(new, out)
        except OSError as error:
            if moved:
                os.replace(old, out)
            shutil.rmtree(new, ignore_errors=True)
            raise OSError(error.errno, error.strerror, str(out)) from error
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)


#: The processes removing replaced sites that have not been reaped yet (a preview rebuilds
#: in one process; a build's own end leaves them to init).
_REMOVERS: list[int] = []


def remove_in_background(folder: Path) -> None:
    """Delete ``folder`` (the replaced site) in a process of its own session (``rm -rf``,
    spawned without copying this process), so the build does not wait for a file system
    call per file and Ctrl-C does not stop it. Where ``rm`` cannot be started, the folder
    is removed here. Should the removal not finish, the next build removes the folder (it
    holds the engine's marker)."""
    if not folder.exists():
        return
    _reap_removers()
    quiet = [(os.POSIX_SPAWN_OPEN, fd, os.devnull, os.O_RDWR, 0) for fd in (0, 1, 2)]
    try:
        pid = os.posix_spawnp("rm", ["rm", "-rf", "--", str(folder)], os.environ, file_actions=quiet, setsid=True)
    except (AttributeError, OSError):  # no posix_spawn, or no rm on the PATH
        shutil.rmtree(folder, ignore_errors=True)
        return
    _REMOVERS.append(pid)


def _reap_removers() -> None:
    for pid in list(_REMOVERS):
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            done = pid
        if done:
            _REMOVERS.remove(pid)
