"""Only a marker makes a folder the engine's, and the folders of a build are refused, with
exit status 2, one line and nothing touched, when the output lies inside a source folder
or overlaps the cache. Real command lines on a one-page site in temporary folders."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from site_helpers import REPO, TEMPLATES

from sitebuild.output.folders import (
    CACHE_IN_OUT,
    CACHE_MARKER,
    NOT_OURS,
    OUT_IN_CACHE,
    OUTPUT_MARKER,
    OVERLAP,
    PROTECTED,
    SAME,
    TRACKED,
)

PAGE = "---\ntitle: Refusals\nsummary: A page of the folder refusal tests.\n---\n\nSome prose.\n"


def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    shutil.copytree(TEMPLATES, root / "templates")
    (root / "explainers").mkdir(parents=True)
    (root / "explainers" / "page.md").write_text(PAGE, encoding="utf-8")
    return root


def cli(root: Path, *args: str) -> subprocess.CompletedProcess:
    command = [sys.executable, str(REPO / "build.py"), *args]
    if args[0] != "clean":
        command += ["--root", str(root)]
    return subprocess.run(command, cwd=root, capture_output=True, text=True, timeout=300)


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def refused(done: subprocess.CompletedProcess, message: str) -> None:
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines() == [f"error: {message}"]


def test_a_folder_that_looks_like_an_old_site_is_not_ours(tmp_path):
    root = project(tmp_path)
    userweb = tmp_path / "userweb"
    (userweb / "static").mkdir(parents=True)
    (userweb / "report.html").write_text("<p>my report</p>")
    (userweb / "static" / "search-index.js").write_text("var mine = 1;")
    (userweb / "important.txt").write_text("keep me")
    before = snapshot(userweb)
    done = cli(root, "build", "--out", str(userweb), "--cache-dir", str(tmp_path / "cache"))
    refused(done, NOT_OURS.format(option="--out", folder=userweb, marker=OUTPUT_MARKER))
    assert snapshot(userweb) == before and not (tmp_path / "cache").exists()


def test_clean_keeps_a_folder_that_looks_like_an_old_cache(tmp_path):
    mydocs = tmp_path / "mydocs"
    (mydocs / "pages").mkdir(parents=True)
    (mydocs / "pages" / "notes.txt").write_text("my notes")
    done = cli(tmp_path, "clean", "--out", str(tmp_path / "out"), "--cache-dir", str(mydocs))
    refused(done, NOT_OURS.format(option="--cache-dir", folder=mydocs, marker=CACHE_MARKER))
    assert snapshot(mydocs) == {"pages/notes.txt": b"my notes"}


def test_an_output_inside_the_templates_or_the_explainers_is_refused(tmp_path):
    root = project(tmp_path)
    before = snapshot(root)
    for source, inside in (("templates", "static/out"), ("explainers", "site")):
        out = root / source / inside
        done = cli(root, "build", "--out", str(out), "--cache-dir", str(tmp_path / "cache"))
        refused(done, PROTECTED.format(option="--out", folder=out, what="is inside", place=root / source))
    assert snapshot(root) == before and not (tmp_path / "cache").exists()


def test_an_output_inside_a_folder_git_tracks_or_inside_git_is_refused(tmp_path):
    root = project(tmp_path)
    (root / "docs").mkdir()
    (root / "docs" / "guide.txt").write_text("a tracked file")
    (root / "scratch").mkdir()
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run(["git", "add", "docs", "explainers"], cwd=root, check=True)
    before = snapshot(root)
    done = cli(root, "build", "--out", str(root / "docs" / "site"), "--cache-dir", str(tmp_path / "cache"))
    refused(done, TRACKED.format(folder=root / "docs" / "site", place=root / "docs"))
    done = cli(root, "build", "--out", str(root / ".git" / "site"), "--cache-dir", str(tmp_path / "cache"))
    refused(done, TRACKED.format(folder=root / ".git" / "site", place=root / ".git"))
    assert snapshot(root) == before
    done = cli(root, "build", "--out", str(root / "scratch" / "site"), "--cache-dir", str(tmp_path / "cache"))
    assert done.returncode == 0, "a folder git does not track may hold the site"
    assert (root / "scratch" / "site" / "index.html").is_file()


def test_an_output_and_a_cache_that_overlap_are_refused(tmp_path):
    root = project(tmp_path)
    x = tmp_path / "x"
    cases = [(x, x, SAME), (x / "site", x, OUT_IN_CACHE), (x, x / "cache", CACHE_IN_OUT)]
    for out, cache, relation in cases:
        done = cli(root, "build", "--out", str(out), "--cache-dir", str(cache))
        refused(done, OVERLAP.format(out=out, cache=cache, relation=relation))
        done = cli(root, "clean", "--out", str(out), "--cache-dir", str(cache))
        refused(done, OVERLAP.format(out=out, cache=cache, relation=relation))
    assert not x.exists(), "nothing was made"


def test_a_cache_inside_the_templates_is_refused(tmp_path):
    root = project(tmp_path)
    cache = root / "templates" / ".cache"
    done = cli(root, "build", "--out", str(tmp_path / "site"), "--cache-dir", str(cache))
    refused(done, PROTECTED.format(option="--cache-dir", folder=cache, what="is inside", place=root / "templates"))
    assert not cache.exists() and not (tmp_path / "site").exists()


def test_a_marked_site_is_replaced_and_cleaned(tmp_path):
    root = project(tmp_path)
    out, cache = tmp_path / "site", tmp_path / "cache"
    assert cli(root, "build", "--out", str(out), "--cache-dir", str(cache)).returncode == 0
    assert (out / OUTPUT_MARKER).is_file() and (cache / CACHE_MARKER).is_file()
    done = cli(root, "clean", "--out", str(out), "--cache-dir", str(cache))
    assert done.returncode == 0, done.stderr
    assert not out.exists() and not cache.exists()
