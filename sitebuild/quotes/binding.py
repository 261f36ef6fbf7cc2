"""Binding each prose number to the one output number it quotes, and the verdict.

Each prose number (see :mod:`sitebuild.quotes.extraction` for what counts as prose, and
:mod:`sitebuild.quotes.numbers` for the number grammar and precision rules) gets a
status, in this order of precedence:

EXEMPT
    under a heading named in the page's ``exempt_sections`` or inside ``[...]{.nocheck}``.
VERIFIED / STALE (bound)
    the lock binds the number to an output number: found again by its label (the words
    that say what it measures), else by the shape of its line, else by its position. If
    that output still backs the prose number it is VERIFIED, otherwise STALE, with the
    old and the new value. A comparison ("p < 0.001", "at least 80%") is backed only by
    an output that satisfies it, so it goes stale when the output no longer does.
UNVERIFIED (contradicted)
    the output whose label best matches the sentence says something else ("The test
    accuracy is 0.75" beside ``test accuracy: 0.70``): no literal of the code and no
    other output showing 0.75 (``train accuracy: 0.75``) excuses it.
INPUT
    exactly equal to a numeric literal of the page's code (``2,000`` and ``2_000``).
VERIFIED / AMBIGUOUS (new)
    the output numbers that back it, grouped by line: one line, it is VERIFIED; several,
    the line whose label shares the most words with the sentence around the number
    wins (words next to the number count three times); lines still tied leave the
    number AMBIGUOUS, with the candidates and how to settle it.
UNVERIFIED
    nothing backs it.

Row numbers and index columns of tables never back a prose number.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Iterable, Sequence

from markdown_it.token import Token

from sitebuild.quotes.extraction import DEFAULT_EXEMPT_SECTIONS, ProseNumber, extract_prose_numbers
from sitebuild.quotes.lock import LockEntry
from sitebuild.quotes.numbers import (
    Number,
    code_literals,
    equals_literal,
    format_like,
    matches_output,
    value_in_units_of,
)
from sitebuild.quotes.outputs import OutputNumber, OutputRef, OutputText, as_fraction, fraction_range, index_outputs
from sitebuild.quotes.results import PageQuotes, QuoteResult, Status, unverified_message
from sitebuild.quotes.words import word_list

#: A word next to the number, shared with an output's label, counts this many times more
#: than a word elsewhere in the sentence.
NEAR_WEIGHT = 3
NEAR_BEFORE, NEAR_AFTER = 4, 3
CLAUSE_BREAK = re.compile(r"[,;:()\[\]—–]|\s-\s|[0-9]")
LISTED_CANDIDATES = 4
COMPARABLE_RATIO = 2
SHOWN_LINE = 70


def check_page(
    md_text: str,
    md_path: str,
    outputs: Sequence[OutputText],
    code_blocks: Sequence[str],
    lock_entries: Iterable[LockEntry],
    exempt_sections: Iterable[str] = DEFAULT_EXEMPT_SECTIONS,
    tokens: Sequence[Token] | None = None,
) -> PageQuotes:
    """Check every number of one page's prose against its outputs and code.

    Parameters
    ----------
    md_text, md_path
        The page source and its path as it should appear in messages and in the lock
        (e.g. ``explainers/x.md``).
    outputs
        The page's captured text outputs, in page order.
    code_blocks
        The sources of the page's code blocks (their literals make numbers INPUT).
    lock_entries
        The current lock (entries of other pages are ignored).
    exempt_sections
        Headings whose sections are exempt.
    tokens
        The page's tokens from the shared parser, if already parsed.

    Returns
    -------
    PageQuotes
        One result per prose number, in page order, and the page's new lock entries."""
    prose = extract_prose_numbers(md_text, tokens, exempt_sections)
    index = OutputIndex(outputs)
    literals = [literal for source in code_blocks for literal in code_literals(source)]
    bindings = _Bindings([entry for entry in lock_entries if entry.page == md_path])
    occurrences: dict[tuple[str, str], int] = {}
    results: list[QuoteResult] = []
    for item in prose:
        key = (item.text, item.context)
        occurrence = occurrences.get(key, 0)
        occurrences[key] = occurrence + 1
        results.append(_classify(md_path, item, occurrence, index, literals, bindings))
    entries = [result.entry for result in results if result.entry is not None]
    return PageQuotes(path=md_path, results=results, new_lock_entries=entries)


# -- the sentence's words --------------------------------------------------------------------

@dataclass(frozen=True)
class SentenceWords:
    """The words of a prose number's sentence: all of them, those next to it (in its
    clause, a few on either side), and the words of its clause before and after it, in
    order."""

    near: frozenset[str]
    all: frozenset[str]
    before: tuple[str, ...] = ()
    after: tuple[str, ...] = ()

    @classmethod
    def of(cls, item: ProseNumber) -> "SentenceWords":
        """The words around ``item``."""
        before = word_list(CLAUSE_BREAK.split(item.before)[-1] if item.before else "")
        after = word_list(CLAUSE_BREAK.split(item.after)[0] if item.after else "")
        near = before[-NEAR_BEFORE:] + after[:NEAR_AFTER]
        return cls(frozenset(near), frozenset(word_list(item.before + " " + item.after)), tuple(before), tuple(after))

    def names(self, label: frozenset[str]) -> bool:
        """True when ``label`` is the words right before the number ("the test accuracy
        is 0.75") or right after it ("5 significant gaps"), stop words aside."""
        size = len(label)
        return bool(label) and (set(self.before[-size:]) == label or set(self.after[:size]) == label)

    def score(self, candidate: OutputNumber) -> int:
        """How well ``candidate``'s label and line match the sentence."""
        label = candidate.label_words
        return NEAR_WEIGHT * len(self.near & label) + len(self.all & (label | candidate.line_words))


# -- the outputs ---------------------------------------------------------------------------------

class OutputIndex:
    """The numbers of a page's outputs that can back a prose number (row numbers and
    index cells left out), searchable by value, label, shape and position."""

    def __init__(self, outputs: Sequence[OutputText]):
        self.numbers = [number for number in index_outputs(outputs) if not number.is_index]
        self._by_position = {o.ref: o for o in self.numbers}

    def backing(self, prose: Number) -> list[OutputNumber]:
        """Every output number that backs ``prose``, in page order; for a comparison, the
        outputs that state the same comparison if there are any (``p < 0.0005`` printed
        as such), else the values that satisfy it."""
        if not prose.comparator:
            low, high = fraction_range(prose)
            return [o for o in self.numbers if low <= as_fraction(o.number) <= high and matches_output(prose, o.number)]
        backing = [o for o in self.numbers if matches_output(prose, o.number)]
        return [o for o in backing if o.number.comparator] or backing

    def resolve(self, entry: LockEntry) -> tuple[OutputNumber | None, str]:
        """The output number a lock entry is bound to and how it was found: the one with
        its label (on a line of the same shape or at the recorded position if several),
        else on a line of the same shape, else at the recorded position when that one has
        no other label; (None, "") when none exists any more."""
        recorded = OutputRef(entry.block, entry.output, entry.output_line, entry.index)
        if entry.label:
            labelled = [o for o in self.numbers if o.label == entry.label]
            if labelled:
                return _preferred(labelled, entry, recorded), "label"
        same_shape = [o for o in self.numbers if o.shape == entry.shape and o.ref.index == entry.index]
        if same_shape:
            return _preferred(same_shape, entry, recorded), "shape"
        at_position = self._by_position.get(recorded)
        if at_position is not None and (not entry.label or not at_position.label):
            return at_position, "position"
        return None, ""

    def label_match(self, prose: Number, words: SentenceWords) -> tuple[OutputNumber, int] | None:
        """The comparable output number the sentence names: its label is the words right
        next to the prose number ("The test accuracy is 0.75" names ``test accuracy:
        0.70``), with its score, when one such number stands out."""
        scored = [(words.score(o), o) for o in self.numbers if _comparable(prose, o.number)
                  and words.names(o.label_words)]
        if not scored:
            return None
        best = max(score for score, _ in scored)
        top = [o for score, o in scored if score == best]
        return (top[0], best) if len(_distinct_values(top)) == 1 else None


def _distinct_values(candidates: list[OutputNumber]) -> list[OutputNumber]:
    """The first candidate of each distinct (line text, label, value shown)."""
    seen: dict[tuple[str, str, str], OutputNumber] = {}
    for candidate in candidates:
        seen.setdefault((candidate.line_text.strip(), candidate.label, candidate.number.text), candidate)
    return list(seen.values())


def _preferred(candidates: list[OutputNumber], entry: LockEntry, recorded: OutputRef) -> OutputNumber:
    """The candidate at the recorded position, else the first on a line of the same shape
    at the same place in its line, else of the same shape, else at the same place."""
    for candidate in candidates:
        if candidate.ref == recorded:
            return candidate
    same_place = [c for c in candidates if c.ref.index == entry.index]
    same_shape = [c for c in candidates if c.shape == entry.shape]
    return ([c for c in same_shape if c in same_place] or same_shape or same_place or candidates)[0]


def _comparable(prose: Number, output: Number) -> bool:
    """A count is compared with counts, a measure with measures, of the same sign and
    within a factor of :data:`COMPARABLE_RATIO` (a sentence that names an output it
    misquotes is off by a little, not by an order of magnitude)."""
    if _is_count(prose) != _is_count(output):
        return False
    quoted, shown = as_fraction(prose), as_fraction(output)
    if quoted == 0 or shown == 0:
        return quoted == shown == 0
    ratio = shown / quoted
    return 1 / COMPARABLE_RATIO <= ratio <= COMPARABLE_RATIO


def _is_count(number: Number) -> bool:
    return number.is_integer_shown and not number.percent and not number.multiplier


def _distinct_lines(candidates: list[OutputNumber]) -> list[OutputNumber]:
    """The first candidate of each distinct (line text, label): a line printed twice is
    one line."""
    seen: dict[tuple[str, str], OutputNumber] = {}
    for candidate in candidates:
        seen.setdefault((candidate.line_text.strip(), candidate.label), candidate)
    return list(seen.values())


# -- the lock ------------------------------------------------------------------------------

class _Bindings:
    """The page's lock entries, each claimed by at most one prose number."""

    def __init__(self, entries: list[LockEntry]):
        self._exact: dict[tuple[str, str, int], LockEntry] = {}
        self._by_quote: dict[str, list[LockEntry]] = {}
        for entry in entries:
            self._exact.setdefault((entry.quote, entry.context, entry.occurrence), entry)
            self._by_quote.setdefault(entry.quote, []).append(entry)

    def claim(self, item: ProseNumber, occurrence: int) -> LockEntry | None:
        """Take the entry bound to this prose number: same text, sentence shape and
        occurrence; else the only remaining entry with the same text."""
        chosen = self._exact.get((item.text, item.context, occurrence))
        same_text = self._by_quote.get(item.text, [])
        if chosen is None and len(same_text) == 1:
            chosen = same_text[0]
        if chosen is not None:
            self._exact.pop((chosen.quote, chosen.context, chosen.occurrence), None)
            self._by_quote[chosen.quote] = [e for e in same_text if e is not chosen]
        return chosen


# -- the verdict -------------------------------------------------------------------------------

def _classify(path: str, item: ProseNumber, occurrence: int, outputs: OutputIndex, literals: list[Number],
              bindings: _Bindings) -> QuoteResult:
    base = QuoteResult(
        path=path, status=Status.UNVERIFIED, text=item.text, line=item.line, col=item.col,
        token_index=item.token_index, child_index=item.child_index, offset=item.number.start,
        span=item.span, exact=item.exact, where=item.where,
    )
    if item.exempt_reason:
        return replace(base, status=Status.EXEMPT, message=item.exempt_reason)
    words = SentenceWords.of(item)
    backing = outputs.backing(item.number)
    contradiction = _contradiction(item, words, backing, outputs)
    if contradiction is None and any(equals_literal(item.number, literal) for literal in literals):
        return replace(base, status=Status.INPUT, message="a literal of the page's code")
    entry = bindings.claim(item, occurrence)
    if entry is not None:
        return _check_binding(base, item, occurrence, entry, outputs)
    if contradiction is not None:
        return contradiction_result(base, contradiction)
    return _bind_new(base, item, occurrence, words, backing)


def _contradiction(item: ProseNumber, words: SentenceWords, backing: list[OutputNumber],
                   outputs: OutputIndex) -> OutputNumber | None:
    """The output number the sentence names by its label, when it says something else
    and no output that backs the prose number matches the sentence as well."""
    match = outputs.label_match(item.number, words)
    if match is None:
        return None
    labelled, score = match
    if any(o.ref == labelled.ref for o in backing):
        return None
    if any(words.score(o) >= score for o in backing):
        return None
    return labelled


def contradiction_result(base: QuoteResult, output: OutputNumber) -> QuoteResult:
    """An UNVERIFIED verdict naming the output that contradicts the prose number."""
    message = (f'"{base.text}" contradicts the output its sentence names: {_describe(output)}; correct the '
               "number, or mark it [...]{.nocheck} if it is not that result")
    return replace(base, status=Status.UNVERIFIED, value=output.number.text, output_ref=output.ref,
                   output_line=output.line_text, label=output.label, message=message)


def _bind_new(base: QuoteResult, item: ProseNumber, occurrence: int, words: SentenceWords,
              backing: list[OutputNumber]) -> QuoteResult:
    lines = _distinct_lines(backing)
    if not lines:
        return replace(base, status=Status.UNVERIFIED, message=unverified_message(item.text))
    if len(lines) == 1:
        return _verified(base, item, occurrence, lines[0])
    scores = [(words.score(o), o) for o in lines]
    best = max(score for score, _ in scores)
    top = [o for score, o in scores if score == best]
    if len(top) == 1:
        return _verified(base, item, occurrence, top[0])
    return _ambiguous(base, top)


def _ambiguous(base: QuoteResult, candidates: list[OutputNumber]) -> QuoteResult:
    shown = [_describe(o) for o in candidates[:LISTED_CANDIDATES]]
    more = f" and {len(candidates) - LISTED_CANDIDATES} more" if len(candidates) > LISTED_CANDIDATES else ""
    message = (f"{len(candidates)} output lines show it and the sentence names none of them: "
               f"{', '.join(shown)}{more}; use in the sentence a word of the line it quotes, print that "
               "value with a label the sentence uses, or write it inline as `{python} expr`")
    return replace(base, status=Status.AMBIGUOUS, message=message,
                   candidates=tuple(o.line_text.strip() for o in candidates))


def _describe(output: OutputNumber) -> str:
    """An output number as a message names it: its line (shortened), block and label."""
    line = " ".join(output.line_text.split())
    line = line if len(line) <= SHOWN_LINE else line[:SHOWN_LINE - 1] + "…"
    label = f', labelled "{output.label}"' if output.label else ""
    return f'{output.number.text} in "{line}" (block {output.ref.block}{label})'


def _check_binding(base: QuoteResult, item: ProseNumber, occurrence: int, entry: LockEntry,
                   outputs: OutputIndex) -> QuoteResult:
    target, found_by = outputs.resolve(entry)
    if target is not None and matches_output(item.number, target.number):
        return _verified(base, item, occurrence, target)
    if found_by != "label" or target is None:
        # Bound by shape or position only (a lock of version 1), or its line is gone (a table
        # gained columns): look again, as for a new number, before calling it stale.
        words = SentenceWords.of(item)
        backing = outputs.backing(item.number)
        if _contradiction(item, words, backing, outputs) is None:
            rebound = _bind_new(base, item, occurrence, words, backing)
            if rebound.status is Status.VERIFIED:
                return rebound
    if target is None:
        where = f"block {entry.block}, output {entry.output}, line {entry.output_line}"
        message = (f"the output line it was verified against ({where}: {entry.shape!r}) is gone; "
                   "print the value again or mark the number [...]{.nocheck}")
        return replace(base, status=Status.STALE, old=entry.value, message=message, entry=entry)
    new = rewritten_value(item.number, target.number)
    fixed = _entry_for(base.path, item, occurrence, target, quote=new) if new else None
    if item.number.comparator and not target.number.comparator:
        message = (f"the output it quotes now says {target.number.text}, which no longer satisfies it "
                   "(rewrite it by hand)")
    else:
        message = f"the output it quotes now says {new or target.number.text}" + ("" if new else " (rewrite it by "
                                                                                                 "hand)")
    return replace(
        base, status=Status.STALE, value=target.number.text, old=entry.value, new=new, output_ref=target.ref,
        output_line=target.line_text, message=message, entry=entry, fixed_entry=fixed, label=target.label,
    )


def rewritten_value(prose: Number, output: Number) -> str:
    """The new text for a stale prose number, in its own style; empty when the prose is
    a comparison and the output is a plain value (no honest automatic rewrite)."""
    if prose.comparator and not output.comparator:
        return ""
    return format_like(prose, value_in_units_of(prose, output))


def _verified(base: QuoteResult, item: ProseNumber, occurrence: int, backing: OutputNumber) -> QuoteResult:
    return replace(
        base, status=Status.VERIFIED, value=backing.number.text, output_ref=backing.ref,
        output_line=backing.line_text, label=backing.label, message=f"from the output of block {backing.ref.block}",
        entry=_entry_for(base.path, item, occurrence, backing),
    )


def _entry_for(path: str, item: ProseNumber, occurrence: int, backing: OutputNumber,
               quote: str | None = None) -> LockEntry:
    return LockEntry(
        page=path, quote=quote if quote is not None else item.text, context=item.context,
        occurrence=occurrence, line=item.line, block=backing.ref.block, output=backing.ref.output,
        output_line=backing.ref.line, index=backing.ref.index, shape=backing.shape, value=backing.number.text,
        label=backing.label,
    )
