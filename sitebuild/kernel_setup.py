"""Code sent to each page's kernel as its first cell (never imported by the engine).

It records every file opened for reading (``sys.addaudithook`` "open" events), runs each
block compiled under the .md file's name and lines (so tracebacks point at the Markdown),
and reports what the page read and imported, and its inline values, as JSON outputs."""

import ast as _sb_ast
import os as _sb_os
import sys as _sb_sys
import traceback as _sb_traceback

_SB_ROOT = _sb_os.getcwd()
_SB_READS = set()
_SB_ERROR_MIME = "application/vnd.sitebuild.error+json"
_SB_DEPS_MIME = "application/vnd.sitebuild.deps+json"
if _SB_ROOT not in _sb_sys.path:
    _sb_sys.path.insert(0, _SB_ROOT)


def _sb_audit(event, args):
    if event != "open" or not args:
        return
    path, mode = args[0], args[1] if len(args) > 1 else None
    if isinstance(path, int):
        return
    if mode is None or (isinstance(mode, str) and ("r" in mode or "+" in mode)):
        try:
            _SB_READS.add(_sb_os.fsdecode(path))
        except Exception:
            pass


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
            holds = bool(eval(compile(tree, filename, "eval"), namespace))
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


def _sb_finish(items, claims=()):
    """Report the files read and the modules imported (under the root), and inline values."""
    root = _SB_ROOT + _sb_os.sep
    files, packages = set(), {}
    for path in list(_SB_READS):
        full = _sb_os.path.abspath(path)
        if full.startswith(root) and "__pycache__" not in full and _sb_os.path.isfile(full):
            files.add(_sb_os.path.relpath(full, _SB_ROOT))
    for name, module in list(_sb_sys.modules.items()):
        file = getattr(module, "__file__", None)
        if not file:
            continue
        full = _sb_os.path.abspath(file)
        if full.startswith(root):
            if full.endswith(".py"):
                files.add(_sb_os.path.relpath(full, _SB_ROOT))
        elif "." not in name and ("site-packages" in full or "dist-packages" in full):
            packages[name] = full
    _sb_publish(_SB_DEPS_MIME, {"files": sorted(files), "packages": packages,
                                "python": _sb_sys.version, "inline": _sb_inline(items),
                                "claims": _sb_claims(claims)})
