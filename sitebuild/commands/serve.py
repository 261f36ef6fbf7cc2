"""``serve``: the author's loop. Open the port first (a busy port is a one-line error), build,
serve the output folder, watch what the site is made of, rebuild on change and reload the
open pages.

What is watched: the explainers (``*.md`` of the source folder), the templates, site.yaml,
the bibliography, the inputs of site.yaml's steps, and every file and folder the last
build recorded as read by its pages; never a fixed list of folders. The watcher waits for
the operating system's file events (watchfiles) instead of polling.

When a rebuild fails, every problem is printed in the terminal with its file and line, and
the last good site stays served, each page carrying an overlay that names the problems.
Only when no page was ever built does the preview serve the build-error page. Open pages
learn of a new build by a long poll of ``/__sitebuild/version``, so a reload follows the
end of a rebuild at once."""

from __future__ import annotations

import errno
import gc
import glob
import os
import sys
import threading
import time
from dataclasses import dataclass, field
from functools import partial
from html import escape
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, Callable
from urllib.parse import parse_qs, urlsplit

from sitebuild.config import SITE_FILE, BuildConfig
from sitebuild.errors import ConfigError, SiteBuildError

if TYPE_CHECKING:
    from sitebuild.commands.stages import Resident

#: A batch of file events is handed over once this long (ms) passes without a new one
#: (watchfiles looks this often while it waits, idle or not).
WATCH_STEP_MS = 20
#: While no event comes, the watched files are compared with their last snapshot this often (ms).
SAFETY_CHECK_MS = 5000
#: A change is built once the watched files have held still this long (s): an editor's save
#: (truncate, then write) or a save of two files then starts one rebuild, not two. Told by
#: the changed files' own change times, so the time the file events took counts too.
SETTLE_SECONDS = 0.02
#: After an unexpected error, the watcher waits this long (s) before looking again.
ERROR_PAUSE_SECONDS = 1.0
LONG_POLL_SECONDS = 20.0
#: After a new version is published, the rest of the rebuild (the stamp, the memos, the watch
#: list) waits at most this long (s) for the open pages to have loaded it, so that it does
#: not compete with their reload.
RELOAD_GRACE_SECONDS = 0.5
VERSION_PATH = "/__sitebuild/version"
NOT_FOUND_PAGE = "404.html"
RELOAD_SCRIPT = (
    "<script>(function(){var v=\"%(version)s\";function poll(){fetch('" + VERSION_PATH + "?v='+v,{cache:'no-store'})"
    ".then(function(r){return r.text()}).then(function(t){if(t!==v){location.reload()}else{poll()}})"
    ".catch(function(){setTimeout(poll,1000)})}poll()})();</script>"
)
OVERLAY = (
    '<div class="sb-overlay" role="alert" aria-labelledby="sb-overlay-h" data-severity="%(severity)s" '
    'style="position:fixed;left:0.75rem;right:0.75rem;bottom:0.75rem;z-index:1000;max-height:45vh;overflow:auto;'
    'padding:0.8rem 1rem;border-radius:8px;background:%(background)s;color:%(text)s;border:2px solid %(edge)s;'
    'font:14px/1.45 system-ui,sans-serif;box-shadow:0 6px 24px rgba(0,0,0,.4)">'
    '<p id="sb-overlay-h" style="margin:0 0 .4rem;font-weight:700">%(heading)s</p>'
    '<ul style="margin:0;padding-left:1.2rem">%(items)s</ul>'
    '<button type="button" onclick="this.parentNode.remove()" style="margin-top:.5rem;font:inherit;'
    'background:%(text)s;color:%(background)s;border:0;border-radius:4px;padding:.15rem .6rem">Hide</button></div>'
)
#: The overlay's colours: (background, text, edge); each text stands over 10:1 on its background.
OVERLAY_COLOURS = {"error": ("#2e1717", "#ffe4e0", "#ff8a80"), "warning": ("#2a2310", "#fff3d0", "#f0c040")}
FAILED_HEADING = "The last rebuild failed: this is the last good version of the page. %d problem(s):"
WARNED_HEADING = "The last rebuild passed with %d warning(s):"
WARNING_TAG = "Warning"
ITEM = ('<li class="sb-%(severity)s">%(tag)s<pre style="margin:0;white-space:pre-wrap;'
        'font:13px/1.4 ui-monospace,monospace">%(text)s</pre></li>')
TAG = ('<strong style="display:inline-block;margin:0 0 .1rem;padding:0 .35rem;border-radius:3px;background:#f0c040;'
       'color:#2a2310;font-size:12px">%s</strong>')


def reload_script(version: int) -> str:
    """The script injected into served pages: it knows the build ``version`` the page came
    from and long-polls the server, reloading as soon as another version is reported (so
    a rebuild that ends between the page's load and its first poll still reloads it)."""
    return RELOAD_SCRIPT % {"version": version}


def overlay_html(problems: list[str], warnings: list[str] = ()) -> str:
    """The overlay naming each problem of a failed rebuild and each warning (escaped), the
    warnings marked as such; a rebuild with warnings only gets the warnings' colours."""
    items = [ITEM % {"severity": "error", "tag": "", "text": escape(p)} for p in problems]
    items += [ITEM % {"severity": "warning", "tag": TAG % WARNING_TAG, "text": escape(w)} for w in warnings]
    severity = "error" if problems else "warning"
    heading = FAILED_HEADING % len(problems) if problems else WARNED_HEADING % len(warnings)
    if problems and warnings:
        heading = heading[:-1] + f", and {len(warnings)} warning(s):"
    background, text, edge = OVERLAY_COLOURS[severity]
    return OVERLAY % {"severity": severity, "heading": heading, "items": "".join(items), "background": background,
                      "text": text, "edge": edge}


@dataclass
class ServeState:
    """Shared between the watcher and the request handlers. ``problems`` are the errors of
    the last rebuild (empty when it passed) and ``warnings`` its warnings; ``error_page``
    is served only while no good site exists. ``resident`` is what the rebuilds share in
    memory (:class:`sitebuild.commands.stages.Resident`, made by the first rebuild)."""

    version: int = 0
    problems: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    error_page: bytes | None = None
    watched: list[Path] = field(default_factory=list)
    resident: Resident | None = None
    polling: int = 0    # long polls waiting now: the open pages
    reloading: int = 0  # of those, how many were waiting when the current version was published
    asked: dict[int, int] = field(default_factory=dict)  # version -> long polls that came from a page of it
    lock: threading.Lock = field(default_factory=threading.Lock)
    changed: threading.Condition = field(default=None)  # type: ignore[assignment]

    def __post_init__(self) -> None:
        self.changed = threading.Condition(self.lock)

    def publish(self, problems: list[str], error_page: bytes | None, watched: list[Path] | None,
                warnings: list[str] = ()) -> None:
        """A rebuild ended: record its problems and warnings and wake the pages waiting for a
        new version."""
        with self.changed:
            self.problems, self.warnings, self.error_page = problems, list(warnings), error_page
            if watched is not None:
                self.watched = watched
            self.version += 1
            self.reloading, self.asked = self.polling, {}
            self.changed.notify_all()

    def wait_for_change(self, seen: int, seconds: float = LONG_POLL_SECONDS) -> int:
        """The current version, once it differs from ``seen`` or ``seconds`` have passed (the
        long poll of a page of version ``seen``)."""
        with self.changed:
            self.asked[seen] = self.asked.get(seen, 0) + 1
            self.changed.notify_all()
            self.polling += 1
            try:
                self.changed.wait_for(lambda: self.version != seen, timeout=seconds)
            finally:
                self.polling -= 1
            return self.version

    def wait_for_reloads(self, seconds: float = RELOAD_GRACE_SECONDS) -> None:
        """Return once every page that was open when the current version was published has
        loaded it (its script's long poll came back from it), or after ``seconds``."""
        with self.changed:
            version = self.version
            self.changed.wait_for(lambda: self.version != version or self.asked.get(version, 0) >= self.reloading,
                                  timeout=seconds)


# -- What the site is made of --------------------------------------------------------------

def watched_paths(config: BuildConfig, recorded: list[Path]) -> list[Path]:
    """Every file whose change means a rebuild: the explainers, the templates, site.yaml,
    the bibliography, the steps' inputs and the files the last build recorded as read."""
    paths = set(config.source.glob("*.md")) | {config.root / SITE_FILE}
    if config.templates.is_dir():
        paths |= {p for p in config.templates.rglob("*") if p.is_file()}
    if config.site.bibliography:
        paths.add(config.root / config.site.bibliography)
    for step in config.site.steps:
        for pattern in step.inputs:
            paths |= {Path(p) for p in glob.glob(str(config.root / pattern), recursive=True) if Path(p).is_file()}
    generated = (config.out, config.cache_dir, config.source / "code")
    paths |= {p for p in recorded if not any(p.is_relative_to(g) for g in generated)}
    return sorted(p.resolve() for p in paths)


def recorded_reads(config: BuildConfig) -> list[Path]:
    """The files and folders the last good build recorded as read by its pages."""
    try:
        from sitebuild.store.stamp import recorded_inputs
    except ImportError:  # an engine without the record: the sources alone are watched
        return []
    return recorded_inputs(config.cache_dir, config.root)


def snapshot(paths: list[Path], source: Path) -> dict[str, tuple[int, int, int]]:
    """(size, mtime, inode) of each path (a folder: its names), plus the explainers present."""
    seen: dict[str, tuple] = {"explainers": tuple(sorted(p.name for p in source.glob("*.md")))}
    for path in paths:
        try:
            stat = path.stat()
        except OSError:
            seen[str(path)] = ()
            continue
        seen[str(path)] = (stat.st_size, stat.st_mtime_ns, stat.st_ino) if not path.is_dir() else \
            tuple(sorted(p.name for p in path.iterdir()))
    return seen


# -- Building --------------------------------------------------------------------------------

def with_site_reread(config: BuildConfig) -> BuildConfig:
    """``config`` with site.yaml read again (a save of site.yaml takes effect at once); a
    broken site.yaml is a :class:`ConfigError` naming its field."""
    from sitebuild.config import load_site_config

    return config._replace(site=load_site_config(config.root / SITE_FILE))


def rebuild(config: BuildConfig, state: ServeState, progress: Callable[[str], None]) -> None:
    """Build once. The open pages reload as soon as the new site is in place (the build's
    bookkeeping goes on meanwhile). Every problem goes to the terminal with its file and
    line; on failure the last good site stays, and the pages show an overlay naming the
    problems."""
    from sitebuild.commands.build import run_build
    from sitebuild.commands.stages import Resident
    from sitebuild.render.render import render_error_page

    if state.resident is None:
        state.resident = Resident()
    published = []

    def site_written(problems: tuple) -> None:  # a build that writes passed: its problems are warnings
        state.publish([], None, None, [str(p) for p in problems])
        published.append(True)
        state.wait_for_reloads()  # the bookkeeping after the open pages' reload, not during it

    try:
        config = with_site_reread(config)
        summary = run_build(config, progress=progress, resident=state.resident, on_written=site_written)
        problems = [str(p) for p in summary.problems]
        failed = [str(p) for p in summary.errors]
        closing = summary.closing_line()
    except SiteBuildError as error:
        summary, problems, failed, closing = None, [f"error: {error}"], [f"error: {error}"], f"error: {error}"
    for line in problems:
        progress(line)
    good_site = (config.out / "index.html").is_file()
    error_page = None if good_site or not failed else render_error_page(config.templates, config.site.title,
                                                                           "\n\n".join(failed))
    warnings = [line for line in problems if line not in failed]
    if failed or not published:  # the open pages reload now, while the watch list is made
        state.publish(failed, error_page, None, warnings)
    if not failed:
        watched = watched_paths(config, recorded_reads(config))
        with state.lock:
            state.watched = watched
    elif summary is not None and summary.read:
        # What this failed build's pages read is watched too: a file a page failed to find,
        # or one a page reads since the last good build.
        read = watched_paths(config, [(config.root / name).resolve() for name in summary.read])
        with state.lock:
            state.watched = sorted(set(state.watched) | set(read))
    if failed:
        progress(f"rebuild failed: {len(failed)} problem(s); serving the last good site with an overlay naming them")
    progress(closing)


class PreviewHandler(SimpleHTTPRequestHandler):
    """Serves the output folder, the version endpoint and, while failing, the overlay."""

    state: ServeState

    def log_message(self, format: str, *args) -> None:  # noqa: A002 - quiet preview server
        pass

    def do_GET(self) -> None:  # noqa: N802 - the http.server interface
        """Serve the version (long poll), or a file (pages with the reload script, and the
        overlay while the last rebuild failed)."""
        url = urlsplit(self.path)
        if url.path == VERSION_PATH:
            seen = parse_qs(url.query).get("v", [None])[0]
            version = self.state.wait_for_change(int(seen)) if seen and seen.isdigit() else self.state.version
            return self._send(str(version).encode(), "text/plain")
        with self.state.lock:
            error_page, version = self.state.error_page, self.state.version
            problems, warnings = list(self.state.problems), list(self.state.warnings)
        path = url.path
        is_page = path.endswith("/") or path.endswith(".html")
        if is_page and error_page is not None:
            return self._send(self._inject(error_page, version, []), "text/html; charset=utf-8", status=500)
        if is_page:
            target = Path(self.translate_path(path))
            target = target / "index.html" if _is(target, Path.is_dir) else target
            if _is(target, Path.is_file):
                return self._send(self._inject(target.read_bytes(), version, problems, warnings),
                                  "text/html; charset=utf-8")
            not_found = Path(self.directory) / NOT_FOUND_PAGE
            if not_found.is_file():
                return self._send(self._inject(not_found.read_bytes(), version, problems, warnings),
                                  "text/html; charset=utf-8", status=404)
        return super().do_GET()

    def end_headers(self) -> None:
        """No caching in a preview: every load shows the last build."""
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def _inject(self, html: bytes, version: int, problems: list[str], warnings: list[str] = ()) -> bytes:
        # The preview serves the site at "/", whatever base URL site.yaml gives the 404 page.
        html = html.replace(b'<script data-site-base="', b'<script data-site-base="/" data-was="', 1)
        extra = (overlay_html(problems, warnings) if problems or warnings else "") + reload_script(version)
        return html.replace(b"</body>", extra.encode() + b"</body>", 1)

    def _send(self, body: bytes, content_type: str, status: int = 200) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def _is(path: Path, kind: Callable[[Path], bool]) -> bool:
    """``kind(path)``, False for a path the system will not look up (a name too long)."""
    try:
        return kind(path)
    except OSError:
        return False


class _PreviewServer(ThreadingHTTPServer):
    daemon_threads = True  # a page's pending long poll never holds the process open

    def handle_error(self, request, client_address) -> None:
        """A reader who closed the tab (or reloaded it) mid-answer is no error; anything
        else is reported as usual."""
        if isinstance(sys.exc_info()[1], ConnectionError):  # BrokenPipeError, ConnectionResetError, ...
            return
        super().handle_error(request, client_address)


def make_server(config: BuildConfig, state: ServeState, port: int, host: str = "127.0.0.1") -> ThreadingHTTPServer:
    """An HTTP server on ``host``:``port`` (0 picks a free port) over the output folder; a
    port in use is a :class:`ConfigError` of one line."""
    handler = type("BoundPreviewHandler", (PreviewHandler,), {"state": state})
    config.out.mkdir(parents=True, exist_ok=True)
    try:
        return _PreviewServer((host, port), partial(handler, directory=str(config.out)))
    except OSError as error:
        if error.errno == errno.EADDRINUSE:
            raise ConfigError(f"serve: port {port} on {host} is in use; stop the other server or pass --port 0 "
                              "for a free port") from None
        raise ConfigError(f"serve: cannot listen on {host}:{port} ({error.strerror}); "
                          "check --host and --port") from None


def watch_folders(paths: list[Path], source: Path) -> list[Path]:
    """The folders whose entries are watched: each watched file's folder (an editor that
    saves by renaming a new file over the old one leaves no file to follow), each watched
    folder itself, and the source folder (a new explainer)."""
    folders = {p if p.is_dir() else p.parent for p in paths} | {source.resolve()}
    return sorted(f for f in folders if f.is_dir())


def is_relevant(changes: set[tuple[object, str]], paths: list[Path], source: Path) -> bool:
    """True when a file event touches what the site is made of: a watched file, an entry
    of a watched folder, or an explainer of the source folder."""
    files, source = set(paths), source.resolve()
    for _, name in changes:
        path = Path(name)
        if path in files or path.parent in files or (path.parent == source and path.suffix == ".md"):
            return True
    return False


def _wait_for_change(config: BuildConfig, paths: list[Path], stop: threading.Event, last: dict) -> None:
    """Return once a watched file may have changed (a file event, or a different snapshot
    at a quiet moment, which covers the instant before the watcher started), or on ``stop``."""
    import watchfiles

    for changes in watchfiles.watch(*watch_folders(paths, config.source), watch_filter=None, step=WATCH_STEP_MS,
                                    rust_timeout=SAFETY_CHECK_MS, yield_on_timeout=True, stop_event=stop,
                                    recursive=False, raise_interrupt=False, ignore_permission_denied=True):
        if is_relevant(changes, paths, config.source) or not changes and snapshot(paths, config.source) != last:
            return


def last_change_ns(paths: list[Path], source: Path, current: dict, last: dict) -> int:
    """The latest modification or change time (ns) of what differs between the snapshots
    ``current`` and ``last``: the watched files and folders whose entries differ, and the
    source folder when its explainers do (0 when nothing there can be seen)."""
    changed = [source] if current.get("explainers") != last.get("explainers") else []
    changed += [p for p in paths if current.get(str(p)) != last.get(str(p))]
    newest = 0
    for path in changed:
        try:
            stat = os.stat(path)
        except OSError:
            continue
        newest = max(newest, stat.st_mtime_ns, stat.st_ctime_ns)
    return newest


def settled_snapshot(paths: list[Path], source: Path, current: dict, stop: threading.Event,
                     last: dict | None = None) -> dict:
    """The snapshot of ``paths`` once what changed since ``last`` has held still for
    ``SETTLE_SECONDS``: told by the change times of the files that differ (a save that
    ended that long ago is built at once), else by two looks that far apart agreeing (at
    most 20 looks, so a file rewritten without pause is still built)."""
    for _ in range(20):
        since = (time.time_ns() - last_change_ns(paths, source, current, last)) / 1e9 if last is not None else 0.0
        if since >= SETTLE_SECONDS:
            break
        if stop.wait(min(SETTLE_SECONDS, SETTLE_SECONDS - since)):  # a time in the future: one look later
            break
        again = snapshot(paths, source)
        if again == current:
            break
        current = again
    return current


def keep_out_of_collections() -> None:
    """Collect the garbage of the build just made, then keep every object still alive out of
    the collector's later passes: the engine's modules and what the rebuilds share in memory
    live as long as the preview, and a full pass over them in the middle of a rebuild takes
    tens of ms. Each call after the first walks only what was made since the last."""
    gc.collect()
    gc.freeze()


def watch(config: BuildConfig, state: ServeState, progress: Callable[[str], None], stop: threading.Event,
          last: dict | None = None) -> None:
    """Wait for file events on what the site is made of; rebuild after each change
    (compared with ``last``, the snapshot taken before the last build) until ``stop`` is set."""
    last = snapshot(state.watched, config.source) if last is None else last
    while not stop.is_set():
        try:
            with state.lock:
                paths = list(state.watched)
            current = snapshot(paths, config.source)
            if current == last:
                _wait_for_change(config, paths, stop, last)
                continue
            current = settled_snapshot(paths, config.source, current, stop, last)
            progress("change detected; rebuilding")
            try:
                rebuild(config, state, progress)
                keep_out_of_collections()
            finally:  # a rebuild that raised waits for the next change too, not for the next second
                with state.lock:
                    paths = list(state.watched)
                # Compare the next look with what this build saw when it started.
                last = {**snapshot(paths, config.source), **current}
        except Exception as error:  # keep watching: the next save may fix it
            progress(f"error while rebuilding: {type(error).__name__}: {error}")
            stop.wait(ERROR_PAUSE_SECONDS)


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
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}/"

    def close(self) -> None:
        """Stop watching and release the port (after ``serve_forever`` has returned)."""
        self.stop_event.set()
        with self.state.changed:
            self.state.changed.notify_all()
        self.server.server_close()
        self.watcher.join(timeout=5)
        gc.unfreeze()  # what the preview kept is the collector's again


def start_preview(config: BuildConfig, port: int = 8000, progress: Callable[[str], None] = print,
                  host: str = "127.0.0.1") -> Preview:
    """Open the server on ``host``:``port`` (0: any free port), build once and start
    watching; the caller runs ``preview.server.serve_forever()``."""
    state = ServeState()
    server = make_server(config, state, port, host)
    try:
        state.watched = watched_paths(config, recorded_reads(config))
        before = snapshot(state.watched, config.source)
        rebuild(config, state, progress)
        # The files the first build found its pages reading are watched from their state now
        # (otherwise their appearance in the list would itself count as a change).
        before = {**snapshot(state.watched, config.source), **before}
        keep_out_of_collections()
    except BaseException:
        server.server_close()
        raise
    stop = threading.Event()
    watcher = threading.Thread(target=watch, args=(config, state, progress, stop, before), daemon=True)
    watcher.start()
    return Preview(server, state, stop, watcher)


def serve(config: BuildConfig, port: int = 8000, progress: Callable[[str], None] = print,
          host: str = "127.0.0.1") -> None:
    """Build, then serve with rebuild on change, until interrupted."""
    preview = start_preview(config, port, progress, host)
    progress(f"serving {config.out} on {preview.url} (Ctrl-C stops)")
    try:
        preview.server.serve_forever()
    finally:
        preview.close()
