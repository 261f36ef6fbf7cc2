"""Running the grid's work units on a dask.distributed cluster.

The distributed Client is used directly rather than through joblib's dask backend: its
futures come back one by one through ``as_completed`` (a progress line per unit, and the
worker each ran on), a failed unit is known by its future, and the rest can be cancelled.

What travels: each audit's :class:`~faircode._unit.AuditSource` (its manifest and the bytes
of its data files) is scattered once to every worker (``broadcast=True``), so a worker needs
faircode installed but not the client's files, and a copy survives the loss of any one
worker. Each unit is a task with a deterministic key. A worker that dies has its running
units rescheduled on the others by the scheduler (up to ``distributed.scheduler.allowed-failures``
times a unit); a unit that raises is not retried (``retries=0``): a unit is a deterministic
function of its inputs, so the same error would come again.
"""

from __future__ import annotations

from collections.abc import Iterator

from faircode._unit import AuditSource, Predictions, UnitResult, WorkUnit, run_unit
from faircode.exceptions import BenchmarkError

CONNECT_TIMEOUT = "20s"


def _run_on_worker(unit: WorkUnit, source: AuditSource, predictions: Predictions | None) -> UnitResult:
    """The task a worker runs: the unit, labelled with the worker's address."""
    from distributed import get_worker

    address = get_worker().address
    try:
        result = run_unit(unit, source, predictions)
    except BenchmarkError as err:
        raise BenchmarkError(f"{err} (on worker {address})") from err
    result.worker = address
    return result


def _client(scheduler: str, jobs: int):
    from distributed import Client, LocalCluster

    if scheduler == "local":
        cluster = LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True, dashboard_address=None)
        return Client(cluster, set_as_default=False), cluster
    _check_reachable(scheduler)
    try:
        return Client(scheduler, timeout=CONNECT_TIMEOUT, set_as_default=False), None
    except (OSError, TimeoutError, ValueError) as err:
        raise BenchmarkError(f"--scheduler {scheduler}: could not reach a dask scheduler there ({err}); start one "
                             "with `dask scheduler` and workers with `dask worker ADDRESS`, or pass "
                             "--scheduler local") from None


def _check_reachable(scheduler: str) -> None:
    """Refuse an address that names no host and port, or where nothing listens, before a
    Client is made: a Client that fails to connect takes tens of seconds to give up."""
    import socket

    from distributed.comm import parse_address, parse_host_port

    hint = "start one with `dask scheduler` and workers with `dask worker ADDRESS`, or pass --scheduler local"
    try:
        scheme, location = parse_address(scheduler)
        host, port = parse_host_port(location)
    except (ValueError, TypeError) as err:
        raise BenchmarkError(f"--scheduler {scheduler!r}: expected an address like tcp://127.0.0.1:8786 ({err}); "
                             f"{hint}") from None
    if scheme not in ("tcp", "tls"):
        return  # another transport (inproc, ucx): the Client's own connect says what is wrong
    try:
        socket.create_connection((host, port), timeout=5).close()
    except OSError as err:
        raise BenchmarkError(f"--scheduler {scheduler}: could not reach a dask scheduler there ({err}); {hint}") \
            from None


def run_on_cluster(tasks: list[tuple[WorkUnit, Predictions | None]], sources: dict[str, AuditSource],
                   scheduler: str, jobs: int, progress) -> Iterator[UnitResult]:
    """Run tasks on the cluster at ``scheduler`` (or a LocalCluster of ``jobs`` workers for
    ``"local"``), yielding each unit's result as it finishes.

    Raises
    ------
    BenchmarkError
        When the scheduler cannot be reached, or naming the first unit that failed (the
        others are cancelled).
    """
    from distributed import as_completed

    client, cluster = _client(scheduler, jobs)
    try:
        workers = client.scheduler_info().get("workers", {})
        progress(f"dask scheduler {client.scheduler.address}: {len(workers)} workers")
        audits = sorted({unit.audit for unit, _ in tasks})
        scattered = {a: client.scatter(sources[a], broadcast=True, hash=False) for a in audits}
        futures = {}
        for unit, predictions in tasks:
            stage = "tables" if predictions is not None else "unit"
            future = client.submit(_run_on_worker, unit, scattered[unit.audit], predictions,
                                   key=f"faircode-{stage}-{unit.audit}-{unit.model}-{unit.seed}-{unit.key[:12]}",
                                   retries=0)
            futures[future] = unit
        for future in as_completed(list(futures), loop=client.loop):
            if future.status != "finished":
                failure = _unit_failure(futures[future], future)
                client.cancel(list(futures))
                raise failure
            yield future.result()
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def _unit_failure(unit: WorkUnit, future) -> BenchmarkError:
    error = future.exception() if future.status == "error" else None
    if isinstance(error, BenchmarkError):
        return error
    if error is None:
        return BenchmarkError(f"work unit {unit.label} did not finish on the cluster (its task is {future.status})")
    return BenchmarkError(f"work unit {unit.label} failed on the cluster: {type(error).__name__}: {error}")
