"""The bibliography: every entry of the real one has a DOI or a URL, and an entry without
either is a warning naming it at its line."""

from __future__ import annotations

from site_helpers import REPO, site_config

from sitebuild.commands.build import run_build
from sitebuild.source.references import NO_LINK, entries_without_link, load_bibliography

ENTRIES = """- id: linked
  authors: ["Good, P."]
  title: "A linked work"
  year: 2005
  doi: 10.1007/b138696
- id: unlinked
  authors: ["Wellek, S."]
  title: "A work with no address"
  year: 2010
"""
PAGE = "---\ntitle: Cites\nsummary: A page that cites.\n---\n\nAs shown [@linked] and [@unlinked].\n"


def test_every_entry_of_the_real_bibliography_has_a_doi_or_a_url():
    path = REPO / "explainers" / "references.yaml"
    entries = load_bibliography(path)
    assert len(entries) >= 20
    assert entries_without_link(path, entries) == []
    assert all(e.link.startswith("https://") for e in entries.values())


def test_an_entry_without_doi_or_url_is_a_warning_naming_it_at_its_line(tmp_path):
    (tmp_path / "explainers").mkdir()
    (tmp_path / "explainers" / "cites.md").write_text(PAGE)
    (tmp_path / "explainers" / "references.yaml").write_text(ENTRIES)
    (tmp_path / "site.yaml").write_text("bibliography: explainers/references.yaml\n")
    summary = run_build(site_config(tmp_path))
    assert summary.ok
    found = [str(p) for p in summary.problems if p.path == "explainers/references.yaml"]
    assert found == [f"explainers/references.yaml:6: warning: {NO_LINK.format(key='unlinked')}"]
    assert not run_build(site_config(tmp_path, strict=True)).ok, "under --strict the warning fails the build"


def test_a_bibliography_that_is_not_yaml_names_the_line_of_the_open_bracket(tmp_path):
    import pytest

    from sitebuild.errors import ConfigError
    from sitebuild.yamltext import YAML_HINTS

    path = tmp_path / "references.yaml"
    path.write_text(ENTRIES.replace('authors: ["Wellek, S."]', 'authors: ["Wellek, S."'))
    with pytest.raises(ConfigError) as caught:
        load_bibliography(path)
    assert str(caught.value).startswith(f"{path}:7: not valid YAML (")
    assert str(caught.value).endswith(f"; {YAML_HINTS[0][1]}")


def _render(text: str) -> str:
    from sitebuild.render.prose import make_markdown
    from sitebuild.source.references import render_citation

    entries = load_bibliography(REPO / "explainers" / "references.yaml")
    md = make_markdown()
    md.add_render_rule("citation", lambda self, tokens, idx, options, env: render_citation(tokens[idx], entries))
    return md.render(text)


def test_a_citation_in_running_text_is_in_parentheses_and_may_hold_several_keys():
    from sitebuild.source.markdown import make_parser
    from sitebuild.source.references import page_citations

    html = _render("Both cannot hold [@kleinberg2017; @chouldechova2017], unless [@nokey].\n")
    assert ('(<a class="citation" href="#ref-kleinberg2017">Kleinberg et al. 2017</a>; '
            '<a class="citation" href="#ref-chouldechova2017">Chouldechova 2017</a>)') in html
    assert '(<span class="citation citation-unknown">@nokey</span>)' in html
    tokens = make_parser().parse("Text [@kleinberg2017; @chouldechova2017].\n\n- [@hardt2016]\n")
    assert [(key, full) for _, key, full in page_citations(tokens)] == [
        ("kleinberg2017", False), ("chouldechova2017", False), ("hardt2016", True)]


def test_the_notebook_and_the_search_words_cite_as_the_page_does():
    from sitebuild.render.notebook import _citations

    entries = load_bibliography(REPO / "explainers" / "references.yaml")
    text = _citations("Both cannot hold [@kleinberg2017; @chouldechova2017].\n", entries)
    assert text.startswith("Both cannot hold ([Kleinberg et al. 2017](") and "; [Chouldechova 2017](" in text
    assert text.rstrip().endswith(").")
