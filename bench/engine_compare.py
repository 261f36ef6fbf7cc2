#!/usr/bin/env python3
"""Benchmark of two engines on the same warm site, side by side in one run: the engine as
it is now and the engine of an earlier commit (``--before``, by default the commit before
the stage script over frozen data landed), each a snapshot of ``build.py`` and
``sitebuild/`` in a temporary project with the templates of now.

Each engine builds the same site of ``--pages`` trivial pages cold once, into its own
cache and output. Then, in rounds of alternating order, each engine runs a build with
nothing changed and a build after a prose edit of one page (a different page each round,
the same page for both engines). Every build is the real command line, timed wall-clock
from start to exit. A refactor of the stages is meant to change neither time.

Usage: python bench/engine_compare.py [--before COMMIT] [--pages 300] [--rounds 7]
Prints a Markdown table of medians and the ratio. Not a test."""

from __future__ import annotations

import argparse
import compileall
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: The commit on main before the stage script over frozen data and typed records landed.
DEFAULT_BEFORE = "9ed750a"
PAGE = """---
title: Bench page {i}
summary: A trivial page of the benchmark.
---

A paragraph of prose for page {i}.

```python
print({i} * 2)
```
"""


def snapshot_engine(commit: str | None, target: Path) -> Path:
    """``build.py`` and ``sitebuild/`` of ``commit`` (None: the work tree), byte-compiled."""
    target.mkdir(parents=True)
    if commit is None:
        shutil.copytree(ROOT / "sitebuild", target / "sitebuild", ignore=shutil.ignore_patterns("__pycache__"))
        shutil.copy2(ROOT / "build.py", target / "build.py")
    else:
        archive = subprocess.run(["git", "archive", commit, "build.py", "sitebuild"], cwd=ROOT, check=True,
                                 capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(target)], input=archive, check=True)
    compileall.compile_dir(str(target), quiet=1)
    return target


def build(project: Path, engine: Path, name: str) -> tuple[float, str]:
    """One ``python build.py build`` of the project's pages by ``engine``; seconds and its last line."""
    command = [sys.executable, str(engine / "build.py"), "build", "--root", str(project), "--source", "pages",
               "--out", f"site-{name}", "--cache-dir", f"cache-{name}", "--jobs", "2"]
    env = dict(os.environ, PYTHONPATH=str(engine))
    started = time.perf_counter()
    done = subprocess.run(command, cwd=project, capture_output=True, text=True, env=env)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"the {name} engine's build failed:\n{done.stderr[-4000:]}")
    lines = done.stderr.strip().splitlines()
    closing = [line for line in lines if " executed, " in line or "up to date" in line]
    return seconds, (closing or lines or [""])[-1]


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print its table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", default=DEFAULT_BEFORE, help="the commit whose engine is compared")
    parser.add_argument("--pages", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-engines-") as name:
        project = Path(name)
        shutil.copytree(ROOT / "templates", project / "templates")
        engines = {"now": snapshot_engine(None, project / "engine-now"),
                   "before": snapshot_engine(args.before, project / "engine-before")}
        pages = project / "pages"
        pages.mkdir()
        for i in range(1, args.pages + 1):
            (pages / f"bench-{i:03d}.md").write_text(PAGE.format(i=i), encoding="utf-8")
        for engine_name, engine in engines.items():
            seconds, line = build(project, engine, engine_name)
            print(f"cold build, {engine_name} engine: {seconds:.1f} s ({line})", file=sys.stderr)
            build(project, engine, engine_name)  # the first rebuild records the stamp
        times: dict[tuple[str, str], list[float]] = {}
        for k in range(args.rounds):
            order = list(engines.items()) if k % 2 == 0 else list(reversed(engines.items()))
            for engine_name, engine in order:
                times.setdefault((engine_name, "no-op"), []).append(build(project, engine, engine_name)[0])
            page = pages / f"bench-{10 + k:03d}.md"
            text = page.read_text(encoding="utf-8")
            page.write_text(text.replace("A paragraph of prose", f"A paragraph of prose, edited {k},"),
                            encoding="utf-8")
            for engine_name, engine in order:
                seconds, line = build(project, engine, engine_name)
                times.setdefault((engine_name, "prose edit"), []).append(seconds)
                if " 0 executed" not in line:
                    print(f"note: the {engine_name} engine's prose-edit build said: {line}", file=sys.stderr)
    print(f"{args.pages} trivial pages, --jobs 2; medians of {args.rounds} alternating rounds; "
          f"before = {args.before}\n")
    print("| build | now (s) | before (s) | now / before |")
    print("|---|---:|---:|---:|")
    for scenario in ("no-op", "prose edit"):
        now, before = statistics.median(times[("now", scenario)]), statistics.median(times[("before", scenario)])
        print(f"| {scenario} | {now:.3f} | {before:.3f} | {now / before:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
