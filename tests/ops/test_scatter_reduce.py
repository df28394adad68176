"""scatter_reduce and index_reduce: values for integer dtypes, in-place variants, and
PyTorch's errors (values and gradients of every reduction are in the registry's rows)."""

from __future__ import annotations

import warnings

import pytest

from ._parity import same, same_error


def test_integer_values_and_in_place() -> None:
    def program(L):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            a = L.arange(4).scatter_reduce(0, L.tensor([0, 0]), L.tensor([3, 4]), "mean")
            b = L.arange(4).scatter_reduce(
                0, L.tensor([0, 0]), L.tensor([3, 4]), "mean", include_self=False
            )
            c = L.arange(4).index_reduce(0, L.tensor([0, 0]), L.tensor([3, 4]), "mean")
            d = L.ones(2, 3).scatter_reduce_(1, L.tensor([[2], [0]]), L.full((2, 1), 5.0), "prod")
            e = L.ones(3).index_reduce_(0, L.tensor([1]), L.tensor([-4.0]), "amin")
            f = L.zeros(3).scatter_reduce(0, L.tensor([1, 1]), L.tensor([-2.0, -1.0]), "amax")
            g = L.zeros(3).scatter_reduce(
                0, L.tensor([1, 1]), L.tensor([-2.0, -1.0]), "amax", include_self=False
            )
        return (a, b, c, d, e, f, g)

    same(program)


@pytest.mark.parametrize(
    "call",
    [
        lambda L: L.ones(3).scatter_reduce(0, L.tensor([0]), L.ones(1, dtype=L.float64), "sum"),
        lambda L: L.ones(3).scatter_reduce(0, L.tensor([0.0]), L.ones(1), "sum"),
        lambda L: L.ones(3).scatter_reduce(0, L.tensor([5]), L.ones(1), "sum"),
        lambda L: L.ones(3).index_reduce(0, L.tensor([0]), L.ones(1), "sum"),
        lambda L: L.ones(3).index_reduce(0, L.tensor([0, 1]), L.ones(1), "prod"),
    ],
)
def test_errors(call) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same_error(call)


def test_src_larger_than_index_has_no_gradient() -> None:
    def program(L):
        x = L.ones(3, 3, requires_grad=True)
        src = L.ones(2, 5, requires_grad=True)
        index = L.tensor([[0, 1, 0], [2, 2, 1]])
        x.scatter_reduce(0, index, src, "sum", include_self=False).sum().backward()

    same_error(program)
