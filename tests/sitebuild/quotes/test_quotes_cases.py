"""The cases of issue 11 on fixture pages run by real Jupyter kernels (the quotes_cases
fixture site): numbers bind to the labelled output line and not to a coincidence, a
table's index never backs a number (a literal that the output contradicts is in
test_quotes.py), bounds go stale when their output no longer satisfies them, multipliers and
captions are checked, ambiguity with and without a label, and checked claims that hold,
break and raise, on the site, in the report and in ``check``."""

from __future__ import annotations

import contextlib
import html as html_module
import importlib.util
import io
import json
import re
import shutil
from pathlib import Path

import pytest
from site_helpers import REPO, TEMPLATES, report_row

from sitebuild.quotes.results import STALE_FIX_HINT

FIXTURE = REPO / "tests" / "fixtures" / "quotes_cases"

STALE_ACCURACY = 'explainers/accuracy.md:14: "0.75" is stale: the output it quotes now says 0.70'
STALE_GAPS = 'explainers/gaps.md:21: "5" is stale: the output it quotes now says 7'
STALE_CAPTION = 'explainers/bounds.md:6: "0.83" is stale: the output it quotes now says 0.78'
BROKEN_CLAIM = ('explainers/claims.md:13: claim "is not significant" no longer holds: '
                "p >= 0.05 is False (p = 0.012)")
RAISING_CLAIM = ("explainers/claim-error.md:10: claim \"all of them\" could not be checked: "
                 "NameError: name 'group' is not defined in `len(group) == 2`")


def starts(lines: list[str], start: str) -> bool:
    """True when one of ``lines`` is ``start`` followed by the output line it names and the
    hint that ``--fix`` rewrites it."""
    return any(line.startswith(start + ": ") and line.endswith(STALE_FIX_HINT) for line in lines)


def load_cli(root: Path):
    """The repository's build.py as a module whose root is ``root``."""
    spec = importlib.util.spec_from_file_location("cases_cli", REPO / "build.py")
    cli = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cli)
    cli.ROOT = root
    return cli


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    """A copy of the fixture site with the repository's templates; the page whose claim
    raises waits outside until the last stage."""
    root = tmp_path_factory.mktemp("cases") / "site"
    shutil.copytree(FIXTURE, root)
    (root / "templates").symlink_to(TEMPLATES)
    shutil.move(root / "explainers" / "claim-error.md", root / "claim-error.md")
    return root


def page(root: Path, slug: str) -> str:
    return (root / "explainers" / f"{slug}.md").read_text()


@pytest.fixture(scope="module")
def history(root):
    cli = load_cli(root)
    seen: dict[str, dict] = {}

    def run(name: str, *args: str) -> None:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = cli.main([*args, "--jobs", "2"])
        lock = root / "explainers" / "quotes.lock.json"
        seen[name] = {"code": code, "out": out.getvalue(), "err": err.getvalue().splitlines(),
                      "lock": json.loads(lock.read_text()) if lock.exists() else {},
                      "pages": {p.stem: p.read_text() for p in (root / "explainers").glob("*.md")}}
        for slug in ("claims", "accuracy", "bounds"):
            built = root / "site" / f"{slug}.html"
            if built.exists():
                seen[name][slug] = built.read_text()
        if (root / "site" / "report.html").exists():
            seen[name]["report"] = (root / "site" / "report.html").read_text()

    run("first build", "build")
    scores = json.loads((root / "data" / "scores.json").read_text())
    scores.update(test=0.70, p=0.012, p_small=0.003, coverage=0.78)  # train accuracy stays 0.75
    (root / "data" / "scores.json").write_text(json.dumps(scores))
    gaps = (root / "data" / "gaps.csv").read_text().replace("c,0.01,0", "c,0.01,1").replace("e,0.02,0", "e,0.02,1")
    (root / "data" / "gaps.csv").write_text(gaps)
    accuracy = root / "explainers" / "accuracy.md"  # its code changes too: its script is out of date
    accuracy.write_text(accuracy.read_text().replace('open("data/scores.json"))', 'open("data/scores.json"))  # both'))
    run("check after the data changed", "check")
    run("check --fix", "check", "--fix")
    run("check --strict", "check", "--strict")
    shutil.move(root / "claim-error.md", root / "explainers" / "claim-error.md")
    run("check with a raising claim", "check")
    return seen


def entry(stage: dict, page_slug: str, quote: str) -> dict:
    return next(e for e in stage["lock"]["quotes"] if e["page"] == f"explainers/{page_slug}.md" and e["quote"] == quote)


def test_the_first_build_passes_and_binds_each_number_to_its_labelled_line(history):
    first = history["first build"]
    assert first["code"] == 0, first["err"]
    assert entry(first, "accuracy", "0.75")["label"] == "test accuracy"  # not train accuracy: 0.75
    assert entry(first, "gaps", "5")["label"] == "significant gap"  # not the 5 of the table's index
    assert entry(first, "bounds", "< 0.001")["value"] == "0.0004"
    assert {entry(first, "bounds", q)["label"] for q in ("80%", "3x", "0.83")} == {"coverage", "ratio"}


def test_one_value_on_two_lines_is_ambiguous_until_the_sentence_names_one(history):
    err = history["first build"]["err"]
    ambiguous = [line for line in err if line.startswith("explainers/ambiguous.md:")]
    assert ambiguous == [
        'explainers/ambiguous.md:11: warning: "0.50" is ambiguous: 2 outputs are named as well by its words: '
        '0.50 in "approval rate 0.50" (block 1, labelled "approval rate"), 0.50 in "refusal rate '
        '0.50" (block 1, labelled "refusal rate"); use in the sentence a word of the line it quotes, print that '
        "value with a label the sentence uses, or write it inline as `{python} expr`"]
    assert entry(history["first build"], "ambiguous", "0.50")["label"] == "refusal rate"


def test_when_the_data_change_the_bound_numbers_go_stale_not_a_coincidence(history):
    stage = history["check after the data changed"]
    assert stage["code"] == 1
    assert all(starts(stage["err"], line) for line in (STALE_ACCURACY, STALE_GAPS, STALE_CAPTION))
    bounds = [line for line in stage["err"] if line.startswith("explainers/bounds.md:15")]
    assert bounds == [
        'explainers/bounds.md:15: "< 0.001" is stale: the output it quotes now says 0.0030, which no longer '
        'satisfies it: 0.0030 in "p-value: 0.0030" (block 1, labelled "p value") (rewrite it by hand)',
        'explainers/bounds.md:15: "80%" is stale: the output it quotes now says 0.78, which no longer '
        'satisfies it: 0.78 in "coverage: 0.78" (block 1, labelled "coverage") (rewrite it by hand)']
    assert not any("3x" in line for line in stage["err"])  # 3.02 still shows as 3x


def test_a_claim_that_holds_renders_as_marked_plain_text_with_its_note(history):
    claims = history["first build"]["claims"]
    mark = re.search(r'<span class="claim claim-holds" id="claim-1" tabindex="0" data-note="([^"]*)">'
                     r"is not significant</span>", claims)
    assert mark, "the holding claim is not marked"
    assert html_module.unescape(mark.group(1)) == "Checked when this page was built: p >= 0.05 is True (p = 0.31)"
    assert 'id="claim-2"' in claims and "check=" not in claims


def test_verified_numbers_have_an_id_and_a_note_naming_their_output_line(history):
    accuracy = history["first build"]["accuracy"]
    mark = re.search(r'<a class="q q-verified" href="#(out-1-0-l1)" id="q-14-22" data-note="([^"]*)"', accuracy)
    assert mark and mark.group(2) == "From the output of block 1, line 2: test accuracy: 0.75"


def test_the_report_counts_claims_that_hold_and_broke(history):
    report = history["first build"]["report"]
    row = report_row(report, '<a href="claims.html">Claims</a>')
    assert [int(row["Claims that hold"]), int(row["Claims broken"])] == [2, 0]


def test_a_broken_claim_fails_check_with_the_condition_and_its_values(history):
    stage = history["check after the data changed"]
    assert BROKEN_CLAIM in stage["err"]
    summary = {line.split()[0]: line.split()[1:] for line in stage["out"].splitlines()}
    assert summary["page"][-2:] == ["claims-hold", "claims-broken"]
    assert summary["explainers/claims.md"][-2:] == ["1", "1"]


def test_check_fix_rewrites_stale_numbers_but_never_a_claim_or_a_bound(history):
    stage = history["check --fix"]
    assert stage["code"] == 1  # the broken claim and the bounds are left for the author
    pages = stage["pages"]
    assert "The test accuracy is 0.70." in pages["accuracy"]
    assert "We found 7 significant gaps." in pages["gaps"]
    assert '{caption="Interval coverage was 0.78 on this run."}' in pages["bounds"]
    assert "p < 0.001, with a coverage of at least 80%" in pages["bounds"]
    assert pages["claims"] == history["first build"]["pages"]["claims"]
    assert BROKEN_CLAIM in stage["err"]
    assert not any(starts(stage["err"], line) for line in (STALE_ACCURACY, STALE_GAPS, STALE_CAPTION))
    assert any(line.startswith("explainers/code/accuracy.py: error")
               for line in history["check after the data changed"]["err"])
    assert not any(line.startswith("explainers/code/") for line in stage["err"])  # --fix left the scripts current
    # the prose fixes start no kernel; the caption is a block option, so its page runs again
    assert "running 1 page(s) on up to 1 kernel(s)" in stage["err"]
    assert "  executed  bounds" in "\n".join(stage["err"])


def test_a_claim_whose_expression_raises_names_its_line(history):
    stage = history["check with a raising claim"]
    assert stage["code"] == 1
    assert any(line.startswith(RAISING_CLAIM) for line in stage["err"])
