"""Shared set-up of the browser tests: the fixture site under tests/fixtures/browser_site is
built ONCE per session with the real engine and the repository's templates, served from a
local http.server thread on 127.0.0.1, and opened in Debian's headless Chromium through
Playwright. Every page a test opens is watched: a console error, an uncaught exception or a
request to another host fails the test."""

from __future__ import annotations

import sys
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from browser_helpers import (
    CHROMIUM,
    CHROMIUM_ARGS,
    LOADED,
    SCREENSHOTS,
    TOOLKIT_FIXTURE,
    BuiltSite,
    PageWatch,
    RealSite,
    build_fixture_site,
    build_real_site,
    is_local,
    watch_page,
)


@pytest.fixture(scope="session")
def built_site(tmp_path_factory) -> BuiltSite:
    """The fixture site, built once for the whole session."""
    return build_fixture_site(tmp_path_factory.mktemp("browser"))


@pytest.fixture(scope="session")
def toolkit_site(tmp_path_factory) -> BuiltSite:
    """The one-page site of formulas, callouts and numbered tables, built once per session."""
    return build_fixture_site(tmp_path_factory.mktemp("toolkit"), TOOLKIT_FIXTURE)


@pytest.fixture(scope="session")
def real_site(tmp_path_factory, real_pages_cache) -> RealSite:
    """The repository's own site, built once for the whole session (a few minutes when
    many pages changed since the repository's cache was filled)."""
    return build_real_site(tmp_path_factory.mktemp("real"), real_pages_cache)


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args) -> None:  # noqa: A002 - the http.server interface
        pass


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request, client_address) -> None:
        """A browser that drops a connection (a page closed mid-request) is no error of the
        site; anything else is printed as usual."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


def _serve(folder: Path):
    server = _QuietServer(("127.0.0.1", 0), partial(_QuietHandler, directory=str(folder)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()
    thread.join(timeout=5)


@pytest.fixture(scope="session")
def site_url(built_site: BuiltSite):
    """The built fixture site served over http on 127.0.0.1; yields its base URL."""
    yield from _serve(built_site.out)


@pytest.fixture(scope="session")
def toolkit_url(toolkit_site: BuiltSite):
    """The built toolkit site served over http on 127.0.0.1; yields its base URL."""
    yield from _serve(toolkit_site.out)


@pytest.fixture(scope="session")
def real_site_url(real_site: RealSite):
    """The built real site served over http on 127.0.0.1; yields its base URL."""
    yield from _serve(real_site.out)


@pytest.fixture(scope="session")
def browser():
    """Debian's Chromium, headless (Playwright gives each launch a fresh temporary profile)."""
    from playwright.sync_api import sync_playwright

    assert Path(CHROMIUM).exists(), f"{CHROMIUM} is missing: install Debian's chromium (tests/run.sh does)"
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture
def open_context(browser):
    """A factory of watched browser contexts: every request that leaves 127.0.0.1 (or the
    local files) is aborted and recorded. After the test, any recorded problem fails it."""
    contexts: list[tuple[object, PageWatch]] = []

    def make(**options):
        watch = PageWatch()
        context = browser.new_context(**options)

        def note(request) -> None:  # also requests the router does not see (service workers, ...)
            if not is_local(request.url) and request.url not in watch.foreign_requests:
                watch.foreign_requests.append(request.url)

        def guard(route) -> None:
            if is_local(route.request.url):
                route.continue_()
            else:
                note(route.request)
                route.abort()

        context.route("**/*", guard)
        context.on("request", note)
        context.on("page", lambda page: watch_page(page, watch))
        contexts.append((context, watch))
        return context, watch

    yield make
    problems = []
    for context, watch in contexts:
        context.close()
        problems += watch.problems()
    assert not problems, "the pages misbehaved:\n" + "\n".join(sorted(set(problems)))


@pytest.fixture
def page(open_context):
    """A watched page in a fresh context, 1280 px wide."""
    context, _ = open_context(viewport={"width": 1280, "height": 900})
    return context.new_page()


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    """Tell the reader where this run's screenshots are."""
    shots = [p for p in SCREENSHOTS.glob("*.png") if p.stat().st_mtime >= LOADED] if SCREENSHOTS.is_dir() else []
    if shots:
        terminalreporter.write_sep("-", "site screenshots")
        terminalreporter.write_line(f"{len(shots)} screenshots of the fixture site in {SCREENSHOTS}")
