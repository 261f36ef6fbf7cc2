#!/usr/bin/env python3
"""Benchmark of ``serve`` at rest: the CPU its watcher takes while nothing changes.

Two watchers look after the same files, those the preview of the real site watches (the
explainers, the templates, site.yaml, the bibliography, the steps' inputs and every file
the last build recorded as read): the evented watcher of ``sitebuild.commands.serve``
(watchfiles: the operating system's file events) and the watcher of an earlier commit
(``--before``, by default the last commit whose serve.py polled every 50 ms), loaded from
git. Each round runs one watcher in a thread of this process for ``--seconds`` and reads
the process's CPU time (psutil) before and after; a round with no watcher gives the
process's own rest, which is subtracted. Rounds alternate which watcher goes first.

Usage: python bench/serve_idle.py [--seconds 10] [--rounds 3] [--before COMMIT]
Needs a build of the site first (``python build.py``), for the record of what the pages
read. Prints a Markdown table; nothing is written."""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Callable

import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sitebuild.commands.serve import ServeState, recorded_reads, watch, watched_paths  # noqa: E402
from sitebuild.config import make_config  # noqa: E402

POLLING_COMMIT = "10ebf00"  # serve.py's last version with the 50 ms stat-polling watcher


def earlier_watch(commit: str) -> Callable:
    """The ``watch`` function of sitebuild/commands/serve.py at ``commit``."""
    text = subprocess.run(["git", "show", f"{commit}:sitebuild/commands/serve.py"], cwd=ROOT, check=True,
                          capture_output=True, text=True).stdout
    folder = Path(tempfile.mkdtemp(prefix="serve-before-"))
    (folder / "serve_before.py").write_text(text, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("serve_before", folder / "serve_before.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look themselves up there
    spec.loader.exec_module(module)
    return module.watch


def cpu_share(watcher: Callable | None, config, paths: list[Path], seconds: float) -> float:
    """CPU seconds per second of this process while ``watcher`` (None: nothing) runs."""
    state, stop = ServeState(), threading.Event()
    state.watched = paths
    thread = None
    if watcher is not None:
        thread = threading.Thread(target=watcher, args=(config, state, lambda line: None, stop, None), daemon=True)
        thread.start()
        time.sleep(1.0)  # its first snapshot and start-up are not rest
    process = psutil.Process()
    before, started = process.cpu_times(), time.monotonic()
    time.sleep(seconds)
    after, ended = process.cpu_times(), time.monotonic()
    stop.set()
    if thread is not None:
        thread.join(timeout=10)
        assert state.version == 0, "a file changed during the measurement: it rebuilt"
    used = after.user + after.system - before.user - before.system
    return max(used, 0.0) / (ended - started)


class _Seen(Exception):
    """Raised from the progress callback: the watcher saw the change (no rebuild follows)."""


def detection_delay(watcher: Callable, config, paths: list[Path], touched: Path) -> float:
    """Seconds from a change of ``touched`` (its modification time moved on, its bytes
    untouched, then put back) to ``watcher`` announcing it."""
    state, stop, seen = ServeState(), threading.Event(), {}
    state.watched = paths

    def progress(line: str) -> None:
        if line.startswith("change detected"):
            seen["at"] = time.monotonic()
            stop.set()
            raise _Seen

    thread = threading.Thread(target=watcher, args=(config, state, progress, stop, None), daemon=True)
    thread.start()
    time.sleep(1.0)
    before = touched.stat()
    try:
        started = time.monotonic()
        os.utime(touched, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000_000))
        thread.join(timeout=30)
    finally:
        os.utime(touched, ns=(before.st_atime_ns, before.st_mtime_ns))
        stop.set()
    return seen["at"] - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="length of each measurement")
    parser.add_argument("--rounds", type=int, default=3, help="measurements of each watcher")
    parser.add_argument("--before", default=POLLING_COMMIT, help="the commit whose watcher is compared")
    args = parser.parse_args()
    config = make_config(ROOT)
    paths = watched_paths(config, recorded_reads(config))
    watchers = {"none (the process at rest)": None, f"polling, 50 ms ({args.before})": earlier_watch(args.before),
                "evented (watchfiles)": watch}
    shares: dict[str, list[float]] = {name: [] for name in watchers}
    for round_ in range(args.rounds):
        order = list(watchers) if round_ % 2 == 0 else list(reversed(watchers))
        for name in order:
            shares[name].append(cpu_share(watchers[name], config, paths, args.seconds))
    touched = config.source / "permutation-tests.md"
    delays: dict[str, list[float]] = {name: [] for name in watchers if watchers[name] is not None}
    for round_ in range(args.rounds):
        for name in delays if round_ % 2 == 0 else reversed(list(delays)):
            delays[name].append(detection_delay(watchers[name], config, paths, touched))
    rest = statistics.median(shares["none (the process at rest)"])
    print(f"{len(paths)} watched files; {args.rounds} rounds of {args.seconds:g} s each; "
          f"{psutil.cpu_count()} cores, shared with other work\n")
    print("| watcher | CPU, % of one core (median) | minus the process at rest | rounds |")
    print("|---|---|---|---|")
    for name, values in shares.items():
        median = statistics.median(values)
        print(f"| {name} | {100 * median:.2f} | {100 * (median - rest):.2f} | "
              f"{', '.join(f'{100 * v:.2f}' for v in values)} |")
    print(f"\n| watcher | a save of {touched.name} -> the watcher sees it, ms (median) | rounds |")
    print("|---|---|---|")
    for name, values in delays.items():
        print(f"| {name} | {1000 * statistics.median(values):.0f} | {', '.join(f'{1000 * v:.0f}' for v in values)} |")


if __name__ == "__main__":
    main()
