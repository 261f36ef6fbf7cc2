"""What a prose number means and what an output number measures, as weighted words, and
the choice of the one output a prose number quotes, by those words alone.

The value of a number takes no part in the choice: two outputs that print the same
figure are told apart by their labels, and an output that prints the prose's figure
under another label is never chosen for it.

A prose number's words, each with a weight (a word takes its highest weight):

====================================================  ======================
the words of its clause next to it (a few each side;  :data:`NEAR_WEIGHT`
those after it only when no words precede it or
they do not run into the clause's next number)
the header of its column and the label of its row,    :data:`NEAR_WEIGHT`
in a table of the prose
the other words of its sentence (less those next to    :data:`SENTENCE_WEIGHT`
a later number of it), its parent list item
the headings above it                                 :data:`AROUND_WEIGHT`
====================================================  ======================

An output number's words are its label (see :mod:`sitebuild.quotes.outputs`: the words
printed before it on its line, its column header, its row's label cells, or for a bare
last expression the expression's source) and the other words of its line.

Its score for one prose number is the weight of every label word the prose uses, less
:data:`UNUSED_LABEL_PENALTY` for every label word it does not use (a row's text cells
aside: a sentence names a row by some of its cells, seldom all; but the index cells of an
HTML table name the row as a whole, and one the sentence leaves out costs
:data:`UNUSED_INDEX_PENALTY`), plus
:data:`LINE_SHARE` of the weight of the line's other words the prose uses, plus
:data:`ADJACENT_BONUS` when the label's word right next to the output number is the
word right next to the prose number ("over 200 seeds" and ``200 seeds: ...``), or both
are the same end of a range written out ("from -0.07 to 0.24" and ``-0.07 to +0.24``),
less :data:`RANGE_END_PENALTY` when the output number is an end of a range and the prose
number is not ("38 young rows" and ``38 (27 to 47)``: the 38, not an end),
plus :data:`KEY_WEIGHT` for every other count of its sentence that its line prints too
("with 200 rows, 38% of the samples" and ``200 rows: p < 0.05 in 38%``): a count names a
line as a row label does. The prose number's own value never counts. The best
candidate is chosen when it scores at least :data:`MINIMUM_SCORE` and beats every other
candidate (lines printed twice count once) by at least :data:`MARGIN`; otherwise the
number is ambiguous (or unbound when nothing scores).

Candidates are of the prose number's kind: a count (an integer without ``%`` or
``x``) is chosen among outputs printed as integers, any other number among outputs
printed with decimals, a percent or an exponent; a bound printed (``p < 0.05``) is a
candidate only for a bound of the prose.
"""

from __future__ import annotations

import re
from typing import Iterable, Sequence

from msgspec import Struct
from msgspec.structs import replace

from sitebuild.quotes.extraction import ProseNumber
from sitebuild.quotes.numbers import Number, find_numbers
from sitebuild.quotes.outputs import RANGE_ENDS, RANGE_HIGH, OutputNumber, count_key, range_end
from sitebuild.quotes.words import word_list

NEAR_WEIGHT = 3.0
ADJACENT_BONUS = 3.0
KEY_WEIGHT = 2.0
SENTENCE_WEIGHT = 1.0
AROUND_WEIGHT = 0.5
LINE_SHARE = 0.25
UNUSED_LABEL_PENALTY = 0.5
UNUSED_INDEX_PENALTY = 1.0
RANGE_END_PENALTY = 1.0
MINIMUM_SCORE = 1.0
MARGIN = 1.0
NEAR_BEFORE, NEAR_AFTER = 6, 3
#: The low end of a range before its high end ("-0.05 to "): the high end's words are
#: those before the low end ("an interval of -0.05 to -0.02").
RANGE_LOW_END = re.compile(r"[<>≤≥]?\s*[+\-−]?[0-9][0-9.,]*%?\s*(?:to|–|—)\s*$")
#: What ends a number's clause: punctuation, another number, and the words that join two
#: quoted numbers ("5.9% of women and 10.9% of men": "women" is the first one's).
CLAUSE_BREAK = re.compile(r"[,;:()\[\]—–]|\s-\s|[0-9]|\b(?:and|or|vs|versus|against|while|but|whereas)\b",
                          re.IGNORECASE)


class ProseWords(Struct, frozen=True):
    """The weighted words of one prose number (word -> weight), and its clause's words
    before and after it, in order."""

    weights: dict[str, float]
    before: tuple[str, ...] = ()
    after: tuple[str, ...] = ()
    range_end: str = ""
    keys: frozenset[str] = frozenset()
    touching: tuple[str, ...] = ()

    @classmethod
    def of(cls, item: ProseNumber, extra: str = "") -> "ProseWords":
        """The words of ``item``; ``extra`` is more text of its sentence that names it
        (the expression of an inline value beside it)."""
        weights: dict[str, float] = {}
        around = item.surroundings
        _add(weights, " ".join(around.headings), AROUND_WEIGHT)
        _add(weights, around.parent_item, SENTENCE_WEIGHT)
        _add(weights, item.before + " " + item.after + " " + extra, SENTENCE_WEIGHT)
        end = range_end(item.before, item.after)
        text_before = RANGE_LOW_END.sub("", item.before) if end == RANGE_HIGH else item.before
        before = _clause_before(text_before)
        after = word_list(CLAUSE_BREAK.split(item.after)[0] if item.after else "")
        near_after = [] if before and _leads_to_a_number(item.after) else after[:NEAR_AFTER]
        _add(weights, " ".join(before[-NEAR_BEFORE:] + near_after), NEAR_WEIGHT)
        _add(weights, around.column_header + " " + around.row_label, NEAR_WEIGHT)
        keys = frozenset(key for n in find_numbers(item.before + " " + item.after) if (key := count_key(n)))
        touching = _touching(reversed(RAW_WORD.findall(text_before)), before[-1:]) \
            + _touching(iter(RAW_WORD.findall(item.after)), after[:1])
        return cls(weights, tuple(before), tuple(after), end, keys, touching)

    def score(self, candidate: OutputNumber) -> float:
        """How well ``candidate``'s label and line match these words."""
        weights = self.weights
        score = 0.0
        for word in candidate.label_words:
            weight = weights.get(word, 0.0)
            score += weight if weight else -_unused_penalty(word, candidate)
        for word in candidate.line_words - candidate.label_words:
            score += LINE_SHARE * weights.get(word, 0.0)
        if candidate.adjacent and candidate.adjacent in self.adjacent():
            score += ADJACENT_BONUS
        elif candidate.adjacent in RANGE_ENDS and not self.range_end:
            score -= RANGE_END_PENALTY  # an end of a printed range, for a number the prose quotes alone
        return score + KEY_WEIGHT * len(self.keys & candidate.keys)

    def near(self) -> frozenset[str]:
        """The words of its clause next to it."""
        return frozenset(word for word, weight in self.weights.items() if weight >= NEAR_WEIGHT)

    def without(self, others: frozenset[str]) -> "ProseWords":
        """These words less ``others`` (the words next to the sentence's later numbers),
        except those next to this number too: "a raw p of 0.006, but a Holm p of 0.081"
        gives "Holm" to 0.081 alone."""
        near = self.near()
        kept = {word: weight for word, weight in self.weights.items() if word in near or word not in others}
        return replace(self, weights=kept)

    def adjacent(self) -> tuple[str, ...]:
        """The words right next to the number in its clause, before and after."""
        if self.range_end:
            return (self.range_end,)
        return self.touching

    def words(self) -> frozenset[str]:
        """Every word, whatever its weight."""
        return frozenset(self.weights)


def _unused_penalty(word: str, candidate: OutputNumber) -> float:
    """What a label word the prose does not use costs: nothing for a row's text cells, the
    most for its index cells, :data:`UNUSED_LABEL_PENALTY` for any other."""
    if word in candidate.index_words:
        return UNUSED_INDEX_PENALTY
    return 0.0 if word in candidate.row_words else UNUSED_LABEL_PENALTY


#: A word of the prose with what joins it to a number: letters, or a symbol.
RAW_WORD = re.compile(r"[^\W\d_]+|[:=]")
#: What may stand between a number and the word next to it, which still touches it
#: ("the gap of -0.05", "p = 0.006", "0.109 of women"); any other word breaks the touch
#: ("the rate with its 95% interval": "rate" does not touch 95%).
LINKING_WORDS = frozenset({"of", "is", "was", "are", "were", "at", "in", "for", "a", "an", "the", "=", ":"})
LINKS_ALLOWED = 2


def _touching(raw: Iterable[str], content: list[str]) -> tuple[str, ...]:
    """``content`` (the clause's content word next to the number, as a list of at most
    one) when it touches the number: only linking words stand between them in ``raw`` (the
    clause's raw words, from the number outwards)."""
    if not content:
        return ()
    for links, word in enumerate(raw):
        if _stem_like(word) == content[0]:
            return tuple(content)
        if word.casefold() not in LINKING_WORDS or links >= LINKS_ALLOWED:
            return ()
    return ()


def _stem_like(word: str) -> str:
    found = word_list(word)
    return found[0] if found else ""


#: A clause that ends with a comma, a colon or an opening bracket right before the number.
APPOSITION = re.compile(r"[^\W\d_][^0-9,;:()\[\]]*[,(:]\s*$")


def _clause_before(text: str) -> list[str]:
    """The words of the clause before a number; when the number stands alone after a comma
    or a bracket ("the balanced accuracy of the baseline, 0.729, drops"), those of the
    clause the comma closes."""
    pieces = CLAUSE_BREAK.split(text) if text else [""]
    words = word_list(pieces[-1])
    if not words and len(pieces) > 1:
        found = APPOSITION.search(text)
        if found is not None:
            return word_list(CLAUSE_BREAK.split(found.group().rstrip()[:-1])[-1])
    return words


def _leads_to_a_number(after: str) -> bool:
    """True when the clause after a number runs into another number ("the gap of -0.146
    has a raw p of 0.006"): its words are the next number's label, not this one's."""
    found = CLAUSE_BREAK.search(after)
    return found is not None and found.group()[:1].isdigit()


def _add(weights: dict[str, float], text: str, weight: float) -> None:
    for word in word_list(text):
        weights[word] = max(weights.get(word, 0.0), weight)


class Choice(Struct, frozen=True):
    """The outcome of the choice for one prose number: the chosen output (None when
    ambiguous or unbound), its score, and the tied candidates of an ambiguous one."""

    chosen: OutputNumber | None
    score: float = 0.0
    tied: tuple[OutputNumber, ...] = ()

    @property
    def ambiguous(self) -> bool:
        """True when several candidates score too close to tell them apart."""
        return self.chosen is None and bool(self.tied)


def is_count(number: Number) -> bool:
    """True for a number shown as a plain integer: no decimals, exponent, ``%`` or ``x``."""
    return number.is_integer_shown and not number.percent and not number.multiplier


def same_kind(prose: Number, output: Number) -> bool:
    """True when ``output`` is a candidate for ``prose``: counts for counts, measures for
    measures."""
    return is_count(prose) == is_count(output)


class Chooser:
    """The output numbers of one page, indexed by their words, to choose among."""

    def __init__(self, numbers: Sequence[OutputNumber]):
        self.numbers = list(numbers)
        self._by_word: dict[str, list[int]] = {}
        for position, number in enumerate(self.numbers):
            for word in number.label_words | number.line_words | number.keys:
                self._by_word.setdefault(word, []).append(position)

    def ranked(self, prose: Number, words: ProseWords) -> list[tuple[float, OutputNumber]]:
        """Every candidate of ``prose``'s kind that shares a word with it, best first, lines
        printed twice (same label, same text) once."""
        positions = sorted({p for word in (*words.weights, *words.keys) for p in self._by_word.get(word, ())})
        seen: set[tuple[str, str, int]] = set()
        scored = []
        for position in positions:
            candidate = self.numbers[position]
            if not candidate.label_words or not same_kind(prose, candidate.number) \
                    or (candidate.number.comparator and not prose.comparator):
                continue  # a bound printed ("p < 0.05") states no value a plain number could quote
            key = (candidate.label, " ".join(candidate.line_text.split()), candidate.ref.index)
            if key in seen:
                continue
            seen.add(key)
            scored.append((words.score(candidate), candidate))
        scored.sort(key=lambda pair: -pair[0])
        return scored

    def choose(self, prose: Number, words: ProseWords) -> Choice:
        """The output ``prose`` quotes, chosen by words alone (see the module docstring)."""
        return choose_from(self.ranked(prose, words))


def choose_from(ranked: list[tuple[float, OutputNumber]]) -> Choice:
    """The best of ``ranked`` (best first) when it scores at least :data:`MINIMUM_SCORE`
    and beats the others by :data:`MARGIN`; else the tied candidates (ambiguous) or none."""
    ranked = [(score, o) for score, o in ranked if score >= MINIMUM_SCORE]
    if not ranked:
        return Choice(None)
    best, chosen = ranked[0]
    tied = tuple(o for score, o in ranked if best - score < MARGIN)
    if len(tied) == 1:
        return Choice(chosen, best)
    return Choice(None, best, tied)
