"""The build's side of the warm kernel template (see ``template_server.py``): starting it
once per build, asking it for a forked kernel, the forked kernel's process as the kernel
manager sees it, and what the template's imports read, added to each page's record.

A kernel manager whose template cannot serve (not Linux, a preload that failed, threads in
the template, a template that died) starts its kernel normally; the reason is said once."""

from __future__ import annotations

import ast
import functools
import json
import os
import select
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from msgspec import Struct

SERVER_SOURCE = Path(__file__).with_name("template_server.py").read_text(encoding="utf-8")
#: Variables the template alone gets, before its imports: they keep its libraries from
#: starting threads (pyarrow's jemalloc purges memory in a thread of its own otherwise).
TEMPLATE_ONLY_ENVIRONMENT = {"JE_ARROW_MALLOC_CONF": "background_thread:false"}
#: Seconds a fork request may wait for the template (its imports come first).
REQUEST_TIMEOUT = 120.0

NOT_LINUX = "kernels start normally: forking them from a template needs Linux (this is {platform})"
TEMPLATE_FAILED = "kernels start normally: the kernel template could not serve ({reason})"

#: Templates this process started and has not stopped (to kill them when interrupted).
LIVE_TEMPLATES: set = set()


class Preload(Struct, frozen=True):
    """What the template imports: ``required`` (site.yaml's ``preload:``; one that fails
    turns the template off) and ``optional`` (learned from the last build; one that fails
    is left out)."""

    required: tuple[str, ...] = ()
    optional: tuple[str, ...] = ()


#: The build's memo of the installed packages its pages imported (the next build preloads them).
LEARNED_FILE = "preload.json"
#: The memo's format (its names do not depend on the engine's code).
LEARNED_FORMAT = "1"


def _learned_memo(cache_dir: Path):
    from sitebuild.store.memo import Memo

    return Memo(cache_dir / LEARNED_FILE, "learned preload", LEARNED_FORMAT)


def learned_preload(cache_dir: Path) -> tuple[str, ...]:
    """The installed top-level packages the last build's pages imported (none without a memo)."""
    names = _learned_memo(cache_dir).load([], lambda found: all(isinstance(n, str) for n in found))
    return tuple(n for n in names if _learnable(n))


def _learnable(name: str) -> bool:
    """A module worth importing by itself: not private, no tests, not a debugger's
    internals (found only on the path the debugger sets up)."""
    parts = name.split(".")
    return (all(part.isidentifier() and not part.startswith("_") for part in parts)
            and "tests" not in parts and not parts[0].startswith("pydev"))


def remember_preload(cache_dir: Path, modules: set[str], replace: bool = True) -> None:
    """Keep ``modules`` (installed modules the pages held) for the next build's template;
    without ``replace`` they join the ones kept before (only some pages ran)."""
    known = learned_preload(cache_dir)
    names = sorted({n for n in modules if _learnable(n)} | (set() if replace else set(known)))
    if known != tuple(names):
        _learned_memo(cache_dir).save(names)


class TemplateUnavailable(RuntimeError):
    """The template cannot fork a kernel (the message says why)."""


class ForkedProcess:
    """A kernel forked by the template, with the part of ``subprocess.Popen`` the kernel
    manager uses (it is the template's child, not ours: it is watched through a pidfd)."""

    def __init__(self, pid: int):
        self.pid = pid
        self.returncode: int | None = None
        self.stdin = self.stdout = self.stderr = None
        try:
            self._pidfd: int | None = os.pidfd_open(pid)
        except (OSError, AttributeError):
            self._pidfd = None
            if not _exists(pid):
                self.returncode = -signal.SIGKILL

    def poll(self) -> int | None:
        """None while the process runs, else its (unknown, so -9 or 0) exit code."""
        if self.returncode is None and not self._running(0):
            self._ended()
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        """Wait for the process to end (``subprocess.TimeoutExpired`` after ``timeout`` s)."""
        if self.returncode is None:
            if self._running(timeout):
                raise subprocess.TimeoutExpired(str(self.pid), timeout)
            self._ended()
        return self.returncode

    def _running(self, timeout: float | None) -> bool:
        if self._pidfd is None:
            return _exists(self.pid)
        return not select.select([self._pidfd], [], [], timeout)[0]

    def _ended(self) -> None:
        self.returncode = 0
        if self._pidfd is not None:
            os.close(self._pidfd)
            self._pidfd = None

    def send_signal(self, signum: int) -> None:
        """Send ``signum`` to the process (nothing once it ended)."""
        if self.returncode is not None:
            return
        try:
            if self._pidfd is not None:
                signal.pidfd_send_signal(self._pidfd, signum)
            else:
                os.kill(self.pid, signum)
        except ProcessLookupError:
            pass

    def kill(self) -> None:
        """SIGKILL the process."""
        self.send_signal(signal.SIGKILL)

    def terminate(self) -> None:
        """SIGTERM the process."""
        self.send_signal(signal.SIGTERM)


def _zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rpartition(")")[2].split()[0] == "Z"
    except (OSError, IndexError):
        return False


def _exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class Template:
    """The template process of one build (started by :meth:`start`), shared by the build's
    worker processes: each connects once, on its first request."""

    def __init__(self, process: subprocess.Popen, address: str, log):
        self.process = process
        self.address = address
        self.log = log
        self.failure = ""   # why it cannot serve, once known
        self._connection: socket.socket | None = None
        self._owner = 0     # the process the connection belongs to (workers are forked)
        self._lock = threading.Lock()
        self._starter = os.getpid()

    @classmethod
    def start(cls, root: str, env: dict[str, str], preload: "Preload") -> "Template":
        """Launch the template in ``root`` with the kernels' environment ``env``; it imports
        ``preload`` in the background (a request waits for that)."""
        address = f"sitebuild-template-{os.getpid()}-{os.urandom(6).hex()}"
        log = tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")
        names = {"required": list(preload.required), "optional": list(preload.optional)}
        command = [sys.executable, "-c", SERVER_SOURCE, address, json.dumps(names)]
        process = subprocess.Popen(command, cwd=root, env={**env, **TEMPLATE_ONLY_ENVIRONMENT},
                                   stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=log,
                                   start_new_session=True)
        template = cls(process, address, log)
        LIVE_TEMPLATES.add(template)
        return template

    def fork(self, connection_file: str, cwd: str, env: dict[str, str], argv: list[str],
             stdout: int, stderr: int) -> tuple[ForkedProcess, dict]:
        """A kernel forked for ``connection_file``, and what the preload read; raises
        :class:`TemplateUnavailable` when the template cannot serve (and from then on)."""
        if self.failure:
            raise TemplateUnavailable(self.failure)
        request = {"connection_file": connection_file, "cwd": cwd, "env": env, "argv": argv}
        try:
            with self._lock:
                reply = self._ask(request, [stdout, stderr])
        except (OSError, ValueError) as error:
            self.failure = self._dead_reason(error)
            raise TemplateUnavailable(self.failure) from None
        if "error" in reply:
            self.failure = reply["error"]
            raise TemplateUnavailable(self.failure)
        return ForkedProcess(int(reply["pid"])), reply["record"]

    def _ask(self, request: dict, fds: list[int]) -> dict:
        if self._connection is None or self._owner != os.getpid():
            self._connection, self._owner = self._connect(), os.getpid()
        connection = self._connection
        socket.send_fds(connection, [json.dumps(request).encode() + b"\n"], fds)
        reply = b""
        while not reply.endswith(b"\n"):
            data = connection.recv(1 << 20)
            if not data:
                raise ConnectionError("the template closed the connection")
            reply += data
        return json.loads(reply)

    def _connect(self) -> socket.socket:
        """A connection to the template, once it listens (it binds its socket as it starts)."""
        deadline = time.monotonic() + REQUEST_TIMEOUT
        while True:
            connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            connection.settimeout(REQUEST_TIMEOUT)
            try:
                connection.connect("\0" + self.address)
                return connection
            except ConnectionRefusedError:
                connection.close()
                if not self.alive() or time.monotonic() > deadline:
                    raise
                time.sleep(0.01)

    def alive(self) -> bool:
        """Whether the template still runs (from the build's process or from a worker's,
        which cannot wait for it: it is not the worker's child)."""
        if os.getpid() == self._starter:
            return self.process.poll() is None
        return _exists(self.process.pid) and not _zombie(self.process.pid)

    def _dead_reason(self, error: Exception) -> str:
        if not self.alive():
            return f"it ended{self._log_tail()}"
        return f"{type(error).__name__}: {error}"

    def _log_tail(self) -> str:
        try:  # read without moving the offset the template writes at
            fd = self.log.fileno()
            size = os.fstat(fd).st_size
            lines = os.pread(fd, 4096, max(0, size - 4096)).decode("utf-8", "replace").strip().splitlines()
        except (OSError, ValueError):
            return ""
        return f": {lines[-1]}" if lines else ""

    @property
    def pid(self) -> int:
        """The template's process id."""
        return self.process.pid

    def stop(self) -> None:
        """End the template (it kills the kernels it forked) and wait for it."""
        if self._connection is not None and self._owner == os.getpid():
            self._connection.close()
            self._connection = None
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.process.stdin is not None:
            self.process.stdin.close()
        LIVE_TEMPLATES.discard(self)
        self.log.close()

    def kill(self) -> None:
        """SIGTERM the template now (from a signal handler; it kills its kernels itself)."""
        try:
            os.kill(self.process.pid, signal.SIGTERM)
        except OSError:
            pass
        LIVE_TEMPLATES.discard(self)


def kill_live_templates() -> None:
    """End every template this process started and has not stopped."""
    for template in list(LIVE_TEMPLATES):
        template.kill()


def add_preload_record(deps: dict, record: dict, root: str) -> None:
    """Add to a page's ``deps`` report what the template's imports read before the fork:
    the variables (as they were then) and the files outside the installation (moved since
    means changed), as a fresh kernel's tracer records them when the page imports. Left
    out, as that tracer leaves them out: the template's own variables
    (:data:`TEMPLATE_ONLY_ENVIRONMENT`, which a fresh kernel does not have) and those the
    kernel machinery sets. A module that reads every variable (numba's import does) would
    otherwise make its pages count as changed at every build."""
    env = deps.setdefault("env", {})
    machinery, prefixes = _machinery_environment()
    for name, value in record.get("env", {}).items():
        if name not in TEMPLATE_ONLY_ENVIRONMENT and name not in machinery and not name.startswith(prefixes):
            env.setdefault(name, value)
    files = deps.setdefault("files", {})
    for path, state in record.get("files", {}).items():
        key = _record_name(path, root)
        if key in files:
            continue
        now = _state(path)
        files[key] = ({"stat": None, "sha256": None, "changed": now is not None} if state is None
                      else {"stat": list(state), "sha256": None, "changed": now != list(state)})


@functools.cache
def _machinery_environment() -> tuple[frozenset[str], tuple[str, ...]]:
    """The variables the kernel tracer never records (``_SB_MACHINERY_ENV`` and
    ``_SB_MACHINERY_PREFIXES`` of kernel_setup.py, read from its text: that file runs in
    the kernel, so it cannot be imported here, and the two must not drift apart)."""
    tree = ast.parse(Path(__file__).with_name("kernel_setup.py").read_text(encoding="utf-8"))
    values = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            if node.targets[0].id == "_SB_MACHINERY_ENV":  # frozenset((...))
                values["names"] = frozenset(ast.literal_eval(node.value.args[0]))
            elif node.targets[0].id == "_SB_MACHINERY_PREFIXES":
                values["prefixes"] = tuple(ast.literal_eval(node.value))
    return values["names"], values["prefixes"]


def _record_name(path: str, root: str) -> str:
    return os.path.relpath(path, root) if path.startswith(os.path.join(root, "")) else path


def _state(path: str) -> list[int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev]
