"""The cache key holds code and options, not prose; entries are checked against the
hashes of what the page read (as the kernel records it) and say why they went stale; a
corrupt entry is discarded with a warning; an entry is decoded again only when its file
changed."""

from __future__ import annotations

import os
import time
from pathlib import Path

from msgspec.structs import replace

from sitebuild.execution.cache import CACHE_FORMAT, DECODED_DIR, ExecutionCache, page_key
from sitebuild.execution.deps import FileHasher, Package
from sitebuild.execution.executed import ExecutedPage, InlineValue
from sitebuild.execution.outputs import Output
from sitebuild.execution.states import code_digest
from sitebuild.source.read import read_page
from sitebuild.store.files import FINE_RACY_NS, path_state
from sitebuild.store.memo import engine_version
from sitebuild.store.shelf import Shelf

PAGE = "---\ntitle: T\nsummary: S\n---\n\n{prose}\n\n```python{options}\nprint(open('data.txt').read())\n```\n"


def make_page(root: Path, prose="Some prose.", options=""):
    (root / "explainers").mkdir(exist_ok=True)
    path = root / "explainers" / "p.md"
    path.write_text(PAGE.format(prose=prose, options=options))
    return read_page(path, root)


def settled(path: Path) -> list[int]:
    """Set the file's times in the past (so its state can vouch for it) and return its state,
    as the kernel records it."""
    os.utime(path, ns=(time.time_ns() - 10**10,) * 2)
    stat = path.stat()
    return [stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_ino, stat.st_dev]


def kernel_record(root: Path, changed: bool = False) -> dict:
    return {"files": {"data.txt": {"stat": settled(root / "data.txt"), "sha256": None, "changed": changed}},
            "listings": {}, "env": {"FC_TEST_VARIABLE": "1"}, "packages": {}, "untraced": {}}


def result(root: Path, changed: bool = False) -> ExecutedPage:
    return ExecutedPage(slug="p", blocks={1: [Output("stream", "hello\n", ["hello"])]},
                        figures={"p-1-1.png": b"\x89PNG"},
                        trace=kernel_record(root, changed), inline=[InlineValue(0, "1.0")], python="3", seconds=1.5)


def open_cache(root: Path, **env) -> ExecutionCache:
    return ExecutionCache(root / "cache", root, env={"FC_TEST_VARIABLE": "1", **env}, engine=code_digest())


def test_key_ignores_prose_but_not_code_or_options(tmp_path):
    base = page_key(make_page(tmp_path))
    assert page_key(make_page(tmp_path, prose="Other prose, 3 lines\n\nlonger.")) == base
    assert page_key(make_page(tmp_path, options=" {hide-output}")) != base


def test_entry_round_trips_and_goes_stale_when_a_file_read_changes(tmp_path):
    (tmp_path / "data.txt").write_text("one")
    page = make_page(tmp_path)
    cache = open_cache(tmp_path)
    assert cache.lookup(page).reason == "new page"
    cache.store(page, result(tmp_path))
    cache.save()
    found = open_cache(tmp_path).lookup(page).page
    assert (found.status == "cached" and found.blocks[1][0].texts == ["hello"]
            and found.figures == {"p-1-1.png": b"\x89PNG"})
    assert open_cache(tmp_path, FC_TEST_VARIABLE="2").lookup(page).reason == "env FC_TEST_VARIABLE changed"
    assert ExecutionCache(tmp_path / "cache", tmp_path, env={"FC_TEST_VARIABLE": "1"},
                          engine="other").lookup(page).reason \
        == "engine changed"
    (tmp_path / "data.txt").write_text("two")
    lookup = open_cache(tmp_path).lookup(page)
    assert lookup.page is None and lookup.reason == "`data.txt` changed"
    assert open_cache(tmp_path).lookup(make_page(tmp_path, options=" {hide-output}")).reason == "code changed"


def test_a_file_that_moved_while_its_page_ran_is_never_trusted(tmp_path):
    (tmp_path / "data.txt").write_text("one")
    page = make_page(tmp_path)
    cache = open_cache(tmp_path)
    cache.store(page, result(tmp_path, changed=True))
    assert open_cache(tmp_path).lookup(page).reason == "`data.txt` changed while the page ran"


def test_same_size_and_mtime_rewrite_is_still_a_change(tmp_path):
    (tmp_path / "data.txt").write_text("one")
    page = make_page(tmp_path)
    cache = open_cache(tmp_path)
    cache.store(page, result(tmp_path))
    cache.save()
    before = (tmp_path / "data.txt").stat()
    (tmp_path / "data.txt").write_text("owt")
    os.utime(tmp_path / "data.txt", ns=(before.st_atime_ns, before.st_mtime_ns))
    assert open_cache(tmp_path).lookup(page).reason == "`data.txt` changed"


def test_failed_pages_are_not_stored(tmp_path):
    from sitebuild.execution.executed import PageError
    (tmp_path / "data.txt").write_text("one")
    page = make_page(tmp_path)
    cache = open_cache(tmp_path)
    failed = replace(result(tmp_path), error=PageError("exception", "boom"))
    cache.store(page, failed)
    assert cache.lookup(page).page is None


def test_corrupt_entry_is_discarded_with_a_warning(tmp_path):
    (tmp_path / "data.txt").write_text("one")
    page = make_page(tmp_path)
    cache = open_cache(tmp_path)
    cache.store(page, result(tmp_path))
    entry = cache.entry_path(page_key(page))
    entry.write_text(entry.read_text().replace('"figures": {"p-1-1.png": "', '"figures": {"p-1-1.png": "!!'))
    lookup = cache.lookup(page)
    assert lookup.page is None and not entry.exists()
    assert lookup.warnings and "corrupt cache entry discarded" in lookup.warnings[0]


def test_file_hasher_reuses_hashes_of_unchanged_files(tmp_path):
    (tmp_path / "a.txt").write_text("a")
    state = settled(tmp_path / "a.txt")
    real = FileHasher(tmp_path).digest("a.txt")
    assert real is not None and len(real) == 64
    remembered = FileHasher(tmp_path, {"a.txt": [state, "remembered"]})
    assert remembered.digest("a.txt") == "remembered" and not remembered.changed
    (tmp_path / "a.txt").chmod(0o600)  # same contents, size and mtime; only the change time moves
    assert remembered.digest("a.txt") == real
    assert not remembered.changed, "a file changed a moment ago is not remembered"
    assert remembered.digest("missing.txt") is None


def test_a_package_upgrade_is_named_with_both_versions(tmp_path):
    import json

    import numpy

    (tmp_path / "data.txt").write_text("one")
    page = make_page(tmp_path)
    executed = result(tmp_path)
    executed.trace["packages"] = {"numpy": {"path": numpy.__file__, "version": "0.0.1"}}
    cache = open_cache(tmp_path)
    cache.store(page, executed)
    assert open_cache(tmp_path).lookup(page).page is not None
    entry_path = cache.entry_path(page_key(page))
    entry = json.loads(entry_path.read_text())
    packages = json.loads((cache.package_sets_dir / f"{entry['deps']['packages']}.json").read_text())["value"]
    packages["numpy"]["stamp"][1] += 1  # as if numpy's files had been replaced
    entry["deps"]["packages"] = packages  # an entry may also list its packages itself
    entry_path.write_text(json.dumps(entry))
    assert open_cache(tmp_path).lookup(page).reason == f"numpy 0.0.1 -> {numpy.__version__}"


def test_entries_share_one_file_of_package_states_and_a_missing_one_reruns_the_page(tmp_path):
    import json

    import numpy

    (tmp_path / "data.txt").write_text("one")
    pages = [make_page(tmp_path)]
    (tmp_path / "explainers" / "q.md").write_text(PAGE.format(prose="Q.", options=" {hide-output}"))
    pages.append(read_page(tmp_path / "explainers" / "q.md", tmp_path))
    cache = open_cache(tmp_path)
    for page in pages:
        executed = result(tmp_path)
        executed.trace["packages"] = {"numpy": {"path": numpy.__file__, "version": numpy.__version__}}
        cache.store(page, executed)
    sets = list(cache.package_sets_dir.iterdir())
    assert len(sets) == 1 and "numpy" in json.loads(sets[0].read_text())["value"]
    entry = json.loads(cache.entry_path(page_key(pages[1])).read_text())
    assert entry["deps"]["packages"] == sets[0].stem
    found = open_cache(tmp_path).lookup(pages[1])
    assert found.page is not None and found.page.deps.of_kind(Package)[0].version == numpy.__version__
    sets[0].unlink()
    missing = open_cache(tmp_path).lookup(pages[1])
    assert missing.page is None and "package set" in missing.warnings[0] and "re-run" in missing.warnings[0]


def entry_state(cache: ExecutionCache, page) -> list[int]:
    """The entry file's state once it is old enough to vouch for what is decoded from it."""
    path = cache.entry_path(page_key(page))
    time.sleep(FINE_RACY_NS / 1e9)
    return path_state(path)


def test_an_entry_is_decoded_once_and_again_only_when_its_file_changes(tmp_path):
    (tmp_path / "data.txt").write_text("one")
    page = make_page(tmp_path)
    cache = open_cache(tmp_path)
    cache.store(page, result(tmp_path))
    state = entry_state(cache, page)
    first = open_cache(tmp_path)
    assert first.lookup(page).page.blocks[1][0].text == "hello\n"
    first.save()
    shelf = Shelf(tmp_path / "cache" / DECODED_DIR, f"decoded execution entries {CACHE_FORMAT}", engine_version())
    kept_state, _, kept = shelf.get(page_key(page))
    assert kept_state == state and kept.blocks[1][0].text == "hello\n", "kept with its file's state"

    # The file rewritten (another output, as another engine run would leave it): decoded afresh.
    entry = cache.entry_path(page_key(page))
    entry.write_text(entry.read_text().replace('"hello\\n"', '"hello again\\n"'))
    entry_state(cache, page)
    second = open_cache(tmp_path)
    assert second.lookup(page).page.blocks[1][0].text == "hello again\n"
    second.save()
    assert Shelf(tmp_path / "cache" / DECODED_DIR, f"decoded execution entries {CACHE_FORMAT}",
                 engine_version()).get(page_key(page))[2].blocks[1][0].text == "hello again\n"


def test_a_damaged_shelf_of_decoded_entries_is_ignored(tmp_path):
    (tmp_path / "data.txt").write_text("one")
    page = make_page(tmp_path)
    cache = open_cache(tmp_path)
    cache.store(page, result(tmp_path))
    entry_state(cache, page)
    first = open_cache(tmp_path)
    first.lookup(page)
    first.save()
    for path in (tmp_path / "cache" / DECODED_DIR).iterdir():
        path.write_bytes(b"not a pickle")
    found = open_cache(tmp_path).lookup(page)
    assert found.page is not None and found.page.blocks[1][0].text == "hello\n" and not found.warnings
