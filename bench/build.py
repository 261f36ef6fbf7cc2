#!/usr/bin/env python3
"""Benchmark of the site build, every build the real command line (``python build.py``)
timed wall-clock from start to exit, in a temporary project (``--root``), in one run.
Cold builds run in arms side by side: kernels forked from the warm template (the default)
and kernels started fresh (``SITEBUILD_KERNELS=fresh``), in rounds of rotating order, medians:

1. a 10-page site whose pages each do about 1 s of work: cold with --jobs 1 and
   --jobs 2, forked and fresh, and the same pages built cold by Sphinx + MyST-NB
   (``sphinx-build -j 2``, notebooks executed into a fresh jupyter-cache), the
   alternative; then a rebuild with nothing changed, after a prose edit, after a code edit;
2. the repository's own site (pages, faircode, audits, results copied), cold, --jobs 2,
   forked and fresh, with the peak memory of the build's processes together;
3. a site of 300 trivial pages: cold with --jobs 2, forked and fresh (no page may fail;
   peak memory), nothing changed, and a prose edit of one page.

With ``--against COMMIT`` it runs one scenario instead: the 300 trivial pages built by two
engines side by side, the engine as it is now and the engine of ``COMMIT`` (its build.py
and sitebuild/, with the templates of now), each with its own copy of the pages, cache and
output. Rounds of cold builds (``--cold-rounds``, no cache), then rounds of alternating
order time a build with nothing changed and a build after a prose edit of one page (the
same page for both engines), wall-clock and CPU time of the whole process; medians and the
ratio. A change of structure should change neither.
``--now COMMIT`` puts COMMIT's engine in place of the work tree's, to time one commit
against its parent.

The engine snapshot is byte-compiled before the runs (as pip does on install), so no
run pays for compiling it even where PYTHONDONTWRITEBYTECODE is set.

Usage: python bench/build.py [--pages 10] [--large 300] [--work sleep|cpu] [--repeat 5] [--rounds 3]
       [--large-rounds 2] [--real 1] [--real-rounds 3]
       python bench/build.py --against COMMIT [--now COMMIT] [--large 300] [--repeat 9] [--cold-rounds 1]
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
import threading
import time
from pathlib import Path
from typing import Callable

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
EDIT_WORDS = ("plain", "short", "brief", "simple", "clear", "quiet", "modest", "small", "dry", "calm", "even")
SUMMARY = re.compile(r"(\d+) pages: (\d+) executed, (\d+) cached, (\d+) failed")


def make_project(base: Path) -> Path:
    """A temporary project root: a snapshot of the engine (``engine/``: build.py and
    sitebuild/ as they are now, so edits made while the benchmark runs do not reach it)
    and of the templates, no site.yaml, no steps."""
    base.mkdir(parents=True, exist_ok=True)
    shutil.copytree(ROOT / "templates", base / "templates")
    snapshot_engine(None, base / "engine")
    return base


def snapshot_engine(commit: str | None, target: Path) -> Path:
    """``build.py`` and ``sitebuild/`` of ``commit`` (None: the work tree) in ``target``, byte-compiled."""
    target.mkdir(parents=True)
    if commit is None:
        shutil.copytree(ROOT / "sitebuild", target / "sitebuild", ignore=shutil.ignore_patterns("__pycache__"))
        shutil.copy2(ROOT / "build.py", target / "build.py")
    else:
        archive = subprocess.run(["git", "archive", commit, "build.py", "sitebuild"], cwd=ROOT, check=True,
                                 capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(target)], input=archive, check=True)
    # Compiled once, as an installed package is: with PYTHONDONTWRITEBYTECODE set (as on
    # some CI machines) every build would otherwise compile the whole engine again.
    compileall.compile_dir(str(target), quiet=1)
    return target


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


#: The kernels of each arm: forked from the warm template, or each started fresh.
KERNELS = ("forked", "fresh")
#: The peak memory of the last build timed with ``memory=True``: (RSS, PSS) summed over its processes, bytes.
PEAK_MEMORY: list[tuple[int, int]] = []


def build(project: Path, source: str, out: str, cache: str, jobs: int, kernels: str = "forked",
          memory: bool = False, engine: Path | None = None) -> tuple[float, str]:
    """Run ``python build.py`` once (its kernels ``forked`` or ``fresh``; by ``engine``, by
    default the project's own); return its wall time and its closing line. With ``memory``,
    the peak of the memory its processes use together is sampled every 0.2 s (into
    :data:`PEAK_MEMORY`)."""
    engine = engine or project / "engine"
    command = [sys.executable, str(engine / "build.py"), "build", "--root", str(project), "--source", source,
               "--out", out, "--cache-dir", cache, "--jobs", str(jobs)]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(engine), os.environ.get("PYTHONPATH")])),
               SITEBUILD_KERNELS=kernels)
    started = time.perf_counter()
    with tempfile.TemporaryFile("w+") as errors:
        process = subprocess.Popen(command, cwd=project, stdout=subprocess.DEVNULL, stderr=errors, text=True, env=env)
        peaks: list[tuple[int, int]] = [(0, 0)]
        sampler = _sample_memory(process, peaks) if memory else None
        # A blocking wait: Popen.wait(timeout=...) polls with sleeps that grow to 50 ms, so
        # an exit would be seen up to 50 ms late (every build timed in 50 ms steps).
        process.wait()
        seconds = time.perf_counter() - started
        if sampler is not None:
            sampler.join()
        peak = max(peaks)
        errors.seek(0)
        stderr = errors.read()
    if memory:
        PEAK_MEMORY.append(peak)
    if process.returncode != 0:
        sys.exit(f"build failed:\n{stderr[-6000:]}")
    lines = stderr.strip().splitlines()
    closing = [line for line in lines if SUMMARY.search(line) or "up to date" in line]
    return seconds, (closing or lines)[-1]


def _sample_memory(process: subprocess.Popen, peaks: list[tuple[int, int]]) -> threading.Thread:
    """A thread adding the memory of ``process``'s tree to ``peaks`` every 0.2 s until it ends."""
    def sample() -> None:
        while process.poll() is None:
            peaks.append(tree_memory(process.pid))
            time.sleep(0.2)

    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    return thread


def tree_memory(pid: int) -> tuple[int, int]:
    """(RSS, PSS) in bytes summed over process ``pid`` and its descendants (a forked
    kernel's pages shared with the template count once in PSS, in each process in RSS)."""
    import psutil

    try:
        processes = [psutil.Process(pid), *psutil.Process(pid).children(recursive=True)]
    except psutil.Error:
        return 0, 0
    rss = pss = 0
    for process in processes:
        try:
            with open(f"/proc/{process.pid}/smaps_rollup", encoding="ascii") as rollup:
                for line in rollup:
                    if line.startswith(("Rss:", "Pss:")):
                        kib = int(line.split()[1]) * 1024
                        rss, pss = (rss + kib, pss) if line.startswith("Rss:") else (rss, pss + kib)
        except (OSError, ValueError):
            continue
    return rss, pss


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


def cold_rounds(arms: dict[str, Callable[[], tuple[float, str]]], rounds: int) -> dict[str, list[tuple]]:
    """Run each arm (a cold build: its wall time and what it ran) once per round, each
    round in another order, so that the machine's noise falls on all arms alike."""
    runs: dict[str, list[tuple[float, float, str]]] = {name: [] for name in arms}
    order = list(arms)
    for round_ in range(rounds):
        shift = round_ % len(order)
        for name in order[shift:] + order[:shift]:
            cpu = cpu_seconds()
            result = arms[name]()
            if result is not None:
                runs[name].append((result[0], cpu_seconds() - cpu, result[1]))
    return runs


def median_rows(runs: dict[str, list[tuple]], names: dict[str, str]) -> tuple[list[tuple], dict[str, float]]:
    """Table rows of the medians of ``runs``, and the medians by arm."""
    rows, medians = [], {}
    for which, done in runs.items():
        if done:
            medians[which] = statistics.median(t for t, _, _ in done)
            rows.append((f"{names[which]} (median of {len(done)})", medians[which],
                         statistics.median(c for _, c, _ in done), done[-1][2]))
    return rows, medians


def small_site(project: Path, args) -> dict:
    """The 10-page scenarios and the comparison with Sphinx + MyST-NB."""
    source = project / "explainers"

    def timed(name: str, cache: str, jobs: int) -> float:
        cpu = cpu_seconds()
        seconds, line = build(project, "explainers", "site", cache, jobs)
        rows.append((name, seconds, cpu_seconds() - cpu, executed(line)))
        return seconds

    def ours(jobs: int, kernels: str):
        def run() -> tuple[float, str]:
            write_pages(source, args.pages, PAGE, args.work)
            cache = f"cache-{jobs}-{kernels}"
            shutil.rmtree(project / cache, ignore_errors=True)
            seconds, line = build(project, "explainers", "site", cache, jobs, kernels)
            return seconds, executed(line)
        return run

    def sphinx_run():
        seconds = sphinx_build(project, args.pages, args.work, 2)
        return None if seconds is None else (seconds, f"{args.pages} executed")

    arms = {"jobs1": ours(1, "forked"), "jobs2": ours(2, "forked"), "jobs2-fresh": ours(2, "fresh"),
            "sphinx": sphinx_run}
    names = {"jobs1": "cold, --jobs 1, forked kernels", "jobs2": "cold, --jobs 2, forked kernels",
             "jobs2-fresh": "cold, --jobs 2, fresh kernels", "sphinx": "Sphinx + MyST-NB cold, -j 2 (jupyter-cache)"}
    rows, medians = median_rows(cold_rounds(arms, args.rounds), names)
    cache = "cache-2-forked"
    build(project, "explainers", "site", cache, 2)  # the site of the --jobs 2 cache, its stamp recorded
    cpu = cpu_seconds()
    times = [build(project, "explainers", "site", cache, 2) for _ in range(args.repeat)]
    rows.append((f"nothing changed (median of {args.repeat})", statistics.median(t for t, _ in times),
                 (cpu_seconds() - cpu) / args.repeat, times[-1][1]))
    prose, code = min(3, args.pages), min(5, args.pages)
    edit(source / f"bench-{prose:03d}.md", "It works for a second", "It works for about a second")
    timed("prose edit of one page", cache, 2)
    edit(source / f"bench-{code:03d}.md", f'print("page {code} done")', f'print("page {code} finished")')
    timed("code edit of one page", cache, 2)
    table(f"{args.pages} pages, about 1 s of {args.work} work each", rows)
    forked, fresh = medians["jobs2"], medians["jobs2-fresh"]
    print(f"\n--jobs 2 speed-up over --jobs 1 (cold, forked): {medians['jobs1'] / forked:.2f}x (target >= 1.7x)")
    print(f"forked kernels against fresh ones (cold, --jobs 2): {fresh / forked:.2f}x faster")
    if "sphinx" in medians:
        print(f"cold --jobs 2 (forked) against Sphinx + MyST-NB -j 2: {medians['sphinx'] / forked:.2f}x faster "
              f"(target >= 3x); fresh kernels: {medians['sphinx'] / fresh:.2f}x")
    return medians


def large_site(project: Path, args) -> None:
    """The 300-page scenarios: cold with forked and with fresh kernels (no page may fail;
    peak memory sampled), nothing changed, a prose edit."""
    source = project / "large"
    write_pages(source, args.large, TRIVIAL)

    def cold(kernels: str):
        def run() -> tuple[float, str]:
            shutil.rmtree(project / f"large-cache-{kernels}", ignore_errors=True)
            seconds, line = build(project, "large", "large-site", f"large-cache-{kernels}", 2, kernels, memory=True)
            match = SUMMARY.search(line)
            if match is None or match.group(4) != "0":
                sys.exit(f"the cold build of {args.large} pages had failures: {line}")
            peaks[kernels].append(PEAK_MEMORY[-1])
            return seconds, executed(line)
        return run

    peaks: dict[str, list] = {"forked": [], "fresh": []}
    runs = cold_rounds({"forked": cold("forked"), "fresh": cold("fresh")}, args.large_rounds)
    rows, medians = median_rows(runs, {"forked": "cold, --jobs 2, forked kernels",
                                       "fresh": "cold, --jobs 2, fresh kernels"})
    cache = "large-cache-forked"
    build(project, "large", "large-site", cache, 2)  # the first rebuild records the stamp
    cpu = cpu_seconds()
    times = [build(project, "large", "large-site", cache, 2) for _ in range(args.repeat)]
    rows.append((f"nothing changed (median of {args.repeat})", statistics.median(t for t, _ in times),
                 (cpu_seconds() - cpu) / args.repeat, times[-1][1]))
    edits = []
    cpu = cpu_seconds()
    for k in range(args.repeat):
        i = 10 + k
        word = EDIT_WORDS[k % len(EDIT_WORDS)]  # words only: an edit that quotes no new number
        edit(source / f"bench-{i:03d}.md", "a paragraph of prose", f"a paragraph of {word} prose")
        edits.append(build(project, "large", "large-site", cache, 2))
    rows.append((f"prose edit of one page (median of {args.repeat})", statistics.median(t for t, _ in edits),
                 (cpu_seconds() - cpu) / args.repeat, executed(edits[-1][1])))
    table(f"{args.large} trivial pages", rows)
    print(f"\ncold: {medians['forked']:.1f} s forked (target <= 45 s), {medians['fresh']:.1f} s fresh, "
          f"{medians['fresh'] / medians['forked']:.2f}x; per page {medians['forked'] / args.large:.3f} s forked "
          f"(target < 0.1 s)")
    print_peaks(peaks)
    print(f"nothing changed: {rows[-2][1]:.3f} s (target < 0.3 s); "
          f"prose edit: {rows[-1][1]:.3f} s (target < 0.35 s), {rows[-1][3]} (target: 0 executed)")


def print_peaks(peaks: dict[str, list[tuple[int, int]]]) -> None:
    """The largest peak memory of each arm's cold builds (RSS and PSS summed over processes)."""
    for kernels, seen in peaks.items():
        if seen:
            rss, pss = max(r for r, _ in seen), max(p for _, p in seen)
            print(f"peak memory of a cold build, {kernels} kernels: PSS {pss / 2**30:.2f} GB, RSS {rss / 2**30:.2f} GB "
                  f"(summed over the build's processes)")


#: What the real site's project needs beside the engine (copied, so edits made meanwhile do not reach it).
REAL_SITE = ("explainers", "faircode", "audits", "results", "site.yaml")


def real_site(project: Path, args) -> None:
    """The repository's own site (its pages, faircode, audits and results copied), cold with
    forked and with fresh kernels, --jobs 2, in rotating rounds; peak memory sampled."""
    real = project / "real"
    real.mkdir()
    shutil.copytree(ROOT / "templates", real / "templates")
    shutil.copytree(project / "engine", real / "engine")
    for name in REAL_SITE:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, real / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(ROOT / name, real / name)
    peaks: dict[str, list] = {"forked": [], "fresh": []}

    def cold(kernels: str):
        def run() -> tuple[float, str]:
            shutil.rmtree(real / f"cache-{kernels}", ignore_errors=True)
            seconds, line = build(real, "explainers", "site", f"cache-{kernels}", 2, kernels, memory=True)
            peaks[kernels].append(PEAK_MEMORY[-1])
            return seconds, executed(line)
        return run

    runs = cold_rounds({"forked": cold("forked"), "fresh": cold("fresh")}, args.real_rounds)
    rows, medians = median_rows(runs, {"forked": "cold, --jobs 2, forked kernels",
                                       "fresh": "cold, --jobs 2, fresh kernels"})
    table("the real site (explainers/)", rows)
    print(f"\ncold: {medians['forked']:.1f} s forked (target <= 14 s), {medians['fresh']:.1f} s fresh, "
          f"{medians['fresh'] / medians['forked']:.2f}x")
    print_peaks(peaks)


def engines_side_by_side(project: Path, args) -> None:
    """The 300 trivial pages built by the engine of now and by the engine of
    ``args.against``: nothing changed and a prose edit, alternating rounds, medians."""
    now = project / "engine" if args.now is None else snapshot_engine(args.now, project / "engine-now")
    engines = {"now": now, "before": snapshot_engine(args.against, project / "engine-before")}
    # Each engine has its own copy of the pages: a build writes into its source folder (the
    # quote lock, the generated scripts), and the engines' formats differ, so a shared
    # folder would make each engine's build redo the other's writes.
    for name in engines:
        write_pages(project / f"large-{name}", args.large, TRIVIAL)
    times: dict[tuple[str, str], list[tuple[float, float]]] = {}

    def timed(name: str, scenario: str) -> str:
        cpu = cpu_seconds()
        seconds, line = build(project, f"large-{name}", f"site-{name}", f"cache-{name}", 2, engine=engines[name])
        times.setdefault((name, scenario), []).append((seconds, cpu_seconds() - cpu))
        return line

    for k in range(max(1, args.cold_rounds)):
        for name in (list(engines) if k % 2 == 0 else list(reversed(engines))):
            shutil.rmtree(project / f"cache-{name}", ignore_errors=True)
            line = timed(name, "cold")
            print(f"cold build, {name} engine: {times[(name, 'cold')][-1][0]:.1f} s ({line})", file=sys.stderr)
    for name, engine in engines.items():
        build(project, f"large-{name}", f"site-{name}", f"cache-{name}", 2, engine=engine)  # records the stamp
    for k in range(args.repeat):
        order = list(engines) if k % 2 == 0 else list(reversed(engines))
        for name in order:
            timed(name, "nothing changed")
        for name in engines:  # the same edit of the same page; words only, so no new number is quoted
            edit(project / f"large-{name}" / f"bench-{10 + k:03d}.md", "a paragraph of prose",
                 f"a paragraph of {EDIT_WORDS[k % len(EDIT_WORDS)]} prose")
        for name in order:
            line = timed(name, "prose edit of one page")
            if " 0 executed" not in line:
                print(f"note: the {name} engine's prose-edit build said: {line}", file=sys.stderr)
    print(f"\n{args.large} trivial pages, --jobs 2, medians of {args.repeat} alternating rounds "
          f"({max(1, args.cold_rounds)} of the cold builds); "
          f"now = {args.now or 'the work tree'}, before = {args.against}\n")
    print("| build | now, wall (s) | before, wall (s) | ratio | now, CPU (s) | before, CPU (s) | ratio |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for scenario in ("cold", "nothing changed", "prose edit of one page"):
        now = [statistics.median(x[i] for x in times[("now", scenario)]) for i in (0, 1)]
        before = [statistics.median(x[i] for x in times[("before", scenario)]) for i in (0, 1)]
        print(f"| {scenario} | {now[0]:.3f} | {before[0]:.3f} | {now[0] / before[0]:.2f} | {now[1]:.3f} | "
              f"{before[1]:.3f} | {now[1] / before[1]:.2f} |")


def main() -> None:
    """Run the scenarios and print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=10)
    parser.add_argument("--large", type=int, default=300, help="pages of the trivial site (0 skips it)")
    parser.add_argument("--work", choices=sorted(WORK_CODE), default="sleep")
    parser.add_argument("--repeat", type=int, default=5, help="runs of the repeated scenarios (median)")
    parser.add_argument("--rounds", type=int, default=3,
                        help="rounds of the 10-page cold builds and Sphinx's, each in another order (median)")
    parser.add_argument("--large-rounds", type=int, default=2, help="rounds of the large site's cold builds")
    parser.add_argument("--real", type=int, default=1, help="1: also build the repository's own site cold; 0: not")
    parser.add_argument("--real-rounds", type=int, default=3, help="rounds of the real site's cold builds")
    parser.add_argument("--against", metavar="COMMIT",
                        help="only compare the engine of now with COMMIT's on the trivial pages (see above)")
    parser.add_argument("--cold-rounds", type=int, default=1,
                        help="with --against: rounds of cold builds (no cache) of each engine, alternating")
    parser.add_argument("--now", metavar="COMMIT",
                        help="with --against: COMMIT's engine stands for now (one change measured against its parent)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-build-") as folder:
        project = make_project(Path(folder) / "project")
        load = os.getloadavg()[0]
        print(f"Wall-clock time of `python build.py` (the whole process), CPU time of it and its workers "
              f"and kernels; load average {load:.1f} on {os.cpu_count()} cores at the start")
        if args.against:
            engines_side_by_side(project, args)
            return
        if args.pages:
            small_site(project, args)
        if args.real:
            real_site(project, args)
        if args.large:
            large_site(project, args)
        floor = statistics.median(interpreter_start() for _ in range(args.repeat))
        print(f"\n`python -c pass` (interpreter start, for scale): {floor:.3f} s")


if __name__ == "__main__":
    main()
