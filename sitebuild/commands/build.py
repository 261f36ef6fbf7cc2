"""The script of the build: steps, the fast path (nothing changed?), then the stages of
:mod:`sitebuild.commands.stages` in order: read, order, extract and execute (or reuse the
cache), check, render and write, stamp. :func:`build_stages` reads top to bottom; each
stage takes frozen data and returns new frozen data, nothing is changed on the way.
``build`` and ``check`` return a :class:`~sitebuild.commands.summary.BuildSummary`; they
raise only for configuration errors, never for a failing page.

A build with nothing to do (the stamp holds) stops after the steps and the fast path, and
never imports the stages, nor the modules they need (imported inside the stage that needs
them). Measured on the shared machine (``python -c "import ..."`` after the modules the
fast path loads, bytecode warm, median of five): the execution cache 136 ms (it reads
pages: markdown-it), running kernels 166 ms (nbclient, jupyter_client, zmq), the executed
page 25 ms, the page cache 19 ms, the checks 159 ms and the links 170 ms, the quote memo
170 ms, rendering 302 ms (Jinja, markdown-it, Pygments), the provenance 28 ms, writing
230 ms, the steps 35 ms."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Callable

from sitebuild.commands.summary import BuildSummary, Progress
from sitebuild.commands.uptodate import build_options, nothing_changed, start_build
from sitebuild.config import BuildConfig, check_templates
from sitebuild.errors import write_failures
from sitebuild.output.folders import build_locks, check_build_folders, remove_leftovers

if TYPE_CHECKING:
    from sitebuild.commands.stages import Resident

__all__ = ["BuildSummary", "build_stages", "run_build", "run_check_fix", "run_site_steps"]


# -- The script ----------------------------------------------------------------------------

def run_build(config: BuildConfig, *, check_only: bool = False, progress: Progress = lambda line: None,
              annotate: Callable | None = None, resident: Resident | None = None,
              on_written: Callable[[tuple], None] | None = None) -> BuildSummary:
    """Build the site (or, with ``check_only``, check it without writing anything but the
    cache: the quote lock is written by a passing build and by ``check --fix``, never by
    ``check``).

    The output folder and the cache must be the engine's own (or empty, or missing):
    otherwise :class:`~sitebuild.errors.FolderRefused` is raised before anything is
    touched. Another build on the same output or cache is waited for.

    Every executed page's quoted numbers are checked (stale ones fail, unverified ones
    warn) and marked on the site; ``annotate(pages, executed)``, when given, replaces
    those marks with its own (slug -> marks, see :data:`sitebuild.render.render.PageMarks`).
    ``resident`` is what this process's builds share in memory (see
    :class:`~sitebuild.commands.stages.Resident`), and ``on_written(problems)``, when
    given, is told as soon as the new site is in place (the problems are then warnings
    only), before the build's bookkeeping: the preview reloads its pages then (the time it
    takes is not counted in the summary's seconds)."""
    check_templates(config.templates)
    check_build_folders(None if check_only else config.out, config.cache_dir, config.root,
                        (config.source, config.templates))
    with write_failures(), build_locks(config.out, config.cache_dir, progress):
        if not check_only:
            for leftover in remove_leftovers(config.out):
                progress(f"removed {leftover.name}, left behind by an interrupted build")
        return build_stages(config, check_only, progress, annotate, resident, on_written)


def build_stages(config: BuildConfig, check_only: bool = False, progress: Progress = lambda line: None,
                 annotate: Callable | None = None, resident: Resident | None = None,
                 on_written: Callable[[tuple], None] | None = None) -> BuildSummary:
    """The stages, in order: steps, (nothing changed?), read, order, extract and execute,
    check, render and write, stamp. Runs under the locks :func:`run_build` takes."""
    started = time.monotonic()
    step_outputs = run_site_steps(config, progress)
    options = build_options(config, check_only)
    start = start_build(config, options)  # one fingerprint: the fast path's question, the stamp's answer
    if not check_only and not config.force and nothing_changed(config, options, start):
        return BuildSummary(up_to_date=True, strict=config.strict, seconds=time.monotonic() - started)
    from sitebuild.commands import stages  # only past the fast path: its records and their modules

    git = None if check_only else stages.start_git(config)  # answered while the pages are read and checked
    written = None
    try:
        read = stages.read_stage(config, resident)
        order = stages.order_stage(read.pages, stages.load_feeds(config.cache_dir), step_outputs)
        executions = stages.execute_stage(config, read.pages, order, progress, will_render=not check_only,
                                          resident=resident)
        checked = stages.check_stage(config, read, executions, check_only, resident)
        if checked.ok(config.strict) and not check_only:  # a passing build records its bindings; `check` never does
            stages.save_quote_lock(checked.quotes)
            written = stages.render_and_write(config, read.pages, executions, checked, annotate, git,
                                              resident, on_written)
            stages.record_stamp(config, read.pages, executions, start)
    finally:
        if git is not None:
            git()  # waited for (and reaped) whatever happened
    held = written.held if written is not None else 0.0  # the preview's reload, not the build's own time
    return stages.summarize(config, read, executions, checked, written, time.monotonic() - started - held)


def run_check_fix(config: BuildConfig, *, progress: Progress = lambda line: None) -> tuple[list, BuildSummary]:
    """``check --fix``: check, rewrite every stale number (and the lock), then check again.
    The second check reuses the executions (prose is not in the cache key), so no kernel
    starts. Returns the fixes made and the second check's summary."""
    from sitebuild.quotes import fix_quotes  # difflib and the rewriting, only when fixing

    first = run_build(config, check_only=True, progress=progress)
    if first.quotes is None or not any(q.problems() for q in first.page_quotes):
        return [], first
    fixes = fix_quotes(first.quotes)
    return fixes, run_build(config._replace(force=False, run_steps=False), check_only=True, progress=progress)


# -- Steps, and the fast path ---------------------------------------------------------------

def run_site_steps(config: BuildConfig, progress: Progress) -> frozenset[str]:
    """Run site.yaml's steps (those that must run); return the files their ``outputs:``
    globs match now (record names), which count as written before every page."""
    if not config.site.steps:
        return frozenset()
    if config.run_steps:
        from sitebuild.commands.steps import run_steps  # subprocess and the steps' memo: only with steps

        for step in run_steps(config.site.steps, config.root, config.cache_dir / "steps.json", config.force,
                              config.asked_steps):
            checked = (", check passed before on these files" if step.check_remembered
                       else ", checked" if step.checked else "")
            progress(f"  step {step.name}: {'ran' if step.ran else 'not run'}{checked} ({step.seconds:.2f} s)")
    return frozenset(_step_outputs(config))


def _step_outputs(config: BuildConfig) -> set[str]:
    made: set[str] = set()
    for step in config.site.steps:
        for pattern in step.outputs:
            made.update(p.relative_to(config.root).as_posix() for p in config.root.glob(pattern) if p.is_file())
    return made
