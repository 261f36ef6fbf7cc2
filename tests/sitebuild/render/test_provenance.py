"""Provenance of a build: the commit and the work tree's state from a real git repository
(asked in the background), and the digests of the data files read."""

from __future__ import annotations

import hashlib
import subprocess

from sitebuild.render.provenance import collect_provenance, data_files, outside_files, start_git


def git(root, *args):
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args], cwd=root, check=True,
                   capture_output=True)


def test_the_commit_and_the_work_trees_state_come_from_git(tmp_path):
    git(tmp_path, "init", "-q")
    (tmp_path / "a.txt").write_text("one")
    git(tmp_path, "add", "a.txt")
    git(tmp_path, "commit", "-q", "-m", "first")
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=tmp_path, capture_output=True, text=True).stdout.strip()
    answer = start_git(tmp_path)
    assert answer() == (head, False) and answer() == (head, False), "asked twice, answered the same"
    (tmp_path / "a.txt").write_text("two")
    assert start_git(tmp_path)() == (head, True)


def test_outside_a_repository_there_is_no_commit(tmp_path):
    assert start_git(tmp_path)() == ("", False)
    assert collect_provenance(tmp_path, {}, set()).commit == ""


def test_data_digests_come_from_the_given_memo_or_are_computed(tmp_path):
    (tmp_path / "data.csv").write_text("x\n1\n")
    real = hashlib.sha256(b"x\n1\n").hexdigest()
    assert data_files(tmp_path, {"p": ["data.csv", "code.py"]})[0].sha256 == real
    assert data_files(tmp_path, {"p": ["data.csv"]}, digest=lambda rel: "remembered")[0].sha256 == "remembered"
    assert data_files(tmp_path, {"p": ["data.csv"]}, digest=lambda rel: None)[0].sha256 == real


def test_files_outside_the_project_are_counted_not_listed(tmp_path):
    """A font or a configuration file of the build machine is no data of the site, and its
    path (a home folder's) is not the readers' business."""
    root, machine = tmp_path / "project", tmp_path / "machine"
    (root / "data").mkdir(parents=True)
    machine.mkdir()
    (root / "data" / "rows.csv").write_text("x\n1\n")
    (machine / "font.ttf").write_bytes(b"glyphs")
    (tmp_path / "project-like").mkdir()
    (tmp_path / "project-like" / "next.csv").write_text("y\n")  # a sibling whose name starts like the root's
    reads = {"p": ["data/rows.csv", str(machine / "font.ttf"), str(tmp_path / "project-like" / "next.csv")],
             "q": [str(machine / "font.ttf"), "page.py"]}
    provenance = collect_provenance(root, reads, set())
    assert [(f.path, f.pages) for f in provenance.data_files] == [("data/rows.csv", ("p",))]
    assert provenance.outside_files == 2
    assert outside_files(root, {"p": [str(root / "data" / "rows.csv")]}) == 0
