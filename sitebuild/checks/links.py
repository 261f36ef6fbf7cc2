"""Links between pages that share a data set. A page lists the data sets it uses in its
front matter (``audits: [key, ...]``); the pages of the site's data theme (``data_theme`` in
``site.yaml``) describe those data sets and list their own key. Each page then links to the
data-theme pages that share one of its keys, and a key that no data-theme page declares is
reported (a warning, so an error under ``--strict``)."""

from __future__ import annotations

from msgspec import Struct

from sitebuild.checks.check import Problem, expected_one_of
from sitebuild.source.read import Page


class DataLink(Struct, frozen=True):
    """A link from a page to a data-theme page that shares one of its keys."""

    slug: str
    title: str
    summary: str
    keys: tuple[str, ...]


def data_pages_by_key(pages: list[Page], data_theme: str) -> dict[str, list[Page]]:
    """The pages of ``data_theme``, by each key they list (none when the theme is "")."""
    by_key: dict[str, list[Page]] = {}
    if not data_theme:
        return by_key
    for page in pages:
        if page.front.theme == data_theme:
            for key in page.front.audits:
                by_key.setdefault(key, []).append(page)
    return by_key


def data_links(page: Page, by_key: dict[str, list[Page]]) -> list[DataLink]:
    """The data-theme pages ``page`` links to, in the order of its keys, each once, never itself."""
    links: dict[str, DataLink] = {}
    for key in page.front.audits:
        for target in by_key.get(key, []):
            if target.slug == page.slug:
                continue
            known = links.get(target.slug)
            keys = (known.keys if known else ()) + (key,)
            links[target.slug] = DataLink(target.slug, target.front.title, target.front.summary, keys)
    return list(links.values())


def front_matter_line(page: Page, field: str) -> int:
    """The .md line of ``field:`` in the front matter (1 when it cannot be found)."""
    lines = page.text.splitlines()
    for number, line in enumerate(lines[1:], start=2):
        if line.strip() == "---":
            break
        if line.startswith(f"{field}:"):
            return number
    return 1


def check_data_keys(pages: list[Page], data_theme: str) -> list[Problem]:
    """A warning for every ``audits`` key that no page of ``data_theme`` declares."""
    if not data_theme:
        return []
    by_key = data_pages_by_key(pages, data_theme)
    problems = []
    for page in pages:
        for key in page.front.audits:
            if key not in by_key:
                choices = set(by_key) or {"(none yet)"}
                problems.append(Problem(
                    page.rel_path, front_matter_line(page, "audits"),
                    f"front matter field 'audits': no page of the theme {data_theme!r} lists {key!r}; "
                    f"{expected_one_of(key, choices)}, or add a {data_theme!r} page with `audits: [{key}]`",
                    "warning"))
    return problems


def check_themes(pages: list[Page], themes: tuple[str, ...]) -> list[Problem]:
    """A warning for every page whose ``theme`` is not one of site.yaml's ``themes`` (a
    misspelt theme would silently start a section of its own)."""
    if not themes:
        return []
    problems = []
    for page in pages:
        if page.front.theme not in themes:
            from difflib import get_close_matches

            close = get_close_matches(page.front.theme, list(themes), n=1, cutoff=0.5)
            hint = f"did you mean {close[0]!r}?" if close else f"expected one of {list(themes)}"
            problems.append(Problem(page.rel_path, front_matter_line(page, "theme"),
                                    f"front matter field 'theme': {page.front.theme!r} is not a theme of site.yaml; "
                                    f"{hint} (or add it to `themes:` in site.yaml)", "warning"))
    return problems


def check_citations(pages: list[Page], entries: dict, bibliography: str) -> list[Problem]:
    """An error for every ``[@key]`` whose key the bibliography does not have."""
    from sitebuild.source.references import page_citations, unknown_key_message

    return [Problem(page.rel_path, line, unknown_key_message(key, entries, bibliography or "the bibliography"))
            for page in pages for line, key, _ in page_citations(page.tokens) if key not in entries]


def author_checks(pages: list[Page], executed: dict, site, root) -> list[Problem]:
    """The checks of what an author wrote against the site's configuration: themes,
    citations, bibliography entries without a DOI or URL, figure captions and the
    contrast of dark figures."""
    from sitebuild.checks.figure_contrast import check_dark_figures
    from sitebuild.checks.figures import check_figures
    from sitebuild.source.references import entries_without_link, load_bibliography

    bibliography = site.bibliography
    entries = load_bibliography(root / bibliography) if bibliography else {}
    problems = check_themes(pages, site.themes) + check_citations(pages, entries, bibliography)
    if bibliography:
        problems += [Problem(bibliography, line, message, "warning")
                     for line, message in entries_without_link(root / bibliography, entries)]
    for page in pages:
        problems += check_figures(page, executed.get(page.slug)) + check_dark_figures(page, executed.get(page.slug))
    return problems
