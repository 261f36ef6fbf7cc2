#!/usr/bin/env python3
"""Benchmark of the site build, every build the real command line (``python build.py``)
timed wall-clock from start to exit, in a temporary project (``--root``), in one run:

1. a 10-page site whose pages each do about 1 s of work: cold with --jobs 1 and
   --jobs 2, and the same pages built cold by Sphinx + MyST-NB (``sphinx-build -j 2``,
   notebooks executed into a fresh jupyter-cache), the alternative, in --rounds rounds
   each in another order (medians); then a rebuild with nothing changed, after a prose
   edit, after a code edit;
2. a site of 300 trivial pages: cold with --jobs 2 (no page may fail), nothing changed,
   and a prose edit of one page.

The engine snapshot is byte-compiled before the runs (as pip does on install), so no
run pays for compiling it even where PYTHONDONTWRITEBYTECODE is set.

Usage: python bench/build.py [--pages 10] [--large 300] [--work sleep|cpu] [--repeat 5] [--rounds 3]
Prints Markdown tables. Not a test: targets are reported, not asserted."""

from __future__ import annotations

import argparse
import compileall
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
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
TRIVIAL = """---
title: Trivial Page {i}
summary: A generated page with one line of code.
theme: Bench
order: {i}
---

Page {i} of the large benchmark site: a paragraph of prose and one small block.

```python
print("page {i}", {i} * 2)
```
"""
MYST_PAGE = """---
file_format: mystnb
kernelspec:
  name: python3
  display_name: Python 3
---

# Bench Page {i}

Page {i} of the benchmark site. It works for a second, then prints a line.

```{{code-cell}} python
import time
{work}
print("page {i} done")
```
"""
SPHINX_CONF = """project = "bench"
extensions = ["myst_nb"]
nb_execution_mode = "cache"
nb_execution_cache_path = {cache!r}
nb_execution_timeout = 120
exclude_patterns = ["_build"]
html_theme = "alabaster"
"""
SUMMARY = re.compile(r"(\d+) pages: (\d+) executed, (\d+) cached, (\d+) failed")


def make_project(base: Path) -> Path:
    """A temporary project root: a snapshot of the engine (``engine/``: build.py and
    sitebuild/ as they are now, so edits made while the benchmark runs do not reach it)
    and of the templates, no site.yaml, no steps."""
    base.mkdir(parents=True, exist_ok=True)
    shutil.copytree(ROOT / "templates", base / "templates")
    shutil.copytree(ROOT / "sitebuild", base / "engine" / "sitebuild", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy2(ROOT / "build.py", base / "engine" / "build.py")
    # Compiled once, as an installed package is: with PYTHONDONTWRITEBYTECODE set (as on
    # some CI machines) every build would otherwise compile the whole engine again.
    compileall.compile_dir(str(base / "engine"), quiet=1)
    return base


def write_pages(source: Path, count: int, template: str, work: str = "sleep", suffix: str = ".md") -> None:
    """A fresh source folder of ``count`` pages."""
    shutil.rmtree(source, ignore_errors=True)
    source.mkdir(parents=True)
    for i in range(1, count + 1):
        (source / f"bench-{i:03d}{suffix}").write_text(template.format(i=i, work=WORK_CODE[work]), encoding="utf-8")


def cpu_seconds() -> float:
    """CPU time used so far by finished child processes (builds, workers and kernels)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def interpreter_start() -> float:
    """Wall time of ``python -c pass``: the floor under any command-line run on this machine now."""
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    return time.perf_counter() - started


def build(project: Path, source: str, out: str, cache: str, jobs: int) -> tuple[float, str]:
    """Run ``python build.py`` once; return its wall time and its closing line."""
    engine = project / "engine"
    command = [sys.executable, str(engine / "build.py"), "build", "--root", str(project), "--source", source,
               "--out", out, "--cache-dir", cache, "--jobs", str(jobs)]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(engine), os.environ.get("PYTHONPATH")])))
    started = time.perf_counter()
    done = subprocess.run(command, cwd=project, capture_output=True, text=True, env=env)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"build failed:\n{done.stderr[-6000:]}")
    lines = done.stderr.strip().splitlines()
    closing = [line for line in lines if SUMMARY.search(line) or "up to date" in line]
    return seconds, (closing or lines)[-1]


def sphinx_build(project: Path, pages: int, work: str, jobs: int) -> float | None:
    """Build the same pages cold with Sphinx + MyST-NB; None when Sphinx is not installed."""
    try:
        import myst_nb  # noqa: F401
        import sphinx  # noqa: F401
    except ImportError:
        return None
    source = project / "sphinx"
    write_pages(source, pages, MYST_PAGE, work)
    (source / "index.md").write_text("# Bench\n\n```{toctree}\n:glob:\nbench-*\n```\n", encoding="utf-8")
    (source / "conf.py").write_text(SPHINX_CONF.format(cache=str(project / "jupyter-cache")), encoding="utf-8")
    shutil.rmtree(project / "jupyter-cache", ignore_errors=True)
    from jupyter_cache import get_cache

    # Created and opened beforehand: parallel readers race to create its tables otherwise.
    get_cache(project / "jupyter-cache").list_cache_records()
    command = [sys.executable, "-m", "sphinx", "-q", "-j", str(jobs), "-b", "html", str(source),
               str(project / "sphinx-out")]
    started = time.perf_counter()
    done = subprocess.run(command, cwd=project, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"sphinx-build failed:\n{done.stderr[-4000:]}")
    return seconds


def executed(line: str) -> str:
    """"N executed, M cached, K failed" from a build's closing line."""
    match = SUMMARY.search(line)
    return f"{match.group(2)} executed, {match.group(3)} cached, {match.group(4)} failed" if match else line


def edit(path: Path, old: str, new: str) -> None:
    """Replace ``old`` with ``new`` in the file at ``path``."""
    path.write_text(path.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")


def table(title: str, rows: list[tuple]) -> None:
    print(f"\n{title}\n\n| scenario | wall s | CPU s | pages |\n|---|---:|---:|---|")
    for name, seconds, cpu_used, what in rows:
        print(f"| {name} | {seconds:.3f} | {cpu_used:.2f} | {what} |")


def small_site(project: Path, args) -> dict:
    """The 10-page scenarios and the comparison with Sphinx + MyST-NB."""
    source = project / "explainers"
    rows, cold = [], {}

    def timed(name: str, cache: str, jobs: int) -> float:
        cpu = cpu_seconds()
        seconds, line = build(project, "explainers", "site", cache, jobs)
        rows.append((name, seconds, cpu_seconds() - cpu, executed(line)))
        return seconds

    # The cold builds are repeated in rounds, each round in another order, so that the
    # machine's noise falls on all three alike; the medians are compared.
    runs: dict[str, list[tuple[float, float, str]]] = {"jobs1": [], "jobs2": [], "sphinx": []}

    def cold_run(which: str) -> None:
        cpu = cpu_seconds()
        if which == "sphinx":
            seconds, what = sphinx_build(project, args.pages, args.work, 2), f"{args.pages} executed"
            if seconds is None:
                return
        else:
            jobs = int(which[-1])
            write_pages(source, args.pages, PAGE, args.work)
            shutil.rmtree(project / f"cache-{which}", ignore_errors=True)
            seconds, line = build(project, "explainers", "site", f"cache-{which}", jobs)
            what = executed(line)
        runs[which].append((seconds, cpu_seconds() - cpu, what))

    order = ["jobs1", "jobs2", "sphinx"]
    for round_ in range(args.rounds):
        for which in order[round_ % 3:] + order[:round_ % 3]:
            cold_run(which)
    names = {"jobs1": "cold, --jobs 1", "jobs2": "cold, --jobs 2",
             "sphinx": "Sphinx + MyST-NB cold, -j 2 (jupyter-cache)"}
    medians = {}
    for which, done in runs.items():
        if done:
            medians[which] = statistics.median(t for t, _, _ in done)
            rows.append((f"{names[which]} (median of {len(done)})", medians[which],
                         statistics.median(c for _, c, _ in done), done[-1][2]))
    cold = {1: medians["jobs1"], 2: medians["jobs2"]}
    sphinx = medians.get("sphinx")
    build(project, "explainers", "site", "cache-jobs2", 2)  # the site of the --jobs 2 cache, its stamp recorded
    cpu = cpu_seconds()
    times = [build(project, "explainers", "site", "cache-jobs2", 2) for _ in range(args.repeat)]
    rows.append((f"nothing changed (median of {args.repeat})", statistics.median(t for t, _ in times),
                 (cpu_seconds() - cpu) / args.repeat, times[-1][1]))
    prose, code = min(3, args.pages), min(5, args.pages)
    edit(source / f"bench-{prose:03d}.md", "It works for a second", "It works for about a second")
    timed("prose edit of one page", "cache-jobs2", 2)
    edit(source / f"bench-{code:03d}.md", f'print("page {code} done")', f'print("page {code} finished")')
    timed("code edit of one page", "cache-jobs2", 2)
    table(f"{args.pages} pages, about 1 s of {args.work} work each", rows)
    print(f"\n--jobs 2 speed-up over --jobs 1 (cold): {cold[1] / cold[2]:.2f}x (target >= 1.7x)")
    if sphinx is not None:
        print(f"cold --jobs 2 against Sphinx + MyST-NB -j 2: {sphinx / cold[2]:.2f}x faster (target >= 1.5x)")
    return {"cold": cold, "sphinx": sphinx}


def large_site(project: Path, args) -> None:
    """The 300-page scenarios: cold (no page may fail), nothing changed, a prose edit."""
    source = project / "large"
    write_pages(source, args.large, TRIVIAL)
    rows = []
    cpu = cpu_seconds()
    seconds, line = build(project, "large", "large-site", "large-cache", 2)
    rows.append(("cold, --jobs 2", seconds, cpu_seconds() - cpu, executed(line)))
    match = SUMMARY.search(line)
    if match is None or match.group(4) != "0":
        sys.exit(f"the cold build of {args.large} pages had failures: {line}")
    build(project, "large", "large-site", "large-cache", 2)  # the first rebuild records the stamp
    cpu = cpu_seconds()
    times = [build(project, "large", "large-site", "large-cache", 2) for _ in range(args.repeat)]
    rows.append((f"nothing changed (median of {args.repeat})", statistics.median(t for t, _ in times),
                 (cpu_seconds() - cpu) / args.repeat, times[-1][1]))
    edits = []
    cpu = cpu_seconds()
    for k in range(args.repeat):
        i = 10 + k
        edit(source / f"bench-{i:03d}.md", "a paragraph of prose", f"a paragraph of prose, edited {k}")
        edits.append(build(project, "large", "large-site", "large-cache", 2))
    rows.append((f"prose edit of one page (median of {args.repeat})", statistics.median(t for t, _ in edits),
                 (cpu_seconds() - cpu) / args.repeat, executed(edits[-1][1])))
    table(f"{args.large} trivial pages", rows)
    print(f"\nnothing changed: {rows[1][1]:.3f} s (target < 0.3 s); "
          f"prose edit: {rows[2][1]:.3f} s (target < 0.35 s), {rows[2][3]} (target: 0 executed)")


def main() -> None:
    """Run the scenarios and print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=10)
    parser.add_argument("--large", type=int, default=300, help="pages of the trivial site (0 skips it)")
    parser.add_argument("--work", choices=sorted(WORK_CODE), default="sleep")
    parser.add_argument("--repeat", type=int, default=5, help="runs of the repeated scenarios (median)")
    parser.add_argument("--rounds", type=int, default=3,
                        help="rounds of the 10-page cold builds and Sphinx's, each in another order (median)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-build-") as folder:
        project = make_project(Path(folder) / "project")
        load = os.getloadavg()[0]
        print(f"Wall-clock time of `python build.py` (the whole process), CPU time of it and its workers "
              f"and kernels; load average {load:.1f} on {os.cpu_count()} cores at the start")
        if args.pages:
            small_site(project, args)
        if args.large:
            large_site(project, args)
        floor = statistics.median(interpreter_start() for _ in range(args.repeat))
        print(f"\n`python -c pass` (interpreter start, for scale): {floor:.3f} s")


if __name__ == "__main__":
    main()
