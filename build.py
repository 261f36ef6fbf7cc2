#!/usr/bin/env python3
"""The command line of the site build: parses options, calls the stages in ``sitebuild``,
and turns their results into messages and exit codes (0 ok, 1 failed, 2 bad usage)."""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

from sitebuild.errors import SiteBuildError

ROOT = Path(__file__).resolve().parent


def _add_build_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--source", default="explainers", help="folder of explainers (*.md) [explainers]")
    parser.add_argument("--out", default="site", help="output folder, replaced on success [site]")
    parser.add_argument("--cache-dir", default=None, help="execution cache [.cache/sitebuild]")
    parser.add_argument("--jobs", type=int, default=None, help="pages run in parallel [number of cores]")
    parser.add_argument("--force", action="store_true", help="ignore the cache: run every page")
    parser.add_argument("--only", nargs="+", default=[], metavar="SLUG", help="run only these pages")
    parser.add_argument("--strict", action="store_true", help="warnings fail the build")
    parser.add_argument("--timeout", type=float, default=None, help="seconds per page, overriding front matter")


def make_parser() -> argparse.ArgumentParser:
    """The argument parser of every command."""
    parser = argparse.ArgumentParser(prog="build.py", description="Build The Fair Code Project's site from its explainers.")
    commands = parser.add_subparsers(dest="command")
    _add_build_options(commands.add_parser("build", help="build the site into --out (the default command)"))
    check = commands.add_parser("check", help="run every check; write nothing into --out; fail on any problem")
    _add_build_options(check)
    check.add_argument("--fix", action="store_true",
                       help="rewrite stale quoted numbers in the .md files to their new values, then check again")
    serve = commands.add_parser("serve", help="preview on 127.0.0.1, rebuilt and reloaded on change")
    _add_build_options(serve)
    serve.add_argument("--port", type=int, default=8000)
    new = commands.add_parser("new", help='scaffold an explainer: new "Title"')
    new.add_argument("title")
    new.add_argument("--source", default="explainers")
    clean = commands.add_parser("clean", help="remove the output folder and the cache")
    clean.add_argument("--out", default="site")
    clean.add_argument("--cache-dir", default=None)
    return parser


def _config(args: argparse.Namespace, **extra):
    from sitebuild.config import make_config

    return make_config(ROOT, source=args.source, out=args.out, cache_dir=args.cache_dir, jobs=args.jobs,
                       force=args.force, only=args.only, strict=args.strict, timeout=args.timeout, **extra)


def _say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _finish(summary, verb: str) -> int:
    for problem in summary.problems:
        _say(str(problem))
    failed = [p for p in summary.errors]
    if failed:
        pages = sorted({p.path for p in failed})
        _say(f"{verb} failed: {len(failed)} problem(s) in {', '.join(pages)}" +
             ("; the last good site was kept" if verb == "build" else ""))
    _say(summary.closing_line())
    return 0 if summary.ok else 1


def cmd_build(args: argparse.Namespace) -> int:
    """``build``."""
    from sitebuild.build import run_build

    return _finish(run_build(_config(args), progress=_say), "build")


def _print_fixes(fixes: list) -> None:
    from sitebuild.quotes_stage import not_rewritten_line

    for fix in fixes:
        if fix.diff:
            print(fix.diff, end="", flush=True)
        for result in fix.left:
            _say(not_rewritten_line(result))
    rewritten = sum(len(fix.fixed) for fix in fixes)
    if fixes:
        _say(f"--fix rewrote {rewritten} stale number(s) in {sum(bool(f.fixed) for f in fixes)} page(s); checked again:")


def cmd_check(args: argparse.Namespace) -> int:
    """``check`` (and ``check --fix``): every check, then the quoted numbers per page."""
    from sitebuild.build import run_build, run_check_fix
    from sitebuild.quotes import format_summary

    config = _config(args, write_scripts=False)
    if args.fix:
        fixes, summary = run_check_fix(config, progress=_say)
        _print_fixes(fixes)
    else:
        summary = run_build(config, check_only=True, progress=_say)
    if summary.page_quotes:
        print(format_summary(summary.page_quotes), flush=True)
    return _finish(summary, "check")


def cmd_serve(args: argparse.Namespace) -> int:
    """``serve``: build, then serve and rebuild on change until interrupted."""
    from sitebuild.serve import serve

    serve(_config(args), port=args.port, progress=_say)
    return 0


def cmd_new(args: argparse.Namespace) -> int:
    """``new "Title"``."""
    from sitebuild.scaffold import new_explainer

    path = new_explainer(ROOT / args.source, args.title)
    _say(f"created {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}; build with `python build.py`")
    return 0


def cmd_clean(args: argparse.Namespace) -> int:
    """``clean``: remove the output folder and the execution cache."""
    for folder in (ROOT / args.out, Path(args.cache_dir) if args.cache_dir else ROOT / ".cache" / "sitebuild"):
        folder = folder if folder.is_absolute() else ROOT / folder
        if folder.exists():
            shutil.rmtree(folder)
            _say(f"removed {folder}")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Run one command; return its exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0].startswith("-") and argv[0] not in ("-h", "--help"):
        argv.insert(0, "build")
    args = make_parser().parse_args(argv)
    commands = {"build": cmd_build, "check": cmd_check, "serve": cmd_serve,
                "new": cmd_new, "clean": cmd_clean}
    try:
        return commands[args.command](args)
    except SiteBuildError as error:
        _say(f"error: {error}")
        return 2 if error.__class__.__name__ == "ConfigError" else 1
    except KeyboardInterrupt:
        _say("interrupted; the last good site was kept")
        return 130


if __name__ == "__main__":
    sys.exit(main())
