"""The bibliography: every entry of the real one has a DOI or a URL, and an entry without
either is a warning naming it at its line."""

from __future__ import annotations

from sitebuild.commands.build import run_build
from sitebuild.source.references import NO_LINK, entries_without_link, load_bibliography
from site_helpers import REPO, site_config

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
