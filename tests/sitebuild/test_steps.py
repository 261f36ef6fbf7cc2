"""Configured pre-build steps: run from the root, skipped while inputs are unchanged, and
a failing step stops the build with its command, status and output."""

from __future__ import annotations

import sys

import pytest

from sitebuild.config import Step
from sitebuild.errors import SiteBuildError
from sitebuild.steps import run_steps


def write_step(tmp_path):
    (tmp_path / "inputs").mkdir()
    (tmp_path / "inputs" / "a.txt").write_text("1")
    (tmp_path / "make.py").write_text("from pathlib import Path\n"
                                      "Path('out.txt').write_text(Path('inputs/a.txt').read_text() * 2)\n")
    return Step(name="double", run=f"{sys.executable} make.py", inputs=("inputs/*.txt",))


def test_step_runs_then_is_skipped_until_its_inputs_change(tmp_path):
    step = write_step(tmp_path)
    stamps = tmp_path / "cache" / "steps.json"
    assert [r.ran for r in run_steps((step,), tmp_path, stamps)] == [True]
    assert (tmp_path / "out.txt").read_text() == "11"
    assert [r.ran for r in run_steps((step,), tmp_path, stamps)] == [False]
    (tmp_path / "inputs" / "a.txt").write_text("22")
    assert [r.ran for r in run_steps((step,), tmp_path, stamps)] == [True]
    assert (tmp_path / "out.txt").read_text() == "2222"


def test_failing_step_is_a_clear_error(tmp_path):
    step = Step(name="broken", run=f"{sys.executable} -c \"import sys; print('no data'); sys.exit(3)\"")
    with pytest.raises(SiteBuildError) as caught:
        run_steps((step,), tmp_path, tmp_path / "steps.json")
    message = str(caught.value)
    assert message.startswith("site.yaml step 'broken': ")
    assert "exited with status 3; no page was built" in message and message.endswith("no data")


def test_missing_command_is_a_clear_error(tmp_path):
    with pytest.raises(SiteBuildError, match="could not start `no-such-command-here`"):
        run_steps((Step(name="x", run="no-such-command-here"),), tmp_path, tmp_path / "steps.json")


def test_a_python_step_runs_with_the_interpreter_of_the_build():
    import sys

    from sitebuild.steps import command_line

    assert command_line("python -m tool --out 'a b'") == [sys.executable, "-m", "tool", "--out", "a b"]
    assert command_line("make results") == ["make", "results"]
