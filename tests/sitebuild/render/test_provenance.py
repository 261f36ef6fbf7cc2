"""Provenance of a build: the commit and the work tree's state from a real git repository
(asked in the background), and the digests of the data files read."""

from __future__ import annotations

import hashlib
import subprocess

from sitebuild.render.provenance import collect_provenance, data_files, start_git


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
