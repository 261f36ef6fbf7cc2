"""Input validation shared by the statistics modules.

Every public function of faircode validates its arguments here, once, at the edge, so
that bad input fails with a message naming the argument, saying what was expected and
what was found, and never deep inside numpy. The messages are module constants so the
tests can assert them exactly.

Inputs are accepted as lists, numpy arrays or pandas Series. Alignment is positional:
element ``i`` of every argument describes the same row (a Series index is ignored).
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence

import numpy as np

from faircode.exceptions import InvalidInputError

NOT_ONE_DIMENSIONAL = "{name} must be one-dimensional; got an array of shape {shape}."
NOT_NUMERIC = "{name} must hold numbers; found values of type {dtype}."
EMPTY_ARRAY = "{name} is empty; it needs at least one row."
HAS_NAN = (
    "{name} contains {count} missing value(s) (NaN), the first at position {position}; "
    "drop or impute those rows before measuring."
)
NOT_BINARY = "{name} must contain only 0 and 1; found {found}."
LENGTH_MISMATCH = (
    "{name} has {got} rows but {other} has {expected}; every argument must describe the same rows."
)
EMPTY_GROUP = (
    "{name} has no {which} rows (value {value}); both groups need at least one row to be compared."
)
NOT_IN_OPEN_UNIT = "The '{name}' parameter must be a float in (0, 1). Got {value!r} instead."
NOT_POSITIVE_INT = "The '{name}' parameter must be a positive integer. Got {value!r} instead."
NOT_ONE_OF = "The '{name}' parameter must be one of {allowed}. Got {value!r} instead."
BAD_RANDOM_STATE = (
    "random_state must be None, an int, a numpy.random.Generator or a numpy.random.RandomState. "
    "Got {value!r} instead."
)
HAS_INF = (
    "{name} contains {count} infinite value(s), the first at position {position} ({value}); "
    "every value must be a finite number."
)
OTHER_GROUP_CODES = (
    "{name} must hold 1 (disadvantaged), 0 (advantaged) or a missing value (NaN or None: the row is "
    "left out); found {count} row(s) with other values ({found}). Mark the rows to leave out as NaN."
)
DEFAULT_SEED = 42
"""The default ``random_state`` of every function that draws random numbers: a call
repeated gives the same answer. Pass None for fresh entropy."""


def check_random_state(random_state) -> np.random.Generator:
    """Turn None, an int seed, a Generator or a RandomState into a numpy Generator.

    A Generator is returned as it is (so successive calls continue its stream); a legacy
    ``numpy.random.RandomState`` is wrapped in a Generator on its own bit generator, so
    drawing advances the RandomState, as scikit-learn's ``check_random_state`` lets a
    RandomState be shared; an int gives a fresh, reproducible Generator; None gives fresh
    entropy.
    """
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        return np.random.Generator(random_state._bit_generator)
    if random_state is None:
        return np.random.default_rng()
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        return np.random.default_rng(int(random_state))
    raise InvalidInputError(BAD_RANDOM_STATE.format(value=random_state))


def as_numeric_array(values: Sequence | np.ndarray, name: str) -> np.ndarray:
    """Return ``values`` as a 1-D float array of finite numbers, or raise naming ``name``."""
    array = _as_float_array(values, name)
    if array.size == 0:
        raise InvalidInputError(EMPTY_ARRAY.format(name=name))
    _reject_nan(array, name)
    _reject_inf(array, name)
    return array


def as_binary_array(values: Sequence | np.ndarray, name: str) -> np.ndarray:
    """Return ``values`` as a 1-D int8 array of 0s and 1s, or raise naming ``name``.

    Booleans and the floats 0.0 / 1.0 are accepted; anything else is refused.
    """
    array = as_numeric_array(values, name)
    return binary_or_raise(array, name)


def binary_or_raise(array: np.ndarray, name: str) -> np.ndarray:
    """Return a validated numeric array as int8 0/1, or raise listing the other values."""
    bad = (array != 0) & (array != 1)
    if bad.any():
        found = np.unique(array[bad])
        listing = ", ".join(f"{v:g}" for v in found[:5]) + (" ..." if found.size > 5 else "")
        raise InvalidInputError(NOT_BINARY.format(name=name, found=listing))
    return array.astype(np.int8)


def is_binary(array: np.ndarray) -> bool:
    """True when every value of a numeric array is 0 or 1."""
    return bool(np.all((array == 0) | (array == 1)))


def as_group_mask(values: Sequence | np.ndarray, name: str) -> np.ndarray:
    """Return a group mask as int8: 1 disadvantaged, 0 advantaged, -1 left out.

    A missing value (NaN, None, pandas.NA) marks a row left out of the comparison. Any
    other value is refused, with how many rows hold which values: a row is never dropped
    silently because its code was mistyped (2 for a third group, -1, inf). Raises when
    either group is empty.
    """
    array = _as_float_array(values, name)
    if array.size == 0:
        raise InvalidInputError(EMPTY_ARRAY.format(name=name))
    codes = np.full(array.shape, -1, dtype=np.int8)
    codes[array == 1] = 1
    codes[array == 0] = 0
    other = (codes == -1) & ~np.isnan(array)
    if other.any():
        found, count = np.unique(array[other], return_counts=True)
        listing = ", ".join(f"{v:g} x {c}" for v, c in zip(found[:5], count[:5])) + (" ..." if found.size > 5 else "")
        raise InvalidInputError(OTHER_GROUP_CODES.format(name=name, count=int(other.sum()), found=listing))
    for value, which in ((1, "disadvantaged"), (0, "advantaged")):
        if not np.any(codes == value):
            raise InvalidInputError(EMPTY_GROUP.format(name=name, which=which, value=value))
    return codes


def check_same_length(**arrays: np.ndarray) -> None:
    """Raise when the named arrays do not all have the length of the first one."""
    names = list(arrays)
    first = names[0]
    for name in names[1:]:
        if len(arrays[name]) != len(arrays[first]):
            raise InvalidInputError(
                LENGTH_MISMATCH.format(
                    name=name, got=len(arrays[name]), other=first, expected=len(arrays[first])
                )
            )


def check_open_unit(value: float, name: str) -> float:
    """Return ``value`` as a float if it lies strictly between 0 and 1, else raise."""
    if (
        isinstance(value, bool)
        or not isinstance(value, numbers.Real)
        or not 0 < float(value) < 1
    ):
        raise InvalidInputError(NOT_IN_OPEN_UNIT.format(name=name, value=value))
    return float(value)


def check_positive_int(value: int, name: str) -> int:
    """Return ``value`` as an int if it is a positive integer, else raise."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise InvalidInputError(NOT_POSITIVE_INT.format(name=name, value=value))
    return int(value)


def check_one_of(value: str, name: str, allowed: tuple[str, ...]) -> str:
    """Return ``value`` if it is one of ``allowed``, else raise listing the choices."""
    if value not in allowed:
        choices = ", ".join(repr(a) for a in allowed)
        raise InvalidInputError(NOT_ONE_OF.format(name=name, allowed=choices, value=value))
    return value


def _as_float_array(values: Sequence | np.ndarray, name: str) -> np.ndarray:
    raw = np.asarray(values)
    if raw.ndim != 1:
        raise InvalidInputError(NOT_ONE_DIMENSIONAL.format(name=name, shape=raw.shape))
    if raw.dtype == object:
        raw = _object_to_float(raw, name)
    if raw.dtype.kind not in "biuf":
        raise InvalidInputError(NOT_NUMERIC.format(name=name, dtype=raw.dtype))
    return raw.astype(float, copy=False)


def _object_to_float(raw: np.ndarray, name: str) -> np.ndarray:
    """Convert an object array (a pandas nullable column, a list with None) to float."""
    try:
        return np.array([np.nan if v is None or v is _pandas_na() else v for v in raw], dtype=float)
    except (TypeError, ValueError):
        kinds = sorted({type(v).__name__ for v in raw})
        raise InvalidInputError(NOT_NUMERIC.format(name=name, dtype="/".join(kinds))) from None


def _pandas_na() -> object:
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - pandas is a dependency
        return object()
    return pd.NA


def _reject_inf(array: np.ndarray, name: str) -> None:
    infinite = np.isinf(array)
    if infinite.any():
        position = int(np.argmax(infinite))
        raise InvalidInputError(
            HAS_INF.format(name=name, count=int(infinite.sum()), position=position, value=array[position])
        )


def _reject_nan(array: np.ndarray, name: str) -> None:
    missing = np.isnan(array)
    if missing.any():
        position = int(np.argmax(missing))
        raise InvalidInputError(
            HAS_NAN.format(name=name, count=int(missing.sum()), position=position)
        )
