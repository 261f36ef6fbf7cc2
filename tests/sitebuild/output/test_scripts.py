"""The generated scripts: written when their text changed, remembered by file state."""

from __future__ import annotations

import json
import os
import time

import pytest

import sitebuild.output.scripts as scripts
from sitebuild.execution.extract import script_path, script_text
from sitebuild.output.scripts import SCRIPTS_FILE, update_scripts
from sitebuild.source.read import read_page
from sitebuild.store.files import FINE_RACY_NS

PAGE = """---
title: Scripted
summary: s
---

Prose.

```python
print({value})
```
"""


@pytest.fixture
def site(tmp_path):
    (tmp_path / "explainers").mkdir()
    path = tmp_path / "explainers" / "scripted.md"
    path.write_text(PAGE.format(value=41), encoding="utf-8")
    return tmp_path


def pages(root):
    return [read_page(root / "explainers" / "scripted.md", root)]


def settle():
    """Wait until a file just written is old enough for its state to be remembered."""
    time.sleep(2 * FINE_RACY_NS / 1e9)


@pytest.fixture
def generated(site, monkeypatch):
    """A site whose script was written by one update and remembered by the next one;
    returns the root, the memo path and a list that records each script generated."""
    memo = site / "cache" / SCRIPTS_FILE
    [page] = pages(site)
    assert update_scripts([page], memo, "engine-1") == [script_path(page)]
    settle()
    assert update_scripts([page], memo, "engine-1") == []  # read once, then remembered
    made = []
    monkeypatch.setattr(scripts, "script_text", lambda p: made.append(p.slug) or script_text(p))
    return site, memo, made


def test_a_remembered_script_is_neither_generated_nor_read(generated, monkeypatch):
    site, memo, made = generated
    monkeypatch.setattr(scripts, "_holds", lambda *a: pytest.fail("a remembered script was read"))
    assert update_scripts(pages(site), memo, "engine-1") == []
    assert made == []


def test_a_script_edited_by_hand_is_rewritten_even_with_its_size_and_mtime(generated):
    site, memo, made = generated
    [page] = pages(site)
    path = script_path(page)
    before = path.stat()
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("print(41)", "print(42)"), encoding="utf-8")  # same size
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))  # and the same mtime
    assert update_scripts([page], memo, "engine-1") == [path]
    assert path.read_text(encoding="utf-8") == script_text(page) == text
    assert made == ["scripted"]


def test_a_deleted_script_is_written_again(generated):
    site, memo, made = generated
    [page] = pages(site)
    script_path(page).unlink()
    assert update_scripts([page], memo, "engine-1") == [script_path(page)]
    assert script_path(page).read_text(encoding="utf-8") == script_text(page)


def test_an_edited_page_regenerates_its_script(generated):
    site, memo, made = generated
    (site / "explainers" / "scripted.md").write_text(PAGE.format(value=43), encoding="utf-8")
    [page] = pages(site)
    assert update_scripts([page], memo, "engine-1") == [script_path(page)]
    assert "print(43)" in script_path(page).read_text(encoding="utf-8")


def test_a_prose_edit_compares_the_script_and_leaves_it_alone(generated):
    site, memo, made = generated
    path = site / "explainers" / "scripted.md"
    path.write_text(path.read_text(encoding="utf-8").replace("Prose.", "Other prose."), encoding="utf-8")
    [page] = pages(site)
    before = script_path(page).stat()
    assert update_scripts([page], memo, "engine-1") == []
    assert made == ["scripted"]
    assert script_path(page).stat().st_ctime_ns == before.st_ctime_ns


def test_another_engine_forgets_the_memo(generated):
    site, memo, made = generated
    assert update_scripts(pages(site), memo, "engine-2") == []
    assert made == ["scripted"]
    assert json.loads(memo.read_text(encoding="utf-8"))["version"] == "engine-2"


def test_a_script_just_written_is_not_remembered(site):
    memo = site / "cache" / SCRIPTS_FILE
    [page] = pages(site)
    update_scripts([page], memo, "engine-1")
    assert not memo.exists() or json.loads(memo.read_text(encoding="utf-8"))["value"] == {}
    settle()
    update_scripts([page], memo, "engine-1")
    assert list(json.loads(memo.read_text(encoding="utf-8"))["value"]) == [str(script_path(page))]


def test_an_unreadable_memo_is_ignored(generated):
    site, memo, made = generated
    memo.write_text("{not json", encoding="utf-8")
    assert update_scripts(pages(site), memo, "engine-1") == []
    assert made == ["scripted"]
