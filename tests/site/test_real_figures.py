"""Every figure of the repository's own site, dark rendering by dark rendering: each line,
marker, edge, bar and text stands at least 3:1 against the dark page (the build checks
this too, as a warning; here no warning is allowed)."""

from __future__ import annotations

import pytest

from sitebuild.checks.figure_contrast import MINIMUM_CONTRAST, faint_marks, svg_marks

pytestmark = pytest.mark.slow


def test_every_dark_figure_of_the_real_site_keeps_its_marks_at_three_to_one(real_site):
    dark = sorted((real_site.out / "figures").glob("*-dark.svg"))
    light = sorted(p for p in (real_site.out / "figures").glob("*.svg") if not p.stem.endswith("-dark"))
    assert len(dark) == len(light) >= 20, (len(dark), len(light))
    faint = {p.name: [str(m) for m in faint_marks(p.read_text(encoding="utf-8"))[:3]] for p in dark}
    assert not any(faint.values()), {name: marks for name, marks in faint.items() if marks}
    counts = {p.name: len(svg_marks(p.read_text(encoding="utf-8"))) for p in dark}
    assert min(counts.values()) > 30, counts
    assert not [w for w in real_site.warnings if "dark rendering" in w], real_site.warnings
    assert MINIMUM_CONTRAST == 3.0
