"""Tests of faircode.manifest: the audit.yaml schema and its error messages."""

from pathlib import Path

import pytest

from faircode.datasets import available_audits, find_manifest_path
from faircode.exceptions import ManifestError
from faircode.manifest import GroupRule, load_manifest

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "audits"
TINY = FIXTURES / "tiny"


def write_manifest(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "audit.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_valid_manifest_gives_typed_fields():
    manifest = load_manifest(TINY / "audit.yaml")
    assert manifest.name == "Tiny Audit"
    assert manifest.slug == "tiny"
    assert manifest.data.path == TINY / "data" / "tiny.csv"
    assert manifest.label.column == "outcome" and manifest.label.positive == GroupRule(values=("yes",))
    assert manifest.positive_label == "adverse" and manifest.positive_is_favourable is False
    assert [a.name for a in manifest.protected_attributes] == ["region", "sex"]
    assert manifest.attribute_names == ("region", "sex", "region_x_sex")
    assert manifest.core_features == ("years", "score") and manifest.proxies == ("kind",)
    assert manifest.test_size == 0.25 and manifest.random_state == 42
    assert manifest.expected_rows == 80 and manifest.expected_groups["sex"] == (27, 53)


def test_folder_path_is_accepted():
    assert load_manifest(TINY).path == TINY / "audit.yaml"


def test_every_problem_is_reported_at_once_with_field_expected_and_found():
    with pytest.raises(ManifestError) as caught:
        load_manifest(FIXTURES / "bad_manifest" / "audit.yaml")
    problems = caught.value.problems
    assert len(problems) == 6
    text = str(caught.value)
    assert str(FIXTURES / "bad_manifest" / "audit.yaml") in text
    assert "field 'colour': unknown key" in text
    assert "field 'data.fromat': unknown key (did you mean 'format'?)" in text
    assert "field 'label.outcome': expected 'favourable' (e.g. a callback) or 'adverse' (e.g. a denial), " \
           "found 'sometimes'" in text
    assert "field 'protected_attributes.region.disadvantaged.values': expected a non-empty list" in text
    assert "field 'core_features': expected no protected column and no proxy, found 'region'" in text
    assert "field 'test_size': expected a number between 0 and 1 (exclusive), found 1.5" in text


def test_missing_required_fields_are_named(tmp_path):
    with pytest.raises(ManifestError) as caught:
        load_manifest(write_manifest(tmp_path, "name: Only a name\n"))
    missing = {p.split("'")[1] for p in caught.value.problems if "required" in p}
    assert missing == {"description", "data", "label", "protected_attributes", "core_features"}


def test_a_typo_in_a_nested_rule_gets_a_suggestion(tmp_path):
    text = (TINY / "audit.yaml").read_text().replace("disadvantaged: {values: [south]}",
                                                     "disadvantaged: {at_lest: 3}")
    with pytest.raises(ManifestError) as caught:
        load_manifest(write_manifest(tmp_path, text))
    assert any("protected_attributes.region.disadvantaged.at_lest': unknown key (did you mean 'at_least'?)" in p
               for p in caught.value.problems)


def test_a_dropped_column_that_is_used_is_an_error(tmp_path):
    text = (TINY / "audit.yaml").read_text() + "drop: [years]\n"
    with pytest.raises(ManifestError, match=r"field 'drop'.*'years' is used by core_features"):
        load_manifest(write_manifest(tmp_path, text))


def test_intersections_must_name_attributes(tmp_path):
    text = (TINY / "audit.yaml").read_text().replace("- [region, sex]", "- [region, age]")
    with pytest.raises(ManifestError, match=r"intersections\[0\]"):
        load_manifest(write_manifest(tmp_path, text))


def test_not_yaml_and_missing_file_are_manifest_errors(tmp_path):
    with pytest.raises(ManifestError, match="not valid YAML"):
        load_manifest(write_manifest(tmp_path, "name: [unclosed\n"))
    with pytest.raises(ManifestError, match="file not found"):
        load_manifest(tmp_path / "nowhere" / "audit.yaml")
    with pytest.raises(ManifestError, match="expected a mapping of fields"):
        load_manifest(write_manifest(tmp_path, "- just\n- a list\n"))


def test_rule_descriptions():
    assert GroupRule(values=("f",)).describe() == "in ['f']"
    assert GroupRule(at_least=25).describe() == ">= 25"
    assert GroupRule(above=1, below=5).describe() == "< 5 and > 1"


@pytest.mark.parametrize("slug", available_audits())
def test_every_audit_manifest_is_valid(slug):
    manifest = load_manifest(find_manifest_path(slug))
    assert manifest.slug == slug
    assert manifest.data.path.is_file()
    assert manifest.label.outcome in ("favourable", "adverse")
    assert manifest.expected_rows is not None, "the manifest states the expected row count"
    assert set(manifest.expected_groups) == set(manifest.attribute_names)
