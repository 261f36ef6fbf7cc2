"""Kernels prepared in the background: connected to and set up while another page runs,
used by the next page as if it had run the setup cell itself, and never left behind.

Each test runs in a thread of its own, as a build runs in its own process: no event loop
runs there (the browser tests leave one running in the main thread, where a kernel is not
prepared)."""

from __future__ import annotations

import functools
import os
import threading
import time

from jupyter_core.utils import run_sync

from sitebuild.execution.execute import ExecutionJob, execute_page
from sitebuild.execution.extract import KERNEL_SETUP_CELL, kernel_notebook
from sitebuild.execution.kernels import RECONNECT_MS, quick_reconnects, start_kernel, wait_until_answering
from sitebuild.source.read import read_page

PAGE = """---
title: Prepared
summary: s
---

```python
from pathlib import Path
print(Path("data.txt").read_text().strip(), 6 * 7)
```

```python
6 * 7
```
"""


def printed(client, code: str) -> str:
    """What ``code`` prints in the kernel of ``client``."""
    seen = []

    def hook(msg):
        if msg["msg_type"] == "stream":
            seen.append(msg["content"]["text"])
    run_sync(client.execute_interactive)(code, output_hook=hook, timeout=30)
    return "".join(seen).strip()


def in_own_thread(test):
    """Run ``test`` in a new thread, where no event loop runs; re-raise what it raised."""
    @functools.wraps(test)
    def run(*args, **kwargs):
        failure = []

        def target():
            try:
                test(*args, **kwargs)
            except BaseException as error:
                failure.append(error)
        thread = threading.Thread(target=target)
        thread.start()
        thread.join()
        if failure:
            raise failure[0]
    return run


def page_job(root):
    """The execution job of :data:`PAGE` in a project at ``root`` with its data file."""
    (root / "explainers").mkdir()
    (root / "data.txt").write_text("read from data.txt\n")
    path = root / "explainers" / "prepared.md"
    path.write_text(PAGE)
    page = read_page(path, root)
    return ExecutionJob(slug=page.slug, rel_path=page.rel_path, root=str(root), notebook=kernel_notebook(page),
                        timeout=60)


def gone(pid: int) -> bool:
    for _ in range(50):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.1)
    return False


@in_own_thread
def test_a_prepared_kernel_has_run_the_setup_code(tmp_path):
    kernel = start_kernel(str(tmp_path))
    kernel.prepare("prepared_value = 6 * 7")
    try:
        client = kernel.prepared_client()
        assert client is not None
        assert printed(client, "print(prepared_value)") == "42"
        client.stop_channels()
    finally:
        kernel.stop()


@in_own_thread
def test_a_setup_that_fails_or_a_kernel_that_dies_leaves_it_unprepared(tmp_path):
    for code in ("raise ValueError('no setup')", "import os; os._exit(3)"):
        kernel = start_kernel(str(tmp_path))
        kernel.prepare(code)
        try:
            assert kernel.prepared_client() is None, code
        finally:
            kernel.stop()


@in_own_thread
def test_a_spare_that_is_never_used_is_stopped_with_its_client(tmp_path):
    for wait in (0.0, 3.0):  # stopped while booting, and once prepared
        kernel = start_kernel(str(tmp_path))
        kernel.prepare(KERNEL_SETUP_CELL)
        pid = kernel.pid
        time.sleep(wait)
        kernel.stop()
        assert kernel.preparing is None and gone(pid)


@in_own_thread
def test_a_page_on_a_prepared_kernel_gives_what_a_fresh_kernel_gives(tmp_path):
    job = page_job(tmp_path)
    fresh = execute_page(job, start_kernel(str(tmp_path)))
    kernel = start_kernel(str(tmp_path))
    kernel.prepare(KERNEL_SETUP_CELL)
    handed = []
    real = kernel.prepared_client
    kernel.prepared_client = lambda: handed.append(real()) or handed[-1]
    prepared = execute_page(job, kernel)
    assert handed and handed[0] is not None  # the page ran on the prepared client
    assert fresh.error is None and prepared.error is None
    assert [o.text for o in prepared.blocks[1]] == [o.text for o in fresh.blocks[1]] == ["read from data.txt 42\n"]
    assert "data.txt" in prepared.trace["files"] and sorted(prepared.trace["files"]) == sorted(fresh.trace["files"])
    assert prepared.trace["env"] == fresh.trace["env"] and prepared.trace["listings"] == fresh.trace["listings"]
    assert prepared.notebook_outputs == fresh.notebook_outputs
    assert prepared.notebook_outputs[2][0]["data"]["text/plain"] == "42"


def test_where_an_event_loop_runs_a_kernel_is_not_prepared_and_a_page_still_runs(tmp_path):
    import asyncio

    job = page_job(tmp_path)

    async def inside_a_running_loop():
        kernel = start_kernel(str(tmp_path))  # jupyter's run_sync runs it on a loop of its own
        kernel.prepare(KERNEL_SETUP_CELL)
        assert kernel.preparing is None
        return execute_page(job, kernel)

    results = []
    in_own_thread(lambda: results.append(asyncio.run(inside_a_running_loop())))()
    assert results[0].error is None and [o.text for o in results[0].blocks[1]] == ["read from data.txt 42\n"]


@in_own_thread
def test_a_kernel_is_answering_once_its_kernel_info_is_reported_idle_and_nothing_of_it_is_left(tmp_path):
    from queue import Empty

    kernel = start_kernel(str(tmp_path))
    client = kernel.manager.client()
    quick_reconnects(client.context)
    client.start_channels()
    try:
        run_sync(wait_until_answering)(client, 30)
        try:
            leftover = run_sync(client.get_iopub_msg)(timeout=0.5)
        except Empty:
            leftover = None
        assert leftover is None, leftover["msg_type"]  # the request's reports were all read
        assert printed(client, "print(6 * 7)") == "42"
    finally:
        client.stop_channels()
        kernel.stop()


@in_own_thread
def test_waiting_on_a_dead_kernel_says_it_died(tmp_path):
    import pytest

    kernel = start_kernel(str(tmp_path))
    client = kernel.manager.client()
    client.start_channels()
    try:
        kernel._kill_and_reap()
        started = time.monotonic()
        with pytest.raises(RuntimeError, match="died"):
            run_sync(wait_until_answering)(client, 30)
        assert time.monotonic() - started < 10  # told at the first unanswered request, not at the timeout
    finally:
        client.stop_channels()
        kernel.stop()


def test_sockets_made_after_quick_reconnects_retry_every_few_milliseconds():
    import zmq

    context = zmq.Context()
    try:
        before = context.socket(zmq.DEALER)
        quick_reconnects(context)
        after = context.socket(zmq.DEALER)
        assert before.getsockopt(zmq.RECONNECT_IVL) == 100  # zmq's own default
        assert after.getsockopt(zmq.RECONNECT_IVL) == RECONNECT_MS == 10
        before.close(0)
        after.close(0)
    finally:
        context.term()
