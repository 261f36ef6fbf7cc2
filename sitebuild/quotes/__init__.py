"""The quoted-number and claim checker: every number of the prose bound to the one output
line it quotes (or an input, or exempt), every claim in words evaluated against the
page's results, the lock that remembers the bindings, and ``check --fix``.

Layers, each a module with plain data in and out:

- :mod:`~sitebuild.quotes.numbers`: the grammar of numbers, precision, rewriting in style;
- :mod:`~sitebuild.quotes.words`: the words that tie a number to what it measures;
- :mod:`~sitebuild.quotes.extraction`: the prose numbers of a page, at their exact spans;
- :mod:`~sitebuild.quotes.outputs`: the output numbers with their labels, indexes left out;
- :mod:`~sitebuild.quotes.meaning`: the weighted words of a prose number and the choice of
  its output by those words alone;
- :mod:`~sitebuild.quotes.binding`: binding (one row per sentence, the lock's memory) and
  the verdict per number;
- :mod:`~sitebuild.quotes.claims`: ``[words]{check="expression"}`` and their verdicts;
- :mod:`~sitebuild.quotes.results`: verdicts, counts and the lines ``check`` prints;
- :mod:`~sitebuild.quotes.lock`: ``quotes.lock.json``;
- :mod:`~sitebuild.quotes.fix`: ``--fix``, exact spans only;
- :mod:`~sitebuild.quotes.marks`: the marks the renderer draws;
- :mod:`~sitebuild.quotes.stage`: the stage the build runs over all its pages.

The names below are the public face; they load on first use, so that modules the
checker itself needs (the reader finds claims with :mod:`~sitebuild.quotes.claims`) can
import a layer without loading the whole stage.
"""

from __future__ import annotations

import importlib
from typing import Any

_PUBLIC = {
    "QuoteRun": "stage", "check_quotes": "stage", "save_quote_lock": "stage", "fix_quotes": "stage",
    "page_marks": "stage", "not_rewritten_line": "stage", "lock_path_for": "stage",
    "check_page": "binding", "PageQuotes": "results", "QuoteResult": "results", "QuoteSummary": "results",
    "Status": "results", "format_problem": "results", "format_summary": "results",
    "OutputText": "outputs", "Claim": "claims", "ClaimResult": "claims", "find_claims": "claims",
    "LockEntry": "lock",
}
#: The quote lock's file name, in the source folder: here, not in :mod:`~sitebuild.quotes.lock`,
#: so that the build's fast path fingerprints the lock without loading the lock's module.
LOCK_FILENAME = "quotes.lock.json"

__all__ = sorted([*_PUBLIC, "LOCK_FILENAME"])


def __getattr__(name: str) -> Any:
    module = _PUBLIC.get(name)
    if module is None:
        raise AttributeError(f"module 'sitebuild.quotes' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"sitebuild.quotes.{module}"), name)
    globals()[name] = value
    return value
