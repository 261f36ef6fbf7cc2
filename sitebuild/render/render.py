"""Stage 6: everything gathered, then rendered. Pages (their prose by
:mod:`sitebuild.render.prose`), index, report, 404 and the generated static files become a
:class:`RenderedSite` (relative path -> bytes); nothing is written here."""

from __future__ import annotations

import html
import json
import os
import re
import traceback
from pathlib import Path
from typing import Mapping

from jinja2 import Environment, FileSystemLoader, StrictUndefined, TemplateError, TemplateNotFound, select_autoescape
from markupsafe import Markup
from msgspec import Struct, field

from sitebuild.checks.annotations import PageMarks
from sitebuild.checks.links import data_links, data_pages_by_key
from sitebuild.config import SiteConfig
from sitebuild.errors import SourceError
from sitebuild.execution.executed import ExecutedPage
from sitebuild.execution.extract import script_text
from sitebuild.render.highlight import HighlightMemo
from sitebuild.render.notebook import notebook_json
from sitebuild.render.prose import make_markdown, prose_html, search_fields, toc_entries
from sitebuild.render.provenance import PROVENANCE_END, PROVENANCE_START, Provenance, collect_provenance
from sitebuild.source.read import Page
from sitebuild.source.references import Reference, load_bibliography


class ReportRow(Struct):
    """One line of the build report."""

    slug: str
    title: str
    status: str
    seconds: float
    outputs: int
    warnings: list[str] = field(default_factory=list)
    numbers: dict[str, int] = field(default_factory=dict)
    reason: str = ""  # why the page ran in this build ("" when its execution was reused)


class RenderedSite(Struct):
    """Every file of the site, by path relative to the output folder: ``files`` holds the
    bytes of each file rendered now, ``kept`` the existing file (of the last site) that a
    file unchanged since then is taken from as it is."""

    files: dict[str, bytes] = field(default_factory=dict)
    kept: dict[str, str | Path] = field(default_factory=dict)


class ResidentRender(Struct):
    """What the renders of one process (the preview's rebuilds) share in memory: each
    page's search words, by everything they are made of (its path and text, its inline
    values and the bibliography), and the last search index with what it was made of."""

    search: dict[tuple, dict[str, str]] = field(default_factory=dict)
    index: tuple[tuple, str] = ((), "")


def make_environment(templates: Path, bytecode_dir: Path | None = None) -> Environment:
    """The Jinja2 environment: templates from ``templates``, autoescape on. With
    ``bytecode_dir``, compiled templates are kept there between builds (Jinja recompiles a
    template whose source changed)."""
    cache = None
    if bytecode_dir is not None:
        from jinja2 import FileSystemBytecodeCache

        bytecode_dir.mkdir(parents=True, exist_ok=True)
        cache = FileSystemBytecodeCache(str(bytecode_dir))
    return Environment(loader=FileSystemLoader(str(templates)), autoescape=select_autoescape(["html"]),
                       undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True, bytecode_cache=cache)


def theme_slug(theme: str) -> str:
    """An id for a theme group."""
    return "theme-" + (re.sub(r"[^a-z0-9]+", "-", theme.lower()).strip("-") or "other")


def ordered_pages(pages: list[Page], themes: tuple[str, ...]) -> list[Page]:
    """Pages in reading order: configured themes first (in their order), then by order, title."""
    rank = {t: i for i, t in enumerate(themes)}
    return sorted(pages,
                  key=lambda p: (rank.get(p.front.theme, len(rank)), p.front.theme, p.front.order, p.front.title))


PAGE_HREF = re.compile(r"^([a-z0-9]+(?:-[a-z0-9]+)*)\.(?:html|md)(?:#.*)?$")


# -- Site --------------------------------------------------------------------------------

def linked_slugs(page: Page) -> set[str]:
    """The slugs of the site's pages that the prose of ``page`` already links to."""
    slugs = set()
    for token in page.tokens:
        for child in token.children or ():
            match = PAGE_HREF.match(str(child.attrGet("href") or "")) if child.type == "link_open" else None
            if match:
                slugs.add(match.group(1))
    return slugs


def _page_context(page: Page, by_slug: dict[str, Page], prev: Page | None, nxt: Page | None) -> dict:
    link = lambda p: {"slug": p.slug, "title": p.front.title, "summary": p.front.summary} if p else None  # noqa: E731
    # The aside lists the related pages the author has not already linked (and explained) in the prose.
    unlinked = [s for s in page.front.related if s in by_slug and s not in linked_slugs(page)]
    return {"page": page, "front": page.front, "title": page.front.title, "toc": toc_entries(page),
            "related": [link(by_slug[s]) for s in unlinked],
            "prev": link(prev), "next": link(nxt)}


def _groups(ordered: list[Page]) -> list[dict]:
    groups: dict[str, list[Page]] = {}
    for page in ordered:
        groups.setdefault(page.front.theme, []).append(page)
    return [{"theme": theme, "id": theme_slug(theme), "pages": members} for theme, members in groups.items()]


def _data_index(ordered: list[Page], data_theme: str) -> list[dict]:
    """Each data set key with its pages of the data theme and the other pages that use it."""
    described = data_pages_by_key(ordered, data_theme)
    users: dict[str, list[Page]] = {}
    for page in ordered:
        if page.front.theme != data_theme:
            for key in page.front.audits:
                users.setdefault(key, []).append(page)
    return [{"key": key, "pages": described.get(key, []), "users": users.get(key, [])}
            for key in sorted(set(described) | set(users))]


def search_index_js(ordered: list[Page], executed: dict[str, ExecutedPage] | None = None,
                    bibliography: dict[str, Reference] | None = None, resident: ResidentRender | None = None) -> str:
    """``static/search-index.js``: each page's title, url, summary, tags, and the rendered
    words of its headings and prose (:func:`sitebuild.render.prose.search_fields`), which
    templates/static/search.js indexes with MiniSearch. With ``resident``, the words of a
    page whose text, inline values and bibliography are as before come from memory, and so
    does the whole index when no page's entry changed."""
    executed = executed or {}
    if resident is None:
        words = {p.slug: search_fields(p, executed.get(p.slug), bibliography) for p in ordered}
        return _search_script(ordered, words)
    cited = repr(sorted((bibliography or {}).items()))
    keys = {p.slug: (p.rel_path, p.text, repr(getattr(executed.get(p.slug), "inline", None)), cited) for p in ordered}
    words = {}
    for p in ordered:
        known = resident.search.get(keys[p.slug])
        words[p.slug] = known if known is not None else search_fields(p, executed.get(p.slug), bibliography)
    resident.search = {keys[slug]: fields for slug, fields in words.items()}  # this site's pages only
    made_of = tuple((p.slug, p.front.title, p.front.summary, p.front.tags, keys[p.slug]) for p in ordered)
    if resident.index[0] != made_of:
        resident.index = (made_of, _search_script(ordered, words))
    return resident.index[1]


def _search_script(ordered: list[Page], words: dict[str, dict[str, str]]) -> str:
    entries = [{"title": p.front.title, "url": f"{p.slug}.html", "summary": p.front.summary,
                "tags": list(p.front.tags), **words[p.slug]} for p in ordered]
    data = json.dumps(entries, ensure_ascii=False, sort_keys=True).replace("</", "<\\/")
    return f"window.FC_SEARCH_INDEX = {data};\n"


def download_files(page: Page, executed: ExecutedPage | None) -> list[str]:
    """The files of the site made from one page besides its HTML: the script, the notebook,
    the Markdown and the figures, by path relative to the output folder."""
    figures = [f"figures/{name}" for name in (executed.figures if executed else ())]
    return [f"code/{page.slug}.py", f"code/{page.slug}.ipynb", f"source/{page.slug}.md", *figures]


def page_links(page: Page, site: SiteConfig, provenance: Provenance | None) -> dict:
    """"View source" (the repository's file at the built commit, else the copy of the
    Markdown in the site) and "Edit this page" (only when site.yaml names a repository)."""
    if not site.repository:
        return {"source": f"source/{page.slug}.md", "edit": ""}
    ref = provenance.commit if provenance and provenance.commit else site.branch
    return {"source": f"{site.repository}/blob/{ref}/{page.rel_path}",
            "edit": f"{site.repository}/edit/{site.branch}/{page.rel_path}"}


def _provenance_for(pages: list[Page], executed: dict[str, ExecutedPage], root: Path | None) -> Provenance | None:
    if root is None:
        return None
    reads = {p.slug: list(executed[p.slug].files_read) for p in pages if p.slug in executed}
    modules = {name for r in executed.values() for name in getattr(r, "packages", {}) or {}}
    return collect_provenance(root, reads, modules)


def render_site(pages: list[Page], executed: Mapping[str, ExecutedPage], report: list[ReportRow],
                site: SiteConfig, *, templates: Path, root: Path | None = None, **options) -> RenderedSite:
    """Render the whole site into memory (see :func:`_render_all` for the ``options``).

    Raises
    ------
    SourceError
        When a template does not parse or fails to render, naming the template's file and
        line (the last good site is kept)."""
    try:
        return _render_all(pages, executed, report, site, templates=templates, root=root, **options)
    except TemplateError as error:
        raise template_error(error, templates, root) from None


def template_error(error: TemplateError, templates: Path, root: Path | None = None) -> SourceError:
    """A template's error as a :class:`SourceError` at the template's file and line: a
    syntax error knows them, an error while rendering is placed at the innermost template
    line of its traceback (Jinja gives template frames the template's file and line)."""
    if isinstance(error, TemplateNotFound):
        return SourceError(_shown(templates, root), f"template {error.name!r} not found: expected it in this folder")
    filename, line = getattr(error, "filename", None), getattr(error, "lineno", None)
    if filename is None:
        inside = [(frame.f_code.co_filename, lineno) for frame, lineno in traceback.walk_tb(error.__traceback__)
                  if frame.f_code.co_filename.startswith(os.path.join(os.fspath(templates), ""))]
        filename, line = inside[-1] if inside else (None, None)
    return SourceError(_shown(Path(filename) if filename else templates, root),
                       f"template error: {error.message or type(error).__name__}; fix the template and build again",
                       line)


def _shown(path: Path, root: Path | None) -> str:
    """``path`` as an error names it: from the project root when it is inside."""
    return path.relative_to(root).as_posix() if root is not None and path.is_relative_to(root) else str(path)


def _render_all(pages: list[Page], executed: Mapping[str, ExecutedPage], report: list[ReportRow],
                site: SiteConfig, *, templates: Path, annotations: Mapping[str, PageMarks] | None = None,
                root: Path | None = None,
                provenance: Provenance | None = None, reused: dict[str, str | Path] | None = None,
                kept: dict[str, str | Path] | None = None, bytecode_dir: Path | None = None,
                highlights: HighlightMemo | None = None, resident: ResidentRender | None = None) -> RenderedSite:
    """Render the whole site into memory; raises nothing for a page without an execution.
    ``annotations`` holds the number marks of each page, by slug. ``site`` (site.yaml)
    gives the title, themes, data theme, links and footer; ``root`` (the repository) the commit,
    versions and data digests shown on the pages (``provenance``, if given, instead).
    ``reused`` holds the files of pages already rendered (slug, or "/index.html",
    "/report.html", "/404.html" -> the file of the last site, see
    :mod:`sitebuild.render.render_cache`): they are kept as they are; ``kept`` the existing files
    that a page's downloads (see :func:`download_files`) are taken from, used only when it
    holds all of them. ``bytecode_dir`` keeps the compiled templates between builds,
    ``highlights`` the highlighted code, and ``resident`` what the renders of this process
    share in memory."""
    highlights = highlights or HighlightMemo()
    themes, data_theme = site.themes, site.data_theme
    env = make_environment(templates, bytecode_dir)
    md = make_markdown()
    ordered = ordered_pages(pages, themes)
    by_slug = {p.slug: p for p in ordered}
    by_key = data_pages_by_key(ordered, data_theme)
    provenance = provenance or _provenance_for(ordered, executed, root)
    bibliography = load_bibliography(root / site.bibliography) if root is not None and site.bibliography else {}
    common = {"site_title": site.title, "serve": False, "site": site, "prov": provenance, "nav": _groups(ordered),
              "current": "", "data_theme": data_theme, "prov_start": Markup(PROVENANCE_START),
              "prov_end": Markup(PROVENANCE_END), "base": ""}
    rendered = RenderedSite()
    explainer = env.get_template("explainer.html")
    for i, page in enumerate(ordered):
        result = executed.get(page.slug)
        if reused and page.slug in reused:
            rendered.kept[f"{page.slug}.html"] = reused[page.slug]
        else:
            context = _page_context(page, by_slug, ordered[i - 1] if i > 0 else None,
                                    ordered[i + 1] if i + 1 < len(ordered) else None)
            context.update(data_links=data_links(page, by_key), theme_id=theme_slug(page.front.theme),
                           links=page_links(page, site, provenance), current=page.slug)
            context["body"] = Markup(prose_html(md, page, result, (annotations or {}).get(page.slug, {}), bibliography,
                                                highlights))
            rendered.files[f"{page.slug}.html"] = explainer.render(root="", **{**common, **context}).encode()
        downloads = download_files(page, result)
        if kept and all(rel in kept for rel in downloads):
            rendered.kept.update((rel, kept[rel]) for rel in downloads)
            continue
        rendered.files[f"code/{page.slug}.py"] = script_text(page).encode()
        rendered.files[f"code/{page.slug}.ipynb"] = notebook_json(page, result, bibliography).encode()
        rendered.files[f"source/{page.slug}.md"] = page.text.encode()
        for name, data in (result.figures.items() if result else ()):
            rendered.files[f"figures/{name}"] = data
    contexts = {
        "index.html": dict(title="Explainers", groups=_groups(ordered), audits=_data_index(ordered, data_theme)),
        "report.html": dict(title="Build report", rows=report),
        # Served for a missing address at any depth: its links start from the site's base URL.
        "404.html": dict(title="Page not found", base=site.base_url),
    }
    for name, context in contexts.items():
        if reused and f"/{name}" in reused:
            rendered.kept[name] = reused[f"/{name}"]
        else:
            rendered.files[name] = env.get_template(name).render(root="", toc=None, **{**common, **context}).encode()
    rendered.files["static/pygments.css"] = highlights.css().encode()
    rendered.files["static/search-index.js"] = search_index_js(ordered, executed, bibliography, resident).encode()
    return rendered


def render_error_page(templates: Path, site_title: str, message: str) -> bytes:
    """The page the preview server shows while the last build is failing and there is no
    last good page to show; a plain page when the templates themselves are what fails."""
    try:
        env = make_environment(templates)
        return env.get_template("error.html").render(
            root="", title="The build failed", toc=None, site_title=site_title, serve=True, message=message,
            site=SiteConfig(title=site_title), prov=None, nav=[], current="", data_theme="",
            prov_start=Markup(PROVENANCE_START), prov_end=Markup(PROVENANCE_END), base="").encode()
    except TemplateError:
        return (f"<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>The build failed</title>"
                f"</head><body><h1>The build failed</h1><p>Fix the problem below and save: the preview rebuilds and "
                f"reloads by itself.</p><pre>{html.escape(message)}</pre></body></html>\n").encode()
