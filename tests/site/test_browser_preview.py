"""``serve`` in a real browser: with a page open, an edit to its explainer shows up without
a manual reload; a broken explainer turns the open page into the build-error page; the fix
brings the page back. The preview runs the engine's own server and watcher (sitebuild.serve)
over a copy of the built fixture site, so the first build reuses its execution cache."""

from __future__ import annotations

import re
import shutil
import threading

import pytest
from playwright.sync_api import expect

from browser_helpers import TEMPLATES
from sitebuild.config import make_config
from sitebuild.serve import start_preview

pytestmark = pytest.mark.browser

REBUILD_SECONDS = 30_000  # ms: a rebuild here renders cached pages, well under this
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

    source.write_text(original.replace("Counting comes before averaging.", "Counting always comes first."), encoding="utf-8")
    expect(page.locator("main")).to_contain_text("Counting always comes first.", timeout=REBUILD_SECONDS)
    assert _was_reloaded(page), "the page changed without being reloaded"
    _mark_this_load(page)

    source.write_text(original.replace("title: Counting Rows\n", ""), encoding="utf-8")
    expect(page.locator("main.build-error h1")).to_have_text("The build failed", timeout=REBUILD_SECONDS)
    expect(page.locator("main.build-error pre")).to_contain_text(
        re.compile(r"explainers/counting-rows\.md:1: error: front matter field 'title' is required"))
    expect(page.locator("main")).not_to_contain_text("Counting always comes first.")
    assert _was_reloaded(page)
    _mark_this_load(page)

    source.write_text(original, encoding="utf-8")
    expect(page.locator("main")).to_contain_text("Counting comes before averaging.", timeout=REBUILD_SECONDS)
    expect(page.locator("main.build-error")).to_have_count(0)
    assert _was_reloaded(page)
    # the error page answers with status 500, which Chromium logs; nothing else may be logged
    expected = [e for e in watch_.console_errors if "status of 500" in e]
    assert len(expected) >= 1, watch_.console_errors
    for line in expected:
        watch_.console_errors.remove(line)


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
