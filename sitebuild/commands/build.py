"""The script of the stages: steps, read, extract, execute (or reuse the cache), check,
render, write. ``build`` and ``check`` return a :class:`BuildSummary`; they raise only for
configuration errors, never for a failing page."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

from sitebuild.config import BuildConfig, check_templates
from sitebuild.errors import ConfigError
from sitebuild.store.stamp import STAMP_FILE, fingerprint, is_up_to_date

if TYPE_CHECKING:
    from sitebuild.execution.deps import FileHasher
    from sitebuild.quotes import QuoteRun

Progress = Callable[[str], None]


@dataclass
class BuildSummary:
    """What a build did: page counts, time, problems (errors and warnings), report rows."""

    pages: int = 0
    executed: int = 0
    cached: int = 0
    failed: int = 0
    seconds: float = 0.0
    problems: list = field(default_factory=list)
    rows: list = field(default_factory=list)
    up_to_date: bool = False
    written: bool = False
    strict: bool = False
    quotes: QuoteRun | None = None  # the quoted-number check (None when nothing was checked)

    @property
    def page_quotes(self) -> list:
        """The quote check of every checked page (PageQuotes), in page order."""
        return list(self.quotes.pages.values()) if self.quotes is not None else []

    @property
    def errors(self) -> list:
        """Problems that fail the build (warnings too under --strict)."""
        return [p for p in self.problems if p.severity == "error" or self.strict]

    @property
    def ok(self) -> bool:
        """True when nothing failed."""
        return not self.errors

    def closing_line(self) -> str:
        """The one-line summary printed at the end."""
        if self.up_to_date:
            return f"site is up to date ({self.seconds:.2f} s)"
        warnings = sum(p.severity == "warning" for p in self.problems)
        return (f"{self.pages} pages: {self.executed} executed, {self.cached} cached, {self.failed} failed; "
                f"{warnings} warning(s); {self.seconds:.2f} s")


def _options(config: BuildConfig, check_only: bool) -> dict:
    from sitebuild.execution.deps import code_digest

    return {"engine": code_digest(), "out": config.out, "only": config.only, "strict": config.strict, "timeout": config.timeout,
            "check": check_only, "scripts": config.write_scripts, "cache": config.cache_dir}


def _generated(config: BuildConfig) -> dict:
    """What the build writes beside the sources (checked by the stamp as of its end)."""
    return {"quote lock": _lock_stat(config)}


def _lock_stat(config: BuildConfig) -> list[int] | None:
    """Size and modification time of the quote lock: the build writes it, so (like the
    generated scripts) it is fingerprinted but never makes a stamp racy."""
    from sitebuild.quotes import LOCK_FILENAME

    try:
        stat = (config.source / LOCK_FILENAME).stat()
    except OSError:
        return None
    return [stat.st_size, stat.st_mtime_ns]


def _stamp_path(config: BuildConfig):
    return config.cache_dir / STAMP_FILE


def _page_timeout(config: BuildConfig, page) -> float:
    return config.timeout or page.front.timeout or config.site.timeout


def _status_line(result, slug: str) -> str:
    why = f"  [{result.reason}]" if result.reason else ""
    if result.error is not None:
        return f"  failed    {slug}  ({result.seconds:.2f} s): {result.error.message.splitlines()[0]}{why}"
    return f"  {result.status:<9} {slug}  ({result.seconds:.2f} s){why}"


def _open_cache(config: BuildConfig):
    from sitebuild.execution.cache import ExecutionCache
    from sitebuild.execution.deps import code_digest
    from sitebuild.execution.kernels import kernel_environment

    return ExecutionCache(config.cache_dir, config.root, env=kernel_environment(str(config.root)),
                          site_inputs=config.site.inputs, engine=code_digest())


def _why_run(config: BuildConfig, page, lookup) -> str:
    if config.force:
        return "--force"
    if not page.front.cache:
        return "cache: false"
    return lookup.reason


def gather_executions(config: BuildConfig, pages: list, progress: Progress,
                      will_render: bool = False) -> tuple[dict, list, int, FileHasher]:
    """Reuse valid cache entries, run every other selected page; return results by slug,
    warnings (as Problems), the number of pages executed, and the cache's file hasher
    (its digests, as just checked, serve the provenance). Each page that runs says
    why (``reason``). Under ``--only`` another page keeps its latest execution (what the
    last site showed) even when it is out of date. With ``will_render``, the installed
    packages the report lists are looked up while worker processes run the pages."""
    from sitebuild.checks.check import Problem
    from sitebuild.execution.deps import untraced_warning
    from sitebuild.execution.executed import ExecutedPage

    cache = _open_cache(config)
    executed: dict = {}
    warnings: list[Problem] = []
    jobs, by_slug = [], {p.slug: p for p in pages}
    for page in pages:
        if not page.code_blocks and not page.inline and not page.claims:
            executed[page.slug] = ExecutedPage(slug=page.slug, status="no code")
            continue
        lookup = cache.lookup(page) if not config.force and page.front.cache else None
        if lookup is not None:
            warnings.extend(Problem(page.rel_path, None, w, "warning") for w in lookup.warnings)
            if lookup.page is not None:
                executed[page.slug] = lookup.page
                continue
        if config.only and page.slug not in config.only:
            kept = cache.latest(page)
            if kept is not None:
                executed[page.slug] = kept
            # The author narrowed the build on purpose: say so, but it is not a problem.
            progress(f"  {'kept' if kept else 'skipped'}      {page.slug}  (not in --only; "
                     f"{'its last execution is kept' if kept else 'it never ran'})")
            continue
        from sitebuild.execution.execute import make_job  # the kernels' machinery, loaded only when a page runs

        job = make_job(page, config.root, _page_timeout(config, page))
        job.reason = _why_run(config, page, lookup)
        jobs.append(job)
    reasons = {job.slug: job.reason for job in jobs}

    def done(result) -> None:
        result.reason = reasons.get(result.slug, "")
        note = untraced_warning(result.deps) if result.error is None and result.deps else ""
        page = by_slug[result.slug]
        if note and not (page.front.inputs or config.site.inputs or not page.front.cache):
            warnings.append(Problem(page.rel_path, None, f"not traced: {note}", "warning"))
        if result.error is None:
            cache.store(page, result)
        executed[result.slug] = result
        progress(_status_line(result, result.slug))

    if jobs:
        from sitebuild.execution.execute import execute_pages

        progress(f"running {len(jobs)} page(s) on up to {min(config.jobs, len(jobs))} kernel(s)")
        execute_pages(jobs, config.jobs, on_done=done,
                      meanwhile=(lambda: _scan_packages(config)) if will_render else None)
    cache.save()
    for page in pages:  # the states of what the reused pages depend on, as just checked
        result = executed.get(page.slug)
        if result is not None and result.status == "cached":
            result.deps = dict(result.deps, states={name: cache.hasher.seen.get(name)
                                                    for name in result.deps.get("files", {})})
    return executed, warnings, len(jobs), cache.hasher


def _scan_packages(config: BuildConfig) -> None:
    """Fill the memo of installed distributions (most of a second when it is missing), so
    that rendering finds it. A failure here is left for the render to meet and report."""
    from sitebuild.execution.deps import PACKAGE_VERSIONS_FILE, package_table

    try:
        package_table(config.cache_dir / PACKAGE_VERSIONS_FILE)
    except Exception:
        pass


def _report_rows(pages: list, executed: dict, problems: list, quotes: QuoteRun) -> list:
    from sitebuild.render.render import ReportRow

    rows = []
    for page in pages:
        result = executed.get(page.slug)
        if result is None:
            continue
        warnings = [p.message for p in problems if p.path == page.rel_path and p.severity == "warning"]
        outputs = sum(len(o) for o in result.blocks.values())
        rows.append(ReportRow(page.slug, page.front.title, result.status, result.seconds, outputs, warnings,
                              quotes.numbers(page.slug), reason=result.reason))
    return rows


def run_build(config: BuildConfig, *, check_only: bool = False, progress: Progress = lambda line: None,
              annotate: Callable | None = None) -> BuildSummary:
    """Build the site (or, with ``check_only``, check it without writing anything but the
    cache and, when the check passes, the quote lock of the source folder).

    The output folder and the cache must be the engine's own (or empty, or missing):
    otherwise :class:`~sitebuild.errors.FolderRefused` is raised before anything is
    touched. Another build on the same output or cache is waited for.

    Every executed page's quoted numbers are checked (stale ones fail, unverified ones
    warn) and marked on the site; ``annotate(pages, executed)``, when given, replaces
    those marks with its own (slug -> marks, see :data:`sitebuild.render.render.PageMarks`)."""
    from sitebuild.output.folders import CACHE_MARKER, OUTPUT_MARKER, build_locks, check_folder, remove_leftovers

    check_templates(config.templates)
    protected = (config.root, config.source, config.templates)
    if not check_only:
        check_folder(config.out, OUTPUT_MARKER, "--out", protected)
    check_folder(config.cache_dir, CACHE_MARKER, "--cache-dir", protected)
    with build_locks(config.out, config.cache_dir, progress):
        if not check_only:
            for leftover in remove_leftovers(config.out):
                progress(f"removed {leftover.name}, left behind by an interrupted build")
        return _locked_build(config, check_only, progress, annotate)


def _kernel_env(config: BuildConfig) -> dict:
    from sitebuild.execution.kernels import kernel_environment

    return kernel_environment(str(config.root))


def _locked_build(config: BuildConfig, check_only: bool, progress: Progress, annotate) -> BuildSummary:
    started = time.monotonic()
    summary = BuildSummary(strict=config.strict)
    _run_site_steps(config, progress)
    options = _options(config, check_only)
    if not check_only and not config.force and is_up_to_date(_stamp_path(config), config.out, config.root,
                                                                config.source, config.templates, options,
                                                                _kernel_env(config), _generated(config)):
        summary.up_to_date, summary.seconds = True, time.monotonic() - started
        return summary
    from sitebuild.source.page_cache import engine_version

    engine_version.cache_clear()  # the engine's state, looked up once in this build
    newest, started_ns = [0], time.time_ns()
    sources = fingerprint(config.root, config.source, config.templates, options, newest)  # before reading
    git = None
    if not check_only:
        from sitebuild.render.provenance import start_git
        git = start_git(config.root)  # answered while the pages are read and checked
    try:
        pages, executed, hasher = _execute_and_check(config, summary, check_only, progress)
        if summary.ok:  # a passing check binds its new numbers; a failing one changes nothing
            from sitebuild.quotes import save_quote_lock
            save_quote_lock(summary.quotes)
        if summary.ok and not check_only:
            _render_and_write(config, pages, executed, summary, annotate, git, hasher)
            _record_stamp(config, pages, executed, sources, newest[0], started_ns)
    finally:
        if git is not None:
            git()  # waited for (and reaped) whatever happened
    summary.seconds = time.monotonic() - started
    return summary


def _run_site_steps(config: BuildConfig, progress: Progress) -> None:
    if config.run_steps and config.site.steps:
        from sitebuild.commands.steps import run_steps
        for step in run_steps(config.site.steps, config.root, config.cache_dir / "steps.json", config.force,
                              config.asked_steps):
            checked = ", check passed before on these files" if step.check_remembered else ", checked" if step.checked else ""
            progress(f"  step {step.name}: {'ran' if step.ran else 'not run'}{checked} "
                     f"({step.seconds:.2f} s)")


def _execute_and_check(config: BuildConfig, summary: BuildSummary, check_only: bool,
                       progress: Progress) -> tuple[list, dict, FileHasher]:
    """Read every page, run (or reuse) its execution, and fill ``summary`` with every
    problem found: source errors, failed pages, site checks and quoted numbers. Returns
    the pages, their executions and the cache's file hasher."""
    from sitebuild.checks.check import Problem, check_site
    from sitebuild.checks.links import author_checks, check_data_keys
    from sitebuild.quotes import check_quotes
    from sitebuild.quotes.memo import QuoteMemo
    from sitebuild.source.page_cache import read_pages_cached

    pages, source_errors = read_pages_cached(config.source, config.root, config.cache_dir)
    unknown = sorted(set(config.only) - {p.slug for p in pages})
    if unknown:
        raise ConfigError(f"--only: no page {unknown} in {config.source}; expected some of {sorted(p.slug for p in pages)}")
    executed, warnings, ran, hasher = gather_executions(config, pages, progress, will_render=not check_only)
    problems = [Problem(e.path, e.line, e.message) for e in source_errors]
    problems += check_site(pages, executed, scripts=check_only)
    problems += check_data_keys(pages, config.site.data_theme)
    problems += author_checks(pages, executed, config.site, config.root)
    memo = QuoteMemo(config.cache_dir)
    summary.quotes = check_quotes(config.source, pages, executed, [e.path for e in source_errors], memo=memo)
    memo.save()
    problems += summary.quotes.problems()
    problems += warnings
    summary.pages, summary.executed = len(pages), ran
    summary.cached = sum(r.status == "cached" for r in executed.values())
    summary.failed = sum(r.error is not None for r in executed.values())
    summary.problems = problems
    summary.rows = _report_rows(pages, executed, problems, summary.quotes)
    return pages, executed, hasher


def run_check_fix(config: BuildConfig, *, progress: Progress = lambda line: None) -> tuple[list, BuildSummary]:
    """``check --fix``: check, rewrite every stale number (and the lock), then check again.
    The second check reuses the executions (prose is not in the cache key), so no kernel
    starts. Returns the fixes made and the second check's summary."""
    from dataclasses import replace

    from sitebuild.quotes import fix_quotes

    first = run_build(config, check_only=True, progress=progress)
    if first.quotes is None or not any(q.problems() for q in first.page_quotes):
        return [], first
    fixes = fix_quotes(first.quotes)
    return fixes, run_build(replace(config, force=False, run_steps=False), check_only=True, progress=progress)


def _render_and_write(config: BuildConfig, pages: list, executed: dict, summary: BuildSummary, annotate,
                      git=None, hasher: FileHasher | None = None) -> None:
    """Render the site (each explainer whose inputs are unchanged is kept from the last
    site, see :mod:`sitebuild.render.render_cache`) and swap it in; write the scripts."""
    from sitebuild.execution.deps import PACKAGE_VERSIONS_FILE
    from sitebuild.render.highlight import HIGHLIGHT_FILE, HighlightMemo
    from sitebuild.render.provenance import collect_provenance
    from sitebuild.quotes import page_marks
    from sitebuild.render.render import download_files, render_site
    from sitebuild.render.render_cache import RenderCache, page_signature, site_file_signatures, site_signature
    from sitebuild.source.page_cache import engine_version
    from sitebuild.output.scripts import SCRIPTS_FILE, update_scripts
    from sitebuild.output.write import write_site

    built = [p for p in pages if p.slug in executed]
    marks = annotate(built, executed) if annotate else {
        slug: page_marks(quotes, include_problems=not config.strict) for slug, quotes in summary.quotes.pages.items()}
    modules = {name for packages in _package_tables(executed) for name in packages}
    provenance = collect_provenance(config.root, {p.slug: executed[p.slug].files_read for p in built}, modules,
                                    git=git, digest=hasher.digest if hasher is not None else None,
                                    package_memo=config.cache_dir / PACKAGE_VERSIONS_FILE)
    bibliography = (config.root / config.site.bibliography,) if getattr(config.site, "bibliography", "") else ()
    shared = site_signature(built, config.site, config.templates, provenance.commit, bibliography, provenance.dirty)
    renders = RenderCache(config.cache_dir, config.out)
    highlights = HighlightMemo(config.cache_dir / HIGHLIGHT_FILE)
    signatures = {p.slug: page_signature(p, executed.get(p.slug), marks.get(p.slug), shared) for p in built}
    reused = renders.reusable({**signatures, **site_file_signatures(shared, provenance, summary.rows)})
    kept = renders.kept_downloads({p.slug: download_files(p, executed.get(p.slug)) for p in built})
    site = render_site(built, executed, summary.rows, templates=config.templates, site_title=config.site.title,
                       themes=config.site.themes, annotations=marks, data_theme=config.site.data_theme,
                       site=config.site, root=config.root, provenance=provenance, reused=reused,
                       kept=kept, bytecode_dir=config.cache_dir / "templates", highlights=highlights)
    write_site(site, config.out, config.templates / "static")
    renders.save()
    highlights.save((b.source, b.language) for p in built for b in p.blocks)
    if config.write_scripts:
        update_scripts(pages, config.cache_dir / SCRIPTS_FILE, engine_version())
    summary.written = True


def _package_tables(executed: dict) -> list[dict]:
    """The package tables (name -> path, version, stamp) of the executions, each once:
    the entries that share a stored set of packages share one table."""
    seen, tables = set(), []
    for result in executed.values():
        packages = (result.deps or {}).get("packages") or {}
        if id(packages) not in seen:  # every table is alive (in ``executed``) meanwhile
            seen.add(id(packages))
            tables.append(packages)
    return tables


def _record_stamp(config: BuildConfig, pages: list, executed: dict, sources: str, newest_ns: int,
                  started_ns: int) -> None:
    """Write the "nothing changed" stamp, or remove it when the next build must not trust
    this one: a page that runs on every build, an --only build, declared inputs (their
    globs are expanded by the full path), a file that moved while its page ran, or a
    state too recent to vouch for its contents."""
    from sitebuild.execution.cache import trusted
    from sitebuild.store.files import is_racy
    from sitebuild.store.stamp import generated_digest, is_fresh, write_recorded_inputs, write_stamp

    record: dict = {"files": {}, "listings": {}, "env": {}, "packages": {}}
    for result in executed.values():
        deps = result.deps or {}
        for name, state in deps.get("states", {}).items():
            record["files"].setdefault(name, state)
        for name, digest in deps.get("files", {}).items():
            record["files"].setdefault(name, None if digest == "absent" else deps.get("states", {}).get(name))
        record["listings"].update(deps.get("listings", {}))
        record["env"].update(deps.get("env", {}))
    for packages in _package_tables(executed):
        record["packages"].update({n: info["stamp"] for n, info in packages.items()})
    write_recorded_inputs(config.cache_dir, record)
    volatile = (config.only or any(not p.front.cache for p in pages) or config.site.inputs
                or any(p.front.inputs for p in pages) or not all(trusted(r) for r in executed.values()))
    if volatile or not is_fresh(record) or is_racy([0, newest_ns, newest_ns], started_ns):
        _stamp_path(config).unlink(missing_ok=True)
        return
    write_stamp(_stamp_path(config), {"fingerprint": sources, "deps": record,
                                       "generated": generated_digest(config.source, _generated(config))})
