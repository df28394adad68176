"""Shared array helpers that replace NumPy's Python-level functions for speed (issue 18) give
NumPy's results bit for bit, and its errors; the short paths of ops give what the paths they
shorten give."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from glassgrad.ops._common import moveaxis, take_along_axis
from glassgrad.ops.clamping import NanToNumBackward0
from glassgrad.ops.distances import _pairs
from glassgrad.ops.lu import lu_arrays
from glassgrad.ops.products import LinalgCrossBackward0
from glassgrad.ops.searching import _search, _search_steps
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


def test_search_on_sorted_sequences_is_atens_halving() -> None:
    # A sorted 1-d sequence without NaN takes NumPy's searchsorted; anything else the halving
    # steps (ATen's binary search): both give the same places where the first applies.
    rng = np.random.default_rng(18)
    for trial in range(400):
        n = int(rng.integers(0, 9))
        if trial % 4 == 0:
            sequence = np.sort(rng.integers(-3, 4, n)).astype(np.float32)
        elif trial % 4 == 1:
            sequence = np.sort(rng.integers(-3, 4, n))
        elif trial % 4 == 2:
            sequence = np.sort(rng.standard_normal(n))
        else:  # NaN in the sequence, sorted or not: the halving steps
            sequence = rng.integers(-3, 4, n).astype(np.float64)
            sequence[rng.random(n) < 0.3] = np.nan
        values = rng.integers(-4, 5, (3, 2)).astype(np.float32)
        values[0, 0], values[1, 1] = np.nan, -0.0
        for v in (values, values[0, 1], np.array(2.0), rng.integers(-4, 5, (4,))):
            for side in ("left", "right"):
                got = _search(sequence, np.asarray(v), side)
                expected = _search_steps(sequence, np.asarray(v), side)
                assert got.shape == expected.shape and got.dtype == expected.dtype
                np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128])
def test_lu_of_one_matrix_is_the_batched_steps(dtype: type) -> None:
    # One matrix takes plain indexing (_lu_one); a batch, gathers and masks: the same bits.
    rng = np.random.default_rng(7)
    for shape in [(1, 1), (3, 3), (5, 3), (3, 5), (9, 9)]:
        a = rng.standard_normal(shape)
        if np.dtype(dtype).kind == "c":
            a = a + 1j * rng.standard_normal(shape)
        a = a.astype(dtype)
        zero_column = a.copy()
        zero_column[:, min(1, shape[1] - 1)] = 0  # a zero pivot: info and getrf's rule
        with_nan = a.copy()
        with_nan[0, 0] = np.nan
        for matrix in (a, zero_column, with_nan, np.ones(shape, dtype)):
            one = lu_arrays(matrix)
            batched = lu_arrays(np.stack([matrix, matrix]))
            for got, expected in zip(one, batched, strict=True):
                assert got.dtype == expected.dtype
                assert got.tobytes() == expected[0].tobytes()


def test_moveaxis_is_numpys() -> None:
    a = np.zeros((2, 3, 4, 5))[:, ::2]
    for source in range(-4, 4):
        for destination in range(-4, 4):
            got, expected = moveaxis(a, source, destination), np.moveaxis(a, source, destination)
            assert got.shape == expected.shape and got.strides == expected.strides
            assert np.shares_memory(got, a)
    for source, destination in ((4, 0), (0, -5)):
        with pytest.raises(np.exceptions.AxisError) as expected:
            np.moveaxis(a, source, destination)
        with pytest.raises(np.exceptions.AxisError, match=str(expected.value)):
            moveaxis(a, source, destination)


def _nan_to_num_reference(
    x: np.ndarray, nan: float = 0.0, posinf: float | None = None, neginf: float | None = None
) -> np.ndarray:
    # NanToNumBackward0.forward before its all-finite test: the selections alone.
    info = np.finfo(x.dtype)
    out = np.where(np.isnan(x), x.dtype.type(nan), x)
    out = np.where(out == np.inf, info.max if posinf is None else x.dtype.type(posinf), out)
    out = np.where(out == -np.inf, info.min if neginf is None else x.dtype.type(neginf), out)
    return out.astype(x.dtype, copy=False)


def test_nan_to_num_of_finite_values_is_the_selections() -> None:
    rng = np.random.default_rng(3)
    base = rng.standard_normal((4, 6)).astype(np.float32)
    forward = NanToNumBackward0.__new__(NanToNumBackward0).forward
    layouts = (
        base,
        base.T,
        base[::-1],
        base[:, ::-2],
        base[1:3, ::3].T,
        base.astype(np.float64)[::-1],
    )
    for x in layouts:
        for args in ((), (1.0, 2.0, -2.0)):
            got, expected = forward(x, *args), _nan_to_num_reference(x, *args)
            assert got.strides == expected.strides and got.dtype == expected.dtype
            assert got.tobytes() == expected.tobytes()


def test_search_in_a_few_sorted_rows_is_atens_halving() -> None:
    rng = np.random.default_rng(19)
    for trial in range(300):
        n, rows = int(rng.integers(0, 7)), int(rng.integers(1, 11))
        lead = (rows,) if trial % 3 else (2, max(1, rows // 2))
        if trial % 2:
            sequence = np.sort(rng.integers(-3, 4, (*lead, n)), axis=-1).astype(np.float32)
        else:  # NaN in some rows: the halving steps
            sequence = rng.integers(-3, 4, (*lead, n)).astype(np.float64)
            sequence[rng.random(sequence.shape) < 0.2] = np.nan
        if trial % 7 == 0:
            sequence = sequence[..., ::-1]  # unsorted rows: the halving steps
        values = rng.integers(-4, 5, (*lead, 3)).astype(np.float32)
        values.flat[0] = np.nan
        for side in ("left", "right"):
            got = _search(sequence, values, side)
            expected = _search_steps(sequence, values, side)
            assert got.shape == expected.shape and got.dtype == expected.dtype
            np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.float16, np.int64])
def test_cross_forward_is_pytorchs_cross(dtype: type) -> None:
    """NumPy's cross for the dtypes PyTorch's kernel computes without fused multiply-add,
    PyTorch's own bits for float32 and float64 (fused: fma(a, b, -(c * d)))."""
    forward = LinalgCrossBackward0.__new__(LinalgCrossBackward0).forward
    rng = np.random.default_rng(4)
    cases = [((3,), (3,), -1), ((4, 3), (4, 3), 1), ((3, 5), (3, 1), 0), ((2, 3, 4), (1, 3, 4), 1)]
    for shape_a, shape_b, dim in cases:
        a = (rng.standard_normal(shape_a) * 3).astype(dtype)
        b = (rng.standard_normal(shape_b) * 3).astype(dtype)
        shape = np.broadcast_shapes(a.shape, b.shape)
        a_full, b_full = np.broadcast_to(a, shape), np.broadcast_to(b, shape)
        expected = np.ascontiguousarray(np.cross(a_full, b_full, axis=dim))
        if dtype in (np.float32, np.float64):
            a_torch, b_torch = torch.from_numpy(a_full.copy()), torch.from_numpy(b_full.copy())
            expected = torch.linalg.cross(a_torch, b_torch, dim=dim).numpy()
        got = forward(a, b, dim=dim)
        assert got.dtype == expected.dtype and got.tobytes() == expected.tobytes()


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16])
def test_erf_of_one_number_is_the_array_path(dtype: type) -> None:
    """erf and erfc of one element (Python floats, ``_erf._erf_one``) give the bits of the
    array path (NumPy steps on several elements) on every branch: the table's grid points and
    midpoints (halves round to even), both signs and -0.0, past the grid, the continued
    fraction of erfc, infinities and NaN."""
    from glassgrad.ops import _erf

    grid = np.arange(0, 49) * 0.125
    values = np.concatenate(
        [
            grid,
            grid + 0.0625,
            np.random.default_rng(0).uniform(-7.0, 7.0, 400),
            [-0.0, 1.9999999, 2.0, 5.99, 6.0, 6.5, 30.0, np.inf, -np.inf, np.nan],
        ]
    ).astype(dtype)
    values = np.concatenate([values, -values])
    for fn in (_erf.erf, _erf.erfc):
        expected = fn(values)  # the array path
        for shape in ((), (1,), (1, 1)):
            got = np.stack([fn(v.reshape(shape)).reshape(()) for v in values])
            assert got.dtype == expected.dtype
            np.testing.assert_array_equal(got.view(np.uint8), expected.view(np.uint8))
            assert fn(values[:1].reshape(shape)).shape == shape
