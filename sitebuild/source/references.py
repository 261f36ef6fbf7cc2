"""References: a bibliography file (YAML, named by ``bibliography:`` in site.yaml) and the
citations of the prose.

Syntax: ``[@key]`` cites the entry ``key`` of the bibliography. In a list item that begins
with a citation (the Further Reading list) it renders as the full entry, with its DOI or
URL linked; anywhere else as a short "Author Year" link to that entry. Entries cited only
in running text are listed under a "References" heading at the end of the page. An
unknown key is an error naming the .md line, with the closest keys."""

from __future__ import annotations

import re
import stat
from html import escape
from pathlib import Path

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token
from msgspec import Struct

from sitebuild.errors import ConfigError
from sitebuild.source.tokens import inline_children
from sitebuild.yamltext import describe_yaml_error, safe_yaml, yaml_errors

#: ``[@key]`` or ``[@key1; @key2]``: a citation in parentheses (group 1: the keys as written).
CITATION = re.compile(r"\[(@[A-Za-z][\w:.-]*(?:\s*;\s*@[A-Za-z][\w:.-]*)*)\]")
CITATION_KEY = re.compile(r"@([A-Za-z][\w:.-]*)")
ENTRY_ID = re.compile(r"^\s*(?:-\s+)?id:\s*[\"']?([A-Za-z][\w:.-]*)")
NO_LINK = ("bibliography entry {key!r} has neither a doi nor a url: add the work's DOI (doi: 10.xxxx/...) or its "
           "address (url: https://...)")
ENTRY_FIELDS = frozenset({"id", "authors", "title", "year", "venue", "doi", "url", "note"})


class Reference(Struct, frozen=True):
    """One entry of the bibliography."""

    key: str
    authors: tuple[str, ...]
    title: str
    year: str
    venue: str = ""
    doi: str = ""
    url: str = ""
    note: str = ""

    @property
    def link(self) -> str:
        """The entry's address: its DOI resolver link, else its URL ("" when neither)."""
        return f"https://doi.org/{self.doi}" if self.doi else self.url

    def short(self) -> str:
        """"Hardt et al. 2016", "Phipson and Smyth 2010"."""
        surnames = [a.split(",")[0].strip() for a in self.authors] or [self.title]
        if len(surnames) > 2:
            who = f"{surnames[0]} et al."
        else:
            who = " and ".join(surnames)
        return f"{who} {self.year}"

    def full_html(self) -> str:
        """The whole entry as HTML: authors (year). title. venue. link."""
        authors = ", ".join(self.authors[:-1]) + (" and " if len(self.authors) > 1 else "") + self.authors[-1] \
            if self.authors else ""
        parts = [f"{escape(authors)} ({escape(self.year)}). " if authors else f"({escape(self.year)}). ",
                 f"{escape(self.title.rstrip('.'))}."]
        if self.venue:
            parts.append(f" <em>{escape(self.venue)}</em>.")
        if self.doi:
            parts.append(f' <a href="{escape(self.link)}">doi:{escape(self.doi)}</a>')
        elif self.url:
            parts.append(f' <a href="{escape(self.url)}">{escape(self.url.split("://", 1)[-1].rstrip("/"))}</a>')
        return "".join(parts)


def _entry(index: int, raw: object, path: Path) -> Reference:
    where = f"{path}: entry {index + 1}"
    if not isinstance(raw, dict):
        raise ConfigError(f"{where}: expected a mapping with id, authors, title, year; found {raw!r}")
    unknown = sorted(set(raw) - ENTRY_FIELDS)
    if unknown:
        raise ConfigError(f"{where} ({raw.get('id')!r}): unknown field(s) {unknown}; expected some of "
                          f"{sorted(ENTRY_FIELDS)}")
    for name in ("id", "title", "year"):
        if not str(raw.get(name) or "").strip():
            raise ConfigError(f"{where} ({raw.get('id')!r}): field {name!r} is required")
    authors = raw.get("authors", [])
    authors = [authors] if isinstance(authors, str) else authors
    if not isinstance(authors, list) or not all(isinstance(a, str) for a in authors):
        raise ConfigError(f"{where} ({raw['id']!r}): 'authors' expected a list of names like 'Good, P.'; found "
                          f"{authors!r}")
    return Reference(key=str(raw["id"]), authors=tuple(authors), title=str(raw["title"]), year=str(raw["year"]),
                     venue=str(raw.get("venue") or ""), doi=str(raw.get("doi") or ""), url=str(raw.get("url") or ""),
                     note=str(raw.get("note") or ""))


#: Bibliographies already read in this process, by path and file state (a build reads it
#: twice, for the links check and for rendering; ``serve`` on every rebuild).
_READ: dict[tuple[str, int, int, int], dict[str, Reference]] = {}


def load_bibliography(path: Path | None) -> dict[str, Reference]:
    """Read the bibliography (a YAML list of entries); ``None`` or a missing file gives none."""
    try:
        state = path.stat() if path is not None else None
    except OSError:
        state = None
    if state is None or not stat.S_ISREG(state.st_mode):
        return {}
    key = (str(path), state.st_size, state.st_mtime_ns, state.st_ino)
    if key not in _READ:
        _READ.clear()
        _READ[key] = _read_bibliography(path)
    return dict(_READ[key])


def _read_bibliography(path: Path) -> dict[str, Reference]:
    try:
        raw = safe_yaml(path.read_text(encoding="utf-8")) or []
    except yaml_errors() as error:
        offset, what, hint = describe_yaml_error(error)
        line = f":{offset + 1}" if offset is not None else ""
        raise ConfigError(f"{path}{line}: not valid YAML ({what}); {hint}") from error
    if not isinstance(raw, list):
        raise ConfigError(f"{path}: expected a list of entries (- id: ..., title: ..., year: ...), found "
                          f"{type(raw).__name__}")
    entries: dict[str, Reference] = {}
    for index, item in enumerate(raw):
        entry = _entry(index, item, path)
        if entry.key in entries:
            raise ConfigError(f"{path}: entry {index + 1}: the id {entry.key!r} is used twice")
        entries[entry.key] = entry
    return entries


def entries_without_link(path: Path, entries: dict[str, Reference]) -> list[tuple[int | None, str]]:
    """(line of its ``id:`` in ``path``, message) for each entry with neither DOI nor URL."""
    lines: dict[str, int] = {}
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        text = ""
    for number, line in enumerate(text.splitlines(), start=1):
        match = ENTRY_ID.match(line)
        if match:
            lines.setdefault(match.group(1), number)
    return [(lines.get(key), NO_LINK.format(key=key)) for key, entry in entries.items() if not entry.link]


# -- Markdown: [@key] -> citation tokens ------------------------------------------------

def citation_keys(match: re.Match) -> list[str]:
    """The keys of one :data:`CITATION` match, in the order written."""
    return CITATION_KEY.findall(match.group(1))


def short_citation(keys: list[str], entries: dict[str, Reference], cite=None) -> str:
    """"(Hardt et al. 2016; Kleinberg et al. 2017)": each key by ``cite(key, entry)`` (plain
    "Author Year" by default; an unknown key as ``@key``), in parentheses."""
    cite = cite or (lambda key, entry: entry.short() if entry else f"@{key}")
    return "(" + "; ".join(cite(key, entries.get(key)) for key in keys) + ")"


def _split_citations(child: Token, leading: bool) -> list[Token]:
    """A text token cut into text and ``citation`` tokens (``meta``: key, full)."""
    out, cursor = [], 0
    for match in CITATION.finditer(child.content):
        if match.start() > cursor:
            text = Token("text", "", 0)
            text.content = child.content[cursor:match.start()]
            out.append(text)
        keys = citation_keys(match)
        cite = Token("citation", "", 0)
        cite.content = match.group(0)
        cite.meta = {"key": keys[0], "keys": keys,
                     "full": leading and match.start() == 0 and not out and len(keys) == 1}
        out.append(cite)
        cursor = match.end()
    if cursor < len(child.content):
        text = Token("text", "", 0)
        text.content = child.content[cursor:]
        out.append(text)
    return out


def citations_rule(state: StateCore) -> None:
    """Core rule: turn ``[@key]`` in text into citation tokens; a citation that opens a
    list item is marked ``full`` (it renders as the whole entry)."""
    tokens = state.tokens
    for index, token in enumerate(tokens):
        if token.type != "inline" or not token.children or "[@" not in token.content:
            continue
        in_item = (index >= 2 and tokens[index - 1].type == "paragraph_open"
                   and tokens[index - 2].type == "list_item_open")
        children: list[Token] = []
        for position, child in enumerate(token.children):
            if child.type == "text" and "[@" in child.content:
                children.extend(_split_citations(child, in_item and position == 0))
            else:
                children.append(child)
        token.children = children


def citations_plugin(md: MarkdownIt) -> None:
    """Add the ``[@key]`` citation syntax to ``md``."""
    md.core.ruler.push("citations", citations_rule)


def page_citations(tokens: list[Token]) -> list[tuple[int, str, bool]]:
    """Every citation of a page: (.md line, key, full)."""
    return [(line, key, child.meta["full"])
            for line, _, _, child in inline_children(tokens) if child.type == "citation"
            for key in child.meta.get("keys", [child.meta["key"]])]


def unknown_key_message(key: str, entries: dict[str, Reference], bibliography: str) -> str:
    """The message for a citation of a key the bibliography does not have."""
    from difflib import get_close_matches

    close = get_close_matches(key, sorted(entries), n=2, cutoff=0.6)
    hint = (f"did you mean {' or '.join(repr(c) for c in close)}?" if close
            else f"add an entry with `id: {key}` to {bibliography}")
    return f"citation [@{key}]: no entry {key!r} in {bibliography}; {hint}"


def render_citation(token: Token, entries: dict[str, Reference]) -> str:
    """A citation token as HTML: the whole entry where it opens a list item, else "(Author
    Year; ...)" with each name linked to its entry (an unknown key shows as written, marked)."""
    keys = token.meta.get("keys", [token.meta["key"]])
    entry = entries.get(keys[0])
    if token.meta["full"] and entry is not None:
        return f'<span class="reference" id="ref-{escape(entry.key)}">{entry.full_html()}</span>'

    def cite(key: str, entry: Reference | None) -> str:
        if entry is None:
            return f'<span class="citation citation-unknown">@{escape(key)}</span>'
        return f'<a class="citation" href="#ref-{escape(entry.key)}">{escape(entry.short())}</a>'

    return short_citation(keys, entries, cite)


def references_section(tokens: list[Token], entries: dict[str, Reference]) -> str:
    """The "References" list of the entries cited in running text but not listed in full."""
    cited = page_citations(tokens)
    listed = {key for _, key, full in cited if full}
    rest = list(dict.fromkeys(key for _, key, full in cited if not full and key not in listed and key in entries))
    if not rest:
        return ""
    items = "".join(f'<li><span class="reference" id="ref-{escape(k)}">{entries[k].full_html()}</span></li>'
                    for k in rest)
    return f'<section class="references"><h2 id="references">References</h2><ul>{items}</ul></section>\n'
