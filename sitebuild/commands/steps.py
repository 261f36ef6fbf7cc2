"""Stage 1a: the site's configured pre-build steps (``steps:`` in site.yaml), each run as a
subprocess from the repository root, skipped while its inputs are unchanged.

A step marked ``when: asked`` runs only when the build names it (``--step NAME``); a step's
``check:`` command runs on every build and check, after the step or in its place, and a
non-zero exit is an error with the command's own message (how a step says that what it
made is stale for its inputs). A step that names its ``outputs:`` has a passing check
remembered: it is not run again while the check command, the inputs and the outputs are
unchanged (a changed file, a new or a removed one runs it)."""

from __future__ import annotations

import hashlib
import shlex
import subprocess
import sys
import time
from pathlib import Path

from msgspec import Struct

from sitebuild.config import Step
from sitebuild.errors import SiteBuildError
from sitebuild.store.files import stat_line
from sitebuild.store.memo import Memo

OUTPUT_TAIL = 20
#: The format of the memo of the steps' inputs and passed checks.
STEPS_FORMAT = "1"


class StepResult(Struct):
    """What happened to one step: ran or skipped, and how long it took."""

    name: str
    ran: bool
    seconds: float
    checked: bool = False
    #: The check passed on these very inputs and outputs before, so it was not run again.
    check_remembered: bool = False


def _states(patterns: tuple[str, ...], root: Path) -> list[str]:
    """The state line (size, mtime) of every file the glob ``patterns`` match under ``root``."""
    return [stat_line(path) for pattern in patterns for path in sorted(root.glob(pattern)) if path.is_file()]


def inputs_digest(step: Step, root: Path) -> str:
    """A hash of the command and of every file its input patterns match (sizes, mtimes)."""
    return hashlib.sha256("\n".join([step.run, *_states(step.inputs, root)]).encode()).hexdigest()


def check_digest(step: Step, root: Path) -> str:
    """A hash of the check command, the step's inputs and its outputs (sizes, mtimes):
    what a remembered check must find unchanged."""
    lines = [step.check, inputs_digest(step, root), *_states(step.outputs, root)]
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()


def command_line(run: str) -> list[str]:
    """The step's command as arguments; a leading ``python`` is the interpreter running the
    build, so a step uses the same environment whether or not a virtualenv is activated."""
    argv = shlex.split(run)
    if argv and argv[0] in ("python", "python3"):
        argv[0] = sys.executable
    return argv


def run_step(step: Step, root: Path, stamps: dict[str, str], force: bool = False) -> StepResult:
    """Run ``step`` unless its inputs are unchanged since its last success. Raises
    :class:`SiteBuildError` with the command's exit status and the end of its output."""
    digest = inputs_digest(step, root)
    if not force and step.inputs and stamps.get(step.name) == digest:
        return StepResult(step.name, False, 0.0)
    started = time.monotonic()
    try:
        done = subprocess.run(command_line(step.run), cwd=root, capture_output=True, text=True)
    except OSError as error:
        raise SiteBuildError(f"site.yaml step '{step.name}': could not start `{step.run}` ({error}); check the "
                             f"command") from error
    if done.returncode != 0:
        tail = "\n".join((done.stdout + done.stderr).splitlines()[-OUTPUT_TAIL:])
        raise SiteBuildError(f"site.yaml step '{step.name}': `{step.run}` exited with status {done.returncode}; "
                             f"no page was built. Its last output:\n{tail}")
    stamps[step.name] = inputs_digest(step, root)
    return StepResult(step.name, True, time.monotonic() - started)


def check_step(step: Step, root: Path) -> None:
    """Run the step's ``check`` command; raise :class:`SiteBuildError` with its output when it fails."""
    try:
        done = subprocess.run(command_line(step.check), cwd=root, capture_output=True, text=True)
    except OSError as error:
        raise SiteBuildError(f"site.yaml step '{step.name}': could not start its check `{step.check}` ({error}); "
                             "check the command") from error
    if done.returncode != 0:
        tail = "\n".join((done.stdout + done.stderr).splitlines()[-OUTPUT_TAIL:])
        how = (f"`python build.py --step {step.name}` runs it" if step.when == "asked"
               else "the next build runs it again")
        raise SiteBuildError(f"site.yaml step '{step.name}': its check `{step.check}` failed (status "
                             f"{done.returncode}); {how}. The check said:\n{tail}")


def _check_or_remember(step: Step, root: Path, stamps: dict[str, str], force: bool) -> bool:
    """Run the step's check, unless it names outputs and passed on the same command,
    inputs and outputs before (then return True); remember a pass."""
    key = f"{step.name} check"
    digest = check_digest(step, root) if step.outputs else None
    if digest is not None and not force and stamps.get(key) == digest:
        return True
    stamps.pop(key, None)
    check_step(step, root)
    if digest is not None:
        stamps[key] = digest
    return False


def steps_memo(path: Path) -> Memo:
    """The memo of the steps: each step's inputs digest, and each remembered check's."""
    return Memo(path, "step checks", STEPS_FORMAT)


def run_steps(steps: tuple[Step, ...], root: Path, stamp_file: Path, force: bool = False,
              asked: tuple[str, ...] = ()) -> list[StepResult]:
    """Run every configured step in order (``when: asked`` steps only when named in ``asked``),
    then its check; remember the inputs of those that succeeded."""
    memo = steps_memo(stamp_file)
    stamps: dict[str, str] = memo.load({})
    results = []
    try:
        for step in steps:
            if step.when == "always" or step.name in asked:
                result = run_step(step, root, stamps, force or step.name in asked)
            else:
                result = StepResult(step.name, False, 0.0)
            if step.check:
                result.check_remembered = _check_or_remember(step, root, stamps, force)
                result.checked = True
            results.append(result)
    finally:
        if steps:
            memo.save(stamps)
    return results
