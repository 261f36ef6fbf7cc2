"""Stage 6a: the prose of one explainer as HTML. markdown-it renders the page's tokens
with the site's own rules: each fenced block becomes its cell (highlighted input and
captured outputs), each inline value its printed text, each annotated number a mark that
links to the output line behind it, each checked claim a marked span, each citation a
link, each formula its MathML, each callout an accessible box, each prose table its scroll
box, and figure and table references "Figure N", "Table N". Plain data in (a parsed page, its execution, its
marks), a string out."""

from __future__ import annotations

from html import escape

from sitebuild.checks.annotations import Annotation, PageMarks
from sitebuild.checks.figures import PROSE_TABLE, figure_labels, figure_numbers, table_labels, table_numbers
from sitebuild.execution.executed import ExecutedPage
from sitebuild.render.cells import cell_html
from sitebuild.render.highlight import HighlightMemo, highlight_code
from sitebuild.source.markdown import ANCHOR_CLASS, CALLOUT_KINDS, callout_title, make_parser
from sitebuild.source.math import MathError, to_mathml
from sitebuild.source.read import Page
from sitebuild.source.references import Reference, references_section, render_citation, short_citation
from sitebuild.source.tokens import inline_children

SEARCH_TEXT_LIMIT = 20000


def _render_fence(self, tokens, idx, options, env):
    block = env["blocks_by_line"].get(tokens[idx].map[0] + 2)
    if block is None:
        return self.fence(tokens, idx, options, env)
    return cell_html(block, env["executed"].blocks.get(block.n) if env["executed"] else None, env["slug"], env["title"],
                     env.get("figure_numbers"), env.get("highlight", highlight_code), env.get("table_numbers"))


def _notes(env, token) -> dict:
    """What this render adds to an inline child (see :func:`_prepare_inline`): {} for most."""
    return env.get("notes", {}).get(id(token), {})


def _render_code_inline(self, tokens, idx, options, env):
    token = tokens[idx]
    value = env["inline_values"].get(_notes(env, token).get("inline_index"))
    if value is None:
        return self.code_inline(tokens, idx, options, env)
    return f'<span class="inline-value">{escape(value)}</span>'


def _render_link_open(self, tokens, idx, options, env):
    token = tokens[idx]
    href = str(token.attrs.get("href", ""))
    empty = idx + 1 < len(tokens) and tokens[idx + 1].type == "link_close"
    for kind, labels in (("Figure", env.get("figure_labels", {})), ("Table", env.get("table_labels", {}))):
        number = labels.get(href[1:]) if href.startswith("#") else None
        if number is not None and empty:
            return f'<a class="xref" href="{escape(href)}">{kind} {number}'  # [](#fig-x): "Figure 3"
    if "://" not in href and not href.startswith("#"):
        target, sep, fragment = href.partition("#")
        if target.endswith(".md"):  # the link to a page's source, rendered as the page's HTML
            html_href = target.rsplit("/", 1)[-1][:-3] + ".html" + sep + fragment
            tokens = [*tokens[:idx], token.copy(attrs={**token.attrs, "href": html_href}), *tokens[idx + 1:]]
    return self.renderToken(tokens, idx, options, env)


def _render_text(self, tokens, idx, options, env):
    token = tokens[idx]
    marks = _notes(env, token).get("annotations")
    if not marks:
        return escape(token.content)
    out, cursor = [], 0
    for offset, note in marks:
        out.append(escape(token.content[cursor:offset]))
        text = escape(note.text)
        attributes = _mark_attributes(note)
        if note.status == "verified" and note.anchor:
            out.append(f'<a class="q q-verified" href="#{escape(note.anchor)}"{attributes}>{text}</a>')
        else:
            out.append(f'<span class="q q-{escape(note.status)}"{attributes}>{text}</span>')
        cursor = offset + len(note.text)
    out.append(escape(token.content[cursor:]))
    return "".join(out)


def _mark_attributes(note: Annotation) -> str:
    """The id, note (the popover's text) and tooltip of a mark, as HTML attributes."""
    parts = [f' id="{escape(note.id)}"' if note.id else ""]
    parts.append(f' data-note="{escape(note.note)}"' if note.note else "")
    parts.append(f' title="{escape(note.title)}"' if note.title else "")
    return "".join(parts)


def _render_span_open(self, tokens, idx, options, env):
    """A checked claim's words: plain text in a span with a subtle mark and its note; a
    claim with no verdict (a page not checked) renders as a plain span."""
    token = tokens[idx]
    if "check" not in token.attrs:
        return self.renderToken(tokens, idx, options, env)
    claim = _notes(env, token).get("claim")
    if claim is None:
        return '<span class="claim">'
    return (f'<span class="claim claim-{escape(claim.status)}" id="{escape(claim.id)}" tabindex="0" '
            f'data-note="{escape(claim.note)}">')


def inline_value_places(page: Page) -> dict[tuple[int, int], int]:
    """(inline token index, child index) of each inline ``{python} expr`` -> its index."""
    places: dict[tuple[int, int], int] = {}
    inline_iter = iter(page.inline)
    pending = next(inline_iter, None)
    for line, token_index, child_index, child in inline_children(page.tokens):
        at_pending = pending is not None and pending.line == line and pending.expr in child.content
        if child.type == "code_inline" and at_pending:
            places[(token_index, child_index)] = pending.index
            pending = next(inline_iter, None)
    return places


def _prepare_inline(page: Page, marks: PageMarks) -> dict[int, dict]:
    """What the render adds to the inline tokens' children, by the child's ``id``: the index
    of an inline value, the annotated numbers of a text, the claim of a span. The tokens
    themselves are left as they are."""
    places = inline_value_places(page)
    notes: dict[int, dict] = {}
    for token_index, token in enumerate(page.tokens):
        if token.type != "inline" or not token.map:
            continue
        for child_index, child in enumerate(token.children or []):
            if (token_index, child_index) in places:
                notes[id(child)] = {"inline_index": places[(token_index, child_index)]}
            elif child.type == "text":
                placed = _placed_marks(child.content, marks.get((token_index, child_index), []))
                if placed:
                    notes[id(child)] = {"annotations": placed}
            elif child.type == "span_open":
                claims = [note for _, note in marks.get((token_index, child_index), []) if note.kind == "claim"]
                if claims:
                    notes[id(child)] = {"claim": claims[0]}
    return notes


def _placed_marks(content: str, marks: list[tuple[int, Annotation]]) -> list[tuple[int, Annotation]]:
    """The marks whose text stands at their offset, in order and without overlaps."""
    placed, end = [], 0
    for offset, note in sorted(marks, key=lambda item: item[0]):
        if offset >= end and content[offset:offset + len(note.text)] == note.text:
            placed.append((offset, note))
            end = offset + len(note.text)
    return placed


def _formula_html(latex: str, display: bool) -> str:
    """A formula's MathML; one that cannot be rendered (the checks report it at its line)
    shows its LaTeX as code."""
    try:
        return to_mathml(latex, display)
    except MathError:
        return f'<code class="math-error">{escape(latex.strip())}</code>'


def _render_math_inline(self, tokens, idx, options, env):
    return _formula_html(tokens[idx].content, display=tokens[idx].type == "math_inline_double")


def _render_math_block(self, tokens, idx, options, env):
    return f'<div class="math-display">{_formula_html(tokens[idx].content, display=True)}</div>\n'


def _callout_renderer(kind: str):
    """The render rule of ``:::{kind}`` callouts: a box with the role of a note, its kind
    (and title) announced and shown first."""
    word = CALLOUT_KINDS[kind]

    def render(self, tokens, idx, options, env):
        token = tokens[idx]
        if token.nesting != 1:
            return "</div>\n"
        title = callout_title(token.info)
        heading = f"{word}: {title}" if title else word
        return (f'<div class="callout callout-{kind}" role="note" aria-label="{escape(heading)}">'
                f'<p class="callout-title">{escape(heading)}</p>\n')
    return render


def _render_table_open(self, tokens, idx, options, env):
    box = '<div class="table-scroll prose-table">' + self.renderToken(tokens, idx, options, env)
    return '<figure class="prose-table-figure">' + box if tokens[idx].meta.get("captioned") else box


def _render_table_close(self, tokens, idx, options, env):
    return self.renderToken(tokens, idx, options, env) + "</div>\n"


def _render_paragraph_open(self, tokens, idx, options, env):
    """A table's ``Table: ...`` caption is its figcaption, "Table N." first."""
    line = tokens[idx].meta.get("table_caption")
    if line is None:
        return self.renderToken(tokens, idx, options, env)
    number = (env.get("table_numbers") or {}).get((PROSE_TABLE, line))
    prefix = f'<span class="table-number">Table {number}.</span> ' if number else ""
    return f"<figcaption>{prefix}"


def _render_paragraph_close(self, tokens, idx, options, env):
    if idx >= 2 and tokens[idx - 2].meta.get("table_caption") is not None:
        return "</figcaption></figure>\n"
    return self.renderToken(tokens, idx, options, env)


def _render_citation(self, tokens, idx, options, env):
    return render_citation(tokens[idx], env.get("bibliography", {}))


def make_markdown():
    """The shared parser with the site's render rules (cells, inline values, links,
    numbers, citations)."""
    md = make_parser()
    rules = md.add_render_rule
    rules("citation", _render_citation)
    rules("fence", _render_fence)
    rules("code_inline", _render_code_inline)
    rules("link_open", _render_link_open)
    rules("text", _render_text)
    rules("span_open", _render_span_open)
    for name in ("math_inline", "math_inline_double"):
        rules(name, _render_math_inline)
    for name in ("math_block", "math_block_label", "amsmath"):
        rules(name, _render_math_block)
    for kind in CALLOUT_KINDS:
        rules(f"container_{kind}_open", _callout_renderer(kind))
        rules(f"container_{kind}_close", _callout_renderer(kind))
    rules("table_open", _render_table_open)
    rules("table_close", _render_table_close)
    rules("paragraph_open", _render_paragraph_open)
    rules("paragraph_close", _render_paragraph_close)
    return md


def prose_html(md, page: Page, executed: ExecutedPage | None, marks: PageMarks,
               bibliography: dict[str, Reference] | None = None, highlights: HighlightMemo | None = None) -> str:
    """The body of an explainer: prose, with each fenced block's cell where it stands (its
    code highlighted through ``highlights`` when given), each annotated number marked,
    figures numbered, citations linked (and the entries cited only in running text listed
    at the end)."""
    env = {
        "notes": _prepare_inline(page, marks),
        "figure_numbers": figure_numbers(page, executed), "figure_labels": figure_labels(page, executed),
        "table_numbers": table_numbers(page, executed), "table_labels": table_labels(page, executed),
        "bibliography": bibliography or {},
        "blocks_by_line": {b.line: b for b in page.blocks},
        "executed": executed, "slug": page.slug, "title": page.front.title,
        "inline_values": {v.index: v.text for v in (executed.inline if executed else []) if not v.error},
        "highlight": highlights.code if highlights is not None else highlight_code,
    }
    body = [t for t in page.tokens if t.type != "front_matter"]
    return md.renderer.render(body, md.options, env) + references_section(page.tokens, bibliography or {})


def toc_entries(page: Page) -> list[dict]:
    """The h2/h3 headings of a page: text, anchor and level."""
    entries = []
    for i, token in enumerate(page.tokens):
        if token.type == "heading_open" and token.tag in ("h2", "h3") and "id" in token.attrs:
            text = "".join(c.content for c in page.tokens[i + 1].children or [] if c.type in ("text", "code_inline"))
            entries.append({"id": token.attrs["id"], "text": text.strip(), "level": int(token.tag[1])})
    return entries


def _child_words(child, index: int | None, values: dict[int, str], bibliography: dict[str, Reference]) -> str:
    """What a reader reads of one inline child ("" for markup, formulas and permalinks)."""
    if child.type == "text":
        return child.content
    if child.type in ("softbreak", "hardbreak"):
        return " "
    if child.type == "code_inline":  # an inline value without its value (a page not run) says nothing
        return values.get(index, "") if index is not None else child.content
    if child.type == "citation":
        return short_citation(child.meta.get("keys", [child.meta.get("key", "")]), bibliography)
    if child.type == "image":
        return child.content
    return ""


def _inline_words(token, token_index: int, places: dict, values: dict[int, str],
                  bibliography: dict[str, Reference]) -> str:
    words, hidden = [], 0
    for child_index, child in enumerate(token.children or []):
        if child.type == "link_open" and child.attrGet("class") == ANCHOR_CLASS:
            hidden += 1
        elif child.type == "link_close" and hidden:
            hidden -= 1
        elif not hidden:
            words.append(_child_words(child, places.get((token_index, child_index)), values, bibliography))
    return " ".join("".join(words).split())


def search_fields(page: Page, executed: ExecutedPage | None = None,
                  bibliography: dict[str, Reference] | None = None) -> dict[str, str]:
    """The rendered words of a page for the search index: ``headings`` (h2-h6) and
    ``text`` (the rest of the prose; inline values as their values, claims as their
    words, citations as "Author Year", no formulas, code or outputs), at most
    :data:`SEARCH_TEXT_LIMIT` characters of text."""
    places = inline_value_places(page)
    values = {v.index: v.text for v in (executed.inline if executed else []) if not v.error}
    headings, text = [], []
    for token_index, token in enumerate(page.tokens):
        if token.type != "inline" or not token.map:
            continue
        words = _inline_words(token, token_index, places, values, bibliography or {})
        in_heading = token_index and page.tokens[token_index - 1].type == "heading_open"
        (headings if in_heading else text).append(words)
    return {"headings": " · ".join(h for h in headings if h), "text": " ".join(text)[:SEARCH_TEXT_LIMIT]}


def plain_text(page: Page) -> str:
    """The prose of a page as plain text (its rendered words, see :func:`search_fields`)."""
    return search_fields(page)["text"]
