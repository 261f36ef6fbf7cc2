"""The quote check of a page, remembered between builds. A page's check depends only on
its own text (prose, code, front matter, tokens), its execution's outputs, inline values
and claim values, its own entries of the lock, and the checker's code; the digest of all
that is the key of its result in ``<cache>/quotes.pickle``. A page whose key is unchanged
takes its result from there instead of being checked again; any change to one of those
inputs checks it afresh. An unreadable memo is ignored (every page is checked)."""

from __future__ import annotations

import hashlib
import pickle
from pathlib import Path

from sitebuild.page_cache import engine_version, write_bytes_atomic
from sitebuild.quotes.lock import LockEntry
from sitebuild.quotes.results import PageQuotes

MEMO_FILE = "quotes.pickle"
MEMO_FORMAT = 1


def page_check_key(page, executed, lock: list[LockEntry], version: str) -> str:
    """The digest of everything the check of ``page`` (with its execution ``executed``
    and the lock ``lock``) reads."""
    own = [entry for entry in lock if entry.page == page.rel_path]
    material = "\n\0".join([version, page.rel_path, page.text, repr(sorted(executed.blocks.items())),
                            repr(executed.inline), repr(executed.claims), repr(own)])
    return hashlib.sha256(material.encode()).hexdigest()


class QuoteMemo:
    """The remembered checks of the last build (rel_path -> (key, PageQuotes))."""

    def __init__(self, cache_dir: Path):
        self.path = cache_dir / MEMO_FILE
        self.version = engine_version()
        self.entries = self._load()
        self.used: dict[str, tuple[str, PageQuotes]] = {}
        self.hits = 0

    def _load(self) -> dict:
        try:
            with open(self.path, "rb") as stream:
                data = pickle.load(stream)
        except Exception:  # missing, truncated or from another version: check every page
            return {}
        if not isinstance(data, dict) or data.get("format") != MEMO_FORMAT or data.get("version") != self.version:
            return {}
        entries = data.get("pages")
        return entries if isinstance(entries, dict) else {}

    def check(self, page, executed, lock: list[LockEntry]) -> PageQuotes:
        """The check of one page: remembered when its key is unchanged, else run now."""
        from sitebuild.quotes.stage import check_page_quotes

        key = page_check_key(page, executed, lock, self.version)
        found = self.entries.get(page.rel_path)
        if found is not None and found[0] == key and isinstance(found[1], PageQuotes):
            self.hits += 1
            quotes = found[1]
        else:
            quotes = check_page_quotes(page, executed, lock)
        self.used[page.rel_path] = (key, quotes)
        return quotes

    def save(self) -> None:
        """Keep the checks of this build (atomically; only when something changed)."""
        if {k: v[0] for k, v in self.used.items()} == {k: v[0] for k, v in self.entries.items()}:
            return
        write_bytes_atomic(self.path, pickle.dumps({"format": MEMO_FORMAT, "version": self.version, "pages": self.used},
                                                   protocol=pickle.HIGHEST_PROTOCOL))
