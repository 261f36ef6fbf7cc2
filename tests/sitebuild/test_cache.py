"""The cache key holds code and options, not prose; entries are checked against the
hashes of what the page read; a corrupt entry is discarded with a warning."""

from __future__ import annotations

from pathlib import Path

from sitebuild.cache import ExecutionCache, FileHasher, page_key
from sitebuild.execute import ExecutedPage, InlineValue
from sitebuild.outputs import Output
from sitebuild.read import read_page

PAGE = "---\ntitle: T\nsummary: S\n---\n\n{prose}\n\n```python{options}\nprint(open('data.txt').read())\n```\n"


def make_page(root: Path, prose="Some prose.", options=""):
    (root / "explainers").mkdir(exist_ok=True)
    path = root / "explainers" / "p.md"
    path.write_text(PAGE.format(prose=prose, options=options))
    return read_page(path, root)


def result() -> ExecutedPage:
    return ExecutedPage(slug="p", blocks={1: [Output("stream", "hello\n", ["hello"])]}, figures={"p-1-1.png": b"\x89PNG"},
                        files_read=["data.txt"], inline=[InlineValue(0, "1.0")], python="3", seconds=1.5)


def test_key_ignores_prose_but_not_code_or_options(tmp_path):
    base = page_key(make_page(tmp_path))
    assert page_key(make_page(tmp_path, prose="Other prose, 3 lines\n\nlonger.")) == base
    assert page_key(make_page(tmp_path, options=" {hide-output}")) != base


def test_entry_round_trips_and_goes_stale_when_a_file_read_changes(tmp_path):
    (tmp_path / "data.txt").write_text("one")
    page = make_page(tmp_path)
    cache = ExecutionCache(tmp_path / "cache", tmp_path)
    cache.store(page, result())
    found = cache.lookup(page).page
    assert found.status == "cached" and found.blocks[1][0].texts == ["hello"] and found.figures == {"p-1-1.png": b"\x89PNG"}
    (tmp_path / "data.txt").write_text("two")
    lookup = ExecutionCache(tmp_path / "cache", tmp_path).lookup(page)
    assert lookup.page is None and lookup.reason == "data.txt changed"


def test_failed_pages_are_not_stored(tmp_path):
    from sitebuild.execute import PageError
    page = make_page(tmp_path)
    cache = ExecutionCache(tmp_path / "cache", tmp_path)
    failed = result()
    failed.error = PageError("exception", "boom")
    cache.store(page, failed)
    assert cache.lookup(page).page is None


def test_corrupt_entry_is_discarded_with_a_warning(tmp_path):
    (tmp_path / "data.txt").write_text("one")
    page = make_page(tmp_path)
    cache = ExecutionCache(tmp_path / "cache", tmp_path)
    cache.store(page, result())
    entry = cache.entry_path(page_key(page))
    entry.write_text(entry.read_text().replace('"figures": {"p-1-1.png": "', '"figures": {"p-1-1.png": "!!'))
    lookup = cache.lookup(page)
    assert lookup.page is None and not entry.exists()
    assert lookup.warnings and "corrupt cache entry discarded" in lookup.warnings[0]


def test_file_hasher_reuses_hashes_of_unchanged_files(tmp_path):
    (tmp_path / "a.txt").write_text("a")
    hasher = FileHasher(tmp_path, tmp_path / "memo.json")
    first = hasher.digest("a.txt")
    hasher.save()
    again = FileHasher(tmp_path, tmp_path / "memo.json")
    assert again.digest("a.txt") == first and not again.changed
    assert again.digest("missing.txt") is None
