"""The quoted-number check end to end, with real Jupyter kernels, over the quotes fixture
site: numbers bind on the first build, a data change makes them stale (build and check
fail with the old and new values), ``check --fix`` rewrites them and check passes again;
verified numbers link to the output line (or table row) that backs them; the report and
``check`` show the counts per page; outputs that change order still bind."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import os
import re
import shutil
import time
from pathlib import Path

import pytest
from site_helpers import REPO, TEMPLATES, report_row

from sitebuild.store.files import RACY_NS

FIXTURE = REPO / "tests" / "fixtures" / "quotes_site"
STALE_72 = 'explainers/quoted.md:18: "72%" is stale: the output it quotes now says 69%'
STALE_GAP = 'explainers/quoted.md:18: "-0.12" is stale: the output it quotes now says -0.09'
STALE_9 = 'explainers/ordered.md:14: "9" is stale: the output it quotes now says 8'


def has_line(err: str, start: str) -> bool:
    """True when a line of ``err`` starts with ``start`` (a stale number's line goes on with
    the output line it is bound to)."""
    return any(line.startswith(start + ":") for line in err.splitlines())


UNVERIFIED_13 = 'explainers/quoted.md:25: warning: "13" names no output of this page'


def load_cli(root: Path):
    """The repository's build.py as a module whose root is ``root``."""
    spec = importlib.util.spec_from_file_location("fixture_cli", REPO / "build.py")
    cli = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cli)
    cli.ROOT = root
    return cli


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    """A copy of the fixture site, with the repository's templates."""
    root = tmp_path_factory.mktemp("quotes") / "site"
    shutil.copytree(FIXTURE, root)
    (root / "templates").symlink_to(TEMPLATES)
    return root


def backdate(root: Path, seconds: int = 10) -> None:
    """Move the sources' modification times into the past and wait until their change
    times (which no program can set back) are old enough too, so that the next build
    may trust them and record its "nothing changed" stamp."""
    for path in [*root.glob("explainers/**/*"), *root.glob("data/*")]:
        then = path.stat().st_mtime_ns - seconds * 1_000_000_000
        os.utime(path, ns=(then, then))
    time.sleep(RACY_NS / 1e9 + 0.1)


@pytest.fixture(scope="module")
def history(root):
    """Run every stage once through the command line; keep what each saw (exit code,
    stdout, stderr, sources, lock, pages)."""
    cli = load_cli(root)
    seen: dict[str, dict] = {}

    def run(name: str, *args: str) -> None:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = cli.main([*args, "--jobs", "2"])
        seen[name] = {"code": code, "out": out.getvalue(), "err": err.getvalue(),
                      "quoted": (root / "explainers" / "quoted.md").read_text(),
                      "ordered": (root / "explainers" / "ordered.md").read_text(),
                      "lock": (root / "explainers" / "quotes.lock.json").read_text()
                      if (root / "explainers" / "quotes.lock.json").exists() else ""}
        if (root / "site" / "quoted.html").exists():
            seen[name]["html"] = (root / "site" / "quoted.html").read_text()
            seen[name]["ordered_html"] = (root / "site" / "ordered.html").read_text()
            seen[name]["report"] = (root / "site" / "report.html").read_text()

    run("first build", "build")
    (root / "data" / "approvals.csv").write_text("group,approved\na,69\nb,60\n")
    (root / "data" / "summary.csv").write_text("max,8\nmean,3.25\n")  # new order, new maximum
    run("build after the data changed", "build")
    run("check after the data changed", "check")
    run("check --fix", "check", "--fix")
    run("check --strict", "check", "--strict")
    (root / "explainers" / "quoted.md").write_text(
        (root / "explainers" / "quoted.md").read_text().replace("A number nothing prints: 13.", ""))
    backdate(root)
    run("build after the fix", "build")
    run("nothing changed", "build")
    lock = root / "explainers" / "quotes.lock.json"
    lock.write_text(json.dumps(json.loads(lock.read_text()), indent=1))
    run("lock edited by hand", "build")
    return seen


def test_first_build_binds_the_verified_numbers_in_the_lock(history):
    first = history["first build"]
    assert first["code"] == 0, first["err"]
    entries = json.loads(first["lock"])["quotes"]
    bound = {(e["page"], e["quote"]): e["value"] for e in entries}
    assert bound == {("explainers/quoted.md", "72%"): "72%", ("explainers/quoted.md", "-0.12"): "-0.1200",
                     ("explainers/quoted.md", "0.6"): "0.60", ("explainers/ordered.md", "3.25"): "3.25",
                     ("explainers/ordered.md", "9"): "9"}
    assert UNVERIFIED_13 in first["err"]


def test_verified_numbers_link_to_the_output_line_that_backs_them(history):
    html = history["first build"]["html"]
    link = re.search(r'<a class="q q-verified" href="#(out-1-0-l0)" id="(q-18-\d+)" data-note="([^"]*)"'
                     r' title="[^"]*">72%</a>', html)
    assert link, "72% is not linked to the first line of block 1's output"
    assert f'id="{link.group(1)}">group a approved: 72%</span>' in html
    assert link.group(3) == "From the output of block 1, line 1: group a approved: 72%"
    gap = re.search(r'<a class="q q-verified" href="#([^"]+)"[^>]*>-0.12</a>', html)
    assert gap and f'id="{gap.group(1)}">gap of b minus a: -0.1200</span>' in html


def test_a_number_from_a_table_links_to_its_row(history):
    html = history["first build"]["html"]
    link = re.search(r'<a class="q q-verified" href="#(out-2-0-l\d+)"[^>]*>0.6</a>', html)
    assert link, "0.6 is not linked to a row of block 2's table"
    row = re.search(rf'<tr id="{link.group(1)}">(.*?)</tr>', html, re.S)
    assert row and "<td>b</td>" in row.group(1) and "<td>0.60</td>" in row.group(1)


def test_inline_values_render_and_count_as_verified_without_a_mark(history):
    html = history["first build"]["html"]
    assert 'is <span class="inline-value">72%</span>.' in html
    assert "<span class=\"q" not in html.split("inline-value")[1][:40]


def test_exempt_and_input_numbers_stay_plain_and_unverified_ones_are_marked(history):
    html = history["first build"]["html"]
    assert "<span class=\"nocheck\">Angwin et al., 2016</span>" in html
    assert "A book from 1999." in html and "Each group has 100 applicants." in html
    assert '<span class="q q-unverified"' in html and '>13</span>' in html


def test_report_page_lists_the_counts_per_page(history):
    report = history["first build"]["report"]
    row = report_row(report, '<a href="quoted.html">Quoted Numbers</a>')
    # verified (72%, -0.12, 0.6 and the inline value), stale, unverified (13), exempt (2016, 1999),
    # ambiguous, claims that hold, claims broken
    columns = ("Verified", "Stale", "Unverified", "Exempt", "Ambiguous", "Claims that hold", "Claims broken")
    assert [int(row[name]) for name in columns] == [4, 0, 1, 2, 0, 0, 0]


def test_a_data_change_makes_the_quoted_numbers_stale_and_the_build_fail(history):
    stage = history["build after the data changed"]
    assert stage["code"] == 1
    assert has_line(stage["err"], STALE_72) and has_line(stage["err"], STALE_GAP)
    assert "build failed" in stage["err"] and "the last good site was kept" in stage["err"]
    assert stage["html"] == history["first build"]["html"]  # the last good site is untouched
    assert stage["lock"] == history["first build"]["lock"]  # a failing build binds nothing new


def test_outputs_that_change_order_still_bind(history):
    err = history["build after the data changed"]["err"].splitlines()
    assert has_line("\n".join(err), STALE_9)  # bound to the "max" line, now second: not unverified, not 3.25
    assert not any("3.25" in line for line in err)


def test_check_fails_on_stale_numbers_and_prints_the_summary(history):
    stage = history["check after the data changed"]
    assert stage["code"] == 1 and has_line(stage["err"], STALE_72)
    lines = stage["out"].splitlines()
    assert lines[0].split() == ["page", "verified", "stale", "unverified", "ambiguous", "exempt", "input",
                                "claims-hold", "claims-broken"]
    assert lines[1].split() == ["explainers/ordered.md", "1", "1", "0", "0", "0", "0", "0", "0"]
    assert lines[2].split() == ["explainers/quoted.md", "2", "2", "1", "0", "2", "1", "0", "0"]
    assert lines[3].split() == ["total", "3", "3", "1", "0", "2", "1", "0", "0"]
    assert "0 executed, 2 cached" in stage["err"]


def test_check_fix_rewrites_stale_numbers_prints_the_diff_and_passes(history):
    stage = history["check --fix"]
    assert stage["code"] == 0, stage["err"]
    assert "-Group a had 72% of its applicants approved, and the gap of b minus a is -0.12.\n" in stage["out"]
    assert "+Group a had 69% of its applicants approved, and the gap of b minus a is -0.09.\n" in stage["out"]
    assert "+The mean is 3.25 and the max is 8.\n" in stage["out"]
    assert "A number nothing prints: 13." in stage["quoted"]  # unverified numbers are never touched
    assert "--fix rewrote 3 stale number(s) in 2 page(s)" in stage["err"]
    assert "0 executed, 2 cached" in stage["err"]  # prose only: no kernel started
    bound = {(e["quote"], e["value"], e["output_line"]) for e in json.loads(stage["lock"])["quotes"]
             if e["page"] == "explainers/ordered.md"}
    assert bound == {("3.25", "3.25", 1), ("8", "8", 0)}


def test_check_fix_keeps_the_permissions_of_the_page(root, history):
    mode = lambda path: path.stat().st_mode & 0o777  # noqa: E731
    assert mode(root / "explainers" / "quoted.md") == mode(FIXTURE / "explainers" / "quoted.md")


def test_unverified_numbers_warn_but_fail_under_strict(history):
    assert history["check --fix"]["code"] == 0 and UNVERIFIED_13 in history["check --fix"]["err"]
    strict = history["check --strict"]
    assert strict["code"] == 1 and UNVERIFIED_13 in strict["err"] and "check failed: 1 problem(s)" in strict["err"]


def test_the_fixed_site_builds_and_links_the_new_values(history):
    stage = history["build after the fix"]
    assert stage["code"] == 0, stage["err"]
    assert re.search(r'<a class="q q-verified" href="#out-1-0-l0"[^>]*>69%</a>', stage["html"])
    assert re.search(r'<a class="q q-verified" href="#out-1-0-l1"[^>]*>3.25</a>', stage["ordered_html"])
    assert 'id="out-1-0-l1">the mean is 3.25</span>' in stage["ordered_html"]


def test_nothing_changed_is_up_to_date_until_the_lock_is_edited(history):
    assert "site is up to date" in history["nothing changed"]["err"]
    edited = history["lock edited by hand"]
    assert edited["code"] == 0 and "site is up to date" not in edited["err"] and "0 executed, 2 cached" in edited["err"]
    assert edited["lock"] == history["build after the fix"]["lock"]  # written back in its own form
