"""The repository's own site in Chromium, built once per session (see conftest.py): every
page at 390 and 1280 px in both themes without sideways scroll, the audit pages' results
tables whole at 1280 px, no text output clipped, axe in both themes, a figure without a
caption flagged by the build, and screenshots of an audit page and an explainer for a
person to look at (tests/_artifacts/screenshots/real-*.png)."""

from __future__ import annotations

import re

import pytest
from browser_helpers import SCREENSHOTS, axe_violations, start_axe

pytestmark = pytest.mark.browser

WIDTHS = (390, 1280)
EXPLAINER = "seed-and-split-sensitivity"  # long text outputs, a p-value written as 3.25e-23
OVERFLOW = "() => document.documentElement.scrollWidth - window.innerWidth"


def _pages(real_site) -> list[str]:
    return sorted(p.name for p in real_site.out.glob("*.html"))


def _context(open_context, width: int, theme: str):
    context, _ = open_context(viewport={"width": width, "height": 900}, color_scheme=theme,
                              is_mobile=width < 600, has_touch=width < 600)
    return context


#: Text outputs (and table boxes) wider than their box that do not scroll: their end is hidden.
CLIPPED = """() => [...document.querySelectorAll('main pre, main .output, main .table-scroll')]
    .filter(e => { const x = getComputedStyle(e).overflowX;
                   return e.scrollWidth > e.clientWidth + 1 && x !== 'auto' && x !== 'scroll'; })
    .map(e => e.id || e.className)"""


def _show_theme(page, theme: str) -> None:
    """Switch ``page``'s colour scheme in place, as a reader's system switch does, and wait
    until the page follows it (it does when the reader chose no theme)."""
    page.emulate_media(color_scheme=theme)
    page.wait_for_function("theme => document.documentElement.dataset.theme === theme", arg=theme)


@pytest.mark.parametrize("width", WIDTHS)
def test_no_page_of_the_real_site_scrolls_sideways_or_clips_an_output(open_context, real_site, real_site_url,
                                                                       width):
    """One visit per page at each width: in neither theme does it scroll sideways, and no
    text output hides its end (an output wider than its box scrolls, overflow auto)."""
    page = _context(open_context, width, "light").new_page()
    wide, clipped = {}, {}
    for name in _pages(real_site):
        page.emulate_media(color_scheme="light")
        page.goto(real_site_url + name)
        for theme in ("light", "dark"):
            _show_theme(page, theme)
            overflow = page.evaluate(OVERFLOW)
            if overflow > 0:
                wide[f"{name} ({theme})"] = overflow
            found = page.evaluate(CLIPPED)
            if found:
                clipped[f"{name} ({theme})"] = found[:5]
    assert not wide, f"pages that scroll sideways at {width} px, by px: {wide}"
    assert not clipped, f"outputs whose end is hidden at {width} px: {clipped}"
    page.emulate_media(color_scheme="light")
    page.goto(f"{real_site_url}{EXPLAINER}.html")
    line = page.locator("main pre.output .line", has_text="e-23").first
    assert re.search(r"\bp 3\.25e-23;", line.text_content()), line.text_content()
    if width >= 1280:  # the whole line is in view, beside the contents, without scrolling its box
        assert line.evaluate("""l => { const r = document.createRange(); r.selectNodeContents(l);
            return r.getBoundingClientRect().right <= l.closest('pre').getBoundingClientRect().right; }""")


def test_the_audit_pages_results_tables_are_whole_at_1280_px(open_context, real_site, real_site_url):
    assert len(real_site.audit_pages) == 9, real_site.audit_pages
    page = _context(open_context, 1280, "light").new_page()
    cut, missing = {}, []
    for slug in real_site.audit_pages:
        page.goto(f"{real_site_url}{slug}.html")
        tables = page.evaluate("""() => [...document.querySelectorAll('main .cell-outputs table')].map(t => {
            const box = t.closest('.table-scroll') || t.parentElement;
            const head = [...t.querySelectorAll('thead th')].map(th => th.textContent.trim().toLowerCase());
            return {head, table: Math.ceil(t.getBoundingClientRect().width), box: box.clientWidth};
        })""")
        results = [t for t in tables if "finding" in t["head"]]
        if not results:
            missing.append(slug)
        cut.update({f"{slug} table {i + 1}": f"{t['table']} px in a {t['box']} px box"
                    for i, t in enumerate(results) if t["table"] > t["box"] + 1})
    assert not missing, f"no results table (a 'finding' column) on {missing}"
    assert not cut, f"results tables cut at 1280 px: {cut}"


#: Tabs that run axe-core side by side (its checks keep one core busy per tab).
AXE_TABS = 2


def test_axe_finds_no_serious_violation_on_the_real_site(open_context, real_site, real_site_url):
    """Every page in both themes. A page is loaded once and checked light, then dark, its
    colour scheme switched in place as a reader's system switch does (the page follows it
    when no theme was chosen); a few tabs run axe at once."""
    context = _context(open_context, 1280, "light")
    tabs = [context.new_page() for _ in range(AXE_TABS)]
    names, found = _pages(real_site), {}
    for first in range(0, len(names), AXE_TABS):
        batch = list(zip(tabs, names[first:first + AXE_TABS]))
        for tab, name in batch:
            tab.emulate_media(color_scheme="light")
            tab.goto(real_site_url + name)
        for theme in ("light", "dark"):
            for tab, _ in batch:
                _show_theme(tab, theme)
                start_axe(tab)
            for tab, name in batch:
                violations = axe_violations(tab)
                if violations:
                    found[f"{name} ({theme})"] = "; ".join(f"{v['impact']} {v['id']} at {v['targets'][:2]}"
                                                           for v in violations)
    assert len(names) >= 30 and not found, "\n".join(f"{name}: {text}" for name, text in found.items())


def test_a_figure_without_a_caption_is_a_warning_of_the_build(real_site):
    uncaptioned = set()
    for html in real_site.out.glob("*.html"):
        for figure in re.findall(r'<figure class="[^"]*output-figure.*?</figure>',
                                 html.read_text(encoding="utf-8"), re.S):
            if "<figcaption" not in figure:
                uncaptioned.add(html.stem)
    warned = {w.split(".md:")[0].rsplit("/", 1)[-1] for w in real_site.warnings if "without a caption" in w}
    assert uncaptioned <= warned, \
        f"figures without a caption that the build did not flag: {sorted(uncaptioned - warned)}"


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("width", WIDTHS)
def test_screenshots_of_an_audit_page_and_an_explainer(open_context, real_site, real_site_url, width, theme):
    page = _context(open_context, width, theme).new_page()
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for slug in (real_site.audit_pages[0], EXPLAINER):
        page.goto(f"{real_site_url}{slug}.html")
        page.evaluate("() => document.fonts.ready")
        assert page.evaluate(OVERFLOW) <= 0
        path = SCREENSHOTS / f"real-{slug}-{width}px-{theme}.png"
        page.screenshot(path=str(path), full_page=True)
        assert path.stat().st_size > 20_000
