"""The remembered quote check: a page whose text, outputs and lock entries are unchanged
takes its check from the last build (the same verdicts as checking it again); a change to
its prose, its outputs or its lock entries, or to the engine's code, checks it afresh; an
unreadable memo is ignored."""

from __future__ import annotations

import os

import sitebuild.quotes.stage as stage
from sitebuild.execution.executed import ExecutedPage
from sitebuild.execution.outputs import Output
from sitebuild.quotes import Status
from sitebuild.quotes.memo import MEMO_DIR, QuoteMemo
from sitebuild.quotes.stage import check_quotes, save_quote_lock
from sitebuild.source.read import read_page

PAGE = """---
title: P
summary: S.
---

The rate is {rate} and the prose says so.
"""


def make_page(tmp_path, rate="0.25", prose=""):
    source = tmp_path / "explainers"
    source.mkdir(exist_ok=True)
    (source / "p.md").write_text(PAGE.format(rate=rate) + prose)
    return read_page(source / "p.md", tmp_path)


def ran(rate="0.25") -> ExecutedPage:
    return ExecutedPage(slug="p", blocks={1: [Output("stream", f"rate {rate}\n", [f"rate {rate}"])]})


def checked(tmp_path, page, result, monkeypatch):
    """Check through a memo of ``tmp_path/cache``; return the run and the pages checked afresh."""
    fresh = []
    real = stage.check_page_quotes

    def counting(page, *args):
        fresh.append(page.slug)
        return real(page, *args)

    monkeypatch.setattr(stage, "check_page_quotes", counting)
    memo = QuoteMemo(tmp_path / "cache")
    run = check_quotes(tmp_path / "explainers", [page], {"p": result}, memo=memo)
    memo.save()
    return run, fresh


def verdicts(run):
    return [(r.text, r.status, r.message) for r in run.pages["p"].results]


def test_an_unchanged_page_is_not_checked_again_and_keeps_its_verdicts(tmp_path, monkeypatch):
    first, fresh = checked(tmp_path, make_page(tmp_path), ran(), monkeypatch)
    assert fresh == ["p"] and save_quote_lock(first)
    second, fresh = checked(tmp_path, make_page(tmp_path), ran(), monkeypatch)
    assert fresh == ["p"], "the lock now holds the page's entries"
    third, fresh = checked(tmp_path, make_page(tmp_path), ran(), monkeypatch)
    assert fresh == [] and verdicts(third) == verdicts(second)
    assert [(text, status) for text, status, _ in verdicts(third)] == [("0.25", Status.VERIFIED)]
    assert third.pages["p"].new_lock_entries == second.pages["p"].new_lock_entries


def test_new_outputs_check_the_page_again_and_find_the_stale_number(tmp_path, monkeypatch):
    first, _ = checked(tmp_path, make_page(tmp_path), ran(), monkeypatch)
    save_quote_lock(first)
    run, fresh = checked(tmp_path, make_page(tmp_path), ran("0.31"), monkeypatch)
    assert fresh == ["p"]
    assert [(r.text, r.status) for r in run.pages["p"].results] == [("0.25", Status.STALE)]


def test_a_prose_edit_or_a_lock_change_checks_the_page_again(tmp_path, monkeypatch):
    first, _ = checked(tmp_path, make_page(tmp_path), ran(), monkeypatch)
    _, fresh = checked(tmp_path, make_page(tmp_path, prose="\nMore prose.\n"), ran(), monkeypatch)
    assert fresh == ["p"], "the prose changed"
    save_quote_lock(first)  # the page's lock entries are new
    _, fresh = checked(tmp_path, make_page(tmp_path, prose="\nMore prose.\n"), ran(), monkeypatch)
    assert fresh == ["p"], "the lock entries changed"
    _, fresh = checked(tmp_path, make_page(tmp_path, prose="\nMore prose.\n"), ran(), monkeypatch)
    assert fresh == []


def test_an_engine_change_or_a_corrupt_memo_checks_every_page(tmp_path, monkeypatch):
    checked(tmp_path, make_page(tmp_path), ran(), monkeypatch)
    monkeypatch.setattr("sitebuild.quotes.memo.engine_version", lambda: "another engine")
    _, fresh = checked(tmp_path, make_page(tmp_path), ran(), monkeypatch)
    assert fresh == ["p"]
    folder = tmp_path / "cache" / MEMO_DIR
    [memo] = list(folder.iterdir())
    memo.write_bytes(b"not a pickle")
    _, fresh = checked(tmp_path, make_page(tmp_path), ran(), monkeypatch)
    assert fresh == ["p"] and memo.stat().st_size > len(b"not a pickle")
    assert os.listdir(folder) == [memo.name], "one file per page, and no temporary file is left"
