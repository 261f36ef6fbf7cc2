#!/usr/bin/env python3
"""Benchmark of the site build, side by side in one run, on a generated 10-page site
whose pages each do about 1 s of work: cold with --jobs 1 and --jobs 2, a rebuild with
nothing changed, after a prose edit, after a code edit of one page. Every build is the
real command line (``python build.py``), timed wall-clock from start to exit.

Usage: python bench/build.py [--pages 10] [--work sleep|cpu] [--repeat 5]
Prints a Markdown table. Not a test: targets are reported, not asserted."""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORK = ROOT / ".cache" / "bench-build"
WORK_CODE = {
    "sleep": "time.sleep(1.0)",
    "cpu": "deadline = time.process_time() + 1.0\nwhile time.process_time() < deadline:\n    pass",
}
PAGE = """---
title: Bench Page {i}
summary: A generated page that does about one second of work.
theme: Bench
order: {i}
---

Page {i} of the benchmark site. It works for a second, then prints a line.

```python
import time
{work}
print("page {i} done")
```
"""
SUMMARY = re.compile(r"(\d+) pages: (\d+) executed, (\d+) cached, (\d+) failed")


def write_site(source: Path, pages: int, work: str) -> None:
    """A fresh source folder of ``pages`` explainers."""
    shutil.rmtree(source, ignore_errors=True)
    source.mkdir(parents=True)
    for i in range(1, pages + 1):
        (source / f"bench-{i:02d}.md").write_text(PAGE.format(i=i, work=WORK_CODE[work]), encoding="utf-8")


def cpu_seconds() -> float:
    """CPU time used so far by finished child processes (builds, workers and kernels)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def interpreter_start() -> float:
    """Wall time of ``python -c pass``: the floor under any command-line run on this machine now."""
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    return time.perf_counter() - started


def build(source: Path, cache: Path, jobs: int) -> tuple[float, str]:
    """Run ``python build.py`` once; return its wall time and its closing line."""
    command = [sys.executable, str(ROOT / "build.py"), "build", "--source", str(source.relative_to(ROOT)),
               "--out", str((WORK / "site").relative_to(ROOT)), "--cache-dir", str(cache.relative_to(ROOT)),
               "--jobs", str(jobs)]
    started = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"build failed:\n{done.stderr}")
    return seconds, done.stderr.strip().splitlines()[-1]


def executed(line: str) -> str:
    """"N executed, M cached" from a build's closing line."""
    match = SUMMARY.search(line)
    return f"{match.group(2)} executed, {match.group(3)} cached" if match else line


def edit(path: Path, old: str, new: str) -> None:
    """Replace ``old`` with ``new`` in the file at ``path``."""
    path.write_text(path.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")


def main() -> None:
    """Run the scenarios and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=10)
    parser.add_argument("--work", choices=sorted(WORK_CODE), default="sleep")
    parser.add_argument("--repeat", type=int, default=5, help="runs of the no-change rebuild (median)")
    args = parser.parse_args()
    source = WORK / "explainers"
    rows = []
    cold = {}

    def timed(name: str, source: Path, cache: Path, jobs: int) -> float:
        cpu = cpu_seconds()
        seconds, line = build(source, cache, jobs)
        rows.append((name, seconds, cpu_seconds() - cpu, executed(line)))
        return seconds

    for jobs in (1, 2):
        write_site(source, args.pages, args.work)
        cache = WORK / f"cache-jobs{jobs}"
        shutil.rmtree(cache, ignore_errors=True)
        cold[jobs] = timed(f"cold, --jobs {jobs}", source, cache, jobs)
    cache = WORK / "cache-jobs2"
    cpu = cpu_seconds()
    times = [build(source, cache, 2) for _ in range(args.repeat)]
    rows.append((f"nothing changed (median of {args.repeat})", statistics.median(t for t, _ in times),
                 (cpu_seconds() - cpu) / args.repeat, times[-1][1]))
    edit(source / "bench-03.md", "Page 3 of the benchmark site.", "Page 3 of the benchmark site, reworded.")
    timed("prose edit of one page", source, cache, 2)
    edit(source / "bench-05.md", 'print("page 5 done")', 'print("page 5 finished")')
    timed("code edit of one page", source, cache, 2)
    floor = statistics.median(interpreter_start() for _ in range(args.repeat))
    load = os.getloadavg()[0]
    print(f"{args.pages} pages, about 1 s of {args.work} work each; wall-clock time of `python build.py`, "
          f"CPU time of it and its workers and kernels; load average {load:.1f} on {os.cpu_count()} cores\n")
    print("| scenario | wall s | CPU s | pages |\n|---|---:|---:|---|")
    for name, seconds, cpu_used, what in rows:
        print(f"| {name} | {seconds:.2f} | {cpu_used:.2f} | {what} |")
    print(f"| `python -c pass` (interpreter start, for scale) | {floor:.2f} | | |")
    print(f"\n--jobs 2 speed-up over --jobs 1 (cold): {cold[1] / cold[2]:.2f}x (target >= 1.7x)")
    print(f"nothing changed: {rows[2][1]:.3f} s (target < 0.3 s); prose edit: {rows[3][3]} (target: 0 executed)")


if __name__ == "__main__":
    main()
