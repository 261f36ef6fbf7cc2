"""The measure of the quote check: a mutation test of the real explainers.

For every literal number of the prose that the check verifies (not an inline value), two
mutants are made, one at a time, by changing that number only in the page's text:

- a coincidence mutant: another value that the page's own outputs print at the same
  precision (the first, in page order, of the same kind that differs at that precision);
- a digit mutant: the last digit changed (+1, 9 becomes 8).

A mutant is caught when the check, run as ``check --strict`` runs it on that page (its
outputs from the execution cache, the lock as committed), reports a problem at the
mutated number's file:line. Only the prose changes, so no kernel starts: the executions
come from the cache (a page that is not cached is executed once, before the mutants).
The unmutated pages are checked too: the table says how many problems they have and
how many literal numbers are verified.

    python bench/quote_mutants.py            # the table
    python bench/quote_mutants.py --missed   # also every mutant that was not caught
    python bench/quote_mutants.py --problems # the problems of the unmutated pages
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from msgspec.structs import replace

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sitebuild.config import make_config  # noqa: E402
from sitebuild.quotes.extraction import parse_tokens  # noqa: E402
from sitebuild.quotes.lock import load_lock  # noqa: E402
from sitebuild.quotes.numbers import find_numbers, format_like, value_in_units_of  # noqa: E402
from sitebuild.quotes.outputs import index_outputs, outputs_from_blocks  # noqa: E402
from sitebuild.quotes.results import Status, format_problem  # noqa: E402
from sitebuild.quotes.stage import INLINE_MESSAGE, check_page_quotes, lock_path_for  # noqa: E402


def load_site(root: Path, cache_dir: Path | None = None):
    """The site's config, pages and executions (from the cache, run when missing), by the
    build's own read, order and execute stages."""
    from sitebuild.commands.stages import execute_stage, order_stage, read_stage
    from sitebuild.execution.order import load_feeds

    config = make_config(root, jobs=2, **({"cache_dir": cache_dir} if cache_dir else {}))
    read = read_stage(config)
    order = order_stage(read.pages, load_feeds(config.cache_dir))
    executions = execute_stage(config, read.pages, order, lambda line: None)
    return config, list(read.pages), executions.pages


def failing_lines(quotes) -> set[int]:
    """The lines ``check --strict`` names for one checked page (numbers and claims)."""
    lines = {result.line for result in quotes.problems(strict=True)}
    return lines | {claim.claim.line for claim in quotes.broken_claims()}


def with_text(page, text: str):
    """``page`` as if its file said ``text``."""
    return replace(page, text=text, tokens=parse_tokens(text))


def replaced(text: str, line: int, span: tuple[int, int], new: str) -> str:
    """``text`` with the columns ``span`` of its 1-based ``line`` replaced by ``new``."""
    lines = text.split("\n")
    source = lines[line - 1]
    lines[line - 1] = source[: span[0]] + new + source[span[1]:]
    return "\n".join(lines)


def digit_mutant(text: str) -> str:
    """``text`` with its last digit changed."""
    position = max(i for i, char in enumerate(text) if char.isdigit())
    digit = int(text[position])
    return text[:position] + str(digit - 1 if digit == 9 else digit + 1) + text[position + 1:]


def coincidence_mutant(text: str, printed: list) -> str | None:
    """Another value the page prints, written at ``text``'s precision, or None."""
    prose = find_numbers(text)[0]
    for output in printed:
        if output.is_integer_shown != prose.is_integer_shown or output.comparator:
            continue
        candidate = format_like(prose, value_in_units_of(prose, output))
        if candidate != text and find_numbers(candidate) and candidate.lstrip("+-−") != text.lstrip("+-−"):
            return candidate
    return None


def run(root: Path, show_missed: bool, show_problems: bool, cache_dir: Path | None = None) -> int:
    started = time.monotonic()
    config, pages, executed = load_site(root, cache_dir)
    lock = load_lock(lock_path_for(config.source))
    loaded = time.monotonic() - started
    totals = {"coincidence": [0, 0], "digit": [0, 0]}
    verified = problems = 0
    missed: list[str] = []
    check_seconds = 0.0
    for page in pages:
        result = executed.get(page.slug)
        if result is None or result.error is not None:
            continue
        own = [entry for entry in lock if entry.page == page.rel_path]
        began = time.monotonic()
        quotes = check_page_quotes(page, result, own)
        check_seconds += time.monotonic() - began
        problems += len(quotes.problems(strict=True)) + len(quotes.broken_claims())
        if show_problems:
            for problem in quotes.problems(strict=True):
                print(format_problem(problem))
        sources = {b.n: b.source for b in page.blocks if b.language == "python"}
        printed = [o.number for o in index_outputs(outputs_from_blocks(result.blocks, sources)) if not o.is_index]
        for number in quotes.results:
            if number.status is not Status.VERIFIED or number.message == INLINE_MESSAGE or not number.exact:
                continue
            verified += 1
            for kind, new in (("coincidence", coincidence_mutant(number.text, printed)),
                              ("digit", digit_mutant(number.text))):
                if new is None:
                    continue
                mutant = with_text(page, replaced(page.text, number.line, number.span, new))
                caught = number.line in failing_lines(check_page_quotes(mutant, result, own))
                totals[kind][0] += caught
                totals[kind][1] += 1
                if not caught:
                    missed.append(f"{page.rel_path}:{number.line}: {kind} {number.text} -> {new}")
    print(f"pages: {len(pages)}; literal numbers verified: {verified}; problems of the unmutated pages under "
          f"--strict: {problems}")
    print(f"{'mutant':<12} {'caught':>7} {'total':>7} {'share':>8}")
    for kind, (caught, total) in totals.items():
        share = f"{100 * caught / total:.1f}%" if total else "-"
        print(f"{kind:<12} {caught:>7} {total:>7} {share:>8}")
    print(f"load {loaded:.2f} s; checking the unmutated pages {check_seconds:.2f} s; "
          f"all {time.monotonic() - started:.1f} s")
    if show_missed:
        print("\n".join(missed))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=ROOT)
    parser.add_argument("--missed", action="store_true", help="list the mutants that were not caught")
    parser.add_argument("--problems", action="store_true", help="list the problems of the unmutated pages")
    parser.add_argument("--cache-dir", type=Path, default=None, help="the execution cache (default: the site's)")
    args = parser.parse_args(argv)
    return run(args.root.resolve(), args.missed, args.problems, args.cache_dir)


if __name__ == "__main__":
    raise SystemExit(main())
