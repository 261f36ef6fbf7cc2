"""The up-to-date check's view of traced inputs (sitebuild.execution.states, and
sitebuild.commands.uptodate.current_state): each kind's state line taken again by the
function the stamp names, without the record types."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from sitebuild.commands.uptodate import current_state
from sitebuild.execution import states
from sitebuild.execution.deps import RECORD_TYPES, FileHasher, entry_deps, state_locations
from sitebuild.execution.states import state_function, state_location
from sitebuild.store.files import listing_digest, path_state

REPO = Path(__file__).resolve().parents[3]


def _report(root: Path) -> dict:
    (root / "data.txt").write_text("one")
    (root / "folder").mkdir()
    (root / "out.txt").write_text("written")
    return {"files": {"data.txt": {"stat": path_state(root / "data.txt"), "sha256": None, "changed": False},
                      "missing.txt": {"stat": None, "sha256": None, "changed": False}},
            "listings": {"folder": listing_digest(root / "folder")},
            "env": {"FC_STATES_TEST": "1"}, "packages": {}, "writes": ["out.txt"], "untraced": {}}


def test_every_built_in_kind_is_taken_again_by_a_function_of_the_light_module():
    locations = state_locations()
    assert set(locations) == set(RECORD_TYPES)
    assert all(location.startswith("sitebuild.execution.states:") for location in locations.values()), locations


def test_the_named_function_gives_what_the_record_type_gives_and_sees_a_change(tmp_path):
    lines = entry_deps(_report(tmp_path), FileHasher(tmp_path), [], "engine").stamp_lines()
    env = {"FC_STATES_TEST": "1"}
    locations = state_locations()
    assert all(current_state(line, state, tmp_path, env, locations) == state for line, state in lines.items())
    (tmp_path / "folder" / "new.txt").write_text("x")
    (tmp_path / "out.txt").unlink()
    (tmp_path / "missing.txt").write_text("there now")
    assert current_state("files:missing.txt", None, tmp_path, env, locations) is not None
    assert current_state("listings:folder", lines["listings:folder"], tmp_path, env, locations) != \
        lines["listings:folder"]
    assert current_state("writes:out.txt", lines["writes:out.txt"], tmp_path, env, locations) is False
    assert current_state("env:FC_STATES_TEST", "1", tmp_path, {}, locations) is None


def test_a_location_that_cannot_be_found_falls_back_to_the_record_types(tmp_path):
    env = {"FC_STATES_TEST": "2"}
    for location in ("sitebuild.no_such_module:f", "sitebuild.execution.states:no_such_function",
                     "tests.x:test.<locals>.f", "", 42):
        assert current_state("env:FC_STATES_TEST", None, tmp_path, env, {"env": location}) == "2", location
    assert current_state("env:FC_STATES_TEST", None, tmp_path, env, None) == "2"  # a stamp without locations
    assert current_state("gadgets:x", None, tmp_path, env, {}) == ["unknown kind", "gadgets"]


class _Kind:
    """A kind as the recipe in CONTRIBUTING.md writes it: ``state_now`` a classmethod."""

    @classmethod
    def state_now(cls, key, recorded, root, env):
        return f"{cls.__name__} {key}"


def test_a_classmethod_is_named_by_its_class_and_found_again(tmp_path):
    location = state_location(_Kind.state_now)
    assert location == f"{__name__}:_Kind.state_now"
    assert current_state("gadgets:x", None, tmp_path, {}, {"gadgets": location}) == "_Kind x"
    assert state_location(states.listing_now) == "sitebuild.execution.states:listing_now"
    assert state_function("listings", {"listings": state_location(states.listing_now)}) is states.listing_now
    assert state_function("listings", {}) is None and state_function("listings", None) is None


def test_a_build_with_nothing_to_do_imports_no_record_type(tmp_path):
    """The fast path's point: the record types' library (msgspec), dataclasses and the
    stages stay unimported while the stamp holds, and a real no-op says so."""
    (tmp_path / "explainers").mkdir()
    (tmp_path / "explainers" / "page.md").write_text(
        "---\ntitle: Page\nsummary: A page.\n---\n\nProse.\n\n```python\nprint(2 + 2)\n```\n")
    past = 1_000_000_000 * (int(os.path.getmtime(tmp_path)) - 60)
    os.utime(tmp_path / "explainers" / "page.md", ns=(past, past))  # not racy: the first build's stamp holds
    script = textwrap.dedent(f"""
        import sys
        from sitebuild.commands.build import run_build
        from sitebuild.config import make_config
        config = make_config({str(tmp_path)!r}, templates={str(REPO / "templates")!r}, jobs=1)
        summary = run_build(config)
        heavy = sorted(m for m in ("msgspec", "dataclasses", "sitebuild.execution.deps", "sitebuild.commands.stages")
                       if m in sys.modules)
        print(summary.up_to_date, summary.ok, heavy)
    """)
    env = dict(os.environ, PYTHONPATH=str(REPO))
    first = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert first.returncode == 0 and first.stdout.startswith("False True"), first.stderr[-2000:]
    again = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert again.stdout.strip() == "True True []", (again.stdout, again.stderr[-2000:])
