"""The house rules, computed from the code by bench/import_graph.py: the engine's import
arrows point down the pipeline, faircode and sitebuild never import each other, and
neither package has an import cycle."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

GRAPH_SCRIPT = Path(__file__).resolve().parents[1] / "bench" / "import_graph.py"


def _load_graph_module():
    spec = importlib.util.spec_from_file_location("import_graph", GRAPH_SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


import_graph = _load_graph_module()


def test_no_arrow_points_up_the_pipeline():
    edges = import_graph.graph("sitebuild")
    assert len(edges) > 40, "the graph sees the engine's modules"
    assert sum(len(targets) for targets in edges.values()) > 100, "and their imports"
    assert import_graph.upward_arrows(edges) == []


def test_faircode_and_sitebuild_never_import_each_other():
    assert import_graph.cross_imports() == []


@pytest.mark.parametrize("package", ["sitebuild", "faircode"])
def test_no_import_cycles(package):
    assert import_graph.cycles(import_graph.graph(package)) == []


def test_the_checks_see_what_they_guard():
    edges = {"sitebuild.store.files": {"sitebuild.render.render"}, "sitebuild.render.render": {"sitebuild.store.files"},
             "sitebuild.config": set()}
    assert import_graph.upward_arrows(edges) == [("sitebuild.store.files", "sitebuild.render.render")]
    assert import_graph.cycles(edges) == [["sitebuild.render.render", "sitebuild.store.files"]]
    assert import_graph.cycles({"a": {"a"}, "b": set()}) == [["a"]]
