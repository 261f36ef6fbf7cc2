"""The one memo API: a value comes back as it was saved, a write is skipped when the file
holds it already, and every memo of the engine ignores a damaged file, a foreign one (of
another kind, or the bare value an older engine wrote) and one of another version."""

from __future__ import annotations

import json
import pickle
from pathlib import Path
from typing import Callable

import pytest

from sitebuild.checks import figure_contrast
from sitebuild.commands.steps import steps_memo
from sitebuild.execution.cache import (
    DECODED_DIR,
    ExecutionCache,
    hashes_memo,
    index_memo,
    package_set_memo,
    packages_digest,
)
from sitebuild.execution.deps import PACKAGE_VERSIONS_FILE, package_table
from sitebuild.execution.order import feeds_of, load_feeds, save_feeds
from sitebuild.execution.template import LEARNED_FILE, learned_preload, remember_preload
from sitebuild.output.scripts import scripts_memo
from sitebuild.quotes.memo import QuoteMemo
from sitebuild.render.highlight import HIGHLIGHT_FILE, HighlightMemo
from sitebuild.render.render_cache import RenderCache
from sitebuild.source.page_cache import PAGES_DIR, PAGES_FORMAT, engine_version, read_pages_cached
from sitebuild.store.memo import IGNORED, Memo, unwrap, wrap
from sitebuild.store.shelf import Shelf
from sitebuild.store.stamp import (
    inputs_memo,
    read_site_files,
    read_stamp,
    recorded_inputs,
    site_files_memo,
    write_site_files,
    write_stamp,
)

PAGE = "---\ntitle: Memo Page\nsummary: A page for the memo tests.\n---\n\nSome prose.\n"


def test_a_value_comes_back_and_an_unchanged_save_writes_nothing(tmp_path):
    memo = Memo(tmp_path / "m.json", "test memo", "v1")
    assert memo.load({}) == {}
    assert memo.save({"a": [1, 2]}) is True
    again = Memo(tmp_path / "m.json", "test memo", "v1")
    assert again.load({}) == {"a": [1, 2]}
    before = (tmp_path / "m.json").stat().st_ino
    assert again.save({"a": [1, 2]}) is False
    assert Memo(tmp_path / "m.json", "test memo", "v1").save({"a": [1, 2]}) is False
    assert (tmp_path / "m.json").stat().st_ino == before, "no write: the file was not replaced"
    assert again.save({"a": [3]}) is True and Memo(tmp_path / "m.json", "test memo", "v1").load({}) == {"a": [3]}


def test_unwrap_is_the_one_judge(tmp_path):
    assert unwrap(wrap("k", "v", [1]), "k", "v") == [1]
    assert unwrap(wrap("k", "v", [1]), "other", "v") is IGNORED
    assert unwrap(wrap("k", "v", [1]), "k", "v2") is IGNORED
    assert unwrap({"memo": "k", "version": "v"}, "k", "v") is IGNORED
    assert unwrap([1], "k", "v") is IGNORED
    assert unwrap(wrap("k", "v", [1]), "k", "v", valid=lambda value: len(value) > 1) is IGNORED


def test_a_value_of_another_type_or_failing_its_check_is_ignored(tmp_path):
    memo = Memo(tmp_path / "m.json", "test memo", "v1")
    memo.save([1, 2])
    assert Memo(tmp_path / "m.json", "test memo", "v1").load({}) == {}
    assert Memo(tmp_path / "m.json", "test memo", "v1").load([], lambda value: 3 in value) == []
    assert Memo(tmp_path / "m.json", "test memo", "v1").load([], lambda value: 2 in value) == [1, 2]


# Each memo of the engine: how a real one is made (returns its file) and what its owner
# reads back from it (truthy only when the memo was used).
MemoCase = tuple[Callable[[Path], Path], Callable[[Path], object]]


def _root(tmp: Path) -> Path:
    (tmp / "root").mkdir(exist_ok=True)
    return tmp / "root"


def _index(tmp: Path) -> Path:
    index_memo(tmp / "cache").save({"explainers/p.md": "0" * 64})
    return tmp / "cache" / "index.json"


def _hashes(tmp: Path) -> Path:
    hashes_memo(tmp / "cache").save({"data.csv": [[1, 2, 3, 4, 5], "ab" * 32]})
    return tmp / "cache" / "file-hashes.json"


PACKAGES = {"numpy": {"stamp": ["/nowhere/numpy/__init__.py", 1, 2, 3], "version": "2.0"}}


def _package_set(tmp: Path) -> Path:
    memo = package_set_memo(tmp / "cache" / "package-sets", packages_digest(PACKAGES))
    memo.save(PACKAGES)
    return memo.path


def _read_package_set(tmp: Path) -> object:
    try:
        return ExecutionCache(tmp / "cache", _root(tmp))._package_set(packages_digest(PACKAGES))
    except ValueError:
        return None


def _package_table(tmp: Path) -> Path:
    path = tmp / "cache" / PACKAGE_VERSIONS_FILE
    package_table(path)  # scanned and kept
    memo = json.loads(path.read_text(encoding="utf-8"))
    memo["value"]["table"]["zz_only_in_the_memo"] = [["zz-only-in-the-memo", "1.0"]]
    path.write_text(json.dumps(memo), encoding="utf-8")
    return path


def _highlights(tmp: Path) -> Path:
    memo = HighlightMemo(tmp / "cache" / HIGHLIGHT_FILE)
    memo.code("print(1)", "python")
    memo.save([("print(1)", "python")])
    return tmp / "cache" / HIGHLIGHT_FILE


def _rendered(tmp: Path) -> Path:
    cache = RenderCache(tmp / "cache", tmp / "site")
    cache.reusable({"p": "signature"})
    cache.save()
    return tmp / "cache" / "rendered.json"


def _stamp(tmp: Path) -> Path:
    write_stamp(tmp / "cache" / "last-build.json", {"fingerprint": "f", "deps": {}})
    return tmp / "cache" / "last-build.json"


def _inputs(tmp: Path) -> Path:
    inputs_memo(tmp / "cache").save(["data.csv"])
    return inputs_memo(tmp / "cache").path


def _site_files(tmp: Path) -> Path:
    write_site_files(tmp / "cache", {"index.html": [10, 20, 30]})
    return site_files_memo(tmp / "cache").path


def _feeds(tmp: Path) -> Path:
    save_feeds(tmp / "cache", feeds_of({"b.md": ["data.csv"]}, {"a.md": ["data.csv"]}))
    return tmp / "cache" / "page-feeds.json"


DARK_SVG = b'<svg xmlns="http://www.w3.org/2000/svg"><path d="M0 0" stroke="#000000"/></svg>'


def _contrasts(tmp: Path) -> Path:
    figure_contrast._CHECKED.clear()
    with figure_contrast.remembered_contrasts(tmp / "cache"):
        assert figure_contrast.faint_marks(DARK_SVG)  # black on the dark background: faint
    figure_contrast._CHECKED.clear()
    return tmp / "cache" / figure_contrast.CONTRAST_FILE


def _remembered_contrasts(tmp: Path) -> bool:
    """True when the marks found by the last build are known before any figure is parsed."""
    with figure_contrast.remembered_contrasts(tmp / "cache"):
        known = bool(figure_contrast._CHECKED)
    figure_contrast._CHECKED.clear()
    return known


def _preload(tmp: Path) -> Path:
    remember_preload(tmp / "cache", {"numpy", "pandas"})
    return tmp / "cache" / LEARNED_FILE


def _steps(tmp: Path) -> Path:
    steps_memo(tmp / "cache" / "steps.json").save({"results": "digest"})
    return tmp / "cache" / "steps.json"


def _scripts(tmp: Path) -> Path:
    scripts_memo(tmp / "cache" / "scripts.json", "engine-1").save({"code/p.py": ["digest", [1, 2, 3, 4, 5]]})
    return tmp / "cache" / "scripts.json"


def _parsed_shelf(tmp: Path) -> Shelf:
    return Shelf(tmp / "cache" / PAGES_DIR, f"parsed pages {PAGES_FORMAT}", engine_version())


def _parsed(tmp: Path) -> Path:
    source = tmp / "explainers"
    source.mkdir(exist_ok=True)
    (source / "p.md").write_text(PAGE, encoding="utf-8")
    pages, errors = read_pages_cached(source, _root(tmp), tmp / "cache")
    assert len(pages) == 1 and not errors
    [single] = (tmp / "cache" / PAGES_DIR).glob("*.pickle")
    return single


def _decoded(tmp: Path) -> Path:
    ExecutionCache(tmp / "cache", _root(tmp)).decoded.put("0" * 64, ("state", "entry", "result"))
    [single] = (tmp / "cache" / DECODED_DIR).glob("*.pickle")
    return single


def _quotes(tmp: Path) -> Path:
    QuoteMemo(tmp / "cache").shelf.put("explainers/p.md", ("key", "quotes"))
    [single] = (tmp / "cache" / "quotes").glob("*.pickle")
    return single


MEMOS: dict[str, MemoCase] = {
    "execution index": (_index, lambda tmp: ExecutionCache(tmp / "cache", _root(tmp)).index),
    "file hashes": (_hashes, lambda tmp: ExecutionCache(tmp / "cache", _root(tmp)).hasher.memo),
    "package set": (_package_set, _read_package_set),
    "package table": (_package_table,
                      lambda tmp: "zz_only_in_the_memo" in package_table(tmp / "cache" / PACKAGE_VERSIONS_FILE)),
    "highlighting": (_highlights, lambda tmp: HighlightMemo(tmp / "cache" / HIGHLIGHT_FILE).entries),
    "render cache": (_rendered, lambda tmp: RenderCache(tmp / "cache", tmp / "site").keys),
    "stamp": (_stamp, lambda tmp: read_stamp(tmp / "cache" / "last-build.json")),
    "recorded inputs": (_inputs, lambda tmp: recorded_inputs(tmp / "cache", _root(tmp))),
    "site as written": (_site_files, lambda tmp: read_site_files(tmp / "cache")),
    "page feeds": (_feeds, lambda tmp: load_feeds(tmp / "cache").writes),
    "learned preload": (_preload, lambda tmp: learned_preload(tmp / "cache")),
    "figure contrast": (_contrasts, _remembered_contrasts),
    "step checks": (_steps, lambda tmp: steps_memo(tmp / "cache" / "steps.json").load({})),
    "scripts": (_scripts, lambda tmp: scripts_memo(tmp / "cache" / "scripts.json", "engine-1").load({})),
    "parsed pages": (_parsed, lambda tmp: _parsed_shelf(tmp).get(str(tmp / "explainers" / "p.md"))),
    "decoded entries": (_decoded, lambda tmp: ExecutionCache(tmp / "cache", _root(tmp)).decoded.get("0" * 64)),
    "quote checks": (_quotes, lambda tmp: QuoteMemo(tmp / "cache").shelf.get("explainers/p.md")),
}


def _rewrite(path: Path, change: Callable[[dict], object]) -> None:
    """Replace the memo at ``path`` by ``change`` of what it holds (JSON or pickle)."""
    if path.suffix == ".pickle":
        path.write_bytes(pickle.dumps(change(pickle.loads(path.read_bytes()))))
    else:
        path.write_text(json.dumps(change(json.loads(path.read_text(encoding="utf-8")))), encoding="utf-8")


def _damaged(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


DAMAGES: dict[str, Callable[[Path], None]] = {
    "corrupt": _damaged,
    "foreign kind": lambda path: _rewrite(path, lambda raw: dict(raw, memo="a memo of something else")),
    "foreign bare value": lambda path: _rewrite(path, lambda raw: raw["value"]),
    "other engine version": lambda path: _rewrite(path, lambda raw: dict(raw, version="another engine")),
}


@pytest.mark.parametrize("memo", sorted(MEMOS))
def test_every_memo_is_used_as_saved(tmp_path, memo):
    make, read = MEMOS[memo]
    make(tmp_path)
    assert read(tmp_path), f"the {memo} memo as saved is used"


@pytest.mark.parametrize("damage", sorted(DAMAGES))
@pytest.mark.parametrize("memo", sorted(MEMOS))
def test_every_memo_ignores_a_damaged_foreign_or_outdated_file(tmp_path, memo, damage):
    make, read = MEMOS[memo]
    path = make(tmp_path)
    DAMAGES[damage](path)
    assert not read(tmp_path), f"a {damage} {memo} memo is ignored"

