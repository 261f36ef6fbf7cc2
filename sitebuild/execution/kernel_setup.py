"""Code sent to each page's kernel as its first cell (never imported by the engine).

It records what the page depends on as it happens (``sys.addaudithook`` events, watches
on ``os.stat``, ``os.access``, ``os.open`` and on the environment table): every file
opened for reading and every module imported from outside the interpreter's installation
(the source file, even when it was loaded from its byte code), the folders listed (with
the names found), the environment variables read, the files written, and what it cannot
follow (spawned processes, libraries that read files natively, ctypes). A forked child
(multiprocessing with fork, a bare ``os.fork``) keeps the recorder: it appends what it
records to a file the page inherited, merged when the page ends. It runs each block
compiled under the .md file's name and lines (so tracebacks point at the Markdown), and
reports the record and the inline values as JSON.

A file's state is taken when it is first opened (size, times, inode); one changed too
recently for its times to be trusted is hashed at once. At the end, a file whose state
moved while the page ran is reported as changed, so its result is never trusted."""

import ast as _sb_ast
import fcntl as _sb_fcntl
import hashlib as _sb_hashlib
import json as _sb_json
import os as _sb_os
import posix as _sb_posix
import sys as _sb_sys
import tempfile as _sb_tempfile
import threading as _sb_threading
import time as _sb_time
import traceback as _sb_traceback

_SB_ROOT = _sb_os.getcwd()
_SB_ERROR_MIME = "application/vnd.sitebuild.error+json"
_SB_DEPS_MIME = "application/vnd.sitebuild.execution.deps+json"
_SB_EVALUATING_MIME = "application/vnd.sitebuild.evaluating+json"
_SB_RACY_NS = 2_000_000_000
_SB_PSEUDO = ("/proc/", "/sys/", "/dev/")
_SB_NATIVE_READERS = ("pyarrow.parquet", "pyarrow.dataset", "pyarrow.feather", "pyarrow.csv", "pyarrow.orc",
                      "pyarrow.json", "h5py", "h5netcdf", "duckdb", "polars", "netCDF4", "tables", "fastparquet",
                      "lmdb", "zarr", "pyreadstat")
_SB_SPAWN_EVENTS = ("subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn")
# Variables the kernel machinery sets or that differ from one build to the next without
# the page's doing (ipykernel's TERM, PAGER..., jupyter_client's JPY_*, the shell's PWD):
# never recorded, so they neither re-run a page nor name a wrong reason.
_SB_MACHINERY_ENV = frozenset(("TERM", "PAGER", "GIT_PAGER", "CLICOLOR", "CLICOLOR_FORCE", "FORCE_COLOR",
                               "PYDEVD_USE_FRAME_EVAL", "PWD", "OLDPWD", "SHLVL", "_"))
_SB_MACHINERY_PREFIXES = ("JPY_",)
# Installed modules that walk the whole environment but use only the variables of one prefix:
# their walk reads those variables only. numba's config walks it at import for NUMBA_*; counted
# whole, every variable of the shell would re-run each page that reaches numba (through
# faircode's exact intervals). template_server.py holds the same table for the template's imports.
_SB_PREFIX_WALKERS = {"numba.core.config": "NUMBA_"}
# What the C library reads without os.environ (time zone, locale): in every page's record.
_SB_LOCALE_ENV = ("TZ", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_NUMERIC", "LC_TIME", "LC_COLLATE",
                  "LC_MONETARY", "LC_MESSAGES", "LC_PAPER", "LC_NAME", "LC_ADDRESS", "LC_TELEPHONE",
                  "LC_MEASUREMENT", "LC_IDENTIFICATION")
_SB_FILES = {}      # path -> [stat at first read or None (absent), sha256 taken then or None]
_SB_MADE = set()    # files the page created or truncated itself: its outputs, not inputs
_SB_WRITES = set()  # every file the page wrote, created, replaced or removed
_SB_LISTINGS = {}   # folder -> sha256 of the sorted names it held when first listed
_SB_ENV = {}        # name -> value at first read (None: not set)
_SB_ENV_SET = set() # names the page set itself
_SB_SPAWNED = set()
_SB_CTYPES = set()  # C functions the page looked up through ctypes
_SB_QUIET = set()   # threads inside the recorder itself
_SB_FORKED = []     # [True] in a forked child: records go to the children's log too
_SB_CHILDREN_LOG = _sb_tempfile.TemporaryFile()  # unnamed; the page's forked children append to it
_sb_fcntl.fcntl(_SB_CHILDREN_LOG.fileno(), _sb_fcntl.F_SETFL,
                _sb_fcntl.fcntl(_SB_CHILDREN_LOG.fileno(), _sb_fcntl.F_GETFL) | _sb_os.O_APPEND)
if _SB_ROOT not in _sb_sys.path:
    _sb_sys.path.insert(0, _SB_ROOT)


def _sb_installation():
    import site
    places = {_sb_sys.prefix, _sb_sys.base_prefix, _sb_sys.exec_prefix, _sb_sys.base_exec_prefix}
    try:
        places.update(site.getsitepackages() + [site.getusersitepackages()])
    except Exception:
        pass
    return tuple(_sb_os.path.join(_sb_os.path.realpath(p), "") for p in places if p)


_SB_INSTALLATION = _sb_installation()


def _sb_key(path):
    """The record's name of ``path`` (relative inside the root, absolute elsewhere), or
    None for what is not a dependency (the installation, pseudo-files, byte code)."""
    full = _sb_os.path.abspath(_sb_os.fsdecode(path))
    if "__pycache__" in full:
        return None
    if full == _SB_ROOT:
        return "."
    if full.startswith(_SB_ROOT + _sb_os.sep):
        return _sb_os.path.relpath(full, _SB_ROOT)
    if full.startswith(_SB_INSTALLATION):  # most imports: no need to resolve links
        return None
    real = _sb_os.path.realpath(full)
    if (real.startswith(_SB_PSEUDO) or real.startswith(_SB_INSTALLATION)
            or "/site-packages/" in real or "/dist-packages/" in real):
        return None
    return full


def _sb_at(path, dir_fd):
    """``path`` as a full name when it is relative to the folder open as ``dir_fd``."""
    text = _sb_os.fsdecode(path)
    if not isinstance(dir_fd, int) or dir_fd < 0 or _sb_os.path.isabs(text):
        return text
    return _sb_os.path.join(_sb_os.readlink(f"/proc/self/fd/{dir_fd}"), text)


def _sb_fd_path(fd):
    """The folder or file open as ``fd`` (None when it cannot be told)."""
    try:
        name = _sb_os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return None
    return name if name.startswith("/") else None


def _sb_keep(kind, key, value=None):
    """Keep one record (the first of each name wins); in a forked child, also append it
    to the children's log, which the page merges when it ends."""
    if kind == "file":
        if key in _SB_FILES or key in _SB_MADE:
            return
        _SB_FILES[key] = value
    elif kind == "made":
        if key in _SB_FILES and _SB_FILES[key][0] is not None:
            return  # read first, then rewritten: an input that moved (the page is not trusted)
        _SB_FILES.pop(key, None)  # looked for, then made by the page: an output
        _SB_MADE.add(key)
    elif kind in ("listing", "env"):
        table = _SB_LISTINGS if kind == "listing" else _SB_ENV
        if key in table:
            return
        table[key] = value
    else:
        {"write": _SB_WRITES, "spawn": _SB_SPAWNED, "ctypes": _SB_CTYPES}[kind].add(key)
    if _SB_FORKED:
        try:
            _sb_os.write(_SB_CHILDREN_LOG.fileno(), (_sb_json.dumps([kind, key, value]) + "\n").encode())
        except (OSError, TypeError, ValueError):
            pass


def _sb_forked():
    """In a forked child: from now on, every record also goes to the children's log."""
    _SB_FORKED[:] = [True]
    _SB_QUIET.clear()  # the other threads of the parent do not exist here


def _sb_merge_children():
    """Take in what the page's forked children recorded."""
    try:
        size = _sb_os.fstat(_SB_CHILDREN_LOG.fileno()).st_size
        lines = _sb_os.pread(_SB_CHILDREN_LOG.fileno(), size, 0).decode().splitlines()
    except OSError:
        return
    for line in lines:
        try:
            kind, key, value = _sb_json.loads(line)
        except ValueError:
            continue  # a child killed while writing its last line
        _sb_keep(kind, key, value)


_SB_REAL_STAT = _sb_os.stat  # the recorder's own look-ups, never recorded (os.stat is watched below)
_SB_REAL_OPEN = _sb_os.open
_SB_CALLERS = {}     # code file -> whether its calls are the page's (not the installation's)
_SB_PATH_MODULES = ("/genericpath.py", "/posixpath.py", "/pathlib.py", "/os.py",
                    "<frozen genericpath>", "<frozen posixpath>", "<frozen os>")


def _sb_stat(path):
    st = _SB_REAL_STAT(path)
    return [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev, st.st_mode]


def _sb_sha256(path):
    with open(path, "rb") as stream:
        return _sb_hashlib.file_digest(stream, "sha256").hexdigest()


def _sb_note_file(path, creates=False):
    key = _sb_key(path)
    if key is None or key in _SB_FILES or key in _SB_MADE:
        return
    try:
        stat = _sb_stat(path)
    except OSError:
        _sb_keep("made", key) if creates else _sb_keep("file", key, [None, None])
        return
    if stat[5] & 0o170000 != 0o100000:  # not a regular file
        return
    digest = None
    if _sb_time.time_ns() - max(stat[1], stat[2]) < _SB_RACY_NS:  # its times cannot tell a new edit apart
        try:
            digest = _sb_sha256(path)
        except OSError:
            pass
    _sb_keep("file", key, [stat, digest])


def _sb_note_write(path, replaces=False):
    """A file the page writes: in ``writes``; one it replaces whole is its output."""
    key = _sb_key(path)
    if key is None:
        return
    _sb_keep("write", key)
    if replaces:
        _sb_keep("made", key)


def _sb_note_listing(path):
    key = _sb_key(path if path not in (None, "") else ".")
    if key is None or key in _SB_LISTINGS:
        return
    try:
        names = sorted(_sb_os.listdir(path if path not in (None, "") else "."))
    except OSError:
        names = None
    _sb_keep("listing", key, _sb_hashlib.sha256(repr(names).encode()).hexdigest())


def _sb_source_of(cached):
    """The source file of a byte-code file in ``__pycache__`` (None for any other file)."""
    text = _sb_os.fsdecode(cached)
    folder, name = _sb_os.path.split(text)
    if not name.endswith(".pyc") or _sb_os.path.basename(folder) != "__pycache__":
        return None
    return _sb_os.path.join(_sb_os.path.dirname(folder), name.split(".", 1)[0] + ".py")


def _sb_open_event(args):
    path, mode = args[0], args[1] if len(args) > 1 else None
    flags = args[2] if len(args) > 2 and isinstance(args[2], int) else 0
    if isinstance(path, int):
        return
    if isinstance(mode, str):
        reads, creates = ("r" in mode or "+" in mode), any(c in mode for c in "wxa")
        writes, truncates = creates or "+" in mode, "w" in mode or "x" in mode
    else:
        access = flags & _sb_os.O_ACCMODE
        reads, creates, writes = access != _sb_os.O_WRONLY, bool(flags & _sb_os.O_CREAT), access != _sb_os.O_RDONLY
        truncates = bool(flags & (_sb_os.O_TRUNC | _sb_os.O_EXCL))
    if not writes:
        source = _sb_source_of(path)
        if source is not None:  # a module loaded from its byte code depends on its source
            _sb_note_file(source)
            return
    if writes:
        _sb_note_write(path, replaces=truncates)
    if reads and not truncates:
        _sb_note_file(path, creates)


def _sb_audit(event, args):
    thread = _sb_threading.get_ident()
    if thread in _SB_QUIET:
        return
    _SB_QUIET.add(thread)
    try:
        handler = _SB_HANDLERS.get(event)
        if handler is not None:
            handler(args)
        elif event in _SB_SPAWN_EVENTS:
            _sb_keep("spawn", _sb_command_name(event, args))
    except Exception:
        pass
    finally:
        _SB_QUIET.discard(thread)


def _sb_open_audit(args):
    if args and not _sb_by_linecache(_sb_sys._getframe(2)):
        _sb_open_event(args)


def _sb_listing_audit(args):
    path = args[0] if args else None
    if _sb_by_importer(_sb_sys._getframe(2)):
        return
    if isinstance(path, int):
        path = _sb_fd_path(path)
        if path is None:
            return
    _sb_note_listing(path)


def _sb_rename_audit(args):
    """os.rename and os.replace (source, target, source dir_fd, target dir_fd)."""
    _sb_note_write(_sb_at(args[0], args[2]))
    _sb_note_write(_sb_at(args[1], args[3]), replaces=True)


def _sb_link_audit(args):
    """os.link and os.symlink: the new name is written."""
    _sb_note_write(_sb_at(args[1], args[3] if len(args) > 3 else args[2]), replaces=True)


def _sb_remove_audit(args):
    if not isinstance(args[0], int):
        _sb_note_write(_sb_at(args[0], args[1] if len(args) > 1 else None))


def _sb_truncate_audit(args):
    path = _sb_fd_path(args[0]) if isinstance(args[0], int) else args[0]
    if path is not None:
        _sb_note_write(path)


def _sb_sqlite_path(name):
    """The file a sqlite database name opens (a path, or a ``file:`` URI), or None for an
    in-memory database."""
    from urllib.parse import unquote, urlsplit
    text = _sb_os.fsdecode(name)
    if text in (":memory:", ""):
        return None
    if not text.startswith("file:"):
        return text
    parts = urlsplit(text)
    if "mode=memory" in parts.query or parts.path in ("", ":memory:"):
        return None
    return unquote(parts.path)


def _sb_sqlite_connect_audit(args):
    if args and isinstance(args[0], (str, bytes, _sb_os.PathLike)):
        path = _sb_sqlite_path(args[0])
        if path is not None:
            _sb_note_file(path)


def _sb_sqlite_authorizer(action, name, *rest):
    """A connection's authorizer: the database file an ATTACH statement opens is read."""
    if action == 24 and name:  # SQLITE_ATTACH
        thread = _sb_threading.get_ident()
        if thread not in _SB_QUIET:
            _SB_QUIET.add(thread)
            try:
                path = _sb_sqlite_path(name)
                if path is not None:
                    _sb_note_file(path)
            except Exception:
                pass
            finally:
                _SB_QUIET.discard(thread)
    return 0  # SQLITE_OK


def _sb_watch_sqlite():
    """Give every sqlite3 connection the authorizer that records ATTACH DATABASE (the
    connection cannot be given it while it is being made, in its audit event)."""
    import sqlite3
    import sqlite3.dbapi2
    real = sqlite3.connect

    def connect(*args, **kwargs):
        connection = real(*args, **kwargs)
        try:
            connection.set_authorizer(_sb_sqlite_authorizer)
        except Exception:
            pass
        return connection
    connect.__doc__ = real.__doc__
    sqlite3.connect = sqlite3.dbapi2.connect = connect


def _sb_ctypes_audit(args):
    """A C function looked up through ctypes by the page (not by an installed library)."""
    frame = _sb_sys._getframe(2)
    while frame is not None and "/ctypes/" in frame.f_code.co_filename:
        frame = frame.f_back
    if frame is not None and _sb_is_page_code(frame.f_code.co_filename):
        name = args[1] if len(args) > 1 else args[0]
        _sb_keep("ctypes", _sb_os.fsdecode(name) if isinstance(name, bytes) else str(name))


_SB_HANDLERS = {"open": _sb_open_audit, "os.listdir": _sb_listing_audit, "os.scandir": _sb_listing_audit,
                "os.rename": _sb_rename_audit, "os.link": _sb_link_audit, "os.symlink": _sb_link_audit,
                "os.remove": _sb_remove_audit, "os.truncate": _sb_truncate_audit,
                "sqlite3.connect": _sb_sqlite_connect_audit, "ctypes.dlsym": _sb_ctypes_audit}


def _sb_by_importer(frame):
    """True when a folder is listed by the import system or package metadata (which
    scan every folder on sys.path), not by the page. ``pkgutil`` listings count when
    the page called it (``pkgutil.iter_modules``: a plugin added re-runs the page)."""
    name = frame.f_code.co_filename
    if name.endswith(("pkgutil.py", "functools.py")):
        while frame is not None and frame.f_code.co_filename.endswith(("pkgutil.py", "functools.py")):
            frame = frame.f_back
        return frame is None or not _sb_is_page_code(frame.f_code.co_filename)
    return name.startswith(("<frozen importlib", "<frozen zipimport")) or "/importlib/" in name \
        or "importlib_metadata" in name or name.endswith("zipimport.py")


def _sb_by_linecache(frame):
    """True when a file is opened to show source lines (tracebacks, warnings, inspect):
    the page's own .md is read that way, which is no dependency."""
    while frame is not None and frame.f_code.co_filename.endswith("tokenize.py"):
        frame = frame.f_back
    return frame is not None and frame.f_code.co_filename.endswith("linecache.py")


def _sb_command_name(event, args):
    """The program a spawn event starts, for the warning."""
    try:
        target = args[0] if event in ("os.system", "os.exec", "os.posix_spawn") else args[1]
        if event == "subprocess.Popen":
            target = args[0] or args[1]
        if isinstance(target, (list, tuple)):
            target = target[0]
        text = _sb_os.fsdecode(target) if not isinstance(target, str) else target
        return _sb_os.path.basename(text.split()[0]) if text.strip() else event
    except Exception:
        return event


def _sb_watch_spawns():
    """Record the processes started without subprocess (multiprocessing with spawn or
    forkserver, loky): they run a new interpreter, which the recorder cannot follow."""
    import _posixsubprocess
    real = _posixsubprocess.fork_exec

    def fork_exec(*args, **kwargs):
        thread = _sb_threading.get_ident()
        if thread not in _SB_QUIET and not _sb_sys._getframe(1).f_code.co_filename.endswith("subprocess.py"):
            _SB_QUIET.add(thread)
            try:
                _sb_keep("spawn", _sb_command_name("os.exec", (args[0][0],)))
            except Exception:
                pass
            finally:
                _SB_QUIET.discard(thread)
        return real(*args, **kwargs)
    _posixsubprocess.fork_exec = fork_exec


def _sb_machinery(name):
    return name in _SB_MACHINERY_ENV or name.startswith(_SB_MACHINERY_PREFIXES)


def _sb_env_read(key, value):
    """Record one variable read (``value`` None: not set), by its name as a string."""
    if _sb_threading.get_ident() in _SB_QUIET:
        return
    name = _sb_os.fsdecode(key) if isinstance(key, bytes) else key
    if isinstance(name, str) and name not in _SB_ENV_SET and name not in _SB_ENV and not _sb_machinery(name):
        _sb_keep("env", name, None if value is None else _sb_os.fsdecode(value))


def _sb_walker_prefix():
    """The prefix of the variables the module walking the environment uses, when it is one
    of :data:`_SB_PREFIX_WALKERS` (a few frames up); else None (the walk reads them all)."""
    frame = _sb_sys._getframe(2)
    for _ in range(8):
        if frame is None:
            return None
        prefix = _SB_PREFIX_WALKERS.get(frame.f_globals.get("__name__"))
        if prefix is not None:
            return prefix
        frame = frame.f_back
    return None


def _sb_env_set(key):
    name = _sb_os.fsdecode(key) if isinstance(key, bytes) else key
    if name not in _SB_ENV:
        _SB_ENV_SET.add(name)


class _SbEnviron(dict):
    """The process's table of environment variables (``posix.environ``, which
    ``os.environ`` and ``os.environb`` read and write through), recording each name read:
    by ``[]``, get, ``in``, and a walk over the whole table (which reads every variable)."""

    def __getitem__(self, key):
        try:
            value = dict.__getitem__(self, key)
        except KeyError:
            _sb_env_read(key, None)
            raise
        prefix = _sb_walker_prefix()  # a walk reads each variable by [] too
        if prefix is None or _sb_os.fsdecode(key).startswith(prefix):
            _sb_env_read(key, value)
        return value

    def get(self, key, default=None):
        return self[key] if dict.__contains__(self, key) else (_sb_env_read(key, None), default)[1]

    def __contains__(self, key):
        found = dict.__contains__(self, key)
        if found:
            self[key]
        else:
            _sb_env_read(key, None)
        return found

    def _read_all(self):
        prefix = _sb_walker_prefix()
        for key in dict.keys(self):
            if prefix is None or _sb_os.fsdecode(key).startswith(prefix):
                _sb_env_read(key, dict.__getitem__(self, key))

    def __iter__(self):
        self._read_all()
        return dict.__iter__(self)

    def keys(self):
        self._read_all()
        return dict.keys(self)

    def items(self):
        self._read_all()
        return dict.items(self)

    def values(self):
        self._read_all()
        return dict.values(self)

    def copy(self):
        self._read_all()
        return dict(dict.items(self))

    def __setitem__(self, key, value):
        _sb_env_set(key)
        dict.__setitem__(self, key, value)

    def __delitem__(self, key):
        _sb_env_set(key)
        dict.__delitem__(self, key)


def _sb_watch_environment():
    """Put the watched table under ``os.environ``, ``os.environb`` and ``posix.environ``."""
    table = _SbEnviron(_sb_posix.environ)
    _sb_posix.environ = table
    _sb_os.environ._data = table
    if hasattr(_sb_os, "environb"):
        _sb_os.environb._data = table


def _sb_locale():
    """The time zone and locale variables as the kernel was given them (read by the C
    library, never through os.environ): part of every page's record."""
    table = _sb_posix.environ
    names = set(_SB_LOCALE_ENV) | {_sb_os.fsdecode(k) for k in dict.keys(table) if k.startswith(b"LC_")}
    found = {}
    for name in sorted(names):
        value = dict.get(table, _sb_os.fsencode(name))
        found[name] = None if value is None else _sb_os.fsdecode(value)
    return found


def _sb_is_page_code(name):
    """True for code of the page or outside the installation (the repository's modules)."""
    verdict = _SB_CALLERS.get(name)
    if verdict is None:  # resolved once per code file: calls are frequent, realpath is not free
        verdict = _SB_CALLERS[name] = not (
            name.startswith("<frozen") or _sb_os.path.realpath(name).startswith(_SB_INSTALLATION)
            or "/site-packages/" in name or "/dist-packages/" in name)
    return verdict


def _sb_asked_by_page(frame):
    """True when a stat comes from the page or from code outside the installation (the
    repository's modules), past the path helpers (os.path.exists, Path.is_file ...)."""
    while frame is not None and frame.f_code.co_filename.endswith(_SB_PATH_MODULES):
        frame = frame.f_back
    return frame is not None and _sb_is_page_code(frame.f_code.co_filename)


def _sb_replace_os(name, function):
    """Put ``function`` in place of ``os.<name>``, also in the sets that say what it
    supports (``os.open in os.supports_dir_fd`` stays true: shutil.rmtree asks)."""
    real = getattr(_sb_os, name)
    for supports in (_sb_os.supports_dir_fd, _sb_os.supports_fd, _sb_os.supports_follow_symlinks,
                     _sb_os.supports_effective_ids):
        if real in supports:
            supports.add(function)
    setattr(_sb_os, name, function)


def _sb_watch_stat():
    """Record the files the page asks about (os.stat, os.lstat, os.access, and so
    os.path.exists, isfile, getsize and pathlib's checks): a file it found missing joins
    the key as absent, so its appearing re-runs the page; a file it found joins it like a read."""
    def watched(real):
        def checked(path, *args, dir_fd=None, **kwargs):
            thread = _sb_threading.get_ident()
            if thread not in _SB_QUIET and not isinstance(path, int):
                _SB_QUIET.add(thread)
                try:
                    if _sb_asked_by_page(_sb_sys._getframe(1)):
                        _sb_note_file(_sb_at(path, dir_fd))
                except Exception:
                    pass
                finally:
                    _SB_QUIET.discard(thread)
            return real(path, *args, dir_fd=dir_fd, **kwargs)
        checked.__name__, checked.__doc__ = real.__name__, real.__doc__
        return checked
    for name in ("stat", "lstat", "access"):
        _sb_replace_os(name, watched(getattr(_sb_os, name)))


def _sb_watch_dir_fd_open():
    """``os.open`` relative to a folder open as ``dir_fd`` (os.fwalk's way): its audit
    event names the file without its folder, so the full name is recorded here."""
    def open(path, flags, mode=0o777, *, dir_fd=None):
        thread = _sb_threading.get_ident()
        if dir_fd is None or thread in _SB_QUIET:
            return _SB_REAL_OPEN(path, flags, mode, dir_fd=dir_fd)
        _SB_QUIET.add(thread)
        try:
            try:
                _sb_open_event((_sb_at(path, dir_fd), None, flags))
            except Exception:
                pass
            return _SB_REAL_OPEN(path, flags, mode, dir_fd=dir_fd)
        finally:
            _SB_QUIET.discard(thread)
    open.__doc__ = _SB_REAL_OPEN.__doc__
    _sb_replace_os("open", open)


def _sb_startup_files():
    """Files every kernel runs as it starts (sitecustomize, usercustomize, IPython's
    startup files): part of every page's record, a missing sitecustomize.py in the root
    as absent (one added there runs in every kernel)."""
    for name in ("sitecustomize", "usercustomize"):
        file = getattr(_sb_sys.modules.get(name), "__file__", None)
        if isinstance(file, str):
            _sb_note_file(_sb_source_of(file) or file)
        elif name == "sitecustomize":
            _sb_note_file(_sb_os.path.join(_SB_ROOT, "sitecustomize.py"))
    try:
        from IPython import get_ipython
        folder = get_ipython().profile_dir.startup_dir
    except Exception:
        return
    _sb_note_listing(folder)
    try:
        names = sorted(_sb_os.listdir(folder))
    except OSError:
        return
    for name in names:
        _sb_note_file(_sb_os.path.join(folder, name))


_sb_watch_environment()
_sb_watch_stat()
_sb_watch_dir_fd_open()
_sb_watch_spawns()
_sb_watch_sqlite()
_sb_startup_files()
_SB_LOCALE = _sb_locale()
_sb_os.register_at_fork(after_in_child=_sb_forked)
_sb_sys.addaudithook(_sb_audit)


def _sb_publish(mime, data):
    from IPython.display import publish_display_data
    publish_display_data({mime: data, "text/plain": ""})


def _sb_error_report(error, filename, first_line, last_line):
    """The failing statement's line: the innermost frame inside the running block (else
    anywhere in the .md), so an error raised in a function defined earlier points at the call."""
    frames = _sb_traceback.extract_tb(error.__traceback__)
    md_frames = [f for f in frames if f.filename == filename]
    in_block = [f for f in md_frames if first_line <= (f.lineno or 0) <= last_line]
    chosen = in_block or md_frames
    line = chosen[-1].lineno if chosen else getattr(error, "lineno", None)
    first = next((i for i, f in enumerate(frames) if f.filename == filename), len(frames))
    text = "".join(_sb_traceback.format_list(frames[first:]))
    text = "Traceback (most recent call last):\n" + text if text else ""
    text += "".join(_sb_traceback.format_exception_only(type(error), error))
    return {"line": line, "ename": type(error).__name__, "evalue": str(error), "traceback": text}


def _sb_run(source, filename, first_line):
    """Run one block as if it stood at ``first_line`` of ``filename``; show its last expression."""
    from IPython import get_ipython
    from IPython.display import display
    namespace = get_ipython().user_ns
    padded = "\n" * (first_line - 1) + source
    try:
        tree = _sb_ast.parse(padded, filename)
        last = tree.body[-1] if tree.body and isinstance(tree.body[-1], _sb_ast.Expr) else None
        body = tree.body[:-1] if last is not None else tree.body
        exec(compile(_sb_ast.Module(body=body, type_ignores=[]), filename, "exec"), namespace)
        if last is not None:
            value = eval(compile(_sb_ast.Expression(last.value), filename, "eval"), namespace)
            if value is not None and not source.rstrip().endswith(";"):
                display(value)
    except Exception as error:
        last_line = first_line + max(source.count("\n"), 1) - 1
        _sb_publish(_SB_ERROR_MIME, _sb_error_report(error, filename, first_line, last_line))


def _sb_inline(items):
    from IPython import get_ipython
    namespace = get_ipython().user_ns
    values = []
    for expr, spec, filename, line in items:
        _sb_publish(_SB_EVALUATING_MIME, {"kind": "inline value", "expr": expr, "line": line})
        try:
            value = eval(compile(expr, filename, "eval"), namespace)
            values.append({"value": format(value, spec) if spec else str(value)})
        except Exception as error:
            values.append({"error": f"{type(error).__name__}: {error}", "line": line})
    return values


def _sb_brief(value):
    """A short repr of a value a claim read (numpy scalars as plain numbers)."""
    import reprlib
    item = getattr(value, "item", None)
    if callable(item) and getattr(value, "shape", None) == ():
        try:
            value = item()
        except Exception:
            pass
    if isinstance(value, float):
        return repr(value) if len(repr(value)) <= 12 else format(value, ".6g")
    brief = reprlib.Repr()
    brief.maxstring, brief.maxother, brief.maxlist, brief.maxdict = 60, 60, 6, 4
    return brief.repr(value)


def _sb_operands(tree):
    """The names, attributes and subscripts an expression reads, outermost first, each
    once; a function called and what it is called on are left out."""
    called = {id(node.func) for node in _sb_ast.walk(tree) if isinstance(node, _sb_ast.Call)}
    inner = set()
    for node in _sb_ast.walk(tree):
        if isinstance(node, (_sb_ast.Attribute, _sb_ast.Subscript)):
            inner.add(id(node.value))
    found = []
    for node in _sb_ast.walk(tree):
        if isinstance(node, (_sb_ast.Name, _sb_ast.Attribute, _sb_ast.Subscript)) and id(node) not in called \
                and id(node) not in inner:
            text = _sb_ast.unparse(node)
            if text not in found:
                found.append(text)
    return found


def _sb_claims(items):
    """Evaluate each claim's expression: whether it holds, and the values it read."""
    import types

    from IPython import get_ipython
    namespace = get_ipython().user_ns
    results = []
    for expr, filename, line in items:
        _sb_publish(_SB_EVALUATING_MIME, {"kind": "claim", "expr": expr, "line": line})
        try:
            tree = _sb_ast.parse(expr.strip(), filename, mode="eval")
            value = eval(compile(tree, filename, "eval"), namespace)
            numpy = _sb_sys.modules.get("numpy")
            if not (isinstance(value, bool) or (numpy is not None and isinstance(value, numpy.bool_))):
                raise TypeError(f"the expression gives {type(value).__name__} {_sb_brief(value)}, "
                                "expected True or False (bool or numpy.bool_)")
            holds = bool(value)
        except Exception as error:
            results.append({"holds": None, "values": [], "error": f"{type(error).__name__}: {error}", "line": line})
            continue
        values = []
        for operand in _sb_operands(tree):
            try:
                value = eval(operand, namespace)
            except Exception:
                continue
            if not isinstance(value, (types.ModuleType, types.FunctionType, types.BuiltinFunctionType, type)):
                values.append([operand, _sb_brief(value)])
        results.append({"holds": holds, "values": values, "error": ""})
    return results


def _sb_modules():
    """Files of the modules imported from outside the installation (a module loaded from
    its byte code never opens its source), folders of namespace packages, and the
    versions of the installed top-level packages."""
    packages = {}
    for name, module in list(_sb_sys.modules.items()):
        file = getattr(module, "__file__", None)
        if file is None:
            spec = getattr(module, "__spec__", None)
            for folder in list(getattr(spec, "submodule_search_locations", None) or []):
                _sb_note_listing(folder)
            continue
        if not isinstance(file, str) or not _sb_os.path.isabs(file):
            continue
        if _sb_key(file) is not None:
            _sb_note_file(file[:-1] if file.endswith(".pyc") else file)
        elif "." not in name and ("site-packages" in file or "dist-packages" in file):
            version = getattr(module, "__version__", None)
            packages[name] = {"path": file, "version": version if isinstance(version, str) else None}
    return packages


def _sb_untraced():
    """What the recorder could not follow: programs started, native file readers and C
    functions called through ctypes."""
    readers = sorted(name for name in _SB_NATIVE_READERS if name in _sb_sys.modules)
    return {"subprocesses": sorted(_SB_SPAWNED), "native_readers": readers, "ctypes": sorted(_SB_CTYPES)}


def _sb_file_report():
    """Each file's state as first read, and whether it moved before the end of the page."""
    files = {}
    for key, (stat, digest) in list(_SB_FILES.items()):
        path = _sb_os.path.join(_SB_ROOT, key)  # the page may have changed its working folder
        if stat is None:
            files[key] = {"stat": None, "sha256": None, "changed": _sb_os.path.exists(path)}
            continue
        try:
            now = _sb_stat(path)
        except OSError:
            now = None
        files[key] = {"stat": stat[:5], "sha256": digest, "changed": now != stat}
    return files


#: The sections of the report, one per recorder, in the order they are taken (the modules
#: first: a module's file joins the files read). A new kind of traced input adds its own
#: (and its record type in deps.py; see CONTRIBUTING.md).
_SB_SECTIONS = {
    "packages": lambda: _sb_modules(),
    "files": lambda: _sb_file_report(),
    "listings": lambda: dict(_SB_LISTINGS),
    "env": lambda: {**_SB_LOCALE, **_SB_ENV},
    "writes": lambda: sorted(_SB_WRITES),
    "untraced": lambda: _sb_untraced(),
}


def _sb_finish(items, claims=()):
    """Report what the page and its forked children depended on (one section per recorder,
    see _SB_SECTIONS) and wrote, its inline values and its checked claims."""
    thread = _sb_threading.get_ident()
    inline = _sb_inline(items)
    claim_values = _sb_claims(claims)
    _SB_QUIET.add(thread)
    try:
        _sb_merge_children()
        report = {name: section() for name, section in _SB_SECTIONS.items()}
    finally:
        _SB_QUIET.discard(thread)
    _sb_publish(_SB_DEPS_MIME, {"deps": report, "python": _sb_sys.version, "inline": inline,
                                "claims": claim_values})
