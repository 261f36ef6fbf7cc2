"""Pages that feed pages, with real kernels: a page that reads a file another page (or a
site.yaml step) writes runs after it and re-runs when what it read changes; a chain of
three settles in order whatever the source order; pages that feed each other are an
error naming them."""

from __future__ import annotations

import textwrap
import time
from pathlib import Path

from site_helpers import site_config

from sitebuild.commands.build import run_build
from sitebuild.execution.order import CYCLE_ERROR
from sitebuild.store.files import FINE_RACY_NS


def write_page(root: Path, slug: str, code: str) -> Path:
    (root / "explainers").mkdir(parents=True, exist_ok=True)
    path = root / "explainers" / f"{slug}.md"
    path.write_text(f"---\ntitle: Page {slug}\nsummary: A page of the feeding tests.\n---\n\nA page.\n\n"
                    f"```python\n{textwrap.dedent(code).strip()}\n```\n", encoding="utf-8")
    return path


def build(root: Path, ok: bool = True, progress=lambda line: None, **options):
    time.sleep(FINE_RACY_NS / 1e9)  # let the files written just now vouch for themselves
    summary = run_build(site_config(root, **options), progress=progress)
    assert summary.ok == ok, [str(p) for p in summary.problems]
    return summary


def rows(summary) -> dict[str, tuple[str, str]]:
    return {r.slug: (r.status, r.reason) for r in summary.rows}


def html(root: Path, slug: str) -> str:
    return (root / "site" / f"{slug}.html").read_text(encoding="utf-8")


def writer(value: int, name: str = "shared.txt") -> str:
    return f"""
        with open("{name}", "w") as stream:
            stream.write("{value}")
        print("wrote {value}")
    """


def test_an_edit_to_the_writer_reruns_the_reader_with_the_new_value(tmp_path):
    # The reader comes first in source order: on the first build nothing says yet that it
    # reads what the other page writes, so it fails, and runs again once the writer has run.
    write_page(tmp_path, "alpha", 'print("shared value", open("shared.txt").read())')
    writer_page = write_page(tmp_path, "zeta", writer(41))
    first = build(tmp_path)
    assert rows(first)["zeta"][0] == "executed" and "shared value 41" in html(tmp_path, "alpha")

    writer_page.write_text(writer_page.read_text().replace("41", "42"))
    second = build(tmp_path)
    assert rows(second) == {"alpha": ("executed", "`shared.txt` changed"), "zeta": ("executed", "code changed")}
    assert "shared value 42" in html(tmp_path, "alpha") and "shared value 41" not in html(tmp_path, "alpha")

    third = build(tmp_path)
    assert third.executed == 0 and "shared value 42" in html(tmp_path, "alpha")

    (tmp_path / "shared.txt").unlink()  # deleted by hand: its writer makes it again, its reader is as it was
    fourth = build(tmp_path)
    assert rows(fourth) == {"alpha": ("cached", "`shared.txt` changed"),
                            "zeta": ("executed", "`shared.txt`, which it writes, is missing")}
    assert (tmp_path / "shared.txt").read_text() == "42" and "shared value 42" in html(tmp_path, "alpha")


def test_a_chain_of_three_pages_settles_in_order(tmp_path):
    write_page(tmp_path, "a-third", 'print("third sees", open("two.txt").read())')
    write_page(tmp_path, "b-second", """
        value = int(open("one.txt").read()) * 2
        open("two.txt", "w").write(str(value))
        print("second wrote", value)
    """)
    first_page = write_page(tmp_path, "c-first", writer(5, "one.txt"))
    build(tmp_path)
    assert "third sees 10" in html(tmp_path, "a-third")

    first_page.write_text(first_page.read_text().replace("5", "7"))
    lines: list[str] = []
    again = build(tmp_path, progress=lines.append)
    assert {slug: status for slug, (status, _) in rows(again).items()} == {
        "a-third": "executed", "b-second": "executed", "c-first": "executed"}
    running = [line for line in lines if line.startswith("running")]
    assert len(running) == 3, lines  # one level after the other, each page once
    assert "third sees 14" in html(tmp_path, "a-third")


def test_pages_that_feed_each_other_are_an_error_naming_them(tmp_path):
    for mine, theirs in (("one", "two"), ("two", "one")):
        write_page(tmp_path, f"p-{mine}", f"""
            import os
            seen = open("{theirs}.txt").read() if os.path.exists("{theirs}.txt") else "nothing"
            open("{mine}.txt", "w").write("{mine}")
            print("{mine} saw", seen)
        """)
    summary = build(tmp_path, ok=False)
    chain = ("explainers/p-one.md -> explainers/p-two.md -> explainers/p-one.md (explainers/p-one.md writes "
             "`one.txt` that explainers/p-two.md reads; explainers/p-two.md writes `two.txt` that "
             "explainers/p-one.md reads)")
    assert [p.message for p in summary.errors] == [CYCLE_ERROR.format(chain=chain)]
    assert summary.errors[0].path == "explainers/p-one.md"


def test_a_step_output_read_by_a_page_reruns_it_when_the_step_makes_it_anew(tmp_path):
    (tmp_path / "make.py").write_text("open('made.txt', 'w').write(open('input.txt').read().upper())\n")
    (tmp_path / "input.txt").write_text("first")
    (tmp_path / "site.yaml").write_text("steps:\n  - name: make\n    run: python make.py\n"
                                        "    inputs: [make.py, input.txt]\n    outputs: [made.txt]\n")
    write_page(tmp_path, "reader", 'print("made says", open("made.txt").read())')
    build(tmp_path)
    assert "made says FIRST" in html(tmp_path, "reader")

    (tmp_path / "input.txt").write_text("second")
    again = build(tmp_path)
    assert rows(again)["reader"] == ("executed", "`made.txt` changed")
    assert "made says SECOND" in html(tmp_path, "reader")
