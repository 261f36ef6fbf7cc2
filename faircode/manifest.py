"""The audit.yaml schema: read, validate in full, and return a :class:`Manifest`.

Every problem in a manifest is collected before anything is raised, so one run of
:func:`load_manifest` lists them all, each with the field, what was expected and what
was found; an unknown key gets a did-you-mean. Columns are checked against the data
later, when the data is read (see :mod:`faircode.datasets`).

The fields (required ones marked *)::

    name*               display name, e.g. "German Credit Lending"
    slug                defaults to the folder name
    description*        one paragraph
    data*               path* (relative to the folder), format (csv), read_options (sep, header,
                        names, na_values, skipinitialspace), decode (JSON of value maps per column)
    derive              new_column: {from: column, map: {old: new}} or {one_hot_prefix: "Race_"}
    label*              column*, positive* (a rule), outcome* (favourable | adverse), meaning
    protected_attributes*  name: {column, disadvantaged* (rule), advantaged* (rule), why}
    intersections       [[a, b], ...] -> attribute a_x_b (disadvantaged on both vs advantaged on both)
    proxies             columns standing in for a protected attribute
    core_features*      model features with no protected column and no proxy
    drop                columns removed on load (names and dates of birth always are)
    filters             [{column, op (== != < <= > >= in not_in), value, why}, ...]; a row is kept
                        when all hold
    deployed_scores     model_name: {column, at_least, meaning}: a score audited as a model
    primary_attribute   the attribute reweighing and group thresholds act on (default: the first)
    test_size           in (0, 1), default 0.2
    random_state        split seed, default 42
    expected            rows: n, groups: {attribute: [n_disadvantaged, n_advantaged]}, checked on load

A rule is ``{values: [...]}`` or numeric bounds ``{below, at_most, above, at_least}``.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from faircode._manifest_fields import (REQUIRED_KEYS, TOP_LEVEL_KEYS, _attributes, _check_not_dropped,
                                       _data_spec, _derivations, _expected, _filters, _integer,
                                       _intersections, _label, _names, _number, _primary, _Problems,
                                       _scores, _text)
from faircode._manifest_schema import (DataSpec, DeployedScore, Derivation, GroupRule, LabelSpec, Manifest,
                                       ProtectedAttribute, RowFilter, intersection_name)
from faircode.exceptions import ManifestError

__all__ = ["DataSpec", "DeployedScore", "Derivation", "GroupRule", "LabelSpec", "Manifest", "ProtectedAttribute",
           "RowFilter", "intersection_name", "load_manifest"]


def load_manifest(path: str | Path) -> Manifest:
    """Read and validate an audit.yaml.

    Parameters
    ----------
    path : str or Path
        The audit.yaml file, or the audit folder holding it.

    Returns
    -------
    Manifest
        The validated manifest; relative data paths are resolved against its folder.

    Raises
    ------
    ManifestError
        Listing every problem found, each with its field, what was expected and what was found.
    """
    path = Path(path)
    if path.is_dir():
        path = path / "audit.yaml"
    if not path.is_file():
        raise ManifestError(str(path), ["file not found: expected an audit.yaml here"])
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as err:
        raise ManifestError(str(path), [f"not valid YAML: {err}"]) from None
    problems = _Problems()
    if not isinstance(raw, dict):
        raise ManifestError(str(path), [f"expected a mapping of fields at the top level, found {type(raw).__name__}"])
    manifest = _build_manifest(path, raw, problems)
    if problems.items:
        raise ManifestError(str(path), problems.items)
    return manifest


def _build_manifest(path: Path, raw: dict, problems: _Problems) -> Manifest:
    problems.unknown_keys("", raw, TOP_LEVEL_KEYS)
    for key in REQUIRED_KEYS:
        if key not in raw:
            problems.add(key, "this required field", "nothing")
    name = _text(raw, "name", problems)
    description = _text(raw, "description", problems)
    slug = _text(raw, "slug", problems, default=path.parent.name)
    data = _data_spec(path.parent, raw.get("data"), problems)
    label = _label(raw.get("label"), problems)
    attributes = _attributes(raw.get("protected_attributes"), problems)
    names = [a.name for a in attributes]
    core = _names(raw, "core_features", problems)
    proxies = _names(raw, "proxies", problems)
    protected_cols = {a.column for a in attributes}
    for column in core:
        if column in protected_cols or column in proxies:
            problems.add("core_features", "no protected column and no proxy", column)
    drop = _names(raw, "drop", problems)
    _check_not_dropped(drop, label, attributes, core, proxies, problems)
    manifest = Manifest(
        path=path, name=name, slug=slug, description=description, data=data, label=label,
        protected_attributes=tuple(attributes), core_features=core, proxies=proxies,
        drop=drop, filters=_filters(raw.get("filters"), problems),
        derive=_derivations(raw.get("derive"), problems),
        intersections=_intersections(raw.get("intersections"), names, problems),
        deployed_scores=_scores(raw.get("deployed_scores"), problems),
        primary_attribute=_primary(raw, names, problems),
        test_size=_number(raw, "test_size", problems, 0.2, low=0.0, high=1.0),
        random_state=_integer(raw, "random_state", problems, 42),
        **_expected(raw.get("expected"), problems),
    )
    return manifest
