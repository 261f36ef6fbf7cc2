"""Loading an audit: find it, read its data, derive and filter rows, and build label and group masks.

A group mask is a float Series, one value a row: 1.0 for the disadvantaged group, 0.0 for
the advantaged group, and NaN for rows in neither group (they take no part in that
attribute's comparison). An intersectional mask ``a_x_b`` is 1.0 for rows disadvantaged
on both attributes, 0.0 for rows advantaged on both, NaN otherwise.
"""

from __future__ import annotations

import io
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from faircode.exceptions import AuditDataError
from faircode.manifest import GroupRule, Manifest, RowFilter, intersection_name, load_manifest

AUDITS_DIR_ENV = "FAIRCODE_AUDITS_DIR"
IDENTIFYING_COLUMNS = ("name", "first", "last", "dob")
_COMPRESSION = {".gz": "gzip", ".bz2": "bz2", ".zip": "zip", ".xz": "xz", ".zst": "zstd"}
_FILTER_OPS = {
    "==": lambda s, v: s == v, "!=": lambda s, v: s != v, "<": lambda s, v: s < v,
    "<=": lambda s, v: s <= v, ">": lambda s, v: s > v, ">=": lambda s, v: s >= v,
    "in": lambda s, v: s.isin(v), "not_in": lambda s, v: ~s.isin(v),
}


@dataclass
class AuditData:
    """A loaded audit: the manifest, the filtered rows, features, label, group masks and the split.

    ``X`` holds every feature the baseline strategy uses (core features, protected columns
    and proxies), one-hot encoded; ``X_core`` only the core features (no protected column,
    no proxy). ``idx_train`` and ``idx_test`` are row positions of a split stratified on ``y``.
    """

    manifest: Manifest
    df: pd.DataFrame
    X: pd.DataFrame
    X_core: pd.DataFrame
    y: pd.Series
    masks: dict[str, pd.Series]
    idx_train: np.ndarray
    idx_test: np.ndarray
    split_seed: int = field(default=42)


def audits_root(root: str | Path | None = None) -> Path:
    """Return the folder of audits: ``root``, else $FAIRCODE_AUDITS_DIR, else the repository's audits/."""
    if root is not None:
        return Path(root)
    if os.environ.get(AUDITS_DIR_ENV):
        return Path(os.environ[AUDITS_DIR_ENV])
    return Path(__file__).resolve().parent.parent / "audits"


def available_audits(root: str | Path | None = None) -> list[str]:
    """Slugs of the audits under the audits folder (folders holding an audit.yaml), sorted."""
    base = audits_root(root)
    return sorted(p.parent.name for p in base.glob("*/audit.yaml"))


def find_manifest_path(audit: str | Path, root: str | Path | None = None) -> Path:
    """Resolve a path, a slug ("german_credit_lending") or a display name ("German Credit Lending")."""
    candidate = Path(audit)
    for path in (candidate, candidate / "audit.yaml"):
        if path.is_file():
            return path
    base = audits_root(root)
    by_slug = base / str(audit) / "audit.yaml"
    if by_slug.is_file():
        return by_slug
    wanted = str(audit).strip().casefold()
    for slug in available_audits(base):
        path = base / slug / "audit.yaml"
        if _display_name(path).casefold() == wanted:
            return path
    raise AuditDataError(
        f"no audit called {str(audit)!r}: expected a path to an audit folder, a slug or a display name; "
        f"audits under {base}: {', '.join(available_audits(base)) or 'none'}")


def _display_name(path: Path) -> str:
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("name:"):
            return line.split(":", 1)[1].strip().strip("'\"")
    return ""


def _fail(manifest: Manifest, field_name: str, message: str) -> AuditDataError:
    return AuditDataError(f"audit '{manifest.slug}' ({manifest.path}), field '{field_name}': {message}")


def read_data(manifest: Manifest, files: Mapping[Path, bytes] | None = None) -> pd.DataFrame:
    """Read the audit's data file as the manifest says, decoding coded values if asked.

    ``files`` maps paths to their contents: a path found there is read from those bytes
    instead of from disk (how a work unit's data travels to a worker without the files).
    """
    path = manifest.data.path
    files = files or {}
    if path not in files and not path.is_file():
        raise _fail(manifest, "data.path", f"data file {path} not found; expected the file the manifest names")
    options = dict(manifest.data.read_options)
    if "header" in options and options["header"] is None and "names" not in options:
        raise _fail(manifest, "data.read_options", "header is null, so names must list the columns")
    try:
        if path in files:  # bytes carry no name, so say how they are compressed
            options.setdefault("compression", _COMPRESSION.get(path.suffix))
        df = pd.read_csv(io.BytesIO(files[path]) if path in files else path, **options)
    except Exception as err:  # noqa: BLE001 - any reader failure means a damaged file
        raise _fail(manifest, "data.path",
                    f"cannot read {path} ({type(err).__name__}: {err}); the file may be corrupt or truncated, "
                    "restore it from the source named in SOURCE.md") from None
    if manifest.data.decode is not None:
        df = _decode(manifest, df, files)
    return df


def _decode(manifest: Manifest, df: pd.DataFrame, files: Mapping[Path, bytes]) -> pd.DataFrame:
    path = manifest.data.decode
    try:
        maps = json.loads(files[path].decode("utf-8") if path in files else path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise _fail(manifest, "data.decode", f"cannot read value maps {path}: {err}") from None
    df = df.copy()
    for column, mapping in maps.items():
        if column in df.columns:
            df[column] = df[column].astype(str).map(lambda v, m=mapping: m.get(v, v))
    return df


def _derive(manifest: Manifest, df: pd.DataFrame) -> pd.DataFrame:
    df = df.copy()
    for d in manifest.derive:
        where = f"derive.{d.column}"
        if d.one_hot_prefix is not None:
            columns = [c for c in df.columns if str(c).startswith(d.one_hot_prefix)]
            if not columns:
                raise _fail(manifest, where, f"no column starts with {d.one_hot_prefix!r}")
            block = df[columns].to_numpy()
            labels = np.array([str(c)[len(d.one_hot_prefix):] for c in columns], dtype=object)
            df[d.column] = np.where(block.sum(axis=1) == 1, labels[block.argmax(axis=1)], None)
        else:
            if d.source not in df.columns:
                raise _fail(manifest, where, f"source column {d.source!r} not in the data")
            df[d.column] = df[d.source].map(d.mapping)
    return df


def _check_columns(manifest: Manifest, df: pd.DataFrame) -> None:
    wanted = [("label.column", manifest.label.column)]
    wanted += [(f"protected_attributes.{a.name}.column", a.column) for a in manifest.protected_attributes]
    wanted += [("core_features", c) for c in manifest.core_features]
    wanted += [("proxies", c) for c in manifest.proxies]
    wanted += [(f"filters[{i}].column", f.column) for i, f in enumerate(manifest.filters)]
    wanted += [(f"deployed_scores.{s.name}.column", s.column) for s in manifest.deployed_scores]
    missing = [(where, column) for where, column in wanted if column not in df.columns]
    if missing:
        where, column = missing[0]
        others = ", ".join(f"{c!r} ({w})" for w, c in missing[1:])
        raise _fail(manifest, where,
                    f"column {column!r} is not in {manifest.data.path.name}"
                    + (f"; also missing: {others}" if others else "")
                    + f"; the data has columns {', '.join(map(str, df.columns))}")


def _apply_filters(manifest: Manifest, df: pd.DataFrame) -> pd.DataFrame:
    keep = pd.Series(True, index=df.index)
    for i, f in enumerate(manifest.filters):
        keep &= _filter_mask(manifest, df, f, i)
    return df.loc[keep].reset_index(drop=True)


def _filter_mask(manifest: Manifest, df: pd.DataFrame, f: RowFilter, i: int) -> pd.Series:
    try:
        return _FILTER_OPS[f.op](df[f.column], f.value).fillna(False).astype(bool)
    except TypeError as err:
        raise _fail(manifest, f"filters[{i}]",
                    f"cannot compare column {f.column!r} ({df[f.column].dtype}) with {f.value!r}: {err}") from None


def rule_matches(series: pd.Series, rule: GroupRule) -> pd.Series:
    """Boolean Series: which rows of ``series`` satisfy the group rule (missing values never do)."""
    if rule.values is not None:
        return series.isin(list(rule.values))
    numeric = pd.to_numeric(series, errors="coerce")
    match = numeric.notna()
    for bound, test in ((rule.below, numeric.lt), (rule.at_most, numeric.le),
                        (rule.above, numeric.gt), (rule.at_least, numeric.ge)):
        if bound is not None:
            match &= test(bound)
    return match


def build_label(manifest: Manifest, df: pd.DataFrame) -> pd.Series:
    """The 0/1 label (1 = the manifest's positive rule holds), checked to have both classes."""
    y = rule_matches(df[manifest.label.column], manifest.label.positive).astype(int).rename("label")
    counts = y.value_counts()
    if len(counts) < 2:
        only = int(counts.index[0]) if len(counts) else "none"
        raise _fail(manifest, "label.positive",
                    f"after the filters the label has one class only ({only} for all {len(y)} rows); "
                    f"expected both 0 and 1: check the rule {manifest.label.positive.describe()} "
                    f"against the values of {manifest.label.column!r}")
    return y


def build_masks(manifest: Manifest, df: pd.DataFrame) -> dict[str, pd.Series]:
    """Group masks for every protected attribute and every intersection (1 = disadvantaged)."""
    masks = {}
    for a in manifest.protected_attributes:
        where = f"protected_attributes.{a.name}"
        disadvantaged = rule_matches(df[a.column], a.disadvantaged)
        advantaged = rule_matches(df[a.column], a.advantaged)
        if (disadvantaged & advantaged).any():
            raise _fail(manifest, where, f"{int((disadvantaged & advantaged).sum())} rows match both the "
                        "disadvantaged and the advantaged rule; expected two separate groups")
        for group, match in (("disadvantaged", disadvantaged), ("advantaged", advantaged)):
            if not match.any():
                rule = getattr(a, group)
                raise _fail(manifest, f"{where}.{group}",
                            f"the {group} group ({a.column} {rule.describe()}) is empty after the filters; "
                            f"values found: {sorted(map(str, df[a.column].dropna().unique()))[:12]}")
        mask = pd.Series(np.nan, index=df.index, name=a.name)
        mask[disadvantaged] = 1.0
        mask[advantaged] = 0.0
        masks[a.name] = mask
    for pair in manifest.intersections:
        first, second = masks[pair[0]], masks[pair[1]]
        mask = pd.Series(np.nan, index=df.index, name=intersection_name(pair))
        mask[(first == 1) & (second == 1)] = 1.0
        mask[(first == 0) & (second == 0)] = 0.0
        masks[mask.name] = mask
    return masks


def _load_dataset(manifest: Manifest,
                  files: Mapping[Path, bytes] | None = None) -> tuple[pd.DataFrame, pd.Series, dict[str, pd.Series]]:
    """Read, derive, filter and check an audit's data.

    Parameters
    ----------
    manifest : Manifest
        A validated manifest (see :func:`faircode.manifest.load_manifest`).
    files : mapping of Path to bytes, optional
        Contents of the manifest's data files, read instead of the files on disk.

    Returns
    -------
    df : pandas.DataFrame
        The kept rows, index 0..n-1, without identifying columns (names, dates of birth)
        and without the manifest's ``drop`` columns.
    y : pandas.Series
        The 0/1 label (1 = the manifest's positive rule).
    masks : dict of str -> pandas.Series
        Per protected attribute and intersection: 1.0 disadvantaged, 0.0 advantaged, NaN neither.

    Raises
    ------
    AuditDataError
        A missing or unreadable data file, a column the data lacks, an empty group, a one-class label.
    """
    raw = _derive(manifest, read_data(manifest, files))
    _check_columns(manifest, raw)
    df = _apply_filters(manifest, raw)
    if df.empty:
        raise _fail(manifest, "filters", f"no row of {len(raw)} passes the filters")
    dropped = [c for c in (*IDENTIFYING_COLUMNS, *manifest.drop) if c in df.columns]
    df = df.drop(columns=dropped)
    _check_expected_rows(manifest, df)
    y, masks = build_label(manifest, df), build_masks(manifest, df)
    _check_expected_groups(manifest, masks)
    return df, y, masks


def _check_expected_rows(manifest: Manifest, df: pd.DataFrame) -> None:
    """Compare the loaded row count with the manifest's ``expected.rows``, if given."""
    if manifest.expected_rows is not None and len(df) != manifest.expected_rows:
        raise _fail(manifest, "expected.rows",
                    f"expected {manifest.expected_rows} rows after loading, found {len(df)}; the data file "
                    f"{manifest.data.path.name} may be truncated or replaced (check its sha256 in SOURCE.md)")


def _check_expected_groups(manifest: Manifest, masks: dict[str, pd.Series]) -> None:
    """Compare the group sizes with the manifest's ``expected.groups``, if given."""
    for name, (n_dis, n_adv) in manifest.expected_groups.items():
        if name not in masks:
            raise _fail(manifest, f"expected.groups.{name}", f"no attribute {name!r}; attributes: {list(masks)}")
        found = (int((masks[name] == 1).sum()), int((masks[name] == 0).sum()))
        if found != (n_dis, n_adv):
            raise _fail(manifest, f"expected.groups.{name}",
                        f"expected [{n_dis}, {n_adv}] rows (disadvantaged, advantaged), found {list(found)}")


def split_indices(y: pd.Series, test_size: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Row positions of a train/test split stratified on the label."""
    from sklearn.model_selection import train_test_split

    train, test = train_test_split(np.arange(len(y)), test_size=test_size, random_state=seed, stratify=y)
    return np.sort(train), np.sort(test)


def load_audit(audit: str | Path, random_state: int | None = None, *,
               audits_dir: str | Path | None = None) -> AuditData:
    """Load an audit by path, slug or display name, with its features and its train/test split.

    Parameters
    ----------
    audit : str or Path
        A folder holding audit.yaml (or the file itself), a slug such as
        ``"german_credit_lending"`` or a display name such as ``"German Credit Lending"``.
    random_state : int or None
        Seed of the train/test split; None uses the manifest's ``random_state``. It changes
        the split only: rows, features, label and masks stay the same.
    audits_dir : str or Path, optional
        Where slugs and names are looked up (default: see :func:`audits_root`).

    Returns
    -------
    AuditData
        manifest, df, X (baseline features), X_core (core features), y, masks, idx_train, idx_test.

    Raises
    ------
    AuditDataError
        Naming the audit, its manifest file and the field at fault.
    ManifestError
        When the audit.yaml itself is invalid.
    """
    return audit_from_manifest(load_manifest(find_manifest_path(audit, audits_dir)), random_state)


def audit_from_manifest(manifest: Manifest, random_state: int | None = None,
                        files: Mapping[Path, bytes] | None = None) -> AuditData:
    """Load the audit a validated manifest describes (see :func:`load_audit`).

    Parameters
    ----------
    manifest : Manifest
        From :func:`faircode.manifest.load_manifest`.
    random_state : int or None
        Seed of the train/test split; None uses the manifest's ``random_state``.
    files : mapping of Path to bytes, optional
        Contents of the manifest's data files (``data.path``, ``data.decode``), read instead
        of the files on disk, for a process that does not share the files' folder.

    Returns
    -------
    AuditData

    Examples
    --------
    >>> from faircode.manifest import load_manifest
    >>> manifest = load_manifest(find_manifest_path("german_credit_lending"))
    >>> files = {manifest.data.path: manifest.data.path.read_bytes()}
    >>> audit_from_manifest(manifest, files=files).X.shape[0] == load_audit("german_credit_lending").X.shape[0]
    True
    """
    from faircode.strategies import encode_features, feature_columns

    df, y, masks = _load_dataset(manifest, files)
    seed = manifest.random_state if random_state is None else int(random_state)
    train, test = split_indices(y, manifest.test_size, seed)
    return AuditData(
        manifest=manifest, df=df, X=encode_features(df, feature_columns(manifest, "baseline")),
        X_core=encode_features(df, feature_columns(manifest, "unawareness_proxy_removal")),
        y=y, masks=masks, idx_train=train, idx_test=test, split_seed=seed)
