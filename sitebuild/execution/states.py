"""What the up-to-date check needs to know about executions, without the record types: the
digest of the engine code that shapes an execution, and each traced input's state line
taken again.

The record types (:mod:`sitebuild.execution.deps`) are made with msgspec, whose import
costs more than the whole check. So a record type's ``state_now`` may be any function
``(key, recorded, root, env) -> state``; the stamp keeps where each kind's function lives
(:func:`state_location`), and the check imports that module alone (:func:`state_function`).
The built-in kinds' functions live here, beside nothing heavier than the standard library.
A kind whose function lives elsewhere (a classmethod of its record type, say) still works:
the check imports its module, and a function it cannot find is looked up through the
record types."""

from __future__ import annotations

import hashlib
import importlib
from pathlib import Path
from typing import Any, Callable, Mapping

from sitebuild.store.files import listing_digest, package_stamp, path_state

PACKAGE_DIR = Path(__file__).resolve().parent
#: The engine's files that shape an execution: a change to any of them re-runs every page.
EXECUTION_CODE: tuple[Path, ...] = tuple(PACKAGE_DIR / name for name in (
    "kernel_setup.py", "kernel_figures.py", "extract.py", "execute.py", "executed.py", "kernels.py", "outputs.py",
    "html_tables.py", "template.py", "template_server.py"))

#: Takes one state line again: (key, its recorded state, root, environment) -> the state now.
StateNow = Callable[[str, Any, Path, Mapping[str, str]], Any]


def code_digest(paths: tuple[Path, ...] = ()) -> str:
    """sha256 over the contents of ``paths`` (default :data:`EXECUTION_CODE`)."""
    digest = hashlib.sha256()
    for path in paths or EXECUTION_CODE:
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


# -- The built-in kinds' state lines, taken again ------------------------------------------

def file_state_now(key: str, recorded: Any, root: Path, env: Mapping[str, str]) -> list[int] | None:
    """A file read or looked for: its state (None when absent)."""
    return path_state(root / key)


def listing_now(key: str, recorded: Any, root: Path, env: Mapping[str, str]) -> str:
    """A folder listed: the digest of its names."""
    return listing_digest(root / key)


def variable_now(key: str, recorded: Any, root: Path, env: Mapping[str, str]) -> str | None:
    """An environment variable read: its value in the kernels' environment (None when unset)."""
    return env.get(key)


def package_now(key: str, recorded: Any, root: Path, env: Mapping[str, str]) -> list | None:
    """A package imported: the state of the file it was imported from."""
    return package_stamp(recorded[0]) if recorded else None


def written_now(key: str, recorded: Any, root: Path, env: Mapping[str, str]) -> bool:
    """A file written: whether it is still there (only asked of one that was)."""
    return (root / key).is_file() if recorded else False


# -- Where a kind's function lives -----------------------------------------------------------

def state_location(function: Callable) -> str:
    """``module:qualified.name`` of ``function`` (a bound classmethod names its function)."""
    function = getattr(function, "__func__", function)
    return f"{function.__module__}:{function.__qualname__}"


_FOUND: dict[str, StateNow | None] = {}


def _resolve(location: str) -> StateNow | None:
    """The function at ``location`` (see :func:`state_location`), or None when it cannot be
    imported (a kind defined inside a function, a module since renamed)."""
    if location not in _FOUND:
        module, _, name = location.partition(":")
        found: Any = None
        if module and name and "<" not in name:
            try:
                found = importlib.import_module(module)
                for part in name.split("."):
                    found = getattr(found, part)
            except (ImportError, AttributeError):
                found = None
        _FOUND[location] = found if callable(found) else None
    return _FOUND[location]


def state_function(kind: str, locations: Mapping[str, str] | None) -> StateNow | None:
    """The function the stamp's ``locations`` name for ``kind``, or None when they name none
    or it cannot be found (then the kind's record type answers, see
    :func:`sitebuild.commands.uptodate.current_state`)."""
    location = (locations or {}).get(kind)
    return _resolve(location) if isinstance(location, str) else None
