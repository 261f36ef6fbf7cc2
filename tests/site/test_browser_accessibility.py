"""axe-core in the browser: no serious or critical violation on the fixture site's pages,
in the light and the dark theme, served over http and opened from file://."""

from __future__ import annotations

import pytest
from browser_helpers import run_axe

pytestmark = pytest.mark.browser

PAGES = ["index.html", "reading-scores.html", "sample-scores.html", "report.html", "404.html"]


def _set_theme(page, theme: str) -> None:
    page.evaluate("theme => { localStorage.setItem('fc-theme', theme); }", theme)
    page.reload()
    assert page.evaluate("() => document.documentElement.dataset.theme") == theme


def _describe(violations: list[dict]) -> str:
    return "\n".join(f"{v['impact']}: {v['id']} ({v['help']}) at {v['targets']}" for v in violations)


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_no_serious_violations_over_http(page, site_url, theme):
    page.goto(site_url + "index.html")
    _set_theme(page, theme)
    found = {}
    for name in PAGES:
        page.goto(site_url + name)
        for summary in page.locator("details.output-collapse summary").all():
            summary.click()  # check the opened long outputs too
        violations = run_axe(page)
        if violations:
            found[name] = _describe(violations)
    assert not found, "\n".join(f"{name}:\n{text}" for name, text in found.items())


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_no_serious_violations_from_file_urls(page, built_site, theme):
    page.emulate_media(color_scheme=theme)
    page.goto((built_site.out / "reading-scores.html").as_uri())
    assert page.evaluate("() => document.documentElement.dataset.theme") == theme
    violations = run_axe(page)
    assert not violations, _describe(violations)


def test_axe_reports_a_serious_violation_when_there_is_one(page, site_url):
    page.goto(site_url + "index.html")
    page.evaluate("""() => { const img = document.createElement('img');
        img.src = 'static/favicon.svg'; document.querySelector('main').appendChild(img); }""")
    assert "image-alt" in {v["id"] for v in run_axe(page)}
