"""The benchmark: run the grid of audit x strategy x model x seed and write results/.

Command line::

    python -m faircode.benchmark [--audits SLUG ...] [--strategies NAME ...] [--models NAME ...]
                                 [--seeds 42 | 0-29 | 1,2,3] [--sweep] [--jobs N] [--out results/]
                                 [--scheduler ADDRESS | local] [--no-cache] [--cache-dir DIR]
    python -m faircode.benchmark --verify [FILE ...] [--out results/]

Writes results_fairness.csv and results_performance.csv (and results_seed_spread.csv with
several seeds; with --sweep only that one) into --out, all or nothing, together with
inputs.json, the digests of the inputs each file was computed from. When a file's recorded
inputs are those of today, it is kept as it is and nothing is computed. Work units whose code,
manifest and data are unchanged are read from the cache (.cache/benchmark by default); with
--scheduler they run on a dask.distributed cluster instead of local processes. --verify
exits 1, saying why, when a recorded results file no longer matches its inputs.

Heavy libraries (pandas, scikit-learn, distributed) are imported only when a grid runs, so
that --verify takes a fraction of a second.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from faircode._grid import MODELS, RESULTS_FILES, SPREAD_FILE, STRATEGIES
from faircode._record import GridSpec, stale_results
from faircode.exceptions import FaircodeError

if TYPE_CHECKING:
    from faircode.harness import GridResult

REPO_DIR = Path(__file__).resolve().parent.parent

__all__ = ["MODELS", "RESULTS_FILES", "SPREAD_COLUMNS", "STRATEGIES", "GridResult", "load_seed_spread", "main",
           "parse_seeds", "run_benchmark", "run_grid", "seed_spread", "stale_results"]

# Imported on first use (see the module docstring); ``load_audit`` stays importable from here
# for pages written before its home became faircode.datasets.
_LAZY = {"GridResult": "faircode.harness", "run_grid": "faircode.harness", "SPREAD_COLUMNS": "faircode._results",
         "load_seed_spread": "faircode._results", "seed_spread": "faircode._results",
         "load_audit": "faircode.datasets"}


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'faircode.benchmark' has no attribute {name!r}")


def parse_seeds(text: str) -> list[int]:
    """Seeds from ``"42"``, ``"0-29"`` or ``"1,2,3"`` (ranges include both ends).

    Examples
    --------
    >>> parse_seeds("0-2,42")
    [0, 1, 2, 42]
    """
    seeds: list[int] = []
    try:
        for part in text.split(","):
            if "-" in part.strip()[1:]:
                first, last = (int(end) for end in part.split("-", 1))
                if last < first:
                    raise argparse.ArgumentTypeError(f"the range {part.strip()!r} is empty: write its smaller seed "
                                                     f"first; got {text!r}")
                seeds.extend(range(first, last + 1))
            else:
                seeds.append(int(part))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected seeds like 42, 0-29 or 1,2,3; got {text!r}") from None
    if not seeds or min(seeds) < 0 or max(seeds) > MAX_SEED:
        raise argparse.ArgumentTypeError(f"expected seeds from 0 to {MAX_SEED} (scikit-learn's random_state); "
                                         f"got {text!r}")
    return list(dict.fromkeys(seeds))


#: The largest seed scikit-learn's ``random_state`` takes.
MAX_SEED = 2**32 - 1


def positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1.

    Examples
    --------
    >>> positive_int("2")
    2
    """
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1; got {text!r}")
    return value


def run_benchmark(out: str | Path = REPO_DIR / "results", *, sweep: bool = False, audits=None, strategies=None,
                  models=None, seeds=None, **grid_options) -> GridResult:
    """Run the grid and write its results into ``out`` with their record (all files or none).

    Parameters
    ----------
    out : str or Path
        The results folder.
    sweep : bool
        Write only the seed spread summary (needs several seeds).
    audits, strategies, models, seeds, **grid_options
        As for :func:`faircode.harness.run_grid` (``jobs``, ``cache_dir``, ``use_cache``,
        ``scheduler``, ``progress``, ``audits_dir``).

    Returns
    -------
    GridResult

    Examples
    --------
    >>> grid = run_benchmark("/tmp/results", audits=["german_credit_lending"],
    ...                      models=["logistic_regression"])  # doctest: +SKIP
    """
    from faircode._record import RECORD_FILE, current_inputs, entry, read_record, record_bytes
    from faircode._results import results_contents, write_files
    from faircode.harness import run_grid

    spec = _spec(audits, strategies, models, seeds, sweep)
    inputs = current_inputs(spec) if grid_options.get("audits_dir") is None else None
    grid = run_grid(audits=audits, strategies=strategies, models=models, seeds=seeds, **grid_options)
    contents = results_contents(grid.fairness, grid.performance, sweep)
    if inputs is not None:
        entries = {name: entry(content, spec, inputs, _shown(out)) for name, content in contents.items()}
        contents[RECORD_FILE] = record_bytes(read_record(Path(out)), entries)
    write_files(contents, out)
    return grid


def _spec(audits, strategies, models, seeds, sweep: bool) -> GridSpec:
    return GridSpec(audits=tuple(map(str, audits)) if audits else None, strategies=tuple(strategies or STRATEGIES),
                    models=tuple(models) if models else None, seeds=tuple(seeds or [42]), sweep=sweep)


def _shown(out: str | Path) -> str:
    try:
        return Path(out).resolve().relative_to(Path.cwd()).as_posix()
    except ValueError:
        return str(out)


def _planned_files(spec: GridSpec) -> list[str]:
    if spec.sweep:
        return [SPREAD_FILE]
    return [name for name in RESULTS_FILES if len(spec.seeds) > 1 or name != SPREAD_FILE]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m faircode.benchmark", description=__doc__.split("\n\n")[0])
    parser.add_argument("--audits", nargs="+", help="audit slugs, names or folders (default: every audit)")
    parser.add_argument("--strategies", nargs="+", choices=STRATEGIES, help="default: all four")
    parser.add_argument("--models", nargs="+",
                        help=f"{', '.join(MODELS)} or a deployed score such as compas_score "
                             "(default: all three and every deployed score)")
    parser.add_argument("--seeds", type=parse_seeds, default=[42], help="42, 0-29 or 1,2,3 (default 42)")
    parser.add_argument("--sweep", action="store_true", help="write only results_seed_spread.csv (several seeds)")
    parser.add_argument("--jobs", type=positive_int, default=2, help="parallel local workers (default 2)")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="run the units on the dask.distributed scheduler at ADDRESS (tcp://host:8786), "
                             "or 'local' for a LocalCluster of --jobs workers")
    parser.add_argument("--out", type=Path, default=REPO_DIR / "results", help="output folder (default results/)")
    parser.add_argument("--cache-dir", type=Path, help="cache folder (default .cache/benchmark)")
    parser.add_argument("--no-cache", action="store_true",
                        help="recompute every work unit, even when the results are current for their inputs")
    parser.add_argument("--verify", nargs="*", metavar="FILE",
                        help="check the recorded results files (default: all in --out) against their inputs")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; returns the exit code."""
    parser = _parser()
    args = parser.parse_args(argv)
    if args.out.exists() and not args.out.is_dir():
        parser.error(f"--out {args.out} is a file; expected a folder for the results")
    if args.verify is not None:
        return _verify(args.out, args.verify)
    if args.sweep and len(args.seeds) < 2:
        parser.error("--sweep summarises several seeds; got one. Give --seeds 0-29,42")
    spec = _spec(args.audits, args.strategies, args.models, args.seeds, args.sweep)
    progress = lambda line: print(line, flush=True)  # noqa: E731
    try:
        if not args.no_cache and _current(args.out, spec):
            print(f"{', '.join(_planned_files(spec))} in {args.out} are current for their recorded inputs "
                  f"({args.out / 'inputs.json'}); nothing to compute")
            return 0
        grid = run_benchmark(out=args.out, sweep=args.sweep, audits=args.audits, strategies=args.strategies,
                             models=args.models, seeds=args.seeds, jobs=args.jobs, cache_dir=args.cache_dir,
                             use_cache=not args.no_cache, progress=progress, scheduler=args.scheduler)
    except FaircodeError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"interrupted; {args.out} was left as it was", file=sys.stderr)
        return 130
    computed = sum(u.from_cache != "tables" for u in grid.units)
    print(f"wrote {len(grid.fairness)} fairness rows and {len(grid.performance)} performance rows "
          f"{'(summarised as the seed spread) ' if args.sweep else ''}to {args.out} in {grid.seconds:.2f} s "
          f"({computed} of {len(grid.units)} work units computed)")
    return 0


def _name_in(out: Path, name: str) -> str:
    """A results file named as --verify was given it (a name, or a path into ``out``), as the record names it."""
    path = Path(name)
    try:
        return path.resolve().relative_to(Path(out).resolve()).as_posix() if len(path.parts) > 1 else name
    except ValueError:
        return name


def _current(out: Path, spec: GridSpec) -> bool:
    from faircode._record import is_current

    return is_current(out, _planned_files(spec), spec)


def _verify(out: Path, names: list[str]) -> int:
    names = [_name_in(out, name) for name in names]
    try:
        problems = stale_results(out, names)
    except FaircodeError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    for problem in problems:
        print(f"error: {problem}", file=sys.stderr)
    if not problems:
        print(f"results in {out} are current for their recorded inputs")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
