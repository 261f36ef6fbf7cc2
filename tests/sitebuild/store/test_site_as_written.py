"""The stamp records the site as written: a file of the site deleted or edited by hand
makes the next build write it again (from the cache, no kernel), instead of "site is up
to date"; an untouched site stays up to date."""

from __future__ import annotations

import re
import time
from pathlib import Path

from site_helpers import site_config

from sitebuild.commands.build import run_build
from sitebuild.render.provenance import PROVENANCE_END, PROVENANCE_START
from sitebuild.store.files import FINE_RACY_NS
from sitebuild.store.stamp import read_site_files, site_states

PAGE = ("---\ntitle: Written\nsummary: A page of the stamp tests.\n---\n\nA page.\n\n"
        "```python\nprint('value', 6 * 7)\n```\n")


#: The page's provenance line names the minute it was rendered: a page written again in the
#: next minute differs there alone.
BUILT_AT = re.compile(re.escape(PROVENANCE_START).encode() + b".*?" + re.escape(PROVENANCE_END).encode(), re.S)


def as_built(content: bytes) -> bytes:
    """The page without the time it was rendered."""
    return BUILT_AT.sub(b"", content)


def build(root: Path):
    time.sleep(FINE_RACY_NS / 1e9)
    summary = run_build(site_config(root))
    assert summary.ok, [str(p) for p in summary.problems]
    return summary


def built_site(tmp_path: Path) -> tuple[Path, bytes]:
    (tmp_path / "explainers").mkdir()
    (tmp_path / "explainers" / "written.md").write_text(PAGE)
    build(tmp_path)
    again = build(tmp_path)  # the first build's files were too new for a stamp
    assert again.up_to_date or again.executed == 0
    page = tmp_path / "site" / "written.html"
    assert build(tmp_path).up_to_date
    return page, page.read_bytes()


def test_the_stamp_holds_every_file_written_with_its_state(tmp_path):
    page, _ = built_site(tmp_path)
    recorded = read_site_files(tmp_path / ".cache" / "sitebuild")
    assert recorded == site_states(tmp_path / "site") and "written.html" in recorded and "index.html" in recorded


def test_a_page_deleted_from_the_site_is_written_again(tmp_path):
    page, content = built_site(tmp_path)
    page.unlink()
    summary = build(tmp_path)
    assert not summary.up_to_date and summary.executed == 0 and summary.written
    assert as_built(page.read_bytes()) == as_built(content)


def test_a_page_edited_by_hand_in_the_site_is_written_again(tmp_path):
    page, content = built_site(tmp_path)
    page.write_bytes(content.replace(b"value 42", b"value 43"))  # an edit in place, at the same size
    summary = build(tmp_path)
    assert not summary.up_to_date and summary.executed == 0
    assert as_built(page.read_bytes()) == as_built(content) and b"value 42" in content
    assert build(tmp_path).up_to_date


def test_a_static_file_deleted_from_the_site_is_written_again(tmp_path):
    page, _ = built_site(tmp_path)
    static = sorted((tmp_path / "site" / "static").rglob("*.css"))[0]
    expected = static.read_bytes()
    static.unlink()
    assert not build(tmp_path).up_to_date and static.read_bytes() == expected
