"""End to end over the basic fixture site with real Jupyter kernels: outputs and figures
reach the HTML, the cache re-runs exactly the pages whose dependencies changed, and a
rebuild with nothing changed does nothing."""

from __future__ import annotations

import os
import re
import time
from html import escape, unescape
from pathlib import Path

import pytest
from site_helpers import REPO, copy_site, site_config

import sitebuild.execution.execute
from sitebuild.commands.build import run_build
from sitebuild.store.files import FINE_RACY_NS

GOLDEN = REPO / "tests" / "fixtures" / "golden" / "explainer-outputs.html"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The basic site built once, cold, with two kernels in parallel."""
    root = copy_site("basic", tmp_path_factory.mktemp("basic"))
    time.sleep(FINE_RACY_NS / 1e9)  # files changed within a clock tick of the build cannot vouch for a stamp
    summary = run_build(site_config(root, jobs=2))
    assert summary.ok, [str(p) for p in summary.problems]
    return root, summary


def statuses(summary) -> dict[str, str]:
    return {row.slug: row.status for row in summary.rows}


def touch_later(path: Path, text: str) -> None:
    """Write ``text`` and make sure the modification time moves forward."""
    before = path.stat().st_mtime_ns
    path.write_text(text, encoding="utf-8")
    if path.stat().st_mtime_ns <= before:
        os.utime(path, ns=(before + 1_000_000, before + 1_000_000))


def forbid_kernels(monkeypatch):
    def refuse(job):
        raise AssertionError(f"a kernel was started for {job.slug}")
    monkeypatch.setattr(sitebuild.execution.execute, "execute_page", refuse)


def test_cold_build_executes_every_page(built):
    root, summary = built
    assert summary.executed == 3 and summary.cached == 0 and summary.failed == 0
    assert statuses(summary) == {"outputs": "executed", "module-page": "executed", "data-page": "executed"}


def test_outputs_tables_and_figures_reach_the_html(built):
    root, _ = built
    html = (root / "site" / "outputs.html").read_text()
    assert '<span class="line" id="out-1-0-l0">mean 2.5</span>' in html
    assert "<td>0.25</td>" in html and "<th>group</th>" in html
    figure = re.search(r'<img class="figure-light" src="figures/(outputs-3-\d+)\.svg" alt="A rising line"', html)
    assert figure, "the figure of block 3 is not on the page"
    assert f'<img class="figure-dark" src="figures/{figure.group(1)}-dark.svg" alt="A rising line"' in html
    for name in (f"{figure.group(1)}.svg", f"{figure.group(1)}-dark.svg"):
        assert b"<svg" in (root / "site" / "figures" / name).read_bytes()[:2000]
    assert '<figcaption><span class="figure-number">Figure 1.</span> A rising line</figcaption>' in html
    assert '<span class="inline-value">2.50</span>' in html
    assert "module-page.html" in html and "module-page.md" not in html


def test_script_in_an_output_is_shown_as_text(built):
    html = (built[0] / "site" / "outputs.html").read_text()
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in html
    assert "<script>alert" not in html


def test_hidden_code_and_other_languages(built):
    html = (built[0] / "site" / "outputs.html").read_text()
    assert 'id="cell-2"><div class="cell-outputs">' in html  # {hide-code}: no input shown
    assert "not run" in html and 'id="cell-4"><div class="cell-input">' in html
    assert 'id="out-4-' not in html


def test_scripts_notebooks_and_report_are_written(built):
    root, _ = built
    script = (root / "explainers" / "code" / "module-page.py").read_text()
    assert script.startswith("# Generated from explainers/module-page.md")
    assert "print(\"area\", area(3))" in script
    assert (root / "site" / "code" / "module-page.py").read_text() == script
    assert '"area 9\\n"' in (root / "site" / "code" / "module-page.ipynb").read_text()
    report = (root / "site" / "report.html").read_text()
    report = report.replace("<!--provenance-->", "").replace("<!--/provenance-->", "")  # per-build parts marked
    assert report.count("<td>executed</td>") == 3
    assert report.count("<td>new page</td>") == 3, "the report says why each page ran"


def test_rendered_page_matches_the_golden_file(built):
    html = (built[0] / "site" / "outputs.html").read_text()
    # Pygments' spans and its escaping of quotes vary by version: compare the code as plain text.
    normalised = re.sub(r'(<div class="highlight"><pre><code>)(.*?)(</code>)',
                        lambda m: m.group(1) + escape(unescape(re.sub(r"<[^>]+>", "", m.group(2))),
                                                      quote=False) + m.group(3),
                        html, flags=re.S)
    # The provenance line (build time, commit, versions) changes on every build.
    normalised = re.sub(r"<!--provenance-->.*?<!--/provenance-->", "<!--provenance--><!--/provenance-->", normalised,
                        flags=re.S)
    if os.environ.get("UPDATE_GOLDEN"):
        GOLDEN.write_text(normalised)
    assert normalised == GOLDEN.read_text()


def test_nothing_changed_is_a_no_op(built, monkeypatch):
    root, _ = built
    forbid_kernels(monkeypatch)
    index_before = (root / "site" / "index.html").stat().st_mtime_ns
    summary = run_build(site_config(root))
    assert summary.up_to_date and summary.ok
    assert (root / "site" / "index.html").stat().st_mtime_ns == index_before


def test_prose_edit_starts_no_kernel(built, monkeypatch):
    root, _ = built
    page = root / "explainers" / "data-page.md"
    touch_later(page, page.read_text().replace("The total comes from", "The sum is read from"))
    forbid_kernels(monkeypatch)
    summary = run_build(site_config(root))
    assert summary.ok and summary.executed == 0 and not summary.up_to_date
    assert set(statuses(summary).values()) == {"cached"}
    assert "The sum is read from" in (root / "site" / "data-page.html").read_text()


def test_imported_module_change_reruns_exactly_its_page(built):
    root, _ = built
    module = root / "helpers" / "shapes.py"
    touch_later(module, module.read_text().replace("side * side", "side * side + 1"))
    summary = run_build(site_config(root))
    assert summary.ok
    assert statuses(summary) == {"outputs": "cached", "module-page": "executed", "data-page": "cached"}
    assert "area 10" in (root / "site" / "module-page.html").read_text()


def test_data_file_change_reruns_exactly_the_page_that_read_it(built):
    root, _ = built
    touch_later(root / "data" / "values.csv", "value\n3\n4\n5\n10\n")
    summary = run_build(site_config(root))
    assert summary.ok
    assert statuses(summary) == {"outputs": "cached", "module-page": "cached", "data-page": "executed"}
    assert "total 22" in (root / "site" / "data-page.html").read_text()


def test_check_fails_on_an_out_of_date_script(built):
    root, _ = built
    script = root / "explainers" / "code" / "module-page.py"
    script.write_text(script.read_text() + "print('edited by hand')\n")
    summary = run_build(site_config(root, write_scripts=False), check_only=True)
    assert not summary.ok
    assert [str(p) for p in summary.errors] == [
        "explainers/code/module-page.py: error: out of date with explainers/module-page.md; "
        "run `python build.py` and commit it"]


def test_corrupt_cache_entry_is_discarded_with_a_warning(built):
    root, _ = built
    entries = sorted((root / ".cache" / "sitebuild" / "pages").glob("*.json"))
    assert len(entries) >= 3
    for entry in entries:
        entry.write_text("{ not json")
    touch_later(root / "explainers" / "outputs.md",
                (root / "explainers" / "outputs.md").read_text() + "\nMore prose.\n")
    summary = run_build(site_config(root, only=["outputs"]))
    warnings = [p for p in summary.problems if p.severity == "warning"]
    assert any("corrupt cache entry" in p.message for p in warnings)
    assert statuses(summary)["outputs"] == "executed"
