"""faircode._checks: the validation every public function runs at its edge."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from faircode import _checks
from faircode.exceptions import InvalidInputError


def test_check_random_state_accepts_none_int_generator_and_random_state():
    rng = np.random.default_rng(0)
    assert _checks.check_random_state(rng) is rng
    assert _checks.check_random_state(3).random() == np.random.default_rng(3).random()
    assert _checks.check_random_state(np.int64(3)).random() == np.random.default_rng(3).random()
    assert isinstance(_checks.check_random_state(None), np.random.Generator)
    legacy = np.random.RandomState(5)
    wrapped = _checks.check_random_state(legacy)
    expected = np.random.Generator(np.random.RandomState(5)._bit_generator).random(3)
    assert wrapped.random(3).tolist() == expected.tolist()
    # the RandomState's own stream moved on: drawing again gives new numbers
    assert _checks.check_random_state(legacy).random() != expected[0]
    for bad in (True, 1.0, "1", object()):
        with pytest.raises(InvalidInputError) as error:
            _checks.check_random_state(bad)
        assert str(error.value) == _checks.BAD_RANDOM_STATE.format(value=bad)


@pytest.mark.parametrize("values", [[0, 1, 1], np.array([False, True, True]), pd.Series([0.0, 1.0, 1.0])])
def test_binary_arrays_come_back_as_int8(values):
    array = _checks.as_binary_array(values, "y")
    assert array.dtype == np.int8 and array.tolist() == [0, 1, 1]


def test_binary_check_lists_the_other_values_found():
    with pytest.raises(InvalidInputError) as error:
        _checks.as_binary_array([0, 2, 1, -1, 2], "y_pred")
    assert str(error.value) == _checks.NOT_BINARY.format(name="y_pred", found="-1, 2")


def test_group_mask_codes_missing_rows_as_minus_one():
    codes = _checks.as_group_mask(pd.Series([1, 0, None, np.nan, 0.0]), "mask")
    assert codes.tolist() == [1, 0, -1, -1, 0]


@pytest.mark.parametrize("values, count, found", [
    ([1, 0, 3, 0, 2, 3], 3, "2 x 1, 3 x 2"),
    ([1, 0, -1.0, 0], 1, "-1 x 1"),
    ([1, 0, np.inf, 0], 1, "inf x 1"),
])
def test_group_codes_other_than_0_1_and_missing_are_counted_and_refused(values, count, found):
    with pytest.raises(InvalidInputError) as error:
        _checks.as_group_mask(values, "masks['race']")
    assert str(error.value) == _checks.OTHER_GROUP_CODES.format(name="masks['race']", count=count, found=found)


@pytest.mark.parametrize("values, position, count, shown", [
    ([0.0, np.inf, 1.0], 1, 1, "inf"), ([-np.inf, 2.0, np.inf], 0, 2, "-inf")])
def test_infinite_values_are_refused_naming_the_argument(values, position, count, shown):
    with pytest.raises(InvalidInputError) as error:
        _checks.as_numeric_array(values, "a")
    assert str(error.value) == _checks.HAS_INF.format(name="a", count=count, position=position, value=shown)


def test_nullable_pandas_values_are_missing_values():
    with pytest.raises(InvalidInputError) as error:
        _checks.as_numeric_array(pd.Series([1, None, 0], dtype="Int64"), "y_true")
    assert str(error.value) == _checks.HAS_NAN.format(name="y_true", count=1, position=1)


def test_mixed_objects_are_not_numbers():
    with pytest.raises(InvalidInputError) as error:
        _checks.as_numeric_array(np.array([1, "a"], dtype=object), "a")
    assert str(error.value) == _checks.NOT_NUMERIC.format(name="a", dtype="int/str")


def test_same_length_names_both_arguments():
    with pytest.raises(InvalidInputError) as error:
        _checks.check_same_length(y_true=np.zeros(3), y_pred=np.zeros(4))
    assert str(error.value) == _checks.LENGTH_MISMATCH.format(name="y_pred", got=4, other="y_true", expected=3)
