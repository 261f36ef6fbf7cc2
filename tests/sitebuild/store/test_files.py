"""The file helpers of the store: listing a folder's names as ``Path.glob`` does."""

from __future__ import annotations

from pathlib import Path

from sitebuild.store.files import names_ending


def test_names_ending_finds_what_glob_finds_in_the_same_order(tmp_path):
    for name in ("b.md", "a.md", "B.md", ".hidden.md", "notes.txt", "c.md.bak", "ä.md", "10.md", "9.md"):
        (tmp_path / name).write_text("x", encoding="utf-8")
    (tmp_path / "folder.md").mkdir()
    (tmp_path / "gone.md").symlink_to(tmp_path / "missing")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "deep.md").write_text("x", encoding="utf-8")
    assert names_ending(tmp_path, ".md") == [p.name for p in sorted(tmp_path.glob("*.md"))]
    assert names_ending(str(tmp_path), ".md")[:3] == [".hidden.md", "10.md", "9.md"]


def test_names_ending_in_a_missing_folder_is_empty_as_glob_is(tmp_path):
    missing = tmp_path / "nowhere"
    assert names_ending(missing, ".md") == [] == list(Path(missing).glob("*.md"))
