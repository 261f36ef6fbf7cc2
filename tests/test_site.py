"""The real site: every explainer and audit page builds from the real audits, and every
check (outputs, scripts in sync, links, quoted numbers) passes under --strict."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SEED_TOPICS = ("permutation-tests", "minimum-detectable-gap", "bootstrap-confidence-intervals",
               "seed-and-split-sensitivity")
AUDIT_PREFIX = "audit-"
SLUGS = sorted(p.stem for p in (ROOT / "explainers").glob("*.md"))

pytestmark = pytest.mark.slow


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "build.py", *args], cwd=ROOT, capture_output=True, text=True, timeout=1800)


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("real") / "site"
    done = run("build", "--strict", "--out", str(out))
    assert done.returncode == 0, f"the real site did not build:\n{done.stderr[-4000:]}"
    return out


def html(site: Path, slug: str) -> str:
    return (site / f"{slug}.html").read_text()


def test_check_passes_strictly_on_the_whole_site(site):
    done = run("check", "--strict")
    assert done.returncode == 0, done.stderr[-4000:]
    total = re.search(r"^total\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)$", done.stdout, re.M)
    assert total, done.stdout
    verified, stale, unverified, _exempt, _inputs = map(int, total.groups())
    assert verified > 100 and stale == 0 and unverified == 0


def test_every_seed_topic_has_its_page(site):
    for slug in SEED_TOPICS:
        assert slug in SLUGS and (site / f"{slug}.html").is_file()


@pytest.mark.parametrize("slug", SLUGS)
def test_page_has_a_definition_and_an_example_that_ran(site, slug):
    page = html(site, slug)
    summary = re.search(r'<p class="summary">(.+?)</p>', page, re.S)
    assert summary and len(summary.group(1).split()) >= 8
    assert page.count('class="cell-outputs"') >= 1
    assert 'class="output output-error"' not in page
    assert re.search(r'<img src="figures/[^"]+\.png" alt="[^"]{10,}"', page), "every page has a figure with alt text"


@pytest.mark.parametrize("slug", [s for s in SLUGS if not s.startswith(AUDIT_PREFIX)])
def test_explainer_states_its_limitations(site, slug):
    assert re.search(r'<h2 id="limitations"', html(site, slug))


@pytest.mark.parametrize("slug", SLUGS)
def test_every_local_link_resolves(site, slug):
    page = html(site, slug)
    assert re.search(r'<a href="[a-z0-9-]+\.html">', page), "links to related pages"
    for target in re.findall(r'href="([a-z0-9-]+\.html)(?:#[^"]*)?"', page):
        assert (site / target).is_file(), f"{slug}.html links to missing {target}"


def test_index_lists_every_page_with_its_definition(site):
    index = (site / "index.html").read_text()
    for slug in SLUGS:
        assert f'href="{slug}.html"' in index
