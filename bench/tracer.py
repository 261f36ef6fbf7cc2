#!/usr/bin/env python3
"""The page tracer's overhead: a page's work timed in fresh processes with and without
the tracer (``sitebuild/execution/kernel_setup.py``) installed first, alternating which
runs first, the median of each printed with their ratio.

Two workloads: ``page`` is what an explainer does (imports faircode, pandas and
scikit-learn, loads an audit, fits a model, computes a fairness report); ``calls`` is
the tracer's worst case, many small file, stat, listing and environment calls.

    python bench/tracer.py                    # both workloads, 5 runs each
    python bench/tracer.py --runs 9 --setup other_kernel_setup.py   # compare another tracer
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SETUP = ROOT / "sitebuild" / "execution" / "kernel_setup.py"

WORKLOADS = {
    "page": """
from faircode import build_model, fairness_report, load_audit
audit = load_audit("German Credit Lending")
train, test = audit.idx_train, audit.idx_test
model = build_model("logistic_regression", random_state=42).fit(audit.X.iloc[train], audit.y.iloc[train])
masks = {name: mask.iloc[test] for name, mask in audit.masks.items()}
fairness_report(audit.y.iloc[test], model.predict(audit.X.iloc[test]), masks, significance=True)
""",
    "calls": """
import os, os.path
for i in range(2000):
    with open("README.md") as stream:
        stream.read(10)
    os.path.exists(f"missing-{i % 50}.txt")
    os.environ.get("HOME"); os.environ.get("FC_BENCH_UNSET")
for i in range(300):
    os.listdir("faircode")
""",
}

RUNNER = """
import json, os, sys, time
setup = sys.argv[1]
if setup:
    exec(compile(open(setup).read(), setup, "exec"), {"__name__": "__sb_setup__"})
started = time.perf_counter()
exec(compile(sys.argv[2], "<workload>", "exec"), {"__name__": "__main__"})
print(json.dumps(time.perf_counter() - started))
"""


def run_once(setup: str, workload: str) -> float:
    """Seconds the workload took in a fresh process (after ``setup`` when given)."""
    done = subprocess.run([sys.executable, "-c", RUNNER, setup, workload], cwd=ROOT, capture_output=True,
                          text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    """Print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--setup", default=str(SETUP), help="the tracer to time (default: the engine's)")
    args = parser.parse_args()
    print(f"{'workload':<8} {'without (s)':>12} {'with (s)':>10} {'ratio':>7}")
    for name, workload in WORKLOADS.items():
        times: dict[str, list[float]] = {"without": [], "with": []}
        for run in range(args.runs):
            order = ("without", "with") if run % 2 == 0 else ("with", "without")
            for kind in order:
                times[kind].append(run_once(args.setup if kind == "with" else "", workload))
        without, with_ = statistics.median(times["without"]), statistics.median(times["with"])
        print(f"{name:<8} {without:>12.3f} {with_:>10.3f} {with_ / without:>7.2f}")


if __name__ == "__main__":
    main()
