"""Time the benchmark grid: cold, warm and the significance share; or local joblib against a dask cluster.

Run from the repository root::

    python bench/harness.py [--jobs 2] [--seeds 42] [--audits SLUG ...]
    python bench/harness.py --scheduler local --seeds 0-29 [--audits SLUG ...] [--jobs 2]
    python bench/harness.py --scheduler tcp://host:8786 --seeds 0-29

Results go to temporary folders, never to results/.

Without --scheduler: a cold run (fresh, empty cache, every unit computed), a warm run with
that cache in this process and as the command ``python -m faircode.benchmark`` (interpreter
start included), and the significance share: CPU time inside ``fairness_report``
(metrics, intervals, p-values) over the units' CPU time.

With --scheduler: the same grid twice from an empty cache, in one run: through local joblib
with --jobs processes, and on the cluster, audit by audit, alternating which goes first so
that the machine's noise falls on both alike (``local`` starts a LocalCluster of --jobs
single-threaded workers before the clock starts, so both runs find their workers waiting).
It prints both wall times, their ratio (the cluster's overhead), checks that both wrote the
same bytes, and projects the grid's time on 32 workers from the units' measured CPU seconds
plus the measured overhead a unit (the workers' busy-or-idle time not spent inside units,
divided by the number of units).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# Run as a script, this file's folder is first on sys.path, and bench/coverage.py would stand in
# for the coverage package that numba (faircode's exact engine) imports if it is installed (as
# bench/coverage.py itself does not let it).
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != Path(__file__).resolve().parent]

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from faircode.benchmark import RESULTS_FILES, parse_seeds, run_benchmark  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
PROJECTED_WORKERS = 32


def timed_run(out: Path, cache: Path, **options):
    start = time.perf_counter()
    grid = run_benchmark(out=out, cache_dir=cache, progress=lambda line: None, **options)
    return time.perf_counter() - start, grid


def _timed_command(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True, cwd=ROOT)
    return time.perf_counter() - start


def cold_and_warm(args, tmp: Path) -> None:
    cache, out = tmp / "cache", tmp / "out"
    options = dict(seeds=args.seeds, jobs=args.jobs, audits=args.audits)
    cold, grid = timed_run(out, cache, **options)
    warm, warm_grid = timed_run(out, cache, **options)
    command = [sys.executable, "-m", "faircode.benchmark", "--out", str(out), "--cache-dir", str(cache),
               "--seeds", ",".join(map(str, args.seeds)), "--jobs", str(args.jobs),
               *(["--audits", *args.audits] if args.audits else [])]
    current_cli = _timed_command(command)  # the record says the files are current: nothing runs
    (out / "inputs.json").unlink()
    warm_cli = _timed_command(command)  # no record: every unit comes from the cache
    units = len(grid.units)
    compute, significance = grid.compute_seconds, grid.significance_seconds
    print(f"grid: {units} work units (audit x model x seed), {len(grid.fairness)} fairness rows, "
          f"{len(grid.performance)} performance rows, jobs={args.jobs}, cpus={os.cpu_count()}")
    print(f"{'measure':<44}{'value':>12}")
    print(f"{'cold run, wall time':<44}{cold:>10.1f} s")
    print(f"{'warm run (all units cached), wall time':<44}{warm:>10.2f} s")
    print(f"{'rerun of the command, results current':<44}{current_cli:>10.2f} s")
    print(f"{'rerun of the command, units from the cache':<44}{warm_cli:>10.2f} s")
    cached = sum(u.from_cache == "tables" for u in warm_grid.units)
    print(f"{'units taken from the cache on the warm run':<44}{cached:>8}/{units}")
    print(f"{'summed unit CPU time (cold)':<44}{compute:>10.1f} s")
    print(f"{'summed CPU time in fairness_report (cold)':<44}{significance:>10.2f} s")
    print(f"{'significance share of unit CPU time':<44}{significance / compute:>11.2%}")


def _audits(args) -> list[str]:
    from faircode.datasets import available_audits

    return list(args.audits) if args.audits else list(available_audits())


def _interleaved(audits: list[str], options: dict, tmp: Path, address: str):
    """Run each audit's units through joblib and on the cluster, alternating which goes first.

    Interleaving by audit spreads the machine's noise over both arms alike, so the ratio
    survives other work on the machine during a run of an hour or more. Each arm has its
    own cache, empty at the start, so every unit is computed in both.
    """
    walls = {"local": 0.0, "dask": 0.0}
    units = {"local": [], "dask": []}
    same = True
    for index, audit in enumerate(audits):
        arms = ("local", "dask") if index % 2 == 0 else ("dask", "local")
        for arm in arms:
            extra = {"scheduler": address} if arm == "dask" else {}
            wall, grid = timed_run(tmp / arm / audit, tmp / f"cache-{arm}", **options, audits=[audit], **extra)
            walls[arm] += wall
            units[arm].extend(grid.units)
            print(f"  {audit:<28}{arm:<6}{len(grid.units):>5} units {wall:>9.1f} s", flush=True)
        same &= all((tmp / "local" / audit / n).read_bytes() == (tmp / "dask" / audit / n).read_bytes()
                    for n in RESULTS_FILES if (tmp / "local" / audit / n).exists())
    return walls, units, same


def local_against_cluster(args, tmp: Path) -> None:
    options = dict(seeds=args.seeds, jobs=args.jobs)
    audits = _audits(args)
    cluster, address, started = None, args.scheduler, 0.0
    if args.scheduler == "local":
        from distributed import LocalCluster

        start = time.perf_counter()
        cluster = LocalCluster(n_workers=args.jobs, threads_per_worker=1, processes=True, dashboard_address=None)
        started, address = time.perf_counter() - start, cluster.scheduler_address
    try:
        walls, arms, same = _interleaved(audits, options, tmp, address)
    finally:
        if cluster is not None:
            cluster.close()
    local_wall, dask_wall, units = walls["local"], walls["dask"], arms["dask"]
    workers = len({u.worker for u in units})
    n = len(units)
    cpu = sum(u.cpu_seconds for u in units)
    busy = sum(u.seconds for u in units)
    overhead = max(0.0, (dask_wall * workers - busy) / n)
    longest = max(u.seconds for u in units)
    projected = max(longest, (cpu + n * overhead) / PROJECTED_WORKERS)
    print(f"grid: {n} work units, seeds {args.seeds[0]}-{args.seeds[-1]} ({len(args.seeds)}), {len(audits)} audits "
          f"run one by one, alternating which arm goes first; {workers} dask workers against --jobs {args.jobs} "
          f"local processes; cpus={os.cpu_count()}")
    print(f"{'measure':<58}{'value':>12}")
    print(f"{'local joblib, wall time (summed over audits)':<58}{local_wall:>10.1f} s")
    print(f"{'dask cluster, wall time (summed over audits)':<58}{dask_wall:>10.1f} s")
    print(f"{'overhead ratio (dask / joblib; target <= 1.1)':<58}{dask_wall / local_wall:>11.2f}x")
    if cluster is not None:
        print(f"{'LocalCluster start-up (not in the wall time above)':<58}{started:>10.1f} s")
    print(f"{'identical CSV bytes':<58}{'yes' if same else 'NO':>12}")
    print(f"{'summed unit CPU time':<58}{cpu:>10.1f} s")
    print(f"{'summed unit wall time on the workers':<58}{busy:>10.1f} s")
    print(f"{'median unit wall time':<58}{statistics.median(u.seconds for u in units):>10.2f} s")
    print(f"{'overhead a unit ((wall x workers - unit time) / units)':<58}{overhead:>10.3f} s")
    print(f"{'longest unit':<58}{longest:>10.1f} s")
    projection = (f"projected on {PROJECTED_WORKERS} workers: "
                  f"max(longest, (CPU + units x overhead) / {PROJECTED_WORKERS})")
    print(f"{projection:<58}"
          f"{projected:>10.1f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seeds", type=parse_seeds, default=[42])
    parser.add_argument("--audits", nargs="+", help="default: every audit")
    parser.add_argument("--scheduler", help="compare local joblib with the dask cluster at this address, or 'local'")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="faircode-bench-") as folder:
        if args.scheduler:
            local_against_cluster(args, Path(folder))
        else:
            cold_and_warm(args, Path(folder))


if __name__ == "__main__":
    main()
