"""A rebuild with nothing changed writes the same site, byte for byte, apart from the
marked provenance (when the build ran, from which commit, how each page's outputs were
produced): every page re-run in fresh kernels (``--force``), and every source touched so
that the cached executions are re-rendered. Built with real kernels on the browser
fixture site, which prints, shows a table and draws a figure."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

from site_helpers import REPO, TEMPLATES

from sitebuild.commands.build import run_build
from sitebuild.config import make_config
from sitebuild.render.provenance import PROVENANCE_END, PROVENANCE_START
from sitebuild.store.files import FINE_RACY_NS

FIXTURE = REPO / "tests" / "fixtures" / "browser_site"
MARKED = re.compile(re.escape(PROVENANCE_START).encode() + b".*?" + re.escape(PROVENANCE_END).encode(), re.S)


def _files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _without_provenance(data: bytes) -> bytes:
    return MARKED.sub(PROVENANCE_START.encode() + PROVENANCE_END.encode(), data)


def _differences(before: dict[str, bytes], after: dict[str, bytes]) -> list[str]:
    found = [f"only in one build: {name}" for name in sorted(set(before) ^ set(after))]
    for name in sorted(set(before) & set(after)):
        if _without_provenance(before[name]) != _without_provenance(after[name]):
            found.append(f"differs: {name}")
    return found


def _build(root: Path, **options) -> dict[str, bytes]:
    import time

    time.sleep(FINE_RACY_NS / 1e9)
    config = make_config(root, templates=TEMPLATES, jobs=2, cache_dir=root / ".cache", **options)
    summary = run_build(config)
    assert summary.ok and summary.written, [str(p) for p in summary.problems]
    return _files(config.out)


def test_a_rebuild_with_nothing_changed_is_byte_identical_apart_from_provenance(tmp_path):
    root = tmp_path / "browser_site"
    shutil.copytree(FIXTURE, root)
    first = _build(root)
    assert any(name.startswith("figures/") for name in first), "the fixture draws a figure"
    assert all(MARKED.search(first[name]) for name in first if name.endswith(".html")), \
        "every page marks its provenance"

    rerun = _build(root, force=True)  # every page in fresh kernels
    assert not _differences(first, rerun), _differences(first, rerun)

    for md in (root / "explainers").glob("*.md"):  # new mtimes, same bytes: the cache is reused
        os.utime(md)
    rerendered = _build(root)
    assert not _differences(first, rerendered), _differences(first, rerendered)


def test_the_comparison_sees_a_change_outside_the_provenance(tmp_path):
    root = tmp_path / "browser_site"
    shutil.copytree(FIXTURE, root)
    first = _build(root)
    page = root / "explainers" / "counting-rows.md"
    page.write_text(page.read_text(encoding="utf-8").replace("Counting comes before averaging.",
                                                             "Counting comes first."), encoding="utf-8")
    edited = _build(root)
    assert "differs: counting-rows.html" in _differences(first, edited)
