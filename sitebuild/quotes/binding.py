"""Binding each prose number to the one output number it quotes, then the verdict.

The binding is by meaning alone (:mod:`sitebuild.quotes.meaning`): the words of the
number's sentence, clause, headings, prose table and parent list item against each
output number's label. Its value takes no part in the choice. Only once one output is
chosen are the values compared. Each prose number gets a status:

EXEMPT
    under a heading named in the page's ``exempt_sections`` or inside ``[...]{.nocheck}``.
VERIFIED
    the chosen output shows it at the precision the prose uses; a bound ("p < 0.001",
    "at least 80%") is verified by an output that satisfies it.
STALE
    the chosen output shows another value, or a value of the other sign when the
    sentence states no direction in words (:data:`DIRECTION_WORDS`), and the choice is
    sure (:func:`_sure`: the label's word next to the output is the word next to the
    prose number, or all its label's words are next to it; or the lock remembers the
    binding). ``--fix`` rewrites it.
UNVERIFIED
    nothing its words name is printed, the chosen output prints fewer decimals than
    the prose quotes ("0.7500" beside a printed ``0.75``), or it says something else
    but the words name it only weakly.
INPUT
    exactly a numeric literal of the page's code (``2,000`` and ``2_000``), when its words
    name no output strongly (:data:`STRONG_SCORE`) and the lock never bound it.
AMBIGUOUS
    several outputs are named as well (within :data:`~sitebuild.quotes.meaning.MARGIN`),
    listed as candidates.

One sentence, one row: numbers of one sentence that fall in one table bind to one row,
unless their words name different rows. The lock (:mod:`sitebuild.quotes.lock`) is
memory, not evidence: it is keyed by the sentence's words; it settles a tie between
candidates in favour of the label it remembers, and never overrides a choice the words
make. A number whose chosen output has other labels than the lock remembers is
``rebound``. Row numbers and index columns of tables never back a prose number.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Iterable, Sequence

from markdown_it.token import Token
from msgspec import Struct
from msgspec.structs import replace

from sitebuild.quotes.extraction import DEFAULT_EXEMPT_SECTIONS, ProseNumber, extract_prose_numbers
from sitebuild.quotes.lock import LockEntry
from sitebuild.quotes.meaning import MARGIN, MINIMUM_SCORE, NEAR_WEIGHT, Choice, Chooser, ProseWords, choose_from
from sitebuild.quotes.numbers import (
    Number,
    code_literals,
    equals_literal,
    format_like,
    matches_output,
    value_in_units_of,
)
from sitebuild.quotes.outputs import OutputNumber, OutputText, index_outputs
from sitebuild.quotes.results import PageQuotes, QuoteResult, Status

#: Words that state a direction, so that a prose number may drop the sign its output
#: prints ("women are approved 0.05 less often" beside a gap of -0.05).
DIRECTION_WORDS = frozenset("""
lower less fewer below under beneath falls fall fell falling drops drop dropped decline declines declined
decrease decreases decreased shrinks shrink shrank smaller behind short shortfall down reduces reduced
reduce negative minus deficit loses lost worse weaker
""".split())
DIRECTION_WORD = re.compile(r"[^\W\d_]+")
#: A choice that scores at least this much (a word right next to the number is in the
#: label) is never excused by a literal of the code.
STRONG_SCORE = 6.0
LISTED_CANDIDATES = 4
SHOWN_LINE = 70
FEWER_DECIMALS = ('"{text}" quotes more decimals than its output prints: {line}; quote it at the precision '
                  "printed, or print it with more decimals")
NOTHING_NAMED = ('"{text}" names no output of this page: no output label uses the words of its sentence; print it '
                 "with a label the sentence uses, bind it with `{{python}} expr`, or mark it [...]{{.nocheck}} "
                 "if it is not a result")
WEAKLY_NAMED = ('"{text}" is not what the output its words name best says, and they name it only weakly: {line}; '
                "use in the sentence a word of the line it quotes, or print the value with a label the sentence uses")
REBOUND = ('"{text}" is bound to a line with other labels than the lock remembers (was "{old}", now "{new}"); '
           "check that the sentence quotes {line}, then build to record it")


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
    chooser = _chooser(tuple(outputs))
    literals = [literal for source in code_blocks for literal in code_literals(source)]
    bindings = _Bindings([entry for entry in lock_entries if entry.page == md_path])
    occurrences: dict[str, int] = {}
    keyed = []
    for item in prose:
        occurrence = occurrences.get(item.context, 0)
        occurrences[item.context] = occurrence + 1
        keyed.append((item, occurrence))
    choices = _choices(keyed, chooser, bindings)
    results = [_classify(md_path, item, occurrence, choices[position], literals)
               for position, (item, occurrence) in enumerate(keyed)]
    entries = [result.entry for result in results if result.entry is not None]
    return PageQuotes(path=md_path, results=results, new_lock_entries=entries)


@lru_cache(maxsize=64)
def _chooser(outputs: tuple[OutputText, ...]) -> Chooser:
    """The chooser among the numbers of ``outputs`` (never changed once made). Kept for the
    outputs last seen: a prose edit leaves a page's outputs as they were, so the preview's
    rebuilds index a page's outputs once, not on every save (a large audit page's tables
    take most of its check)."""
    return Chooser([number for number in index_outputs(outputs) if not number.is_index])


# -- the choice ----------------------------------------------------------------------------

class _Bound(Struct, frozen=True):
    """A prose number's choice, its candidates ranked by score, and the lock entry of its
    sentence, if any."""

    choice: Choice
    ranked: tuple[tuple[float, OutputNumber], ...] = ()
    entry: LockEntry | None = None
    words: ProseWords | None = None


def _choices(keyed: list[tuple[ProseNumber, int]], chooser: Chooser, bindings: "_Bindings") -> list[_Bound]:
    """The choice of every prose number: by words, then one row per sentence, then the
    lock's memory for a tie."""
    bound: list[_Bound] = []
    all_words = _sentence_words(keyed)
    for (item, occurrence), words in zip(keyed, all_words):
        if item.exempt_reason or words is None:
            bound.append(_Bound(Choice(None)))
            continue
        ranked = tuple(chooser.ranked(item.number, words))
        bound.append(_Bound(choose_from(list(ranked)), ranked, bindings.claim(item, occurrence), words))
    bound = _one_row_per_sentence(keyed, bound)
    return [_remembered(b) for b in bound]


def _sentence_words(keyed: list[tuple[ProseNumber, int]]) -> list[ProseWords | None]:
    """The words of each prose number (None when exempt); the words next to a later number
    of its sentence are that number's alone (:meth:`ProseWords.without`), while those of
    an earlier one stay: a subject said once serves the numbers after it ("the p-value of
    the large sample is 0.001, and of the small one 0.21")."""
    words = [None if item.exempt_reason else ProseWords.of(item) for item, _ in keyed]
    near_by_sentence: dict[tuple[int, int], list[tuple[int, frozenset[str]]]] = {}
    for position, ((item, _), own) in enumerate(zip(keyed, words)):
        if own is not None:
            near_by_sentence.setdefault(item.sentence_key, []).append((position, own.near()))
    result: list[ProseWords | None] = []
    for position, ((item, _), own) in enumerate(zip(keyed, words)):
        if own is None or item.sentence_key == (-1, -1):
            result.append(own)
            continue
        others = frozenset().union(*(near for at, near in near_by_sentence[item.sentence_key] if at > position))
        result.append(own.without(others))
    return result


def _row_of(output: OutputNumber) -> tuple[int, int, int]:
    return (output.ref.block, output.ref.output, output.ref.line)


def _one_row_per_sentence(keyed: list[tuple[ProseNumber, int]], bound: list[_Bound]) -> list[_Bound]:
    """Numbers of one sentence that its words place in one output row (a table's row, a
    printed line) bind to that row: the row whose candidates score best for the
    sentence's numbers together, by :data:`~sitebuild.quotes.meaning.MARGIN`. A number
    whose own words name another row better, by the margin, keeps its own choice."""
    sentences: dict[tuple[int, int], list[int]] = {}
    for position, (item, _) in enumerate(keyed):
        if not item.exempt_reason:
            sentences.setdefault(item.sentence_key, []).append(position)
    settled = list(bound)
    for positions in sentences.values():
        if len(positions) < 2:
            continue
        row = _sentence_row([bound[p] for p in positions])
        if row is None:
            continue
        taken: set = set()
        for position in sorted(positions, key=lambda p: (bound[p].choice.chosen is None, -bound[p].choice.score)):
            moved = _in_row(bound[position], row, taken)
            if moved.choice.chosen is not None:
                taken.add(moved.choice.chosen.ref)
            settled[position] = moved
    return settled


def _sentence_row(bounds: list[_Bound]) -> tuple[int, int, int] | None:
    """The row the numbers of one sentence name together, or None when no row stands out."""
    totals: dict[tuple[int, int, int], float] = {}
    for b in bounds:
        best_in_row: dict[tuple[int, int, int], float] = {}
        for score, candidate in b.ranked:
            if score >= MINIMUM_SCORE:
                row = _row_of(candidate)
                best_in_row[row] = max(best_in_row.get(row, score), score)
        for row, score in best_in_row.items():
            totals[row] = totals.get(row, 0.0) + score
    ordered = sorted(totals.items(), key=lambda pair: -pair[1])
    if not ordered or (len(ordered) > 1 and ordered[0][1] - ordered[1][1] < MARGIN):
        return None
    return ordered[0][0]


def _in_row(b: _Bound, row: tuple[int, int, int], taken: set) -> _Bound:
    """``b`` chosen within ``row`` when its words allow it (see :func:`_one_row_per_sentence`)
    and no other number of the sentence took that output (``taken``)."""
    in_row = [(score, o) for score, o in b.ranked if _row_of(o) == row and o.ref not in taken]
    if not in_row:
        return b
    choice = choose_from(in_row)
    if choice.chosen is None:
        return b
    own = b.choice.chosen
    if own is not None and _row_of(own) != row and b.choice.score - choice.score >= MARGIN:
        return b
    return replace(b, choice=choice)


def _remembered(b: _Bound) -> _Bound:
    """A tie settled by the label the lock remembers for this sentence, when exactly one
    tied candidate has it."""
    if not b.choice.ambiguous or b.entry is None or not b.entry.label:
        return b
    same = [o for o in b.choice.tied if o.label == b.entry.label]
    if len(same) == 1:
        return replace(b, choice=Choice(same[0], b.choice.score))
    return b


# -- the lock ------------------------------------------------------------------------------

class _Bindings:
    """The page's lock entries by the sentence they were made for: its words (numbers
    masked) and the number's place among the page's numbers in such sentences."""

    def __init__(self, entries: list[LockEntry]):
        self._by_key: dict[tuple[str, int], LockEntry] = {}
        for entry in entries:
            self._by_key.setdefault((entry.context, entry.occurrence), entry)

    def claim(self, item: ProseNumber, occurrence: int) -> LockEntry | None:
        """The entry of this number's sentence and place, if any: never another sentence's."""
        return self._by_key.get((item.context, occurrence))


# -- the verdict ---------------------------------------------------------------------------

def _classify(path: str, item: ProseNumber, occurrence: int, bound: _Bound, literals: list[Number]) -> QuoteResult:
    base = QuoteResult(
        path=path, status=Status.UNVERIFIED, text=item.text, line=item.line, col=item.col,
        token_index=item.token_index, child_index=item.child_index, offset=item.number.start,
        span=item.span, exact=item.exact, where=item.where, in_claim=item.in_claim,
    )
    if item.exempt_reason:
        return replace(base, status=Status.EXEMPT, message=item.exempt_reason)
    literal = any(equals_literal(item.number, value) for value in literals)
    chosen = bound.choice.chosen
    if chosen is None:
        if literal:
            return replace(base, status=Status.INPUT, message="a literal of the page's code")
        if bound.choice.ambiguous:
            return _ambiguous(base, list(bound.choice.tied))
        return replace(base, status=Status.UNVERIFIED, message=NOTHING_NAMED.format(text=item.text))
    result = _compared(base, item, occurrence, chosen)
    if result.status is Status.STALE:
        result = replace(result, old=bound.entry.value if bound.entry is not None else "")
    if result.status is Status.STALE and not _sure(bound, chosen) and bound.entry is None:
        result = replace(result, status=Status.UNVERIFIED, new="", fixed_entry=None, entry=None,
                         message=WEAKLY_NAMED.format(text=item.text, line=_describe(chosen)))
    if result.status is not Status.VERIFIED and literal and bound.entry is None and bound.choice.score < STRONG_SCORE:
        return replace(base, status=Status.INPUT, message="a literal of the page's code")
    if bound.entry is not None and bound.entry.label != chosen.label:
        result = replace(result, rebound=bound.entry.label,
                         message=REBOUND.format(text=item.text, old=bound.entry.label, new=chosen.label,
                                                line=_describe(chosen)) if result.status is Status.VERIFIED
                         else result.message)
    return result


def _sure(bound: _Bound, chosen: OutputNumber) -> bool:
    """True when the sentence names ``chosen`` for certain: the label's word next to it is
    the word next to the prose number, or every word of its label is next to it."""
    words = bound.words
    if words is None:
        return False
    if chosen.adjacent and chosen.adjacent in words.adjacent():
        return True
    return bool(chosen.label_words) and all(words.weights.get(w, 0.0) >= NEAR_WEIGHT for w in chosen.label_words)


def _compared(base: QuoteResult, item: ProseNumber, occurrence: int, output: OutputNumber) -> QuoteResult:
    """The verdict once ``output`` is chosen: verified, stale or (more decimals than printed,
    which agree with it as far as it prints) unverified."""
    prose = item.number
    if not prose.comparator and _fraction_places(prose) > _fraction_places(output.number) \
            and _agrees_as_printed(prose, output.number):
        return replace(base, status=Status.UNVERIFIED, value=output.number.text, output_ref=output.ref,
                       output_line=output.line_text, label=output.label,
                       message=FEWER_DECIMALS.format(text=item.text, line=_describe(output)))
    if _backs(prose, output.number, _states_direction(item)):
        return _verified(base, item, occurrence, output)
    return _stale(base, item, occurrence, output)


def _agrees_as_printed(prose: Number, output: Number) -> bool:
    """True when ``prose``, rounded to the decimals ``output`` prints, reads as ``output``
    ("0.7500" and ``0.75``): it may be right, but nothing printed says so."""
    return matches_output(output, prose)


def _fraction_places(number: Number) -> int:
    """The decimals a number shows, as a plain fraction (``5.9%`` shows 3)."""
    return number.places + (2 if number.percent else 0)


def _backs(prose: Number, output: Number, direction: bool) -> bool:
    """True when ``output`` backs ``prose``: equal at the prose's precision with the same
    sign (or either sign, as magnitudes, when the sentence states a direction)."""
    if matches_output(prose, output):
        return True
    if not direction or prose.comparator or prose.negative == output.negative:
        return False
    return matches_output(replace(prose, negative=False, value=abs(prose.value)),
                          replace(output, negative=False, value=abs(output.value)))


def _states_direction(item: ProseNumber) -> bool:
    """True when the number's sentence states a direction in words."""
    text = (item.before + " " + item.after).casefold()
    return any(word in DIRECTION_WORDS for word in DIRECTION_WORD.findall(text))


def _ambiguous(base: QuoteResult, candidates: list[OutputNumber]) -> QuoteResult:
    shown = [_describe(o) for o in candidates[:LISTED_CANDIDATES]]
    more = f" and {len(candidates) - LISTED_CANDIDATES} more" if len(candidates) > LISTED_CANDIDATES else ""
    message = (f"{len(candidates)} outputs are named as well by its words: "
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


def _stale(base: QuoteResult, item: ProseNumber, occurrence: int, target: OutputNumber) -> QuoteResult:
    new = rewritten_value(item.number, target.number)
    fixed = _entry_for(base.path, item, occurrence, target, quote=new) if new else None
    if item.number.comparator and not target.number.comparator:
        message = f"the output it quotes now says {target.number.text}, which no longer satisfies it"
    else:
        message = f"the output it quotes now says {new or target.number.text}"
    message += f": {_describe(target)}" + ("" if new else " (rewrite it by hand)")
    return replace(
        base, status=Status.STALE, value=target.number.text, new=new, output_ref=target.ref,
        output_line=target.line_text, message=message, entry=_entry_for(base.path, item, occurrence, target),
        fixed_entry=fixed, label=target.label,
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
