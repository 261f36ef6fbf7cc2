"""The typed form of an audit.yaml: plain frozen dataclasses, built by :mod:`faircode.manifest`."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any



@dataclass(frozen=True)
class GroupRule:
    """Which values of a column belong to a group: a list of values or numeric bounds."""

    values: tuple | None = None
    below: float | None = None
    at_most: float | None = None
    above: float | None = None
    at_least: float | None = None

    def describe(self) -> str:
        """Return the rule in words, e.g. ``in ['female']`` or ``>= 25``."""
        if self.values is not None:
            return f"in {list(self.values)}"
        parts = [f"{sign} {bound:g}" for sign, bound in (
            ("<", self.below), ("<=", self.at_most), (">", self.above), (">=", self.at_least))
            if bound is not None]
        return " and ".join(parts)


@dataclass(frozen=True)
class DataSpec:
    """Where an audit's data file is and how to read it."""

    path: Path
    format: str = "csv"
    read_options: dict = field(default_factory=dict)
    decode: Path | None = None


@dataclass(frozen=True)
class Derivation:
    """A column made on load: values mapped from another column, or one-hot columns folded back."""

    column: str
    source: str | None = None
    mapping: dict | None = None
    one_hot_prefix: str | None = None


@dataclass(frozen=True)
class LabelSpec:
    """The label column, which of its values count as positive, and what a positive means."""

    column: str
    positive: GroupRule
    outcome: str
    meaning: str = ""


@dataclass(frozen=True)
class ProtectedAttribute:
    """A protected attribute: its column and the rules of its two compared groups."""

    name: str
    column: str
    disadvantaged: GroupRule
    advantaged: GroupRule
    why: str = ""


@dataclass(frozen=True)
class RowFilter:
    """Keep only the rows where ``column op value`` holds."""

    column: str
    op: str
    value: Any
    why: str = ""


@dataclass(frozen=True)
class DeployedScore:
    """A score shipped with the data (not trained here), audited as a model: positive when >= at_least."""

    name: str
    column: str
    at_least: float
    meaning: str = ""


@dataclass(frozen=True)
class Manifest:
    """A validated audit.yaml."""

    path: Path
    name: str
    slug: str
    description: str
    data: DataSpec
    label: LabelSpec
    protected_attributes: tuple[ProtectedAttribute, ...]
    core_features: tuple[str, ...]
    proxies: tuple[str, ...] = ()
    drop: tuple[str, ...] = ()
    filters: tuple[RowFilter, ...] = ()
    derive: tuple[Derivation, ...] = ()
    intersections: tuple[tuple[str, str], ...] = ()
    deployed_scores: tuple[DeployedScore, ...] = ()
    primary_attribute: str = ""
    test_size: float = 0.2
    random_state: int = 42
    expected_rows: int | None = None
    expected_groups: dict = field(default_factory=dict)

    @property
    def folder(self) -> Path:
        """The audit's folder (the one holding audit.yaml)."""
        return self.path.parent

    @property
    def positive_label(self) -> str:
        """``"favourable"`` or ``"adverse"``: what a positive label means for the person."""
        return self.label.outcome

    @property
    def positive_is_favourable(self) -> bool:
        """True when a positive label is good news for the person (a callback, a pass)."""
        return self.label.outcome == "favourable"

    @property
    def attribute_names(self) -> tuple[str, ...]:
        """Protected attribute names, then the intersectional ones (``race_x_sex``)."""
        return tuple(a.name for a in self.protected_attributes) + tuple(
            intersection_name(pair) for pair in self.intersections)

    @property
    def protected_columns(self) -> tuple[str, ...]:
        """The data columns that hold the protected attributes."""
        return tuple(dict.fromkeys(a.column for a in self.protected_attributes))


def intersection_name(pair: tuple[str, str]) -> str:
    """Name of the intersectional attribute of two attributes, e.g. ``race_x_sex``."""
    return f"{pair[0]}_x_{pair[1]}"
