"""ruff finds nothing in the repository, with the configuration of pyproject.toml
(pyflakes, isort, pycodestyle, lines of at most 120 characters)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _ruff() -> list[str]:
    found = shutil.which("ruff")
    return [found] if found else [sys.executable, "-m", "ruff"]


def test_ruff_finds_nothing():
    done = subprocess.run([*_ruff(), "check", "--no-cache", "--output-format", "concise", str(REPO)],
                          cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr


def test_ruff_reads_the_projects_configuration():
    done = subprocess.run([*_ruff(), "check", "--show-settings", str(REPO / "build.py")], cwd=REPO,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "line_length = 120" in done.stdout.replace("line-length", "line_length")
