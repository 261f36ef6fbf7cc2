"""The shelf under the page and quote memos: values come back across builds, a value
stored since the pack sits beside it and wins, the pack is written again once enough have
piled up or a name is dropped, and nothing of another version or a damaged file is used."""

from __future__ import annotations

from sitebuild.store.shelf import COMPACT_AFTER, PACK, Shelf

NAMES = {f"page-{i}" for i in range(COMPACT_AFTER + 1)}


def files(folder) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if not p.name.startswith("."))


def packed(folder, value=lambda name: name) -> Shelf:
    """A shelf of :data:`NAMES`, stored one by one and then packed."""
    shelf = Shelf(folder, 1, "v1")
    for name in NAMES:
        shelf.put(name, value(name))
    shelf.keep_only(NAMES)
    return shelf


def test_values_come_back_and_many_singles_are_packed(tmp_path):
    shelf = Shelf(tmp_path, 1, "v1")
    names = [f"page-{i}" for i in range(COMPACT_AFTER + 1)]
    for name in names:
        shelf.put(name, {"name": name})
    assert len(files(tmp_path)) == len(names)
    shelf.keep_only(set(names))
    assert files(tmp_path) == [PACK], "more than COMPACT_AFTER singles are packed"
    again = Shelf(tmp_path, 1, "v1")
    assert all(again.get(name) == {"name": name} for name in names)
    assert again.get("never stored") is None


def test_a_value_stored_after_the_pack_wins_and_few_singles_stay_single(tmp_path):
    names = NAMES
    packed(tmp_path, lambda name: "old")
    edited = Shelf(tmp_path, 1, "v1")
    assert edited.get("page-3") == "old"
    edited.put("page-3", "new")
    edited.keep_only(names)
    assert len(files(tmp_path)) == 2, "one edit writes one file beside the pack"
    assert Shelf(tmp_path, 1, "v1").get("page-3") == "new"
    assert Shelf(tmp_path, 1, "v1").get("page-4") == "old"


def test_a_dropped_name_is_forgotten_from_the_pack_and_from_beside_it(tmp_path):
    names = NAMES
    packed(tmp_path)
    later = Shelf(tmp_path, 1, "v1")
    later.put("page-1", "changed")
    later.keep_only(names - {"page-1", "page-2"})
    survivor = Shelf(tmp_path, 1, "v1")
    assert survivor.get("page-1") is None and survivor.get("page-2") is None
    assert survivor.get("page-5") == "page-5"
    assert files(tmp_path) == [PACK]


def test_another_version_or_a_damaged_file_counts_as_missing_and_is_replaced(tmp_path):
    packed(tmp_path)
    newer = Shelf(tmp_path, 1, "v2")
    assert newer.get("page-1") is None, "written by another version of the engine"
    newer.put("page-1", "v2 value")
    newer.keep_only({"page-1"})
    assert files(tmp_path) == [PACK], "the unusable pack is written again"
    assert Shelf(tmp_path, 1, "v2").get("page-1") == "v2 value"
    (tmp_path / PACK).write_bytes(b"\x80\x05truncated")
    damaged = Shelf(tmp_path, 1, "v2")
    assert damaged.get("page-1") is None
    damaged.put("page-1", "again")
    damaged.keep_only({"page-1"})
    assert Shelf(tmp_path, 1, "v2").get("page-1") == "again"


def test_many_values_stored_at_once_make_one_pack_and_replace_older_singles(tmp_path):
    shelf = packed(tmp_path, lambda name: "old")
    shelf.put("page-1", "single")  # beside the pack: it would win over a packed value
    many = {f"new-{i}": i for i in range(COMPACT_AFTER + 1)} | {"page-1": "new"}
    shelf.put_many(many)
    assert files(tmp_path) == [PACK], "storing many at once writes the pack, and no file beside it"
    again = Shelf(tmp_path, 1, "v1")
    assert again.get("page-1") == "new" and again.get("page-2") == "old" and again.get("new-3") == 3


def test_few_values_stored_at_once_sit_beside_the_pack(tmp_path):
    packed(tmp_path)
    shelf = Shelf(tmp_path, 1, "v1")
    shelf.put_many({"page-1": "edited", "page-2": "edited too"})
    assert len(files(tmp_path)) == 3
    assert Shelf(tmp_path, 1, "v1").get("page-2") == "edited too"
