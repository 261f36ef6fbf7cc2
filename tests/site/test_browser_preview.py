"""``serve`` in a real browser: with a page open, an edit to its explainer shows up without
a manual reload; a broken explainer, or a quoted number gone stale after a data change,
keeps the last good page with an overlay that names the problem at its file and line (and
the terminal says the same); the fix brings the page back without the overlay. The preview runs the engine's
own server and watcher (sitebuild.commands.serve)
over a copy of the built fixture site, so the first build reuses its execution cache."""

from __future__ import annotations

import re
import shutil
import threading

import pytest
from browser_helpers import TEMPLATES
from playwright.sync_api import expect

from sitebuild.commands.serve import start_preview
from sitebuild.config import make_config

pytestmark = pytest.mark.browser

REBUILD_SECONDS = 30_000  # ms: a rebuild here renders cached pages, well under this
RERUN_SECONDS = 120_000  # ms: a data change re-runs a page in a new kernel (slow on a busy machine)
# The tests ask for ``preview`` before ``open_context`` so that the pages close before the
# server stops (an open page polling a stopped server would log a console error).


@pytest.fixture
def preview(built_site, tmp_path):
    """The preview server over a copy of the built fixture site; yields (root, base URL, log)."""
    root = tmp_path / "preview"
    shutil.copytree(built_site.root, root)
    config = make_config(root, templates=TEMPLATES, jobs=1, cache_dir=root / ".cache")
    log = []
    preview = start_preview(config, 0, log.append)
    assert preview.state.error_page is None, f"the preview's first build failed: {log}"
    server = threading.Thread(target=preview.server.serve_forever, daemon=True)
    server.start()
    yield root, preview.url, log
    preview.server.shutdown()
    server.join(timeout=10)
    preview.close()


def _mark_this_load(page) -> None:
    page.wait_for_load_state("load")
    page.evaluate("() => { window.__sameLoad = true; }")


def _was_reloaded(page) -> bool:
    return page.evaluate("() => window.__sameLoad === undefined")


def test_edit_break_and_fix_an_open_page(preview, open_context):
    root, url, log = preview
    context, watch_ = open_context()
    page = context.new_page()
    source = root / "explainers" / "counting-rows.md"
    original = source.read_text(encoding="utf-8")

    page.goto(url + "counting-rows.html")
    expect(page.locator("main")).to_contain_text("Counting comes before averaging.")
    _mark_this_load(page)

    source.write_text(original.replace("Counting comes before averaging.", "Counting always comes first."),
                      encoding="utf-8")
    expect(page.locator("main")).to_contain_text("Counting always comes first.", timeout=REBUILD_SECONDS)
    assert _was_reloaded(page), "the page changed without being reloaded"
    _mark_this_load(page)

    # A broken page: the last good render stays, with an overlay naming the problem at its line.
    source.write_text(original.replace("Counting comes before averaging.", "Counting always comes first.")
                      .replace("title: Counting Rows\n", ""), encoding="utf-8")
    overlay = page.locator(".sb-overlay")
    expect(overlay).to_be_visible(timeout=REBUILD_SECONDS)
    expect(overlay).to_contain_text(re.compile(r"explainers/counting-rows\.md:\d+: error: front matter field 'title' "
                                               r"is required"))
    expect(page.locator("main")).to_contain_text("Counting always comes first.")
    assert _was_reloaded(page)
    assert any(re.search(r"explainers/counting-rows\.md:\d+: error: front matter field 'title'",
                         line) for line in log), \
        "the terminal names the problem with its file and line"
    response = page.request.get(url + "counting-rows.html")
    assert response.status == 200, "the last good page is served, not an error"
    _mark_this_load(page)

    source.write_text(original, encoding="utf-8")
    expect(page.locator("main")).to_contain_text("Counting comes before averaging.", timeout=REBUILD_SECONDS)
    expect(overlay).to_have_count(0)
    assert _was_reloaded(page)


def test_a_warning_shows_in_the_overlay_marked_as_a_warning(preview, open_context):
    from sitebuild.commands.serve import WARNED_HEADING, WARNING_TAG

    root, url, log = preview
    context, watch_ = open_context()
    page = context.new_page()
    source = root / "explainers" / "counting-rows.md"
    original = source.read_text(encoding="utf-8")
    page.goto(url + "counting-rows.html")
    expect(page.locator(".sb-overlay")).to_have_count(0)
    source.write_text(original.replace("theme: Basics\n", "theme: Basic\n"), encoding="utf-8")
    overlay = page.locator('.sb-overlay[data-severity="warning"]')
    expect(overlay).to_be_visible(timeout=REBUILD_SECONDS)
    expect(overlay.locator("#sb-overlay-h")).to_have_text(WARNED_HEADING % 1)
    item = overlay.locator("li.sb-warning")
    expect(item).to_have_count(1)
    expect(item.locator("strong")).to_have_text(WARNING_TAG)
    expect(item).to_contain_text("explainers/counting-rows.md:4: warning: front matter field 'theme': 'Basic' is not a "
                                 "theme of site.yaml; did you mean 'Basics'?")
    source.write_text(original, encoding="utf-8")
    expect(page.locator(".sb-overlay")).to_have_count(0, timeout=REBUILD_SECONDS)


def test_the_overlay_names_a_number_that_went_stale(preview, open_context):
    root, url, log = preview
    context, _ = open_context()
    page = context.new_page()
    page.goto(url + "reading-scores.html")
    expect(page.locator("main")).to_contain_text("The south group averages 6.00 points.")
    expect(page.locator(".sb-overlay")).to_have_count(0)
    data = root / "data" / "scores.csv"
    original = data.read_text(encoding="utf-8")
    data.write_text(original.replace("south,6", "south,9"), encoding="utf-8")  # the south mean becomes 7.00
    overlay = page.locator(".sb-overlay")
    expect(overlay).to_be_visible(timeout=RERUN_SECONDS)
    expect(overlay).to_contain_text(re.compile(r'explainers/reading-scores\.md:\d+: .*"6\.00" is stale'))
    expect(page.locator("main")).to_contain_text("The south group averages 6.00 points.")  # the last good render
    overlay.get_by_role("button", name="Hide").click()
    expect(overlay).to_have_count(0)
    _mark_this_load(page)
    data.write_text(original, encoding="utf-8")
    page.wait_for_function("() => window.__sameLoad === undefined", timeout=RERUN_SECONDS)
    page.wait_for_load_state("load")
    expect(page.locator(".sb-overlay")).to_have_count(0)
    expect(page.locator("main")).to_contain_text("The south group averages 6.00 points.")


def test_missing_page_gets_the_not_found_page(preview, open_context):
    _, url, _ = preview
    context, watch_ = open_context()
    page = context.new_page()
    response = page.goto(url + "no-such-page.html")
    assert response.status == 404
    expect(page.locator("main h1")).to_have_text("Page not found")
    expect(page.locator("link[rel=stylesheet]").first).to_have_attribute("href", "static/site.css")
    assert page.evaluate("() => getComputedStyle(document.querySelector('.site-header')).display") != "inline"
    page.get_by_role("link", name="list of explainers").click()
    expect(page).to_have_url(url + "index.html")
    expected = [e for e in watch_.console_errors if "status of 404" in e]
    for line in expected:
        watch_.console_errors.remove(line)
