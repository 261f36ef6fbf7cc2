"""The benchmark grid: plan work units, run them in parallel, cache them by content.

A work unit is one audit x model x seed; it trains the model once per strategy that needs a
fit and audits every strategy's test-set predictions. Its cache key hashes everything that
can change its output: the source of the faircode modules it runs, the audit's manifest and data
files, the model, the seed and the strategies. A cached unit is loaded instead of run; a
cache entry that cannot be read is run again, never trusted.

Multiple testing: p-values are Holm-adjusted within one family, the tests of one audit x
strategy x model x seed (every protected attribute and every metric of that run).

Heavy libraries (scikit-learn, scipy) are imported inside the unit runner only, so that a
rerun served from the cache stays fast.
"""

from __future__ import annotations

import ast
import hashlib
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import pandas as pd

from faircode._pickles import load_entry, store_entry
from faircode.datasets import audits_root, available_audits, find_manifest_path
from faircode.exceptions import BenchmarkError, FaircodeError
from faircode.manifest import Manifest, load_manifest

PACKAGE_DIR = Path(__file__).resolve().parent
REPO_DIR = PACKAGE_DIR.parent
CACHE_DIR_ENV = "FAIRCODE_BENCHMARK_CACHE"
DEFAULT_MODELS = ("logistic_regression", "random_forest", "gradient_boosting")
DEFAULT_STRATEGIES = ("baseline", "unawareness_proxy_removal", "reweighing", "group_thresholds")
SCORE_STRATEGIES = ("baseline", "group_thresholds")  # a deployed score cannot be refitted
ALPHA = 0.05


@dataclass(frozen=True)
class WorkUnit:
    """One audit x model x seed of the grid, with the strategies to run and its cache key."""

    audit: str
    manifest_path: Path
    model: str
    seed: int
    strategies: tuple[str, ...]
    key: str = ""
    inputs: str = ""
    code: str = ""


@dataclass
class UnitResult:
    """What a work unit produced: tidy fairness rows, performance rows and timings."""

    unit: WorkUnit
    fairness: pd.DataFrame
    performance: pd.DataFrame
    seconds: float
    significance_seconds: float
    cpu_seconds: float = 0.0
    from_cache: bool = False


@dataclass
class GridResult:
    """The whole grid: combined tables and timings."""

    fairness: pd.DataFrame
    performance: pd.DataFrame
    units: list[UnitResult] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def compute_seconds(self) -> float:
        """Summed CPU time of the units computed in this run (not taken from the cache)."""
        return sum(u.cpu_seconds for u in self.units if not u.from_cache)

    @property
    def significance_seconds(self) -> float:
        """Summed CPU time in fairness reports (metrics and significance) of computed units."""
        return sum(u.significance_seconds for u in self.units if not u.from_cache)


def default_cache_dir() -> Path:
    """$FAIRCODE_BENCHMARK_CACHE, else .cache/benchmark in the repository (ignored by git)."""
    return Path(os.environ.get(CACHE_DIR_ENV) or REPO_DIR / ".cache" / "benchmark")


def file_digest(path: Path) -> str:
    """sha256 of a file's bytes."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def code_digest(entry: str = "_unit") -> str:
    """sha256 over the source of the faircode modules a work unit runs.

    The modules are the static import closure of ``faircode.<entry>`` (imports inside
    functions included), so an edit to any module the grid uses invalidates the cache,
    and an edit to an unrelated module does not.
    """
    digest = hashlib.sha256()
    for path in sorted(_module_closure(entry)):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _module_closure(entry: str) -> set[Path]:
    seen: set[Path] = set()
    todo = [PACKAGE_DIR / f"{entry}.py"]
    while todo:
        path = todo.pop()
        if path in seen or not path.is_file():
            continue
        seen.add(path)
        todo.extend(PACKAGE_DIR / f"{name}.py" for name in _faircode_imports(path))
    return seen


def _faircode_imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("faircode."):
            names.add(node.module.split(".")[1])
        elif isinstance(node, ast.ImportFrom) and node.module == "faircode":
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.Import):
            names.update(a.name.split(".")[1] for a in node.names if a.name.startswith("faircode."))
    return names


def inputs_digest(manifest: Manifest) -> str:
    """sha256 over an audit's manifest and data files."""
    digest = hashlib.sha256(manifest.path.read_bytes())
    for path in (manifest.data.path, manifest.data.decode):
        if path is not None:
            if not path.is_file():
                raise BenchmarkError(f"audit '{manifest.slug}' ({manifest.path}), field 'data.path': "
                                     f"data file {path} not found; nothing was written")
            digest.update(file_digest(path).encode())
    return digest.hexdigest()


def plan_units(audits: list[str] | None, strategies: list[str], models: list[str] | None,
               seeds: list[int], audits_dir: str | Path | None = None) -> list[WorkUnit]:
    """Every work unit of the grid, with its cache key; all manifests are validated first.

    ``models=None`` means the three trained models plus each audit's deployed scores;
    a deployed score (e.g. ``compas_score``) can also be named explicitly.
    """
    slugs = audits or available_audits(audits_dir)
    manifests = [load_manifest(find_manifest_path(a, audits_dir or audits_root())) for a in slugs]
    code = code_digest()
    units = []
    for manifest in manifests:
        inputs = inputs_digest(manifest)
        for model, model_strategies in _models_of(manifest, models, strategies):
            for seed in seeds:
                key = hashlib.sha256("|".join(
                    [code, inputs, model, str(seed), *model_strategies]).encode()).hexdigest()
                units.append(WorkUnit(manifest.slug, manifest.path, model, seed, model_strategies, key, inputs, code))
    return units


def _models_of(manifest: Manifest, models: list[str] | None, strategies: list[str]):
    scores = {s.name for s in manifest.deployed_scores}
    wanted = list(models) if models else [*DEFAULT_MODELS, *sorted(scores)]
    for model in wanted:
        if model in scores:
            chosen = tuple(s for s in strategies if s in SCORE_STRATEGIES)
        elif model in DEFAULT_MODELS:
            chosen = tuple(strategies)
        else:
            continue  # a deployed score of another audit
        if chosen:
            yield model, chosen


def read_cached(unit: WorkUnit, cache_dir: Path) -> UnitResult | None:
    """The cached result of a unit, or None when absent or unreadable."""
    entry = load_entry(cache_dir / f"{unit.key}.pkl")
    try:
        fairness, performance, seconds, sig_seconds, cpu_seconds = entry
    except (TypeError, ValueError):  # absent, or not an entry of this shape
        return None
    return UnitResult(unit, fairness, performance, seconds, sig_seconds, cpu_seconds, from_cache=True)


def write_cached(result: UnitResult, cache_dir: Path) -> None:
    """Store a unit's result under its key, atomically."""
    store_entry(cache_dir / f"{result.unit.key}.pkl", (result.fairness, result.performance, result.seconds,
                                                     result.significance_seconds, result.cpu_seconds))


def run_units(units: list[WorkUnit], jobs: int, cache_dir: Path | None,
              progress: Callable[[str], None] = print) -> list[UnitResult]:
    """Run (or load from the cache) every unit; joblib runs the missing ones in parallel."""
    results, todo = [], []
    for unit in units:
        cached = read_cached(unit, cache_dir) if cache_dir is not None else None
        (results.append(cached) if cached is not None else todo.append(unit))
    if results:
        progress(f"{len(results)} of {len(units)} work units unchanged, taken from the cache")
    if not todo:
        return results
    from joblib import Parallel, delayed

    from faircode._unit import run_unit

    todo.sort(key=_unit_cost, reverse=True)  # largest first, for an even load across workers
    parallel = Parallel(n_jobs=jobs, return_as="generator_unordered")
    try:
        for done, result in enumerate(parallel(delayed(run_unit)(u, cache_dir) for u in todo), start=1):
            if cache_dir is not None:
                write_cached(result, cache_dir)
            u = result.unit
            progress(f"[{done}/{len(todo)}] {u.audit} {u.model} seed {u.seed}: {result.seconds:.1f} s")
            results.append(result)
    except FaircodeError as err:
        raise BenchmarkError(f"a work unit failed, nothing was written to the results: {err}") from err
    return results


def _unit_cost(unit: WorkUnit) -> float:
    manifest = load_manifest(unit.manifest_path)
    size = manifest.data.path.stat().st_size
    return size * (3.0 if unit.model == "random_forest" else 1.0)


def combine(results: list[UnitResult]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Concatenate unit tables in a stable order (audit, model, seed, strategy)."""
    ordered = sorted(results, key=lambda r: (r.unit.audit, r.unit.model, r.unit.seed))
    fairness = pd.concat([r.fairness for r in ordered], ignore_index=True)
    performance = pd.concat([r.performance for r in ordered], ignore_index=True)
    return fairness, performance


def run_grid(audits: list[str] | None = None, strategies: list[str] | None = None,
             models: list[str] | None = None, seeds: list[int] | None = None, jobs: int = 2,
             cache_dir: Path | None = None, use_cache: bool = True, audits_dir: str | Path | None = None,
             progress: Callable[[str], None] = print) -> GridResult:
    """Run the grid (nothing is written to results/; see :func:`faircode._results.write_results`)."""
    start = time.perf_counter()
    strategies = list(strategies or DEFAULT_STRATEGIES)
    unknown = [s for s in strategies if s not in DEFAULT_STRATEGIES]
    if unknown:
        raise BenchmarkError(f"unknown strategies {unknown}; expected some of {', '.join(DEFAULT_STRATEGIES)}")
    units = plan_units(audits, strategies, models, list(seeds or [42]), audits_dir)
    if not units:
        raise BenchmarkError(f"no work to do: no model of {models} applies to the audits {audits}")
    cache = (cache_dir or default_cache_dir()) if use_cache else None
    results = run_units(units, jobs, cache, progress)
    fairness, performance = combine(results)
    return GridResult(fairness, performance, results, time.perf_counter() - start)
