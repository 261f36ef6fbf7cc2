"""The author's toolkit in Chromium, on the one-page toolkit fixture (formulas, callouts, a
numbered table, a prose table, a notebook) and on the repository's own site (search
ranking, notebooks): formulas lay out as MathML in both themes with no raw ``$``, callouts
are notes with their kind announced, tables are numbered and scroll in their box at
320 px, and every download and search entry reads as the page does."""

from __future__ import annotations

import json
import re
from urllib.request import urlopen

import pytest
from browser_helpers import SCREENSHOTS, run_axe

pytestmark = pytest.mark.browser

PAGE = "rates-and-formulas"
#: What an author writes and a reader must never see.
AUTHORING_SYNTAX = re.compile(r"\{python|\{check=|\{\.nocheck\}|\[@[A-Za-z]|\]\{[.#A-Za-z]|:::\{")


def _open(open_context, url: str, width: int = 1280, theme: str = "light"):
    context, _ = open_context(viewport={"width": width, "height": 900}, color_scheme=theme)
    page = context.new_page()
    page.goto(url)
    assert page.evaluate("() => document.documentElement.dataset.theme") == theme
    return page


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_formulas_lay_out_as_mathml_in_both_themes(open_context, toolkit_url, theme):
    page = _open(open_context, f"{toolkit_url}{PAGE}.html", theme=theme)
    boxes = page.evaluate("""() => [...document.querySelectorAll('main math')].map(m => {
        const box = m.getBoundingClientRect();
        return {width: box.width, height: box.height, display: m.getAttribute('display'),
                color: getComputedStyle(m).color, text: getComputedStyle(m.closest('p, td, div')).color};
    })""")
    assert len(boxes) == 5, boxes  # two inline in the prose, one displayed, two in the table
    assert all(b["width"] > 4 and b["height"] > 8 for b in boxes), boxes
    assert all(b["color"] == b["text"] for b in boxes), "a formula takes the colour of the text around it"
    [display] = [b for b in boxes if b["display"] == "block"]
    assert display["width"] > max(b["width"] for b in boxes if b["display"] == "inline")
    shown = page.evaluate("() => document.querySelector('main').innerText")
    assert "$" not in shown and "\\mathrm" not in shown and "\\hat" not in shown
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.locator("main").screenshot(path=str(SCREENSHOTS / f"toolkit-formulas-{theme}.png"))


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_callouts_are_notes_that_stand_out_in_both_themes(open_context, toolkit_url, theme):
    page = _open(open_context, f"{toolkit_url}{PAGE}.html", theme=theme)
    notes = page.evaluate("""() => [...document.querySelectorAll('main [role=note]')].map(n => {
        const style = getComputedStyle(n), title = n.querySelector('.callout-title');
        return {label: n.getAttribute('aria-label'), title: title.innerText, border: style.borderLeftColor,
                width: parseFloat(style.borderLeftWidth), background: style.backgroundColor,
                page: getComputedStyle(document.body).backgroundColor};
    })""")
    assert [n["label"] for n in notes] == ["Note", "Warning: Small groups"]
    assert [n["title"] for n in notes] == ["Note", "Warning: Small groups"]
    assert all(n["width"] >= 3 and n["background"] != n["page"] for n in notes), notes
    assert notes[0]["border"] != notes[1]["border"], "a warning is coloured apart from a note"
    page.locator("main .callout-warning").screenshot(path=str(SCREENSHOTS / f"toolkit-callout-{theme}.png"))
    assert run_axe(page) == [], "axe finds the page of formulas, callouts and tables accessible"


def test_a_captioned_table_is_numbered_and_referenced(page, toolkit_url):
    page.goto(f"{toolkit_url}{PAGE}.html")
    caption = page.locator("#tab-rates figcaption")
    assert caption.inner_text() == "Table 1. False positive rate of each group"
    link = page.locator("main a.xref")
    assert link.inner_text() == "Table 1" and link.get_attribute("href") == "#tab-rates"
    assert page.locator("#tab-rates .table-scroll table").count() == 1


def test_a_prose_table_scrolls_in_its_own_box_at_320_px(open_context, toolkit_url):
    page = _open(open_context, f"{toolkit_url}{PAGE}.html", width=320)
    assert page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth") <= 0
    box = page.evaluate("""() => { const box = document.querySelector('main .prose-table');
        return {scroll: box.scrollWidth, client: box.clientWidth, overflow: getComputedStyle(box).overflowX}; }""")
    assert box["overflow"] == "auto" and box["scroll"] > box["client"], box


def test_the_fixture_notebook_reads_as_the_page(toolkit_site):
    import nbformat

    notebook = nbformat.read(toolkit_site.out / "code" / f"{PAGE}.ipynb", as_version=4)
    nbformat.validate(notebook)
    prose = "\n".join(c.source for c in notebook.cells if c.cell_type == "markdown")
    assert not AUTHORING_SYNTAX.search(prose), prose
    assert "As Table 1 shows, the gap is 0.125, which\nis positive on rows counted in 2016." in prose
    assert "> **Note**\n>\n> A rate on fewer than 40 rows" in prose and "> **Warning: Small groups**" in prose
    assert "[Hardt et al. 2016](https://arxiv.org/abs/1610.02413)" in prose
    assert ("- Hardt, M., Price, E. and Srebro, N. (2016). Equality of Opportunity in Supervised Learning. "
            "*Advances in Neural Information Processing Systems*. <https://arxiv.org/abs/1610.02413>") in prose
    assert "$\\mathrm{FPR}_g" in prose, "formulas stay Markdown math, which Jupyter renders"
    code = [c.source for c in notebook.cells if c.cell_type == "code"]
    assert code and code[0].startswith("import pandas as pd")


# -- the real site ---------------------------------------------------------------------

#: Realistic queries and the page each must rank first.
QUERIES = [
    ("p-value", "permutation-tests"),
    ("0.05", "equivalence-tests"),  # the page that uses the level most (5 times); see the next test
    ("COMPAS", "audit-compas"),
    ("four-fifths rule", "demographic-parity"),
    ("minimum detectable gap", "minimum-detectable-gap"),
    ("Holm", "multiple-comparisons"),
    ("Benjamini-Hochberg", "multiple-comparisons"),
    ("bootstrap interval", "bootstrap-confidence-intervals"),
    ("equalized odds", "equal-opportunity-and-equalized-odds"),
    ("TOST", "equivalence-tests"),
    ("reliability curve", "calibration-by-group"),
    ("disparate impact ratio", "demographic-parity"),
    ("intersectional subgroups", "disaggregated-evaluation"),
    ("label bias", "label-bias"),
    ("unawareness", "proxy-removal"),
    ("k-fold cross-validation", "cross-validation-for-fairness"),
    ("mortgage", "audit-mortgage-denial"),
    ("bar passage", "audit-law-school"),
    ("coverage", "interval-coverage"),
    ("stratified test set", "stratified-test-sets"),
    ("random seed", "seed-and-split-sensitivity"),
    ("survey weights", "sampling-bias"),
    ("hiring callbacks", "audit-hiring-callbacks"),
    ("precision", "predictive-parity"),
    ("German Credit", "audit-german-credit-lending"),
]
RESULTS = """() => [...document.querySelectorAll('#search-results [role=option]')].map(o => ({
    slug: o.dataset.href.split('/').pop().replace(/\\.html$/, ''),
    snippet: o.querySelector('.result-snippet').innerText}))"""


def _search(page, query: str) -> list[dict]:
    page.fill("#search-input", query)
    page.wait_for_selector("#search-results:not([hidden])")
    return page.evaluate(RESULTS)


def _search_page(open_context, real_site_url):
    context, _ = open_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.goto(f"{real_site_url}index.html")
    page.focus("#search-input")  # the reader turns to the search box: the index and MiniSearch load
    page.wait_for_function("() => typeof window.MiniSearch === 'function' && Array.isArray(window.FC_SEARCH_INDEX)")
    return page


def test_a_page_loads_without_the_search_index_until_the_search_box_is_used(open_context, real_site_url):
    context, _ = open_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    asked = []
    page.on("request", lambda request: asked.append(request.url.rsplit("/", 1)[-1]))
    page.goto(f"{real_site_url}permutation-tests.html", wait_until="load")
    page.wait_for_timeout(300)
    assert "search-index.js" not in asked and "minisearch.js" not in asked, asked
    results = _search(page, "Holm")
    assert "search-index.js" in asked and "minisearch.js" in asked and results, (asked, results)


def test_each_query_ranks_the_page_it_means_first(open_context, real_site_url):
    page = _search_page(open_context, real_site_url)
    ranked = {query: [r["slug"] for r in _search(page, query)][:3] for query, _ in QUERIES}
    wrong = {query: ranked[query] for query, want in QUERIES if ranked[query][:1] != [want]}
    assert len(QUERIES) >= 15
    assert not wrong, f"queries whose first result is not the page they mean: {wrong}"


def test_numbers_and_hyphenated_words_are_searched_whole(open_context, real_site, real_site_url):
    page = _search_page(open_context, real_site_url)
    index = _index(real_site)
    texts = {e["url"].removesuffix(".html"): " ".join((e["title"], e["summary"], e["headings"], e["text"]))
             for e in index}
    for query, whole in (("0.05", r"(?<![\d.])0\.05(?!\d)"), ("p-value", r"(?i)\bp-value"),
                         ("four-fifths", r"(?i)\bfour-fifths\b")):
        results = _search(page, query)
        assert results, query
        assert all(re.search(whole, texts[r["slug"]]) for r in results), (query, [r["slug"] for r in results])
        assert all(query.lower() in r["snippet"].lower() for r in results[:3]), (query, results[:3])


def test_snippets_and_the_index_hold_rendered_text(open_context, real_site, real_site_url):
    index = _index(real_site)
    for entry in index:
        for field in ("summary", "headings", "text"):
            found = AUTHORING_SYNTAX.search(entry[field])
            assert not found, f"{entry['url']} {field}: {entry[field][max(found.start() - 60, 0):found.end() + 60]!r}"
    page = _search_page(open_context, real_site_url)
    for query in ("significant", "holds", "Angwin"):
        snippets = [r["snippet"] for r in _search(page, query)]
        assert snippets and not any(AUTHORING_SYNTAX.search(s) for s in snippets), snippets


def _index(real_site) -> list[dict]:
    text = (real_site.out / "static" / "search-index.js").read_text(encoding="utf-8")
    return json.loads(text.removeprefix("window.FC_SEARCH_INDEX = ").removesuffix(";\n"))


def test_every_real_notebook_reads_as_its_page(real_site):
    import nbformat

    notebooks = sorted((real_site.out / "code").glob("*.ipynb"))
    assert len(notebooks) == len(list(real_site.out.glob("*.html"))) - 3  # less index, report, 404
    dirty = {}
    for path in notebooks:
        notebook = nbformat.read(path, as_version=4)
        nbformat.validate(notebook)
        for cell in notebook.cells:
            found = AUTHORING_SYNTAX.search(cell.source) if cell.cell_type == "markdown" else None
            if found:
                dirty[path.stem] = cell.source[max(found.start() - 60, 0):found.end() + 60]
    assert not dirty, f"notebooks whose Markdown still holds authoring syntax: {dirty}"


def test_the_vendored_search_library_is_served_with_its_licence(real_site_url):
    with urlopen(f"{real_site_url}static/vendor/minisearch.js") as response:
        assert b"MiniSearch" in response.read(400)
    with urlopen(f"{real_site_url}static/vendor/minisearch-LICENSE.txt") as response:
        assert b"Permission is hereby granted" in response.read()


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_real_pages_formulas_lay_out(open_context, real_site_url, theme):
    page = _open(open_context, f"{real_site_url}predictive-parity.html", width=390, theme=theme)
    boxes = page.evaluate("""() => [...document.querySelectorAll('main math')].map(m => {
        const box = m.getBoundingClientRect(); return [m.getAttribute('display'), box.width, box.height]; })""")
    assert {d for d, _, _ in boxes} == {"inline", "block"} and len(boxes) >= 4, boxes
    assert all(width > 10 and height > 10 for _, width, height in boxes), boxes
    assert "$" not in page.evaluate("() => document.querySelector('main').innerText")
    assert page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth") <= 0


def test_the_report_shows_its_key_columns_at_390_px(open_context, real_site_url):
    page = _open(open_context, f"{real_site_url}report.html", width=390)
    shown = page.evaluate("""() => { const box = document.querySelector('.report-table').closest('.table-scroll');
        const right = box.getBoundingClientRect().right;
        return [...box.querySelectorAll('thead th')].filter(th => th.getBoundingClientRect().right <= right + 1)
            .map(th => th.innerText.trim()); }""")
    assert shown[:4] == ["Page", "Status", "Verified", "Stale"], shown
    widest = page.evaluate("""() => Math.max(...[...document.querySelectorAll('.report-table tbody tr > :first-child')]
        .map(td => td.getBoundingClientRect().width))""")
    assert widest <= 160, f"the page column takes {widest} px of 390"
    page.screenshot(path=str(SCREENSHOTS / "real-report-390.png"))


def test_the_real_prose_table_stays_in_its_box_at_320_px(open_context, real_site_url):
    page = _open(open_context, f"{real_site_url}sampling-bias.html", width=320)
    assert page.locator("main .prose-table table").count() >= 1
    assert page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth") <= 0
