"""The stages of the build, each a function of frozen data that returns new frozen data:
read, order, extract and execute (or reuse the cache), check, render and write, and the
stamp. :func:`sitebuild.commands.build.build_stages` calls them in order, after the start
(the fingerprint, :func:`sitebuild.commands.uptodate.start_build`); it imports this
module only once the fast path (the stamp holds) has failed."""

from __future__ import annotations

import time
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Callable, Mapping

from msgspec import Struct, field
from msgspec.structs import replace

from sitebuild.commands.summary import BuildSummary, Progress
from sitebuild.commands.uptodate import BuildStart, generated_state, kernel_env, stamp_path
from sitebuild.config import BuildConfig
from sitebuild.errors import ConfigError
from sitebuild.execution.deps import (
    PACKAGE_VERSIONS_FILE,
    FileHasher,
    Package,
    package_table,
    state_locations,
    untraced_warning,
)
from sitebuild.execution.order import (
    Feeds,
    cycle_message,
    feeders,
    feeds_of,
    find_cycle,
    levels,
    load_feeds,
    save_feeds,
)
from sitebuild.execution.states import code_digest
from sitebuild.store.files import is_racy
from sitebuild.store.stamp import (
    generated_digest,
    read_site_files,
    write_recorded_inputs,
    write_site_files,
    write_stamp,
)

if TYPE_CHECKING:
    from sitebuild.checks.check import Problem
    from sitebuild.execution.cache import ExecutionCache, ResidentEntries
    from sitebuild.execution.executed import ExecutedPage
    from sitebuild.quotes import QuoteRun
    from sitebuild.render.render import ResidentRender
    from sitebuild.source.read import Page
    from sitebuild.store.shelf import ResidentValues

__all__ = ["CheckedSite", "Executions", "PageOrder", "ReadPages", "Resident", "WrittenSite",
           "check_stage", "execute_stage", "load_feeds", "order_stage", "read_stage", "record_stamp",
           "render_and_write", "save_quote_lock", "start_git", "summarize"]


def _frozen(mapping: dict) -> Mapping:
    return MappingProxyType(mapping)


# -- What the builds of one process share ---------------------------------------------------
# (their modules are loaded by the preview only)

def _resident_values() -> ResidentValues:
    from sitebuild.store.shelf import ResidentValues

    return ResidentValues()


def _resident_entries() -> ResidentEntries:
    from sitebuild.execution.cache import ResidentEntries

    return ResidentEntries()


def _resident_render() -> ResidentRender:
    from sitebuild.render.render import ResidentRender

    return ResidentRender()


class Resident(Struct):
    """What the builds of one process (the preview's rebuilds) share in memory, so that a
    prose edit parses, checks and renders again only the page it edited: the parsed pages
    and the quote checks (the memos of :mod:`sitebuild.store.shelf`, without their files),
    the execution cache's decoded entries (their dependencies are still checked on every
    build) and the render's search words. Each value is looked up by everything it is made
    of, as its memo on disk is, and no stage changes a value it was given: a build with it
    writes exactly the bytes a build without it writes."""

    pages: ResidentValues = field(default_factory=_resident_values)
    quotes: ResidentValues = field(default_factory=_resident_values)
    entries: ResidentEntries = field(default_factory=_resident_entries)
    render: ResidentRender = field(default_factory=_resident_render)


# -- The data between the stages ----------------------------------------------------------

class ReadPages(Struct, frozen=True):
    """The read stage: the pages (in source order) and the errors of the sources."""

    pages: tuple[Page, ...]
    source_errors: tuple = ()


class PageOrder(Struct, frozen=True):
    """The order stage: the pages' paths in levels (a page after every page feeding it),
    the pages feeding each page, and the files the steps made (written before every page)."""

    levels: tuple[tuple[str, ...], ...]
    fed_by: Mapping[str, frozenset[str]] = field(default_factory=lambda: _frozen({}))
    step_outputs: frozenset[str] = frozenset()


class Executions(Struct, frozen=True):
    """The execute stage: each page's execution by slug, warnings, how many pages ran, the
    cache's file hasher (its digests, as just checked, serve the provenance), what made
    pages feed pages in this build, and the problem of a cycle among them (None)."""

    pages: Mapping[str, ExecutedPage]
    warnings: tuple = ()
    ran: int = 0
    hasher: FileHasher | None = None
    feeds: Feeds = field(default_factory=Feeds)
    cycle: Problem | None = None


class CheckedSite(Struct, frozen=True):
    """The check stage: every problem found (source errors, failed pages, site checks,
    quoted numbers, warnings), the quote check and the report's rows."""

    problems: tuple
    quotes: QuoteRun
    rows: tuple

    def ok(self, strict: bool) -> bool:
        """True when nothing fails the build."""
        return not any(p.severity == "error" or strict for p in self.problems)


class WrittenSite(Struct, frozen=True):
    """The write stage: every file now in the output folder, with its state, and how long
    ``on_written`` held the build (seconds; not counted as the build's own time)."""

    files: Mapping[str, list[int]]
    held: float = 0.0


def start_git(config: BuildConfig):
    from sitebuild.render.provenance import start_git

    return start_git(config.root)


# -- read, order -------------------------------------------------------------------------------

def read_stage(config: BuildConfig, resident: Resident | None = None) -> ReadPages:
    """Read every page (through the page cache); an --only naming no page is an error. The
    engine's state is looked up afresh, once in this build (a preview builds many)."""
    from sitebuild.source.page_cache import engine_version, read_pages_cached

    engine_version.cache_clear()
    pages, source_errors = read_pages_cached(config.source, config.root, config.cache_dir,
                                             resident.pages if resident is not None else None)
    unknown = sorted(set(config.only) - {p.slug for p in pages})
    if unknown:
        raise ConfigError(f"--only: no page {unknown} in {config.source}; "
                          f"expected some of {sorted(p.slug for p in pages)}")
    return ReadPages(tuple(pages), tuple(source_errors))


def order_stage(pages: tuple[Page, ...], feeds: Feeds, step_outputs: frozenset[str] = frozenset()) -> PageOrder:
    """The pages in levels, from what fed what in the last build (``feeds``): a page runs,
    or has its cache looked up, once the pages feeding it are settled."""
    paths = [p.rel_path for p in pages]
    fed_by = feeders(paths, feeds)
    return PageOrder(levels(fed_by), fed_by, step_outputs)


# -- extract and execute --------------------------------------------------------------------

class _Settling(Struct):
    """The execute stage's own working state while it settles the pages, level by level
    (never handed on: :func:`execute_stage` returns :class:`Executions`)."""

    cache: ExecutionCache
    by_path: dict
    executed: dict = field(default_factory=dict)
    warnings: list = field(default_factory=list)
    waves: int = 0                            # levels settled so far
    wave: dict = field(default_factory=dict)  # page path -> the wave it was last settled in
    ran: dict = field(default_factory=dict)   # page path -> the wave it ran in
    scan: Callable[[], None] | None = None    # the package scan, done once while workers run


def execute_stage(config: BuildConfig, pages: tuple[Page, ...], order: PageOrder, progress: Progress,
                  will_render: bool = False, resident: Resident | None = None) -> Executions:
    """Settle every page, level by level: reuse its valid cache entry, else extract its
    notebook and run it (pages of one level in parallel). Each page that runs says why
    (``reason``). Under ``--only`` another page keeps its latest execution (what the last
    site showed) even when it is out of date. When this build's records show a page
    reading what a page run in its level or a later one wrote, it is settled again after
    it; pages feeding each other in a cycle are an error. With ``will_render``, the
    installed packages the report lists are looked up while worker processes run pages."""
    from sitebuild.execution.cache import ExecutionCache  # reads pages (markdown-it): not on the fast path

    cache = ExecutionCache(config.cache_dir, config.root, env=kernel_env(config), site_inputs=config.site.inputs,
                           engine=code_digest(), resident=resident.entries if resident is not None else None)
    state = _Settling(cache, {p.rel_path: p for p in pages},
                      scan=(lambda: _scan_packages(config)) if will_render else None)
    for page_paths in order.levels:
        _settle_level(config, state, page_paths, progress, force=config.force)
    feeds, cycle = _this_build_feeds(state, order)
    for _ in range(len(pages)):
        late = () if cycle else _late_readers(state, feeds)
        if not late:
            break
        _settle_level(config, state, late, progress, force=False)
        feeds, cycle = _this_build_feeds(state, order)
    cache.save()
    save_feeds(config.cache_dir, feeds)
    return Executions(_frozen(dict(state.executed)), tuple(state.warnings), len(state.ran), cache.hasher, feeds,
                      _cycle_problem(cycle, feeds))


def _settle_level(config: BuildConfig, state: _Settling, page_paths: tuple[str, ...], progress: Progress,
                  force: bool) -> None:
    """Settle the pages of one level: from the cache, or by running them together. A page
    that ran earlier in this build and whose execution still holds keeps it."""
    wave, state.waves = state.waves, state.waves + 1
    jobs = []
    for rel in page_paths:
        page = state.by_path[rel]
        state.wave[rel] = wave
        settled, reason = _from_cache(config, state, page, progress, force)
        if settled is not None and not (settled.status == "cached" and rel in state.ran):
            state.executed[page.slug] = settled
        elif settled is None and reason:
            jobs.append(_make_job(config, page, reason))
    if jobs:
        _run_jobs(config, state, jobs, wave, progress)


def _from_cache(config: BuildConfig, state: _Settling, page: Page, progress: Progress,
                force: bool) -> tuple[ExecutedPage | None, str]:
    """The page's execution without running it (no code, a valid cache entry, a page left
    out by --only) and "", or None and why it must run ("" when it must not: a page left
    out by --only that never ran)."""
    from sitebuild.checks.check import Problem  # the checks' module: see the module's docstring
    from sitebuild.execution.executed import ExecutedPage

    if not page.code_blocks and not page.inline and not page.claims:
        return ExecutedPage(slug=page.slug, status="no code"), ""
    if force:
        reason = "--force"
    elif not page.front.cache:
        reason = "cache: false"
    else:
        lookup = state.cache.lookup(page)
        state.warnings.extend(Problem(page.rel_path, None, w, "warning") for w in lookup.warnings)
        if lookup.page is not None:
            return lookup.page, ""
        reason = lookup.reason
    if config.only and page.slug not in config.only:
        kept = state.cache.latest(page)
        # The author narrowed the build on purpose: say so, but it is not a problem.
        progress(f"  {'kept' if kept else 'skipped'}      {page.slug}  (not in --only; "
                 f"{'its last execution is kept' if kept else 'it never ran'})")
        return kept, ""
    return None, reason


def _make_job(config: BuildConfig, page: Page, reason: str):
    from sitebuild.execution.execute import make_job  # the kernels' machinery, loaded only when a page runs

    return make_job(page, config.root, config.timeout or page.front.timeout or config.site.timeout, reason,
                    learn_modules=config.site.preload == "learned")


def _run_jobs(config: BuildConfig, state: _Settling, jobs: list, wave: int, progress: Progress) -> None:
    from sitebuild.execution.execute import INSTALLED_MODULES, execute_pages
    from sitebuild.execution.template import remember_preload

    paths = {job.slug: job.rel_path for job in jobs}
    learned: set[str] = set()

    def done(result: ExecutedPage) -> None:
        page = state.by_path[paths[result.slug]]
        learned.update(result.trace.get(INSTALLED_MODULES, ()))
        note = untraced_warning(result.trace) if result.error is None and result.trace else ""
        if note and not (page.front.inputs or config.site.inputs or not page.front.cache):
            # One of the execution's own warnings: kept with its cache entry, so that a
            # build that takes the page from the cache reports it as the build that ran it.
            result = replace(result, warnings=[*result.warnings, f"not traced: {note}"])
        stored = state.cache.store(page, result)
        state.executed[result.slug] = stored
        state.ran[page.rel_path] = wave
        progress(_status_line(stored, stored.slug))

    progress(f"running {len(jobs)} page(s) on up to {min(config.jobs, len(jobs))} kernel(s)")
    scan, state.scan = state.scan, None
    execute_pages(jobs, config.jobs, on_done=done, meanwhile=scan, preload=_preload(config))
    if config.site.preload == "learned" and learned and not config.only:
        # Pages kept from the cache imported what they did before: their share stays.
        runnable = [p for p in state.by_path.values() if p.code_blocks or p.inline or p.claims]
        remember_preload(config.cache_dir, learned, replace=len(state.ran) == len(runnable))


def _preload(config: BuildConfig):
    """What the kernel template imports besides the kernel's own modules: site.yaml's
    ``preload:`` names, or with ``preload: learned`` what the last build's pages held;
    None (no template) when kernels are to start fresh."""
    from sitebuild.execution.template import Preload, learned_preload

    if config.kernels == "fresh":
        return None
    if config.site.preload == "learned":
        return Preload(optional=learned_preload(config.cache_dir))
    return Preload(required=config.site.preload or ())


def _status_line(result: ExecutedPage, slug: str) -> str:
    why = f"  [{result.reason}]" if result.reason else ""
    if result.error is not None:
        return f"  failed    {slug}  ({result.seconds:.2f} s): {result.error.message.splitlines()[0]}{why}"
    return f"  {result.status:<9} {slug}  ({result.seconds:.2f} s){why}"


def _this_build_feeds(state: _Settling, order: PageOrder) -> tuple[Feeds, tuple[str, ...]]:
    """What fed what among the pages settled so far, and a cycle in it (())."""
    reads, writes = {}, {}
    for rel, page in state.by_path.items():
        result = state.executed.get(page.slug)
        if result is not None and result.deps is not None:
            reads[rel], writes[rel] = result.deps, result.deps.writes
        elif result is not None and result.trace:
            writes[rel] = result.writes
    if not order.step_outputs and not any(writes.values()):
        reads = {}  # nothing was written, so nothing read can feed a page: no page's reads are listed
    feeds = feeds_of({rel: deps.reads for rel, deps in reads.items()}, writes, order.step_outputs)
    return feeds, find_cycle(feeders(list(state.by_path), feeds))


def _late_readers(state: _Settling, feeds: Feeds) -> tuple[str, ...]:
    """The pages to settle again: those that read what a page wrote which ran in their wave
    or a later one, and those whose code raised while a page that wrote files ran in their
    wave or later (on a first build nothing tells yet that the one reads what the other
    writes, and the error may be the file missing)."""
    def ran_since(writer: str, reader: str) -> bool:
        return writer != reader and writer in state.ran and state.ran[writer] >= state.wave.get(reader, 0)

    fed_by = feeders(list(state.by_path), feeds)
    late = [reader for reader, writers in fed_by.items() if any(ran_since(w, reader) for w in writers)]
    writers = [rel for rel, page in state.by_path.items() if _wrote(state.executed.get(page.slug))]
    late += [rel for rel, page in state.by_path.items() if rel not in late and _raised(state.executed.get(page.slug))
             and any(ran_since(w, rel) for w in writers)]
    return tuple(late)


def _wrote(result: ExecutedPage | None) -> bool:
    return result is not None and bool(result.writes)


def _raised(result: ExecutedPage | None) -> bool:
    return result is not None and result.error is not None and result.error.kind == "exception"


def _cycle_problem(cycle: tuple[str, ...], feeds: Feeds) -> Problem | None:
    if not cycle:
        return None
    from sitebuild.checks.check import Problem

    return Problem(cycle[0], None, cycle_message(cycle, feeds))


def _scan_packages(config: BuildConfig) -> None:
    """Fill the memo of installed distributions (most of a second when it is missing), so
    that rendering finds it. A failure here is left for the render to meet and report."""
    try:
        package_table(config.cache_dir / PACKAGE_VERSIONS_FILE)
    except Exception:
        pass


# -- check ------------------------------------------------------------------------------------

def check_stage(config: BuildConfig, read: ReadPages, executions: Executions, check_only: bool = False,
                resident: Resident | None = None) -> CheckedSite:
    """Every problem of the site: source errors, failed pages, site checks (with
    ``check_only``, whether the generated scripts are in sync too), quoted numbers, the
    warnings of the executions and a cycle among the pages."""
    from sitebuild.checks.check import Problem, check_site
    from sitebuild.checks.figure_contrast import remembered_contrasts
    from sitebuild.checks.links import author_checks, check_data_keys
    from sitebuild.quotes import check_quotes
    from sitebuild.quotes.memo import QuoteMemo

    pages, executed = list(read.pages), executions.pages
    problems = [Problem(e.path, e.line, e.message) for e in read.source_errors]
    problems += [executions.cycle] if executions.cycle is not None else []
    problems += check_site(pages, executed, scripts=check_only)
    problems += check_data_keys(pages, config.site.data_theme)
    with remembered_contrasts(config.cache_dir):  # the dark figures' marks, parsed once per figure
        problems += author_checks(pages, executed, config.site, config.root)
    memo = QuoteMemo(config.cache_dir, resident.quotes if resident is not None else None)
    quotes = check_quotes(config.source, pages, executed, [e.path for e in read.source_errors], memo=memo)
    memo.save()
    problems += quotes.problems()
    problems += executions.warnings
    return CheckedSite(tuple(problems), quotes, tuple(_report_rows(pages, executed, problems, quotes)))


def save_quote_lock(quotes: QuoteRun) -> None:
    from sitebuild.quotes import save_quote_lock

    save_quote_lock(quotes)


def _report_rows(pages: list, executed: Mapping, problems: list, quotes: QuoteRun) -> list:
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


def summarize(config: BuildConfig, read: ReadPages, executions: Executions, checked: CheckedSite,
              written: WrittenSite | None, seconds: float) -> BuildSummary:
    """The build's summary, from the data of its stages."""
    results = executions.pages.values()
    return BuildSummary(pages=len(read.pages), executed=executions.ran,
                        cached=sum(r.status == "cached" for r in results),
                        failed=sum(r.error is not None for r in results),
                        without_code=sum(r.status == "no code" for r in results), seconds=seconds,
                        problems=checked.problems, rows=checked.rows, written=written is not None,
                        strict=config.strict, quotes=checked.quotes,
                        read=() if checked.ok(config.strict) else read_by_pages(executions))


def read_by_pages(executions: Executions) -> tuple[str, ...]:
    """The names of the files and folders this build's pages read or looked for (from the
    root, or absolute): what a failed build's preview watches besides the last good build's
    record, so that creating the missing file a page failed on rebuilds it."""
    names: set[str] = set()
    for result in executions.pages.values():
        if result.deps is not None:
            names.update(result.deps.watched())
        else:  # a failed page, never stored: what its kernel recorded
            names.update(result.trace.get("files", {}))
    return tuple(sorted(names))


# -- render and write -------------------------------------------------------------------------

def render_and_write(config: BuildConfig, pages: tuple[Page, ...], executions: Executions, checked: CheckedSite,
                     annotate: Callable | None, git=None, resident: Resident | None = None,
                     on_written: Callable[[tuple], None] | None = None) -> WrittenSite:
    """Render the site (each explainer whose inputs are unchanged, and whose file is as the
    last build wrote it, is kept from the last site, see :mod:`sitebuild.render.render_cache`),
    swap it in (and tell ``on_written`` the problems), and write the scripts. Returns the
    files of the site as written."""
    from sitebuild.output.scripts import SCRIPTS_FILE, update_scripts
    from sitebuild.output.write import write_site
    from sitebuild.quotes import page_marks
    from sitebuild.render.highlight import HIGHLIGHT_FILE, HighlightMemo
    from sitebuild.render.provenance import collect_provenance
    from sitebuild.render.render import download_files, render_site
    from sitebuild.render.render_cache import RenderCache, page_signature, site_file_signatures, site_signature
    from sitebuild.source.page_cache import engine_version

    executed = executions.pages
    built = [p for p in pages if p.slug in executed]
    marks = annotate(built, dict(executed)) if annotate else {
        slug: page_marks(quotes, include_problems=not config.strict) for slug, quotes in checked.quotes.pages.items()}
    modules = {record.name for group in _package_groups(executed) for record in group}
    hasher = executions.hasher
    provenance = collect_provenance(config.root, {p.slug: executed[p.slug].files_read for p in built}, modules,
                                    git=git, digest=hasher.digest if hasher is not None else None,
                                    package_memo=config.cache_dir / PACKAGE_VERSIONS_FILE)
    bibliography = (config.root / config.site.bibliography,) if config.site.bibliography else ()
    shared = site_signature(built, config.site, config.templates, provenance.commit, bibliography, provenance.dirty)
    renders = RenderCache(config.cache_dir, config.out, read_site_files(config.cache_dir))
    highlights = HighlightMemo(config.cache_dir / HIGHLIGHT_FILE)
    signatures = {p.slug: page_signature(p, executed.get(p.slug), marks.get(p.slug), shared) for p in built}
    reused = renders.reusable({**signatures, **site_file_signatures(shared, provenance, list(checked.rows))})
    kept = renders.kept_downloads({p.slug: download_files(p, executed.get(p.slug)) for p in built})
    site = render_site(built, executed, list(checked.rows), config.site, templates=config.templates,
                       annotations=marks, root=config.root, provenance=provenance, reused=reused, kept=kept,
                       bytecode_dir=config.cache_dir / "templates", highlights=highlights,
                       resident=resident.render if resident is not None else None)
    states = write_site(site, config.out, config.templates / "static", renders.kept_states())
    held = time.monotonic()
    if on_written is not None:
        on_written(checked.problems)
    held = time.monotonic() - held
    written = WrittenSite(_frozen(states), held)
    write_site_files(config.cache_dir, written.files)
    renders.save()
    highlights.save((b.source, b.language) for p in built for b in p.blocks)
    if config.write_scripts:
        update_scripts(list(pages), config.cache_dir / SCRIPTS_FILE, engine_version())
    return written


def _package_groups(executed: Mapping[str, ExecutedPage]) -> list[tuple]:
    """The package records of the executions, each group once: the entries that share a
    stored set of packages share one tuple."""
    seen, groups = set(), []
    for result in executed.values():
        group = result.deps.of_kind(Package) if result.deps is not None else ()
        if id(group) not in seen:  # every group is alive (in ``executed``) meanwhile
            seen.add(id(group))
            groups.append(group)
    return groups


# -- the stamp -----------------------------------------------------------------------------------

def record_stamp(config: BuildConfig, pages: tuple[Page, ...], executions: Executions, start: BuildStart) -> None:
    """Write the "nothing changed" stamp, or remove it when the next build must not trust
    this one: a page that runs on every build, an --only build, declared inputs (their
    globs are expanded by the full path), a file that moved while its page ran, or a
    state too recent to vouch for its contents. The site as written is not in it: the
    write stage kept it already (the site-files memo), and the next build reads it there."""
    lines: dict[str, Any] = {}
    watched: set[str] = set()
    added: set[int] = set()  # record tuples shared by entries are added and vouched for once
    vouching: set[int] = set()
    vouched, now_ns = True, time.time_ns()
    for result in executions.pages.values():
        if result.deps is None:
            continue
        result.deps.stamp_lines(into=lines, watched=watched, done=added)
        vouched = vouched and result.deps.vouches(now_ns, vouching)
    write_recorded_inputs(config.cache_dir, watched)
    volatile = (config.only or any(not p.front.cache for p in pages) or config.site.inputs
                or any(p.front.inputs for p in pages))
    if volatile or not vouched or is_racy([0, start.newest_ns, start.newest_ns], start.started_ns):
        stamp_path(config).unlink(missing_ok=True)
        return
    write_stamp(stamp_path(config), {"fingerprint": start.sources, "deps": lines, "states": state_locations(),
                                       "generated": generated_digest(config.source, generated_state(config))})
