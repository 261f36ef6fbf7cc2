"""The environment a page's kernel gets. Its own small module: the build's fast path (is
the stamp still good?) compares it with the last build's without importing the kernels."""

from __future__ import annotations

import os

#: Matplotlib's backend in the kernel: figures are captured inline, as display data.
INLINE_BACKEND = "module://matplotlib_inline.backend_inline"
THREAD_LIMIT_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def kernel_environment(root: str) -> dict[str, str]:
    """The kernel's environment: the repository importable, figures captured inline."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH", "")) if p)
    env["MPLBACKEND"] = INLINE_BACKEND
    env.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")
    # Pages already run in parallel, one kernel per core: a numeric library that also
    # starts a thread per core in every kernel only oversubscribes the machine.
    for variable in THREAD_LIMIT_VARIABLES:
        env.setdefault(variable, "1")
    return env
