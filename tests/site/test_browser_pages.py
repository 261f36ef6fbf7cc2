"""The built fixture site in a real browser: the index, an explainer and its navigation,
search from the keyboard, the theme toggle, copy buttons, script downloads, the 404 page,
and a page opened from file://. Every page is watched for console errors and requests to
another host (see conftest.py)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

EXPLAINER = "reading-scores.html"


def test_index_lists_the_pages_by_theme(page, site_url):
    page.goto(site_url + "index.html")
    expect(page).to_have_title("Explainers · Fixture Site")
    groups = page.locator("section.theme-group h2")
    expect(groups).to_have_text(["Basics", "Samples"])
    expect(page.locator("#theme-basics .card h3")).to_have_text(["Reading Scores by Group", "Counting Rows"])
    page.locator("#theme-basics .card a").first.click()
    expect(page).to_have_url(site_url + EXPLAINER)


def test_explainer_shows_code_outputs_table_and_figure(page, site_url):
    page.goto(site_url + EXPLAINER)
    expect(page.locator("article.explainer h1")).to_have_text("Reading Scores by Group")
    expect(page.locator("#out-1-0")).to_contain_text("south: 6.00")
    table = page.locator(".output-html table")
    expect(table.locator("tbody td")).to_have_text(["8", "18"])
    expect(table.locator("thead th").first.locator(".visually-hidden")).to_have_text("Row label")
    figure = page.locator("figure.output-figure img.figure-light")
    expect(figure).to_have_attribute("alt", "Mean score of each group")
    # Waited for (up to 10 s, then the test fails): on a loaded machine the image may still be decoding
    # when the page's load event has fired.
    figure.scroll_into_view_if_needed()
    page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=figure.element_handle(), timeout=10_000)
    collapsed = page.locator("details.output-collapse")
    expect(collapsed.locator("summary")).to_have_text("Show all 40 lines")
    expect(collapsed.locator(".line").last).to_be_hidden()
    collapsed.locator("summary").click()
    expect(collapsed.locator(".line").last).to_be_visible()
    expect(collapsed.locator(".line").last).to_have_text("row 39")


def test_table_of_contents_and_heading_anchors(page, site_url):
    page.goto(site_url + EXPLAINER)
    toc = page.get_by_role("navigation", name="On this page")
    expect(toc.locator("a")).to_have_text(["Averages", "A table", "A figure", "A long listing", "Where to go next"])
    anchor = page.locator("h2#a-figure a.header-anchor")
    expect(anchor).to_have_attribute("aria-label", "Link to the section “A figure”")
    toc.get_by_role("link", name="A figure").click()
    expect(page).to_have_url(re.compile(r"#a-figure$"))
    assert page.locator("h2#a-figure").evaluate("h => h.getBoundingClientRect().top < window.innerHeight / 2")


def test_related_data_pages_and_pager(page, site_url):
    page.goto(site_url + EXPLAINER)
    related = page.get_by_role("complementary", name="Related explainers")
    expect(related.get_by_role("link")).to_have_text(["Counting Rows"])
    used = page.get_by_role("complementary", name="Samples used")
    expect(used.get_by_role("link")).to_have_text(["Sample: Scores File"])
    pager = page.get_by_role("navigation", name="Previous and next")
    expect(pager.locator("a[rel=prev]")).to_have_count(0)
    pager.locator("a[rel=next]").click()
    expect(page).to_have_url(site_url + "counting-rows.html")
    expect(page.locator("nav.pager a[rel=prev]")).to_have_text("← Reading Scores by Group")
    expect(page.locator("nav.pager a[rel=next]")).to_have_text("Sample: Scores File →")


def test_search_and_follow_a_result_with_the_keyboard(page, site_url):
    page.goto(site_url + "index.html")
    page.keyboard.press("/")
    search = page.locator("#search-input")
    expect(search).to_be_focused()
    page.keyboard.type("counts")
    expect(search).to_have_attribute("aria-expanded", "true")
    results = page.locator("#search-results [role=option]")
    expect(results.first).to_contain_text("Counting Rows")
    page.keyboard.press("ArrowDown")
    expect(results.first).to_have_attribute("aria-selected", "true")
    expect(search).to_have_attribute("aria-activedescendant", "search-option-0")
    page.keyboard.press("Enter")
    expect(page).to_have_url(site_url + "counting-rows.html")


def test_search_says_when_nothing_matches(page, site_url):
    page.goto(site_url + EXPLAINER)
    page.locator("#search-input").fill("zebra")
    expect(page.locator("#search-results .result-empty")).to_have_text("No explainer matches “zebra”.")


def test_theme_toggle_switches_and_persists(page, site_url):
    page.emulate_media(color_scheme="light")
    page.goto(site_url + EXPLAINER)
    html, toggle = page.locator("html"), page.locator("button.theme-toggle")
    expect(html).to_have_attribute("data-theme", "light")
    background = page.evaluate("() => getComputedStyle(document.body).backgroundColor")
    toggle.focus()
    page.keyboard.press("Enter")
    expect(html).to_have_attribute("data-theme", "dark")
    expect(toggle).to_have_attribute("aria-pressed", "true")
    assert page.evaluate("() => getComputedStyle(document.body).backgroundColor") != background
    assert page.evaluate("() => localStorage.getItem('fc-theme')") == "dark"
    page.goto(site_url + "index.html")
    expect(html).to_have_attribute("data-theme", "dark")
    expect(toggle).to_have_attribute("aria-label", "Switch to light theme")


def test_copy_button_puts_the_code_on_the_clipboard(open_context, site_url):
    context, _ = open_context(permissions=["clipboard-read", "clipboard-write"])
    page = context.new_page()
    page.goto(site_url + EXPLAINER)
    button = page.locator("#cell-1 .copy-button")
    button.click()
    expect(button).to_have_text("Copied")
    copied = page.evaluate("() => navigator.clipboard.readText()")
    assert copied.startswith("import pandas as pd\n") and 'print(f"{group}: {mean:.2f}")' in copied
    assert copied == page.locator("#cell-1 pre code").inner_text().rstrip("\n")


def test_script_download_is_the_page_code(page, site_url, built_site):
    page.goto(site_url + EXPLAINER)
    with page.expect_download() as download_info:
        page.get_by_role("link", name="Script (.py)").click()
    download = download_info.value
    assert download.suggested_filename == "reading-scores.py"
    text = open(download.path(), encoding="utf-8").read()
    assert text == (built_site.out / "code" / "reading-scores.py").read_text(encoding="utf-8")
    assert 'scores = pd.read_csv("data/scores.csv")' in text and "for i in range(40):" in text
    compile(text, "reading-scores.py", "exec")


def test_not_found_page_links_home_and_searches(page, site_url):
    page.goto(site_url + "404.html")
    expect(page.locator("main h1")).to_have_text("Page not found")
    expect(page.locator("#search-input")).to_be_visible()
    page.locator("main").get_by_role("link", name="list of explainers").click()
    expect(page).to_have_url(site_url + "index.html")


def test_every_page_loads_without_errors_or_foreign_requests(page, site_url, built_site):
    for html in sorted(built_site.out.glob("*.html")):
        page.goto(site_url + html.name)
        expect(page.locator("main")).to_be_visible()
    # the fixture watches every page: any console error or request off 127.0.0.1 fails here


def test_a_page_works_from_file_urls(page, built_site):
    page.goto((built_site.out / EXPLAINER).as_uri())
    expect(page.locator("#out-1-0")).to_contain_text("north: 4.00")
    page.locator("#search-input").fill("sample")
    expect(page.locator("#search-results [role=option]").first).to_contain_text("Sample: Scores File")
    page.keyboard.press("Enter")
    expect(page).to_have_url((built_site.out / "sample-scores.html").as_uri())


def test_the_watch_catches_foreign_requests_and_console_errors(open_context, site_url):
    context, watch = open_context()
    page = context.new_page()
    page.goto(site_url + "index.html")
    page.evaluate("() => fetch('http://example.invalid/tracker.js').catch(() => null)")
    page.evaluate("() => console.error('deliberate')")
    assert watch.foreign_requests == ["http://example.invalid/tracker.js"]
    assert any("deliberate" in line for line in watch.console_errors)
    watch.foreign_requests.clear()
    watch.console_errors.clear()


def test_a_verified_number_opens_its_note_then_its_output_line_and_leads_back(page, site_url):
    # A click (or tap) opens the note first; its "Show the output line" follows the mark's link.
    page.set_viewport_size({"width": 1280, "height": 600})
    page.goto(site_url + EXPLAINER)
    number = page.locator("a.q-verified", has_text="6.00")
    expect(number).to_have_attribute("href", "#out-1-0-l1")
    expect(number).to_have_attribute("data-note", re.compile("south: 6.00"))
    page.locator("#a-long-listing").scroll_into_view_if_needed()
    number.click()
    popover = page.locator("#note-popover")
    expect(popover).to_be_visible()
    expect(popover.locator("code")).to_have_text(re.compile("south: 6.00"))
    popover.get_by_role("link", name="Show the output line").click()
    expect(page).to_have_url(re.compile(r"#out-1-0-l1$"))
    line = page.locator("#out-1-0-l1")
    expect(line).to_have_text("south: 6.00")
    expect(line).to_be_in_viewport()
    expect(popover).to_be_hidden()
    back = page.get_by_role("link", name=re.compile("Back to the sentence"))
    back.click()
    expect(page).to_have_url(re.compile("#" + re.escape(number.get_attribute("id")) + "$"))
    expect(number).to_be_in_viewport()


def test_without_scripts_a_verified_number_is_a_plain_link_to_its_output_line(open_context, site_url):
    context, _ = open_context(viewport={"width": 1280, "height": 600}, java_script_enabled=False)
    page = context.new_page()
    page.goto(site_url + EXPLAINER)
    page.locator("a.q-verified", has_text="6.00").click()
    expect(page).to_have_url(re.compile(r"#out-1-0-l1$"))
    expect(page.locator("#out-1-0-l1")).to_be_in_viewport()


def test_keyboard_reaches_the_skip_link_and_the_copy_button(open_context, site_url):
    context, _ = open_context(permissions=["clipboard-read", "clipboard-write"])
    page = context.new_page()
    page.goto(site_url + EXPLAINER)
    page.keyboard.press("Tab")
    skip = page.get_by_role("link", name="Skip to content")
    expect(skip).to_be_focused()
    expect(skip).to_be_in_viewport()
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile("#main$"))
    button = page.locator("#cell-1 .copy-button")
    for _ in range(40):
        page.keyboard.press("Tab")
        if button.evaluate("b => b === document.activeElement"):
            break
    expect(button).to_be_focused()
    page.keyboard.press("Enter")
    expect(button).to_have_text("Copied")
    assert page.evaluate("() => navigator.clipboard.readText()").startswith("import pandas as pd")
