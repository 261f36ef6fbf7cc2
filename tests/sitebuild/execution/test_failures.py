"""Pages that fail: an exception reported at its .md line with the code around it, a
timeout, a kernel that dies (failing that page only), and the last good site kept."""

from __future__ import annotations

import shutil

import pytest
from site_helpers import copy_site, site_config

from sitebuild.commands.build import run_build


@pytest.fixture(scope="module")
def failed(tmp_path_factory):
    """The broken fixture site: first built good, then three failing pages added."""
    root = copy_site("broken", tmp_path_factory.mktemp("broken"))
    first = run_build(site_config(root))
    assert first.ok, [str(p) for p in first.problems]
    for page in (root / "later").glob("*.md"):
        shutil.copy(page, root / "explainers" / page.name)
    (root / "explainers" / "good.md").write_text(
        (root / "explainers" / "good.md").read_text().replace("good output", "new good output"))
    summary = run_build(site_config(root, jobs=2))
    return root, summary


def problem_for(summary, slug):
    found = [p for p in summary.errors if p.path == f"explainers/{slug}.md"]
    assert len(found) == 1, [str(p) for p in summary.problems]
    return found[0]


def test_every_failing_page_is_listed_and_the_build_fails(failed):
    _, summary = failed
    assert not summary.ok and summary.failed == 4
    assert sorted({p.path for p in summary.errors}) == [
        "explainers/dies.md", "explainers/hangs.md", "explainers/inline.md", "explainers/raises.md"]
    assert {r.slug: r.status for r in summary.rows}["good"] == "executed"


def test_exception_points_at_the_failing_line_of_the_markdown(failed):
    problem = problem_for(failed[1], "raises")
    assert problem.line == 18  # `print(ratio(x, y))`, the third line of the second block
    text = str(problem)
    assert text.startswith("explainers/raises.md:18: error: ZeroDivisionError: division by zero")
    assert ">   18 | print(ratio(x, y))" in text and "    17 | y = 0" in text
    assert 'File "explainers/raises.md", line 18' in text and 'File "explainers/raises.md", line 10, in ratio' in text


def test_a_failing_inline_value_names_its_line(failed):
    problem = problem_for(failed[1], "inline")
    assert problem.line == 11
    assert problem.message.startswith("inline value failed: NameError: name 'mean_value' is not defined")
    assert ">   11 | `{python:.2f} mean_value`." in problem.message


def test_a_page_past_its_timeout_fails_with_a_clear_message(failed):
    problem = problem_for(failed[1], "hangs")
    assert "ran longer than its timeout of 3 s" in problem.message
    assert problem.line == 8  # the first line of the block that was stopped


def test_a_dying_kernel_fails_only_its_page(failed):
    problem = problem_for(failed[1], "dies")
    assert "the kernel died while running block 1" in problem.message
    assert failed[1].rows and {r.slug: r.status for r in failed[1].rows}["good"] == "executed"


def test_the_last_good_site_is_kept(failed):
    root, _ = failed
    html = (root / "site" / "good.html").read_text()
    assert "good output" in html and "new good output" not in html
    assert not (root / "site" / "raises.html").exists()
    assert not list(root.glob("site.tmp*"))  # no temporary folder left behind


def test_warnings_fail_only_under_strict(failed):
    root, _ = failed
    relaxed = run_build(site_config(root, only=["good"]), check_only=True)
    strict = run_build(site_config(root, only=["good"], strict=True), check_only=True)
    warning = "block 2 is marked {expect-error} but raised no error"
    assert strict.executed == relaxed.executed == 0  # good.md comes from the cache
    assert any(p.message == warning and p.severity == "warning" for p in relaxed.problems)
    assert warning not in [p.message for p in relaxed.errors]
    assert not strict.ok and warning in [p.message for p in strict.errors]


def test_a_kernel_that_lost_a_port_race_is_started_again(monkeypatch):
    """Two kernels starting at once can be handed the same free port; the one that loses
    dies before its first cell. That page is run again in a new kernel, not failed."""
    import sitebuild.execution.execute as execute
    from sitebuild.execution.execute import ExecutionJob
    from sitebuild.execution.executed import ExecutedPage, PageError

    lost = ExecutedPage(slug="p", status="failed", error=PageError(
        "kernel", "the kernel failed: RuntimeError: Kernel died before replying to kernel_info",
        traceback="zmq.error.ZMQError: Address already in use (addr='tcp://127.0.0.1:52011')"))
    attempts = []

    def once(job, kernel, ready, template=None):
        attempts.append(kernel)
        return lost if len(attempts) == 1 else ExecutedPage(slug="p")

    monkeypatch.setattr(execute, "_execute_once", once)
    job = ExecutionJob(slug="p", rel_path="p.md", root=".", notebook=None, timeout=10)
    assert execute.execute_page(job).error is None and len(attempts) == 2
    other = ExecutedPage(slug="p", status="failed",
                         error=PageError("kernel", "the kernel could not start: no such kernel"))
    monkeypatch.setattr(execute, "_execute_once",
                        lambda job, kernel, ready, template=None: attempts.append(kernel) or other)
    attempts.clear()
    assert execute.execute_page(job) is other and len(attempts) == 1, "other kernel failures are not retried"
