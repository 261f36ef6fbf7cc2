"""The page tracer (``kernel_setup.py``) on one-page sites built with real kernels: for
each way a page can read, the page is built, its input changed, and it must re-run with
the right reason and show the new value; built again unchanged, it must not re-run.
Covered: the files a page writes, forked children (multiprocessing with fork, a process
pool, a bare os.fork), spawned children and ctypes (warned about), the environment as
the page sees it (no kernel machinery, environb and posix.environ, TZ/LANG/LC_*), dir_fd
opens, fd listings, os.fwalk, byte-code imports, pkgutil plugins, os.access, sqlite URIs
and ATTACH, startup files, and a page that reads its own .md."""

from __future__ import annotations

import json
import py_compile
import sqlite3
from pathlib import Path

import pytest
from site_helpers import site_config
from test_dependencies import build, output, row, write_page

from sitebuild.execution.cache import index_memo


def recorded(root: Path, slug: str) -> dict:
    """The dependencies stored in the page's latest cache entry."""
    cache = site_config(root).cache_dir
    key = index_memo(cache).load({})[f"explainers/{slug}.md"]
    return json.loads((cache / "pages" / f"{key}.json").read_text())["deps"]


def settled(root: Path, slug: str) -> None:
    """Built again unchanged the site is up to date, and after a prose edit the page is
    taken from the cache (its dependencies, as the cache checks them, still hold)."""
    assert build(root).up_to_date
    page = root / "explainers" / f"{slug}.md"
    page.write_text(page.read_text() + "\nOne more sentence.\n")
    again = build(root)
    assert row(again, slug).status == "cached", row(again, slug).reason


def reran(root: Path, slug: str, reason: str, shown: str) -> None:
    """The next build runs the page again for ``reason`` and the page shows ``shown``."""
    summary = build(root)
    assert (row(summary, slug).status, row(summary, slug).reason) == ("executed", reason)
    assert shown in output(root, slug)


def warnings_of(summary) -> list[str]:
    return [f"{p.path}: {p.message}" for p in summary.problems if p.severity == "warning"]


# 23.2: the files a page writes --------------------------------------------------------

def test_the_files_a_page_writes_are_recorded(tmp_path):
    root = tmp_path / "repo"
    (root / "data").mkdir(parents=True)
    (root / "data" / "source.txt").write_text("source")
    (root / "data" / "log.txt").write_text("")
    write_page(root, "writer", """
        import os, shutil
        from pathlib import Path
        with open("out/opened.txt", "w") as stream:
            stream.write("w")
        with open("data/log.txt", "a") as stream:
            stream.write("a")
        os.close(os.open("out/flags.txt", os.O_WRONLY | os.O_CREAT | os.O_TRUNC))
        Path("out/text.txt").write_text("t")
        Path("out/bytes.bin").write_bytes(b"b")
        Path("out/tmp.txt").write_text("r")
        os.replace("out/tmp.txt", "out/replaced.txt")
        shutil.copy("data/source.txt", "out/copied.txt")
        shutil.copyfile("data/source.txt", "out/moved-first.txt")
        shutil.move("out/moved-first.txt", "out/moved.txt")
        os.symlink("copied.txt", "out/link.txt")
        shutil.rmtree("out/old")
        print("wrote", len(os.listdir("out")), os.open in os.supports_dir_fd, shutil.rmtree.avoids_symlink_attacks)
    """)
    (root / "out" / "old").mkdir(parents=True)
    (root / "out" / "old" / "stale.txt").write_text("")
    first = build(root)
    assert "wrote 8 True True" in output(root, "writer"), "the watched os functions keep what they support"
    writes = set(recorded(root, "writer")["writes"])
    assert {"out/opened.txt", "data/log.txt", "out/flags.txt", "out/text.txt", "out/bytes.bin", "out/replaced.txt",
            "out/copied.txt", "out/moved.txt", "out/link.txt", "out/old/stale.txt"} <= writes
    assert "data/source.txt" not in writes
    assert row(first, "writer").reason == "new page"


def test_a_page_that_only_writes_its_outputs_is_not_rerun(tmp_path):
    root = tmp_path / "repo"
    write_page(root, "outputs", """
        import os
        from pathlib import Path
        Path("made.tmp").write_text("draft")
        os.replace("made.tmp", "made.txt")
        print("made", Path("made.txt").read_text())
    """)
    build(root)
    assert "made draft" in output(root, "outputs")
    assert "made.txt" in recorded(root, "outputs")["writes"]
    settled(root, "outputs")


# 23.3: forked children keep the tracer -------------------------------------------------

FORKED = """
    import concurrent.futures, multiprocessing, os, sys
    def by_process(queue):
        import childmod
        queue.put((open("data/process.txt").read().strip(), os.environ.get("FC_CHILD_VARIABLE"), childmod.WORD))
    def by_pool(path):
        return open(path).read().strip()
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    child = context.Process(target=by_process, args=(queue,))
    child.start()
    seen = queue.get()
    child.join()
    with concurrent.futures.ProcessPoolExecutor(1, mp_context=context) as pool:
        pooled = pool.submit(by_pool, "data/pool.txt").result()
    reader, writer = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.write(writer, (open("data/fork.txt").read().strip() + " " + str(len(os.listdir("inbox")))).encode())
        os._exit(0)
    os.close(writer)
    forked = os.read(reader, 100).decode()
    os.waitpid(pid, 0)
    print("children", *seen, pooled, forked)
"""


def test_what_forked_children_read_is_recorded(tmp_path, monkeypatch):
    root = tmp_path / "repo"
    (root / "data").mkdir(parents=True)
    (root / "inbox").mkdir()
    for name, text in (("process", "p1"), ("pool", "q1"), ("fork", "f1")):
        (root / "data" / f"{name}.txt").write_text(text)
    (root / "childmod.py").write_text("WORD = 'one'\n")
    monkeypatch.setenv("FC_CHILD_VARIABLE", "v1")
    write_page(root, "forks", FORKED)
    build(root)
    assert "children p1 v1 one q1 f1 0" in output(root, "forks")
    settled(root, "forks")
    (root / "data" / "process.txt").write_text("p2")
    reran(root, "forks", "`data/process.txt` changed", "children p2 v1 one q1 f1 0")
    (root / "data" / "pool.txt").write_text("q2")
    reran(root, "forks", "`data/pool.txt` changed", "children p2 v1 one q2 f1 0")
    (root / "data" / "fork.txt").write_text("f2")
    reran(root, "forks", "`data/fork.txt` changed", "children p2 v1 one q2 f2 0")
    monkeypatch.setenv("FC_CHILD_VARIABLE", "v2")
    reran(root, "forks", "env FC_CHILD_VARIABLE changed", "children p2 v2 one q2 f2 0")
    (root / "childmod.py").write_text("WORD = 'two'\n")
    reran(root, "forks", "`childmod.py` changed", "children p2 v2 two q2 f2 0")
    (root / "inbox" / "new.txt").write_text("")
    reran(root, "forks", "the files in `inbox` changed", "children p2 v2 two q2 f2 1")


SPAWNED = {
    "spawn": """
        import multiprocessing
        with multiprocessing.get_context("spawn").Pool(1) as pool:
            print("spawned", pool.map(abs, [-3]))
    """,
    "forkserver": """
        import multiprocessing
        with multiprocessing.get_context("forkserver").Pool(1) as pool:
            print("spawned", pool.map(abs, [-3]))
    """,
    "loky": """
        from joblib import Parallel, delayed
        print("spawned", Parallel(n_jobs=2, backend="loky")(delayed(abs)(x) for x in [-3]))
    """,
    "ctypes": """
        import ctypes
        libc = ctypes.CDLL("libc.so.6")
        libc.fopen.restype = ctypes.c_void_p
        handle = libc.fopen(b"data.txt", b"r")
        libc.fclose(ctypes.c_void_p(handle))
        print("spawned", [3])
    """,
}


@pytest.mark.parametrize("kind", sorted(SPAWNED))
def test_spawned_children_and_ctypes_are_warned_about(tmp_path, kind):
    root = tmp_path / "repo"
    root.mkdir()
    (root / "data.txt").write_text("x")
    write_page(root, "spawns", SPAWNED[kind])
    summary = build(root)
    assert "spawned [3]" in output(root, "spawns")
    found = warnings_of(summary)
    assert len(found) == 1 and found[0].startswith("explainers/spawns.md: not traced: it ")
    assert "inputs: [path or glob, ...]" in found[0]
    expected = "it called `fclose`, `fopen` through ctypes" if kind == "ctypes" else "(files a subprocess reads"
    assert expected in found[0]
    assert build(root).up_to_date, "loky reads the whole environment, and it has not changed"


def test_a_declared_input_silences_the_spawn_warning(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    write_page(root, "declared", SPAWNED["spawn"], front="inputs: [data/*.csv]\n")
    assert warnings_of(build(root)) == []


# 23.4: the environment ---------------------------------------------------------------

def test_the_whole_environment_read_hits_the_cache(tmp_path, monkeypatch):
    root = tmp_path / "repo"
    monkeypatch.setenv("FC_WHOLE_VARIABLE", "one")
    write_page(root, "whole", """
        import os
        everything = dict(os.environ)
        print("whole", everything["FC_WHOLE_VARIABLE"], os.environ["TERM"], len(list(os.environ)) > 3)
    """)
    build(root)
    assert "whole one xterm-color True" in output(root, "whole")
    env = recorded(root, "whole")["env"]
    assert env["FC_WHOLE_VARIABLE"] == "one"
    assert not {"TERM", "PAGER", "GIT_PAGER", "CLICOLOR", "PWD"} & set(env)
    assert not [name for name in env if name.startswith("JPY_")]
    settled(root, "whole")
    monkeypatch.setenv("FC_WHOLE_VARIABLE", "two")
    reran(root, "whole", "env FC_WHOLE_VARIABLE changed", "whole two xterm-color True")


def test_environb_and_posix_environ_are_recorded(tmp_path, monkeypatch):
    root = tmp_path / "repo"
    monkeypatch.setenv("FC_BYTES_VARIABLE", "b1")
    monkeypatch.setenv("FC_POSIX_VARIABLE", "p1")
    write_page(root, "tables", """
        import os, posix
        print("tables", os.environb[b"FC_BYTES_VARIABLE"].decode(), posix.environ[b"FC_POSIX_VARIABLE"].decode(),
              posix.environ.get(b"FC_UNSET_VARIABLE"))
    """)
    build(root)
    assert "tables b1 p1 None" in output(root, "tables")
    settled(root, "tables")
    monkeypatch.setenv("FC_BYTES_VARIABLE", "b2")
    reran(root, "tables", "env FC_BYTES_VARIABLE changed", "tables b2 p1 None")
    monkeypatch.setenv("FC_POSIX_VARIABLE", "p2")
    reran(root, "tables", "env FC_POSIX_VARIABLE changed", "tables b2 p2 None")
    monkeypatch.setenv("FC_UNSET_VARIABLE", "set")
    reran(root, "tables", "env FC_UNSET_VARIABLE changed", "tables b2 p2 b&#x27;set&#x27;")


def test_time_zone_and_locale_join_every_key(tmp_path, monkeypatch):
    root = tmp_path / "repo"
    monkeypatch.setenv("TZ", "UTC")
    monkeypatch.delenv("LC_ALL", raising=False)
    write_page(root, "clock", """
        import time
        print("zone", time.strftime("%Z", time.localtime(0)))
    """)
    build(root)
    assert "zone UTC" in output(root, "clock")
    settled(root, "clock")
    monkeypatch.setenv("TZ", "EST+5")
    reran(root, "clock", "env TZ changed", "zone EST")
    monkeypatch.setenv("LC_ALL", "C.UTF-8")
    reran(root, "clock", "env LC_ALL changed", "zone EST")


# 23.5: the remaining reads -----------------------------------------------------------

def test_dir_fd_opens_fd_listings_and_fwalk(tmp_path):
    root = tmp_path / "repo"
    (root / "data").mkdir(parents=True)
    (root / "tree" / "sub").mkdir(parents=True)
    (root / "data" / "value.txt").write_text("7")
    write_page(root, "descriptors", """
        import os
        folder = os.open("data", os.O_RDONLY)
        handle = os.open("value.txt", os.O_RDONLY, dir_fd=folder)
        value = os.read(handle, 100).decode()
        os.close(handle)
        names = sorted(os.listdir(folder))
        os.close(folder)
        walked = sorted(name for top, dirs, files, fd in os.fwalk("tree") for name in files)
        print("descriptors", value, names, walked)
    """)
    build(root)
    assert "descriptors 7 [&#x27;value.txt&#x27;] []" in output(root, "descriptors")
    settled(root, "descriptors")
    (root / "data" / "value.txt").write_text("8")
    reran(root, "descriptors", "`data/value.txt` changed", "descriptors 8 [&#x27;value.txt&#x27;] []")
    (root / "data" / "other.txt").write_text("")
    reran(root, "descriptors", "the files in `data` changed", "descriptors 8 [&#x27;other.txt&#x27;, &#x27;value.txt")
    (root / "tree" / "sub" / "leaf.txt").write_text("")
    reran(root, "descriptors", "the files in `tree/sub` changed", "[&#x27;leaf.txt&#x27;]")


def test_modules_loaded_from_byte_code_are_recorded_by_their_source(tmp_path):
    root = tmp_path / "repo"
    (root / "plugins").mkdir(parents=True)
    (root / "plugins" / "plug.py").write_text("VALUE = 1\n")
    (root / "helper.py").write_text("WORD = 'a'\n")
    for source in (root / "plugins" / "plug.py", root / "helper.py"):
        py_compile.compile(str(source), doraise=True)  # the build's environment writes no byte code itself
    write_page(root, "loaders", """
        import importlib.util, sys
        spec = importlib.util.spec_from_file_location("plug", "plugins/plug.py")
        plug = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(plug)
        import helper
        del sys.modules["helper"]
        import helper
        word = helper.WORD
        del sys.modules["helper"]
        print("loaded", plug.VALUE, word)
    """)
    build(root)
    assert "loaded 1 a" in output(root, "loaders")
    assert {"plugins/plug.py", "helper.py"} <= set(recorded(root, "loaders")["files"])
    settled(root, "loaders")
    (root / "plugins" / "plug.py").write_text("VALUE = 22\n")
    reran(root, "loaders", "`plugins/plug.py` changed", "loaded 22 a")
    (root / "helper.py").write_text("WORD = 'bb'\n")
    reran(root, "loaders", "`helper.py` changed", "loaded 22 bb")


def test_a_plugin_added_for_pkgutil_reruns(tmp_path):
    root = tmp_path / "repo"
    (root / "plugins").mkdir(parents=True)
    (root / "plugins" / "first.py").write_text("")
    write_page(root, "plugins", """
        import pkgutil
        print("plugins", sorted(module.name for module in pkgutil.iter_modules(["plugins"])))
    """)
    build(root)
    assert "plugins [&#x27;first&#x27;]" in output(root, "plugins")
    settled(root, "plugins")
    (root / "plugins" / "second.py").write_text("")
    reran(root, "plugins", "the files in `plugins` changed", "plugins [&#x27;first&#x27;, &#x27;second&#x27;]")


def test_a_missing_file_probed_by_access_or_stat_is_a_dependency(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    write_page(root, "probes", """
        import os
        def stat_finds(path):
            try:
                os.stat(path)
                return True
            except FileNotFoundError:
                return False
        print("probes", os.access("flag.txt", os.R_OK), stat_finds("marker.txt"))
    """)
    build(root)
    assert "probes False False" in output(root, "probes")
    settled(root, "probes")
    (root / "flag.txt").write_text("")
    reran(root, "probes", "`flag.txt` appeared", "probes True False")
    (root / "marker.txt").write_text("")
    reran(root, "probes", "`marker.txt` appeared", "probes True True")


def test_sqlite_by_uri_and_attach(tmp_path):
    root = tmp_path / "repo"
    (root / "data").mkdir(parents=True)
    for name, value in (("main", 1), ("extra", 10)):
        with sqlite3.connect(root / "data" / f"{name}.db") as connection:
            connection.execute("create table t (n integer)")
            connection.execute("insert into t values (?)", (value,))
        connection.close()
    write_page(root, "databases", """
        import sqlite3
        connection = sqlite3.connect("file:data/main.db?mode=ro", uri=True)
        connection.execute("ATTACH DATABASE 'data/extra.db' AS extra")
        (main,) = connection.execute("select sum(n) from t").fetchone()
        (extra,) = connection.execute("select sum(n) from extra.t").fetchone()
        connection.close()
        print("sums", main, extra)
    """)
    build(root)
    assert "sums 1 10" in output(root, "databases")
    settled(root, "databases")
    for name, value, shown in (("main", 2, "sums 3 10"), ("extra", 20, "sums 3 30")):
        with sqlite3.connect(root / "data" / f"{name}.db") as connection:
            connection.execute("insert into t values (?)", (value,))
        connection.close()
        reran(root, "databases", f"`data/{name}.db` changed", shown)


def test_startup_files_join_every_key(tmp_path, monkeypatch):
    root, ipython = tmp_path / "repo", tmp_path / "ipython"
    startup = ipython / "profile_default" / "startup"
    startup.mkdir(parents=True)
    (startup / "00-first.py").write_text("STARTED = 'first'\n")
    monkeypatch.setenv("IPYTHONDIR", str(ipython))
    write_page(root, "startup", """
        import builtins
        print("startup", STARTED, getattr(builtins, "FC_SITE", None))
    """)
    build(root)
    assert "startup first None" in output(root, "startup")
    settled(root, "startup")
    (startup / "00-first.py").write_text("STARTED = 'second'\n")
    reran(root, "startup", f"`{startup / '00-first.py'}` changed", "startup second None")
    (root / "sitecustomize.py").write_text("import builtins\nbuiltins.FC_SITE = 'site'\n")
    reran(root, "startup", "`sitecustomize.py` appeared", "startup second site")
    (root / "sitecustomize.py").write_text("import builtins\nbuiltins.FC_SITE = 'edited'\n")
    reran(root, "startup", "`sitecustomize.py` changed", "startup second edited")
    (startup / "01-more.py").write_text("STARTED = 'third'\n")
    reran(root, "startup", f"the files in `{startup}` changed", "startup third edited")


def test_a_page_that_reads_its_own_markdown(tmp_path):
    root = tmp_path / "repo"
    write_page(root, "itself", 'print("markers", open("explainers/itself.md").read().count("MARKER"))')
    write_page(root, "warns", 'import warnings\nwarnings.warn("a warning shows its line")\nprint("warned")')
    build(root)
    assert "markers 1" in output(root, "itself")
    assert build(root).up_to_date
    page = root / "explainers" / "itself.md"
    page.write_text(page.read_text() + "\nA MARKER in the prose.\n")
    other = root / "explainers" / "warns.md"
    other.write_text(other.read_text() + "\nMore prose.\n")
    again = build(root)
    assert row(again, "itself").reason == "`explainers/itself.md` changed" and "markers 2" in output(root, "itself")
    assert row(again, "warns").status == "cached", "a source line shown by a warning is no dependency"


# Cases the issue does not name ---------------------------------------------------------

def test_other_readers(tmp_path):
    np = pytest.importorskip("numpy")
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    root = tmp_path / "repo"
    (root / "d" / "sub").mkdir(parents=True)
    (root / "w" / "inner").mkdir(parents=True)
    (root / "d" / "io.txt").write_text("1")
    (root / "d" / "thread.txt").write_text("1")
    np.save(root / "d" / "arr.npy", np.array([1]))
    np.array([1.0]).tofile(root / "d" / "raw.bin")
    pd.DataFrame({"x": [1]}).to_csv(root / "d" / "t.csv", index=False)
    write_page(root, "readers", """
        import glob, io, os, threading
        import numpy as np, pandas as pd
        found = {}
        worker = threading.Thread(target=lambda: found.update(thread=open("d/thread.txt").read()))
        worker.start()
        worker.join()
        folder = os.open("d/sub", os.O_RDONLY)
        scanned = len(list(os.scandir(folder)))
        os.close(folder)
        print("readers", io.open("d/io.txt").read(), int(np.load("d/arr.npy")[0]), int(np.fromfile("d/raw.bin")[0]),
              int(pd.read_csv("d/t.csv", engine="pyarrow")["x"][0]), found["thread"], len(glob.glob("d/*.txt")),
              scanned, sum(len(files) for top, dirs, files in os.walk("w")))
    """)
    first = build(root)
    assert any("pyarrow.csv" in w for w in warnings_of(first)), "pyarrow's reader is named, pandas' open recorded"
    assert "readers 1 1 1 1 1 2 0 0" in output(root, "readers")
    settled(root, "readers")
    (root / "d" / "io.txt").write_text("2")
    reran(root, "readers", "`d/io.txt` changed", "readers 2 1 1 1 1 2 0 0")
    np.save(root / "d" / "arr.npy", np.array([3]))
    reran(root, "readers", "`d/arr.npy` changed", "readers 2 3 1 1 1 2 0 0")
    np.array([4.0]).tofile(root / "d" / "raw.bin")
    reran(root, "readers", "`d/raw.bin` changed", "readers 2 3 4 1 1 2 0 0")
    pd.DataFrame({"x": [5]}).to_csv(root / "d" / "t.csv", index=False)
    reran(root, "readers", "`d/t.csv` changed", "readers 2 3 4 5 1 2 0 0")
    (root / "d" / "thread.txt").write_text("6")
    reran(root, "readers", "`d/thread.txt` changed", "readers 2 3 4 5 6 2 0 0")
    (root / "d" / "new.txt").write_text("")
    reran(root, "readers", "the files in `d` changed", "readers 2 3 4 5 6 3 0 0")
    (root / "d" / "sub" / "x").write_text("")
    reran(root, "readers", "the files in `d/sub` changed", "readers 2 3 4 5 6 3 1 0")
    (root / "w" / "inner" / "y").write_text("")
    reran(root, "readers", "the files in `w/inner` changed", "readers 2 3 4 5 6 3 1 1")
