"""Stage 4: run each page's notebook in its own ``python3`` Jupyter kernel (nbclient),
pages in parallel processes, and return an :class:`ExecutedPage` per page. Execution
never raises for a page: an exception, a timeout or a dead kernel becomes ``error``."""

from __future__ import annotations

import copy
import os
import signal
import sys
import time
from multiprocessing import get_context
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from msgspec import Struct

from sitebuild.execution.executed import ClaimValue, ExecutedPage, ExecutionDraft, InlineValue, PageError
from sitebuild.execution.extract import KERNEL_SETUP_CELL, kernel_notebook
from sitebuild.execution.kernels import NOTE_SINK, Kernel, kill_live_kernels, kill_tree, note_once, start_kernel
from sitebuild.execution.outputs import DEPS_MIME, ERROR_MIME, EVALUATING_MIME, BlockError, convert_outputs
from sitebuild.execution.template import Preload, add_preload_record

if TYPE_CHECKING:
    from nbformat import NotebookNode



class ExecutionJob(Struct, frozen=True):
    """What a worker needs to run one page (picklable)."""

    slug: str
    rel_path: str
    root: str
    notebook: NotebookNode
    timeout: float
    expect_error: frozenset[int] = frozenset()
    reason: str = ""
    #: Ask the kernel, after the page, which installed modules it holds (to learn the preload).
    learn_modules: bool = False


def notebook_outputs(raw: list) -> list[dict]:
    """A cell's outputs as readers' notebooks show them: the engine's reports removed, its
    error reports turned into standard nbformat error outputs."""
    cleaned = []
    for output in raw:
        data = output.get("data", {})
        if ERROR_MIME in data:
            report = data[ERROR_MIME]
            cleaned.append({"output_type": "error", "ename": report.get("ename", ""),
                            "evalue": report.get("evalue", ""),
                            "traceback": report.get("traceback", "").splitlines()})
        elif DEPS_MIME not in data:
            cleaned.append(dict(output))
    return cleaned


def _record_block(result: ExecutionDraft, job: ExecutionJob, n: int, cell: NotebookNode) -> BlockError | None:
    outputs, figures, error = convert_outputs(job.slug, n, cell.get("outputs", []))
    result.blocks[n] = outputs
    result.figures.update(figures)
    result.notebook_outputs[n] = notebook_outputs(cell.get("outputs", []))
    return error


def _deps_reports(cell: NotebookNode) -> list[dict]:
    """The kernel's reports (see ``_sb_finish``) among a cell's outputs."""
    return [raw["data"][DEPS_MIME] for raw in cell.get("outputs", []) if DEPS_MIME in raw.get("data", {})]


def _seconds_left(deadline: float) -> int:
    """The whole seconds a cell may run before the page's deadline (at least one)."""
    return max(1, int(deadline - time.monotonic() + 0.999))


def _record_finish(result: ExecutionDraft, job: ExecutionJob, cell: NotebookNode) -> None:
    for report in _deps_reports(cell):
        result.trace = report["deps"]
        result.python = report["python"]
        result.inline = [InlineValue(i, v.get("value", ""), v.get("error", "")) for i, v in enumerate(report["inline"])]
        result.claims = [ClaimValue(i, v.get("holds"), v.get("values", []), v.get("error", ""))
                         for i, v in enumerate(report.get("claims", []))]
        failed = [v for v in report["inline"] if "error" in v]
        if failed:
            first = failed[0]
            result.error = PageError("inline", f"inline value failed: {first['error']}", line=first.get("line"))


TIMEOUT = ("the page ran longer than its timeout of {timeout:g} s (stopped {where}); raise `timeout` in its "
           "front matter or make it faster")


def _where(role: str, n: int | None) -> str:
    return {"block": f"while running block {n}", "setup": "while starting",
            "finish": "while evaluating inline values"}[role]


def _timeout_error(job: ExecutionJob, role: str, cell) -> PageError:
    """The page's timeout, at the block it stopped in, or at the inline value or claim the
    report cell was evaluating (its line in the .md)."""
    n = cell.metadata["sitebuild"].get("n")
    where, line = _where(role, n), None
    evaluating = [raw["data"][EVALUATING_MIME] for raw in cell.get("outputs", [])
                  if EVALUATING_MIME in raw.get("data", {})]
    if role == "finish" and evaluating:
        last = evaluating[-1]
        where, line = f"while evaluating the {last['kind']} `{last['expr']}`", last.get("line")
    return PageError("timeout", TIMEOUT.format(timeout=job.timeout, where=where), line=line, block=n)


#: A failed page's last cell: the report of what it read so far, without its inline values and claims.
READS_CELL = "_sb_finish((), ())"


def _record_reads_of_failed_page(client, result: ExecutionDraft, deadline: float, index: int) -> None:
    """What a page that raised had read until then (files it looked for and did not find
    among them), as its trace: the preview watches them, so that creating the file a page
    failed on runs it again. The page stays failed; a cell that fails here adds nothing."""
    from nbclient.exceptions import CellTimeoutError, DeadKernelError
    from nbformat.v4 import new_code_cell

    cell = new_code_cell(READS_CELL, metadata={"sitebuild": {"role": "reads"}})
    client.timeout = _seconds_left(deadline)
    try:
        client.execute_cell(cell, index)
    except (CellTimeoutError, DeadKernelError):
        return
    for report in _deps_reports(cell):
        result.trace = report["deps"]


def _run_cells(client, job: ExecutionJob, result: ExecutionDraft, deadline: float, prepared: bool = False) -> None:
    """Run the notebook's cells in order, recording each block; a ``prepared`` kernel has
    run the setup cell already."""
    from nbclient.exceptions import CellTimeoutError, DeadKernelError

    for index, cell in enumerate(client.nb.cells):
        role = cell.metadata["sitebuild"]["role"]
        if prepared and role == "setup":
            continue
        client.timeout = _seconds_left(deadline)
        try:
            client.execute_cell(cell, index)
        except CellTimeoutError:
            result.error = _timeout_error(job, role, cell)
            return
        except DeadKernelError as error:
            n = cell.metadata["sitebuild"].get("n")
            result.error = PageError("dead-kernel", f"the kernel died {_where(role, n)} ({error}); "
                                                    "look for os._exit, a crash in native code, or memory use",
                                     block=n)
            return
        if role == "block":
            n = cell.metadata["sitebuild"]["n"]
            error = _record_block(result, job, n, cell)
            if error is not None and n not in job.expect_error:
                result.error = PageError("exception", f"{error.ename}: {error.evalue}", line=error.line, block=n,
                                         traceback=error.traceback)
                _record_reads_of_failed_page(client, result, deadline, index + 1)
                return
            if error is None and n in job.expect_error:
                result.warnings.append(f"block {n} is marked {{expect-error}} but raised no error")
        elif role == "finish":
            _record_finish(result, job, cell)
        elif cell.get("outputs") and any(o.get("output_type") == "error" for o in cell.outputs):
            result.error = PageError("kernel",
                                     "the kernel could not be prepared: " + str(cell.outputs[-1].get("evalue", "")))
            return


#: Times a page's kernel is started again when it could not bind its ports (two kernels
#: starting at once can be given the same free port).
KERNEL_ATTEMPTS = 3


def _port_collision(result: ExecutedPage) -> bool:
    """True when the page failed only because its kernel could not bind a port."""
    error = result.error
    return (error is not None and error.kind in ("kernel", "dead-kernel") and not result.blocks
            and "Address already in use" in f"{error.message}\n{error.traceback}")


def execute_page(job: ExecutionJob, kernel: Kernel | None = None,
                 on_ready: Callable[[], None] | None = None, template=None) -> ExecutedPage:
    """Run one page in a fresh kernel (``kernel``, or one started now) whose working
    directory is the repository root; the kernel is shut down afterwards. A kernel that
    could not bind its ports is replaced (up to :data:`KERNEL_ATTEMPTS` times).
    ``on_ready`` is called once, when the kernel is ready and before the page's code runs
    (or when the kernel could not start). A kernel started here is forked from
    ``template`` (a :class:`~sitebuild.execution.template.Template`) when given."""
    pending = [on_ready] if on_ready else []

    def ready() -> None:
        while pending:
            pending.pop()()

    for attempt in range(KERNEL_ATTEMPTS):
        result = _execute_once(job, kernel, ready, template)
        if not _port_collision(result):
            break
        print(f"  the kernel of {job.slug} could not bind its ports (another kernel took one); starting another",
              file=sys.stderr, flush=True)
        kernel = None
    ready()
    return result


def _setup_source(job: ExecutionJob) -> str | None:
    cells = job.notebook.cells
    return cells[0].source if cells and cells[0].metadata["sitebuild"]["role"] == "setup" else None


def _start_prepared(root: str, template=None) -> Kernel:
    """A new kernel (forked from ``template`` when given), connected to and set up in the
    background (see Kernel.prepare)."""
    kernel = start_kernel(root, template)
    kernel.prepare(KERNEL_SETUP_CELL)
    return kernel


def _execute_once(job: ExecutionJob, kernel: Kernel | None, ready: Callable[[], None], template=None) -> ExecutedPage:
    from nbclient import NotebookClient

    started = time.monotonic()
    result = ExecutionDraft(slug=job.slug, reason=job.reason)
    try:
        kernel = kernel or start_kernel(job.root, template)
    except Exception as error:
        result.error, result.status = PageError("kernel", f"the kernel could not start: {error}"), "failed"
        return result.finished()
    client = NotebookClient(copy.deepcopy(job.notebook), km=kernel.manager, timeout=int(job.timeout) + 1,
                            allow_errors=True, interrupt_on_timeout=False, record_timing=False,
                            resources={"metadata": {"path": job.root}})
    # A kernel prepared meanwhile (see Kernel.prepare) has a client and has run the setup
    # cell, when the page's setup cell is that code; any other is connected here.
    prepared = kernel.prepared_client() if _setup_source(job) == KERNEL_SETUP_CELL else None
    client.kc = prepared
    try:
        with client.setup_kernel():
            ready()
            _run_cells(client, job, result, started + job.timeout, prepared=prepared is not None)
            if job.learn_modules and result.error is None and result.trace:
                result.trace[INSTALLED_MODULES] = _installed_modules(client)
        if result.trace and kernel.preload_record is not None:  # what a fresh kernel's imports would record
            add_preload_record(result.trace, kernel.preload_record, job.root)
    except Exception as error:  # a kernel that cannot start or a broken channel fails this page only
        if result.error is None:
            result.error = PageError("kernel", f"the kernel failed: {type(error).__name__}: {error}")
    finally:
        if client.kc is not None:
            client.kc.stop_channels()
        if result.error is not None and result.error.kind in ("dead-kernel", "kernel"):
            result.error.traceback = kernel.log_tail()
        kernel.stop()
    result.seconds = time.monotonic() - started
    if result.error is not None:
        result.status = "failed"
    return result.finished()


#: The key of a page's record under which the kernel's installed modules are handed to the build.
INSTALLED_MODULES = "installed_modules"
#: What a kernel answers with its installed modules and packages (two levels deep, not private).
_INSTALLED_MODULES_EXPRESSION = (
    "sorted(n for n, m in list(__import__('sys').modules.items()) if n.count('.') <= 1 and '._' not in n"
    " and not n.startswith('_') and '-packages/' in str(getattr(m, '__file__', None) or ''))")


def _installed_modules(client) -> list[str]:
    """The installed modules the page's kernel holds after the page (none when it cannot say)."""
    import ast

    try:
        msg_id = client.kc.execute("", silent=True, store_history=False,
                                   user_expressions={"modules": _INSTALLED_MODULES_EXPRESSION})
        reply = client.wait_for_reply(msg_id, client.kc)
        value = reply["content"]["user_expressions"]["modules"]["data"]["text/plain"]
        return [name for name in ast.literal_eval(value) if isinstance(name, str)]
    except Exception:
        return []


def run_in_order(next_job: Callable[[], ExecutionJob | None], more_waiting: Callable[[], bool],
                 on_done: Callable[[ExecutedPage], None], template=None) -> None:
    """Run jobs one after another; while a page runs, the next page's kernel boots (started
    once this page's kernel is ready, so that the two do not boot at the same time), and
    is connected to and runs the setup cell. Kernels are forked from ``template`` when given."""
    spares: list[Kernel] = []

    def start_spare(root: str) -> None:
        if more_waiting():
            try:
                spares.append(_start_prepared(root, template))
            except Exception:
                pass

    try:
        while (job := next_job()) is not None:
            kernel = spares.pop() if spares else None
            if kernel is None:
                try:
                    kernel = _start_prepared(job.root, template)
                except Exception:
                    kernel = None
            on_done(execute_page(job, kernel, on_ready=lambda root=job.root: start_spare(root), template=template))
    finally:
        for spare in spares:
            spare.stop()


def _end_worker(signum, frame) -> None:
    """SIGTERM in a worker: kill its kernels and exit now."""
    kill_live_kernels()
    os._exit(128 + signum)


def _worker(jobs, results, remaining, template=None) -> None:
    """A worker process: take pages from ``jobs`` until the end marker, report to
    ``results``. Interrupts are the parent's to handle: it ends workers with SIGTERM."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _end_worker)
    NOTE_SINK.append(lambda text: results.put(("note", text)))  # the build says each once

    def next_job():
        job = jobs.get()
        if job is not None:
            with remaining.get_lock():
                remaining.value -= 1
            results.put(("started", job.slug))
        return job

    run_in_order(next_job, lambda: remaining.value > 0, lambda result: results.put(("done", result)), template)


def execute_pages(jobs: list[ExecutionJob], workers: int,
                  on_done: Callable[[ExecutedPage], None] | None = None,
                  meanwhile: Callable[[], None] | None = None,
                  preload: Preload | None = None) -> dict[str, ExecutedPage]:
    """Run ``jobs`` with up to ``workers`` pages at a time (one process per worker, one
    fresh kernel per page); call ``on_done`` as each finishes. Returns results by slug.
    ``meanwhile``, when given, is called once in this process while worker processes run
    the pages (this process only waits for them then), after the first page is done, so
    that it does not slow the first kernels down; without workers it is not called.

    With ``preload`` (installed modules to import), where more than one page runs, each
    page's kernel is forked from a warm template that imported them (see
    :mod:`sitebuild.execution.template`); it is stopped, with its kernels, at the end."""
    results: dict[str, ExecutedPage] = {}
    template = _start_template(jobs, preload)
    try:
        _execute_all(jobs, workers, results, on_done, meanwhile, template)
    finally:
        if template is not None:
            template.stop()
    return results


def _start_template(jobs: list[ExecutionJob], preload: Preload | None):
    """The build's kernel template, or None (no preload asked, one page, or no fork here:
    said once)."""
    from sitebuild.execution.environment import kernel_environment
    from sitebuild.execution.template import NOT_LINUX, Template

    if preload is None or len(jobs) <= 1:
        return None
    if not sys.platform.startswith("linux") or not hasattr(os, "pidfd_open"):
        note_once(NOT_LINUX.format(platform=sys.platform))
        return None
    root = jobs[0].root
    return Template.start(root, kernel_environment(root), preload)


def _execute_all(jobs: list[ExecutionJob], workers: int, results: dict[str, ExecutedPage],
                 on_done: Callable[[ExecutedPage], None] | None, meanwhile: Callable[[], None] | None,
                 template) -> None:
    """Run ``jobs`` in this process or in worker processes, their results into ``results``."""

    def done(result: ExecutedPage) -> None:
        results[result.slug] = result
        if on_done:
            on_done(result)

    if workers <= 1 or len(jobs) <= 1:
        queue = list(jobs)
        run_in_order(lambda: queue.pop(0) if queue else None, lambda: bool(queue), done, template)
        return
    _run_in_processes(jobs, min(workers, len(jobs)), done, meanwhile, template)


def _run_in_processes(jobs: list[ExecutionJob], count: int, done: Callable[[ExecutedPage], None],
                      meanwhile: Callable[[], None] | None = None, template=None) -> None:
    import queue as queue_module

    context = get_context("fork")
    job_queue, result_queue, remaining = context.Queue(), context.Queue(), context.Value("i", len(jobs))
    for job in jobs:
        job_queue.put(job)
    for _ in range(count):
        job_queue.put(None)
    processes = [context.Process(target=_worker, args=(job_queue, result_queue, remaining, template), daemon=True)
                 for _ in range(count)]
    for process in processes:
        process.start()
    running: set[str] = set()
    finished: set[str] = set()
    try:
        while len(finished) < len(jobs):
            try:
                kind, payload = result_queue.get(timeout=1.0)
            except queue_module.Empty:
                if not any(p.is_alive() for p in processes):
                    break
                continue
            if kind == "note":
                note_once(payload)
            elif kind == "started":
                running.add(payload)
            else:
                running.discard(payload.slug)
                finished.add(payload.slug)
                done(payload)
                if meanwhile is not None:  # after the first page: the first kernels boot alone
                    meanwhile, task = None, meanwhile
                    task()
    except BaseException:
        for process in processes:  # interrupted: each worker kills its kernels and exits
            process.terminate()
        # Jobs nobody will read may still sit in the queue's pipe: without this, the exit
        # would wait forever for its feeder thread to write them.
        job_queue.cancel_join_thread()
        raise
    finally:
        for process in processes:
            process.join(timeout=5)
            if process.is_alive():
                kill_tree(process.pid)
    for job in jobs:
        if job.slug not in finished:
            done(ExecutedPage(slug=job.slug, status="failed", reason=job.reason, error=PageError(
                "kernel", "the worker process running this page died; run it alone with --only")))


def make_job(page, root: Path, timeout: float, reason: str = "", learn_modules: bool = False) -> ExecutionJob:
    """The execution job of a :class:`~sitebuild.source.read.Page`, which runs for ``reason``
    (with ``learn_modules``, the kernel is asked which installed modules it holds)."""
    expect_error = frozenset(b.n for b in page.code_blocks if b.options.get("expect-error"))
    return ExecutionJob(slug=page.slug, rel_path=page.rel_path, root=str(root), notebook=kernel_notebook(page),
                        timeout=timeout, expect_error=expect_error, reason=reason, learn_modules=learn_modules)
