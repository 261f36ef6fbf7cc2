"""The record of what each results file was computed from: results/inputs.json.

For every results file the record holds the sha256 of the file itself and of its inputs:
each faircode module a work unit runs, each audit's manifest and data files, and the grid
(audits, strategies, models, seeds), plus the command that writes it. A fresh clone whose
inputs match the record reuses the committed files instead of recomputing them, and
:func:`stale_results` says which committed file no longer matches its inputs and why.

Light on purpose (no numpy, pandas or scikit-learn): checking takes a fraction of a second.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from faircode._digest import UNIT_ENTRY, bytes_digest, file_digest, module_closure
from faircode.exceptions import FaircodeError
from faircode.manifest import load_manifest

REPO_DIR = Path(__file__).resolve().parent.parent
RECORD_FILE = "inputs.json"
ABOUT = ("sha256 of each results file and of the inputs it was computed from; "
         "`python -m faircode.benchmark --verify` compares them with the current inputs")


@dataclass(frozen=True)
class GridSpec:
    """The grid a results file comes from, as the command line gave it (None: the default)."""

    audits: tuple[str, ...] | None
    strategies: tuple[str, ...]
    models: tuple[str, ...] | None
    seeds: tuple[int, ...]
    sweep: bool = False

    def command(self, out: str = "results") -> str:
        """The command that writes the file, for messages."""
        parts = ["python -m faircode.benchmark"]
        if self.audits:
            parts.append("--audits " + " ".join(self.audits))
        if self.models:
            parts.append("--models " + " ".join(self.models))
        from faircode._grid import STRATEGIES
        if tuple(self.strategies) != STRATEGIES:
            parts.append("--strategies " + " ".join(self.strategies))
        parts.append("--seeds " + ",".join(map(str, self.seeds)))
        if self.sweep:
            parts.append("--sweep")
        parts.append(f"--out {out}")
        return " ".join(parts)


#: The modules whose import closures make a results file: the unit runner, and the code
#: that combines units, summarises seeds and formats the files.
RESULTS_CODE = (UNIT_ENTRY, "_results")


def code_inputs() -> dict[str, str]:
    """sha256 of each faircode module that makes a results file, by file name."""
    paths = set().union(*(module_closure(entry) for entry in RESULTS_CODE))
    return {path.name: file_digest(path) for path in sorted(paths)}


def manifest_paths(spec: GridSpec) -> list[Path]:
    """The manifest files of the grid's audits (see :func:`faircode.datasets.find_manifest_path`)."""
    from faircode.datasets import audits_root, available_audits, find_manifest_path

    names = list(spec.audits) if spec.audits else available_audits()
    return [find_manifest_path(name, audits_root()) for name in names]


def audit_inputs(paths: list[Path]) -> dict[str, dict[str, str]]:
    """Per audit slug: sha256 of its manifest and of each data file (named relative to the audit
    folder), and the manifest's path (relative to the repository when inside it)."""
    found = {}
    for manifest_path in paths:
        manifest = load_manifest(manifest_path)
        folder = manifest.path.parent
        files = {"audit.yaml": bytes_digest(manifest.path.read_bytes())}
        for path in (manifest.data.path, manifest.data.decode):
            if path is not None:
                files[_relative(path, folder)] = file_digest(path) if path.is_file() else "missing"
        found[manifest.slug] = {"manifest": _relative(manifest.path, REPO_DIR), **files}
    return found


def _all_manifests() -> list[Path]:
    """Every audit's manifest under the audits folder, as faircode.datasets finds them, without
    importing pandas (this module must stay light)."""
    root = Path(os.environ.get("FAIRCODE_AUDITS_DIR") or REPO_DIR / "audits")
    return sorted(root.glob("*/audit.yaml"))


def _relative(path: Path, folder: Path) -> str:
    try:
        return path.resolve().relative_to(folder.resolve()).as_posix()
    except ValueError:
        return path.as_posix()


def current_inputs(spec: GridSpec, paths: list[Path] | None = None) -> dict:
    """The inputs of a results file of this grid as they are now (``paths``: its audits'
    manifests, found from the spec when not given)."""
    paths = manifest_paths(spec) if paths is None else paths
    return {"grid": {"audits": list(spec.audits) if spec.audits else "all", "strategies": list(spec.strategies),
                     "models": list(spec.models) if spec.models else "all", "seeds": list(spec.seeds),
                     "sweep": spec.sweep},
            "code": code_inputs(), "audits": audit_inputs(paths)}


def read_record(out: Path) -> dict:
    """The record in ``out`` (an empty one when there is none); a damaged record is an error."""
    path = Path(out) / RECORD_FILE
    if not path.is_file():
        return {"about": ABOUT, "files": {}}
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as err:
        raise FaircodeError(f"{path}: not valid JSON ({err}); restore it from git or rerun the benchmark") from None
    if not isinstance(record, dict) or not isinstance(record.get("files"), dict):
        raise FaircodeError(f"{path}: expected a mapping with 'files'; restore it from git or rerun the benchmark")
    return record


def record_bytes(record: dict, entries: dict[str, dict]) -> bytes:
    """The record with ``entries`` (file name -> entry) replaced, as the bytes of inputs.json."""
    files = {**record.get("files", {}), **entries}
    text = json.dumps({"about": ABOUT, "files": dict(sorted(files.items()))}, indent=1, sort_keys=False)
    return (text + "\n").encode("utf-8")


def entry(content: bytes, spec: GridSpec, inputs: dict, out: str = "results") -> dict:
    """The record entry of a results file with these bytes."""
    return {"sha256": bytes_digest(content), "command": spec.command(out), **inputs}


def spec_of(entry: dict) -> GridSpec:
    """The grid recorded in an entry."""
    grid = entry["grid"]
    return GridSpec(audits=None if grid["audits"] == "all" else tuple(grid["audits"]),
                    strategies=tuple(grid["strategies"]),
                    models=None if grid["models"] == "all" else tuple(grid["models"]),
                    seeds=tuple(grid["seeds"]), sweep=bool(grid.get("sweep", False)))


def is_current(out: Path, names: list[str], spec: GridSpec, inputs: dict | None = None) -> bool:
    """Whether every file of ``names`` in ``out`` is recorded with exactly these inputs and is unchanged."""
    record = read_record(out)
    inputs = inputs if inputs is not None else current_inputs(spec)
    for name in names:
        recorded = record["files"].get(name)
        if not isinstance(recorded, dict) or not (Path(out) / name).is_file():
            return False
        if file_digest(Path(out) / name) != recorded.get("sha256"):
            return False
        if {k: recorded.get(k) for k in inputs} != inputs:
            return False
    return True


def stale_results(out: Path, names: list[str] | None = None) -> list[str]:
    """One message per results file in ``out`` that no longer matches its recorded inputs.

    ``names`` limits the check to those files (default: every file the record lists).
    """
    out = Path(out)
    if not (out / RECORD_FILE).is_file():
        return [f"{out / RECORD_FILE}: no record of the results' inputs; write the results with "
                "`python -m faircode.benchmark`, which records them"]
    record = read_record(out)
    names = list(names) if names else sorted(record["files"])
    problems = []
    for name in names:
        recorded = record["files"].get(name)
        if recorded is None:
            problems.append(f"{out / name}: not in {out / RECORD_FILE}; write it with `python -m faircode.benchmark`")
            continue
        reasons = _reasons(out / name, recorded)
        if reasons:
            command = recorded.get("command") if isinstance(recorded, dict) else None
            problems.append(f"{out / name} is stale: {'; '.join(reasons)}. Regenerate it with "
                            f"`{command or 'python -m faircode.benchmark'}`")
    return problems


#: Why a hand-edited entry of the record cannot be checked.
DAMAGED_ENTRY = ("its entry in inputs.json is damaged (expected 'sha256', 'command', 'code', 'audits' and a "
                 "'grid' of audits, strategies, models and seeds)")


def _reasons(path: Path, recorded: dict) -> list[str]:
    if not path.is_file():
        return ["the file is missing"]
    try:
        spec = spec_of(recorded)
    except (AttributeError, KeyError, TypeError, ValueError):
        return [DAMAGED_ENTRY]
    reasons = []
    if file_digest(path) != recorded.get("sha256"):
        reasons.append("the file was edited since it was computed")
    paths = [REPO_DIR / a["manifest"] for a in recorded.get("audits", {}).values() if "manifest" in a]
    if spec.audits is None:  # every audit: one added or removed is a change too
        paths = _all_manifests()
    now = current_inputs(spec, [p for p in paths if p.is_file()])
    changed_code = _changed(recorded.get("code", {}), now["code"])
    if changed_code:
        reasons.append("faircode code changed (" + ", ".join(f"faircode/{n}" for n in changed_code) + ")")
    old_audits, new_audits = recorded.get("audits", {}), now["audits"]
    for slug in sorted(set(old_audits) | set(new_audits)):
        if slug not in new_audits:
            reasons.append(f"audit {slug} is gone")
        elif slug not in old_audits:
            reasons.append(f"audit {slug} is new")
        else:
            reasons.extend(f"audit {slug}: {n} changed" for n in _changed(old_audits[slug], new_audits[slug]))
    return reasons


def _changed(old: dict[str, str], new: dict[str, str]) -> list[str]:
    return sorted(n for n in set(old) | set(new) if old.get(n) != new.get(n))
