"""The two products stay apart: the engine imports nothing of faircode, and back."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def imported_top_level_names(package: str) -> set[str]:
    names = set()
    for path in (ROOT / package).rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names.add(node.module.split(".")[0])
    return names


def test_engine_imports_nothing_of_faircode():
    assert "faircode" not in imported_top_level_names("sitebuild")


def test_faircode_imports_nothing_of_the_engine():
    assert "sitebuild" not in imported_top_level_names("faircode")


def test_site_parser_renders_tables_and_anchors():
    from sitebuild.source.markdown import make_parser

    html = make_parser().render("# Title\n\n| a | b |\n|---|---|\n| 1 | 2 |\n")
    assert '<h1 id="title">' in html
    assert "<table>" in html and "<td>1</td>" in html
