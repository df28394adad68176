"""Shared array helpers that replace NumPy's Python-level functions for speed (issue 18) give
NumPy's results bit for bit, and its errors."""

from __future__ import annotations

import numpy as np
import pytest

from glassgrad.ops._common import take_along_axis
from glassgrad.ops.distances import _pairs
from glassgrad.ops.sorting import stable_argsort

SHAPES = [(5,), (3, 4), (2, 3, 4), (1, 1), (2, 1, 3)]


@pytest.mark.parametrize("shape", SHAPES)
def test_take_along_axis_is_numpys(shape: tuple) -> None:
    rng = np.random.default_rng(len(shape))
    x = rng.standard_normal(shape).astype(np.float32)
    for axis in range(-len(shape), len(shape)):
        for size in (1, shape[axis]):
            index_shape = list(shape)
            index_shape[axis] = size
            index = rng.integers(0, shape[axis], index_shape)
            expected = np.take_along_axis(x, index, axis)
            got = take_along_axis(x, index, axis)
            assert got.shape == expected.shape and got.tobytes() == expected.tobytes()
            # an index of size 1 along the other dims broadcasts, as in NumPy
            single = index.reshape(-1)[:1].reshape([1] * len(shape))
            np.testing.assert_array_equal(
                take_along_axis(x, single, axis), np.take_along_axis(x, single, axis)
            )


def test_take_along_axis_errors_are_numpys() -> None:
    x = np.zeros((2, 3))
    for index, axis in ((np.zeros((2,), np.int64), 1), (np.zeros((2, 1)), 1), (np.array(0), 0)):
        with pytest.raises((ValueError, IndexError)) as expected:
            np.take_along_axis(x, index, axis)
        with pytest.raises(expected.type, match=str(expected.value)[:20]):
            take_along_axis(x, index, axis)
    with pytest.raises(IndexError, match="out of bounds"):
        take_along_axis(x, np.full((2, 1), 5), 1)


@pytest.mark.parametrize("shape", SHAPES)
def test_stable_argsort_descending_is_the_flipped_sort(shape: tuple) -> None:
    x = np.random.default_rng(3).integers(0, 3, shape).astype(np.float64)
    x.reshape(-1)[0] = np.nan
    for axis in range(-len(shape), len(shape)):
        n = x.shape[axis]
        expected = np.flip(n - 1 - np.argsort(np.flip(x, axis), axis=axis, kind="stable"), axis)
        got = stable_argsort(x, axis, True)
        assert got.tobytes() == expected.tobytes() and got.strides == expected.strides


@pytest.mark.parametrize("n", [0, 1, 2, 7])
def test_pdist_pairs_are_triu_indices(n: int) -> None:
    first, second = _pairs(n)
    expected = np.triu_indices(n, 1)
    np.testing.assert_array_equal(first, expected[0])
    np.testing.assert_array_equal(second, expected[1])
    assert not first.flags.writeable and not second.flags.writeable
