"""Helpers of the browser tests: where things are, the build of the fixture site, the
watch over each page (console errors, uncaught exceptions, requests to another host) and
the axe-core run."""

from __future__ import annotations

import functools
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

from sitebuild.commands.build import run_build
from sitebuild.config import make_config

REPO = Path(__file__).resolve().parents[2]
FIXTURE = REPO / "tests" / "fixtures" / "browser_site"
TOOLKIT_FIXTURE = REPO / "tests" / "fixtures" / "toolkit_site"
TEMPLATES = REPO / "templates"
AXE_SCRIPT = REPO / ".cache" / "npm" / "node_modules" / "axe-core" / "axe.min.js"
SCREENSHOTS = REPO / "tests" / "_artifacts" / "screenshots"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
LOADED = time.time()  # this run's screenshots are the ones written after this
LOCAL_PREFIXES = ("http://127.0.0.1:", "file://", "data:", "blob:", "about:")


@dataclass
class BuiltSite:
    """The fixture site, built: its root (a copy of the fixture) and its output folder."""

    root: Path
    out: Path


@dataclass
class RealSite:
    """The repository's own site, built into a temporary folder: its output, the build's
    problems (warnings: the build passed) and the slugs of the audit pages."""

    out: Path
    warnings: list[str]
    audit_pages: list[str]


@dataclass
class PageWatch:
    """What the pages of one browser context did wrong: console errors, uncaught
    exceptions, requests to another host."""

    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    foreign_requests: list[str] = field(default_factory=list)

    def problems(self) -> list[str]:
        """Everything that went wrong, one line each."""
        return ([f"console error: {e}" for e in self.console_errors] + [f"uncaught: {e}" for e in self.page_errors]
                + [f"request to another host: {u}" for u in self.foreign_requests])


def build_fixture_site(target: Path, fixture: Path = FIXTURE) -> BuiltSite:
    """Copy the browser fixture (or ``fixture``) into ``target`` and build it; fail with the build's problems."""
    root = target / fixture.name
    shutil.copytree(fixture, root)
    config = make_config(root, templates=TEMPLATES, jobs=2, cache_dir=root / ".cache")
    summary = run_build(config)
    assert summary.ok, "the browser fixture site did not build:\n" + "\n".join(str(p) for p in summary.problems)
    return BuiltSite(root=root, out=config.out)


def build_real_site(target: Path, cache: Path) -> RealSite:
    """Build the repository's explainers with the repository's templates into ``target``:
    no site.yaml step runs (results/ is read as it is), no generated script is written
    into explainers/code/, and the ``cache`` folder, when new, starts from a copy of the
    repository's own (so only what changed runs). Fails with the build's problems when the
    site does not build."""
    from sitebuild.execution.cache import copy_page_results
    from sitebuild.source.read import read_pages

    if not cache.exists():
        copy_page_results(REPO / ".cache" / "sitebuild", cache)
    config = make_config(REPO, out=target / "site", cache_dir=cache, jobs=2, write_scripts=False, run_steps=False)
    summary = run_build(config)
    errors = [str(p) for p in summary.errors]
    assert summary.ok, (f"the real site did not build ({len(errors)} error(s)); the first ones:\n"
                        + "\n".join(e[:400] for e in errors[:8]))
    pages, _ = read_pages(config.source, config.root)
    audits = sorted(p.slug for p in pages if p.front.theme == config.site.data_theme)
    return RealSite(out=config.out, warnings=[str(p) for p in summary.problems], audit_pages=audits)


def is_local(url: str) -> bool:
    """True for servers on 127.0.0.1, file:// pages and in-page URLs; False for any other host."""
    return url.startswith(LOCAL_PREFIXES)


def watch_page(page, watch: PageWatch) -> None:
    """Record the console errors and uncaught exceptions of ``page``."""

    def on_console(message) -> None:
        if message.type == "error":
            watch.console_errors.append(f"{page.url}: {message.text}")

    page.on("console", on_console)
    page.on("pageerror", lambda error: watch.page_errors.append(f"{page.url}: {error}"))


def start_axe(page) -> None:
    """Start axe-core in ``page`` (injected once per document) and return at once: several
    tabs can run it side by side; :func:`axe_violations` waits for the result."""
    assert AXE_SCRIPT.is_file(), (f"axe-core is missing at {AXE_SCRIPT}: run `bash tests/run.sh --co -q` once "
                                  "(it installs axe-core from the npm registry into .cache/npm)")
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.add_script_tag(content=_axe_source())
    page.evaluate("""() => { window.__axeResult = null;
        axe.run(document, {preload: false, resultTypes: ['violations']})
           .then(r => { window.__axeResult = r; }, e => { window.__axeResult = {error: String(e)}; }); }""")


def axe_violations(page) -> list[dict]:
    """The serious and critical violations of the run :func:`start_axe` began in ``page``."""
    page.wait_for_function("() => window.__axeResult !== null", timeout=120_000)
    result = page.evaluate("() => window.__axeResult")
    assert "error" not in result, f"axe-core failed on {page.url}: {result.get('error')}"
    return [{"id": v["id"], "impact": v["impact"], "help": v["help"],
             "targets": [n["target"] for n in v["nodes"]][:5]}
            for v in result["violations"] if v["impact"] in ("serious", "critical")]


def run_axe(page) -> list[dict]:
    """Run axe-core in ``page``; return its serious and critical violations."""
    start_axe(page)
    return axe_violations(page)


@functools.cache
def _axe_source() -> str:
    return AXE_SCRIPT.read_text(encoding="utf-8")
