"""The benchmark on a real dask.distributed cluster: a scheduler and two worker processes on
127.0.0.1, started here as the commands a user runs (``dask scheduler``, ``dask worker``)."""

import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

import distributed
import pytest

from faircode import _cluster
from faircode.benchmark import main, run_benchmark
from faircode.exceptions import BenchmarkError

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "audits"
CSV_FILES = ("results_fairness.csv", "results_performance.csv", "results_seed_spread.csv")
START_TIMEOUT = 90


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start(command: list[str], log: Path) -> subprocess.Popen:
    """A process in its own session (so its whole group can be ended), logging to ``log``."""
    handle = open(log, "wb")
    return subprocess.Popen(command, stdout=handle, stderr=subprocess.STDOUT, start_new_session=True)


def end(process: subprocess.Popen) -> None:
    """End the process group of ``process``: SIGTERM, then SIGKILL if it lingers."""
    if process.poll() is not None:
        return
    try:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)
    except ProcessLookupError:
        pass


class Cluster:
    """A running scheduler and its workers, each a process group of its own."""

    def __init__(self, tmp_path: Path, n_workers: int = 2):
        self.address = f"tcp://127.0.0.1:{free_port()}"
        self.processes: list[subprocess.Popen] = []
        dask = shutil.which("dask") or pytest.fail("the `dask` command is not on PATH; pip install distributed")
        port = self.address.rsplit(":", 1)[1]
        self.scheduler = self._start([dask, "scheduler", "--host", "127.0.0.1", "--port", port, "--no-dashboard"],
                                     tmp_path / "scheduler.log")
        self.workers = [self._start([dask, "worker", self.address, "--nthreads", "1", "--no-dashboard",
                                     "--host", "127.0.0.1", "--name", f"w{i}"], tmp_path / f"worker{i}.log")
                        for i in range(n_workers)]
        with distributed.Client(self.address, timeout=START_TIMEOUT) as client:
            client.wait_for_workers(n_workers, timeout=START_TIMEOUT)
            self.worker_names = {info["name"]: address for address, info in client.scheduler_info()["workers"].items()}

    def _start(self, command, log):
        process = start(command, log)
        self.processes.append(process)
        return process

    def kill_worker(self, address: str) -> None:
        """SIGKILL the worker at ``address`` with its nanny: it dies, nothing restarts it."""
        name = next(n for n, a in self.worker_names.items() if a == address)
        process = self.workers[int(name[1:])]
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)

    def live_workers(self) -> set[str]:
        with distributed.Client(self.address, timeout=START_TIMEOUT) as client:
            return set(client.scheduler_info()["workers"])

    def close(self) -> None:
        for process in reversed(self.processes):
            end(process)


@pytest.fixture
def cluster(tmp_path):
    running = Cluster(tmp_path)
    yield running
    running.close()
    assert all(p.poll() is not None for p in running.processes)


@pytest.fixture
def tiny(tmp_path):
    folder = tmp_path / "audits" / "tiny"
    shutil.copytree(FIXTURES / "tiny", folder)
    return folder


def results_bytes(out: Path) -> dict[str, bytes]:
    return {name: (out / name).read_bytes() for name in CSV_FILES if (out / name).exists()}


def test_the_same_grid_on_the_cluster_and_locally_writes_the_same_bytes(cluster, tiny, tmp_path, capsys):
    common = ["--audits", str(tiny), "--models", "logistic_regression", "random_forest", "--seeds", "0-2,42"]
    assert main([*common, "--jobs", "2", "--out", str(tmp_path / "local"), "--cache-dir", str(tmp_path / "c1")]) == 0
    capsys.readouterr()
    assert main([*common, "--scheduler", cluster.address, "--out", str(tmp_path / "dask"),
                 "--cache-dir", str(tmp_path / "c2")]) == 0
    printed = capsys.readouterr().out
    local, remote = results_bytes(tmp_path / "local"), results_bytes(tmp_path / "dask")
    assert set(local) == set(CSV_FILES) and local == remote
    assert "dask scheduler tcp://127.0.0.1" in printed and "2 workers" in printed
    assert "[8/8] tiny x " in printed and " on tcp://127.0.0.1:" in printed


def test_both_workers_run_units_and_only_the_client_writes_the_cache(cluster, tiny, tmp_path):
    cache = tmp_path / "cache"
    grid = run_benchmark(tmp_path / "out", audits=[str(tiny)], models=["logistic_regression", "random_forest"],
                         seeds=list(range(6)), cache_dir=cache, scheduler=cluster.address, progress=lambda line: None)
    assert {u.worker for u in grid.units} == set(cluster.worker_names.values())
    # Two entries a unit (its predictions and its tables), written by this process.
    assert len(list(cache.glob("pred-*.pkl"))) == len(list(cache.glob("unit-*.pkl"))) == len(grid.units) == 12
    again = run_benchmark(tmp_path / "out", audits=[str(tiny)], models=["logistic_regression", "random_forest"],
                          seeds=list(range(6)), cache_dir=cache, scheduler=cluster.address, progress=lambda line: None)
    assert all(u.from_cache == "tables" for u in again.units)


def test_a_worker_killed_mid_run_has_its_units_rerun_elsewhere(cluster, tiny, tmp_path):
    options = dict(audits=[str(tiny)], models=["logistic_regression", "random_forest", "gradient_boosting"],
                   seeds=list(range(8)))
    run_benchmark(tmp_path / "local", jobs=1, cache_dir=tmp_path / "c1", progress=lambda line: None, **options)
    killed: list[str] = []

    def kill_the_other_worker(line: str) -> None:
        if line.startswith("[1/") and not killed:
            first = line.rsplit(" on ", 1)[1]
            killed.append(next(a for a in cluster.worker_names.values() if a != first))
            cluster.kill_worker(killed[0])

    grid = run_benchmark(tmp_path / "dask", cache_dir=tmp_path / "c2", scheduler=cluster.address,
                         progress=kill_the_other_worker, **options)
    assert killed and cluster.live_workers() == set(cluster.worker_names.values()) - set(killed)
    assert len(grid.units) == 24
    survivor = (set(cluster.worker_names.values()) - set(killed)).pop()
    assert sum(u.worker == survivor for u in grid.units) >= 20  # all but what the killed one finished first
    assert results_bytes(tmp_path / "dask") == results_bytes(tmp_path / "local")


def test_a_unit_that_raises_fails_the_run_naming_it_and_leaves_results_alone(cluster, tiny, tmp_path):
    data = tiny / "data" / "tiny.csv"
    lines = data.read_text().splitlines()
    fields = lines[5].split(",")
    fields[3] = "inf"  # years: an infinite feature, which the model refuses on the worker
    lines[5] = ",".join(fields)
    data.write_text("\n".join(lines) + "\n")
    out = tmp_path / "results"
    out.mkdir()
    (out / "results_fairness.csv").write_text("previous\n")
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    with pytest.raises(BenchmarkError, match=r"work unit tiny x logistic_regression x seed 42 failed: ValueError: "
                                             r".*infinity.* \(on worker tcp://127\.0\.0\.1:\d+\).*nothing was written"):
        run_benchmark(out, audits=[str(tiny)], models=["logistic_regression"], cache_dir=tmp_path / "cache",
                      scheduler=cluster.address, progress=lambda line: None)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


def test_an_unreachable_scheduler_is_a_clear_error(tiny, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(_cluster, "CONNECT_TIMEOUT", "2s")
    address = f"tcp://127.0.0.1:{free_port()}"
    start_time = time.monotonic()
    assert main(["--audits", str(tiny), "--models", "logistic_regression", "--scheduler", address,
                 "--out", str(tmp_path / "r"), "--cache-dir", str(tmp_path / "c")]) == 1
    assert f"--scheduler {address}: could not reach a dask scheduler there" in capsys.readouterr().err
    assert time.monotonic() - start_time < 60
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize("address", ["", "nonsense", "tcp://127.0.0.1"])
def test_an_address_without_host_and_port_is_refused_at_once(tiny, tmp_path, capsys, address):
    start_time = time.monotonic()
    assert main(["--audits", str(tiny), "--models", "logistic_regression", "--scheduler", address, "--no-cache",
                 "--out", str(tmp_path / "r"), "--cache-dir", str(tmp_path / "c")]) == 1
    assert f"--scheduler {address!r}: expected an address like tcp://127.0.0.1:8786" in capsys.readouterr().err
    assert time.monotonic() - start_time < 10, "no Client was left to time out"


def test_local_starts_a_local_cluster(tiny, tmp_path):
    grid = run_benchmark(tmp_path / "out", audits=[str(tiny)], models=["logistic_regression"], seeds=[1, 2],
                         jobs=2, cache_dir=tmp_path / "cache", scheduler="local", progress=lambda line: None)
    assert all(u.worker.startswith("tcp://127.0.0.1:") for u in grid.units)
