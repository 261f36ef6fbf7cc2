"""The reader's site in Chromium (fixture site): no sideways scroll at 320-1920 px in both
themes, figures that switch with the theme, the popover of a verified number opened from
the keyboard, and the 404 page styled at any URL depth."""

from __future__ import annotations

import pytest
from browser_helpers import SCREENSHOTS
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

EXPLAINER = "reading-scores.html"


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("width", [320, 390, 768, 1280, 1920])
def test_no_page_scrolls_sideways(open_context, site_url, width, theme):
    context, _ = open_context(viewport={"width": width, "height": 900}, color_scheme=theme)
    page = context.new_page()
    for name in ("index.html", EXPLAINER, "sample-scores.html", "report.html", "404.html"):
        page.goto(site_url + name)
        overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"{name} scrolls sideways by {overflow} px at {width} px ({theme})"


def test_figures_switch_with_the_theme(page, site_url):
    page.goto(site_url + EXPLAINER)
    light, dark = page.locator("figure img.figure-light"), page.locator("figure img.figure-dark")
    expect(light).to_be_visible()
    expect(dark).to_be_hidden()
    assert light.get_attribute("src").endswith(".svg") and dark.get_attribute("src").endswith("-dark.svg")
    page.locator(".theme-toggle").click()
    expect(dark).to_be_visible()
    expect(light).to_be_hidden()
    assert dark.evaluate("img => img.complete && img.naturalWidth > 0"), "the dark rendering did not load"
    expect(page.locator("figure figcaption .figure-number")).to_have_text("Figure 1.")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.locator("figure.output-figure").screenshot(path=str(SCREENSHOTS / "figure-dark.png"))


def test_the_popover_of_a_checked_number_opens_by_keyboard_and_escape_closes_it(page, site_url):
    page.goto(site_url + EXPLAINER)
    marks = page.locator("main .q[data-note], main .q-verified")
    assert marks.count() >= 1, "the fixture page quotes a number the build checks"
    mark = marks.first
    mark.focus()
    page.keyboard.press("Enter")
    popover = page.locator("#note-popover")
    expect(popover).to_be_visible()
    expect(popover.locator("code")).not_to_be_empty()
    expect(mark).to_have_attribute("aria-expanded", "true")
    page.keyboard.press("Escape")
    expect(popover).to_be_hidden()
    assert page.evaluate("() => document.activeElement.id") == mark.get_attribute("id")


def test_the_404_page_is_styled_at_a_nested_address(browser, built_site):
    # Its own context: the page is answered with status 404 on purpose, which Chromium logs.
    import threading
    from functools import partial
    from http.server import HTTPServer, SimpleHTTPRequestHandler

    class NotFound(SimpleHTTPRequestHandler):
        def log_message(self, *args):  # noqa: D102
            pass

        def send_error(self, code, message=None, explain=None):  # as static hosts do: their 404 page
            body = (built_site.out / "404.html").read_bytes()
            self.send_response(404)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = HTTPServer(("127.0.0.1", 0), partial(NotFound, directory=str(built_site.out)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    failed, missing = [], []
    context.on("requestfailed", lambda request: failed.append(request.url))
    context.on("response", lambda response: missing.append(response.url) if response.status >= 400 else None)
    page = context.new_page()
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}/"
        nested = base + "deep/er/no-such-page.html"
        page.goto(nested)
        expect(page.locator("h1")).to_have_text("Page not found")
        background = page.evaluate("() => getComputedStyle(document.querySelector('.site-header')).position")
        assert background == "sticky", "the site's stylesheet did not load at a nested address"
        page.wait_for_load_state("networkidle")
        # Nothing is asked of the wrong folder (Chromium's preload scanner guessed the assets
        # there when they were tags in the page): no request fails, only the page is a 404.
        assert not failed, f"requests failed: {failed}"
        assert missing == [nested], f"answered 404: {missing}"
        page.keyboard.press("Tab")
        skip = page.get_by_role("link", name="Skip to content")
        expect(skip).to_be_focused()
        page.keyboard.press("Enter")
        expect(page).to_have_url(nested + "#main")
        expect(page.locator("h1")).to_have_text("Page not found")
        page.get_by_role("link", name="list of explainers").click()
        expect(page).to_have_url(base + "index.html")
        page.wait_for_load_state("networkidle")  # the index's favicon too, or leaving aborts it
        failed.clear()
        page.goto((built_site.out / "404.html").as_uri())
        assert page.evaluate("() => getComputedStyle(document.querySelector('.site-header')).position") == "sticky"
        assert not failed, f"requests failed: {failed}"
    finally:
        context.close()
        server.shutdown()
        server.server_close()
