"""Scans (cummax, logcumsumexp, diff), searches and counts beyond the registry's samples:
argument forms, out=, and the errors (type and message)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import glassgrad as gg

from ._parity import same, same_error


def test_argument_forms_and_out() -> None:
    same(lambda lib: lib.tensor([[1.0, 3.0, 2.0]]).cummax(dim=1))
    same(lambda lib: lib.tensor([1.0, 3.0, 2.0]).cummin(0).indices)
    same(lambda lib: lib.tensor([0.0, 1.0], dtype=lib.float64).logcumsumexp(dim=0))
    same(lambda lib: lib.tensor([[1, 4], [9, 16]]).diff(dim=0, prepend=lib.tensor([[0, 0]])))
    same(lambda lib: lib.searchsorted(lib.tensor([1, 3]), lib.tensor([3]), side="left"))
    same(lambda lib: lib.tensor([0, 2, 0]).nonzero(as_tuple=True))
    same(lambda lib: lib.tensor([3, 1, 3]).unique(return_counts=True))
    same(lambda lib: lib.tensor([1, 1, 3]).bincount(minlength=5))
    same(lambda lib: lib.tensor([1.0, 2.0, 1.0]).histc(bins=3))
    same(lambda lib: lib.tensor([[0, 1], [2, 0]]).count_nonzero(dim=1))

    def into(lib: Any) -> Any:
        values, indices = lib.empty(0), lib.empty(0, dtype=lib.int64)
        lib.cummax(lib.tensor([1.0, 0.0, 2.0]), 0, out=(values, indices))
        found = lib.empty(0, dtype=lib.int64)
        lib.searchsorted(lib.tensor([1, 3]), lib.tensor([0, 2, 4]), out=found)
        where = lib.empty(0, dtype=lib.int64)
        lib.nonzero(lib.tensor([1, 0, 1]), out=where)
        return values, indices, found, where

    same(into)


def test_errors() -> None:
    same_error(lambda lib: lib.diff(lib.tensor(1.0)))
    same_error(lambda lib: lib.diff(lib.ones(3), n=-1))
    same_error(lambda lib: lib.logcumsumexp(lib.tensor([1, 2]), 0))
    same_error(lambda lib: lib.searchsorted(lib.tensor([1, 2]), lib.tensor([1]), side="middle"))
    same_error(lambda lib: lib.bucketize(lib.tensor([1]), lib.ones(2, 2)))
    same_error(lambda lib: lib.bincount(lib.tensor([-1, 2])))
    same_error(lambda lib: lib.bincount(lib.tensor([1.0, 2.0])))
    same_error(lambda lib: lib.bincount(lib.tensor([1, 2]), minlength=-1))
    same_error(lambda lib: lib.histc(lib.tensor([1, 2])))
    same_error(lambda lib: lib.histc(lib.tensor([1.0, 2.0]), min=3, max=1))
    same_error(lambda lib: lib.unique(lib.ones(2), dim=3))
    same_error(lambda lib: lib.cummax(lib.ones(2), 1))
    same_error(
        lambda lib: lib.cummax(lib.ones(2, requires_grad=True), 0, out=(lib.empty(2), lib.empty(2)))
    )


def test_unique_keeps_every_nan_apart() -> None:
    """ATen's sorted unique compares neighbours with ``!=``, so each NaN is a value of its
    own, sorted last in the order met (fuzz seed 97708: NumPy's default merged them)."""
    nan = float("nan")
    same(lambda lib: lib.unique(lib.tensor([nan, 1.0, nan, 0.0, 1.0]), return_counts=True))
    same(lambda lib: lib.tensor([[nan, 2.0], [nan, 2.0]]).unique(return_inverse=True))
    same(lambda lib: lib.unique_consecutive(lib.tensor([nan, nan, 1.0]), return_counts=True))


def test_unique_rows_holding_nan_in_std_sort_order() -> None:
    """unique(dim=...) sorts the rows with ``std::sort`` and a lexicographic ``<``, for which a
    NaN row is "equivalent" to every row: the rows come out in the order libstdc++'s introsort
    leaves them (insertion sort up to 16 rows, quicksort partitions past), none merged with a
    NaN row. Fuzz seed 97708's class, along a dimension."""
    rng = np.random.default_rng(5)
    for rows in (5, 16, 40):
        data = rng.integers(0, 3, size=(rows, 2)).astype(float)
        data[rng.random((rows, 2)) < 0.3] = float("nan")
        for dim in (0, 1):
            values = data if dim == 0 else data.T.copy()
            same(
                lambda lib, v=values, d=dim: lib.unique(
                    lib.tensor(v), dim=d, return_inverse=True, return_counts=True
                )
            )
    # An organ pipe of 1000 rows drives introsort past its depth limit, into heapsort.
    pipe = np.minimum(np.arange(1000.0), 1000.0 - np.arange(1000.0)).reshape(-1, 1)
    pipe[333] = float("nan")
    same(lambda lib: lib.unique(lib.tensor(pipe), dim=0, return_inverse=True, return_counts=True))


_PARTS = [float("nan"), float("inf"), float("-inf"), 0.5]


def _complex_logcumsumexp(lib: Any, values: np.ndarray) -> list:
    """Forward, first and second derivatives of a complex logcumsumexp along dim 1."""
    x = lib.tensor(values, requires_grad=True)
    y = lib.logcumsumexp(x, 1)
    v = lib.tensor(np.linspace(0.5, 1.5, values.size).reshape(values.shape) * (1 - 0.5j))
    v.requires_grad_()
    (g,) = lib.autograd.grad(y, x, v.to(y.dtype), create_graph=True)
    w = lib.tensor(np.linspace(1.0, 2.0, values.size).reshape(values.shape) * (0.5 + 1j))
    second = lib.autograd.grad(g, [x, v], w.to(g.dtype))
    return [t.detach().resolve_conj().numpy() for t in (y, g, *second)]


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
@pytest.mark.parametrize(
    "real, imag", [(r, i) for r in _PARTS for i in _PARTS if r != 0.5 or i != 0.5]
)
def test_complex_logcumsumexp_with_nan_and_inf_is_pytorchs(
    dtype: Any, real: float, imag: float
) -> None:
    """ATen's complex _log_add_exp_helper(x, running) from -inf + 0j, in complex128 for
    complex64, and its backward's sub and add as the add kernel's ((1 + 0j) * b: NaN beside
    an infinite part), for a poisoned element and a second one of the same real part."""
    rng = np.random.default_rng(5)
    values = (rng.standard_normal((2, 5)) + 1j * rng.standard_normal((2, 5))).astype(dtype)
    values[0, 1], values[0, 2], values[1, 0] = (
        complex(real, imag),
        complex(real, -1.0),
        complex(real, imag),
    )
    ours, theirs = _complex_logcumsumexp(gg, values), _complex_logcumsumexp(torch, values)
    for a, b in zip(ours, theirs):
        for part in (np.real, np.imag):
            np.testing.assert_array_equal(np.isnan(part(a)), np.isnan(part(b)))
            np.testing.assert_allclose(part(a), part(b), rtol=1e-5, atol=1e-6)
