"""Stage 2: the order of the pages. A page that reads a file another page writes (or a
site.yaml step's ``outputs:``) is fed by it, and runs after it: the pages form a graph,
taken from the reads and writes the kernels recorded in the last build (kept in the cache
as :data:`FEEDS_FILE`), and run level by level (a page's level is one more than that of
the pages feeding it). Pages that feed each other form a cycle, which is an error naming
them (:func:`find_cycle`). Only files inside the repository make pages feed pages: a file
elsewhere (a library's cache in the home folder) never orders pages."""

from __future__ import annotations

import posixpath
from pathlib import Path
from types import MappingProxyType
from typing import Iterable, Mapping

from msgspec import Struct, field

from sitebuild.store.memo import Memo

#: The reads and writes of the last build's pages that make pages feed pages.
FEEDS_FILE = "page-feeds.json"
#: The format of that memo.
FEEDS_FORMAT = "1"
#: A cycle among the pages: the message of its error.
CYCLE_ERROR = "pages feed each other in a cycle, so none can run first: {chain}"


def _frozen(mapping: dict) -> Mapping:
    return MappingProxyType(mapping)


class Feeds(Struct, frozen=True):
    """What makes pages feed pages: the files each page wrote, and the files or folders it
    read, listed or looked for among those some page or step wrote (by page path, record
    names inside the repository)."""

    writes: Mapping[str, frozenset[str]] = field(default_factory=lambda: _frozen({}))
    reads: Mapping[str, frozenset[str]] = field(default_factory=lambda: _frozen({}))

    def to_json(self) -> dict:
        """The feeds as :data:`FEEDS_FILE` keeps them."""
        return {"writes": {page: sorted(names) for page, names in sorted(self.writes.items()) if names},
                "reads": {page: sorted(names) for page, names in sorted(self.reads.items()) if names}}


def _inside(name: str) -> bool:
    return not posixpath.isabs(name) and not name.startswith("../")


def _reached(name: str, written: frozenset[str]) -> bool:
    """True when reading ``name`` (a file, or a folder listed) reads something in ``written``."""
    if name in written:
        return True
    folder = "" if name == "." else name.rstrip("/") + "/"
    return any(w.startswith(folder) and "/" not in w[len(folder):] for w in written)


def feeds_of(reads: Mapping[str, Iterable[str]], writes: Mapping[str, Iterable[str]],
             step_writes: Iterable[str] = ()) -> Feeds:
    """The :class:`Feeds` of one build: ``reads`` and ``writes`` by page path (record names,
    as the kernel recorded them), ``step_writes`` the files the steps made."""
    page_writes = {page: frozenset(n for n in names if _inside(n)) for page, names in writes.items()}
    written = frozenset(step_writes).union(*page_writes.values())
    page_reads = {page: frozenset(n for n in names if _inside(n) and _reached(n, written))
                  for page, names in reads.items()}
    return Feeds(_frozen({p: w for p, w in page_writes.items() if w}),
                 _frozen({p: r for p, r in page_reads.items() if r}))


def feeds_memo(cache_dir: Path) -> Memo:
    """The memo of the reads and writes that made pages feed pages in the last build."""
    return Memo(cache_dir / FEEDS_FILE, "page feeds", FEEDS_FORMAT)


def _valid_feeds(data: dict) -> bool:
    return set(data) == {"writes", "reads"} and all(
        isinstance(section, dict) and all(isinstance(names, list) and all(isinstance(n, str) for n in names)
                                          for names in section.values())
        for section in data.values())


def load_feeds(cache_dir: Path) -> Feeds:
    """The feeds the last build recorded (none before the first, or for a damaged file)."""
    data = feeds_memo(cache_dir).load({}, _valid_feeds)
    if not data:
        return Feeds()
    return Feeds(_frozen({p: frozenset(n) for p, n in data["writes"].items()}),
                 _frozen({p: frozenset(n) for p, n in data["reads"].items()}))


def save_feeds(cache_dir: Path, feeds: Feeds) -> None:
    """Keep ``feeds`` for the next build (written only when they changed)."""
    feeds_memo(cache_dir).save(feeds.to_json())


def feeders(pages: Iterable[str], feeds: Feeds) -> Mapping[str, frozenset[str]]:
    """For each page (by path), the other pages whose writes it read."""
    pages = list(pages)
    writers = [page for page in pages if feeds.writes.get(page)]  # most pages write nothing
    return _frozen({reader: frozenset(writer for writer in writers if writer != reader and any(
        _reached(name, feeds.writes[writer]) for name in feeds.reads.get(reader, ())))
        for reader in pages})


def find_cycle(fed_by: Mapping[str, frozenset[str]]) -> tuple[str, ...]:
    """Pages that feed each other in a cycle, as the chain ``a, b, ..., a`` (a feeds b ...),
    or () when there is none. The first cycle met in sorted order, so the same graph always
    names the same chain."""
    feeds_into: dict[str, list[str]] = {page: [] for page in fed_by}
    for reader, writers in fed_by.items():
        for writer in writers:
            feeds_into.setdefault(writer, []).append(reader)
    done: set[str] = set()
    for start in sorted(feeds_into):
        path: list[str] = []
        on_path: set[str] = set()
        found = _walk(start, feeds_into, path, on_path, done)
        if found:
            return found
    return ()


def _walk(page: str, feeds_into: dict[str, list[str]], path: list[str], on_path: set[str],
          done: set[str]) -> tuple[str, ...]:
    if page in on_path:
        return (*path[path.index(page):], page)
    if page in done:
        return ()
    path.append(page)
    on_path.add(page)
    for reader in sorted(feeds_into.get(page, ())):
        found = _walk(reader, feeds_into, path, on_path, done)
        if found:
            return found
    path.pop()
    on_path.discard(page)
    done.add(page)
    return ()


def levels(fed_by: Mapping[str, frozenset[str]]) -> tuple[tuple[str, ...], ...]:
    """The pages in levels: each page after every page feeding it, pages of one level in
    the order given. Pages of a cycle share the level of the first of them reached."""
    level: dict[str, int] = {}

    def level_of(page: str, seen: frozenset[str]) -> int:
        if page not in level:
            writers = [w for w in fed_by.get(page, ()) if w not in seen and w in fed_by]
            level[page] = max((level_of(w, seen | {page}) + 1 for w in writers), default=0)
        return level[page]

    for page in fed_by:
        level_of(page, frozenset())
    count = max(level.values(), default=-1) + 1
    return tuple(tuple(p for p in fed_by if level[p] == n) for n in range(count))


def cycle_message(chain: tuple[str, ...], feeds: Feeds) -> str:
    """The error naming the pages of a cycle and the files that tie them."""
    links = []
    for writer, reader in zip(chain, chain[1:]):
        tied = sorted(n for n in feeds.reads.get(reader, ()) if _reached(n, feeds.writes.get(writer, frozenset())))
        links.append(f"{writer} writes `{tied[0]}` that {reader} reads" if tied else f"{writer} feeds {reader}")
    return CYCLE_ERROR.format(chain=" -> ".join(chain) + " (" + "; ".join(links) + ")")
