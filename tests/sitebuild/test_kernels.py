"""Kernels prepared in the background: connected to and set up while another page runs,
used by the next page as if it had run the setup cell itself, and never left behind."""

from __future__ import annotations

import os
import time

from jupyter_core.utils import run_sync

from sitebuild.execute import ExecutionJob, execute_page
from sitebuild.extract import KERNEL_SETUP_CELL, kernel_notebook
from sitebuild.kernels import start_kernel
from sitebuild.read import read_page

PAGE = """---
title: Prepared
summary: s
---

```python
from pathlib import Path
print(Path("data.txt").read_text().strip(), 6 * 7)
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


def gone(pid: int) -> bool:
    for _ in range(50):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.1)
    return False


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


def test_a_setup_that_fails_or_a_kernel_that_dies_leaves_it_unprepared(tmp_path):
    for code in ("raise ValueError('no setup')", "import os; os._exit(3)"):
        kernel = start_kernel(str(tmp_path))
        kernel.prepare(code)
        try:
            assert kernel.prepared_client() is None, code
        finally:
            kernel.stop()


def test_a_spare_that_is_never_used_is_stopped_with_its_client(tmp_path):
    for wait in (0.0, 3.0):  # stopped while booting, and once prepared
        kernel = start_kernel(str(tmp_path))
        kernel.prepare(KERNEL_SETUP_CELL)
        pid = kernel.pid
        time.sleep(wait)
        kernel.stop()
        assert kernel.preparing is None and gone(pid)


def test_a_page_on_a_prepared_kernel_gives_what_a_fresh_kernel_gives(tmp_path):
    (tmp_path / "explainers").mkdir()
    (tmp_path / "data.txt").write_text("read from data.txt\n")
    path = tmp_path / "explainers" / "prepared.md"
    path.write_text(PAGE)
    page = read_page(path, tmp_path)
    job = ExecutionJob(slug=page.slug, rel_path=page.rel_path, root=str(tmp_path),
                       notebook=kernel_notebook(page), timeout=60)
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
    assert "data.txt" in prepared.deps["files"] and sorted(prepared.deps["files"]) == sorted(fresh.deps["files"])
    assert prepared.deps["env"] == fresh.deps["env"] and prepared.deps["listings"] == fresh.deps["listings"]
