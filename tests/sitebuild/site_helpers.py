"""Shared helpers for the engine's tests: copy a fixture site to a temporary folder and
build it with the repository's templates."""

from __future__ import annotations

import shutil
from pathlib import Path

from sitebuild.config import make_config

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures" / "site"
TEMPLATES = REPO / "templates"


def copy_site(name: str, target: Path) -> Path:
    """Copy fixture site ``name`` into ``target`` and return its root."""
    root = target / name
    shutil.copytree(FIXTURES / name, root)
    return root


def site_config(root: Path, **options):
    """A build configuration over a copied fixture site."""
    options.setdefault("jobs", 1)
    return make_config(root, templates=TEMPLATES, **options)


def report_row(report: str, page_link: str) -> dict[str, str]:
    """The cells of the build report's row whose first cell is ``page_link`` (its HTML),
    by the text of their column header."""
    import re

    table = re.search(r'<table class="report-table">.*?</table>', report, re.S).group(0)
    headers = re.findall(r'<th scope="col">(.*?)</th>', table)
    row = re.search(r"<td>" + re.escape(page_link) + r"</td>.*?</tr>", table, re.S).group(0)
    cells = [re.sub(r"<[^>]+>", "", cell).strip() for cell in re.findall(r"<td>(.*?)</td>", row, re.S)]
    return dict(zip(headers, cells))
