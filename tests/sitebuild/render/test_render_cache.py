"""Only what changed is re-rendered: a prose edit renders its page alone, the other pages
are the last site's files, untouched; a title (which every page's navigation shows), a
template change, a new commit or a change of the work tree's state renders them all."""

from __future__ import annotations

import re
import subprocess
import time

from site_helpers import TEMPLATES

import sitebuild.render.render
from sitebuild.commands.build import run_build
from sitebuild.config import make_config
from sitebuild.store.files import FINE_RACY_NS

PAGE = "---\ntitle: {title}\nsummary: A page of the render cache tests.\n---\n\n{prose}\n"


def write(root, slug, title, prose):
    (root / "explainers").mkdir(parents=True, exist_ok=True)
    (root / "explainers" / f"{slug}.md").write_text(PAGE.format(title=title, prose=prose), encoding="utf-8")


def build_counting(root, monkeypatch, **options) -> list[str]:
    """Build; return the slugs whose prose was rendered."""
    rendered = []
    real = sitebuild.render.render.prose_html

    def counting(md, page, *args, **kwargs):
        rendered.append(page.slug)
        return real(md, page, *args, **kwargs)

    monkeypatch.setattr(sitebuild.render.render, "prose_html", counting)
    time.sleep(FINE_RACY_NS / 1e9)
    summary = run_build(make_config(root, templates=options.pop("templates", TEMPLATES), jobs=1, **options))
    assert summary.ok, [str(p) for p in summary.problems]
    return sorted(rendered)


def provenance(html: str) -> str:
    return re.search(r"<!--provenance-->(.*?)<!--/provenance-->", html, re.S).group(1)


def test_a_prose_edit_renders_only_its_page(tmp_path, monkeypatch):
    root = tmp_path / "site-root"
    for slug in ("one", "two", "three"):
        write(root, slug, f"Page {slug.title()}", f"The prose of page {slug}.")
    assert build_counting(root, monkeypatch) == ["one", "three", "two"]
    site = root / "site"
    before = {slug: (site / f"{slug}.html").stat().st_ino for slug in ("one", "three")}
    write(root, "two", "Page Two", "The reworded prose of page two.")
    assert build_counting(root, monkeypatch) == ["two"]
    assert "reworded prose" in (site / "two.html").read_text()
    assert {slug: (site / f"{slug}.html").stat().st_ino for slug in ("one", "three")} == before, \
        "an unchanged page is the last site's file, linked into the new one"
    write(root, "three", "Page Three, Renamed", "The prose of page three.")
    assert build_counting(root, monkeypatch) == ["one", "three", "two"], "every page's navigation shows the title"


def git(root, *args) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args], cwd=root,
                          check=True, capture_output=True, text=True).stdout.strip()


def test_a_new_commit_or_local_changes_render_every_page_with_that_state(tmp_path, monkeypatch):
    root = tmp_path / "site-root"
    for slug in ("one", "two"):
        write(root, slug, f"Page {slug.title()}", f"The prose of page {slug}.")
    # As the repository's own: the replaced site beside site/ is removed in the background,
    # so without its pattern `git add .` could meet it half deleted.
    (root / ".gitignore").write_text("site/\nsite.tmp*/\n.cache/\n")
    assert build_counting(root, monkeypatch) == ["one", "two"]
    assert build_counting(root, monkeypatch) == [], "nothing changed"
    git(root, "init", "-q")
    git(root, "add", ".")  # the pages, and the scripts the build wrote
    git(root, "commit", "-q", "-m", "first")
    first = git(root, "rev-parse", "--short", "HEAD")
    assert build_counting(root, monkeypatch) == ["one", "two"]
    assert first in provenance((root / "site" / "one.html").read_text())
    write(root, "two", "Page Two", "An edit of page two, not committed.")
    assert build_counting(root, monkeypatch) == ["one", "two"]
    for slug in ("one", "two"):
        line = provenance((root / "site" / f"{slug}.html").read_text())
        assert first in line and "with local changes" in line, line
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "second")
    second = git(root, "rev-parse", "--short", "HEAD")
    assert build_counting(root, monkeypatch) == ["one", "two"]
    for slug in ("one", "two"):
        line = provenance((root / "site" / f"{slug}.html").read_text())
        assert second in line and "with local changes" not in line, line


def test_a_template_change_renders_every_page(tmp_path, monkeypatch):
    import shutil

    root = tmp_path / "site-root"
    templates = tmp_path / "templates"
    shutil.copytree(TEMPLATES, templates)
    for slug in ("one", "two"):
        write(root, slug, f"Page {slug.title()}", f"The prose of page {slug}.")
    build_counting(root, monkeypatch, templates=templates)
    explainer = templates / "explainer.html"
    explainer.write_text(explainer.read_text().replace("{% block content %}", "{% block content %}<!-- edited -->", 1))
    assert build_counting(root, monkeypatch, templates=templates) == ["one", "two"]
    assert "<!-- edited -->" in (root / "site" / "one.html").read_text()


def test_compiled_templates_are_kept_and_an_edit_of_the_same_size_is_compiled_again(tmp_path, monkeypatch):
    import shutil

    root = tmp_path / "site-root"
    templates = tmp_path / "templates"
    shutil.copytree(TEMPLATES, templates)
    write(root, "one", "Page One", "The prose of page one.")
    build_counting(root, monkeypatch, templates=templates)
    config = make_config(root, templates=templates)
    assert list((config.cache_dir / "templates").iterdir()), "the compiled templates are kept in the cache"
    explainer = templates / "explainer.html"
    text = explainer.read_text()
    marker = "{% block content %}"
    explainer.write_text(text.replace(marker, marker + "<!-- one -->", 1))
    build_counting(root, monkeypatch, templates=templates)
    explainer.write_text(text.replace(marker, marker + "<!-- two -->", 1))  # the same size as "one"
    build_counting(root, monkeypatch, templates=templates)
    html = (root / "site" / "one.html").read_text()
    assert "<!-- two -->" in html and "<!-- one -->" not in html


CODE_PAGE = "---\ntitle: {title}\nsummary: A page with code.\n---\n\n{prose}\n\n```python\nprint({value!r})\n```\n"


def write_code(root, slug, prose, value):
    (root / "explainers").mkdir(parents=True, exist_ok=True)
    text = CODE_PAGE.format(title=f"Page {slug.title()}", prose=prose, value=value)
    (root / "explainers" / f"{slug}.md").write_text(text, encoding="utf-8")


def inodes(site, slug) -> dict[str, int]:
    return {rel: (site / rel).stat().st_ino for rel in (f"code/{slug}.py", f"code/{slug}.ipynb", f"source/{slug}.md")}


def test_the_downloads_of_an_unchanged_page_are_the_last_sites_files_and_a_changed_page_gets_new_ones(
        tmp_path, monkeypatch):
    """Real kernels. A prose edit of one page keeps the other page's script, notebook and
    Markdown as the very files of the last site (hard links), and writes the edited page's."""
    root = tmp_path / "site-root"
    write_code(root, "one", "The prose of page one.", "first output")
    write_code(root, "two", "The prose of page two.", "second output")
    build_counting(root, monkeypatch)
    site = root / "site"
    before = {slug: inodes(site, slug) for slug in ("one", "two")}
    write_code(root, "two", "The reworded prose of page two.", "second output")
    assert build_counting(root, monkeypatch) == ["two"]
    assert inodes(site, "one") == before["one"]
    assert inodes(site, "two")["source/two.md"] != before["two"]["source/two.md"]
    assert "reworded prose" in (site / "source" / "two.md").read_text()
    assert "reworded prose" in (site / "code" / "two.ipynb").read_text()
    write_code(root, "one", "The prose of page one.", "first output, changed")
    assert build_counting(root, monkeypatch) == ["one"]
    assert "first output, changed" in (site / "code" / "one.ipynb").read_text()
    assert "first output, changed" in (site / "code" / "one.py").read_text()


def test_a_signature_covers_the_downloads_only_when_the_execution_has_its_digest():
    from sitebuild.execution.cache import result_digest
    from sitebuild.execution.executed import ExecutedPage
    from sitebuild.render.render_cache import HTML_ONLY, page_signature

    class FakePage:
        text = "prose"

    stored = ExecutedPage(slug="p", digest="d1")
    assert not page_signature(FakePage, stored, {}, "shared").endswith(HTML_ONLY)
    assert page_signature(FakePage, stored, {}, "shared") != page_signature(FakePage,
                                                                            ExecutedPage(slug="p",
                                                                                         digest="d2"), {}, "shared")
    assert page_signature(FakePage, ExecutedPage(slug="p"), {}, "shared").endswith(HTML_ONLY)
    # The digest follows what a reader downloads (notebook outputs) but not how the page ran.
    base = {"blocks": {}, "notebook_outputs": {"1": [{"output_type": "stream", "text": "a"}]}, "seconds": 1.0}
    assert result_digest(base) == result_digest({**base, "seconds": 9.0, "status": "cached"})
    assert result_digest(base) != result_digest({**base, "notebook_outputs": {"1": []}})


def test_the_index_report_and_404_are_kept_until_what_they_show_changes(tmp_path, monkeypatch):
    import sitebuild.render.provenance

    real = sitebuild.render.provenance.collect_provenance
    clock = [1_800_000_000.0]
    monkeypatch.setattr(sitebuild.render.provenance, "collect_provenance",
                        lambda *args, **kwargs: real(*args, **{**kwargs, "now": clock[0]}))
    root = tmp_path / "site-root"
    for slug in ("one", "two"):
        write(root, slug, f"Page {slug.title()}", f"The prose of page {slug}.")
    build_counting(root, monkeypatch)
    site = root / "site"
    names = ("index.html", "report.html", "404.html")

    def inodes() -> dict:
        return {name: (site / name).stat().st_ino for name in names}

    first = inodes()
    write(root, "two", "Page Two", "The reworded prose of page two.")
    assert build_counting(root, monkeypatch) == ["two"]
    assert inodes() == first, "a prose edit changes none of them"
    clock[0] += 3600
    write(root, "two", "Page Two", "Reworded again, an hour later.")
    build_counting(root, monkeypatch)
    later = inodes()
    assert all(later[name] != first[name] for name in names), "each says when the site was built"
    assert provenance((site / "index.html").read_text()) != provenance((site / "one.html").read_text())
    write(root, "one", "Page One, Renamed", "The prose of page one.")
    build_counting(root, monkeypatch)
    assert "Page One, Renamed" in (site / "index.html").read_text()
