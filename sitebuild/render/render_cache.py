"""Re-render only what changed. Each explainer's HTML depends on its own text, outputs and
number marks, on the front matter of every page (navigation, previous and next, related
pages, data links), on site.yaml, the commit, the templates and the engine's code. The
digest of all that is kept per page (``<cache>/rendered.json``), together with the commit
and whether the work tree had local changes; a page whose digest is unchanged keeps its
file of the last site as it is, linked, not read. Its provenance line therefore says when
that page's HTML was made (the index and the report say when the whole site was built);
the commit it names is this build's, since a new commit or a change of the work tree's
state changes every digest."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Mapping

from sitebuild.store.files import stat_line, tree_lines
from sitebuild.store.memo import Memo, engine_version
from sitebuild.store.stamp import output_states

KEYS_FILE = "rendered.json"
#: ExecutedPage fields that never reach a page's HTML.
NOT_RENDERED = ("seconds", "status", "reason", "deps", "trace", "figures", "warnings", "notebook_outputs", "digest")
#: Ends the signature of a page whose downloads it does not cover.
HTML_ONLY = "-html"


def _sha(text: str | bytes) -> str:
    return hashlib.sha256(text.encode() if isinstance(text, str) else text).hexdigest()


def site_signature(pages: list, site: object, templates: Path, commit: str, extra_files: tuple[Path, ...] = (),
                   dirty: bool = False) -> str:
    """What every page's HTML shares: the front matter of all pages, site.yaml, the commit
    and whether the work tree is ``dirty``, the templates and the engine's code (their file
    states), ``extra_files``, and the versions of the libraries that render it."""
    fronts = repr([(p.slug, p.rel_path, p.front) for p in pages]) + renderer_versions()
    states = tree_lines(templates, "", None, recursive=True) + [engine_version()]
    states += [stat_line(p) for p in extra_files]
    return _sha("\n".join([fronts, repr(site), commit, repr(dirty), *states]))


def renderer_versions() -> str:
    """The versions of Jinja, markdown-it-py, its plugins and Pygments."""
    import jinja2
    import markdown_it
    import mdit_py_plugins

    from sitebuild.render.highlight import pygments_version

    return " ".join([jinja2.__version__, markdown_it.__version__, mdit_py_plugins.__version__,
                     pygments_version()])


def page_signature(page, result, marks, shared: str) -> str:
    """The digest of everything one explainer's HTML is made of; with the execution's own
    digest (a stored result has one), of its downloads too. A signature ending in
    :data:`HTML_ONLY` covers the HTML only."""
    if result is None or result.digest:
        produced, suffix = "" if result is None else result.digest, ""
    else:  # a failed execution is never stored: its rendered parts are all that is known
        produced = repr([getattr(result, name) for name in result.__struct_fields__ if name not in NOT_RENDERED])
        produced += repr(sorted((name, _sha(data)) for name, data in result.figures.items()))
        suffix = HTML_ONLY
    return _sha("\n".join([shared, page.text, produced, repr(sorted((marks or {}).items()))])) + suffix


def site_file_signatures(shared: str, provenance: object, rows: list) -> dict[str, str]:
    """The signatures of the index, the report and the 404 page (keys "/index.html", ...):
    what every page shares, this build's provenance (its time included), and for the
    report its rows."""
    common = "\n".join([shared, repr(provenance)])
    return {"/index.html": _sha(common), "/404.html": _sha(common), "/report.html": _sha(common + repr(rows))}


def _file_name(key: str) -> str:
    return key[1:] if key.startswith("/") else f"{key}.html"


class _Listings:
    """The names in the folders of the last site, each folder listed once; with the states
    the last build ``written`` its files in, a file is there only while in that state (one
    deleted or edited by hand is not kept)."""

    def __init__(self, out: Path, written: Mapping[str, list[int]] | None = None):
        self.out, self.names, self.written = out, {}, written
        self.base = os.path.join(out, "")  # ends with a separator: paths are joined as text, base + rel
        self.states: dict[str, list[int] | None] | None = None  # of the files written, taken at the first question

    def has(self, rel: str) -> bool:
        if self.written is not None:
            if self.states is None:  # all at once, from the open folder: most are asked about
                self.states = dict(output_states(self.out, self.written))
            return rel in self.written and self.states[rel] == self.written[rel]
        folder, _, name = rel.rpartition("/")
        if folder not in self.names:
            try:
                self.names[folder] = set(os.listdir(self.out / folder))
            except OSError:
                self.names[folder] = set()
        return name in self.names[folder]


class RenderCache:
    """The digests of the pages of the last site, and their files, found in ``out`` (in the
    states the last build wrote them, when ``written`` gives those)."""

    def __init__(self, cache_dir: Path, out: Path, written: Mapping[str, list[int]] | None = None):
        self.memo, self.out = Memo(cache_dir / KEYS_FILE, "rendered pages", engine_version()), out
        self.keys: dict[str, str] = self.memo.load({})
        self.new_keys: dict[str, str] = {}
        self.listings = _Listings(out, written)

    def reusable(self, signatures: dict[str, str]) -> dict[str, str]:
        """The HTML file of the last site (its path, as text) for each page whose signature
        is unchanged (by slug, or by "/index.html" and the like, see :func:`site_file_signatures`)."""
        self.new_keys = dict(signatures)
        return {key: self.listings.base + _file_name(key) for key, signature in signatures.items()
                if self.keys.get(key) == signature and self.listings.has(_file_name(key))}

    def kept_states(self) -> dict[str, list[int]]:
        """The states of the files of the last site found as the last build wrote them, by
        their paths (joined as :meth:`kept_downloads` and :meth:`reusable` join them)."""
        states, written = self.listings.states or {}, self.listings.written or {}
        base = self.listings.base
        return {base + rel: state for rel, state in states.items() if state is not None and state == written.get(rel)}

    def kept_downloads(self, downloads: dict[str, list[str]]) -> dict[str, str]:
        """The files of the last site that each page's downloads (slug -> paths in the site)
        can be taken from: those of a page whose signature, covering them, is unchanged
        and whose files are all still there. The paths are text, joined without pathlib: a
        site of hundreds of pages keeps thousands of files per build."""
        kept: dict[str, str] = {}
        for slug, paths in downloads.items():
            key = self.new_keys.get(slug, HTML_ONLY)
            if key.endswith(HTML_ONLY) or self.keys.get(slug) != key:
                continue
            if all(self.listings.has(rel) for rel in paths):
                kept.update((rel, self.listings.base + rel) for rel in paths)
        return kept

    def save(self) -> None:
        """Record the signatures of the site just written."""
        if self.new_keys != self.keys:
            self.memo.save(self.new_keys)
