"""The benchmark: load audits, run the grid of audit x strategy x model x seed, write results/.

Command line::

    python -m faircode.benchmark [--audits SLUG ...] [--strategies NAME ...] [--models NAME ...]
                                 [--seeds 42 | 0-29 | 1,2,3] [--jobs N] [--out results/]
                                 [--no-cache] [--cache-dir DIR]

Writes results_fairness.csv and results_performance.csv (and results_seed_spread.csv with
several seeds) into --out, all or nothing. Work units whose code, manifest and data are
unchanged are read from the cache (.cache/benchmark by default).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from faircode._results import SPREAD_COLUMNS, load_seed_spread, seed_spread, write_results
from faircode.datasets import AuditData, _load_dataset, available_audits, load_audit
from faircode.exceptions import FaircodeError
from faircode.harness import (DEFAULT_MODELS, DEFAULT_STRATEGIES, REPO_DIR, GridResult, WorkUnit,
                              plan_units, run_grid)

__all__ = ["AuditData", "GridResult", "WorkUnit", "_load_dataset", "available_audits", "load_audit",
           "SPREAD_COLUMNS", "load_seed_spread", "main", "parse_seeds", "plan_units", "run_benchmark", "run_grid", "seed_spread", "write_results"]


def parse_seeds(text: str) -> list[int]:
    """Seeds from ``"42"``, ``"0-29"`` or ``"1,2,3"`` (ranges include both ends)."""
    seeds: list[int] = []
    try:
        for part in text.split(","):
            if "-" in part.strip()[1:]:
                first, last = part.split("-", 1)
                seeds.extend(range(int(first), int(last) + 1))
            else:
                seeds.append(int(part))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected seeds like 42, 0-29 or 1,2,3; got {text!r}") from None
    if not seeds or min(seeds) < 0:
        raise argparse.ArgumentTypeError(f"expected non-negative seeds; got {text!r}")
    return list(dict.fromkeys(seeds))


def run_benchmark(out: str | Path = REPO_DIR / "results", **grid_options) -> GridResult:
    """Run the grid and write its results into ``out`` (all files or none)."""
    grid = run_grid(**grid_options)
    write_results(grid.fairness, grid.performance, out)
    return grid


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m faircode.benchmark", description=__doc__.split("\n\n")[0])
    parser.add_argument("--audits", nargs="+", help="audit slugs or names (default: every audit)")
    parser.add_argument("--strategies", nargs="+", choices=DEFAULT_STRATEGIES, help="default: all four")
    parser.add_argument("--models", nargs="+",
                        help=f"{', '.join(DEFAULT_MODELS)} or a deployed score such as compas_score "
                             "(default: all three and every deployed score)")
    parser.add_argument("--seeds", type=parse_seeds, default=[42], help="42, 0-29 or 1,2,3 (default 42)")
    parser.add_argument("--jobs", type=int, default=2, help="parallel workers (default 2)")
    parser.add_argument("--out", type=Path, default=REPO_DIR / "results", help="output folder (default results/)")
    parser.add_argument("--cache-dir", type=Path, help="cache folder (default .cache/benchmark)")
    parser.add_argument("--no-cache", action="store_true", help="recompute every work unit")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; returns the exit code."""
    args = _parser().parse_args(argv)
    progress = lambda line: print(line, flush=True)  # noqa: E731
    try:
        grid = run_benchmark(out=args.out, audits=args.audits, strategies=args.strategies, models=args.models,
                             seeds=args.seeds, jobs=args.jobs, cache_dir=args.cache_dir,
                             use_cache=not args.no_cache, progress=progress)
    except FaircodeError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    computed = sum(not u.from_cache for u in grid.units)
    print(f"wrote {len(grid.fairness)} fairness rows and {len(grid.performance)} performance rows to "
          f"{args.out} in {grid.seconds:.2f} s ({computed} of {len(grid.units)} work units computed)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
