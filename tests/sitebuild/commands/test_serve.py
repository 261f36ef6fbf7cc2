"""The preview server: serves the site on 127.0.0.1 with a reload endpoint, rebuilds on
change, and shows an error page (not the stale one) while a rebuild fails. Pages here
have no code, so no kernel starts, except the one that fails on a file made later."""

from __future__ import annotations

import threading
import time
import urllib.error
import urllib.request
from html import escape

import pytest
from site_helpers import site_config

from sitebuild.commands.serve import reload_script, start_preview

PAGE = "---\ntitle: Served\nsummary: A page with no code.\n---\n\nFirst version.\n"


def fetch(port, path):
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


@pytest.fixture
def preview(tmp_path):
    (tmp_path / "explainers").mkdir()
    (tmp_path / "explainers" / "served.md").write_text(PAGE)
    config = site_config(tmp_path)
    log = []
    preview = start_preview(config, 0, log.append)
    preview.state.log = log
    server = threading.Thread(target=preview.server.serve_forever, daemon=True)
    server.start()
    yield tmp_path, preview.server.server_address[1], preview.state
    preview.server.shutdown()
    server.join(timeout=5)
    preview.close()


def wait_for_version(state, version, seconds=20):
    wait_until(lambda: state.version >= version, state, seconds)


def test_pages_get_the_reload_script_only_when_served(preview):
    root, port, state = preview
    status, html = fetch(port, "/served.html")
    assert status == 200 and "First version." in html and reload_script(1) in html
    assert "__sitebuild" not in (root / "site" / "served.html").read_text()
    assert fetch(port, "/__sitebuild/version") == (200, "1")


def wait_for_page(port, state, text):
    """Wait until the served page shows ``text``: the content says which save was built."""
    wait_until(lambda: text in fetch(port, "/served.html")[1], state)


def wait_until(condition, state, seconds=20):
    """Wait for ``condition()``: a save can reach the watcher as more than one file event,
    each starting a rebuild, so the version count alone does not say which save was built."""
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert condition(), f"the watcher did not rebuild as expected: {getattr(state, 'log', [])}"


def test_a_failed_rebuild_keeps_the_last_good_page_with_an_overlay_and_prints_the_problem(preview):
    root, port, state = preview
    page = root / "explainers" / "served.md"
    page.write_text(PAGE.replace("First version.", "Second, longer version."))
    wait_for_page(port, state, "Second, longer version.")
    page.write_text("no front matter any more\n")
    wait_until(lambda: bool(state.problems), state)
    status, html = fetch(port, "/served.html")
    assert status == 200 and "Second, longer version." in html, "the last good page is still served"
    assert 'class="sb-overlay" role="alert"' in html
    assert "explainers/served.md:1: error: expected YAML front matter" in html
    printed = "\n".join(state.log)
    assert "explainers/served.md:1: error: expected YAML front matter" in printed, "printed in the terminal"
    page.write_text(PAGE)
    wait_until(lambda: not state.problems, state)
    assert "sb-overlay" not in fetch(port, "/served.html")[1]


def test_a_first_build_that_fails_serves_the_error_page(tmp_path):
    (tmp_path / "explainers").mkdir()
    (tmp_path / "explainers" / "broken.md").write_text("no front matter\n")
    log = []
    preview = start_preview(site_config(tmp_path), 0, log.append)
    try:
        thread = threading.Thread(target=preview.server.serve_forever, daemon=True)
        thread.start()
        status, html = fetch(preview.server.server_address[1], "/broken.html")
        assert status == 500 and "The build failed" in html and "explainers/broken.md:1" in html
        preview.server.shutdown()
    finally:
        preview.close()


def test_a_busy_port_is_a_one_line_error(preview):
    from sitebuild.errors import ConfigError

    root, port, _ = preview
    with pytest.raises(ConfigError) as caught:
        start_preview(site_config(root), port, lambda line: None)
    assert str(caught.value) == (f"serve: port {port} on 127.0.0.1 is in use; stop the other server or pass --port 0 "
                                 "for a free port")


def test_the_version_endpoint_answers_as_soon_as_a_rebuild_ends(preview):
    root, port, state = preview
    answer = {}

    def wait() -> None:
        started = time.monotonic()
        answer["version"] = fetch(port, f"/__sitebuild/version?v={state.version}")[1]
        answer["seconds"] = time.monotonic() - started

    waiter = threading.Thread(target=wait)
    waiter.start()
    time.sleep(0.3)
    assert waiter.is_alive(), "the long poll answered before anything changed"
    (root / "explainers" / "served.md").write_text(PAGE.replace("First", "Third"))
    waiter.join(timeout=20)
    assert answer["version"] == "2" and answer["seconds"] < 15


def test_watched_files_are_the_sources_templates_site_yaml_and_what_the_pages_read(tmp_path):
    from sitebuild.commands.serve import watched_paths

    (tmp_path / "explainers").mkdir()
    (tmp_path / "explainers" / "served.md").write_text(PAGE)
    (tmp_path / "faircode").mkdir()
    (tmp_path / "faircode" / "unrelated.py").write_text("x = 1\n")
    (tmp_path / "data.csv").write_text("a\n1\n")
    config = site_config(tmp_path)
    watched = {p.relative_to(tmp_path.resolve()).as_posix() for p in watched_paths(config,
                                                                                   [(tmp_path / "data.csv").resolve()])
               if p.is_relative_to(tmp_path.resolve())}
    assert {"explainers/served.md", "site.yaml", "data.csv"} <= watched
    assert "faircode/unrelated.py" not in watched, "no hard-coded folder is watched"


def with_own_templates(tmp_path):
    """The config of a site of one page whose templates are its own copy, to edit."""
    import shutil

    from site_helpers import TEMPLATES

    from sitebuild.config import make_config

    (tmp_path / "explainers").mkdir()
    (tmp_path / "explainers" / "served.md").write_text(PAGE)
    shutil.copytree(TEMPLATES, tmp_path / "templates")
    return make_config(tmp_path, templates=tmp_path / "templates", jobs=1)


def test_a_change_to_a_template_rebuilds(tmp_path):
    config = with_own_templates(tmp_path)
    log = []
    preview = start_preview(config, 0, log.append)
    try:
        footer = tmp_path / "templates" / "base.html"
        footer.write_text(footer.read_text().replace("<footer class=\"site-footer\">",
                                                     "<footer class=\"site-footer\"><p>Edited footer.</p>"))
        preview.state.log = log
        served = tmp_path / "site" / "served.html"
        wait_until(lambda: "Edited footer." in served.read_text(), preview.state)
    finally:
        preview.close()


def test_a_missing_page_is_served_the_not_found_page(preview):
    _, port, _ = preview
    status, html = fetch(port, "/no-such-page.html")
    assert status == 404 and "Page not found" in html and '<script data-site-base="/"' in html
    assert fetch(port, "/static/no-such-file.css")[0] == 404


def test_a_warning_is_shown_in_the_overlay_marked_as_a_warning(preview):
    from sitebuild.commands.serve import WARNED_HEADING, WARNING_TAG

    root, port, state = preview
    (root / "site.yaml").write_text('themes: ["Explainers"]\n')
    (root / "explainers" / "served.md").write_text(PAGE.replace("summary:", "theme: Explainerz\nsummary:"))
    wait_until(lambda: bool(state.warnings), state)
    html = fetch(port, "/served.html")[1]
    assert 'data-severity="warning"' in html and WARNED_HEADING % 1 in html
    assert '<li class="sb-warning">' in html and f">{WARNING_TAG}</strong>" in html
    assert "front matter field &#x27;theme&#x27;: &#x27;Explainerz&#x27; is not a theme of site.yaml" in html
    assert "sb-overlay" not in (root / "site" / "served.html").read_text(), "the site itself carries no overlay"
    (root / "explainers" / "served.md").write_text(PAGE)
    wait_until(lambda: not state.warnings and not state.problems, state)
    assert "sb-overlay" not in fetch(port, "/served.html")[1], "the fix removes the overlay"


def test_errors_and_warnings_share_the_overlay_errors_first():
    from sitebuild.commands.serve import overlay_html

    html = overlay_html(["a.md:3: error: broken"], ["a.md:1: warning: odd"])
    assert 'data-severity="error"' in html and "1 problem(s), and 1 warning(s):" in html
    assert html.index("sb-error") < html.index("sb-warning")


def test_a_tab_closed_during_a_long_poll_is_silent(preview, capfd):
    import socket
    import struct

    root, port, state = preview
    capfd.readouterr()
    for _ in range(3):
        client = socket.create_connection(("127.0.0.1", port), timeout=5)
        client.sendall(f"GET /__sitebuild/version?v={state.version} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        time.sleep(0.2)  # the server is waiting to answer
        client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # close with a reset
        client.close()
    before = state.version
    (root / "explainers" / "served.md").write_text(PAGE.replace("First", "Closed"))
    wait_for_version(state, before + 1)
    time.sleep(0.5)  # the handlers write their answers to the closed sockets
    assert fetch(port, "/served.html")[0] == 200, "the server still serves"
    err = capfd.readouterr().err
    assert "Traceback" not in err and "BrokenPipeError" not in err and "ConnectionResetError" not in err, err


def test_a_save_by_renaming_a_new_file_over_the_old_one_rebuilds(preview):
    root, port, state = preview
    source = root / "explainers" / "served.md"
    fresh = root / "explainers" / ".served.md.swp"
    fresh.write_text(PAGE.replace("First", "Renamed"))
    fresh.replace(source)
    wait_for_page(port, state, "Renamed version.")


def test_the_watcher_waits_for_events_and_does_not_poll(preview, monkeypatch):
    """Idle, the watcher takes no snapshot of the watched files (it did every 50 ms)."""
    import sitebuild.commands.serve as serve

    root, port, state = preview
    calls = []
    real = serve.snapshot
    monkeypatch.setattr(serve, "snapshot", lambda *args: calls.append(1) or real(*args))
    time.sleep(1.0)
    assert calls == [], f"{len(calls)} snapshot(s) in 1 s of idleness"
    (root / "explainers" / "served.md").write_text(PAGE.replace("First", "Evented"))
    wait_for_page(port, state, "Evented version.")


def test_the_rest_of_a_rebuild_waits_for_the_open_pages_to_load_the_new_version():
    from sitebuild.commands.serve import ServeState

    state = ServeState(version=1)
    open_page = threading.Thread(target=state.wait_for_change, args=(1,), daemon=True)
    open_page.start()
    wait_until(lambda: state.polling == 1, state)
    state.publish([], None, None)
    done = threading.Event()
    threading.Thread(target=lambda: (state.wait_for_reloads(seconds=30), done.set()), daemon=True).start()
    open_page.join(timeout=5)
    assert not done.wait(0.3), "the open page has not loaded version 2 yet"
    threading.Thread(target=state.wait_for_change, args=(2, 1.0), daemon=True).start()  # its reload's long poll
    assert done.wait(10), "the reloaded page's long poll ends the wait"
    wait_until(lambda: state.polling == 0, state)  # its tab closed
    state.publish([], None, None)
    state.wait_for_reloads(seconds=30)  # no page was open: nothing to wait for
    assert state.polling == 0


def test_a_broken_template_is_shown_at_its_line_and_rebuilt_once_per_save(tmp_path):
    """A template that does not parse fails the rebuild like a broken page does (found by
    trying it: the error escaped as a traceback, and the watcher rebuilt every second)."""
    config = with_own_templates(tmp_path)
    log = []
    preview = start_preview(config, 0, log.append)
    try:
        thread = threading.Thread(target=preview.server.serve_forever, daemon=True)
        thread.start()
        port, state = preview.server.server_address[1], preview.state
        state.log = log
        base = tmp_path / "templates" / "base.html"
        good = base.read_text()
        lines = good.splitlines(keepends=True)
        line = next(n for n, text in enumerate(lines, start=1) if "<footer" in text)
        lines[line - 1] = lines[line - 1].replace("<footer", "{{ broken( }}<footer", 1)
        base.write_text("".join(lines))
        wait_until(lambda: bool(state.problems), state)
        expected = f"templates/base.html:{line}: template error: unexpected '}}', expected ')'"
        assert any(expected in problem for problem in state.problems), state.problems
        status, html = fetch(port, "/served.html")
        assert status == 200 and "First version." in html, "the last good page"
        assert escape(expected) in html, "with the overlay naming the template's line"
        version, rebuilds = state.version, sum("rebuilding" in entry for entry in log)
        time.sleep(2.5)  # longer than the watcher's pause after an error
        assert (state.version, sum("rebuilding" in entry for entry in log)) == (version, rebuilds)
        assert not any("Traceback" in entry or "error while rebuilding" in entry for entry in log), log
        base.write_text(good)
        wait_until(lambda: not state.problems, state)
        preview.server.shutdown()
    finally:
        preview.close()


def test_a_first_build_with_a_broken_template_serves_a_plain_error_page(tmp_path):
    config = with_own_templates(tmp_path)
    base = tmp_path / "templates" / "base.html"
    base.write_text(base.read_text().replace("</body>", "{{ nosuch.attr }}</body>", 1))
    preview = start_preview(config, 0, lambda line: None)
    try:
        thread = threading.Thread(target=preview.server.serve_forever, daemon=True)
        thread.start()
        status, html = fetch(preview.server.server_address[1], "/served.html")
        assert status == 500 and "The build failed" in html
        assert "templates/base.html:" in html and "template error: &#x27;nosuch&#x27; is undefined" in html
        preview.server.shutdown()
    finally:
        preview.close()


def test_an_address_too_long_for_a_file_name_is_not_found(preview):
    _, port, _ = preview
    status, html = fetch(port, "/" + "a" * 300 + ".html")
    assert status == 404 and "Page not found" in html
    assert fetch(port, "/" + "a" * 300)[0] == 404


def test_a_file_a_failed_page_looked_for_is_watched(tmp_path):
    """The page fails on a file that is not there yet: creating it rebuilds the page (found
    by trying it: only the last good build's reads were watched)."""
    (tmp_path / "explainers").mkdir()
    (tmp_path / "explainers" / "served.md").write_text(PAGE)
    (tmp_path / "explainers" / "reader.md").write_text(
        "---\ntitle: Reader\nsummary: A page reading a file made later.\n---\n\nIt reads a file.\n\n"
        "```python\nprint(open('data/later.txt').read().strip())\n```\n")
    log = []
    preview = start_preview(site_config(tmp_path), 0, log.append)
    try:
        preview.state.log = log
        assert any("FileNotFoundError" in problem for problem in preview.state.problems), preview.state.problems
        (tmp_path / "data").mkdir()
        (tmp_path / "data" / "later.txt").write_text("made later\n")
        wait_until(lambda: not preview.state.problems, preview.state, seconds=60)
        assert "made later" in (tmp_path / "site" / "reader.html").read_text()
    finally:
        preview.close()
