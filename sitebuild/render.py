"""Stage 6: everything gathered, then rendered. Pages, index, report, 404 and the
generated static files become a :class:`RenderedSite` (relative path -> bytes); nothing
is written here."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from html import escape
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape
from markupsafe import Markup

from sitebuild.cells import cell_html, pygments_css
from sitebuild.execute import ExecutedPage
from sitebuild.extract import reader_notebook, script_text
from sitebuild.links import data_links, data_pages_by_key
from sitebuild.markdown import make_parser
from sitebuild.read import Page

SEARCH_TEXT_LIMIT = 4000


@dataclass(frozen=True)
class Annotation:
    """A marked number of the prose: its text, status (verified, stale, unverified), the
    id of the output line that backs it (when verified) and a tooltip."""

    text: str
    status: str
    anchor: str = ""
    title: str = ""


@dataclass
class ReportRow:
    """One line of the build report."""

    slug: str
    title: str
    status: str
    seconds: float
    outputs: int
    warnings: list[str] = field(default_factory=list)
    numbers: dict[str, int] = field(default_factory=dict)


@dataclass
class RenderedSite:
    """Every file of the site, by path relative to the output folder."""

    files: dict[str, bytes] = field(default_factory=dict)


def make_environment(templates: Path) -> Environment:
    """The Jinja2 environment: templates from ``templates``, autoescape on."""
    return Environment(loader=FileSystemLoader(str(templates)), autoescape=select_autoescape(["html"]),
                       undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True)


# -- Markdown -> HTML ------------------------------------------------------------------

def _render_fence(self, tokens, idx, options, env):
    block = env["blocks_by_line"].get(tokens[idx].map[0] + 2)
    if block is None:
        return self.fence(tokens, idx, options, env)
    return cell_html(block, env["executed"].blocks.get(block.n) if env["executed"] else None, env["slug"], env["title"])


def _render_code_inline(self, tokens, idx, options, env):
    token = tokens[idx]
    value = env["inline_values"].get(token.meta.get("inline_index"))
    if value is None:
        return self.code_inline(tokens, idx, options, env)
    return f'<span class="inline-value">{escape(value)}</span>'


def _render_link_open(self, tokens, idx, options, env):
    token = tokens[idx]
    href = str(token.attrs.get("href", ""))
    if "://" not in href and not href.startswith("#"):
        target, sep, fragment = href.partition("#")
        if target.endswith(".md"):
            token.attrSet("href", target.rsplit("/", 1)[-1][:-3] + ".html" + sep + fragment)
    return self.renderToken(tokens, idx, options, env)


def _render_text(self, tokens, idx, options, env):
    token = tokens[idx]
    marks = token.meta.get("annotations")
    if not marks:
        return escape(token.content)
    out, cursor = [], 0
    for offset, note in marks:
        out.append(escape(token.content[cursor:offset]))
        text = escape(note.text)
        if note.status == "verified" and note.anchor:
            out.append(f'<a class="q q-verified" href="#{escape(note.anchor)}" title="{escape(note.title)}">{text}</a>')
        else:
            out.append(f'<span class="q q-{escape(note.status)}" title="{escape(note.title)}">{text}</span>')
        cursor = offset + len(note.text)
    out.append(escape(token.content[cursor:]))
    return "".join(out)


#: Marks for one page: (index of an inline token in ``page.tokens``, index of its text
#: child) -> [(offset in the child's content, Annotation)], offsets ascending.
PageMarks = dict[tuple[int, int], list[tuple[int, Annotation]]]


def _prepare_inline(page: Page, marks: PageMarks) -> None:
    """Mark inline values and annotated numbers on the inline tokens' children."""
    inline_iter = iter(page.inline)
    pending = next(inline_iter, None)
    for token_index, token in enumerate(page.tokens):
        if token.type != "inline" or not token.map:
            continue
        line = token.map[0] + 1
        for child_index, child in enumerate(token.children or []):
            child.meta = {k: v for k, v in (child.meta or {}).items() if k != "annotations"}
            if child.type in ("softbreak", "hardbreak"):
                line += 1
            elif child.type == "code_inline" and pending is not None and pending.expr in child.content and pending.line == line:
                child.meta["inline_index"] = pending.index
                pending = next(inline_iter, None)
            elif child.type == "text":
                placed = _placed_marks(child.content, marks.get((token_index, child_index), []))
                if placed:
                    child.meta["annotations"] = placed


def _placed_marks(content: str, marks: list[tuple[int, Annotation]]) -> list[tuple[int, Annotation]]:
    """The marks whose text stands at their offset, in order and without overlaps."""
    placed, end = [], 0
    for offset, note in sorted(marks, key=lambda item: item[0]):
        if offset >= end and content[offset:offset + len(note.text)] == note.text:
            placed.append((offset, note))
            end = offset + len(note.text)
    return placed


def make_markdown():
    """The shared parser with the site's render rules (cells, inline values, links, numbers)."""
    md = make_parser()
    rules = md.add_render_rule
    rules("fence", _render_fence)
    rules("code_inline", _render_code_inline)
    rules("link_open", _render_link_open)
    rules("text", _render_text)
    return md


def prose_html(md, page: Page, executed: ExecutedPage | None, marks: PageMarks) -> str:
    """The body of an explainer: prose, with each fenced block's cell where it stands and
    each annotated number marked."""
    _prepare_inline(page, marks)
    env = {
        "blocks_by_line": {b.line: b for b in page.blocks},
        "executed": executed, "slug": page.slug, "title": page.front.title,
        "inline_values": {v.index: v.text for v in (executed.inline if executed else []) if not v.error},
    }
    body = [t for t in page.tokens if t.type != "front_matter"]
    return md.renderer.render(body, md.options, env)


def toc_entries(page: Page) -> list[dict]:
    """The h2/h3 headings of a page: text, anchor and level."""
    entries = []
    for i, token in enumerate(page.tokens):
        if token.type == "heading_open" and token.tag in ("h2", "h3") and "id" in token.attrs:
            text = "".join(c.content for c in page.tokens[i + 1].children or [] if c.type in ("text", "code_inline"))
            entries.append({"id": token.attrs["id"], "text": text.strip(), "level": int(token.tag[1])})
    return entries


def plain_text(page: Page) -> str:
    """The prose of a page as plain text (for the search index)."""
    words = [t.content for t in page.tokens if t.type == "inline"]
    return " ".join(" ".join(words).split())[:SEARCH_TEXT_LIMIT]


def theme_slug(theme: str) -> str:
    """An id for a theme group."""
    return "theme-" + (re.sub(r"[^a-z0-9]+", "-", theme.lower()).strip("-") or "other")


def ordered_pages(pages: list[Page], themes: tuple[str, ...]) -> list[Page]:
    """Pages in reading order: configured themes first (in their order), then by order, title."""
    rank = {t: i for i, t in enumerate(themes)}
    return sorted(pages, key=lambda p: (rank.get(p.front.theme, len(rank)), p.front.theme, p.front.order, p.front.title))


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


def search_index_js(ordered: list[Page]) -> str:
    """``static/search-index.js``: the pages' titles, urls, summaries, tags and text."""
    entries = [{"title": p.front.title, "url": f"{p.slug}.html", "summary": p.front.summary,
                "tags": list(p.front.tags), "text": plain_text(p)} for p in ordered]
    data = json.dumps(entries, ensure_ascii=False, sort_keys=True).replace("</", "<\\/")
    return f"window.FC_SEARCH_INDEX = {data};\n"


def notebook_json(page: Page, executed: ExecutedPage | None) -> str:
    """The downloadable notebook of ``page``, with its outputs."""
    notebook = reader_notebook(page, executed.notebook_outputs if executed else None)
    return json.dumps(notebook, indent=1, ensure_ascii=False, sort_keys=True) + "\n"


def render_site(pages: list[Page], executed: dict[str, ExecutedPage], report: list[ReportRow], *,
                templates: Path, site_title: str, themes: tuple[str, ...] = (),
                annotations: dict[str, PageMarks] | None = None, data_theme: str = "") -> RenderedSite:
    """Render the whole site into memory; raises nothing for a page without an execution.
    ``annotations`` holds the number marks of each page, by slug."""
    env = make_environment(templates)
    md = make_markdown()
    ordered = ordered_pages(pages, themes)
    by_slug = {p.slug: p for p in ordered}
    by_key = data_pages_by_key(ordered, data_theme)
    common = {"site_title": site_title, "serve": False}
    site = RenderedSite()
    explainer = env.get_template("explainer.html")
    for i, page in enumerate(ordered):
        result = executed.get(page.slug)
        context = _page_context(page, by_slug, ordered[i - 1] if i > 0 else None, ordered[i + 1] if i + 1 < len(ordered) else None)
        context.update(data_theme=data_theme, data_links=data_links(page, by_key))
        context["body"] = Markup(prose_html(md, page, result, (annotations or {}).get(page.slug, {})))
        site.files[f"{page.slug}.html"] = explainer.render(root="", **common, **context).encode()
        site.files[f"code/{page.slug}.py"] = script_text(page).encode()
        site.files[f"code/{page.slug}.ipynb"] = notebook_json(page, result).encode()
        for name, png in (result.figures.items() if result else ()):
            site.files[f"figures/{name}"] = png
    site.files["index.html"] = env.get_template("index.html").render(
        root="", title="Explainers", toc=None, groups=_groups(ordered), audits=_data_index(ordered, data_theme), **common).encode()
    site.files["report.html"] = env.get_template("report.html").render(
        root="", title="Build report", toc=None, rows=report, **common).encode()
    site.files["404.html"] = env.get_template("404.html").render(root="", title="Page not found", toc=None, **common).encode()
    site.files["static/pygments.css"] = pygments_css().encode()
    site.files["static/search-index.js"] = search_index_js(ordered).encode()
    return site


def render_error_page(templates: Path, site_title: str, message: str) -> bytes:
    """The page the preview server shows while the last build is failing."""
    env = make_environment(templates)
    return env.get_template("error.html").render(root="", title="The build failed", toc=None, site_title=site_title,
                                                 serve=True, message=message).encode()
