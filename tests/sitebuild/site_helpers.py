"""Shared helpers for the engine's tests: copy a fixture site to a temporary folder and
build it with the repository's templates."""

from __future__ import annotations

import shutil
from pathlib import Path

from sitebuild.config import make_config

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures" / "site"
TEMPLATES = REPO / "templates"


def copy_site(name: str, target: Path) -> Path:
    """Copy fixture site ``name`` into ``target`` and return its root."""
    root = target / name
    shutil.copytree(FIXTURES / name, root)
    return root


def site_config(root: Path, **options):
    """A build configuration over a copied fixture site."""
    options.setdefault("jobs", 1)
    return make_config(root, templates=TEMPLATES, **options)
