"""Code sent to each page's kernel as its first cell (never imported by the engine).

It records what the page depends on as it happens (``sys.addaudithook`` events and a
watch on ``os.environ``): every file opened for reading and every module imported from
outside the interpreter's installation, the folders listed (with the names found), the
environment variables read, and what it cannot follow (subprocesses, libraries that read
files natively). It runs each block compiled under the .md file's name and lines (so
tracebacks point at the Markdown), and reports the record and the inline values as JSON.

A file's state is taken when it is first opened (size, times, inode); one changed too
recently for its times to be trusted is hashed at once. At the end, a file whose state
moved while the page ran is reported as changed, so its result is never trusted."""

import ast as _sb_ast
import hashlib as _sb_hashlib
import os as _sb_os
import sys as _sb_sys
import threading as _sb_threading
import time as _sb_time
import traceback as _sb_traceback

_SB_ROOT = _sb_os.getcwd()
_SB_ERROR_MIME = "application/vnd.sitebuild.error+json"
_SB_DEPS_MIME = "application/vnd.sitebuild.execution.deps+json"
_SB_RACY_NS = 2_000_000_000
_SB_PSEUDO = ("/proc/", "/sys/", "/dev/")
_SB_NATIVE_READERS = ("pyarrow.parquet", "pyarrow.dataset", "pyarrow.feather", "pyarrow.csv", "pyarrow.orc",
                      "pyarrow.json", "h5py", "h5netcdf", "duckdb", "polars", "netCDF4", "tables", "fastparquet",
                      "lmdb", "zarr", "pyreadstat")
_SB_SPAWN_EVENTS = ("subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn")
_SB_FILES = {}      # path -> [stat at first read or None (absent), sha256 taken then or None]
_SB_MADE = set()    # files the page created or truncated itself: its outputs, not inputs
_SB_LISTINGS = {}   # folder -> sha256 of the sorted names it held when first listed
_SB_ENV = {}        # name -> value at first read (None: not set)
_SB_ENV_SET = set() # names the page set itself
_SB_SPAWNED = set()
_SB_QUIET = set()   # threads inside the recorder itself
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
    real = _sb_os.path.realpath(full)
    if (real.startswith(_SB_PSEUDO) or real.startswith(_SB_INSTALLATION)
            or "/site-packages/" in real or "/dist-packages/" in real):
        return None
    return full


_SB_REAL_STAT = _sb_os.stat  # the recorder's own look-ups, never recorded (os.stat is watched below)
_SB_CALLERS = {}     # code file -> whether its stats are the page's (not the installation's)
_SB_PATH_MODULES = ("/genericpath.py", "/posixpath.py", "/pathlib.py", "/os.py",
                    "<frozen genericpath>", "<frozen posixpath>", "<frozen os>")


def _sb_stat(path):
    st = _SB_REAL_STAT(path)
    return [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev, st.st_mode]


def _sb_sha256(path):
    digest = _sb_hashlib.sha256()
    with open(path, "rb") as stream:
        for chunk in iter(lambda: stream.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _sb_note_file(path, creates=False):
    key = _sb_key(path)
    if key is None or key in _SB_FILES or key in _SB_MADE:
        return
    try:
        stat = _sb_stat(path)
    except OSError:
        (_SB_MADE.add(key) if creates else _SB_FILES.setdefault(key, [None, None]))
        return
    if stat[5] & 0o170000 != 0o100000:  # not a regular file
        return
    digest = None
    if _sb_time.time_ns() - max(stat[1], stat[2]) < _SB_RACY_NS:  # its times cannot tell a new edit apart
        try:
            digest = _sb_sha256(path)
        except OSError:
            pass
    _SB_FILES[key] = [stat, digest]


def _sb_note_listing(path):
    key = _sb_key(path if path not in (None, "") else ".")
    if key is None or key in _SB_LISTINGS:
        return
    try:
        names = sorted(_sb_os.listdir(path if path not in (None, "") else "."))
    except OSError:
        names = None
    _SB_LISTINGS[key] = _sb_hashlib.sha256(repr(names).encode()).hexdigest()


def _sb_open_event(args):
    path, mode = args[0], args[1] if len(args) > 1 else None
    flags = args[2] if len(args) > 2 and isinstance(args[2], int) else 0
    if isinstance(path, int):
        return
    if isinstance(mode, str):
        reads, creates = ("r" in mode or "+" in mode), any(c in mode for c in "wxa")
        truncates = "w" in mode or "x" in mode
    else:
        access = flags & _sb_os.O_ACCMODE
        reads, creates = access != _sb_os.O_WRONLY, bool(flags & _sb_os.O_CREAT)
        truncates = bool(flags & (_sb_os.O_TRUNC | _sb_os.O_EXCL))
    if truncates:
        key = _sb_key(path)
        if key is not None and (key not in _SB_FILES or _SB_FILES[key][0] is None):
            _SB_FILES.pop(key, None)  # looked for, then made by the page: an output
            _SB_MADE.add(key)
    elif reads:
        _sb_note_file(path, creates)


def _sb_audit(event, args):
    thread = _sb_threading.get_ident()
    if thread in _SB_QUIET:
        return
    _SB_QUIET.add(thread)
    try:
        if event == "open" and args:
            _sb_open_event(args)
        elif event in ("os.listdir", "os.scandir"):
            if not _sb_by_importer(_sb_sys._getframe(1)) and not isinstance(args[0] if args else None, int):
                _sb_note_listing(args[0] if args else None)
        elif event == "sqlite3.connect" and args and isinstance(args[0], (str, bytes, _sb_os.PathLike)):
            if _sb_os.fsdecode(args[0]) not in (":memory:", "") and not str(args[0]).startswith("file:"):
                _sb_note_file(args[0])
        elif event in _SB_SPAWN_EVENTS:
            _SB_SPAWNED.add(_sb_command_name(event, args))
    except Exception:
        pass
    finally:
        _SB_QUIET.discard(thread)


def _sb_by_importer(frame):
    """True when a folder is listed by the import system or package metadata (which
    scan every folder on sys.path), not by the page."""
    name = frame.f_code.co_filename
    return (name.startswith("<frozen") or "/importlib/" in name or "importlib_metadata" in name
            or name.endswith(("pkgutil.py", "zipimport.py")))


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


def _sb_watch_environment():
    """Record each ``os.environ`` read (``[]``, get, getenv, ``in``, setdefault) by name and value."""
    environ_type = type(_sb_os.environ)
    read, write, delete = environ_type.__getitem__, environ_type.__setitem__, environ_type.__delitem__

    def getitem(self, key):
        try:
            value = read(self, key)
        except KeyError:
            if self is _sb_os.environ and key not in _SB_ENV_SET and _sb_threading.get_ident() not in _SB_QUIET:
                _SB_ENV.setdefault(key, None)
            raise
        if self is _sb_os.environ and key not in _SB_ENV_SET and _sb_threading.get_ident() not in _SB_QUIET:
            _SB_ENV.setdefault(key, value)
        return value

    def setitem(self, key, value):
        if self is _sb_os.environ and key not in _SB_ENV:
            _SB_ENV_SET.add(key)
        write(self, key, value)

    def delitem(self, key):
        if self is _sb_os.environ and key not in _SB_ENV:
            _SB_ENV_SET.add(key)
        delete(self, key)

    environ_type.__getitem__, environ_type.__setitem__, environ_type.__delitem__ = getitem, setitem, delitem


def _sb_asked_by_page(frame):
    """True when a stat comes from the page or from code outside the installation (the
    repository's modules), past the path helpers (os.path.exists, Path.is_file ...)."""
    while frame is not None and frame.f_code.co_filename.endswith(_SB_PATH_MODULES):
        frame = frame.f_back
    if frame is None:
        return False
    name = frame.f_code.co_filename
    verdict = _SB_CALLERS.get(name)
    if verdict is None:  # resolved once per code file: stats are frequent, realpath is not free
        verdict = _SB_CALLERS[name] = not (
            name.startswith("<frozen") or _sb_os.path.realpath(name).startswith(_SB_INSTALLATION)
            or "/site-packages/" in name or "/dist-packages/" in name)
    return verdict


def _sb_watch_stat():
    """Record the files the page asks about (os.stat, os.lstat, and so os.path.exists,
    isfile, getsize and pathlib's checks): a file it found missing joins the key as
    absent, so its appearing re-runs the page; a file it found joins it like a read."""
    def watched(real):
        def checked(path, *args, **kwargs):
            thread = _sb_threading.get_ident()
            if thread not in _SB_QUIET and not isinstance(path, int):
                _SB_QUIET.add(thread)
                try:
                    if _sb_asked_by_page(_sb_sys._getframe(1)):
                        _sb_note_file(path)
                except Exception:
                    pass
                finally:
                    _SB_QUIET.discard(thread)
            return real(path, *args, **kwargs)
        checked.__name__, checked.__doc__ = real.__name__, real.__doc__
        return checked
    _sb_os.stat, _sb_os.lstat = watched(_sb_os.stat), watched(_sb_os.lstat)


_sb_watch_environment()
_sb_watch_stat()
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
        try:
            tree = _sb_ast.parse(expr.strip(), filename, mode="eval")
            value = eval(compile(tree, filename, "eval"), namespace)
            if not (isinstance(value, bool) or type(value).__name__ == "bool_"):
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
    """What the recorder could not follow: programs started and native file readers."""
    readers = sorted(name for name in _SB_NATIVE_READERS if name in _sb_sys.modules)
    return {"subprocesses": sorted(_SB_SPAWNED), "native_readers": readers}


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


def _sb_finish(items, claims=()):
    """Report what the page depended on (files, folders listed, environment, packages,
    what was not traced), its inline values and its checked claims."""
    thread = _sb_threading.get_ident()
    inline = _sb_inline(items)
    claim_values = _sb_claims(claims)
    _SB_QUIET.add(thread)
    try:
        packages = _sb_modules()
        report = {"files": _sb_file_report(), "listings": dict(_SB_LISTINGS), "env": dict(_SB_ENV),
                  "packages": packages, "untraced": _sb_untraced()}
    finally:
        _SB_QUIET.discard(thread)
    _sb_publish(_SB_DEPS_MIME, {"deps": report, "python": _sb_sys.version, "inline": inline,
                                "claims": claim_values})
