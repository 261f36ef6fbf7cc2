"""The quote stage without kernels: a bad lock is reported and never overwritten, pages
that failed keep their lock entries, pages that are gone lose theirs, inline values count
as verified."""

from __future__ import annotations

from sitebuild.execution.executed import ExecutedPage, InlineValue, PageError
from sitebuild.execution.outputs import Output
from sitebuild.quotes import Status
from sitebuild.quotes.lock import LockEntry, load_lock, save_lock
from sitebuild.quotes.results import STALE_FIX_HINT
from sitebuild.quotes.stage import check_quotes, fix_quotes, save_quote_lock
from sitebuild.source.read import read_page

PAGE = """---
title: P
summary: S.
---

The rate is 0.25 and the mean is `{python:.1f} 2.5`.
"""


def make_page(tmp_path, name="p.md", text=PAGE):
    source = tmp_path / "explainers"
    source.mkdir(exist_ok=True)
    (source / name).write_text(text)
    return read_page(source / name, tmp_path)


def ran(slug="p") -> ExecutedPage:
    return ExecutedPage(slug=slug, blocks={1: [Output("stream", "rate 0.25\n", ["rate 0.25"])]},
                        inline=[InlineValue(0, "2.5")])


def entry(page: str, quote: str = "0.9") -> LockEntry:
    return LockEntry(page=page, quote=quote, context="x #", occurrence=0, line=6, block=1, output=0,
                     output_line=0, index=0, shape="x #", value=quote)


def test_numbers_and_inline_values_are_counted_and_bound(tmp_path):
    page = make_page(tmp_path)
    run = check_quotes(tmp_path / "explainers", [page], {"p": ran()})
    statuses = [(r.text, r.status) for r in run.pages["p"].results]
    assert statuses == [("0.25", Status.VERIFIED), ("2.5", Status.VERIFIED)]
    assert run.numbers("p") == {"verified": 2, "stale": 0, "unverified": 0, "exempt": 0, "input": 0,
                                "ambiguous": 0, "holds": 0, "broken": 0}
    assert run.problems() == [] and save_quote_lock(run)
    assert [(e.quote, e.value) for e in load_lock(run.lock_path)] == [("0.25", "0.25")]
    assert not save_quote_lock(run)  # unchanged: not rewritten


def test_a_corrupt_lock_is_an_error_naming_the_file_and_is_kept(tmp_path):
    page = make_page(tmp_path)
    lock = tmp_path / "explainers" / "quotes.lock.json"
    lock.write_text("{ not json")
    run = check_quotes(tmp_path / "explainers", [page], {"p": ran()})
    [problem] = run.problems()
    assert problem.severity == "error" and str(lock) in str(problem) and "fix or delete the file" in problem.message
    assert not save_quote_lock(run) and lock.read_text() == "{ not json"


def test_failed_pages_keep_their_entries_and_missing_pages_lose_theirs(tmp_path):
    good, failed = make_page(tmp_path), make_page(tmp_path, "q.md")
    save_lock(tmp_path / "explainers" / "quotes.lock.json",
              [entry("explainers/q.md"), entry("explainers/gone.md"), entry("explainers/broken.md")])
    executed = {"p": ran(), "q": ExecutedPage(slug="q", error=PageError("exception", "boom"))}
    run = check_quotes(tmp_path / "explainers", [good, failed], executed, ["explainers/broken.md"])
    assert sorted(e.page for e in run.updated) == ["explainers/broken.md", "explainers/p.md", "explainers/q.md"]
    assert "q" not in run.pages


def test_a_stale_number_is_an_error_in_the_issue_format(tmp_path):
    page = make_page(tmp_path)
    first = check_quotes(tmp_path / "explainers", [page], {"p": ran()})
    save_quote_lock(first)
    changed = ExecutedPage(slug="p", blocks={1: [Output("stream", "rate 0.31\n", ["rate 0.31"])]})
    second = check_quotes(tmp_path / "explainers", [page], {"p": changed})
    [problem] = second.problems()
    assert str(problem) == ('explainers/p.md:6: "0.25" is stale: the output it quotes now says 0.31: '
                            '0.31 in "rate 0.31" (block 1, labelled "rate")' + STALE_FIX_HINT)
    [stale] = [r for r in second.pages["p"].results if r.status is Status.STALE]
    assert (stale.old, stale.new, stale.value) == ("0.25", "0.31", "0.31")


def test_the_lock_is_written_readable_by_everyone(tmp_path):
    page = make_page(tmp_path)
    run = check_quotes(tmp_path / "explainers", [page], {"p": ran()})
    save_quote_lock(run)
    assert run.lock_path.stat().st_mode & 0o777 == 0o644


def test_fix_quotes_rewrites_a_crlf_page_and_the_pages_linking_to_its_heading_byte_for_byte(tmp_path):
    crlf = ("---\r\ntitle: P\r\nsummary: S.\r\n---\r\n\r\n## Rate 0.25\r\n\r\nThe rate is 0.25.\r\n"
            "Back to [the rate](#rate-025).\r\n")
    linking = "---\ntitle: Q\nsummary: S.\n---\n\nSee [the rate](p.md#rate-025).\n"
    source = tmp_path / "explainers"
    source.mkdir()
    (source / "p.md").write_bytes(crlf.encode())
    (source / "q.md").write_bytes(linking.encode())
    pages = [read_page(source / "p.md", tmp_path), read_page(source / "q.md", tmp_path)]
    first = check_quotes(source, pages, {"p": ran(), "q": ExecutedPage(slug="q")})
    save_quote_lock(first)
    later_run = ExecutedPage(slug="p", blocks={1: [Output("stream", "rate 0.5\n", ["rate 0.5"])]},
                             inline=[InlineValue(0, "2.5")])
    later = check_quotes(source, pages, {"p": later_run, "q": ExecutedPage(slug="q")})
    (fix,) = fix_quotes(later)
    assert [r.text for r in fix.fixed] == ["0.25", "0.25"] and fix.left == []
    assert (source / "p.md").read_bytes() == crlf.replace("0.25", "0.50").replace("rate-025", "rate-050").encode()
    assert (source / "q.md").read_bytes() == linking.replace("rate-025", "rate-050").encode()
    assert [e.quote for e in load_lock(source / "quotes.lock.json")] == ["0.50", "0.50"]
    # The diff shows every file --fix wrote: the linking page too.
    assert fix.others == ("explainers/q.md",)
    assert "+++ b/explainers/p.md" in fix.diff and "+++ b/explainers/q.md" in fix.diff
    assert "-See [the rate](p.md#rate-025)." in fix.diff and "+See [the rate](p.md#rate-050)." in fix.diff
