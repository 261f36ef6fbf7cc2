"""The real site: every explainer and audit page builds from the real audits, and every
check (outputs, scripts in sync, links, quoted numbers) passes under --strict.

The build runs in a copy of the repository (its tracked and untracked files, as a fresh
clone would have them once committed), so the test never writes a file of the work
tree; the copy's ``git status`` must be clean afterwards: the build reproduces its
results, scripts and quote lock byte for byte."""

from __future__ import annotations

import hashlib
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SEED_TOPICS = ("permutation-tests", "minimum-detectable-gap", "bootstrap-confidence-intervals",
               "seed-and-split-sensitivity")
AUDIT_PREFIX = "audit-"
SLUGS = sorted(p.stem for p in (ROOT / "explainers").glob("*.md"))
#: What a build of the real site could write in the repository.
WRITTEN_BY_A_BUILD = ("results", "explainers/code", "explainers/quotes.lock.json")

pytestmark = pytest.mark.slow


def git(root: Path, *args: str) -> str:
    command = ["git", "-c", "user.name=test", "-c", "user.email=test@localhost", *args]
    return subprocess.run(command, cwd=root, capture_output=True, text=True, check=True).stdout


def copy_repository(target: Path) -> Path:
    """Copy the files git knows or would add (not the ignored ones) and commit them."""
    listed = git(ROOT, "ls-files", "-z", "--cached", "--others", "--exclude-standard").split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    git(target, "init", "-q")
    git(target, "add", "-A")
    git(target, "commit", "-q", "-m", "the work tree, as a fresh clone would have it")
    return target


def digests(root: Path) -> dict[str, str]:
    """sha256 of every file a build could write, by path."""
    found = {}
    for name in WRITTEN_BY_A_BUILD:
        path = root / name
        for file in ([path] if path.is_file() else sorted(path.rglob("*")) if path.is_dir() else []):
            if file.is_file():
                found[file.relative_to(root).as_posix()] = hashlib.sha256(file.read_bytes()).hexdigest()
    return found


@pytest.fixture(scope="module")
def clone(tmp_path_factory) -> Path:
    return copy_repository(tmp_path_factory.mktemp("clone"))


def run(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "build.py", *args], cwd=root, capture_output=True, text=True,
                          timeout=1800)


@pytest.fixture(scope="module")
def site(clone, tmp_path_factory, real_pages_cache) -> Path:
    before = digests(ROOT)
    out = tmp_path_factory.mktemp("real") / "site"
    done = run(clone, "build", "--strict", "--out", str(out), "--cache-dir", str(real_pages_cache))
    assert done.returncode == 0, f"the real site did not build:\n{done.stderr[-4000:]}"
    assert digests(ROOT) == before, "building the copy wrote into the work tree"
    return out


def test_the_build_leaves_git_status_clean(site, clone):
    assert git(clone, "status", "--porcelain") == "", "the build changed tracked files (results, scripts or lock)"


def html(site: Path, slug: str) -> str:
    return (site / f"{slug}.html").read_text()


def test_check_passes_strictly_on_the_whole_site(site, clone, real_pages_cache):
    done = run(clone, "check", "--strict", "--cache-dir", str(real_pages_cache))
    assert done.returncode == 0, done.stderr[-4000:]
    total = re.search(r"^total" + r"\s+(\d+)" * 8 + r"$", done.stdout, re.M)
    assert total, done.stdout
    verified, stale, unverified, ambiguous, _exempt, _inputs, claims_hold, claims_broken = map(int, total.groups())
    assert verified > 100 and stale == 0 and unverified == 0 and ambiguous == 0
    assert claims_hold > 10 and claims_broken == 0


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
    light = re.search(r'<img class="figure-light" src="figures/([^"]+)\.svg" alt="[^"]{10,}"', page)
    assert light, "every page has a figure with alt text"
    assert f'<img class="figure-dark" src="figures/{light.group(1)}-dark.svg"' in page, "and its dark rendering"


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
