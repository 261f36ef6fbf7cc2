"""Re-render only what changed. Each explainer's HTML depends on its own text, outputs and
number marks, on the front matter of every page (navigation, previous and next, related
pages, data links), on site.yaml, the commit, the templates and the engine's code. The
digest of all that is kept per page (``<cache>/rendered.json``); a page whose digest is
unchanged takes its HTML from the last site, with only the provenance line (the part
that changes on every build, between :data:`~sitebuild.provenance.PROVENANCE_START` and
``PROVENANCE_END``) replaced by the new one."""

from __future__ import annotations

import hashlib
import json
from dataclasses import fields
from pathlib import Path

from sitebuild.files import write_text_atomic
from sitebuild.provenance import PROVENANCE_END, PROVENANCE_START
from sitebuild.stamp import PACKAGE_DIR, stat_line

KEYS_FILE = "rendered.json"
#: ExecutedPage fields that never reach a page's HTML.
NOT_RENDERED = ("seconds", "status", "reason", "deps", "figures", "warnings", "notebook_outputs", "digest")
#: Ends the signature of a page whose downloads it does not cover.
HTML_ONLY = "-html"


def _sha(text: str | bytes) -> str:
    return hashlib.sha256(text.encode() if isinstance(text, str) else text).hexdigest()


def site_signature(pages: list, site: object, templates: Path, commit: str, extra_files: tuple[Path, ...] = ()) -> str:
    """What every page's HTML shares: the front matter of all pages, site.yaml, the commit,
    the templates and the engine's code (their file states), ``extra_files``, and the
    versions of the libraries that render it."""
    fronts = repr([(p.slug, p.rel_path, p.front) for p in pages]) + renderer_versions()
    states = [stat_line(p) for p in sorted(templates.rglob("*")) if p.is_file()]
    states += [stat_line(p) for p in sorted(PACKAGE_DIR.rglob("*.py"))] + [stat_line(p) for p in extra_files]
    return _sha("\n".join([fronts, repr(site), commit, *states]))


def renderer_versions() -> str:
    """The versions of Jinja, markdown-it-py, its plugins and Pygments."""
    import jinja2
    import markdown_it
    import mdit_py_plugins

    from sitebuild.highlight import pygments_version

    return " ".join([jinja2.__version__, markdown_it.__version__, mdit_py_plugins.__version__,
                     pygments_version()])


def page_signature(page, result, marks, shared: str) -> str:
    """The digest of everything one explainer's HTML is made of; with the execution's own
    digest (a stored result has one), of its downloads too. A signature ending in
    :data:`HTML_ONLY` covers the HTML only."""
    if result is None or result.digest:
        produced, suffix = "" if result is None else result.digest, ""
    else:  # a failed execution is never stored: its rendered parts are all that is known
        produced = repr([getattr(result, f.name) for f in fields(result) if f.name not in NOT_RENDERED])
        produced += repr(sorted((name, _sha(data)) for name, data in result.figures.items()))
        suffix = HTML_ONLY
    return _sha("\n".join([shared, page.text, produced, repr(sorted((marks or {}).items()))])) + suffix


def _segment(html: bytes) -> bytes | None:
    start, end = html.find(PROVENANCE_START.encode()), html.find(PROVENANCE_END.encode())
    return html[start:end] if 0 <= start < end else None


class RenderCache:
    """The digests of the pages of the last site, and their HTML, found in ``out``."""

    def __init__(self, cache_dir: Path, out: Path):
        self.path, self.out = cache_dir / KEYS_FILE, out
        try:
            self.keys = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            self.keys = {}
        self.new_keys: dict[str, str] = {}

    def reusable(self, signatures: dict[str, str]) -> dict[str, bytes]:
        """The HTML of the last site for each page whose signature is unchanged."""
        self.new_keys = dict(signatures)
        found = {}
        for slug, key in signatures.items():
            if self.keys.get(slug) == key:
                try:
                    found[slug] = (self.out / f"{slug}.html").read_bytes()
                except OSError:
                    continue
        return found

    def kept_downloads(self, downloads: dict[str, list[str]]) -> dict[str, Path]:
        """The files of the last site that each page's downloads (slug -> paths in the site)
        can be taken from: those of a page whose signature, covering them, is unchanged
        and whose files are all still there."""
        kept: dict[str, Path] = {}
        for slug, paths in downloads.items():
            key = self.new_keys.get(slug, HTML_ONLY)
            if key.endswith(HTML_ONLY) or self.keys.get(slug) != key:
                continue
            found = {rel: self.out / rel for rel in paths}
            if all(path.is_file() for path in found.values()):
                kept.update(found)
        return kept

    def refresh(self, site, reused: dict[str, bytes]) -> None:
        """Give each reused page of ``site`` (a RenderedSite) the provenance line of this
        build (taken from its index); a page whose line is the same is kept as it is."""
        new = _segment(site.files.get("index.html", b""))
        for slug, html in reused.items():
            old = _segment(html)
            if new is not None and old is not None and old != new:
                site.files[f"{slug}.html"] = html.replace(old, new, 1)
            elif site.files.get(f"{slug}.html") is html:
                del site.files[f"{slug}.html"]
                site.kept[f"{slug}.html"] = self.out / f"{slug}.html"

    def save(self) -> None:
        """Record the signatures of the site just written."""
        if self.new_keys != self.keys:
            write_text_atomic(self.path, json.dumps(self.new_keys, sort_keys=True))
