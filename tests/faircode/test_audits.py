"""Tests of loading the real audits: row counts and group sizes as documented, the split, bad input."""

import gzip
import hashlib
import re
import shutil
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest

from faircode.datasets import IDENTIFYING_COLUMNS, _load_dataset, available_audits, find_manifest_path, load_audit
from faircode.exceptions import AuditDataError
from faircode.manifest import load_manifest

SLUGS = available_audits()
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "audits"


@lru_cache(maxsize=None)
def loaded(slug: str, seed: int | None = None):
    return load_audit(slug, random_state=seed)


def documented_counts(source: Path, names) -> tuple[int, dict[str, tuple[int, int]]]:
    """Row count and group sizes as SOURCE.md states them."""
    text = source.read_text(encoding="utf-8")
    rows = int(re.search(r"Rows after loading: ([\d,]+)", text).group(1).replace(",", ""))
    groups = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 5 and cells[0] in names:
            groups[cells[0]] = (int(cells[2].replace(",", "")), int(cells[4].replace(",", "")))
    return rows, groups


def test_nine_audits():
    assert SLUGS == ["benefits_denial", "compas", "credit_card_default", "german_credit_lending",
                     "health_risk", "hiring_callbacks", "insurance_denial", "law_school", "mortgage_denial"]


@pytest.mark.parametrize("slug", SLUGS)
def test_audit_loads_with_the_documented_rows_and_groups(slug):
    data = loaded(slug)
    manifest = data.manifest
    sizes = {name: (int((m == 1).sum()), int((m == 0).sum())) for name, m in data.masks.items()}
    assert len(data.df) == manifest.expected_rows
    assert sizes == manifest.expected_groups
    rows, groups = documented_counts(manifest.folder / "SOURCE.md", manifest.attribute_names)
    assert rows == manifest.expected_rows
    assert groups == manifest.expected_groups


@pytest.mark.parametrize("slug", SLUGS)
def test_source_states_the_sha256_of_every_data_file(slug):
    manifest = load_manifest(find_manifest_path(slug))
    text = (manifest.folder / "SOURCE.md").read_text(encoding="utf-8")
    for path in (manifest.data.path, manifest.data.decode):
        if path is not None:
            assert hashlib.sha256(path.read_bytes()).hexdigest() in text, path.name


@pytest.mark.parametrize("slug", SLUGS)
def test_loaded_audit_is_well_formed(slug):
    data = loaded(slug)
    assert not set(IDENTIFYING_COLUMNS) & set(data.df.columns)
    assert set(data.y.unique()) == {0, 1}
    for name, mask in data.masks.items():
        assert set(mask.dropna().unique()) <= {0.0, 1.0}, name
        assert len(mask) == len(data.df)
    assert len(data.X) == len(data.X_core) == len(data.df)
    assert not data.X.isna().any().any()
    protected = set(data.manifest.protected_columns) | set(data.manifest.proxies)
    assert not any(c.split("=")[0] in protected for c in data.X_core.columns)


def test_names_slugs_and_paths_give_the_same_audit():
    by_name = load_manifest(find_manifest_path("German Credit Lending"))
    by_slug = load_manifest(find_manifest_path("german_credit_lending"))
    by_path = load_manifest(find_manifest_path(by_slug.folder))
    assert by_name == by_slug == by_path
    with pytest.raises(AuditDataError, match="no audit called 'Nowhere'.*german_credit_lending"):
        find_manifest_path("Nowhere")


def test_compas_keeps_propublicas_rows_and_drops_names():
    data = loaded("compas")
    assert len(data.df) == 6172  # ProPublica's published count after their filters
    assert "name" not in data.df.columns and "dob" not in data.df.columns


def test_split_is_stratified_and_reproducible():
    data = loaded("german_credit_lending")
    y = data.y.to_numpy()
    assert len(data.idx_test) == 200 and len(np.intersect1d(data.idx_train, data.idx_test)) == 0
    assert abs(y[data.idx_test].mean() - y.mean()) <= 1 / len(data.idx_test)
    again = load_audit("german_credit_lending")
    assert np.array_equal(again.idx_test, data.idx_test)


def test_a_changed_seed_changes_only_the_split():
    base, other = loaded("german_credit_lending"), loaded("german_credit_lending", 7)
    assert other.split_seed == 7 and base.split_seed == 42
    assert not np.array_equal(base.idx_test, other.idx_test)
    assert base.df.equals(other.df) and base.X.equals(other.X) and base.y.equals(other.y)
    assert all(base.masks[k].equals(other.masks[k]) for k in base.masks)
    assert base.manifest == other.manifest


def test_intersection_is_disadvantaged_on_both_vs_advantaged_on_both():
    data = loaded("compas")
    race, sex, both = data.masks["race"], data.masks["sex"], data.masks["race_x_sex"]
    assert ((both == 1) == ((race == 1) & (sex == 1))).all()
    assert ((both == 0) == ((race == 0) & (sex == 0))).all()


# --- bad input, on copies of the tiny fixture audit -------------------------------------------

@pytest.fixture
def tiny(tmp_path):
    folder = tmp_path / "tiny"
    shutil.copytree(FIXTURES / "tiny", folder)
    return folder


def edit_manifest(folder: Path, old: str, new: str) -> None:
    path = folder / "audit.yaml"
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


def test_tiny_fixture_loads(tiny):
    df, y, masks = _load_dataset(load_manifest(tiny))
    assert len(df) == 80 and y.sum() == 40 and "name" not in df.columns
    assert set(masks) == {"region", "sex", "region_x_sex"}


def test_missing_data_file_names_audit_file_and_field(tiny):
    (tiny / "data" / "tiny.csv").unlink()
    with pytest.raises(AuditDataError) as caught:
        load_audit(tiny)
    message = str(caught.value)
    assert "audit 'tiny'" in message and "field 'data.path'" in message and "tiny.csv not found" in message


def test_a_manifest_column_the_data_lacks(tiny):
    edit_manifest(tiny, "core_features: [years, score]", "core_features: [years, scroe]")
    with pytest.raises(AuditDataError) as caught:
        load_audit(tiny)
    message = str(caught.value)
    assert "audit 'tiny'" in message and str(tiny / "audit.yaml") in message
    assert "field 'core_features': column 'scroe' is not in tiny.csv" in message


def test_a_disadvantaged_group_emptied_by_the_filters(tiny):
    text = (tiny / "audit.yaml").read_text().split("expected:")[0]  # no stated counts: the filter is new
    (tiny / "audit.yaml").write_text(text + "filters:\n  - {column: region, op: '==', value: north}\n")
    with pytest.raises(AuditDataError, match=r"field 'protected_attributes.region.disadvantaged': the disadvantaged "
                                             r"group \(region in \['south'\]\) is empty after the filters"):
        load_audit(tiny)


def test_a_label_with_one_class(tiny):
    edit_manifest(tiny, 'positive: {values: ["yes"]}', 'positive: {values: ["maybe"]}')
    with pytest.raises(AuditDataError, match=r"field 'label.positive': after the filters the label has one class "
                                             r"only \(0 for all 80 rows\)"):
        load_audit(tiny)


def test_a_truncated_compressed_file(tiny):
    raw = gzip.compress((tiny / "data" / "tiny.csv").read_bytes())
    (tiny / "data" / "tiny.csv.gz").write_bytes(raw[: len(raw) // 2])
    edit_manifest(tiny, "path: data/tiny.csv", "path: data/tiny.csv.gz")
    with pytest.raises(AuditDataError, match=r"field 'data.path': cannot read .*tiny.csv.gz .*corrupt or truncated"):
        load_audit(tiny)


def test_a_truncated_plain_file_is_caught_by_the_expected_counts(tiny):
    path = tiny / "data" / "tiny.csv"
    text = path.read_text()
    path.write_text(text[: len(text) // 2])
    with pytest.raises(AuditDataError, match=r"field 'expected.rows': expected 80 rows after loading, found \d+; "
                                             r"the data file tiny.csv may be truncated"):
        load_audit(tiny)


def test_changed_group_sizes_are_reported(tiny):
    edit_manifest(tiny, "sex: [27, 53]", "sex: [28, 52]")
    with pytest.raises(AuditDataError, match=r"field 'expected.groups.sex': expected \[28, 52\] rows "
                                             r"\(disadvantaged, advantaged\), found \[27, 53\]"):
        load_audit(tiny)


def test_rules_that_overlap_are_rejected(tiny):
    edit_manifest(tiny, "advantaged: {values: [north]}", "advantaged: {values: [north, south]}")
    with pytest.raises(AuditDataError, match="40 rows match both the disadvantaged and the advantaged rule"):
        load_audit(tiny)
