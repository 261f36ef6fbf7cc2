"""The quote lock file (sitebuild.lock)."""

from __future__ import annotations

import json
import os

import pytest
from hypothesis import given
from hypothesis import strategies as st
from msgspec.structs import asdict, replace

from sitebuild.errors import SourceError
from sitebuild.quotes.lock import (
    LockEntry,
    drop_missing_pages,
    load_lock,
    lock_text,
    replace_page_entries,
    save_lock,
)

ENTRY = LockEntry(page="explainers/a.md", quote="72%", context="share #", occurrence=0, line=4,
                  block=1, output=0, output_line=2, index=1, shape="rows #", value="0.72")


def test_a_missing_lock_is_empty(tmp_path):
    assert load_lock(tmp_path / "quotes.lock.json") == []


def test_save_then_load_gives_the_same_entries_sorted(tmp_path):
    path = tmp_path / "quotes.lock.json"
    later = replace(ENTRY, line=9, quote="5.9%")
    other_page = replace(ENTRY, page="explainers/0.md")
    save_lock(path, [later, ENTRY, other_page])
    assert load_lock(path) == [other_page, ENTRY, later]
    first = path.read_text()
    save_lock(path, [ENTRY, other_page, later])
    assert path.read_text() == first  # stable output, clean diffs
    assert first.endswith("}\n") and json.loads(first)["version"] == 3


def test_invalid_json_names_the_file_and_line(tmp_path):
    path = tmp_path / "quotes.lock.json"
    path.write_text('{\n  "version": 1,\n  "quotes": [\n    {,\n  ]\n}\n')
    with pytest.raises(SourceError) as caught:
        load_lock(path)
    assert caught.value.path == str(path) and caught.value.line == 4
    assert "not valid JSON" in str(caught.value)


@pytest.mark.parametrize(
    "data, expected",
    [
        ([], 'expected an object {"version": 3, "quotes": [...]}, found a list'),
        ({"version": 4, "quotes": []}, "found an object with version 4"),
        ({"version": 1, "quotes": [5]}, "quotes[0]: expected an object, found a int"),
        ({"version": 1, "quotes": [{k: v for k, v in asdict(ENTRY).items() if k != "shape"}]},
         "quotes[0]: the field 'shape' is missing"),
        ({"version": 1, "quotes": [{**asdict(ENTRY), "block": "1"}]}, "quotes[0].block: expected int, found '1'"),
        ({"version": 1, "quotes": [{**asdict(ENTRY), "line": True}]}, "quotes[0].line: expected int, found True"),
        ({"version": 1, "quotes": [{**asdict(ENTRY), "extra": 1}]}, "quotes[0]: unknown field(s) ['extra']"),
    ],
)
def test_an_invalid_lock_says_which_entry_and_field(tmp_path, data, expected):
    path = tmp_path / "quotes.lock.json"
    path.write_text(json.dumps(data))
    with pytest.raises(SourceError, match=str(path).replace("\\", "\\\\")) as caught:
        load_lock(path)
    assert expected in str(caught.value)


def test_a_failed_save_leaves_the_previous_lock(tmp_path, monkeypatch):
    path = tmp_path / "quotes.lock.json"
    save_lock(path, [ENTRY])
    before = path.read_text()

    def failing_replace(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", failing_replace)
    with pytest.raises(OSError):
        save_lock(path, [replace(ENTRY, value="0.69")])
    assert path.read_text() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["quotes.lock.json"]


def test_replace_page_entries_keeps_other_pages():
    other = replace(ENTRY, page="explainers/b.md")
    new = replace(ENTRY, value="0.69")
    assert replace_page_entries([ENTRY, other], ENTRY.page, [new]) == [new, other]
    assert drop_missing_pages([ENTRY, other], ["explainers/b.md"]) == [other]


def test_lock_text_is_the_contract(tmp_path):
    text = lock_text([ENTRY])
    assert json.loads(text) == {"version": 3, "quotes": [asdict(ENTRY)]}
    assert text.splitlines()[4] == '      "page": "explainers/a.md",'


_TEXT = st.text(st.characters(codec="utf-8"), max_size=12)  # quotes, backslashes, controls, astral
_ENTRIES = st.lists(st.builds(LockEntry, page=_TEXT, quote=_TEXT, context=_TEXT, occurrence=st.integers(0, 9),
                              line=st.integers(0, 10**6), block=st.integers(-1, 99), output=st.integers(-1, 9),
                              output_line=st.integers(-1, 99), index=st.integers(-1, 9), shape=_TEXT,
                              value=_TEXT, label=_TEXT), max_size=4)


@given(_ENTRIES)
def test_lock_text_is_what_json_dumps_writes_byte_for_byte(entries):
    ordered = sorted(entries, key=LockEntry.sort_key)
    expected = json.dumps({"version": 3, "quotes": [asdict(e) for e in ordered]}, indent=2, ensure_ascii=False)
    assert lock_text(entries) == expected + "\n"


def test_a_lock_of_an_older_version_is_read_and_forgotten(tmp_path):
    """Versions 1 and 2 keyed a number by its text too; their bindings are not memory of
    this check's sentences, so they are checked for errors and then forgotten."""
    path = tmp_path / "quotes.lock.json"
    old = {k: v for k, v in asdict(ENTRY).items() if k != "label"}
    path.write_text(json.dumps({"version": 1, "quotes": [old]}))
    assert load_lock(path) == []
    path.write_text(json.dumps({"version": 2, "quotes": [{**old, "block": "1"}]}))
    with pytest.raises(SourceError, match=r"quotes\[0\]\.block: expected int"):
        load_lock(path)
    save_lock(path, [ENTRY])
    assert json.loads(path.read_text()) == {"version": 3, "quotes": [asdict(ENTRY)]}


def test_a_lock_read_again_in_the_same_state_comes_from_memory_and_an_edit_is_read(tmp_path):
    import time

    from sitebuild.store.files import FINE_RACY_NS

    path = tmp_path / "quotes.lock.json"
    save_lock(path, [ENTRY])
    time.sleep(FINE_RACY_NS / 1e9)  # old enough for its state to vouch for its contents
    first = load_lock(path)
    first.append(replace(ENTRY, line=99))  # the caller's list is its own
    assert load_lock(path) == [ENTRY]
    path.write_text(path.read_text().replace('"72%"', '"73%"'))  # the same size, another file state
    assert load_lock(path) == [replace(ENTRY, quote="73%")]
