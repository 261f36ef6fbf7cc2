"""The build is one script of stages over frozen data: each stage's result refuses to be
changed, the executions handed on are frozen, and a stage run again on the same input
gives equal data."""

from __future__ import annotations

import time

import pytest
from msgspec.structs import replace
from site_helpers import site_config

from sitebuild.commands.build import BuildSummary, run_build
from sitebuild.commands.stages import (
    Executions,
    PageOrder,
    ReadPages,
    check_stage,
    execute_stage,
    order_stage,
    read_stage,
)
from sitebuild.execution.order import load_feeds
from sitebuild.store.files import FINE_RACY_NS

PAGE = ("---\ntitle: Staged\nsummary: A page of the stage tests.\n---\n\nThe value is 42.\n\n"
        "```python\nprint('value', 42)\n```\n")


@pytest.fixture(scope="module")
def staged(tmp_path_factory):
    root = tmp_path_factory.mktemp("stages")
    (root / "explainers").mkdir()
    (root / "explainers" / "staged.md").write_text(PAGE)
    time.sleep(FINE_RACY_NS / 1e9)
    summary = run_build(site_config(root))
    assert summary.ok, [str(p) for p in summary.problems]
    return root, summary


def test_the_summary_is_frozen(staged):
    _, summary = staged
    assert isinstance(summary, BuildSummary) and summary.executed == 1
    with pytest.raises(AttributeError):
        summary.executed = 0
    with pytest.raises(AttributeError):
        summary.problems.append("x")  # a tuple


def test_each_stage_returns_frozen_data_that_refuses_changes(staged):
    root, _ = staged
    config = site_config(root)
    read = read_stage(config)
    order = order_stage(read.pages, load_feeds(config.cache_dir))
    executions = execute_stage(config, read.pages, order, progress=lambda line: None)
    assert isinstance(read, ReadPages) and isinstance(order, PageOrder) and isinstance(executions, Executions)
    assert order.levels == (("explainers/staged.md",),) and executions.ran == 0
    result = executions.pages["staged"]
    assert result.status == "cached" and result.deps is not None
    for frozen, name in ((read, "pages"), (read.pages[0], "slug"), (order, "levels"), (executions, "ran"),
                         (result, "reason"), (result, "deps"), (result.deps, "engine")):
        with pytest.raises(AttributeError):
            setattr(frozen, name, None)
    with pytest.raises(TypeError):
        executions.pages["other"] = result
    with pytest.raises(TypeError):
        result.deps.records["files"] = ()
    checked = check_stage(config, read, executions)
    with pytest.raises(AttributeError):
        checked.problems = ()
    assert checked.ok(strict=True) and [r.status for r in checked.rows] == ["cached"]


def test_a_stage_run_again_on_the_same_input_gives_equal_data(staged):
    root, _ = staged
    config = site_config(root)
    read = read_stage(config)
    order = order_stage(read.pages, load_feeds(config.cache_dir))
    first = execute_stage(config, read.pages, order, progress=lambda line: None)
    second = execute_stage(config, read.pages, order, progress=lambda line: None)
    assert first.pages["staged"] == second.pages["staged"]
    changed = replace(first.pages["staged"], reason="x")  # a new value; the old one stays as it was
    assert changed != first.pages["staged"] and first.pages["staged"].reason == second.pages["staged"].reason != "x"
