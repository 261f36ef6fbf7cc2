"""What a page depends on is recorded inside its real kernel, and a change to any of it
re-runs the page, saying why: files and modules outside the repository, a file edited
while its page ran, a rewrite with the same size and mtime, a folder listing, an
environment variable, declared inputs (a parquet file), the engine's own code. What the
kernel cannot see (a subprocess, a native reader) is warned about."""

from __future__ import annotations

import os
import textwrap
import time
from pathlib import Path

import pytest
from site_helpers import site_config

import sitebuild.execution.states
from sitebuild.commands.build import run_build
from sitebuild.store.files import FINE_RACY_NS


def write_page(root: Path, slug: str, code: str, front: str = "", prose: str = "A tiny page.") -> Path:
    """Write ``explainers/<slug>.md`` with one Python block."""
    (root / "explainers").mkdir(parents=True, exist_ok=True)
    path = root / "explainers" / f"{slug}.md"
    path.write_text(f"---\ntitle: Page {slug}\nsummary: A page of the dependency tests.\n{front}---\n\n"
                    f"{prose}\n\n```python\n{textwrap.dedent(code).strip()}\n```\n", encoding="utf-8")
    return path


def build(root: Path, **options):
    time.sleep(FINE_RACY_NS / 1e9)  # let the files written just now vouch for themselves
    summary = run_build(site_config(root, **options))
    assert summary.ok, [str(p) for p in summary.problems]
    return summary


def row(summary, slug: str):
    return next(r for r in summary.rows if r.slug == slug)


def output(root: Path, slug: str) -> str:
    return (root / "site" / f"{slug}.html").read_text(encoding="utf-8")


def test_a_data_file_and_a_module_outside_the_repository(tmp_path):
    root, outside = tmp_path / "repo", tmp_path / "elsewhere"
    (outside / "extlib").mkdir(parents=True)
    (outside / "extlib" / "__init__.py").write_text("FACTOR = 2\n")
    (outside / "numbers.txt").write_text("21\n")
    write_page(root, "outside", f"""
        import sys
        sys.path.insert(0, {str(outside)!r})
        import extlib
        value = int(open({str(outside / 'numbers.txt')!r}).read())
        print("product", value * extlib.FACTOR)
    """)
    first = build(root)
    assert row(first, "outside").reason == "new page" and "product 42" in output(root, "outside")
    assert build(root).up_to_date
    (outside / "numbers.txt").write_text("22\n")
    second = build(root)
    assert row(second, "outside").status == "executed"
    assert row(second, "outside").reason == f"`{outside / 'numbers.txt'}` changed"
    assert "product 44" in output(root, "outside")
    (outside / "extlib" / "__init__.py").write_text("FACTOR = 3\n")
    third = build(root)
    assert row(third, "outside").reason == f"`{outside / 'extlib' / '__init__.py'}` changed"
    assert "product 66" in output(root, "outside")


def test_a_file_edited_while_its_page_runs_is_not_trusted(tmp_path):
    root = tmp_path / "repo"
    (root / "data").mkdir(parents=True)
    (root / "data" / "counter.txt").write_text("1")
    write_page(root, "edits", """
        path = "data/counter.txt"
        seen = int(open(path).read())
        print("seen", seen)
        with open(path, "w") as handle:  # the input changes after it was read
            handle.write(str(seen + 1))
    """)
    build(root)
    again = build(root)
    assert row(again, "edits").status == "executed"
    assert row(again, "edits").reason == "`data/counter.txt` changed while the page ran"
    assert "seen 2" in output(root, "edits")


def test_same_size_and_mtime_still_reruns(tmp_path):
    root = tmp_path / "repo"
    (root / "data").mkdir(parents=True)
    data = root / "data" / "value.txt"
    data.write_text("alpha")
    write_page(root, "samesize", 'print("value", open("data/value.txt").read())')
    build(root)
    before = data.stat()
    data.write_text("omega")  # same size; then the modification time is put back, like `cp -p`
    os.utime(data, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert data.stat().st_size == before.st_size and data.stat().st_mtime_ns == before.st_mtime_ns
    again = build(root)
    assert row(again, "samesize").reason == "`data/value.txt` changed"
    assert "value omega" in output(root, "samesize")


def test_a_new_file_in_a_listed_folder_reruns(tmp_path):
    root = tmp_path / "repo"
    (root / "inbox").mkdir(parents=True)
    (root / "inbox" / "a.txt").write_text("a")
    write_page(root, "lister", """
        import glob, os
        print("listed", sorted(os.listdir("inbox")), len(glob.glob("inbox/*.txt")))
    """)
    build(root)
    assert build(root).up_to_date
    (root / "inbox" / "b.txt").write_text("b")
    again = build(root)
    assert row(again, "lister").reason == "the files in `inbox` changed"
    assert "listed [&#x27;a.txt&#x27;, &#x27;b.txt&#x27;] 2" in output(root, "lister")


def test_an_environment_variable_reruns_and_is_named(tmp_path, monkeypatch):
    root = tmp_path / "repo"
    monkeypatch.setenv("FC_FIXTURE_GREETING", "hello")
    write_page(root, "env", """
        import os
        print("greeting", os.getenv("FC_FIXTURE_GREETING"), "FC_FIXTURE_UNSET" in os.environ)
    """)
    build(root)
    assert build(root).up_to_date
    monkeypatch.setenv("FC_FIXTURE_GREETING", "bonjour")
    again = build(root)
    assert row(again, "env").reason == "env FC_FIXTURE_GREETING changed"
    assert "greeting bonjour False" in output(root, "env")
    monkeypatch.setenv("FC_FIXTURE_UNSET", "now set")
    assert row(build(root), "env").reason == "env FC_FIXTURE_UNSET changed"


def test_a_parquet_input_is_declared_and_an_undeclared_one_warned_about(tmp_path):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    root = tmp_path / "repo"
    (root / "data").mkdir(parents=True)
    pq.write_table(pa.table({"x": [1, 2, 3]}), root / "data" / "t.parquet")
    code = 'import pyarrow.parquet as pq\nprint("sum", sum(pq.read_table("data/t.parquet").column("x").to_pylist()))'
    write_page(root, "declared", code, front="inputs: [data/*.parquet]\n")
    write_page(root, "undeclared", code)
    first = build(root)
    warnings = [p.message for p in first.problems if p.severity == "warning"]
    assert [p.path for p in first.problems if p.severity == "warning"] == ["explainers/undeclared.md"]
    assert "not traced" in warnings[0] and "pyarrow.parquet" in warnings[0] and "inputs:" in warnings[0]
    pq.write_table(pa.table({"x": [10, 20, 30]}), root / "data" / "t.parquet")
    again = build(root)
    assert row(again, "declared").reason == "declared input changed"
    assert "sum 60" in output(root, "declared")


def test_a_subprocess_is_warned_about(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    (root / "notes.txt").write_text("from cat\n")
    write_page(root, "shell",
               'import subprocess\nprint(subprocess.run(["cat", "notes.txt"], capture_output=True, text=True).stdout)')
    summary = build(root)
    warnings = [p for p in summary.problems if p.severity == "warning"]
    assert len(warnings) == 1 and warnings[0].path == "explainers/shell.md"
    assert "`cat`" in warnings[0].message and "not traced" in warnings[0].message
    # The page taken from the cache warns as the build that ran it did: a strict check
    # with a warm cache fails as one with a cold cache does.
    time.sleep(FINE_RACY_NS / 1e9)
    for options in ({"strict": True}, {}):
        checked = run_build(site_config(root, **options), check_only=True)
        assert row(checked, "shell").status == "cached"
        assert [(p.path, p.message) for p in checked.problems] == [(warnings[0].path, warnings[0].message)]
        assert checked.ok is not options.get("strict", False)


def test_cache_false_runs_every_time(tmp_path):
    root = tmp_path / "repo"
    write_page(root, "volatile", 'print("ran")', front="cache: false\n")
    build(root)
    again = build(root)
    assert not again.up_to_date and row(again, "volatile").reason == "cache: false"


def test_an_engine_edit_reruns_every_page(tmp_path, monkeypatch):
    root = tmp_path / "repo"
    write_page(root, "engine", 'print("engine test")')
    engine = tmp_path / "engine-copy"
    engine.mkdir()
    for source in sitebuild.execution.states.EXECUTION_CODE:
        (engine / source.name).write_bytes(source.read_bytes())
    monkeypatch.setattr(sitebuild.execution.states, "EXECUTION_CODE",
                        tuple(engine / p.name for p in sitebuild.execution.states.EXECUTION_CODE))
    build(root)
    assert build(root).up_to_date
    setup = engine / "kernel_setup.py"
    setup.write_text(setup.read_text() + "\n# an edit to the kernel-side code\n")
    again = build(root)
    assert row(again, "engine").status == "executed" and row(again, "engine").reason == "engine changed"


def test_a_sqlite_database_and_a_namespace_package_outside_the_repository(tmp_path):
    import sqlite3

    root, outside = tmp_path / "repo", tmp_path / "elsewhere"
    (outside / "nspkg").mkdir(parents=True)  # no __init__.py: a namespace package
    (outside / "nspkg" / "tool.py").write_text("WORD = 'first'\n")
    database = outside / "facts.db"
    with sqlite3.connect(database) as connection:
        connection.execute("create table facts (n integer)")
        connection.execute("insert into facts values (7)")
    write_page(root, "stores", f"""
        import sqlite3, sys
        sys.path.insert(0, {str(outside)!r})
        from nspkg import tool
        with sqlite3.connect({str(database)!r}) as connection:
            (n,) = connection.execute("select sum(n) from facts").fetchone()
        print("facts", n, tool.WORD)
    """)
    build(root)
    assert build(root).up_to_date
    with sqlite3.connect(database) as connection:
        connection.execute("insert into facts values (5)")
    again = build(root)
    assert row(again, "stores").reason == f"`{database}` changed" and "facts 12 first" in output(root, "stores")
    (outside / "nspkg" / "tool.py").write_text("WORD = 'second'\n")
    assert row(build(root), "stores").reason == f"`{outside / 'nspkg' / 'tool.py'}` changed"
    (outside / "nspkg" / "extra.py").write_text("")
    assert row(build(root), "stores").reason == f"the files in `{outside / 'nspkg'}` changed"


def test_site_yaml_inputs_join_every_page_key(tmp_path):
    root = tmp_path / "repo"
    (root / "data").mkdir(parents=True)
    (root / "data" / "shared.csv").write_text("a\n1\n")
    (root / "site.yaml").write_text("inputs: [data/*.csv]\n")
    write_page(root, "first", 'print("first")')
    write_page(root, "second", 'print("second")')
    build(root)
    (root / "data" / "shared.csv").write_text("a\n2\n")
    again = build(root)
    assert {r.slug: r.reason for r in again.rows} == {"first": "declared input changed",
                                                      "second": "declared input changed"}
    (root / "data" / "new.csv").write_text("b\n")
    assert row(build(root), "first").reason == "declared input changed", "a new file matching the glob counts"


def test_a_file_looked_for_and_missing_reruns_when_it_appears(tmp_path):
    root, outside = tmp_path / "repo", tmp_path / "elsewhere"
    outside.mkdir()
    write_page(root, "looks", f"""
        import os
        from pathlib import Path
        print("found", os.path.exists({str(outside / 'a.csv')!r}), Path("data", "b.csv").is_file())
    """)
    build(root)
    assert "found False False" in output(root, "looks")
    (outside / "a.csv").write_text("x\n")
    second = build(root)
    assert row(second, "looks").reason == f"`{outside / 'a.csv'}` appeared"
    assert "found True False" in output(root, "looks")
    (root / "data").mkdir()
    (root / "data" / "b.csv").write_text("y\n")
    third = build(root)
    assert row(third, "looks").reason == "`data/b.csv` appeared" and "found True True" in output(root, "looks")
    assert build(root).up_to_date


def test_a_file_the_page_checks_for_and_then_writes_is_its_output(tmp_path):
    root = tmp_path / "repo"
    write_page(root, "writes", """
        from pathlib import Path
        target = Path("made.txt")
        if not target.exists():
            target.write_text("made by the page")
        print("written", target.read_text())
    """)
    build(root)
    assert "written made by the page" in output(root, "writes")
    assert build(root).up_to_date  # its own output is not an input that moved while it ran


def test_the_files_a_page_read_are_known_to_serve_even_when_no_stamp_is_written(tmp_path):
    from sitebuild.store.stamp import STAMP_FILE, recorded_inputs

    root = tmp_path / "repo"
    (root / "data").mkdir(parents=True)
    (root / "data" / "scores.csv").write_text("a,1\n")
    write_page(root, "volatile", 'print("read", open("data/scores.csv").read().strip())', front="cache: false\n")
    build(root)
    cache_dir = site_config(root).cache_dir
    assert not (cache_dir / STAMP_FILE).exists()  # a page that runs on every build leaves no stamp
    assert (root / "data" / "scores.csv").resolve() in recorded_inputs(cache_dir, root)
