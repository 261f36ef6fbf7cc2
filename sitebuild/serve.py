"""``serve``: build, serve the output folder on 127.0.0.1, poll the sources for changes,
rebuild, and reload open pages. Served HTML pages get a small script (in serve mode only)
that polls ``/__sitebuild/version``; while the last rebuild is failing, every page is the
build-error page instead of the stale one. A missing page gets the site's 404 page."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Callable

from sitebuild.config import BuildConfig
from sitebuild.errors import SiteBuildError

WATCHED = ("explainers", "templates", "faircode", "audits")
POLL_SECONDS = 0.5
VERSION_PATH = "/__sitebuild/version"
NOT_FOUND_PAGE = "404.html"
RELOAD_SCRIPT = (
    "<script>(function(){var v=\"%(version)s\";function poll(){fetch('" + VERSION_PATH + "',{cache:'no-store'})"
    ".then(function(r){return r.text()}).then(function(t){if(t!==v){location.reload()}})"
    ".catch(function(){}).finally(function(){setTimeout(poll,1000)})}poll()})();</script>"
)


def reload_script(version: int) -> str:
    """The script injected into served pages: it knows the build ``version`` the page came
    from and reloads as soon as the server reports another one (so a rebuild that ends
    between the page's load and its first poll still reloads it)."""
    return RELOAD_SCRIPT % {"version": version}


@dataclass
class ServeState:
    """Shared between the watcher and the request handlers."""

    version: int = 0
    error_page: bytes | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)


def snapshot(folders: list[Path], skip: tuple[Path, ...] = ()) -> dict[str, tuple[int, int]]:
    """(size, mtime) of every file under ``folders`` (skipping ``skip`` and caches)."""
    seen = {}
    for folder in folders:
        if not folder.is_dir():
            continue
        for path in folder.rglob("*"):
            if "__pycache__" in path.parts or any(path.is_relative_to(s) for s in skip):
                continue
            try:
                stat = path.stat()
            except OSError:  # removed while we looked (an editor's temporary file)
                continue
            if not path.is_dir():
                seen[str(path)] = (stat.st_size, stat.st_mtime_ns)
    return seen


def watched_folders(config: BuildConfig) -> list[Path]:
    """The folders whose changes trigger a rebuild."""
    folders = {config.source, config.templates} | {config.root / name for name in WATCHED}
    return sorted(folders)


def rebuild(config: BuildConfig, state: ServeState, progress: Callable[[str], None]) -> None:
    """Build once; on failure keep serving an error page naming the problems."""
    from sitebuild.build import run_build
    from sitebuild.render import render_error_page

    try:
        summary = run_build(config, progress=progress)
        message = "\n\n".join(str(p) for p in summary.errors)
    except SiteBuildError as error:
        summary, message = None, str(error)
    with state.lock:
        state.error_page = None if summary is not None and summary.ok else render_error_page(
            config.templates, config.site.title, message)
        state.version += 1
    progress(summary.closing_line() if summary is not None else f"error: {message}")


class PreviewHandler(SimpleHTTPRequestHandler):
    """Serves the output folder, the version endpoint and, while failing, the error page."""

    state: ServeState

    def log_message(self, format: str, *args) -> None:  # noqa: A002 - quiet preview server
        pass

    def do_GET(self) -> None:  # noqa: N802 - the http.server interface
        """Serve the version, the error page while failing, or a file (pages with the reload script)."""
        if self.path.split("?")[0] == VERSION_PATH:
            return self._send(str(self.state.version).encode(), "text/plain")
        with self.state.lock:
            error_page, version = self.state.error_page, self.state.version
        path = self.path.split("?")[0].split("#")[0]
        is_page = path.endswith("/") or path.endswith(".html")
        if is_page and error_page is not None:
            return self._send(self._inject(error_page, version), "text/html; charset=utf-8", status=500)
        if is_page:
            target = Path(self.translate_path(path))
            target = target / "index.html" if target.is_dir() else target
            if target.is_file():
                return self._send(self._inject(target.read_bytes(), version), "text/html; charset=utf-8")
            not_found = Path(self.directory) / NOT_FOUND_PAGE
            if not_found.is_file():
                html = not_found.read_bytes().replace(b"<head>", b'<head>\n<base href="/">', 1)
                return self._send(self._inject(html, version), "text/html; charset=utf-8", status=404)
        return super().do_GET()

    def _inject(self, html: bytes, version: int) -> bytes:
        return html.replace(b"</body>", reload_script(version).encode() + b"</body>", 1)

    def _send(self, body: bytes, content_type: str, status: int = 200) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)


def make_server(config: BuildConfig, state: ServeState, port: int) -> ThreadingHTTPServer:
    """An HTTP server on 127.0.0.1:``port`` (0 picks a free port) over the output folder."""
    handler = type("BoundPreviewHandler", (PreviewHandler,), {"state": state})
    config.out.mkdir(parents=True, exist_ok=True)
    return ThreadingHTTPServer(("127.0.0.1", port), partial(handler, directory=str(config.out)))


def watch_snapshot(config: BuildConfig) -> dict[str, tuple[int, int]]:
    """The state of every watched file (outputs, caches and generated scripts excluded)."""
    return snapshot(watched_folders(config), (config.out, config.cache_dir, config.source / "code"))


def watch(config: BuildConfig, state: ServeState, progress: Callable[[str], None], stop: threading.Event,
          last: dict[str, tuple[int, int]] | None = None) -> None:
    """Poll the watched folders; rebuild after each change (compared with ``last``, the
    snapshot taken before the last build) until ``stop`` is set."""
    last = watch_snapshot(config) if last is None else last
    while not stop.wait(POLL_SECONDS):
        try:
            current = watch_snapshot(config)
            if current != last:
                progress("change detected; rebuilding")
                last = current
                rebuild(config, state, progress)
        except Exception as error:  # keep watching: the next save may fix it
            progress(f"error while rebuilding: {type(error).__name__}: {error}")


@dataclass
class Preview:
    """A running preview: its server (the caller decides which thread serves it), the
    build state it serves, and the watcher thread that rebuilds on change."""

    server: ThreadingHTTPServer
    state: ServeState
    stop_event: threading.Event
    watcher: threading.Thread

    @property
    def url(self) -> str:
        """The preview's address."""
        return f"http://127.0.0.1:{self.server.server_address[1]}/"

    def close(self) -> None:
        """Stop watching and release the port (after ``serve_forever`` has returned)."""
        self.stop_event.set()
        self.server.server_close()
        self.watcher.join(timeout=5)


def start_preview(config: BuildConfig, port: int = 8000, progress: Callable[[str], None] = print) -> Preview:
    """Build once, open the server on 127.0.0.1:``port`` (0: any free port) and start
    watching the sources; the caller runs ``preview.server.serve_forever()``."""
    state = ServeState()
    before = watch_snapshot(config)
    rebuild(config, state, progress)
    server = make_server(config, state, port)
    stop = threading.Event()
    watcher = threading.Thread(target=watch, args=(config, state, progress, stop, before), daemon=True)
    watcher.start()
    return Preview(server, state, stop, watcher)


def serve(config: BuildConfig, port: int = 8000, progress: Callable[[str], None] = print) -> None:
    """Build, then serve with rebuild on change, until interrupted."""
    preview = start_preview(config, port, progress)
    progress(f"serving {config.out} on {preview.url} (Ctrl-C stops)")
    try:
        preview.server.serve_forever()
    finally:
        preview.close()
