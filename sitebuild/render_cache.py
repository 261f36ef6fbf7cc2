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
NOT_RENDERED = ("seconds", "status", "reason", "deps", "figures", "warnings", "notebook_outputs")


def _sha(text: str | bytes) -> str:
    return hashlib.sha256(text.encode() if isinstance(text, str) else text).hexdigest()


def site_signature(pages: list, site: object, templates: Path, commit: str, extra_files: tuple[Path, ...] = ()) -> str:
    """What every page's HTML shares: the front matter of all pages, site.yaml, the commit,
    the templates and the engine's code (their file states), and ``extra_files``."""
    fronts = repr([(p.slug, p.rel_path, p.front) for p in pages])
    states = [stat_line(p) for p in sorted(templates.rglob("*")) if p.is_file()]
    states += [stat_line(p) for p in sorted(PACKAGE_DIR.rglob("*.py"))] + [stat_line(p) for p in extra_files]
    return _sha("\n".join([fronts, repr(site), commit, *states]))


def page_signature(page, result, marks, shared: str) -> str:
    """The digest of everything one explainer's HTML is made of."""
    outputs = "" if result is None else repr([getattr(result, f.name) for f in fields(result) if f.name not in NOT_RENDERED])
    figures = [] if result is None else sorted((name, _sha(data)) for name, data in result.figures.items())
    return _sha("\n".join([shared, page.text, outputs, repr(figures), repr(sorted((marks or {}).items()))]))


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

    def refresh(self, files: dict[str, bytes], reused: dict[str, bytes]) -> None:
        """Give each reused page the provenance line of this build (taken from its index)."""
        new = _segment(files.get("index.html", b""))
        for slug, html in reused.items():
            old = _segment(html)
            if new is not None and old is not None and old != new:
                files[f"{slug}.html"] = html.replace(old, new, 1)

    def save(self) -> None:
        """Record the signatures of the site just written."""
        if self.new_keys != self.keys:
            write_text_atomic(self.path, json.dumps(self.new_keys, sort_keys=True))
