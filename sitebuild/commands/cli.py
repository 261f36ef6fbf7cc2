"""The command line of the site build (``python build.py``): parses options, calls the
stages in ``sitebuild``, and turns their results into messages and exit codes (0 ok,
1 failed, 2 bad usage). build.py, at the project root, only names that root and calls
:func:`run`: a module is byte-compiled once, where a script is compiled again on every
run (a few milliseconds of every build)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Callable, NoReturn

from sitebuild.errors import SiteBuildError

EPILOG = """examples:
  python build.py                          build the site into site/ (the same as `build`)
  python build.py check --strict           every check, warnings too; what CI runs
  python build.py serve                    preview on http://127.0.0.1:8000, rebuilt and reloaded on save
  python build.py new "Label Bias"         scaffold explainers/label-bias.md

`python build.py COMMAND --help` shows each command's options and examples.
"""
#: The examples of each command's --help.
EXAMPLES = {
    "build": """examples:
  python build.py build                    build the site into site/, reusing the cache
  python build.py build --only label-bias  re-run one page, keep the rest of the last site
  python build.py build --force --jobs 2   run every page again, two at a time
  python build.py build --step sweep       also recompute the 31-seed sweep (a `when: asked` step)
""",
    "check": """examples:
  python build.py check                    every check; exit 1 on a failure, warnings listed
  python build.py check --strict           warnings fail too; what CI runs
  python build.py check --fix              rewrite stale quoted numbers in the .md files, then check again
  python build.py check --only label-bias  check one page
""",
    "serve": """examples:
  python build.py serve                    preview on http://127.0.0.1:8000
  python build.py serve --port 0           preview on a free port (the address is printed)
  python build.py serve --host 0.0.0.0     let other machines on the network open the preview
""",
    "new": """examples:
  python build.py new "Label Bias"                     scaffold explainers/label-bias.md and its script
  python build.py new "Label Bias" --theme "Audits"    the same, in another theme of site.yaml
""",
    "clean": """examples:
  python build.py clean                    remove site/ and .cache/sitebuild
  python build.py clean --out public       remove another output folder the build made
""",
}
#: What --out means to each command that takes it.
OUT_HELP = {
    "build": "output folder, replaced on success",
    "check": "output folder of `build`; check writes nothing into it",
    "serve": "output folder the preview serves, replaced on each good rebuild",
}
DESCRIPTIONS = {
    "build": "Read every explainer, run its code (or reuse the cache), check every quoted number and "
             "link, and write the site into --out. A failed build keeps the last good site.",
    "check": "Run every check of `build` (pages, scripts in sync, links, quoted numbers) without writing "
             "the site; exit 1 on any problem.",
    "serve": "Build, serve the site for preview, and rebuild and reload the open pages whenever an explainer, "
             "a template, site.yaml or a file the pages read changes. Problems are printed here and shown "
             "over the last good page.",
    "new": "Write a new explainer, with valid front matter and one runnable block, and its script, so that "
           "`python build.py check --strict` passes at once.",
    "clean": "Remove the output folder and the execution cache (only folders the build made).",
}


def _version() -> str:
    from importlib import metadata

    try:
        return metadata.version("faircode")
    except metadata.PackageNotFoundError:
        return "unknown (not installed: pip install -e .)"


ROOT_HELP = ("project root: site.yaml, the kernels' working folder, the base of relative paths "
             "(default: the folder of build.py)")


def _add_build_options(parser: argparse.ArgumentParser, command: str) -> None:
    parser.add_argument("--source", default="explainers", help="folder of explainers (*.md)")
    parser.add_argument("--out", default="site", help=OUT_HELP[command])
    parser.add_argument("--cache-dir", default=None, help="execution cache (default: .cache/sitebuild)")
    parser.add_argument("--jobs", type=int, default=None, help="pages run in parallel (default: the number of cores)")
    parser.add_argument("--force", action="store_true", help="ignore the cache: run every page (default: off)")
    parser.add_argument("--only", nargs="+", default=[], metavar="SLUG", help="run only these pages (default: all)")
    parser.add_argument("--strict", action="store_true", help="warnings fail the build (default: off)")
    parser.add_argument("--timeout", type=float, default=None,
                        help="seconds per page, overriding front matter (default: site.yaml's timeout)")
    parser.add_argument("--step", action="append", default=[], metavar="NAME", dest="steps",
                        help="also run this site.yaml step marked `when: asked` (repeatable; default: none)")
    parser.add_argument("--root", default=None, help=ROOT_HELP)


def _command(commands, name: str, help_text: str) -> argparse.ArgumentParser:
    return commands.add_parser(name, help=help_text, description=DESCRIPTIONS[name], epilog=EXAMPLES[name],
                               formatter_class=_Formatter)


class _Formatter(argparse.RawDescriptionHelpFormatter):
    """Each option's default after its help text (unless the text says it), examples kept
    as written."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if "(default" in text or action.default in (None, False, [], argparse.SUPPRESS) or not action.option_strings:
            return text
        return f"{text} (default: {action.default})"


class _VersionAction(argparse.Action):
    """``--version``, looked up only when asked (package metadata takes a while to load)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS,
                 help="show the version and exit"):
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        parser.exit(message=f"{parser.prog} {_version()}\n")


def make_parser() -> argparse.ArgumentParser:
    """The argument parser of every command."""
    parser = argparse.ArgumentParser(prog="build.py", formatter_class=_Formatter, epilog=EPILOG,
                                     description="Build a site of explainers from Markdown with Python blocks: "
                                                 "every output regenerated, every quoted number checked.")
    parser.add_argument("--version", action=_VersionAction)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    _add_build_options(_command(commands, "build", "build the site into --out (the default command)"), "build")
    check = _command(commands, "check", "run every check; write nothing into --out; fail on any problem")
    _add_build_options(check, "check")
    check.add_argument("--fix", action="store_true",
                       help="rewrite stale quoted numbers in the .md files to their new values, then check again "
                            "(default: off)")
    serve = _command(commands, "serve", "preview the site, rebuilt and reloaded on change")
    _add_build_options(serve, "serve")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (0.0.0.0: every interface)")
    serve.add_argument("--port", type=int, default=8000, help="port to listen on; 0 picks a free one and prints it")
    new = _command(commands, "new", 'scaffold an explainer: new "Title"')
    new.add_argument("title", help="the page's title; its file name is made from it")
    new.add_argument("--source", default="explainers", help="folder of explainers (*.md)")
    new.add_argument("--theme", default=None, help="the page's theme (default: the first theme of site.yaml)")
    new.add_argument("--root", default=None, help=ROOT_HELP)
    clean = _command(commands, "clean", "remove the output folder and the cache")
    clean.add_argument("--out", default="site", help="output folder to remove")
    clean.add_argument("--cache-dir", default=None, help="execution cache to remove (default: .cache/sitebuild)")
    clean.add_argument("--root", default=None, help=ROOT_HELP)
    return parser


def _config(args: argparse.Namespace, **extra):
    from sitebuild.config import make_config

    return make_config(args.root, source=args.source, out=args.out, cache_dir=args.cache_dir, jobs=args.jobs,
                       force=args.force, only=args.only, strict=args.strict, timeout=args.timeout,
                       asked_steps=args.steps, **extra)


def _root(args: argparse.Namespace) -> Path:
    """The project root of a command (``--root``, else the one :func:`main` was given), which must be
    an existing folder."""
    from sitebuild.errors import ConfigError

    root = Path(args.root).resolve()
    if not root.is_dir():
        raise ConfigError(f"--root {root}: expected an existing folder")
    return root


def _say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _finish(summary, verb: str, out: Path | None = None) -> int:
    for problem in summary.problems:
        _say(str(problem))
    failed = [p for p in summary.errors]
    if failed:
        pages = sorted({p.path for p in failed})
        _say(f"{verb} failed: {len(failed)} problem(s) in {', '.join(pages)}" +
             ("; the last good site was kept" if verb == "build" else ""))
    _say(summary.closing_line())
    if out is not None and (summary.written or summary.up_to_date):
        _say(f"site {'written' if summary.written else 'kept as it was'}: open {out / 'index.html'}")
    return 0 if summary.ok else 1


def cmd_build(args: argparse.Namespace) -> int:
    """``build``."""
    from sitebuild.commands.build import run_build

    config = _config(args)
    return _finish(run_build(config, progress=_say), "build", config.out)


def _print_fixes(fixes: list) -> None:
    from sitebuild.quotes import not_rewritten_line

    for fix in fixes:
        if fix.diff:
            print(fix.diff, end="", flush=True)
        for result in fix.left:
            _say(not_rewritten_line(result))
    rewritten = sum(len(fix.fixed) for fix in fixes)
    linking = sorted({path for fix in fixes for path in fix.others} - {fix.path for fix in fixes if fix.fixed})
    if fixes:
        links = f" and the links to their headings in {', '.join(linking)}" if linking else ""
        _say(f"--fix rewrote {rewritten} stale number(s) in {sum(bool(f.fixed) for f in fixes)} page(s){links}; "
             f"checked again:")


def cmd_check(args: argparse.Namespace) -> int:
    """``check`` (and ``check --fix``): every check, then the quoted numbers per page."""
    from sitebuild.commands.build import run_build, run_check_fix
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
    from sitebuild.commands.serve import serve

    serve(_config(args), port=args.port, progress=_say, host=args.host)
    return 0


def cmd_new(args: argparse.Namespace) -> int:
    """``new "Title"``."""
    from sitebuild.commands.scaffold import new_explainer
    from sitebuild.config import SITE_FILE, load_site_config

    root = _root(args)
    site = load_site_config(root / SITE_FILE)
    path = new_explainer(root / args.source, args.title, theme=args.theme, themes=site.themes, root=root)
    shown = path.relative_to(root) if path.is_relative_to(root) else path
    _say(f"created {shown} and its script; preview it with `python build.py serve`")
    return 0


def cmd_clean(args: argparse.Namespace) -> int:
    """``clean``: remove the output folder and the execution cache, if the build made them
    (anything else is refused, exit status 2, and nothing is deleted)."""
    from sitebuild.output.folders import clean

    root = _root(args)
    out, cache = (Path(p) if Path(p).is_absolute() else root / p
                  for p in (args.out, args.cache_dir or Path(".cache") / "sitebuild"))
    removed = clean(out.resolve(), cache.resolve(), root, (root / "explainers", root / "templates"), _say)
    for folder in removed:
        _say(f"removed {folder}")
    if not removed:
        _say(f"nothing to remove: neither {out} nor {cache} exists")
    return 0


def _stop_on_sigterm() -> None:
    """SIGTERM ends a build as Ctrl-C does: workers and kernels are ended, the last good
    site is kept and no temporary folder is left."""
    import signal

    def interrupt(signum, frame):
        raise KeyboardInterrupt
    signal.signal(signal.SIGTERM, interrupt)


def main(argv: list[str] | None = None, root: Path | None = None) -> int:
    """Run one command (``argv``, default the process's arguments) whose project root, unless
    ``--root`` gives one, is ``root`` (default the working folder); return its exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0].startswith("-") and argv[0] not in ("-h", "--help", "--version"):
        argv.insert(0, "build")
    args = make_parser().parse_args(argv)
    args.root = args.root or root or Path.cwd()
    commands = {"build": cmd_build, "check": cmd_check, "serve": cmd_serve,
                "new": cmd_new, "clean": cmd_clean}
    from sitebuild.errors import ConfigError

    _stop_on_sigterm()
    try:
        return commands[args.command](args)
    except SiteBuildError as error:
        _say(f"error: {error}")
        return 2 if isinstance(error, ConfigError) else 1
    except KeyboardInterrupt:
        from sitebuild.execution.kernels import kill_live_kernels

        kill_live_kernels()
        _say("interrupted; the last good site was kept")
        return 130


#: Commands that run once and end: their process may skip the interpreter's teardown.
ONE_SHOT = ("build", "check", "new", "clean")


def _one_shot_gc() -> None:
    """A build makes a few hundred thousand objects that live until it ends (parsed pages,
    cache entries, rendered HTML); the collector's default thresholds would scan them
    again and again. A one-shot command collects young objects less often: every 100,000
    (a prose edit of 300 pages makes more than 50,000 after its imports, and fewer than
    100,000: it never stops for one, each of which took 10-15 ms)."""
    import gc

    gc.set_threshold(100_000, 20, 20)


def _exit_at_once(status: int) -> None:
    """End the process without freeing every object of the build one by one (tens of
    milliseconds at 300 pages), once the output is flushed and nothing is left running:
    every kernel and worker has been ended and reaped by then, and no thread but this
    one is alive. Under a profiler, a tracer or coverage (which write their reports as
    the interpreter ends), and otherwise, exit as usual."""
    import threading

    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a reader that went away (`| head`), or a closed stream
            pass
    children = sys.modules.get("multiprocessing")
    watched = sys.gettrace() or sys.getprofile() or "coverage" in sys.modules  # they write at exit
    if threading.active_count() == 1 and not (children and children.active_children()) and not watched:
        os._exit(status)
    sys.exit(status)


def run(main: Callable[[], int]) -> NoReturn:
    """End the process with the status of ``main()`` (the command of ``sys.argv``); a
    one-shot command collects and ends as :func:`_one_shot_gc` and :func:`_exit_at_once` say."""
    command = next((word for word in sys.argv[1:2] if not word.startswith("-")), "build")
    if command not in ONE_SHOT:
        sys.exit(main())
    _one_shot_gc()
    _exit_at_once(main())
