#!/usr/bin/env python3
"""Benchmark of the author's loop on the real site: how long after a prose edit is saved
the open page in Chromium shows it.

``python build.py serve --port 0`` runs on the repository's explainers, COPIED into a
temporary folder (``--source``; the pages' data paths are taken from the repository root,
so they resolve as usual), with a temporary ``--out`` and ``--cache-dir`` (seeded from a
copy of the repository's execution cache, so the first build reuses what it can). Nothing
in the repository is written. A page of the real site is opened in Debian's Chromium
(Playwright); each round replaces one prose word of its Markdown with a new word and
saves the file, and the time is measured from just before the save to the end of the
load of the reloaded page (``loadEventEnd``, the browser's clock and this process's
clock being the same wall clock). The time to the reloaded page's DOMContentLoaded, the
time the server's rebuild took (its own closing line), and the split at the start of the
reload's navigation (``performance.timeOrigin``: before it the server's side, after it
the browser's) are reported beside it.

The alternative, in the same run: the same kind of edit followed by the command an author
would run without ``serve`` (``python build.py build`` with the same source, output and
cache), timed from the save to its exit.

Usage: python bench/preview.py [--page permutation-tests] [--edits 7] [--cache-dir DIR]
Prints Markdown tables. Not a test: the 0.3 s target is reported, not asserted."""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sitebuild.execution.cache import copy_page_results  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
TARGET_SECONDS = 0.3
SERVE_READY = re.compile(r"serving .* on (http://\S+/) ")
REBUILD_LINE = re.compile(r"(\d+) pages: .*; ([\d.]+) s$")
WORDS = ["lantern", "harbour", "meadow", "saffron", "quartz", "willow", "ember", "thistle", "juniper", "marble"]
PROSE_WORD = re.compile(r"(?<![\w`\[{(=-])([a-z]{6,})(?![\w`\]}-])")


def copy_project(tmp: Path, root: Path, cache_seed: Path | None) -> tuple[Path, Path, Path]:
    """The copied explainers (without generated scripts), an output folder and a seeded cache."""
    source = tmp / "explainers"
    shutil.copytree(root / "explainers", source, ignore=shutil.ignore_patterns("code"))
    cache = tmp / "cache"
    seed = cache_seed or root / ".cache" / "sitebuild"
    copy_page_results(seed, cache)
    return source, tmp / "site", cache


def prose_span(text: str) -> tuple[int, int]:
    """The span of a plain lowercase prose word of the first paragraph after the front
    matter and the title: not in code, a link, an attribute or a heading."""
    body_start = text.index("\n---", 3) + 4
    fence = False
    offset = body_start
    for line in text[body_start:].splitlines(keepends=True):
        stripped = line.strip()
        if stripped.startswith("```"):
            fence = not fence
        elif not fence and stripped and not stripped.startswith(("#", "|", ">", "-", "*", "!", "[", "<")):
            match = PROSE_WORD.search(line)
            if match:
                return offset + match.start(1), offset + match.end(1)
        offset += len(line)
    raise SystemExit("no plain prose word found in the page; pass another --page")


class ServeProcess:
    """``python build.py serve --port 0`` in a subprocess; its output lines are collected."""

    def __init__(self, argv: list[str]):
        self.process = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                        bufsize=1)
        self.lines: list[tuple[float, str]] = []
        self.url = ""
        self.ready = threading.Event()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        for line in self.process.stdout:
            self.lines.append((time.time(), line.rstrip("\n")))
            match = SERVE_READY.search(line)
            if match:
                self.url = match.group(1)
                self.ready.set()
        self.ready.set()

    def rebuild_seconds_after(self, since: float) -> float | None:
        """The duration the server reported for the first rebuild that ended after ``since``."""
        for stamp, line in list(self.lines):
            match = REBUILD_LINE.search(line)
            if stamp >= since and match:
                return float(match.group(2))
        return None

    def stop(self) -> None:
        """End the server (Ctrl-C, as an author would), then wait for it."""
        if self.process.poll() is None:
            self.process.send_signal(2)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def settle(page) -> None:
    """Wait until the open page has stayed loaded for a second, then mark this load."""
    for _ in range(20):
        try:
            page.wait_for_load_state("load")
            time.sleep(1.0)  # the page's long poll is waiting, as in an author's browser
            page.evaluate("() => { window.__beforeEdit = true; }")
            return
        except Exception:  # a reload was under way: wait for it
            continue
    raise SystemExit("the open page kept reloading")


def measure_preview(serve: ServeProcess, path: Path, page_url: str, edits: int) -> list[dict]:
    """Edit the page ``edits`` times with the page open; the timings of each round."""
    from playwright.sync_api import sync_playwright

    original = path.read_text(encoding="utf-8")
    start, end = prose_span(original)
    rounds = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox"])
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto(page_url, wait_until="load")
            for i in range(edits + 1):  # the first round warms up the server and the browser's cache
                word = WORDS[i % len(WORDS)]
                settle(page)
                saved = time.time()
                path.write_text(original[:start] + word + original[end:], encoding="utf-8")
                page.wait_for_function("w => window.__beforeEdit === undefined && document.readyState === 'complete'"
                                       " && document.querySelector('main').textContent.includes(w)", arg=word,
                                       timeout=120_000, polling=20)
                timing = page.evaluate("""() => { const n = performance.getEntriesByType('navigation')[0];
                    return {origin: performance.timeOrigin, dcl: n.domContentLoadedEventEnd,
                            load: n.loadEventEnd}; }""")
                time.sleep(0.2)
                rounds.append({"round": i, "load": (timing["origin"] + timing["load"]) / 1000 - saved,
                               "asked": timing["origin"] / 1000 - saved,
                               "dcl": (timing["origin"] + timing["dcl"]) / 1000 - saved,
                               "rebuild": serve.rebuild_seconds_after(saved)})
        finally:
            browser.close()
            path.write_text(original, encoding="utf-8")
    return rounds[1:]


def measure_build_command(base: list[str], path: Path, edits: int) -> list[float]:
    """The alternative: save the same kind of edit, then run ``build``; seconds to its exit."""
    original = path.read_text(encoding="utf-8")
    start, end = prose_span(original)
    times = []
    try:
        for i in range(edits):
            path.write_text(original[:start] + WORDS[(i + 3) % len(WORDS)] + original[end:], encoding="utf-8")
            saved = time.time()
            done = subprocess.run(base, cwd=ROOT, capture_output=True, text=True)
            if done.returncode != 0:
                raise SystemExit(f"`build` failed:\n{done.stderr[-2000:]}")
            times.append(time.time() - saved)
    finally:
        path.write_text(original, encoding="utf-8")
    return times


def table(rounds: list[dict], build_times: list[float]) -> str:
    """The Markdown tables of the run."""
    lines = ["| round | save -> reloaded page loaded (s) | save -> DOMContentLoaded (s) | server's rebuild (s) "
             "| save -> reload started (s) | reload started -> loaded (s) |",
             "|---:|---:|---:|---:|---:|---:|"]
    for r in rounds:
        rebuild = f"{r['rebuild']:.3f}" if r["rebuild"] is not None else "?"
        lines.append(f"| {r['round']} | {r['load']:.3f} | {r['dcl']:.3f} | {rebuild} | {r['asked']:.3f} "
                     f"| {r['load'] - r['asked']:.3f} |")
    median_load = statistics.median(r["load"] for r in rounds)
    lines += ["", "| loop | median (s) | each (s) |", "|---|---:|---|",
              f"| serve: save -> reloaded page in Chromium | {median_load:.3f} | "
              + ", ".join(f"{r['load']:.3f}" for r in rounds) + " |"]
    if build_times:
        median_build = statistics.median(build_times)
        lines.append(f"| `python build.py build` after the save, to its exit | {median_build:.3f} | "
                     + ", ".join(f"{t:.3f}" for t in build_times) + " |")
        lines += ["", f"ratio (build command / serve): {median_build / median_load:.1f}x"]
    verdict = "meets" if median_load <= TARGET_SECONDS else "misses"
    lines += ["", f"target: a prose edit visible within {TARGET_SECONDS} s; the median {verdict} it."]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print its tables."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--page", default="permutation-tests", help="slug of the real page to edit")
    parser.add_argument("--edits", type=int, default=7, help="timed edits (after one warm-up)")
    parser.add_argument("--build-edits", type=int, default=3, help="timed runs of the build command (0: none)")
    parser.add_argument("--root", type=Path, default=ROOT,
                        help="project root whose explainers/ are copied (default: this repository, the real site)")
    parser.add_argument("--cache-dir", type=Path, default=None,
                        help="an execution cache to seed the temporary one from (default: .cache/sitebuild)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-preview-") as name:
        tmp = Path(name)
        root = args.root.resolve()
        source, out, cache = copy_project(tmp, root, args.cache_dir)
        path = source / f"{args.page}.md"
        if not path.is_file():
            raise SystemExit(f"--page {args.page}: no {path.name} in explainers/")
        count = len(list(source.glob("*.md")))
        common = ["--root", str(root), "--source", str(source), "--out", str(out), "--cache-dir", str(cache)]
        serve = ServeProcess([sys.executable, str(ROOT / "build.py"), "serve", "--port", "0", *common])
        try:
            print("first build of the copied site (reuses the seeded cache where it can) ...", file=sys.stderr)
            started = time.time()
            serve.ready.wait()
            if not serve.url:
                raise SystemExit("serve did not start:\n" + "\n".join(line for _, line in serve.lines[-30:]))
            print(f"serving on {serve.url} after {time.time() - started:.1f} s", file=sys.stderr)
            try:
                rounds = measure_preview(serve, path, f"{serve.url}{args.page}.html", args.edits)
            except Exception as error:
                raise SystemExit(f"{type(error).__name__}: {error}\nthe server's last lines:\n"
                                 + "\n".join(line for _, line in serve.lines[-30:])) from error
        finally:
            serve.stop()
        build = [sys.executable, str(ROOT / "build.py"), "build", *common]
        build_times = measure_build_command(build, path, args.build_edits) if args.build_edits else []
    site = "the real site" if root == ROOT else f"the site at {root}"
    print(f"page: {args.page} of {site} ({count} pages)\n")
    print(table(rounds, build_times))
    return 0


if __name__ == "__main__":
    sys.exit(main())
