"""Highlighted code is kept between builds: a prose edit highlights nothing, a code edit
only the changed block, a new Pygments version everything again."""

from __future__ import annotations

import time

from site_helpers import TEMPLATES

import sitebuild.render.highlight
from sitebuild.commands.build import run_build
from sitebuild.config import make_config
from sitebuild.render.highlight import HIGHLIGHT_FILE, HighlightMemo, highlight_code
from sitebuild.store.files import FINE_RACY_NS

PAGE = "---\ntitle: Page {slug}\nsummary: A page of the highlight tests.\n---\n\n{prose}\n\n```python\n{code}\n```\n"


def write(root, slug, prose, code):
    (root / "explainers").mkdir(parents=True, exist_ok=True)
    (root / "explainers" / f"{slug}.md").write_text(PAGE.format(slug=slug, prose=prose, code=code), encoding="utf-8")


def build_counting(root, monkeypatch) -> list[str]:
    """Build (real kernels); return the sources Pygments highlighted."""
    highlighted = []
    real = sitebuild.render.highlight.highlight_code

    def counting(source, language):
        highlighted.append(source)
        return real(source, language)

    monkeypatch.setattr(sitebuild.render.highlight, "highlight_code", counting)
    time.sleep(FINE_RACY_NS / 1e9)
    summary = run_build(make_config(root, templates=TEMPLATES, jobs=1))
    assert summary.ok, [str(p) for p in summary.problems]
    return sorted(highlighted)


def test_a_prose_edit_highlights_nothing_and_a_code_edit_only_its_block(tmp_path, monkeypatch):
    root = tmp_path / "root"
    write(root, "one", "Prose one.", "print(1)")
    write(root, "two", "Prose two.", "print(2)")
    assert build_counting(root, monkeypatch) == ["print(1)\n", "print(2)\n"]
    write(root, "two", "Prose two, reworded.", "print(2)")
    assert build_counting(root, monkeypatch) == []
    assert '<span class="nb">print</span>' in (root / "site" / "two.html").read_text()
    write(root, "two", "Prose two, reworded.", "print(22)")
    assert build_counting(root, monkeypatch) == ["print(22)\n"]


def test_another_pygments_version_highlights_again(tmp_path, monkeypatch):
    root = tmp_path / "root"
    write(root, "one", "Prose one.", "print(1)")
    build_counting(root, monkeypatch)
    monkeypatch.setattr(sitebuild.render.highlight, "pygments_version", lambda: "0.0-another")
    write(root, "one", "Prose one, reworded.", "print(1)")
    assert build_counting(root, monkeypatch) == ["print(1)\n"]


def test_the_memo_keeps_only_the_blocks_the_site_still_has(tmp_path):
    path = tmp_path / HIGHLIGHT_FILE
    memo = HighlightMemo(path)
    assert memo.code("x = 1\n", "python") == highlight_code("x = 1\n", "python")
    memo.code("y = 2\n", "python")
    memo.css()
    memo.save([("y = 2\n", "python")])
    again = HighlightMemo(path)
    assert len(again.entries) == 2  # the stylesheet and y = 2
    assert again.code("y = 2\n", "python") == highlight_code("y = 2\n", "python") and not again.changed


def test_an_unreadable_memo_is_started_afresh(tmp_path):
    path = tmp_path / HIGHLIGHT_FILE
    path.write_text("{not json", encoding="utf-8")
    memo = HighlightMemo(path)
    assert memo.entries == {} and memo.code("z\n", "text").strip() == "z"
