"""Time the benchmark grid: cold (empty cache), warm (unchanged rerun), and the significance share.

Run from the repository root::

    python bench/harness.py [--jobs 2] [--out results] [--seeds 42]

The cold run uses a fresh, empty cache folder, so every work unit is computed; the warm
run repeats it with that cache, in this process and then as the command
``python -m faircode.benchmark`` (interpreter start included). Both write the results into --out (the
committed results/ by default; the warm run rewrites identical files). The significance
share is the CPU time spent inside ``fairness_report`` (metrics and their intervals and
p-values), summed over work units, divided by the summed CPU time of the units: an upper
bound on the share spent in significance alone. CPU time, not wall time, so that other
processes on the machine do not distort the share.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from faircode.benchmark import parse_seeds, run_benchmark  # noqa: E402


def timed_run(out: Path, cache: Path, jobs: int, seeds: list[int]):
    start = time.perf_counter()
    grid = run_benchmark(out=out, seeds=seeds, jobs=jobs, cache_dir=cache, progress=lambda line: None)
    return time.perf_counter() - start, grid


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parents[1] / "results")
    parser.add_argument("--seeds", type=parse_seeds, default=[42])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="faircode-bench-cache-") as cache_dir:
        cache = Path(cache_dir)
        cold, grid = timed_run(args.out, cache, args.jobs, args.seeds)
        warm, warm_grid = timed_run(args.out, cache, args.jobs, args.seeds)
        command = [sys.executable, "-m", "faircode.benchmark", "--out", str(args.out), "--cache-dir", str(cache),
                   "--seeds", ",".join(map(str, args.seeds)), "--jobs", str(args.jobs)]
        start = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True, cwd=Path(__file__).resolve().parents[1])
        warm_cli = time.perf_counter() - start
    units = len(grid.units)
    compute, significance = grid.compute_seconds, grid.significance_seconds
    print(f"full grid: {units} work units (audit x model x seed), {len(grid.fairness)} fairness rows, "
          f"{len(grid.performance)} performance rows, jobs={args.jobs}, cpus={os.cpu_count()}")
    print(f"{'measure':<44}{'value':>12}")
    print(f"{'cold run, wall time':<44}{cold:>10.1f} s")
    print(f"{'warm run (all units cached), wall time':<44}{warm:>10.2f} s")
    print(f"{'warm rerun of the command, process included':<44}{warm_cli:>10.2f} s")
    print(f"{'units taken from the cache on the warm run':<44}{sum(u.from_cache for u in warm_grid.units):>8}/{units}")
    print(f"{'summed unit CPU time (cold)':<44}{compute:>10.1f} s")
    print(f"{'summed CPU time in fairness_report (cold)':<44}{significance:>10.2f} s")
    print(f"{'significance share of unit CPU time':<44}{significance / compute:>11.2%}")
    slowest = sorted(grid.units, key=lambda u: u.seconds, reverse=True)[:5]
    print("slowest units: " + ", ".join(f"{u.unit.audit}/{u.unit.model} {u.seconds:.1f} s" for u in slowest))


if __name__ == "__main__":
    main()
