"""Dependencies are typed records: built from the kernel's report, they round-trip through
the cache, say how they are stale, give the stamp its lines and the preview its paths;
an unknown kind in a stamp never passes for unchanged."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import numpy
import pytest

from sitebuild.execution.cache import ExecutionCache, page_key
from sitebuild.execution.deps import (
    RECORD_KIND_ERROR,
    RECORD_TYPES,
    CheckContext,
    Deps,
    EnvRead,
    FileHasher,
    FileRead,
    Package,
    current_state,
    decode_section,
    entry_deps,
    record_type,
)
from sitebuild.execution.executed import ExecutedPage
from sitebuild.execution.outputs import Output
from sitebuild.execution.states import code_digest
from sitebuild.source.read import read_page
from sitebuild.store.files import listing_digest

PAGE = "---\ntitle: T\nsummary: S\n---\n\nProse.\n\n```python\nprint(open('data.txt').read())\n```\n"


def settled(path: Path) -> list[int]:
    os.utime(path, ns=(time.time_ns() - 10**10,) * 2)
    stat = path.stat()
    return [stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_ino, stat.st_dev]


def report(root: Path) -> dict:
    (root / "data.txt").write_text("one")
    (root / "folder").mkdir(exist_ok=True)
    (root / "out.txt").write_text("written by the page")
    return {"files": {"data.txt": {"stat": settled(root / "data.txt"), "sha256": None, "changed": False},
                      "missing.txt": {"stat": None, "sha256": None, "changed": False}},
            "listings": {"folder": listing_digest(root / "folder")},
            "env": {"FC_RECORD_TEST": "1", "FC_UNSET": None},
            "packages": {"numpy": {"path": numpy.__file__, "version": numpy.__version__}},
            "writes": ["out.txt"], "untraced": {}}


def test_records_are_typed_frozen_and_say_what_they_need(tmp_path):
    deps = entry_deps(report(tmp_path), FileHasher(tmp_path), [], "engine")
    files = {r.path: r for r in deps.of_kind(FileRead)}
    assert files["missing.txt"] == FileRead("missing.txt", None) and files["data.txt"].digest is not None
    assert deps.of_kind(EnvRead) == (EnvRead("FC_RECORD_TEST", "1"), EnvRead("FC_UNSET", None))
    assert deps.of_kind(Package)[0].version == numpy.__version__ and deps.writes == ("out.txt",)
    assert deps.files_read == ["data.txt"] and deps.watched() == {"data.txt", "missing.txt", "folder"}
    lines = deps.stamp_lines()
    assert lines["env:FC_RECORD_TEST"] == "1" and lines["files:missing.txt"] is None
    assert all(current_state(line, state, tmp_path, {"FC_RECORD_TEST": "1"}) == state for line, state in lines.items())
    assert current_state("files:data.txt", lines["files:data.txt"], tmp_path, {}) == lines["files:data.txt"]
    assert current_state("gadgets:x", None, tmp_path, {}) is not None  # a kind this engine does not know
    with pytest.raises(AttributeError):
        files["data.txt"].digest = "other"
    with pytest.raises(AttributeError):
        deps.engine = "other"


def test_each_record_says_how_it_is_stale(tmp_path):
    deps = entry_deps(report(tmp_path), FileHasher(tmp_path), [], "engine")
    context = CheckContext(FileHasher(tmp_path), {"FC_RECORD_TEST": "1"})
    assert deps.stale(context, [], "engine") == ""
    assert deps.stale(context, [], "new engine") == "engine changed"
    assert deps.stale(CheckContext(FileHasher(tmp_path), {"FC_RECORD_TEST": "2"}), [], "engine") == \
        "env FC_RECORD_TEST changed"
    (tmp_path / "missing.txt").write_text("now here")
    assert deps.stale(CheckContext(FileHasher(tmp_path), {"FC_RECORD_TEST": "1"}), [], "engine") == \
        "`missing.txt` appeared"
    (tmp_path / "missing.txt").unlink()
    (tmp_path / "folder" / "new.csv").write_text("x")
    assert deps.stale(CheckContext(FileHasher(tmp_path), {"FC_RECORD_TEST": "1"}), [], "engine") == \
        "the files in `folder` changed"
    (tmp_path / "folder" / "new.csv").unlink()
    (tmp_path / "out.txt").unlink()
    assert deps.stale(CheckContext(FileHasher(tmp_path), {"FC_RECORD_TEST": "1"}), [], "engine") == \
        "`out.txt`, which it writes, is missing"


def test_typed_deps_round_trip_through_the_cache(tmp_path):
    (tmp_path / "explainers").mkdir()
    (tmp_path / "explainers" / "p.md").write_text(PAGE)
    page = read_page(tmp_path / "explainers" / "p.md", tmp_path)
    ran = ExecutedPage(slug="p", blocks={1: [Output("stream", "one\n", ["one"])]}, trace=report(tmp_path))
    cache = ExecutionCache(tmp_path / "cache", tmp_path, env={"FC_RECORD_TEST": "1"}, engine=code_digest())
    stored = cache.store(page, ran)
    cache.save()
    assert ran.deps is None and isinstance(stored.deps, Deps) and stored.digest  # the result given is not changed
    found = ExecutionCache(tmp_path / "cache", tmp_path, env={"FC_RECORD_TEST": "1"}, engine=code_digest()).lookup(page)
    assert found.page is not None and found.page.status == "cached"
    assert found.page.deps == stored.deps and found.page.digest == stored.digest
    assert {r.kind for r in found.page.deps.all_records()} == {"files", "listings", "env", "packages", "writes"}
    assert found.page.writes == ("out.txt",)


def test_a_kind_is_registered_once():
    with pytest.raises(ValueError) as raised:
        record_type(FileRead)
    assert str(raised.value) == RECORD_KIND_ERROR.format(name="FileRead", kind="files")
    assert list(RECORD_TYPES) == ["files", "listings", "env", "packages", "writes"]


def test_an_entry_of_another_format_reruns_the_page_without_a_warning(tmp_path):
    import json

    (tmp_path / "explainers").mkdir()
    (tmp_path / "explainers" / "p.md").write_text(PAGE)
    page = read_page(tmp_path / "explainers" / "p.md", tmp_path)
    cache = ExecutionCache(tmp_path / "cache", tmp_path, env={"FC_RECORD_TEST": "1"}, engine=code_digest())
    cache.store(page, ExecutedPage(slug="p", trace=report(tmp_path)))
    path = cache.entry_path(page_key(page))
    entry = json.loads(path.read_text())
    path.write_text(json.dumps(dict(entry, format=2)))  # as an older engine wrote it
    found = ExecutionCache(tmp_path / "cache", tmp_path, env={"FC_RECORD_TEST": "1"}, engine=code_digest()).lookup(page)
    assert found.page is None and found.reason == "engine changed" and found.warnings == ()


def test_equal_sections_share_their_records_and_different_ones_do_not():
    variables = {"MPLBACKEND": "agg", "HOME": None}
    first, second = decode_section(EnvRead.kind, variables), decode_section(EnvRead.kind, dict(variables))
    assert first is second and first == (EnvRead("MPLBACKEND", "agg"), EnvRead("HOME", None))
    assert decode_section(EnvRead.kind, {"MPLBACKEND": "pdf"}) == (EnvRead("MPLBACKEND", "pdf"),)
    # A file's state is a list in JSON: equal sections still share one tuple (decoded once).
    files = {"data.csv": ["ab" * 32, [10, 1, 2, 3, 4], False]}
    a, b = decode_section(FileRead.kind, files), decode_section(FileRead.kind, json.loads(json.dumps(files)))
    assert a is b and a[0].state_seen == (10, 1, 2, 3, 4)
    moved = decode_section(FileRead.kind, {"data.csv": ["ab" * 32, [10, 1, 2, 3, 5], False]})
    assert moved is not a and moved[0].state_seen == (10, 1, 2, 3, 5)
    flagged = decode_section(FileRead.kind, {"data.csv": ["ab" * 32, [10, 1, 2, 3, 4], True]})
    assert flagged is not a and flagged[0].moved and not a[0].moved


def test_entries_sharing_a_decoded_section_share_one_verdict_per_build_and_not_across_builds(tmp_path):
    data = Deps.from_json(entry_deps(report(tmp_path), FileHasher(tmp_path), [], "engine").to_json()).to_json()
    first, second = Deps.from_json(data), Deps.from_json(data)
    assert first.of_kind(EnvRead) is second.of_kind(EnvRead)  # one tuple, decoded once
    build = CheckContext(FileHasher(tmp_path), {"FC_RECORD_TEST": "1"})
    assert first.stale(build, [], "engine") == second.stale(build, [], "engine") == ""
    next_build = CheckContext(FileHasher(tmp_path), {"FC_RECORD_TEST": "2"})  # a variable changed since
    changed = "env FC_RECORD_TEST changed"
    assert first.stale(next_build, [], "engine") == second.stale(next_build, [], "engine") == changed


def test_a_stamp_pass_adds_a_shared_section_once_and_still_every_other_record(tmp_path):
    first = entry_deps(report(tmp_path), FileHasher(tmp_path), [], "engine")
    other = report(tmp_path)
    other["files"] = {"missing.txt": other["files"]["missing.txt"], "other.txt": {"stat": None, "sha256": None,
                                                                                 "changed": False}}
    second = entry_deps(other, FileHasher(tmp_path), [], "engine")
    shared = {kind: decode_section(kind, first.section_json(kind)) for kind in ("env", "packages")}
    first, second = (Deps.from_json(d.to_json(), shared) for d in (first, second))
    assert first.of_kind(EnvRead) is second.of_kind(EnvRead)  # one tuple for both entries

    alone: dict = {}
    first.stamp_lines(into=alone), second.stamp_lines(into=alone)
    together, watched, done = {}, set(), set()
    first.stamp_lines(into=together, watched=watched, done=done)
    assert id(first.of_kind(EnvRead)) in done
    second.stamp_lines(into=together, watched=watched, done=done)
    assert together == alone and "files:other.txt" in together
    assert watched == first.watched() | second.watched()

    later, vouched = time.time_ns() + 10**10, set()  # every state old enough by then
    assert first.vouches(later, vouched) and second.vouches(later, vouched)
    assert vouched and vouched <= {id(records) for d in (first, second) for records in d.records.values()}
    moved = report(tmp_path)
    moved["files"]["data.txt"]["changed"] = True  # moved while its page ran: never trusted
    moved = Deps.from_json(entry_deps(moved, FileHasher(tmp_path), [], "engine").to_json(), shared)
    assert not moved.vouches(later, vouched) and not moved.vouches(later)
