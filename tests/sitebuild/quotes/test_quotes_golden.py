"""A golden test of the binding report of one real page: the hiring-callbacks audit, run
in a real kernel on the repository's own data, each prose number with its verdict and
the label and line of the output it is bound to. A change to the binding shows here as
a small diff; regenerate the golden file with
``python -m tests.sitebuild.quotes.test_quotes_golden`` after reading the diff."""

from __future__ import annotations

import sys
from pathlib import Path

from sitebuild.commands.build import run_build
from sitebuild.config import make_config
from sitebuild.quotes.results import PageQuotes

REPO = Path(__file__).resolve().parents[3]
SLUG = "audit-hiring-callbacks"
GOLDEN = REPO / "tests" / "fixtures" / "golden" / f"quotes_binding_{SLUG}.txt"


def binding_report(quotes: PageQuotes) -> str:
    """One line per prose number: where, what, its verdict, and the output it is bound to."""
    lines = []
    for result in quotes.results:
        bound = f' <- [{result.label}] "{" ".join(result.output_line.split())}"' if result.output_ref else ""
        lines.append(f"{result.line}:{result.col} {result.text} {result.status.value}{bound}")
    return "\n".join(lines) + "\n"


def checked_page(work: Path) -> PageQuotes:
    """The check of the real page, its execution cached in ``work`` (nothing in the
    repository is written: ``check`` leaves the lock and the scripts alone)."""
    config = make_config(REPO, out=work / "site", cache_dir=work / "cache", only=[SLUG], run_steps=False, jobs=1)
    return run_build(config, check_only=True).quotes.pages[SLUG]


def test_the_binding_report_of_a_real_page_is_the_golden_one(tmp_path):
    assert binding_report(checked_page(tmp_path)) == GOLDEN.read_text(encoding="utf-8")


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        GOLDEN.write_text(binding_report(checked_page(Path(folder))), encoding="utf-8")
    sys.stdout.write(GOLDEN.read_text(encoding="utf-8"))
