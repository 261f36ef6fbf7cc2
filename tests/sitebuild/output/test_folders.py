"""The engine never replaces or deletes a folder it did not make, ``--only`` keeps the
other pages of the last good site, SIGTERM ends every worker and kernel, and two builds
on the same output take turns. Real command lines, real kernels, temporary folders."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
from site_helpers import REPO, TEMPLATES, site_config

from sitebuild.commands.build import run_build

PAGE = "---\ntitle: Page {slug}\nsummary: A page of the folder tests.\n---\n\nProse of {slug}.\n\n{code}"


def make_site(root: Path, pages: dict[str, str]) -> Path:
    """A project root with the repository's templates and one explainer per entry
    (slug -> Python code, or "" for a page without code)."""
    if not (root / "templates").exists():
        shutil.copytree(TEMPLATES, root / "templates")
    (root / "explainers").mkdir(parents=True, exist_ok=True)
    for slug, code in pages.items():
        block = f"```python\n{code}\n```\n" if code else ""
        (root / "explainers" / f"{slug}.md").write_text(PAGE.format(slug=slug, code=block), encoding="utf-8")
    return root


def cli(root: Path, *args: str, wait: bool = True, **popen):
    command = [sys.executable, str(REPO / "build.py"), *args]
    if args[0] != "clean":
        command += ["--root", str(root)]
    if not wait:
        return subprocess.Popen(command, cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **popen)
    return subprocess.run(command, cwd=root, capture_output=True, text=True, timeout=300)


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_build_refuses_a_folder_it_did_not_make(tmp_path):
    root = make_site(tmp_path / "project", {"plain": ""})
    mine = tmp_path / "my-notes"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep me")
    templates = snapshot(root / "templates")
    for out in (mine, root / "templates"):
        done = cli(root, "build", "--out", str(out), "--cache-dir", str(tmp_path / "cache"))
        assert done.returncode == 2, done.stderr
        assert f"--out {out}" in done.stderr and "nothing was changed" in done.stderr
    done = cli(root, "build", "--out", str(tmp_path / "out"), "--cache-dir", str(mine))
    assert done.returncode == 2 and f"--cache-dir {mine}" in done.stderr, done.stderr
    assert snapshot(mine) == {"notes.txt": b"keep me"}
    assert snapshot(root / "templates") == templates
    assert not (tmp_path / "cache").exists() and not (tmp_path / "out").exists()


def test_clean_removes_only_what_the_build_made(tmp_path):
    root = make_site(tmp_path / "project", {"plain": ""})
    out, cache = tmp_path / "out", tmp_path / "cache"
    assert cli(root, "build", "--out", str(out), "--cache-dir", str(cache)).returncode == 0
    mine = tmp_path / "my-notes"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep me")
    for folder in (mine, root):
        done = cli(root, "clean", "--out", str(folder), "--cache-dir", str(cache))
        assert done.returncode == 2 and "nothing was changed" in done.stderr, done.stderr
    assert (mine / "notes.txt").read_text() == "keep me" and (root / "explainers" / "plain.md").exists()
    assert out.is_dir() and cache.is_dir(), "a refused clean deletes neither folder"
    done = cli(root, "clean", "--out", str(out), "--cache-dir", str(cache))
    assert done.returncode == 0, done.stderr
    assert not out.exists() and not cache.exists()


def test_only_keeps_every_other_page_of_the_last_site(tmp_path):
    root = make_site(tmp_path / "project", {"alpha": 'print("alpha one")', "beta": 'print("beta one")'})
    assert run_build(site_config(root)).ok
    make_site(root, {"alpha": 'print("alpha two")', "beta": 'print("beta two")'})
    summary = run_build(site_config(root, only=["alpha"]))
    assert summary.ok, [str(p) for p in summary.problems]
    assert {r.slug: r.status for r in summary.rows} == {"alpha": "executed", "beta": "kept"}
    assert "alpha two" in (root / "site" / "alpha.html").read_text()
    assert "beta one" in (root / "site" / "beta.html").read_text(), "the other page keeps its last output"
    index = (root / "site" / "index.html").read_text()
    search = (root / "site" / "static" / "search-index.js").read_text()
    assert 'href="beta.html"' in index and "beta.html" in search
    assert not run_build(site_config(root)).up_to_date, "a full build after --only runs what --only kept"


def kernels_below(pid: int) -> set[int]:
    """The ipykernel processes descended from ``pid``."""
    found = set()
    try:
        descendants = psutil.Process(pid).children(recursive=True)
    except psutil.Error:
        return found
    for child in descendants:
        try:
            if any("ipykernel" in part for part in child.cmdline()):
                found.add(child.pid)
        except psutil.Error:  # ended meanwhile
            pass
    return found


def alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def test_sigterm_with_two_jobs_ends_every_kernel_and_keeps_the_site(tmp_path):
    root = make_site(tmp_path / "project", {f"p{i}": f'print("quick {i}")' for i in range(4)})
    out, cache = tmp_path / "out", tmp_path / "cache"
    assert cli(root, "build", "--out", str(out), "--cache-dir", str(cache), "--jobs", "2").returncode == 0
    good = (out / "p0.html").read_text()
    make_site(root, {f"p{i}": f'import time\ntime.sleep(120)\nprint("slow {i}")' for i in range(4)})
    build = cli(root, "build", "--out", str(out), "--cache-dir", str(cache), "--jobs", "2", wait=False)
    seen: set[int] = set()
    deadline = time.monotonic() + 60
    while len(seen) < 2 and time.monotonic() < deadline:
        seen |= kernels_below(build.pid)
        time.sleep(0.2)
    assert len(seen) >= 2, "two kernels should be running"
    time.sleep(1.0)
    seen |= kernels_below(build.pid)
    stopped = time.monotonic()
    build.send_signal(signal.SIGTERM)
    _, stderr = build.communicate(timeout=30)
    assert time.monotonic() - stopped < 10, "SIGTERM should end the build within seconds"
    assert build.returncode == 130, stderr
    time.sleep(0.5)
    assert not [pid for pid in seen if alive(pid)], f"kernels left running: {seen}"
    assert (out / "p0.html").read_text() == good, "the last good site is kept"
    assert not list(tmp_path.glob("out.tmp*")), "no temporary folder is left"


def test_a_leftover_of_a_killed_build_is_removed(tmp_path):
    root = make_site(tmp_path / "project", {"plain": ""})
    out, cache = tmp_path / "out", tmp_path / "cache"
    leftover = tmp_path / "out.tmp-new-999999"
    leftover.mkdir()
    (leftover / ".sitebuild-output").write_text("")
    foreign = tmp_path / "out.tmp-new-notes"
    foreign.mkdir()
    (foreign / "mine.txt").write_text("keep")
    done = cli(root, "build", "--out", str(out), "--cache-dir", str(cache))
    assert done.returncode == 0, done.stderr
    assert not leftover.exists() and (foreign / "mine.txt").exists()


def test_two_builds_at_once_take_turns(tmp_path):
    root = make_site(tmp_path / "project", {"slow": 'import time\ntime.sleep(4)\nprint("done")'})
    out, cache = tmp_path / "out", tmp_path / "cache"
    first = cli(root, "build", "--out", str(out), "--cache-dir", str(cache), wait=False)
    deadline = time.monotonic() + 60
    while not kernels_below(first.pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    second = cli(root, "build", "--out", str(out), "--cache-dir", str(cache), wait=False)
    _, first_err = first.communicate(timeout=120)
    _, second_err = second.communicate(timeout=120)
    assert first.returncode == 0 and second.returncode == 0, (first_err, second_err)
    assert f"waiting for the build of process {first.pid}" in second_err
    assert "site is up to date" in second_err or "1 cached" in second_err, "the second build reuses the first's work"
    assert os.path.isfile(out / "slow.html")


def test_a_replaced_site_this_process_is_deleting_is_no_leftover(tmp_path):
    """A preview's quick saves: the site its last rebuild replaced may still be being
    deleted in the background when the next rebuild looks for leftovers (found by trying
    it: it was removed again and reported as left by an interrupted build)."""
    from sitebuild.output.folders import remove_leftovers
    from sitebuild.store.files import OUTPUT_MARKER

    out = tmp_path / "site"
    own, killed = tmp_path / f"site.tmp-old-{os.getpid()}-1", tmp_path / "site.tmp-old-999999999-1"
    for folder in (own, killed):
        folder.mkdir()
        (folder / OUTPUT_MARKER).write_text("")
    assert remove_leftovers(out) == [killed]
    assert own.is_dir() and not killed.exists()
