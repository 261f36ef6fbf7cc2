"""The benchmark grid: plan work units, run them locally or on a dask cluster, cache them by content.

A work unit is one audit x model x seed; it trains the model once per strategy that needs a
fit and audits every strategy's test-set predictions (see :mod:`faircode._unit`). The cache
has two levels, both read and written here, in the client, never by a worker:

1. ``pred-<fit_key>.pkl``: a unit's test-set predictions, keyed by the digest of the code
   that fits (the import closure of :mod:`faircode._fit`), the audit's manifest and data
   files, the model, the seed and the strategies;
2. ``unit-<key>.pkl``: its fairness and performance tables, keyed by ``fit_key`` and the
   digest of the code that computes them (the import closure of :mod:`faircode._unit`).

An edit to the statistics reuses every cached fit and only recomputes the tables (seconds
a unit instead of minutes); an edit to this module, the command line or a progress message
changes no key. An entry that cannot be read is recomputed, never trusted.

Multiple testing: p-values are Holm-adjusted within one family, the tests of one audit x
strategy x model x seed (every protected attribute and every metric of that run).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from faircode._digest import FIT_ENTRY, UNIT_ENTRY, bytes_digest, code_digest, combined_digest
from faircode._grid import MODELS, STRATEGIES, models_of
from faircode._pickles import load_entry, store_entry
from faircode._results import combine
from faircode._unit import AuditSource, Predictions, UnitResult, WorkUnit
from faircode.datasets import audits_root, available_audits, find_manifest_path
from faircode.exceptions import BenchmarkError
from faircode.manifest import Manifest, load_manifest

REPO_DIR = Path(__file__).resolve().parent.parent
CACHE_DIR_ENV = "FAIRCODE_BENCHMARK_CACHE"
#: A unit to run: the unit, and its cached predictions when only its tables must be recomputed.
Task = tuple[WorkUnit, Predictions | None]
Progress = Callable[[str], None]


@dataclass
class GridPlan:
    """The units of a grid, and the source of every audit they use (by audit slug)."""

    units: list[WorkUnit]
    sources: dict[str, AuditSource]


@dataclass
class GridResult:
    """The whole grid: combined tables and timings."""

    fairness: pd.DataFrame
    performance: pd.DataFrame
    units: list[UnitResult] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def compute_seconds(self) -> float:
        """Summed CPU time of the work done in this run (fits and tables not taken from the cache)."""
        return sum(u.cpu_seconds for u in self.units if u.from_cache != "tables")

    @property
    def significance_seconds(self) -> float:
        """Summed CPU time in fairness reports (metrics and significance) of the tables computed."""
        return sum(u.significance_seconds for u in self.units if u.from_cache != "tables")


def default_cache_dir() -> Path:
    """$FAIRCODE_BENCHMARK_CACHE, else .cache/benchmark in the repository (ignored by git)."""
    return Path(os.environ.get(CACHE_DIR_ENV) or REPO_DIR / ".cache" / "benchmark")


def read_source(manifest: Manifest) -> AuditSource:
    """The audit's manifest and the bytes of its data files, with their digest."""
    files = {}
    for path in (manifest.data.path, manifest.data.decode):
        if path is not None:
            if not path.is_file():
                raise BenchmarkError(f"audit '{manifest.slug}' ({manifest.path}), field 'data.path': "
                                     f"data file {path} not found; nothing was written")
            files[path] = path.read_bytes()
    digest = combined_digest(bytes_digest(manifest.path.read_bytes()), *(bytes_digest(b) for b in files.values()))
    return AuditSource(manifest, files, digest)


def plan_grid(audits: Sequence[str] | None, strategies: Sequence[str], models: Sequence[str] | None,
              seeds: Sequence[int], audits_dir: str | Path | None = None) -> GridPlan:
    """Every work unit of the grid, with its cache keys; all manifests are validated first.

    ``models=None`` means the trained models plus each audit's deployed scores; a deployed
    score (e.g. ``compas_score``) can also be named explicitly.
    """
    slugs = list(dict.fromkeys(audits)) if audits else available_audits(audits_dir)  # one folder named twice: once
    manifests = [load_manifest(find_manifest_path(a, audits_dir or audits_root())) for a in slugs]
    fit_code, unit_code = code_digest(FIT_ENTRY), code_digest(UNIT_ENTRY)
    units, sources = [], {}
    for manifest in manifests:
        if manifest.slug in sources:
            raise BenchmarkError(f"two audits are called '{manifest.slug}' ({manifest.path} and "
                                 f"{sources[manifest.slug].manifest.path}); give each folder its own name")
        sources[manifest.slug] = source = read_source(manifest)
        for model, model_strategies in models_of(manifest, models, strategies):
            for seed in seeds:
                fit_key = combined_digest(fit_code, source.digest, model, str(seed), *model_strategies)
                units.append(WorkUnit(manifest.slug, manifest.path, model, seed, model_strategies,
                                      key=combined_digest(fit_key, unit_code), fit_key=fit_key, code=unit_code))
    return GridPlan(units, sources)


def read_cached(unit: WorkUnit, cache_dir: Path) -> UnitResult | None:
    """The cached tables of a unit, or None when absent or unreadable."""
    entry = load_entry(cache_dir / f"unit-{unit.key}.pkl")
    try:
        fairness, performance, seconds, sig_seconds, cpu_seconds = entry
    except (TypeError, ValueError):  # absent, or not an entry of this shape
        return None
    return UnitResult(unit, fairness, performance, None, seconds, sig_seconds, cpu_seconds, from_cache="tables")


def read_cached_predictions(unit: WorkUnit, cache_dir: Path) -> Predictions | None:
    """The cached test-set predictions of a unit, or None when absent or unreadable."""
    entry = load_entry(cache_dir / f"pred-{unit.fit_key}.pkl")
    return entry if isinstance(entry, Predictions) else None


def write_cached(result: UnitResult, cache_dir: Path) -> None:
    """Store a unit's predictions (when computed in this run) and its tables, each atomically."""
    if result.predictions is not None and not result.from_cache:
        store_entry(cache_dir / f"pred-{result.unit.fit_key}.pkl", result.predictions)
    store_entry(cache_dir / f"unit-{result.unit.key}.pkl", (result.fairness, result.performance, result.seconds,
                                                          result.significance_seconds, result.cpu_seconds))


def run_units(plan: GridPlan, jobs: int, cache_dir: Path | None, progress: Progress = print,
              scheduler: str | None = None) -> list[UnitResult]:
    """Run (or load from the cache) every unit of the plan.

    The missing units run through joblib on this machine, or with ``scheduler`` on a dask
    cluster (an address, or ``"local"`` for a LocalCluster of ``jobs`` workers). A unit that
    fails stops the grid with a :class:`BenchmarkError` naming it.
    """
    results, todo = [], []
    for unit in plan.units:
        cached = read_cached(unit, cache_dir) if cache_dir is not None else None
        if cached is not None:
            results.append(cached)
        else:
            todo.append((unit, read_cached_predictions(unit, cache_dir) if cache_dir is not None else None))
    if results:
        progress(f"{len(results)} of {len(plan.units)} work units unchanged, taken from the cache")
    if not todo:
        return results
    refits = sum(p is None for _, p in todo)
    progress(f"{len(todo)} work units to run: {refits} to fit, {len(todo) - refits} from cached predictions")
    todo.sort(key=lambda task: _unit_cost(task, plan.sources), reverse=True)  # largest first, for an even load
    if scheduler is None:
        done_units = run_local(todo, plan.sources, jobs)
    else:
        from faircode._cluster import run_on_cluster
        done_units = run_on_cluster(todo, plan.sources, scheduler, jobs, progress)
    try:
        for done, result in enumerate(done_units, start=1):
            if cache_dir is not None:
                write_cached(result, cache_dir)
            progress(_progress_line(done, len(todo), result))
            results.append(result)
    except BenchmarkError as err:
        raise BenchmarkError(f"{err}; nothing was written to the results") from err
    return results


def run_local(tasks: list[Task], sources: dict[str, AuditSource], jobs: int) -> Iterator[UnitResult]:
    """Run tasks through joblib's default (process) backend, yielding results as they finish."""
    from joblib import Parallel, delayed

    from faircode._unit import run_unit

    # No more workers than tasks: joblib would start every worker asked for, each importing
    # the whole stack, for a grid of one unit.
    parallel = Parallel(n_jobs=max(1, min(jobs, len(tasks))), return_as="generator_unordered")
    yield from parallel(delayed(run_unit)(unit, sources[unit.audit], predictions) for unit, predictions in tasks)


def _progress_line(done: int, total: int, result: UnitResult) -> str:
    what = "tables from cached predictions" if result.from_cache == "predictions" else "fitted and audited"
    where = f" on {result.worker}" if result.worker else ""
    return f"[{done}/{total}] {result.unit.label}: {what} in {result.seconds:.1f} s{where}"


def _unit_cost(task: Task, sources: dict[str, AuditSource]) -> float:
    unit, predictions = task
    size = sum(len(b) for b in sources[unit.audit].files.values())
    if predictions is not None:
        return size * 0.05
    return size * (3.0 if unit.model == "random_forest" else 1.0)


def run_grid(audits: Sequence[str] | None = None, strategies: Sequence[str] | None = None,
             models: Sequence[str] | None = None, seeds: Sequence[int] | None = None, jobs: int = 2,
             cache_dir: Path | None = None, use_cache: bool = True, audits_dir: str | Path | None = None,
             progress: Progress = print, scheduler: str | None = None) -> GridResult:
    """Run the grid (nothing is written to results/; see :func:`faircode.benchmark.run_benchmark`).

    Parameters
    ----------
    audits, strategies, models, seeds
        The grid (default: every audit, every strategy, every model and deployed score, seed 42).
    jobs : int
        Local worker processes (or LocalCluster workers with ``scheduler="local"``).
    cache_dir : Path, optional
        The cache folder (default :func:`default_cache_dir`); ``use_cache=False`` recomputes everything.
    scheduler : str, optional
        A dask scheduler address, or ``"local"``; None runs through joblib on this machine.

    Returns
    -------
    GridResult
    """
    start = time.perf_counter()
    strategies = list(strategies or STRATEGIES)
    unknown = [s for s in strategies if s not in STRATEGIES]
    if unknown:
        raise BenchmarkError(f"unknown strategies {unknown}; expected some of {', '.join(STRATEGIES)}")
    plan = plan_grid(audits, strategies, models, list(seeds or [42]), audits_dir)
    if not plan.units:
        raise BenchmarkError(f"no work to do: none of the models {models} applies to the audits {audits} "
                             f"(trained models: {', '.join(MODELS)}, or a deployed score of the audit)")
    planned = {unit.model for unit in plan.units}
    unused = [model for model in dict.fromkeys(models or ()) if model not in planned]
    if unused:  # a misspelt name beside good ones would otherwise shrink the grid without a word
        raise BenchmarkError(f"the models {unused} apply to none of the audits {sorted(plan.sources)} (trained "
                             f"models: {', '.join(MODELS)}, or a deployed score of the audit)")
    cache = (cache_dir or default_cache_dir()) if use_cache else None
    results = run_units(plan, jobs, cache, progress, scheduler)
    fairness, performance = combine(results)
    return GridResult(fairness, performance, results, time.perf_counter() - start)
