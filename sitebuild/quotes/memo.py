"""The quote check of a page, remembered between builds. A page's check depends only on
its own text (prose, code, front matter, tokens), its execution's outputs, inline values
and claim values, its own entries of the lock, and the checker's code; the digest of all
that is the key of its result in ``<cache>/quotes/`` (see
:mod:`sitebuild.store.shelf`). A page whose key is unchanged
takes its result from there instead of being checked again; any change to one of those
inputs checks it afresh. An unreadable memo is ignored (every page is checked)."""

from __future__ import annotations

import hashlib
from pathlib import Path

from sitebuild.quotes.lock import LockEntry
from sitebuild.quotes.results import PageQuotes
from sitebuild.source.page_cache import engine_version
from sitebuild.store.shelf import Shelf

MEMO_DIR = "quotes"
MEMO_FORMAT = 2


def page_check_key(page, executed, lock: list[LockEntry], version: str) -> str:
    """The digest of everything the check of ``page`` (with its execution ``executed``
    and the lock ``lock``) reads."""
    own = [entry for entry in lock if entry.page == page.rel_path]
    # A stored execution's digest stands for its outputs, inline and claim values.
    produced = executed.digest or repr([sorted(executed.blocks.items()), executed.inline, executed.claims])
    material = "\n\0".join([version, page.rel_path, page.text, produced, repr(own)])
    return hashlib.sha256(material.encode()).hexdigest()


class QuoteMemo:
    """The remembered checks of the last build, one per page (rel_path -> (key, PageQuotes))."""

    def __init__(self, cache_dir: Path):
        self.version = engine_version()
        self.shelf = Shelf(cache_dir / MEMO_DIR, f"quote checks {MEMO_FORMAT}", self.version)
        self.used: dict[str, str] = {}
        self.hits = 0

    def check(self, page, executed, lock: list[LockEntry]) -> PageQuotes:
        """The check of one page: remembered when its key is unchanged, else run now (and kept)."""
        from sitebuild.quotes.stage import check_page_quotes

        key = page_check_key(page, executed, lock, self.version)
        found = self.shelf.get(page.rel_path)
        if isinstance(found, tuple) and len(found) == 2 and found[0] == key and isinstance(found[1], PageQuotes):
            self.hits += 1
            quotes = found[1]
        else:
            quotes = check_page_quotes(page, executed, lock)
            self.shelf.put(page.rel_path, (key, quotes))
        self.used[page.rel_path] = key
        return quotes

    def save(self) -> None:
        """Forget the checks of pages this build did not check (each check is kept as it is made)."""
        self.shelf.keep_only(set(self.used))
