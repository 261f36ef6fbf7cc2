"""Parsed pages remembered between builds: an unchanged page is not parsed again (and
equals a fresh parse), an edited, new or removed page is, a page with an error is
reported every time, and an engine change or a corrupt memo parses every page."""

from __future__ import annotations

from pathlib import Path

import sitebuild.source.read
from sitebuild.source.page_cache import PAGES_DIR, read_pages_cached
from sitebuild.source.read import read_pages

PAGE = "---\ntitle: Page {n}\nsummary: A page of the page cache tests.\n---\n\nProse {n} and `{{python}} 1 + {n}`.\n"


def write(source, n, text=None):
    source.mkdir(parents=True, exist_ok=True)
    (source / f"p{n}.md").write_text(text or PAGE.format(n=n), encoding="utf-8")


def read_counting(source, root, cache, monkeypatch):
    parsed = []
    real = sitebuild.source.read.read_page

    def counting(path, root, previous=None):
        parsed.append(path.stem)
        return real(path, root, previous)

    monkeypatch.setattr(sitebuild.source.read, "read_page", counting)
    pages, errors = read_pages_cached(source, root, cache)
    return pages, errors, sorted(parsed)


def same(a, b):
    return [(p.slug, p.rel_path, p.text, p.front, p.blocks, p.inline, [t.as_dict() for t in p.tokens]) for p in a] == \
        [(p.slug, p.rel_path, p.text, p.front, p.blocks, p.inline, [t.as_dict() for t in p.tokens]) for p in b]


def test_only_changed_pages_are_parsed_and_the_pages_equal_a_fresh_read(tmp_path, monkeypatch):
    source, cache = tmp_path / "explainers", tmp_path / "cache"
    for n in (1, 2, 3):
        write(source, n)
    _, _, parsed = read_counting(source, tmp_path, cache, monkeypatch)
    assert parsed == ["p1", "p2", "p3"]
    pages, errors, parsed = read_counting(source, tmp_path, cache, monkeypatch)
    assert parsed == [] and errors == [] and same(pages, read_pages(source, tmp_path)[0])
    write(source, 2, PAGE.format(n=2) + "\nAn edit.\n")
    write(source, 4)
    (source / "p3.md").unlink()
    pages, _, parsed = read_counting(source, tmp_path, cache, monkeypatch)
    assert parsed == ["p2", "p4"] and [p.slug for p in pages] == ["p1", "p2", "p4"]
    assert "An edit." in pages[1].text and same(pages, read_pages(source, tmp_path)[0])


def test_a_page_with_an_error_is_reported_on_every_read(tmp_path, monkeypatch):
    source, cache = tmp_path / "explainers", tmp_path / "cache"
    write(source, 1, "no front matter\n")
    for _ in range(2):
        pages, errors, parsed = read_counting(source, tmp_path, cache, monkeypatch)
        assert pages == [] and parsed == ["p1"] and "front matter" in errors[0].message


def test_an_engine_change_or_a_corrupt_memo_parses_every_page(tmp_path, monkeypatch):
    source, cache = tmp_path / "explainers", tmp_path / "cache"
    write(source, 1)
    read_counting(source, tmp_path, cache, monkeypatch)
    monkeypatch.setattr("sitebuild.source.page_cache.engine_version", lambda: "another engine")
    assert read_counting(source, tmp_path, cache, monkeypatch)[2] == ["p1"]
    assert read_counting(source, tmp_path, cache, monkeypatch)[2] == []
    [memo] = list((cache / PAGES_DIR).iterdir())
    memo.write_bytes(b"\x80 not a pickle")
    assert read_counting(source, tmp_path, cache, monkeypatch)[2] == ["p1"]


def test_only_the_edited_page_is_written_and_a_removed_page_is_forgotten(tmp_path, monkeypatch):
    source, cache = tmp_path / "explainers", tmp_path / "cache"
    for n in (1, 2, 3):
        write(source, n)
    read_pages_cached(source, tmp_path, cache)
    files = {f.name: f.stat().st_mtime_ns for f in (cache / PAGES_DIR).iterdir()}
    assert len(files) == 3
    write(source, 2, PAGE.format(n=2) + "\nAn edit.\n")
    read_pages_cached(source, tmp_path, cache)
    after = {f.name: f.stat().st_mtime_ns for f in (cache / PAGES_DIR).iterdir()}
    assert sum(after[name] != files[name] for name in files) == 1
    (source / "p3.md").unlink()
    pages, _ = read_pages_cached(source, tmp_path, cache)
    assert [p.slug for p in pages] == ["p1", "p2"] and len(list((cache / PAGES_DIR).iterdir())) == 2


def test_a_settled_page_is_known_by_its_state_and_an_edit_keeping_size_and_mtime_is_seen(tmp_path, monkeypatch):
    import os
    import time

    import sitebuild.source.page_cache
    from sitebuild.store.files import FINE_RACY_NS

    source, cache = tmp_path / "explainers", tmp_path / "cache"
    write(source, 1)
    time.sleep(2 * FINE_RACY_NS / 1e9)  # old enough for its state to vouch for its bytes
    assert read_counting(source, tmp_path, cache, monkeypatch)[2] == ["p1"]
    real_digest = sitebuild.source.page_cache._digest
    read = []
    monkeypatch.setattr(sitebuild.source.page_cache, "_digest",
                        lambda path: read.append(Path(path).stem) or real_digest(path))
    assert read_counting(source, tmp_path, cache, monkeypatch)[2] == [] and read == []
    path = source / "p1.md"
    before = path.stat()
    path.write_text(PAGE.format(n=1).replace("Prose 1", "Prosa 1"), encoding="utf-8")  # same size
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))  # and the same mtime
    pages, _, parsed = read_counting(source, tmp_path, cache, monkeypatch)
    assert parsed == ["p1"] and "Prosa 1" in pages[0].text


def test_a_page_parsed_just_after_it_was_written_is_checked_by_its_digest(tmp_path, monkeypatch):
    import os
    import time

    import sitebuild.source.page_cache

    source, cache = tmp_path / "explainers", tmp_path / "cache"
    write(source, 1)
    soon = time.time_ns() + 10**9  # as if written this very moment, however slow this machine is
    os.utime(source / "p1.md", ns=(soon, soon))
    assert read_counting(source, tmp_path, cache, monkeypatch)[2] == ["p1"]
    real_digest = sitebuild.source.page_cache._digest
    read = []
    monkeypatch.setattr(sitebuild.source.page_cache, "_digest",
                        lambda path: read.append(Path(path).stem) or real_digest(path))
    assert read_counting(source, tmp_path, cache, monkeypatch)[2] == [] and read == ["p1"]


def test_a_prose_edit_reuses_the_front_matter_and_loads_no_yaml(tmp_path):
    import subprocess
    import sys
    import textwrap
    from pathlib import Path

    source, cache = tmp_path / "explainers", tmp_path / "cache"
    write(source, 1)
    write(source, 2)
    script = textwrap.dedent(f"""
        import sys
        from pathlib import Path
        from sitebuild.source.page_cache import read_pages_cached
        pages, errors = read_pages_cached(Path({str(source)!r}), Path({str(tmp_path)!r}), Path({str(cache)!r}))
        assert not errors, errors
        print(sorted(p.front.title for p in pages), "yaml" in sys.modules)
    """)
    engine = str(Path(__file__).resolve().parents[3])

    def run():
        return subprocess.run([sys.executable, "-c", script], cwd=engine, capture_output=True, text=True,
                              check=True).stdout.strip()

    assert run() == "['Page 1', 'Page 2'] True"  # parsed: the front matter is YAML
    write(source, 2, PAGE.format(n=2) + "\nA new paragraph.\n")
    assert run() == "['Page 1', 'Page 2'] False"  # re-parsed, its front matter unchanged
    write(source, 2, PAGE.format(n=2).replace("Page 2", "Page Two"))
    assert run() == "['Page 1', 'Page Two'] True"


def test_a_changed_or_removed_front_matter_is_validated_again(tmp_path, monkeypatch):
    source, cache = tmp_path / "explainers", tmp_path / "cache"
    write(source, 1)
    read_counting(source, tmp_path, cache, monkeypatch)
    write(source, 1, PAGE.format(n=1).replace("title: Page 1", "title: Page 1\ncolour: red"))
    pages, errors, parsed = read_counting(source, tmp_path, cache, monkeypatch)
    assert parsed == ["p1"] and pages == [] and errors[0].line == 3 and "colour" in errors[0].message
    write(source, 1, "\n" + PAGE.format(n=1))  # the same fields a line lower are not front matter
    pages, errors, _ = read_counting(source, tmp_path, cache, monkeypatch)
    assert pages == [] and "front matter" in errors[0].message
