#!/usr/bin/env python3
"""The site build: ``python build.py --help``. The commands are in
:mod:`sitebuild.commands.cli`; this file says where the project is (its own folder, the
default of ``--root``)."""

from __future__ import annotations

from pathlib import Path

from sitebuild.commands import cli

__all__ = ["ROOT", "main"]

ROOT = Path(__file__).resolve().parent


def main(argv: list[str] | None = None) -> int:
    """Run one command (``argv``, default the process's arguments) in the project at
    :data:`ROOT`, unless ``--root`` names another; return its exit status."""
    return cli.main(argv, root=ROOT)


if __name__ == "__main__":
    cli.run(main)
