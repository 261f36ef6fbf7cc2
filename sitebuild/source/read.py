"""Stage 1: read ``<source>/<slug>.md`` into a :class:`Page`: validated front matter, the
markdown-it tokens (with their ``map`` source lines), the fenced code blocks with their
options and first line, and the inline ``{python} expr`` values to evaluate."""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from markdown_it.token import Token
from msgspec import Struct, field

from sitebuild.errors import SourceError
from sitebuild.source.claims import Claim, find_claims, malformed_claims
from sitebuild.source.markdown import make_parser
from sitebuild.source.math import formula_errors
from sitebuild.source.tokens import unparsed_syntax
from sitebuild.store.files import names_ending
from sitebuild.yamltext import describe_yaml_error, safe_yaml, yaml_errors

BLOCK_FLAGS = frozenset({"hide-code", "hide-output", "no-exec", "expect-error"})
BLOCK_VALUES = frozenset({"caption", "alt", "label"})
LABEL_PATTERN = re.compile(r"^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$")
DEFAULT_EXEMPT = ("Further Reading", "References")
SLUG_PATTERN = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
#: The names of the site's own pages (index.html, report.html, 404.html), which no explainer may take.
SITE_PAGE_SLUGS = ("index", "report", "404")
OPTION_PATTERN = re.compile(r"""\{([A-Za-z][\w-]*)(?:=("[^"]*"|'[^']*'|[^}\s]*))?\}""")
INLINE_PATTERN = re.compile(r"^\{python(?::([^}]*))?\}\s+(.+)$", re.S)


class CodeBlock(Struct, frozen=True):
    """One fenced block: ``n`` counts every fence of the page from 1; ``line`` is the .md
    line (1-based) of its first line of code."""

    n: int
    language: str
    source: str
    line: int
    options: dict = field(default_factory=dict)

    @property
    def executable(self) -> bool:
        """True for Python blocks that run (not marked {no-exec})."""
        return self.language == "python" and not self.options.get("no-exec")


class InlineExpr(Struct, frozen=True):
    """An inline ``{python[:format]} expr`` value, at ``line``/``col`` (1-based) in the .md."""

    index: int
    expr: str
    format_spec: str
    line: int
    col: int


class FrontMatter(Struct, frozen=True):
    """The validated front matter of an explainer."""

    title: str
    summary: str
    theme: str = "Explainers"
    tags: tuple[str, ...] = ()
    related: tuple[str, ...] = ()
    audits: tuple[str, ...] = ()
    order: float = 0
    timeout: float | None = None
    exempt_sections: tuple[str, ...] = DEFAULT_EXEMPT
    #: Extra inputs (paths or globs, relative to the repository root or absolute) that
    #: join the page's cache key: files the kernel cannot see being read.
    inputs: tuple[str, ...] = ()
    #: ``False`` runs the page on every build.
    cache: bool = True


class Page(Struct, frozen=True):
    """A source explainer, parsed."""

    slug: str
    path: Path
    rel_path: str
    text: str
    front: FrontMatter
    tokens: list[Token]
    blocks: list[CodeBlock]
    inline: list[InlineExpr]
    claims: list[Claim] = field(default_factory=list)
    #: (.md line, message) of each formula that cannot be rendered, found as the page is
    #: parsed: the page cache keeps them, so a check converts only the formulas of pages
    #: it parses again.
    math_errors: tuple[tuple[int, str], ...] = ()
    #: (.md line, text) of each ``[...]{check=...}`` not read as a claim, and of each link or
    #: attribute list that did not parse: found as the page is parsed, like ``math_errors``.
    malformed_claims: tuple[tuple[int, str], ...] = ()
    unparsed_syntax: tuple[tuple[int, str], ...] = ()

    @property
    def code_blocks(self) -> list[CodeBlock]:
        """The blocks that run in the page's kernel, in order."""
        return [b for b in self.blocks if b.executable]


class _FieldLines:
    """The .md line of each top-level field of a front matter whose first line is ``first``."""

    def __init__(self, text: str, first: int) -> None:
        self.first = first
        self.lines = {}
        for offset, line in enumerate(text.splitlines()):
            match = re.match(r"^([A-Za-z_][\w-]*)\s*:", line)
            if match:
                self.lines.setdefault(match.group(1), first + offset)

    def __call__(self, name: str) -> int:
        return self.lines.get(name, self.first)


def _string_list(raw: dict, name: str, path: str, line: int = 1) -> tuple[str, ...]:
    value = raw.get(name, [])
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise SourceError(path, f"front matter field '{name}': expected a list of strings, found {value!r}", line)
    return tuple(value)


def _yaml_error(error: Exception, path: str, first: int) -> SourceError:
    """A YAML error at the .md line to fix (the front matter starts at ``first``), with a
    hint that fits the error."""
    offset, what, hint = describe_yaml_error(error)
    return SourceError(path, f"front matter is not valid YAML: {what}; {hint}", first + (offset or 0))


def unknown_field_message(name: str, known: set[str]) -> str:
    """"unknown field 'titel': did you mean 'title'?" (or the list of fields)."""
    from difflib import get_close_matches  # loaded only to word an error

    close = get_close_matches(name, sorted(known), n=1, cutoff=0.6)
    hint = f"did you mean {close[0]!r}?" if close else f"expected one of {sorted(known)}"
    return f"front matter: unknown field {name!r}; {hint}"


def parse_front_matter(text: str, path: str, first_line: int = 2) -> FrontMatter:
    """Validate the YAML front matter ``text`` of ``path`` into a :class:`FrontMatter`.
    ``first_line`` is the .md line of the front matter's first line, so that every error
    names the line of its field."""
    try:
        raw = safe_yaml(text) or {}
    except yaml_errors() as error:
        raise _yaml_error(error, path, first_line) from error
    if not isinstance(raw, dict):
        raise SourceError(path, f"front matter: expected a mapping of fields, found {type(raw).__name__}", first_line)
    at = _FieldLines(text, first_line)
    known = set(FrontMatter.__struct_fields__)
    unknown = sorted(set(raw) - known, key=str)
    if unknown:
        raise SourceError(path, unknown_field_message(str(unknown[0]), known), at(str(unknown[0])))
    for name in ("title", "summary"):
        if not isinstance(raw.get(name), str) or not raw[name].strip():
            raise SourceError(path, f"front matter field '{name}' is required: expected a non-empty string, "
                                    f"found {raw.get(name)!r}", at(name))
    theme = raw.get("theme", "Explainers")
    if not isinstance(theme, str):
        raise SourceError(path, f"front matter field 'theme': expected a string, found {theme!r}", at('theme'))
    order, timeout = raw.get("order", 0), raw.get("timeout")
    if isinstance(order, bool) or not isinstance(order, (int, float)):
        raise SourceError(path, f"front matter field 'order': expected a number, found {order!r}", at('order'))
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0):
        raise SourceError(path, f"front matter field 'timeout': expected a positive number of seconds, "
                                f"found {timeout!r}", at('timeout'))
    related = _string_list(raw, "related", path, at("related"))
    bad = [s for s in related if not SLUG_PATTERN.match(s)]
    if bad:
        raise SourceError(path, f"front matter field 'related': expected page slugs like 'permutation-tests', "
                                f"found {bad}", at('related'))
    exempt = _string_list(raw, "exempt_sections", path,
                          at("exempt_sections")) if "exempt_sections" in raw else DEFAULT_EXEMPT
    cache = raw.get("cache", True)
    if not isinstance(cache, bool):
        raise SourceError(path, f"front matter field 'cache': expected true or false, found {cache!r}", at('cache'))
    return FrontMatter(title=raw["title"].strip(), summary=raw["summary"].strip(), theme=theme.strip(),
                       tags=_string_list(raw, "tags", path, at("tags")), related=related,
                       audits=_string_list(raw, "audits", path, at("audits")), order=order,
                       timeout=float(timeout) if timeout is not None else None, exempt_sections=exempt,
                       inputs=_string_list(raw, "inputs", path, at("inputs")), cache=cache)


def parse_block_options(info: str, path: str, line: int) -> tuple[str, dict]:
    """Split a fence's info string into its language and its ``{option}`` settings."""
    language, _, rest = info.strip().partition(" ")
    options: dict = {}
    leftover = OPTION_PATTERN.sub("", rest).strip()
    if leftover:
        raise SourceError(path,
                          f"code block options: expected {{option}} or {{option=\"value\"}}, found {leftover!r}", line)
    for name, value in OPTION_PATTERN.findall(rest):
        if name in options:
            raise SourceError(path, f"code block option {{{name}}} is given twice; keep one", line)
        if name in BLOCK_FLAGS and not value:
            options[name] = True
        elif name in BLOCK_VALUES and value:
            options[name] = value[1:-1] if value[:1] in "\"'" else value
            if name == "label" and not LABEL_PATTERN.match(options[name]):
                raise SourceError(path, f"code block option {{label}}: expected an id like \"fig-forest\" "
                                        f"(lower-case letters, digits, hyphens), found {options[name]!r}", line)
        else:
            expected = ", ".join(sorted(f"{{{f}}}" for f in BLOCK_FLAGS)
                                 + [f'{{{v}="..."}}' for v in sorted(BLOCK_VALUES)])
            raise SourceError(path,
                              f"code block option {{{name}{'=' + value if value else ''}}}: expected one of "
                              f"{expected}", line)
    return language.lower(), options


def _inline_exprs(tokens: list[Token], lines: list[str]) -> list[InlineExpr]:
    """Inline ``{python} expr`` spans; ``col`` is the 1-based column of the opening backtick."""
    found: list[InlineExpr] = []
    for token in tokens:
        if token.type != "inline" or not token.map:
            continue
        line, cursor = token.map[0] + 1, 0
        for child in token.children or []:
            if child.type in ("softbreak", "hardbreak"):
                line, cursor = line + 1, 0
            elif child.type == "code_inline":
                text = lines[line - 1] if line - 1 < len(lines) else ""
                start = text.find(child.content, cursor)
                cursor = start + len(child.content) if start >= 0 else cursor
                match = INLINE_PATTERN.match(child.content)
                if match:
                    col = max(text.rfind(child.markup, 0, max(start, 0)), 0) + 1
                    found.append(InlineExpr(len(found), match.group(2).strip(),
                                            (match.group(1) or "").strip(), line, col))
    return found


def _check_fence_closed(token: Token, lines: list[str], path: str) -> None:
    """A fence that runs to the end of the file without its closing line is an error at
    the line it opens (Markdown would silently swallow the rest of the page as code)."""
    start, end = token.map
    closing = lines[end - 1].strip() if end - 1 > start and end - 1 < len(lines) else ""
    fence = token.markup
    if end >= len(lines) and not (closing.startswith(fence) and set(closing) <= {fence[0]}):
        raise SourceError(path, f"code block opened here with {fence} is never closed: add a line with {fence} "
                                "after its code", start + 1)


def _unchanged_front(previous: Page | None, token: Token, rel: str) -> FrontMatter | None:
    """The front matter of ``previous`` when its text and place match ``token``'s."""
    if previous is None or previous.rel_path != rel or not previous.tokens:
        return None
    before = previous.tokens[0]
    same = before.type == "front_matter" and before.content == token.content and before.map == token.map
    return previous.front if same else None


@lru_cache(maxsize=1)
def _reading_parser():
    """One parser for every page read (building one costs more than parsing a page)."""
    return make_parser()


#: A UTF-8 byte order mark, which some editors write at the start of a file.
BOM = "\ufeff"


def read_page(path: Path, root: Path, previous: Page | None = None) -> Page:
    """Parse one explainer. Raises :class:`SourceError` naming the file, line and field.
    ``previous``, the page as the file was parsed before, lends its validated front matter
    when the front matter's text, lines and path are unchanged."""
    resolved = path.resolve()
    rel = resolved.relative_to(root).as_posix() if resolved.is_relative_to(root) else str(path)
    slug = path.stem
    if not SLUG_PATTERN.match(slug):
        raise SourceError(rel, f"file name: expected a slug of lower-case letters, digits and hyphens, found {slug!r}")
    if slug in SITE_PAGE_SLUGS:
        raise SourceError(rel, f"file name: {slug!r} is taken by the site's own {slug}.html; rename the file "
                          f"(for example {slug}-explained.md)")
    text = path.read_text(encoding="utf-8").removeprefix(BOM)  # a byte order mark before the front matter
    tokens = _reading_parser().parse(text)
    if not tokens or tokens[0].type != "front_matter":
        raise SourceError(rel, "expected YAML front matter between '---' lines at the top (title, summary)", 1)
    front = _unchanged_front(previous, tokens[0], rel) or parse_front_matter(tokens[0].content, rel,
                                                                             tokens[0].map[0] + 2)
    lines = text.splitlines()
    return Page(slug=slug, path=resolved, rel_path=rel, text=text, front=front, tokens=tokens,
                blocks=_code_blocks(tokens, lines, rel), inline=_inline_exprs(tokens, lines),
                claims=find_claims(tokens),
                math_errors=tuple(formula_errors(tokens)), malformed_claims=tuple(malformed_claims(tokens)),
                unparsed_syntax=tuple(unparsed_syntax(tokens)))


def _code_blocks(tokens: list[Token], lines: list[str], rel: str) -> list[CodeBlock]:
    """The page's fenced blocks; every bad fence of the page is reported at once (the
    first error raised, the others in its ``also``)."""
    blocks, errors = [], []
    for n, token in enumerate((t for t in tokens if t.type == "fence"), start=1):
        try:
            _check_fence_closed(token, lines, rel)
            language, options = parse_block_options(token.info, rel, token.map[0] + 1)
        except SourceError as error:
            errors.append(error)
            continue
        blocks.append(CodeBlock(n=n, language=language, source=token.content, line=token.map[0] + 2, options=options))
    if errors:
        raise SourceError(errors[0].path, errors[0].message, errors[0].line, also=tuple(errors[1:]))
    return blocks


def read_pages(source: Path, root: Path) -> tuple[list[Page], list[SourceError]]:
    """Read every ``*.md`` in ``source``; return the pages and the errors, each naming its file."""
    pages, errors = [], []
    for name in names_ending(source, ".md"):
        try:
            pages.append(read_page(source / name, root))
        except SourceError as error:
            errors.extend(error.each())
    return pages, errors
