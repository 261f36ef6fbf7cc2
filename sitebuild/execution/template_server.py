"""The warm kernel template: a process that imports the installed packages the pages use,
then forks, on request, a child that becomes a page's ipykernel (never imported by the
engine: run as ``python -c`` with this text, so no repository module enters the template).

Started with ``python -c SOURCE ADDRESS PRELOAD_JSON`` (``{"required": [...], "optional":
[...]}``, module names): it binds the abstract Unix socket ADDRESS at once, imports from the
installation only (the folders on ``sys.path`` outside it are taken away while it imports,
and a module that comes from outside it fails the preload; so does a required module that
fails to import, where an optional one is left out), records the environment variables
and the files outside the installation those imports read (a fresh kernel's tracer would
have seen them), and checks that no thread but its own runs. Then it answers one JSON line
per request on each connection:

- request ``{"connection_file", "cwd", "env", "argv"}`` with two descriptors attached (the
  kernel's stdout and stderr): the reply is ``{"pid", "record"}``, or ``{"error"}`` when the
  preload failed (the build then starts its kernels normally);
- its stdin is the build's lifeline: at its end (the build is gone) and at SIGTERM the
  template kills every child it forked and exits.

A child starts a session of its own, takes the descriptors, working folder, environment,
``sys.argv`` and ``sys.path`` a freshly launched kernel would have, reseeds numpy's global
random state, and runs IPKernelApp on the connection file (ports chosen by the build). It
watches the build's worker (``JPY_PARENT_PID``) instead of its own parent, so a template
that dies leaves its running pages alone."""

import json as _json
import os as _os
import signal as _signal
import socket as _socket
import sys as _sys

_RACY_PSEUDO = ("/proc/", "/sys/", "/dev/")
_RECORDING = [True]
#: What a kernel imports before the page's tracer starts (the reads of these are not the page's).
_KERNEL_MODULES = ("ipykernel.kernelapp", "ipykernel.ipkernel", "ipykernel.debugger")  # the debugger: half a second
#: Work that a preloaded package does at its first use, once per process, done in the template so
#: that its forked kernels start with it done: numba's first compiled call sets up LLVM (0.2 s,
#: paid by every page whose exact intervals reach faircode's compiled tail sums).
_WARM_UPS = {"numba": "import numba\nnumba.njit(cache=False)(lambda value: value + 1)(1)\n"}
#: As kernel_setup.py's table: modules whose walk of the whole environment uses one prefix's
#: variables only, so their walk reads those only (a test keeps the two tables equal).
_PREFIX_WALKERS = {"numba.core.config": "NUMBA_"}
_ENV_READS = {}    # name -> value at the first read during the preload (None: not set)
_FILE_READS = {}   # absolute path -> [size, mtime_ns, ctime_ns, ino, dev] at first open, or None (absent)
_CHILDREN = {}     # pid -> pidfd (or None where pidfds are missing)
_ORIGINAL_PATH = list(_sys.path[1:])  # sys.path without -c's '' (ipykernel_launcher removes it too)


def _installation():
    import site
    places = {_sys.prefix, _sys.base_prefix, _sys.exec_prefix, _sys.base_exec_prefix}
    try:
        places.update(site.getsitepackages() + [site.getusersitepackages()])
    except Exception:
        pass
    return tuple(_os.path.join(_os.path.realpath(p), "") for p in places if p)


_INSTALLATION = _installation()


def _installed(path):
    real = _os.path.realpath(path)
    return real.startswith(_INSTALLATION) or "/site-packages/" in real or "/dist-packages/" in real


def _note_open(path):
    full = _os.path.abspath(_os.fsdecode(path))
    if full in _FILE_READS or "__pycache__" in full or full.startswith(_RACY_PSEUDO) or _installed(full):
        return
    try:
        st = _os.stat(full)
    except OSError:
        _FILE_READS[full] = None
        return
    if st.st_mode & 0o170000 == 0o100000:
        _FILE_READS[full] = [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev]


def _audit(event, args):
    if not _RECORDING[0] or event != "open" or not args or isinstance(args[0], int):
        return
    mode = args[1] if len(args) > 1 else None
    flags = args[2] if len(args) > 2 and isinstance(args[2], int) else 0
    reads = ("r" in mode or "+" in mode) if isinstance(mode, str) else (flags & _os.O_ACCMODE) != _os.O_WRONLY
    if reads:
        try:
            _note_open(args[0])
        except Exception:
            pass


def _walker_prefix():
    """The prefix of the variables that a module of :data:`_PREFIX_WALKERS` a few frames up
    uses (it is walking the environment), else "" (every name starts with it)."""
    frame = _sys._getframe(2)
    for _ in range(8):
        if frame is None:
            return ""
        prefix = _PREFIX_WALKERS.get(frame.f_globals.get("__name__"))
        if prefix is not None:
            return prefix
        frame = frame.f_back
    return ""


def _watch_environment():
    """Record the variables read while preloading; returns the undo."""
    environ_type = type(_os.environ)
    read = environ_type.__getitem__

    def getitem(self, key):
        try:
            value = read(self, key)
        except KeyError:
            if self is _os.environ and _RECORDING[0]:
                _ENV_READS.setdefault(key, None)
            raise
        if self is _os.environ and _RECORDING[0] and key.startswith(_walker_prefix()):
            _ENV_READS.setdefault(key, value)
        return value

    environ_type.__getitem__ = getitem
    return lambda: setattr(environ_type, "__getitem__", read)


class _KernelShell:
    """What ``get_ipython()`` answers while the template imports: as in a kernel, a shell
    with a kernel (pandas, for one, sizes its tables by it when imported)."""

    kernel = True


def _as_in_a_kernel(on):
    """Put the builtin ``get_ipython`` a kernel's imports find in place (or take it away)."""
    import builtins
    if on:
        builtins.get_ipython = _KernelShell
    elif getattr(builtins, "get_ipython", None) is _KernelShell:
        del builtins.get_ipython


def _preload(required, optional):
    """Import the kernel's own modules and ``required`` (site.yaml's names), then what of
    ``optional`` (names learned from the last build) imports, from the installation only;
    return an error text, or "" when every import came from the installation."""
    import importlib
    kept = _sys.path[:]
    _sys.path[:] = [p for p in _sys.path if p and _installed(p)]
    try:
        _RECORDING[0] = False  # a fresh kernel has imported its own modules before its tracer starts
        for name in _KERNEL_MODULES:
            importlib.import_module(name)
        _RECORDING[0] = True
        _as_in_a_kernel(True)
        for name in required:
            try:
                importlib.import_module(name)
            except BaseException as error:
                return f"preloading {name} failed: {type(error).__name__}: {error}"
        for name in optional:
            try:
                importlib.import_module(name)
            except Exception:
                pass
    finally:
        _as_in_a_kernel(False)
        _sys.path[:] = kept
    outside = sorted(name for name, module in list(_sys.modules.items())
                     if isinstance(getattr(module, "__file__", None), str) and not _installed(module.__file__))
    if outside:
        return f"a preload imported modules from outside the installation: {', '.join(outside[:5])}"
    return ""


def _warm_up():
    """Run the warm-up of each preloaded package of :data:`_WARM_UPS` (one that fails is left)."""
    for name, code in _WARM_UPS.items():
        if name in _sys.modules:
            try:
                exec(compile(code, f"<warm-up of {name}>", "exec"), {})
            except Exception:
                pass


def _threads():
    try:
        return len(_os.listdir("/proc/self/task"))
    except OSError:
        import threading
        return threading.active_count()


def _kill_children():
    for pid, pidfd in list(_CHILDREN.items()):
        try:
            if pidfd is not None:
                _signal.pidfd_send_signal(pidfd, _signal.SIGKILL)
            else:
                _os.kill(pid, _signal.SIGKILL)
        except OSError:
            pass


def _reap(signum, frame):
    """Wait for the kernels that ended (their CPU time then counts in the build's)."""
    while True:
        try:
            pid, _status = _os.waitpid(-1, _os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _end(signum=None, frame=None):
    why = f"signal {signum}" if signum else "the build is gone"
    print(f"the template ends ({why})", file=_sys.stderr, flush=True)
    _kill_children()
    _os._exit(0)


def _receive(connection, buffer):
    """One request line and the descriptors sent with it (None at the end of the connection)."""
    fds = []
    while b"\n" not in buffer:
        data, more, _flags, _address = _socket.recv_fds(connection, 1 << 20, 4)
        if not data:
            for fd in fds + more:
                _os.close(fd)
            return None, buffer, []
        buffer += data
        fds += more
    line, _, rest = buffer.partition(b"\n")
    return _json.loads(line), rest, fds


def _child(request, fds, closing):
    """In the forked child: become the page's kernel (never returns)."""
    code = 1
    try:
        _os.setsid()
        for signum in (_signal.SIGCHLD, _signal.SIGTERM):
            _signal.signal(signum, _signal.SIG_DFL)
        _signal.signal(_signal.SIGINT, _signal.default_int_handler)
        for fd in closing:
            _os.close(fd)
        null = _os.open(_os.devnull, _os.O_RDONLY)
        for fd, target in ((null, 0), (fds[0], 1), (fds[1], 2)):
            if fd != target:
                _os.dup2(fd, target)
        for fd in {null, *fds} - {0, 1, 2}:
            _os.close(fd)
        _os.chdir(request["cwd"])
        _os.environ.clear()
        _os.environ.update(request["env"])
        _sys.argv = list(request["argv"])
        _sys.orig_argv = [_sys.executable, "-m", "ipykernel_launcher", *request["argv"][1:]]
        _sys.path[:] = _ORIGINAL_PATH
        code = _run_kernel(request)
    except SystemExit as end:
        code = end.code if isinstance(end.code, int) else 0
    except BaseException:
        import traceback
        traceback.print_exc()
    finally:
        try:
            import atexit
            atexit._run_exitfuncs()
            _sys.stdout.flush()
            _sys.stderr.flush()
        finally:
            _os._exit(code)


def _run_kernel(request):
    if "numpy.random" in _sys.modules:  # forked children would all share the template's draws
        _sys.modules["numpy.random"].seed()
    from ipykernel.kernelapp import IPKernelApp
    app = IPKernelApp.instance()
    app.parent_handle = 1  # no poller of its parent (the template): it watches the build's worker instead
    app.initialize(["-f", request["connection_file"]])
    worker = int(request["env"].get("JPY_PARENT_PID") or 0)
    if worker > 1:
        app.poller = _worker_watch(worker)
    app.start()
    return 0


def _worker_watch(pid):
    """A daemon thread that ends this kernel when the build's worker ``pid`` is gone."""
    import select
    import threading

    def watch():
        try:
            fd = _os.pidfd_open(pid)
            select.select([fd], [], [])
        except OSError:
            pass
        _os._exit(1)
    return threading.Thread(target=watch, name="worker-watch", daemon=True)


def _fork(request, fds, closing):
    pid = _os.fork()
    if pid == 0:
        _child(request, fds, closing)
    for fd in fds:
        _os.close(fd)
    try:
        _CHILDREN[pid] = _os.pidfd_open(pid)
    except (OSError, AttributeError):
        _CHILDREN[pid] = None
    return pid


def _forget_dead_children():
    import select
    for pid, pidfd in list(_CHILDREN.items()):
        if pidfd is not None and select.select([pidfd], [], [], 0)[0]:
            _os.close(pidfd)
            del _CHILDREN[pid]


def _serve(listener, error, record):
    import selectors
    selector = selectors.DefaultSelector()
    selector.register(0, selectors.EVENT_READ, "lifeline")
    selector.register(listener, selectors.EVENT_READ, "listener")
    buffers = {}
    while True:
        for key, _events in selector.select():
            if key.data == "lifeline":
                if not _os.read(0, 4096):
                    _end()
            elif key.data == "listener":
                connection, _address = listener.accept()
                buffers[connection] = b""
                selector.register(connection, selectors.EVENT_READ, "connection")
            else:
                connection = key.fileobj
                request, buffers[connection], fds = _receive(connection, buffers[connection])
                if request is None:
                    selector.unregister(connection)
                    del buffers[connection]
                    connection.close()
                    continue
                _forget_dead_children()
                if error:
                    for fd in fds:
                        _os.close(fd)
                    reply = {"error": error}
                else:
                    closing = [listener.fileno(), *[c.fileno() for c in buffers],
                               *[fd for fd in _CHILDREN.values() if fd is not None]]
                    reply = {"pid": _fork(request, fds, closing), "record": record}
                connection.sendall(_json.dumps(reply).encode() + b"\n")


def _main(address, preload):
    _signal.signal(_signal.SIGTERM, _end)
    _signal.signal(_signal.SIGCHLD, _reap)
    listener = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    listener.bind("\0" + address)
    listener.listen(64)
    _sys.addaudithook(_audit)
    undo = _watch_environment()
    try:
        error = _preload(preload.get("required", []), preload.get("optional", []))
        # Recorded as the imports are: a fresh kernel makes these reads at the page's first
        # compiled call (numba's first compile reads PYCHARM_HOSTED, for one).
        if not error:
            _warm_up()
    finally:
        _RECORDING[0] = False
        undo()
    if not error and _threads() > 1:
        error = f"{_threads() - 1} thread(s) run in the template after its imports (forking would copy them dead)"
    import gc
    gc.freeze()  # the preloaded objects stay out of the children's collections: fewer pages copied
    record = {"env": _ENV_READS, "files": _FILE_READS,
              "modules": sorted(n for n in _sys.modules if "." not in n)}
    _serve(listener, error, record)


if __name__ == "__main__":
    _main(_sys.argv[1], _json.loads(_sys.argv[2]))
