#!/usr/bin/env python3
"""The engine's import graph, computed from the code with ``ast``.

Prints, for the ``sitebuild`` package: modules per subpackage, the import arrows between
modules, and the arrows that point up against the pipeline order (a module importing
from a stage later than its own). ``tests/test_architecture.py`` asserts that there are
none, that ``faircode`` and ``sitebuild`` never import each other, and that neither
package has an import cycle (:func:`cycles`).

    python bench/import_graph.py            # the table
    python bench/import_graph.py --arrows   # every arrow, one a line
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# The stages in pipeline order, lowest first: a module may import from its own stage or
# from any stage listed before it. Top-level modules (config, errors) are the floor.
STAGES = ("", "store", "source", "execution", "checks", "quotes", "render", "output", "commands")


def module_name(path: Path, root: Path = ROOT) -> str:
    """The dotted name of a module file under ``root``."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_names(path: Path, root: Path = ROOT) -> set[str]:
    """The absolute dotted names a module imports (relative imports resolved)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    here = module_name(path, root).split(".")
    package = here if path.name == "__init__.py" else here[:-1]
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            stem = ".".join([*base, node.module] if node.module else base)
            names.add(stem)
            names.update(f"{stem}.{alias.name}" for alias in node.names)
    return names


def graph(package: str = "sitebuild", root: Path = ROOT) -> dict[str, set[str]]:
    """Each module of ``package`` -> the modules of the same package it imports."""
    files = sorted((root / package).rglob("*.py"))
    modules = {module_name(path, root): path for path in files}
    edges: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets = {imported for imported in imported_names(path, root) if imported in modules}
        edges[name] = {target for target in targets if target != name and not _is_package_of(target, name)}
    return edges


def _is_package_of(target: str, name: str) -> bool:
    return name.startswith(target + ".") and target.count(".") < name.count(".")


def stage_of(module: str) -> str:
    """The stage a module belongs to: its subpackage under sitebuild, or '' at the top."""
    parts = module.split(".")
    return parts[1] if len(parts) > 2 or (len(parts) == 2 and parts[1] in STAGES) else ""


def stage_rank(module: str) -> int:
    stage = stage_of(module)
    return STAGES.index(stage) if stage in STAGES else len(STAGES)


def upward_arrows(edges: dict[str, set[str]]) -> list[tuple[str, str]]:
    """Arrows from a module to a module of a later stage."""
    return sorted((source, target) for source, targets in edges.items() for target in targets
                  if stage_rank(target) > stage_rank(source))


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The import cycles of ``edges``: each group of modules that reach one another
    (a strongly connected component of more than one module, or one importing itself),
    sorted; empty when the graph has none."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(module: str) -> None:  # Tarjan's algorithm
        index[module] = low[module] = len(index)
        stack.append(module)
        for target in sorted(edges.get(module, ())):
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == module:
                    break
            if len(group) > 1 or module in edges.get(module, ()):
                found.append(sorted(group))

    for module in sorted(edges):
        if module not in index:
            visit(module)
    return sorted(found)


def cross_imports(root: Path = ROOT) -> list[tuple[str, str]]:
    """Imports between faircode and sitebuild, in either direction (there must be none)."""
    found = []
    for package, other in (("faircode", "sitebuild"), ("sitebuild", "faircode")):
        for path in sorted((root / package).rglob("*.py")):
            hits = {name for name in imported_names(path, root) if name.split(".")[0] == other}
            found.extend((module_name(path, root), hit) for hit in sorted(hits))
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arrows", action="store_true", help="list every arrow")
    args = parser.parse_args(argv)
    edges = graph()
    per_stage = Counter(stage_of(module) or "(top)" for module in edges)
    print("| stage | modules |\n|---|---:|")
    for stage in sorted(per_stage, key=lambda s: STAGES.index(s) if s in STAGES else -1):
        print(f"| {stage} | {per_stage[stage]} |")
    arrows = sum(len(targets) for targets in edges.values())
    up = upward_arrows(edges)
    loops = cycles(edges)
    print(f"\nmodules: {len(edges)}, arrows: {arrows}, arrows pointing up: {len(up)}, "
          f"faircode/sitebuild cross imports: {len(cross_imports())}, cycles: {len(loops)}")
    for loop in loops:
        print(f"  cycle: {' <-> '.join(loop)}")
    for source, target in up:
        print(f"  up: {source} -> {target}")
    if args.arrows:
        for source in sorted(edges):
            for target in sorted(edges[source]):
                print(f"{source} -> {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
