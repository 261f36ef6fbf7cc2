"""Cross-page consistency of the explainers: one audit's headline gap has one value, and a value
from another sample or model variant is never quoted without saying which.

The quote checker (sitebuild.quotes) ties each number to an output of its own page; it cannot
see that two pages measure "the same" gap on different samples. This test can. For each
audit's headline rows it knows every value the site computes (the benchmark's test split, from
results/, and the other samples or variants some pages use) and reads the prose of every page:

1. a number that is the value of one metric may not be quoted in a sentence that names only
   other metrics before it (the deployed COMPAS score's TPR gap on the test split is its FPR
   gap on all rows: "+0.203");
2. a value from a non-default sample or variant (all 6,172 COMPAS rows; German Credit's core
   features) is quoted only where its paragraph names that sample or variant.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]
EXPLAINERS = ROOT / "explainers"

#: Words that attribute a number to a metric; the nearest such words before a number, in its
#: sentence, name the metric the prose says the number is.
METRIC_WORDS = {
    "false_positive_rate_diff": r"false[- ]positive|FPR|not charged again|did not reoffend|who were not",
    "equal_opportunity_diff": r"true[- ]positive|TPR|equal[- ]opportunity|charged again,|who did reoffend|reoffenders",
    "predictive_parity_diff": r"predictive[- ]parity|precision",
    "demographic_parity_diff": r"flag[- ]rate|flags?\b|flagged|demographic[- ]parity|denial[- ]rate|denied|rated bad",
}
#: Words that name each compared attribute; a number counts as a quantity's only in a sentence
#: (or its paragraph) that names the quantity's attribute.
ATTRIBUTE_WORDS = {"race": r"\brace\b|Black|white|African", "age": r"\bage\b|young|older|under[- ]25",
                   "sex": r"\bsex\b|\bwomen\b|\bmen\b|gender"}
#: A number right after these words is a p-value or an interval's end, not a gap.
NOT_A_GAP = re.compile(r"(\bp\b|p-value of|Holm p|interval(?: from| of)?|from|to|MDG of|MDG)\s*[=(]?\s*$", re.I)
#: A paragraph naming these words speaks of the sample or variant.
ALL_COMPAS_ROWS = r"6,172|every defendant|all rows|all the rows|whole data"
CORE_FEATURES = r"core[- ]features|unawareness|without age|no age"


@dataclass(frozen=True)
class Quantity:
    """One gap the site computes: an audit's metric under one model, variant and sample."""

    audit: str
    model: str
    attribute: str
    metric: str
    value: float
    sample: str = "test split"          # the default: the benchmark's split, seed 42
    qualifier: str | None = None        # words a paragraph must hold to quote a non-default value

    def texts(self) -> set[str]:
        """The ways prose writes the value: "+0.203", "0.203", "-0.078" ..."""
        plain = f"{abs(self.value):.3f}"
        return {plain, f"{'+' if self.value >= 0 else '-'}{plain}", f"{'+' if self.value >= 0 else '−'}{plain}"}


def compas_score_all_rows() -> list[Quantity]:
    """The deployed score's race gaps on every defendant, as the Disaggregated Evaluation page measures them."""
    from faircode import metrics
    from faircode.benchmark import load_audit

    audit = load_audit("compas")
    score = audit.manifest.deployed_scores[0]
    flagged = (audit.df[score.column] >= score.at_least).astype(int).to_numpy()
    race = audit.masks["race"].to_numpy()
    truth = audit.y.to_numpy()
    return [Quantity("compas", "compas_score", "race", name, getattr(metrics, name)(truth, flagged, race).value,
                     "all rows", ALL_COMPAS_ROWS)
            for name in METRIC_WORDS]


def results_rows() -> pd.DataFrame:
    return pd.read_csv(ROOT / "results" / "results_fairness.csv")


def headline_quantities(results: pd.DataFrame) -> list[Quantity]:
    """Every headline value of the site, from the results file and the samples other pages use."""
    rows = results[(results.seed == 42) & (results.strategy.isin(["baseline", "unawareness_proxy_removal"]))]
    chosen = [("compas", "compas_score", "baseline", "race", None),
              ("compas", "logistic_regression", "baseline", "race", None),
              ("german_credit_lending", "logistic_regression", "baseline", "age", None),
              ("german_credit_lending", "logistic_regression", "unawareness_proxy_removal", "age", CORE_FEATURES)]
    quantities = []
    for audit, model, strategy, attribute, qualifier in chosen:
        mine = rows[(rows.audit == audit) & (rows.model == model) & (rows.strategy == strategy)
                    & (rows.protected_attribute == attribute) & rows.metric.isin(list(METRIC_WORDS))]
        sample = "test split" if qualifier is None else "core features"
        quantities += [Quantity(audit, model, attribute, r.metric, r.value, sample, qualifier)
                       for r in mine.itertuples()]
    return quantities


@lru_cache(maxsize=1)
def site_quantities() -> tuple[Quantity, ...]:
    return tuple(headline_quantities(results_rows()) + compas_score_all_rows())


# --- reading the prose ---------------------------------------------------------------------

FENCE = re.compile(r"^```.*?^```[ \t]*$", re.S | re.M)
FRONT_MATTER = re.compile(r"\A---\n(.*?)\n---\n", re.S)
NUMBER = re.compile(r"(?<![\w.])[+\-−]?\d\.\d{3}(?![\d])")


def page_audits(text: str) -> set[str]:
    match = FRONT_MATTER.match(text)
    found = re.search(r"^audits:\s*\[(.*?)\]", match.group(1), re.M) if match else None
    return {a.strip() for a in found.group(1).split(",")} if found else set()


def paragraphs(text: str) -> list[tuple[int, str]]:
    """The prose paragraphs of a page (front matter, code and reading lists left out), with their first line."""
    body = FRONT_MATTER.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    body = FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), body)
    body = re.split(r"^## (?:Further Reading|References)\s*$", body, flags=re.M)[0]
    found, start, lines = [], 1, []
    for number, line in enumerate(body.split("\n"), 1):
        if lines and re.match(r"\s*(?:[-*]|\d+\.)\s", line):      # a list item is a paragraph of its own
            found.append((start, " ".join(lines)))
            lines = []
        if line.strip():
            if not lines:
                start = number
            lines.append(line)
        elif lines:
            found.append((start, " ".join(lines)))
            lines = []
    if lines:
        found.append((start, " ".join(lines)))
    return found


def named_metrics(sentence: str, position: int) -> list[str]:
    """The metrics whose words come before ``position`` in the sentence, the nearest first."""
    last = {}
    for metric, words in METRIC_WORDS.items():
        for match in re.finditer(words, sentence[:position], re.I):
            last[metric] = match.start()
    return sorted(last, key=last.get, reverse=True)


def nearest_attribute(text: str, position: int) -> str | None:
    """The attribute whose words come last before ``position``."""
    last = {}
    for attribute, words in ATTRIBUTE_WORDS.items():
        for match in re.finditer(words, text[:position], re.I):
            last[attribute] = match.start()
    return max(last, key=last.get) if last else None


def problems(text: str, page: str, quantities: tuple[Quantity, ...]) -> list[str]:
    """Every quoted number of ``text`` that contradicts the site's values (see the module docstring)."""
    audits = page_audits(text)
    mine = [q for q in quantities if q.audit in audits]
    found = []
    for line, paragraph in paragraphs(text):
        offset = 0
        for sentence in re.split(r"(?<=[.;:])\s+(?=[A-Z(\[])", paragraph):
            offset = paragraph.index(sentence, offset)
            for match in NUMBER.finditer(sentence):
                number = match.group(0)
                if NOT_A_GAP.search(sentence[:match.start()][-20:]):
                    continue
                about = nearest_attribute(paragraph, offset + match.start())
                owners = [q for q in mine if number in q.texts() and q.attribute == about]
                if not owners:
                    continue
                said = named_metrics(sentence, match.start())
                if said and all(q.metric not in said for q in owners):
                    names = ", ".join(f"{q.model} {q.metric} ({q.sample})" for q in owners)
                    found.append(f"{page}:{line}: {number} is quoted as {said[0]} but it is the value of {names}: "
                                 f"{sentence[:120]!r}")
                    continue
                meant = [q for q in owners if not said or q.metric in said]
                if all(q.qualifier and not re.search(q.qualifier, paragraph, re.I) for q in meant):
                    samples = ", ".join(sorted({q.sample for q in meant}))
                    found.append(f"{page}:{line}: {number} is the {samples} value and its paragraph does not say so: "
                                 f"{sentence[:120]!r}")
    return found


# --- the tests -----------------------------------------------------------------------------

PAGES = sorted(EXPLAINERS.glob("*.md"))


@pytest.mark.parametrize("page", PAGES, ids=[p.stem for p in PAGES])
def test_each_headline_value_is_quoted_as_its_own_metric_and_sample(page):
    text = page.read_text(encoding="utf-8")
    assert problems(text, page.relative_to(ROOT).as_posix(), site_quantities()) == []


FAKE_PAGE = """---
title: x
audits: [compas, german_credit_lending]
---

On the test split the deployed score's false positive rate gap by race is {fpr} and its equal
opportunity gap {tpr}.

The score flagged Black defendants who were not charged again more often: a gap of {fpr_all}.
"""


def test_the_checker_catches_a_value_quoted_as_the_wrong_metric_or_without_its_sample():
    quantities = site_quantities()

    def value(metric, sample):
        return next(q for q in quantities
                    if (q.audit, q.model, q.metric, q.sample) == ("compas", "compas_score", metric, sample)).value

    good = FAKE_PAGE.format(fpr=f"{value('false_positive_rate_diff', 'test split'):+.3f}",
                            tpr=f"{value('equal_opportunity_diff', 'test split'):+.3f}",
                            fpr_all=f"{value('false_positive_rate_diff', 'test split'):+.3f}")
    assert problems(good, "fake.md", quantities) == []
    # the TPR gap of the test split written as the FPR gap, the mistake the issue found: as an FPR
    # gap the number is only the all-rows value, which the paragraph does not name
    swapped = FAKE_PAGE.format(fpr=f"{value('equal_opportunity_diff', 'test split'):+.3f}",
                               tpr=f"{value('equal_opportunity_diff', 'test split'):+.3f}",
                               fpr_all=f"{value('false_positive_rate_diff', 'test split'):+.3f}")
    found = problems(swapped, "fake.md", quantities)
    assert len(found) == 1 and found[0].startswith("fake.md:6:")
    # a number that is no false positive rate of any sample, quoted as one
    wrong_metric = FAKE_PAGE.format(fpr=f"{value('predictive_parity_diff', 'test split'):+.3f}",
                                    tpr=f"{value('equal_opportunity_diff', 'test split'):+.3f}",
                                    fpr_all=f"{value('false_positive_rate_diff', 'test split'):+.3f}")
    assert any("is quoted as false_positive_rate_diff" in p for p in problems(wrong_metric, "fake.md", quantities))
    # the all-rows FPR gap, in a paragraph that never says it is measured on all rows
    unlabelled = FAKE_PAGE.format(fpr=f"{value('false_positive_rate_diff', 'test split'):+.3f}",
                                  tpr=f"{value('equal_opportunity_diff', 'test split'):+.3f}",
                                  fpr_all=f"{value('false_positive_rate_diff', 'all rows'):+.3f}")
    found = problems(unlabelled, "fake.md", quantities)
    assert len(found) == 1 and "all rows value" in found[0] and found[0].startswith("fake.md:9:")
    assert problems(unlabelled.replace("more often:", "more often, on all 6,172 rows:"), "fake.md", quantities) == []


def test_the_checker_knows_which_german_credit_variant_a_value_belongs_to():
    quantities = site_quantities()
    core = next(q for q in quantities if q.audit == "german_credit_lending" and q.sample == "core features"
                and q.metric == "demographic_parity_diff")
    page = "---\naudits: [german_credit_lending]\n---\n\nYoung applicants are rated bad more often: {}.\n"
    assert len(problems(page.format(f"a gap of {core.value:+.3f}"), "g.md", quantities)) == 1
    assert problems(page.format(f"with the core features, a gap of {core.value:+.3f}"), "g.md", quantities) == []


def test_the_registry_holds_distinct_values_for_the_samples_the_issue_confused():
    quantities = site_quantities()
    by_key = {(q.model, q.metric, q.sample): q.value for q in quantities if q.audit == "compas"}
    fpr_test = by_key["compas_score", "false_positive_rate_diff", "test split"]
    fpr_all = by_key["compas_score", "false_positive_rate_diff", "all rows"]
    tpr_test = by_key["compas_score", "equal_opportunity_diff", "test split"]
    assert round(fpr_test, 3) != round(fpr_all, 3)
    assert round(tpr_test, 3) == round(fpr_all, 3)     # the coincidence that made "+0.203" two gaps
