"""Links between pages: pages sharing a data key with a page of the data theme link to it;
an unknown key is a warning (an error under --strict); a related slug that does not exist
fails the whole build and keeps the last good site."""

from __future__ import annotations

from site_helpers import site_config

from sitebuild.checks.links import check_data_keys, data_links, data_pages_by_key, front_matter_line
from sitebuild.commands.build import run_build
from sitebuild.source.read import read_page

PAGES = {
    "intro": "---\ntitle: Intro\nsummary: Uses two data sets.\ntheme: Basics\naudits: [loans, jobs]\n---\n\nText.\n",
    "more": "---\ntitle: More\nsummary: Uses one data set twice.\ntheme: Basics\naudits: [loans]\nrelated: "
            "[intro]\n---\n\nText.\n",
    "loans": "---\ntitle: Loans Data\nsummary: The loans file.\ntheme: Data\naudits: [loans]\n---\n\nText.\n",
    "jobs": "---\ntitle: Jobs Data\nsummary: The jobs file.\ntheme: Data\ntags: [x]\naudits: [jobs, "
            "loans]\n---\n\nText.\n",
}


def write_pages(root, pages=PAGES):
    (root / "explainers").mkdir(exist_ok=True)
    for slug, text in pages.items():
        (root / "explainers" / f"{slug}.md").write_text(text)
    return [read_page(root / "explainers" / f"{slug}.md", root) for slug in pages]


def test_pages_link_to_the_data_pages_that_share_a_key(tmp_path):
    pages = write_pages(tmp_path)
    by_key = data_pages_by_key(pages, "Data")
    assert {key: [p.slug for p in found] for key, found in by_key.items()} == {"loans": ["loans", "jobs"],
                                                                               "jobs": ["jobs"]}
    intro = next(p for p in pages if p.slug == "intro")
    links = data_links(intro, by_key)
    assert [(link.slug, link.keys) for link in links] == [("loans", ("loans",)), ("jobs", ("loans", "jobs"))]
    loans = next(p for p in pages if p.slug == "loans")
    assert [link.slug for link in data_links(loans, by_key)] == ["jobs"]


def test_no_data_theme_means_no_links_and_no_warnings(tmp_path):
    pages = write_pages(tmp_path)
    assert data_pages_by_key(pages, "") == {}
    assert check_data_keys(pages, "") == []


def test_an_unknown_key_is_a_warning_at_its_line(tmp_path):
    pages = write_pages(tmp_path, {**PAGES, "more": PAGES["more"].replace("[loans]", "[loans, laons]")})
    problems = check_data_keys(pages, "Data")
    assert [str(p) for p in problems] == [
        "explainers/more.md:5: warning: front matter field 'audits': no page of the theme 'Data' lists 'laons'; "
        "expected one of ['jobs', 'loans'], or add a 'Data' page with `audits: [laons]`"]
    assert front_matter_line(pages[0], "missing") == 1


def test_a_related_slug_that_does_not_exist_fails_the_build(tmp_path):
    write_pages(tmp_path)
    config = site_config(tmp_path)
    assert run_build(config).ok
    good = (tmp_path / "site" / "more.html").read_text()
    assert '<a href="intro.html">Intro</a>' in good
    (tmp_path / "explainers" / "more.md").write_text(PAGES["more"].replace("related: [intro]",
                                                                           "related: [intro, outro]"))
    summary = run_build(config)
    assert not summary.ok
    assert [str(p) for p in summary.errors] == [
        "explainers/more.md:1: error: front matter field 'related': no page 'outro'; "
        "expected one of ['intro', 'jobs', 'loans', 'more']"]
    assert (tmp_path / "site" / "more.html").read_text() == good


def test_the_build_links_data_pages_and_warns_about_unknown_keys(tmp_path):
    (tmp_path / "site.yaml").write_text("data_theme: Data\n")
    write_pages(tmp_path, {**PAGES, "more": PAGES["more"].replace("[loans]", "[loans, laons]")})
    summary = run_build(site_config(tmp_path))
    assert summary.ok and [p.severity for p in summary.problems] == ["warning"]
    assert "no page of the theme 'Data' lists 'laons'" in summary.problems[0].message
    intro = (tmp_path / "site" / "intro.html").read_text()
    assert '<h2 id="data-links-h">Data used</h2>' in intro
    assert '<a href="loans.html">Loans Data</a>' in intro and '<a href="jobs.html">Jobs Data</a>' in intro
    strict = run_build(site_config(tmp_path, strict=True, force=True))
    assert not strict.ok and "'laons'" in str(strict.errors[0])
