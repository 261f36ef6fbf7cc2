"""The kernel processes of a build: their environment, starting one, and ending them
(each normally, or all at once when the build is interrupted)."""

from __future__ import annotations

import functools
import os
import signal
import sys
import tempfile
from dataclasses import dataclass
from typing import Callable

from sitebuild.execution.environment import kernel_environment

#: Kernels started by this process and not yet stopped (to kill them when interrupted).
LIVE_KERNELS: set = set()


#: Seconds a kernel may take to boot and answer, and then to run the setup code.
STARTUP_TIMEOUT = 60.0


@dataclass(eq=False)
class Kernel:
    """A started ``python3`` kernel process and the file collecting its stderr; with
    :meth:`prepare`, a client connecting to it and running the setup code meanwhile."""

    manager: object
    log: object
    preparing: object = None  # the asyncio task of prepare(), on this thread's event loop

    def prepare(self, setup_code: str) -> None:
        """Connect a client, wait for the kernel's first answer and run ``setup_code`` in it,
        in the background: a task on this thread's event loop, which makes progress
        whenever the loop runs (while the page before this one runs, for a spare).

        Where an event loop is already running in this thread (the build called from a
        notebook, or beside another asyncio program), the kernel's client lives on another
        loop, so nothing is prepared: the page connects and sets up as usual."""
        import asyncio

        from jupyter_core.utils import ensure_event_loop

        try:
            asyncio.get_running_loop()
            return
        except RuntimeError:  # no loop runs here: the one run_sync will run is this thread's
            pass
        self.preparing = ensure_event_loop().create_task(_prepare(self.manager, setup_code))

    def prepared_client(self):
        """The client of :meth:`prepare`, once its setup code ran without error; None when
        the kernel was not prepared or could not be (the caller connects as usual, and
        meets and reports the same problem)."""
        return self._settle_preparing(cancel=False)

    def _stop_preparing(self) -> None:
        client = self._settle_preparing(cancel=True)
        if client is not None:  # prepared before it was stopped
            client.stop_channels()

    def _settle_preparing(self, cancel: bool):
        """Wait for the task of :meth:`prepare` (cancelled first with ``cancel``) and hand
        over its client; None without a task, or when it failed or was cancelled (its
        client is closed then)."""
        import asyncio

        from jupyter_core.utils import run_sync

        task, self.preparing = self.preparing, None
        if task is None:
            return None
        if cancel:
            task.cancel()

        async def settled():
            try:
                return await task
            except (Exception, asyncio.CancelledError):
                return None
        return run_sync(settled)()

    @property
    def preload_record(self) -> dict | None:
        """What the template's imports read, for a kernel forked from it (else None)."""
        return getattr(self.manager, "preload_record", None)

    @property
    def process(self):
        """The kernel's process (a ``subprocess.Popen``; None once it is gone)."""
        return getattr(getattr(self.manager, "provisioner", None), "process", None)

    @property
    def pid(self) -> int | None:
        """The kernel's process id (None once it is gone)."""
        return getattr(self.process, "pid", None)

    def stop(self) -> None:
        """Kill the kernel now and close its log."""
        from jupyter_core.utils import run_sync

        try:
            self._stop_preparing()
        except Exception:
            pass
        try:
            if self.manager.has_kernel:
                self._kill_and_reap()
                run_sync(self.manager.shutdown_kernel)(now=True)
        except Exception:  # already gone
            pass
        LIVE_KERNELS.discard(self)
        self.log.close()

    def _kill_and_reap(self) -> None:
        """SIGKILL the process and wait for it: the manager's own shutdown then finds it
        gone, instead of polling every 0.1 s until it is."""
        process = self.process
        if process is not None and process.poll() is None:
            process.kill()
            try:
                process.wait(timeout=5)
            except Exception:  # still there: the manager's shutdown waits for it again
                pass

    def kill(self) -> None:
        """Kill the kernel process at once and remove its connection file (from a signal
        handler, where the event loop cannot be trusted)."""
        pid = self.pid
        try:
            if pid:
                os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
        try:
            os.unlink(self.manager.connection_file)
        except (OSError, TypeError, AttributeError):
            pass
        LIVE_KERNELS.discard(self)

    def log_tail(self, lines: int = 15) -> str:
        """The end of the kernel's stderr (for a kernel that died)."""
        self.log.seek(0)
        kept = [line for line in self.log.read().splitlines() if "running over TCP" not in line]
        return "\n".join(kept[-lines:])


#: Seconds to wait for a kernel's IOPub report of a kernel_info request before asking again
#: (a report sent before the client's IOPub socket connected is lost).
IOPUB_PATIENCE = 0.2


#: Milliseconds between a client socket's attempts to reach a kernel that is not listening
#: yet (zmq's default is 100: a kernel booting in 60 ms was reached 40 to 140 ms late).
RECONNECT_MS = 10


def quick_reconnects(context) -> None:
    """Make the sockets ``context`` creates from now on retry a port that is not listening
    yet every :data:`RECONNECT_MS` ms (a client connects before its kernel has bound)."""
    import zmq

    context.setsockopt(zmq.RECONNECT_IVL, RECONNECT_MS)


async def wait_until_answering(client, timeout: float) -> None:
    """Return once the kernel has answered a ``kernel_info`` request on the shell channel
    and reported it idle on IOPub (so both channels are connected); raise RuntimeError when
    it died or did not answer within ``timeout`` seconds.

    jupyter_client's own ``wait_for_ready`` then waits for IOPub to stay silent for 0.2 s,
    which every kernel of a build pays once; here the idle status whose parent is the
    request is the sign that its reports have all arrived."""
    import time
    from queue import Empty

    deadline = time.monotonic() + timeout
    while True:
        request = client.kernel_info()
        reply = await _first_message(client.get_shell_msg, lambda msg: _answers(msg, request),
                                     min(time.monotonic() + 1.0, deadline))
        if reply is not None:
            client._handle_kernel_info_reply(reply)
            idle = await _first_message(client.get_iopub_msg, lambda msg: _answers(msg, request) and
                                        msg["msg_type"] == "status" and
                                        msg["content"].get("execution_state") == "idle",
                                        time.monotonic() + IOPUB_PATIENCE)
            if idle is not None:
                break
        if not await client.is_alive():
            raise RuntimeError("Kernel died before replying to kernel_info")
        if time.monotonic() > deadline:
            raise RuntimeError(f"Kernel didn't respond in {timeout:g} seconds")
    while True:  # reports of earlier requests, already here
        try:
            await client.get_iopub_msg(timeout=0)
        except Empty:
            return


def _answers(msg: dict, request: str) -> bool:
    """Whether ``msg`` was sent in answer to the request ``request``."""
    return msg["parent_header"].get("msg_id") == request


async def _first_message(get, wanted: Callable[[dict], bool], end: float) -> dict | None:
    """The first message ``get`` (a channel's ``get_*_msg``) returns that is ``wanted``,
    skipping the others; None when none came before monotonic time ``end``."""
    import time
    from queue import Empty

    while True:
        try:
            msg = await get(timeout=max(0.0, end - time.monotonic()))
        except Empty:
            return None
        if wanted(msg):
            return msg


async def _prepare(manager, setup_code: str):
    """A client of ``manager``'s kernel that has seen it answer and run ``setup_code``
    (raises RuntimeError when the kernel died, did not answer in time or the code failed)."""
    import time
    from queue import Empty

    client = manager.client()
    quick_reconnects(client.context)
    client.start_channels()
    try:
        await wait_until_answering(client, STARTUP_TIMEOUT)
        client.allow_stdin = False
        msg_id = client.execute(setup_code)  # as the setup cell runs: its execution count is 1
        deadline = time.monotonic() + STARTUP_TIMEOUT
        while True:
            try:
                reply = await client.get_shell_msg(timeout=1)
            except Empty:
                if not await client.is_alive():
                    raise RuntimeError("the kernel died while running the setup code") from None
                if time.monotonic() > deadline:
                    raise RuntimeError("the setup code did not finish in time") from None
                continue
            if reply["parent_header"].get("msg_id") == msg_id:
                break
        if reply["content"].get("status") != "ok":
            raise RuntimeError(f"the setup code failed: {reply['content'].get('evalue', '')}")
        return client
    except BaseException:
        client.stop_channels()
        raise


def kill_live_kernels() -> None:
    """Kill every kernel this process started and has not stopped, and its templates."""
    from sitebuild.execution.template import kill_live_templates

    for kernel in list(LIVE_KERNELS):
        kernel.kill()
    kill_live_templates()


@functools.cache
def _kernel_specs():
    """The kernel spec manager of every kernel of the build: this interpreter running
    ipykernel, whatever kernel specs are installed (a page runs where the build runs, and
    looking the installed specs up imports IPython, a quarter of a second per process)."""
    from jupyter_client.kernelspec import KernelSpec, KernelSpecManager

    class BuildKernelSpecs(KernelSpecManager):
        def get_kernel_spec(self, kernel_name: str) -> KernelSpec:
            return KernelSpec(argv=[sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                              display_name="Python 3", language="python", name=kernel_name)

    return BuildKernelSpecs()


#: Where :func:`note_once` sends its text (a worker process sends it to the build's process).
NOTE_SINK: list[Callable[[str], None]] = []
_NOTED: set[str] = set()


def note_once(text: str) -> None:
    """Say ``text`` in the build's output, once per process (the build says each once)."""
    if text in _NOTED:
        return
    _NOTED.add(text)
    if NOTE_SINK:
        NOTE_SINK[-1](text)
    else:
        print(f"  {text}", file=sys.stderr, flush=True)


@functools.cache
def _launcher_path() -> str:
    import importlib.util

    return importlib.util.find_spec("ipykernel_launcher").origin


def _descriptor(stream, standard: int) -> int:
    """The file descriptor behind ``stream``, or the process's own ``standard`` one when the
    stream has none (redirected to a StringIO by a test, a notebook or a caller): what a
    normally started kernel inherits."""
    try:
        return stream.fileno()
    except (AttributeError, OSError, ValueError):  # io.UnsupportedOperation is both OSError and ValueError
        return standard


@functools.cache
def _forked_manager_class():
    """A kernel manager that asks a template to fork its kernel (``template``), and starts
    it normally when the template cannot (saying why once)."""
    from jupyter_client.manager import AsyncKernelManager
    from traitlets import Any

    from sitebuild.execution.template import TEMPLATE_FAILED, TemplateUnavailable

    class ForkedKernelManager(AsyncKernelManager):
        template = Any(None)
        preload_record = Any(None)

        async def _async_launch_kernel(self, kernel_cmd: list[str], **kw) -> None:
            env = dict(kw.get("env") or os.environ, JPY_PARENT_PID=str(os.getpid()))
            stderr = kw.get("stderr")
            try:
                process, record = self.template.fork(
                    self.connection_file, str(kw.get("cwd") or os.getcwd()), env,
                    [_launcher_path(), "-f", self.connection_file],
                    _descriptor(sys.stdout, 1), _descriptor(stderr if stderr is not None else sys.stderr, 2))
            except TemplateUnavailable as error:
                note_once(TEMPLATE_FAILED.format(reason=error))
                await super()._async_launch_kernel(kernel_cmd, **kw)
                return
            provisioner = self.provisioner
            provisioner.process, provisioner.pid, provisioner.pgid = process, process.pid, process.pid
            provisioner.cwd = kw.get("cwd")
            self.preload_record = record
            self._reconcile_connection_info(provisioner.connection_info)

    return ForkedKernelManager


def start_kernel(root: str, template=None) -> Kernel:
    """Launch a kernel process (it boots in the background; the client waits for it):
    forked from ``template`` when given and able, else started normally."""
    from jupyter_client.manager import AsyncKernelManager
    from jupyter_core.utils import run_sync

    log = tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")
    if template is not None and not template.failure:
        manager = _forked_manager_class()(kernel_name="python3", kernel_spec_manager=_kernel_specs(),
                                          template=template)
    else:
        manager = AsyncKernelManager(kernel_name="python3", kernel_spec_manager=_kernel_specs())
    kernel = Kernel(manager, log)
    LIVE_KERNELS.add(kernel)
    try:
        run_sync(manager.start_kernel)(cwd=root, env=kernel_environment(root), stderr=log)
    except BaseException:
        kernel.stop()
        raise
    return kernel


def kill_tree(pid: int) -> None:
    """Kill process ``pid`` and all its descendants (the descendants first)."""
    import psutil

    try:
        process = psutil.Process(pid)
        family = process.children(recursive=True) + [process]
    except psutil.Error:
        return
    for member in family:
        try:
            member.kill()
        except psutil.Error:  # already gone
            pass
