"""Validators of the audit.yaml fields; each adds every problem it finds to a shared list."""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Any

from faircode._manifest_schema import (DataSpec, DeployedScore, Derivation, GroupRule, LabelSpec,
                                       ProtectedAttribute, RowFilter)

TOP_LEVEL_KEYS = (
    "name", "slug", "description", "data", "derive", "label", "protected_attributes",
    "intersections", "proxies", "core_features", "drop", "filters", "deployed_scores",
    "primary_attribute", "test_size", "random_state", "expected",
)
REQUIRED_KEYS = ("name", "description", "data", "label", "protected_attributes", "core_features")
DATA_KEYS = ("path", "format", "read_options", "decode")
READ_OPTIONS = ("sep", "header", "names", "na_values", "skipinitialspace")
DATA_FORMATS = ("csv",)
DERIVE_KEYS = ("from", "map", "one_hot_prefix")
LABEL_KEYS = ("column", "positive", "outcome", "meaning")
OUTCOMES = ("favourable", "adverse")
ATTRIBUTE_KEYS = ("column", "disadvantaged", "advantaged", "why")
RULE_KEYS = ("values", "below", "at_most", "above", "at_least")
FILTER_KEYS = ("column", "op", "value", "why")
FILTER_OPS = ("==", "!=", "<", "<=", ">", ">=", "in", "not_in")
SCORE_KEYS = ("column", "at_least", "meaning")
EXPECTED_KEYS = ("rows", "groups")


class _Problems:
    """Collects the problems of one manifest file, each naming its field."""

    def __init__(self) -> None:
        self.items: list[str] = []

    def add(self, where: str, expected: str, found: Any) -> None:
        self.items.append(f"field '{where}': expected {expected}, found {found!r}")

    def unknown_keys(self, where: str, mapping: dict, allowed: tuple[str, ...]) -> None:
        for key in mapping:
            if key not in allowed:
                close = difflib.get_close_matches(str(key), allowed, n=1)
                hint = f" (did you mean '{close[0]}'?)" if close else ""
                prefix = f"{where}." if where else ""
                self.items.append(
                    f"field '{prefix}{key}': unknown key{hint}; allowed keys are {', '.join(allowed)}")


def _check_not_dropped(drop, label, attributes, core, proxies, problems: _Problems) -> None:
    used = {label.column: "label.column", **{c: "proxies" for c in proxies},
            **{c: "core_features" for c in core},
            **{a.column: f"protected_attributes.{a.name}.column" for a in attributes}}
    for column in drop:
        if column in used:
            problems.add("drop", f"columns the audit does not use ({column!r} is used by {used[column]})", column)


def _text(raw: dict, key: str, problems: _Problems, default: str = "") -> str:
    if key not in raw:
        return default
    value = raw[key]
    if not isinstance(value, str) or not value.strip():
        problems.add(key, "a non-empty text", value)
        return default
    return value.strip()


def _names(raw: dict, key: str, problems: _Problems) -> tuple[str, ...]:
    value = raw.get(key, [])
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        problems.add(key, "a list of column names", value)
        return ()
    return tuple(value)


def _number(raw: dict, key: str, problems: _Problems, default: float, low: float, high: float) -> float:
    value = raw.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not low < value < high:
        problems.add(key, f"a number between {low:g} and {high:g} (exclusive)", value)
        return default
    return float(value)


def _integer(raw: dict, key: str, problems: _Problems, default: int) -> int:
    value = raw.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        problems.add(key, "a non-negative whole number", value)
        return default
    return value


def _data_spec(folder: Path, raw: Any, problems: _Problems) -> DataSpec:
    if not isinstance(raw, dict):
        if raw is not None:
            problems.add("data", "a mapping with path, format, read_options", raw)
        return DataSpec(path=folder)
    problems.unknown_keys("data", raw, DATA_KEYS)
    rel = raw.get("path")
    if not isinstance(rel, str) or not rel:
        problems.add("data.path", "the data file's path, relative to the audit folder", rel)
        rel = ""
    fmt = raw.get("format", "csv")
    if fmt not in DATA_FORMATS:
        problems.add("data.format", f"one of {', '.join(DATA_FORMATS)}", fmt)
    options = raw.get("read_options", {}) or {}
    if not isinstance(options, dict):
        problems.add("data.read_options", "a mapping of reader options", options)
        options = {}
    problems.unknown_keys("data.read_options", options, READ_OPTIONS)
    decode = raw.get("decode")
    if decode is not None and not isinstance(decode, str):
        problems.add("data.decode", "the path of a JSON file of value maps", decode)
        decode = None
    return DataSpec(path=folder / rel, format=str(fmt), read_options=dict(options),
                    decode=folder / decode if decode else None)


def _rule(raw: Any, where: str, problems: _Problems) -> GroupRule:
    if not isinstance(raw, dict) or not raw:
        problems.add(where, "a rule: {values: [...]} or numeric bounds (below, at_most, above, at_least)", raw)
        return GroupRule()
    problems.unknown_keys(where, raw, RULE_KEYS)
    if "values" in raw:
        values = raw["values"]
        if len(raw) > 1:
            problems.add(where, "either values or numeric bounds, not both", sorted(raw))
        if not isinstance(values, list) or not values:
            problems.add(f"{where}.values", "a non-empty list of values", values)
            return GroupRule()
        return GroupRule(values=tuple(values))
    bounds = {}
    for key in RULE_KEYS[1:]:
        if key in raw:
            bound = raw[key]
            if isinstance(bound, bool) or not isinstance(bound, (int, float)):
                problems.add(f"{where}.{key}", "a number", bound)
            else:
                bounds[key] = float(bound)
    return GroupRule(**bounds)


def _label(raw: Any, problems: _Problems) -> LabelSpec:
    empty = LabelSpec(column="", positive=GroupRule(), outcome="adverse")
    if not isinstance(raw, dict):
        if raw is not None:
            problems.add("label", "a mapping with column, positive, outcome", raw)
        return empty
    problems.unknown_keys("label", raw, LABEL_KEYS)
    column = raw.get("column")
    if not isinstance(column, str) or not column:
        problems.add("label.column", "the label's column name", column)
        column = ""
    outcome = raw.get("outcome")
    if outcome not in OUTCOMES:
        problems.add("label.outcome", "'favourable' (e.g. a callback) or 'adverse' (e.g. a denial)", outcome)
        outcome = "adverse"
    positive = _rule(raw.get("positive"), "label.positive", problems)
    return LabelSpec(column=column, positive=positive, outcome=outcome, meaning=str(raw.get("meaning", "")))


def _attributes(raw: Any, problems: _Problems) -> list[ProtectedAttribute]:
    if not isinstance(raw, dict) or not raw:
        if raw is not None:
            problems.add("protected_attributes", "a mapping of attribute name to {column, disadvantaged, advantaged}", raw)
        return []
    attributes = []
    for name, spec in raw.items():
        where = f"protected_attributes.{name}"
        if not isinstance(spec, dict):
            problems.add(where, "a mapping with column, disadvantaged, advantaged", spec)
            continue
        problems.unknown_keys(where, spec, ATTRIBUTE_KEYS)
        column = spec.get("column", name)
        if not isinstance(column, str):
            problems.add(f"{where}.column", "a column name", column)
            column = str(name)
        attributes.append(ProtectedAttribute(
            name=str(name), column=column,
            disadvantaged=_rule(spec.get("disadvantaged"), f"{where}.disadvantaged", problems),
            advantaged=_rule(spec.get("advantaged"), f"{where}.advantaged", problems),
            why=str(spec.get("why", ""))))
    return attributes


def _filters(raw: Any, problems: _Problems) -> tuple[RowFilter, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        problems.add("filters", "a list of {column, op, value}", raw)
        return ()
    filters = []
    for i, spec in enumerate(raw):
        where = f"filters[{i}]"
        if not isinstance(spec, dict) or "column" not in spec or "op" not in spec:
            problems.add(where, "a mapping with column, op and value", spec)
            continue
        problems.unknown_keys(where, spec, FILTER_KEYS)
        if spec["op"] not in FILTER_OPS:
            problems.add(f"{where}.op", f"one of {', '.join(FILTER_OPS)}", spec["op"])
            continue
        if spec["op"] in ("in", "not_in") and not isinstance(spec.get("value"), list):
            problems.add(f"{where}.value", f"a list of values for op '{spec['op']}'", spec.get("value"))
            continue
        filters.append(RowFilter(column=str(spec["column"]), op=spec["op"], value=spec.get("value"),
                                 why=str(spec.get("why", ""))))
    return tuple(filters)


def _derivations(raw: Any, problems: _Problems) -> tuple[Derivation, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, dict):
        problems.add("derive", "a mapping of new column to {from, map} or {one_hot_prefix}", raw)
        return ()
    derived = []
    for column, spec in raw.items():
        where = f"derive.{column}"
        if not isinstance(spec, dict):
            problems.add(where, "a mapping with from and map, or one_hot_prefix", spec)
            continue
        problems.unknown_keys(where, spec, DERIVE_KEYS)
        if "one_hot_prefix" in spec:
            derived.append(Derivation(column=str(column), one_hot_prefix=str(spec["one_hot_prefix"])))
        elif isinstance(spec.get("from"), str) and isinstance(spec.get("map"), dict):
            derived.append(Derivation(column=str(column), source=spec["from"], mapping=dict(spec["map"])))
        else:
            problems.add(where, "{from: column, map: {old: new}} or {one_hot_prefix: text}", spec)
    return tuple(derived)


def _intersections(raw: Any, names: list[str], problems: _Problems) -> tuple[tuple[str, str], ...]:
    if raw is None:
        return ()
    pairs = []
    for i, pair in enumerate(raw if isinstance(raw, list) else [raw]):
        if not isinstance(pair, list) or len(pair) != 2 or not all(p in names for p in pair):
            problems.add(f"intersections[{i}]", f"a pair of protected attribute names from {names}", pair)
            continue
        pairs.append((pair[0], pair[1]))
    return tuple(pairs)


def _scores(raw: Any, problems: _Problems) -> tuple[DeployedScore, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, dict):
        problems.add("deployed_scores", "a mapping of model name to {column, at_least}", raw)
        return ()
    scores = []
    for name, spec in raw.items():
        where = f"deployed_scores.{name}"
        if not isinstance(spec, dict) or not isinstance(spec.get("column"), str) \
                or isinstance(spec.get("at_least"), bool) or not isinstance(spec.get("at_least"), (int, float)):
            problems.add(where, "{column: score column, at_least: number}", spec)
            continue
        problems.unknown_keys(where, spec, SCORE_KEYS)
        scores.append(DeployedScore(name=str(name), column=spec["column"], at_least=float(spec["at_least"]),
                                    meaning=str(spec.get("meaning", ""))))
    return tuple(scores)


def _primary(raw: dict, names: list[str], problems: _Problems) -> str:
    value = raw.get("primary_attribute", names[0] if names else "")
    if names and value not in names:
        problems.add("primary_attribute", f"one of the protected attributes {names}", value)
        return names[0]
    return value


def _expected(raw: Any, problems: _Problems) -> dict:
    if raw is None:
        return {"expected_rows": None, "expected_groups": {}}
    if not isinstance(raw, dict):
        problems.add("expected", "a mapping with rows and groups", raw)
        return {"expected_rows": None, "expected_groups": {}}
    problems.unknown_keys("expected", raw, EXPECTED_KEYS)
    rows = raw.get("rows")
    if isinstance(rows, bool) or not isinstance(rows, int):
        problems.add("expected.rows", "a whole number of rows", rows)
        rows = None
    groups = {}
    for name, sizes in (raw.get("groups") or {}).items():
        if not (isinstance(sizes, list) and len(sizes) == 2 and all(isinstance(s, int) for s in sizes)):
            problems.add(f"expected.groups.{name}", "[n_disadvantaged, n_advantaged]", sizes)
            continue
        groups[str(name)] = (sizes[0], sizes[1])
    return {"expected_rows": rows, "expected_groups": groups}
