"""Screenshots of the index and an explainer at desktop and phone widths, in both themes,
saved under tests/_artifacts/screenshots/ for a person to look at (the pytest summary
prints the folder). The phone layout must not scroll sideways."""

from __future__ import annotations

import pytest
from browser_helpers import SCREENSHOTS

pytestmark = pytest.mark.browser

WIDTHS = {"desktop": (1280, 900), "phone": (390, 844)}


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("device", sorted(WIDTHS))
def test_screenshots(open_context, site_url, device, theme):
    width, height = WIDTHS[device]
    context, _ = open_context(viewport={"width": width, "height": height}, color_scheme=theme,
                              device_scale_factor=1, is_mobile=device == "phone", has_touch=device == "phone")
    page = context.new_page()
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for name in ("index", "reading-scores"):
        page.goto(f"{site_url}{name}.html")
        page.evaluate("() => document.fonts.ready")
        assert page.evaluate("() => document.documentElement.dataset.theme") == theme
        overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"{name}.html scrolls sideways by {overflow} px at {width} px"
        path = SCREENSHOTS / f"{name}-{device}-{width}px-{theme}.png"
        page.screenshot(path=str(path), full_page=True)
        assert path.stat().st_size > 10_000
