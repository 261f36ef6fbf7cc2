"""The words that tie a number to what it measures: a prose sentence's words and an
output line's label, tokenised the same way so they can be compared.

A word is a run of letters (``p_value`` and ``p-value`` are the words "p" and "value"),
lower-cased, with a plural "s" dropped (``gaps`` -> ``gap``) and an abbreviation of
:data:`ABBREVIATIONS` written out (``disadv.`` -> ``disadvantaged``); stop words, which say
nothing about what a number measures, are left out."""

from __future__ import annotations

import re

WORD = re.compile(r"[^\W\d_]+")
STOP_WORDS = frozenset("""
a an and are as at be been being but by can could did do does for from had has have
how if in into is it its it's itself may might more most much must no nor not of on one
or our out over per so some such than that the their them then there these they this
those to too under up very was we were what when where which while who whom why will
with would you your about above after again against all also am any because before
below between both down during each few further here just less many now off once only
other own same should since still through until upon us vs versus via whereas whether
yet i e g eg ie etc its
""".split())


#: Abbreviations of output labels, read as the words they shorten (``rows (disadv.)``).
ABBREVIATIONS = {"disadv": "disadvantaged", "adv": "advantaged"}


def word_list(text: str) -> list[str]:
    """The content words of ``text`` in order, each once.

    Examples
    --------
    >>> word_list("The test accuracy is 0.75; test_accuracy gaps")
    ['test', 'accuracy', 'gap']
    """
    seen: dict[str, None] = {}
    for raw in WORD.findall(text.casefold()):
        word = _stem(ABBREVIATIONS.get(raw, raw))
        if word not in STOP_WORDS and raw not in STOP_WORDS:
            seen.setdefault(word, None)
    return list(seen)


def _stem(word: str) -> str:
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word
