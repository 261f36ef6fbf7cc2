"""Configured pre-build steps: run from the root, skipped while inputs are unchanged, and
a failing step stops the build with its command, status and output."""

from __future__ import annotations

import sys

import pytest

from sitebuild.commands.steps import run_steps
from sitebuild.config import Step
from sitebuild.errors import SiteBuildError


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

    from sitebuild.commands.steps import command_line

    assert command_line("python -m tool --out 'a b'") == [sys.executable, "-m", "tool", "--out", "a b"]
    assert command_line("make results") == ["make", "results"]


def test_an_asked_step_runs_only_when_named_and_its_check_runs_on_every_build(tmp_path):
    step = write_step(tmp_path)
    check = f"{sys.executable} -c \"import pathlib, sys; sys.exit(0 if pathlib.Path('out.txt').exists() else 4)\""
    asked = Step(name="double", run=step.run, inputs=step.inputs, when="asked", check=check)
    stamps = tmp_path / "steps.json"
    with pytest.raises(SiteBuildError) as caught:
        run_steps((asked,), tmp_path, stamps)
    assert not (tmp_path / "out.txt").exists()
    message = str(caught.value)
    assert message.startswith("site.yaml step 'double': its check `") and "failed (status 4)" in message
    assert "`python build.py --step double` runs it" in message
    results = run_steps((asked,), tmp_path, stamps, asked=("double",))
    assert [(r.ran, r.checked) for r in results] == [(True, True)] and (tmp_path / "out.txt").read_text() == "11"
    assert [(r.ran, r.checked) for r in run_steps((asked,), tmp_path, stamps)] == [(False, True)]


def test_a_failing_check_carries_the_checks_own_message(tmp_path):
    check = f"{sys.executable} -c \"import sys; sys.exit('error: results/a.csv is stale: data changed')\""
    step = Step(name="results", run=f"{sys.executable} -c pass", check=check)
    with pytest.raises(SiteBuildError, match=r"(?s)check .* failed \(status 1\); the next build runs it again\. "
                                             r"The check said:\nerror: results/a.csv is stale: data changed"):
        run_steps((step,), tmp_path, tmp_path / "steps.json")


def counting_check(tmp_path) -> str:
    """A check that passes while made/a.txt exists, and counts its runs in checks.log."""
    return (f"{sys.executable} -c \"import pathlib, sys; open('checks.log', 'a').write('x'); "
            f"sys.exit(0 if pathlib.Path('made/a.txt').exists() else 3)\"")


def test_a_check_with_outputs_is_remembered_until_an_input_or_an_output_changes(tmp_path):
    (tmp_path / "in.txt").write_text("1")
    (tmp_path / "made").mkdir()
    (tmp_path / "made" / "a.txt").write_text("result")
    step = Step(name="results", run=f"{sys.executable} -c pass", inputs=("in.txt",), check=counting_check(tmp_path),
                outputs=("made/*",))
    stamps = tmp_path / "steps.json"
    runs = lambda: len((tmp_path / "checks.log").read_text()) if (tmp_path / "checks.log").exists() else 0  # noqa: E731
    first = run_steps((step,), tmp_path, stamps)
    assert runs() == 1 and (first[0].checked, first[0].check_remembered) == (True, False)
    again = run_steps((step,), tmp_path, stamps)
    assert runs() == 1 and (again[0].checked, again[0].check_remembered) == (True, True)
    (tmp_path / "made" / "a.txt").write_text("another result")       # an output changed
    run_steps((step,), tmp_path, stamps)
    assert runs() == 2
    (tmp_path / "made" / "b.txt").write_text("new")                  # a new output
    run_steps((step,), tmp_path, stamps)
    assert runs() == 3
    run_steps((step,), tmp_path, stamps, force=True)                 # --force runs it
    assert runs() == 4
    (tmp_path / "made" / "a.txt").unlink()                           # the check now fails, and is not remembered
    for _ in range(2):
        with pytest.raises(SiteBuildError, match="failed \\(status 3\\)"):
            run_steps((step,), tmp_path, stamps)
    assert runs() == 6


def test_a_check_without_outputs_runs_on_every_build(tmp_path):
    (tmp_path / "made").mkdir()
    (tmp_path / "made" / "a.txt").write_text("result")
    step = Step(name="results", run=f"{sys.executable} -c pass", check=counting_check(tmp_path))
    for _ in range(3):
        assert not run_steps((step,), tmp_path, tmp_path / "steps.json")[0].check_remembered
    assert len((tmp_path / "checks.log").read_text()) == 3


def test_outputs_must_be_a_list_of_globs(tmp_path):
    from sitebuild.config import load_site_config
    from sitebuild.errors import ConfigError

    site = tmp_path / "site.yaml"
    site.write_text("steps:\n  - name: results\n    run: python -c pass\n    outputs: results/*\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"steps\[0\]\.outputs: expected a list of glob patterns, found 'results/\*'"):
        load_site_config(site)
