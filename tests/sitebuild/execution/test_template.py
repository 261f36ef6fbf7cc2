"""Kernels forked from a warm template: the same outputs and record as a fresh kernel,
a state of their own per page, no deadlock in numeric libraries, the fallback to normal
starts (said once), a template that dies mid-build, and nothing left alive after SIGTERM.

Tests that drive kernels from this process run in a thread of their own (see
test_kernels.py: no event loop may run where a kernel is prepared)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time

import psutil
import pytest
from site_helpers import REPO, TEMPLATES
from test_kernels import in_own_thread

from sitebuild.execution import template as template_module
from sitebuild.execution.environment import kernel_environment
from sitebuild.execution.execute import ExecutionJob, execute_pages, run_in_order
from sitebuild.execution.extract import kernel_notebook
from sitebuild.execution.kernels import _NOTED, NOTE_SINK
from sitebuild.execution.template import (
    LEARNED_FILE,
    TEMPLATE_FAILED,
    TEMPLATE_ONLY_ENVIRONMENT,
    Preload,
    Template,
    learned_preload,
    remember_preload,
)
from sitebuild.source.read import read_page

NUMERIC = Preload(required=("numpy", "pandas", "matplotlib.pyplot"))

PAGE = """---
title: Forked {n}
summary: s
---

```python
import os, sys
import numpy as np
import pandas  # all that is preloaded: the records must then be the same
import matplotlib
import matplotlib.pyplot as plt
from pathlib import Path
print(Path("data.txt").read_text().strip(), os.environ.get("PAGE_SETTING"), sorted(os.listdir("listed")))
print(os.getcwd() == {root!r}, sys.argv[1:2], os.environ.get("JE_ARROW_MALLOC_CONF"))
print("linewidth", matplotlib.rcParams["lines.linewidth"], "figures", plt.get_fignums())
matplotlib.rcParams["lines.linewidth"] = 7.0
os.environ["PAGE_SETTING"] = "changed by page {n}"
print("draw", np.random.random())
```

```python {{caption="A line"}}
fig, ax = plt.subplots(figsize=(2, 2))
ax.plot([0, 1], [1, 0])
ax.set_title("forked {n}")
```
"""


def project(root, pages: int = 1):
    """A project at ``root`` with ``pages`` copies of :data:`PAGE`, its data file and folder."""
    (root / "explainers").mkdir()
    (root / "data.txt").write_text("read from data.txt\n")
    (root / "listed").mkdir()
    (root / "listed" / "a.csv").write_text("x\n")
    jobs = []
    for n in range(1, pages + 1):
        path = root / "explainers" / f"forked-{n}.md"
        path.write_text(PAGE.format(n=n, root=str(root)))
        page = read_page(path, root)
        jobs.append(ExecutionJob(slug=page.slug, rel_path=page.rel_path, root=str(root),
                                 notebook=kernel_notebook(page), timeout=120))
    return jobs


def two_page_site(root, site_yaml: str, stem: str, code: str):
    """The config of a site at ``root`` (built with two jobs) with ``site_yaml`` and two pages
    ``{stem}-1`` and ``{stem}-2``, each running ``code`` and printing its number."""
    from site_helpers import site_config

    (root / "explainers").mkdir()
    (root / "site.yaml").write_text(site_yaml + "\n")
    for n in (1, 2):
        (root / "explainers" / f"{stem}-{n}.md").write_text(
            f"---\ntitle: {stem} {n}\nsummary: s\n---\n\n```python\n{code}\nprint({n})\n```\n")
    return site_config(root, jobs=2)


@pytest.fixture
def notes():
    """What the kernels say once in the build output, collected here."""
    said: list[str] = []
    _NOTED.clear()
    NOTE_SINK.append(said.append)
    yield said
    NOTE_SINK.remove(said.append)
    _NOTED.clear()


def texts(result, n: int) -> list[str]:
    return [o.text for o in result.blocks[n] if o.kind == "stream"]


def run_both(jobs, preload: Preload = NUMERIC, workers: int = 1):
    """The results of ``jobs`` on fresh kernels, then on kernels forked from a template."""
    results = []
    in_own_thread(lambda: results.append(execute_pages(jobs, workers)))()
    in_own_thread(lambda: results.append(execute_pages(jobs, workers, preload=preload)))()
    return results


def test_a_forked_kernel_gives_the_outputs_and_record_of_a_fresh_one(tmp_path, monkeypatch, notes):
    monkeypatch.setenv("PAGE_SETTING", "from the build")
    jobs = project(tmp_path, pages=2)
    fresh, forked = run_both(jobs)
    assert notes == []  # the template served: nothing to say
    for slug in fresh:
        a, b = fresh[slug], forked[slug]
        assert a.error is None and b.error is None, (a.error, b.error)
        lines_a, lines_b = texts(a, 1)[0].splitlines(), texts(b, 1)[0].splitlines()
        assert lines_a[:3] == lines_b[:3] == [
            "read from data.txt from the build ['a.csv']", "True ['-f'] None", "linewidth 1.5 figures []"]
        assert a.figures == b.figures and len(b.figures) == 2  # light and dark
        assert a.blocks[2] == b.blocks[2]  # the figure, drawn the same
        assert sorted(a.trace["files"]) == sorted(b.trace["files"]) and "data.txt" in b.trace["files"]
        assert a.trace["env"] == b.trace["env"] and a.trace["env"]["PAGE_SETTING"] == "from the build"
        assert a.trace["listings"] == b.trace["listings"] and "listed" in b.trace["listings"]
        assert set(a.trace["packages"]) <= set(b.trace["packages"])
        assert {"numpy", "pandas", "matplotlib"} <= set(b.trace["packages"])  # preloaded counts as imported
    draws = {texts(r, 1)[0].splitlines()[3] for r in forked.values()}
    assert len(draws) == 2  # each forked page has a random state of its own


def test_kernels_forked_for_two_workers_run_numpy_scipy_and_sklearn_without_deadlock(tmp_path, notes):
    (tmp_path / "explainers").mkdir()
    jobs = []
    for n in range(1, 4):
        path = tmp_path / "explainers" / f"numeric-{n}.md"
        path.write_text(NUMERIC_PAGE)
        page = read_page(path, tmp_path)
        jobs.append(ExecutionJob(slug=page.slug, rel_path=page.rel_path, root=str(tmp_path),
                                 notebook=kernel_notebook(page), timeout=90))
    preload = Preload(required=("numpy", "scipy.stats", "scipy.linalg", "sklearn.linear_model"))
    results = execute_pages(jobs, 2, preload=preload)
    assert notes == []
    for result in results.values():
        assert result.error is None, result.error
        assert texts(result, 1) == ["solved True fitted True 2 2\n"]


def test_a_template_that_preloads_numba_forks_kernels_with_its_compiler_set_up(tmp_path, notes, monkeypatch):
    """numba's first compiled call sets up LLVM; the template does it once, so a forked kernel
    finds it done (numba's CPU target has its contexts) and a fresh one does not, and
    compiled code runs in both. numba's import walks the whole environment for its NUMBA_*
    variables: in both kernels that walk reads those only, not every variable of the shell;
    and the forked page's record holds every variable the fresh one's does."""
    monkeypatch.setenv("UNRELATED_TO_THE_PAGE", "any value")
    monkeypatch.setenv("NUMBA_DISABLE_PERFORMANCE_WARNINGS", "1")
    (tmp_path / "explainers").mkdir()
    jobs = []
    for n in (1, 2):  # a template serves builds of more than one page
        path = tmp_path / "explainers" / f"compiled-{n}.md"
        path.write_text(COMPILED_PAGE)
        page = read_page(path, tmp_path)
        jobs.append(ExecutionJob(slug=page.slug, rel_path=page.rel_path, root=str(tmp_path),
                                 notebook=kernel_notebook(page), timeout=120))
    fresh, forked = run_both(jobs, preload=Preload(required=("numpy", "numba")))
    assert notes == []
    for job in jobs:
        assert "".join(texts(fresh[job.slug], 1)) == "set up before the page: False\ncompiled: 42\n"
        assert "".join(texts(forked[job.slug], 1)) == "set up before the page: True\ncompiled: 42\n"
        for result in (fresh[job.slug], forked[job.slug]):
            assert result.trace["env"].get("NUMBA_DISABLE_PERFORMANCE_WARNINGS") == "1"
            assert "UNRELATED_TO_THE_PAGE" not in result.trace["env"]
        assert set(TEMPLATE_ONLY_ENVIRONMENT).isdisjoint(forked[job.slug].trace["env"])
        # What the first compile reads (colorama's PYCHARM_HOSTED, when numba words a typing
        # error), done by the template's warm-up, is in the forked page's record as in a fresh one's.
        assert fresh[job.slug].trace["env"].items() <= forked[job.slug].trace["env"].items()


def test_the_template_and_the_kernel_tracer_know_the_same_prefix_walkers():
    """Both standalone scripts hold the table of modules whose environment walks read one
    prefix's variables; they must agree, or a forked page's record would differ from a fresh one's."""
    import ast

    def table(file: str, name: str) -> dict:
        tree = ast.parse((REPO / "sitebuild" / "execution" / file).read_text(encoding="utf-8"))
        found = [node.value for node in tree.body if isinstance(node, ast.Assign)
                 and isinstance(node.targets[0], ast.Name) and node.targets[0].id == name]
        return ast.literal_eval(found[0])

    assert table("kernel_setup.py", "_SB_PREFIX_WALKERS") == table("template_server.py", "_PREFIX_WALKERS")
    assert table("kernel_setup.py", "_SB_PREFIX_WALKERS") == {"numba.core.config": "NUMBA_"}


def test_pages_forked_from_a_template_that_preloads_numba_are_cached_at_the_next_build(tmp_path):
    """numba's import reads every variable, the template's own among them: a page must not
    count as changed at every build for a variable only the template has."""
    from sitebuild.commands.build import run_build

    config = two_page_site(tmp_path, "preload: [numpy, numba]", "compiled", "import numba")
    first = run_build(config)
    assert first.ok and first.executed == 2, [str(p) for p in first.problems]
    (tmp_path / "explainers" / "compiled-1.md").write_text(
        (tmp_path / "explainers" / "compiled-1.md").read_text() + "\nA sentence more.\n")
    second = run_build(config)
    assert second.ok and second.executed == 0 and second.cached == 2


COMPILED_PAGE = """---
title: Compiled
summary: s
---

```python
import numba
from numba.core import registry
print("set up before the page:", "_toplevel_target_context" in vars(registry.cpu_target))
print("compiled:", numba.njit(lambda value: value * 2)(21))
```
"""


NUMERIC_PAGE = """---
title: Numeric
summary: s
---

```python
import threading
import numpy as np
import pandas  # all that is preloaded: the records must then be the same
from joblib import Parallel, delayed
from scipy import linalg, stats
from sklearn.linear_model import LogisticRegression
rng = np.random.default_rng(1)
a = rng.normal(size=(300, 300)) + 300 * np.eye(300)
x = linalg.solve(a, np.ones(300))
y = (rng.random(400) < 0.5).astype(int)
model = LogisticRegression().fit(rng.normal(size=(400, 5)), y)
squares = Parallel(n_jobs=2)(delayed(pow)(i, 2) for i in range(4))
print("solved", bool(np.allclose(a @ x, 1)), "fitted", model.coef_.shape == (1, 5),
      len(stats.describe(squares)[1]), 2)
```
"""


def test_a_preload_that_fails_starts_kernels_normally_and_says_so_once(tmp_path, notes):
    jobs = project(tmp_path, pages=2)
    results = []
    in_own_thread(lambda: results.append(
        execute_pages(jobs, 1, preload=Preload(required=("numpy", "no_such_module_here")))))()
    assert all(r.error is None for r in results[0].values())
    assert notes == [TEMPLATE_FAILED.format(
        reason="preloading no_such_module_here failed: ModuleNotFoundError: No module named 'no_such_module_here'")]


def test_a_module_from_outside_the_installation_is_never_preloaded(tmp_path, notes):
    jobs = project(tmp_path, pages=2)
    (tmp_path / "localmod.py").write_text("VALUE = 1\n")
    results = []
    in_own_thread(lambda: results.append(execute_pages(jobs, 1, preload=Preload(required=("localmod",)))))()
    assert all(r.error is None for r in results[0].values())
    assert len(notes) == 1 and "preloading localmod failed: ModuleNotFoundError" in notes[0]


def test_a_template_with_a_thread_running_is_not_forked(tmp_path, notes, monkeypatch):
    monkeypatch.setattr(template_module, "TEMPLATE_ONLY_ENVIRONMENT", {})  # pyarrow's jemalloc starts its thread
    jobs = project(tmp_path, pages=2)
    results = []
    in_own_thread(lambda: results.append(execute_pages(jobs, 1, preload=Preload(required=("pyarrow",)))))()
    assert all(r.error is None for r in results[0].values())
    assert notes == [TEMPLATE_FAILED.format(
        reason="1 thread(s) run in the template after its imports (forking would copy them dead)")]


def test_a_template_that_dies_mid_build_leaves_its_pages_to_start_normally(tmp_path, notes):
    jobs = project(tmp_path, pages=3)
    template = Template.start(str(tmp_path), kernel_environment(str(tmp_path)), NUMERIC)
    queue, done = list(jobs), []

    def finished(result):
        done.append(result)
        if len(done) == 1:  # the next page's kernel is forked already: it must keep running
            os.kill(template.pid, signal.SIGKILL)
            template.process.wait()
    try:
        in_own_thread(lambda: run_in_order(lambda: queue.pop(0) if queue else None, lambda: bool(queue),
                                           finished, template))()
    finally:
        template.stop()
    assert [r.error for r in done] == [None, None, None]
    assert len(notes) == 1 and notes[0].startswith("kernels start normally: the kernel template could not serve")


def test_sigterm_to_the_build_leaves_neither_the_template_nor_a_kernel(tmp_path):
    (tmp_path / "explainers").mkdir()
    (tmp_path / "site.yaml").write_text("preload: [numpy]\n")
    shutil.copytree(TEMPLATES, tmp_path / "templates")
    for n in range(1, 5):
        (tmp_path / "explainers" / f"slow-{n}.md").write_text(
            f"---\ntitle: Slow {n}\nsummary: s\n---\n\n```python\nimport time\ntime.sleep(60)\n```\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    build = subprocess.Popen([sys.executable, str(REPO / "build.py"), "build", "--root", str(tmp_path),
                              "--jobs", "2"],
                             cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        seen = wait_for_kernels(build.pid, count=2)
        build.send_signal(signal.SIGTERM)
        build.wait(timeout=30)
    finally:
        if build.poll() is None:
            build.kill()
    assert build.returncode == 130
    time.sleep(0.5)
    alive = [p for p in seen if alive_process(p)]
    assert alive == []


def wait_for_kernels(pid: int, count: int) -> list[psutil.Process]:
    """The build's processes once ``count`` forked kernels run its pages (the template's
    children, each a kernel of its own session)."""
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        processes = psutil.Process(pid).children(recursive=True)
        templates = [p for p in processes if "sitebuild-template" in " ".join(_cmdline(p))]
        kernels = [c for t in templates for c in _children(t)]
        if templates and len(kernels) >= count:
            return processes + kernels
        time.sleep(0.2)
    raise AssertionError("the build's kernels were never forked")


def _cmdline(process: psutil.Process) -> list[str]:
    try:
        return process.cmdline()
    except psutil.Error:
        return []


def _children(process: psutil.Process) -> list[psutil.Process]:
    try:
        return process.children()
    except psutil.Error:
        return []


def alive_process(process: psutil.Process) -> bool:
    try:
        return process.is_running() and process.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def test_the_learned_preload_is_kept_for_the_next_build(tmp_path):
    assert learned_preload(tmp_path) == ()
    remember_preload(tmp_path, {"numpy", "pandas", "_cffi_backend", "pydevd", "matplotlib.pyplot", "scipy._lib",
                                "numpy.tests"})
    assert learned_preload(tmp_path) == ("matplotlib.pyplot", "numpy", "pandas")
    remember_preload(tmp_path, {"scipy.stats"}, replace=False)  # only some pages ran: the rest is kept
    assert learned_preload(tmp_path) == ("matplotlib.pyplot", "numpy", "pandas", "scipy.stats")
    remember_preload(tmp_path, {"scipy.stats"})
    assert learned_preload(tmp_path) == ("scipy.stats",)
    (tmp_path / LEARNED_FILE).write_text("{broken")
    assert learned_preload(tmp_path) == ()
    (tmp_path / LEARNED_FILE).write_text('["numpy", "pandas"]')  # a bare list is not a memo: ignored
    assert learned_preload(tmp_path) == ()


def test_a_build_with_preload_learned_learns_what_its_pages_imported(tmp_path):
    from sitebuild.commands.build import run_build

    config = two_page_site(tmp_path, "preload: learned", "learn", "import scipy.special")
    summary = run_build(config)
    assert summary.ok, [str(p) for p in summary.problems]
    learned = learned_preload(config.cache_dir)
    assert {"scipy", "scipy.special", "numpy"} <= set(learned)
    assert not any(name.startswith("_") or "._" in name for name in learned)
