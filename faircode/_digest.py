"""Digests of what a work unit's output depends on: faircode's own code and an audit's files.

Light on purpose (hashlib and ast only), so that checking the committed results against
their inputs takes a fraction of a second.
"""

from __future__ import annotations

import ast
import hashlib
from functools import lru_cache
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
#: The module whose static import closure produces a unit's predictions (the fits).
FIT_ENTRY = "_fit"
#: The module whose static import closure produces a unit's tables (fits and statistics).
UNIT_ENTRY = "_unit"


def bytes_digest(data: bytes) -> str:
    """sha256 of some bytes, as hex."""
    return hashlib.sha256(data).hexdigest()


def file_digest(path: Path) -> str:
    """sha256 of a file's bytes."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def combined_digest(*parts: str) -> str:
    """sha256 over text parts, separated so that ("ab", "c") and ("a", "bc") differ."""
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()


def code_digest(entry: str = UNIT_ENTRY) -> str:
    """sha256 over the source of the faircode modules that ``faircode.<entry>`` runs.

    The modules are the static import closure of the entry module (imports inside functions
    included), so an edit to any module a unit runs changes the digest and an edit to any
    other module (the harness and its progress messages, the command line) does not.
    """
    digest = hashlib.sha256()
    for path in sorted(module_closure(entry)):
        digest.update(path.name.encode() + b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()


@lru_cache(maxsize=4)
def process_code_digest(entry: str = UNIT_ENTRY) -> str:
    """:func:`code_digest` as of its first call in this process (a worker's installed code)."""
    return code_digest(entry)


def module_closure(entry: str) -> set[Path]:
    """The files of ``faircode.<entry>`` and of every faircode module it imports, transitively."""
    seen: set[Path] = set()
    todo = [PACKAGE_DIR / f"{entry}.py"]
    while todo:
        path = todo.pop()
        if path in seen or not path.is_file():
            continue
        seen.add(path)
        todo.extend(PACKAGE_DIR / f"{name}.py" for name in _faircode_imports(path))
    return seen


def _faircode_imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("faircode."):
            names.add(node.module.split(".")[1])
        elif isinstance(node, ast.ImportFrom) and node.module == "faircode":
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.Import):
            names.update(a.name.split(".")[1] for a in node.names if a.name.startswith("faircode."))
    return names
