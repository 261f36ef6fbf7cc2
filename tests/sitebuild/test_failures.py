"""Pages that fail: an exception reported at its .md line with the code around it, a
timeout, a kernel that dies (failing that page only), and the last good site kept."""

from __future__ import annotations

import shutil

import pytest

from sitebuild.build import run_build
from site_helpers import copy_site, site_config


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
