"""Stage 5: checks over the gathered pages and their executions, returned as a list of
:class:`Problem`. Scripts in sync, related slugs exist, internal links resolve, formulas
render, failed pages located in their .md."""

from __future__ import annotations

from typing import Iterable

from msgspec import Struct

from sitebuild.execution.executed import ExecutedPage, PageError
from sitebuild.execution.extract import script_path, script_text
from sitebuild.source.read import Page
from sitebuild.source.tokens import inline_children

CONTEXT_LINES = 2
LISTED_CHOICES = 6


class Problem(Struct, frozen=True):
    """Something wrong in a source file; ``severity`` is "error" or "warning". A ``plain``
    error's message says itself what is wrong, so it is printed without the word "error"
    (``explainers/x.md:42: "72%" is stale: ...``)."""

    path: str
    line: int | None
    message: str
    severity: str = "error"
    plain: bool = False

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        if self.plain and self.severity == "error":
            return f"{where}: {self.message}"
        return f"{where}: {self.severity}: {self.message}"


def expected_one_of(found: str, choices: set[str] | list[str]) -> str:
    """"expected one of [...]" for a short list, else the closest matches."""
    choices = sorted(choices)
    if len(choices) <= LISTED_CHOICES:
        return f"expected one of {choices}"
    from difflib import get_close_matches

    close = get_close_matches(found, choices, n=3, cutoff=0.5)
    return (f"did you mean {' or '.join(repr(c) for c in close)}?" if close
            else f"none of the {len(choices)} pages is close")


def code_context(page: Page, line: int, around: int = CONTEXT_LINES) -> str:
    """The .md lines around ``line``, numbered, the line itself marked with ``>``."""
    lines = page.text.splitlines()
    start, end = max(1, line - around), min(len(lines), line + around)
    return "\n".join(f"{'>' if i == line else ' '} {i:4d} | {lines[i - 1]}" for i in range(start, end + 1))


def describe_failure(page: Page, error: PageError) -> Problem:
    """A failed execution as a Problem at the failing statement's .md line, with the code
    around it and the traceback."""
    line = error.line
    if line is None and error.block is not None:
        line = next((b.line for b in page.blocks if b.n == error.block), None)
    parts = [error.message]
    if line is not None and error.kind in ("exception", "inline", "timeout", "dead-kernel"):
        parts.append(code_context(page, line))
    if error.traceback:
        parts.append(error.traceback.rstrip())
    return Problem(page.rel_path, line, "\n".join(parts))


def check_script(page: Page) -> list[Problem]:
    """The committed script must equal the one generated from the page."""
    path = script_path(page)
    rel = f"{page.rel_path.rsplit('/', 1)[0]}/code/{page.slug}.py" if "/" in page.rel_path else f"code/{page.slug}.py"
    if not page.code_blocks and not path.exists():
        return []
    if not path.exists():
        return [Problem(rel, None, f"missing: generated from {page.rel_path}; run `python build.py` and commit it")]
    if path.read_text(encoding="utf-8") != script_text(page):
        return [Problem(rel, None, f"out of date with {page.rel_path}; run `python build.py` and commit it")]
    return []


def check_related(page: Page, slugs: set[str]) -> list[Problem]:
    """Every slug in ``related`` must be a page of the site."""
    return [Problem(page.rel_path, 1, f"front matter field 'related': no page {slug!r}; {expected_one_of(slug, slugs)}")
            for slug in page.front.related if slug not in slugs]


def _link_targets(page: Page) -> Iterable[tuple[int, str]]:
    for line, _, _, child in inline_children(page.tokens):
        if child.type == "link_open":
            yield line, str(child.attrs.get("href", ""))


def page_anchors(page: Page) -> set[str]:
    """The ids of the page's headings and of its labelled figures."""
    labels = {str(b.options["label"]) for b in page.blocks if b.options.get("label")}
    return labels | {str(t.attrs["id"]) for t in page.tokens if t.type == "heading_open" and "id" in t.attrs}


def check_links(page: Page, anchors: dict[str, set[str]]) -> list[Problem]:
    """Links to other pages (``slug.md`` or ``slug.html``) and to ``#anchors`` must resolve."""
    problems = []
    for line, href in _link_targets(page):
        if not href or "://" in href or href.startswith(("mailto:", "//")):
            continue
        target, _, fragment = href.partition("#")
        slug = page.slug if not target else target.rsplit("/", 1)[-1].removesuffix(".md").removesuffix(".html")
        if target and not target.endswith((".md", ".html")):
            continue
        if slug not in anchors:
            problems.append(Problem(page.rel_path, line,
                                    f"link {href!r}: no page {slug!r}; {expected_one_of(slug, set(anchors))}"))
        elif fragment and fragment not in anchors[slug]:
            problems.append(Problem(page.rel_path, line, f"link {href!r}: no heading #{fragment} in {slug}; "
                                                         f"{expected_one_of(fragment, anchors[slug])}"))
    return problems


UNPARSED_MESSAGE = ("{shown!r} is shown as text: a link or a {{...}} that did not parse. A link's text cannot "
                    "hold a [span]{{...}}: put the span around the whole link, as in [[text](target)]{{.nocheck}}")


def check_unparsed_syntax(page: Page) -> list[Problem]:
    """An error for each link or attribute list the reader would see as raw syntax (found
    as the page was parsed, :attr:`~sitebuild.source.read.Page.unparsed_syntax`)."""
    return [Problem(page.rel_path, line, UNPARSED_MESSAGE.format(shown=shown)) for line, shown in page.unparsed_syntax]


def check_math(page: Page) -> list[Problem]:
    """An error at its .md line for each formula that cannot be rendered as MathML."""
    return [Problem(page.rel_path, line, message) for line, message in page.math_errors]


def check_site(pages: list[Page], executed: dict[str, ExecutedPage], *, scripts: bool = True) -> list[Problem]:
    """Run every check; return all problems found (failed pages first)."""
    slugs = {p.slug for p in pages}
    anchors = {p.slug: page_anchors(p) for p in pages}
    problems: list[Problem] = []
    for page in pages:
        result = executed.get(page.slug)
        if result is not None and result.error is not None:
            problems.append(describe_failure(page, result.error))
        if result is not None:
            problems.extend(Problem(page.rel_path, None, w, "warning") for w in result.warnings)
    for page in pages:
        if scripts:
            problems.extend(check_script(page))
        problems.extend(check_related(page, slugs))
        problems.extend(check_links(page, anchors))
        problems.extend(check_unparsed_syntax(page))
        problems.extend(check_math(page))
    return problems
