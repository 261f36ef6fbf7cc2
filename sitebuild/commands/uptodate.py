"""The build's fast path: is the last build still good? The stamp it wrote holds the
fingerprint of the sources, the state of every input its pages read and of every file it
wrote; when all hold, the build stops here. This module imports only what that question
needs (no markdown, kernels or rendering), and the stamp stage uses the same helpers."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Mapping, NamedTuple

from sitebuild.config import BuildConfig
from sitebuild.execution.environment import kernel_environment
from sitebuild.execution.states import code_digest, state_function
from sitebuild.quotes import LOCK_FILENAME
from sitebuild.store.stamp import STAMP_FILE, fingerprint, is_up_to_date


class BuildStart(NamedTuple):
    """What the build saw as it started: the fingerprint of its sources (taken before any
    page is read), the latest time it saw, and when it started (ns)."""

    sources: str
    newest_ns: int
    started_ns: int


def start_build(config: BuildConfig, options: dict) -> BuildStart:
    """Take the fingerprint of the sources before anything is read (an edit during the build
    makes the next one run): the fast path compares it with the stamp's, and the stamp
    stage records it."""
    newest, started_ns = [0], time.time_ns()
    sources = fingerprint(config.root, config.source, config.templates, options, newest)
    return BuildStart(sources, newest[0], started_ns)


def build_options(config: BuildConfig, check_only: bool) -> dict:
    """The options a build's stamp is taken under: another engine or option runs it again."""
    return {"engine": code_digest(), "out": config.out, "only": config.only, "strict": config.strict,
            "timeout": config.timeout, "check": check_only, "scripts": config.write_scripts,
            "cache": config.cache_dir}


def generated_state(config: BuildConfig) -> dict:
    """What the build writes beside the sources (checked by the stamp as of its end)."""
    return {"quote lock": lock_state(config)}


def lock_state(config: BuildConfig) -> list[int] | None:
    """Size and modification time of the quote lock: the build writes it, so (like the
    generated scripts) it is fingerprinted but never makes a stamp racy."""
    try:
        stat = (config.source / LOCK_FILENAME).stat()
    except OSError:
        return None
    return [stat.st_size, stat.st_mtime_ns]


def stamp_path(config: BuildConfig) -> Path:
    """Where the build keeps its stamp, in the cache."""
    return config.cache_dir / STAMP_FILE


def kernel_env(config: BuildConfig) -> dict:
    """The environment of this build's kernels (environment reads are checked against it)."""
    return kernel_environment(str(config.root))


def current_state(line: str, recorded: Any, root: Path, env: Mapping[str, str],
                  locations: Mapping[str, str] | None = None) -> Any:
    """The state now of the stamp's ``line`` (``kind:key``), taken by the function the stamp's
    ``locations`` name for its kind (see :mod:`sitebuild.execution.states`), else by the
    kind's record type, which imports them all."""
    kind, _, key = line.partition(":")
    function = state_function(kind, locations)
    if function is None:
        from sitebuild.execution.deps import current_state as by_record_type

        return by_record_type(line, recorded, root, env)
    return function(key, recorded, root, env)


def nothing_changed(config: BuildConfig, options: dict, start: BuildStart | None = None) -> bool:
    """True when the stamp of the last build still holds: its sources (their fingerprint
    taken by :func:`start_build`, or now), what its pages depended on and the site it
    wrote are as they were."""
    return is_up_to_date(stamp_path(config), config.out, config.root, config.source, config.templates, options,
                         kernel_env(config), generated_state(config), current=current_state,
                         sources=None if start is None else start.sources)
