"""The preview's rebuilds share what they parsed, checked, decoded and rendered in memory
(:class:`sitebuild.commands.stages.Resident`). A build that reuses it writes exactly the bytes
a cold ``build`` writes, never changes a value it takes from there, and still runs again what
an edit of the code or of a file the page reads affects. Real kernels, real files."""

from __future__ import annotations

import json
import pickle
import re
import time
from pathlib import Path

import pytest
from msgspec.structs import replace
from site_helpers import TEMPLATES

from sitebuild.commands.build import run_build
from sitebuild.commands.stages import Resident
from sitebuild.config import make_config
from sitebuild.execution.cache import copy_page_results
from sitebuild.render.provenance import PROVENANCE_END, PROVENANCE_START
from sitebuild.source.read import read_page
from sitebuild.store.files import FINE_RACY_NS

ALPHA = """---
title: Alpha
summary: A page that reads a data file.
related: [beta]
---

# Alpha

The mean score is 0.75, over `{python} len(scores)` rows, and it [stays above a half]{check="mean > 0.5"}.
See [the other page](beta.md) too.

```python
scores = [float(line) for line in open("data.txt")]
mean = sum(scores) / len(scores)
print(f"mean score: {mean:.2f}")
```
"""
BETA = """---
title: Beta
summary: Prose only.
---

# Beta

Read [Alpha](alpha.md) first: it quotes one number.
"""
MARKED = re.compile(re.escape(PROVENANCE_START).encode() + b".*?" + re.escape(PROVENANCE_END).encode(), re.S)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "explainers").mkdir()
    (tmp_path / "explainers" / "alpha.md").write_text(ALPHA, encoding="utf-8")
    (tmp_path / "explainers" / "beta.md").write_text(BETA, encoding="utf-8")
    (tmp_path / "data.txt").write_text("0.5\n1.0\n", encoding="utf-8")
    return tmp_path


def build(root: Path, resident: Resident | None, **options):
    time.sleep(FINE_RACY_NS / 1e9)  # the edit just made is old enough for its state to vouch for it
    summary = run_build(make_config(root, templates=TEMPLATES, jobs=1, **options), resident=resident)
    assert summary.ok and summary.written, [str(p) for p in summary.problems]
    return summary


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")


def site_files(folder: Path) -> dict[str, bytes]:
    """Every file of a site, the provenance (when and from what each page was made) blanked."""
    blank = PROVENANCE_START.encode() + PROVENANCE_END.encode()
    return {p.relative_to(folder).as_posix(): MARKED.sub(blank, p.read_bytes())
            for p in sorted(folder.rglob("*")) if p.is_file()}


def cold_build(root: Path, tmp: Path) -> dict[str, bytes]:
    """The site a cold ``build`` writes now: no memory, no memo, no last site; only the
    executions of the cache (so no kernel runs)."""
    cache = tmp / "cold-cache"
    copy_page_results(root / ".cache" / "sitebuild", cache)
    summary = build(root, None, out=tmp / "cold-site", cache_dir=cache)
    assert summary.executed == 0
    return site_files(tmp / "cold-site")


def test_prose_edits_built_from_memory_write_the_bytes_of_a_cold_build(root, tmp_path_factory):
    resident = Resident()
    assert build(root, resident).executed == 1
    edit(root / "explainers" / "alpha.md", "See [the other page](beta.md) too.",
         "See [the second page](beta.md) as well.")
    assert build(root, resident).executed == 0
    served = site_files(root / "site")
    assert 'href="beta.html">the second page</a>' in served["alpha.html"].decode()
    assert served == cold_build(root, tmp_path_factory.mktemp("cold"))

    # Alpha again from memory, rendered again (its related page's title changed).
    edit(root / "explainers" / "beta.md", "title: Beta", "title: Beta, the second page")
    assert build(root, resident).executed == 0
    assert site_files(root / "site") == cold_build(root, tmp_path_factory.mktemp("cold"))


def test_a_build_never_changes_what_it_takes_from_memory(root):
    resident = Resident()
    build(root, resident)
    build(root, resident, force=True)  # its numbers checked against the lock the first build wrote
    alpha = root / "explainers" / "alpha.md"
    quotes = resident.quotes.values["explainers/alpha.md"]
    quotes_before = pickle.dumps(quotes)
    for title in ("Beta, edited", "Beta, edited again"):  # every page rendered again, twice
        edit(root / "explainers" / "beta.md", "title: Beta", f"title: {title}")
        assert build(root, resident).executed == 0
        edit(root / "explainers" / "beta.md", f"title: {title}", "title: Beta")

    page = resident.pages.values[str(alpha)][-1]
    assert pickle.dumps(page) == pickle.dumps(read_page(alpha, root)), "the parsed page is as parsed"
    assert resident.quotes.values["explainers/alpha.md"] is quotes, "its check was taken from memory"
    assert pickle.dumps(quotes) == quotes_before
    [(key, (state, entry, result))] = resident.entries.decoded.values.items()
    from sitebuild.execution.cache import PAGES_DIR, _decode

    stored = json.loads((root / ".cache" / "sitebuild" / PAGES_DIR / f"{key}.json").read_text(encoding="utf-8"))
    fresh = _decode(stored["result"], status="cached", deps=None, digest=stored["digest"])
    assert pickle.dumps(replace(result, deps=None)) == pickle.dumps(fresh)


def test_edits_of_the_code_or_of_a_file_read_still_run_the_page(root):
    resident = Resident()
    build(root, resident)
    edit(root / "explainers" / "alpha.md", 'print(f"mean score: {mean:.2f}")',
         'print(f"mean score: {mean:.2f}")\nprint("rows counted:", len(scores))')
    summary = build(root, resident)
    assert summary.executed == 1 and "rows counted: 2" in (root / "site" / "alpha.html").read_text()

    (root / "data.txt").write_text("1.0\n0.5\n", encoding="utf-8")  # the same mean, another file
    summary = build(root, resident)
    assert summary.executed == 1 and [row.reason for row in summary.rows if row.slug == "alpha"] == \
        ["`data.txt` changed"]

    (root / "data.txt").write_text("1.0\n0.5\n0.5\n", encoding="utf-8")  # now the quoted mean is stale
    time.sleep(FINE_RACY_NS / 1e9)
    failed = run_build(make_config(root, templates=TEMPLATES, jobs=1), resident=resident)
    assert not failed.ok and any("0.75" in str(p) and "stale" in str(p) for p in failed.errors)
    assert "mean score: 0.75" in (root / "site" / "alpha.html").read_text(), "the last good site stays"


def test_a_save_that_ended_long_enough_ago_is_built_without_another_look(tmp_path):
    import threading

    from sitebuild.commands.serve import SETTLE_SECONDS, settled_snapshot, snapshot

    page = tmp_path / "page.md"
    page.write_text("first", encoding="utf-8")
    last = snapshot([page], tmp_path)
    page.write_text("second", encoding="utf-8")
    current = snapshot([page], tmp_path)

    class Stop(threading.Event):
        waits = 0

        def wait(self, timeout=None):
            Stop.waits += 1
            return super().wait(timeout)

    assert settled_snapshot([page], tmp_path, current, Stop(), last) == current
    assert Stop.waits >= 1, "a save made just now is looked at again"
    Stop.waits = 0
    time.sleep(SETTLE_SECONDS * 2)
    assert settled_snapshot([page], tmp_path, current, Stop(), last) == current
    assert Stop.waits == 0, "its change time tells that the save held still long enough"
