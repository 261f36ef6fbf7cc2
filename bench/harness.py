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
with --jobs processes, and on the cluster (``local`` starts a LocalCluster of --jobs
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
               "--seeds", ",".join(map(str, args.seeds)), "--jobs", str(args.jobs), *(["--audits", *args.audits] if args.audits else [])]
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


def local_against_cluster(args, tmp: Path) -> None:
    options = dict(seeds=args.seeds, audits=args.audits, jobs=args.jobs)
    cluster, address, started = None, args.scheduler, 0.0
    if args.scheduler == "local":
        from distributed import LocalCluster

        start = time.perf_counter()
        cluster = LocalCluster(n_workers=args.jobs, threads_per_worker=1, processes=True, dashboard_address=None)
        started, address = time.perf_counter() - start, cluster.scheduler_address
    try:
        local_wall, local = timed_run(tmp / "local", tmp / "cache-local", **options)
        dask_wall, remote = timed_run(tmp / "dask", tmp / "cache-dask", scheduler=address, **options)
        workers = len({u.worker for u in remote.units})
    finally:
        if cluster is not None:
            cluster.close()
    same = all((tmp / "local" / n).read_bytes() == (tmp / "dask" / n).read_bytes()
               for n in RESULTS_FILES if (tmp / "local" / n).exists())
    units = remote.units
    n = len(units)
    cpu = sum(u.cpu_seconds for u in units)
    busy = sum(u.seconds for u in units)
    overhead = max(0.0, (dask_wall * workers - busy) / n)
    longest = max(u.seconds for u in units)
    projected = max(longest, (cpu + n * overhead) / PROJECTED_WORKERS)
    print(f"grid: {n} work units, seeds {args.seeds[0]}-{args.seeds[-1]} ({len(args.seeds)}), audits "
          f"{', '.join(args.audits) if args.audits else 'all'}; {workers} dask workers against --jobs {args.jobs} "
          f"local processes; cpus={os.cpu_count()}")
    print(f"{'measure':<58}{'value':>12}")
    print(f"{'local joblib, wall time':<58}{local_wall:>10.1f} s")
    print(f"{'dask cluster, wall time':<58}{dask_wall:>10.1f} s")
    print(f"{'overhead ratio (dask / joblib; target <= 1.1)':<58}{dask_wall / local_wall:>11.2f}x")
    if cluster is not None:
        print(f"{'LocalCluster start-up (not in the wall time above)':<58}{started:>10.1f} s")
    print(f"{'identical CSV bytes':<58}{'yes' if same else 'NO':>12}")
    print(f"{'summed unit CPU time':<58}{cpu:>10.1f} s")
    print(f"{'summed unit wall time on the workers':<58}{busy:>10.1f} s")
    print(f"{'median unit wall time':<58}{statistics.median(u.seconds for u in units):>10.2f} s")
    print(f"{'overhead a unit ((wall x workers - unit time) / units)':<58}{overhead:>10.3f} s")
    print(f"{'longest unit':<58}{longest:>10.1f} s")
    print(f"{f'projected on {PROJECTED_WORKERS} workers: max(longest, (CPU + units x overhead) / {PROJECTED_WORKERS})':<58}"
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
