"""sort, topk, kthvalue, median, mode beyond the registry's samples: ties and NaN, the
argument forms PyTorch accepts, ``out=``, and the errors (type and message)."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

from ._parity import LIBS, same, same_error

TIES = [[3.0, 1.0, 3.0, float("nan"), 1.0, 2.0], [5.0, 5.0, 2.0, 2.0, 7.0, 7.0]]


@pytest.mark.parametrize("descending", [False, True])
def test_stable_sort_keeps_ties_in_order_and_nan_largest(descending: bool) -> None:
    same(lambda lib: lib.sort(lib.tensor(TIES), descending=descending, stable=True))
    same(lambda lib: lib.argsort(lib.tensor(TIES), descending=descending, stable=True))
    same(lambda lib: lib.tensor(TIES).sort(0, descending))


def test_argument_forms() -> None:
    x = [[4.0, -1.0, 2.5], [0.5, 3.0, -2.0]]
    same(lambda lib: lib.sort(lib.tensor(x), dim=0, descending=True))
    same(lambda lib: lib.sort(lib.tensor(x), stable=True, dim=0))
    same(lambda lib: lib.tensor(x).argsort(dim=0, descending=True))
    same(lambda lib: lib.topk(lib.tensor(x), k=2, dim=1, largest=False, sorted=True))
    same(lambda lib: lib.tensor(x).topk(1, 0))
    same(lambda lib: lib.kthvalue(lib.tensor(x), 2, dim=1, keepdim=True))
    same(lambda lib: lib.tensor(x).median(dim=1, keepdim=True))
    same(lambda lib: lib.tensor(x).median())
    same(lambda lib: lib.tensor(x).nanmedian(0))
    same(lambda lib: lib.mode(lib.tensor([[1, 2, 2], [3, 3, 1]]), dim=1))
    same(lambda lib: lib.msort(lib.tensor(x)))


def test_median_ties_and_nan() -> None:
    same(lambda lib: lib.median(lib.tensor(TIES), 1))
    same(lambda lib: lib.nanmedian(lib.tensor(TIES), 1))
    same(lambda lib: lib.median(lib.tensor(TIES)))
    same(lambda lib: lib.nanmedian(lib.tensor(TIES)))
    same(lambda lib: lib.nanmedian(lib.tensor([float("nan")] * 3), 0))
    same(lambda lib: lib.kthvalue(lib.tensor([1.0, 2.0, 2.0, 2.0, 3.0]), 3))


def test_mode_picks_the_smallest_most_frequent_value_at_its_last_index() -> None:
    same(lambda lib: lib.mode(lib.tensor(TIES[1:] + [[3.0, 1.0, 3.0, 2.0, 1.0, 3.0]])))


@pytest.mark.parametrize("dim", [0, 1, 2])
def test_mode_of_many_rows_with_ties(dim: int) -> None:
    # Every row at once (mode sorts all rows together): rows of few distinct values, so most
    # rows have several equally frequent values, in float and integer tensors.
    values = [[[(3 * i + 5 * j + 7 * k) % 4 for k in range(5)] for j in range(6)] for i in range(4)]
    same(lambda lib: lib.mode(lib.tensor(values), dim))
    same(lambda lib: lib.mode(lib.tensor(values, dtype=lib.float32) - 1.5, dim, keepdim=True))


def test_sorted_gradient_reaches_the_picked_positions() -> None:
    def program(lib: Any) -> Any:
        x = lib.tensor([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]], requires_grad=True)
        values, _ = lib.topk(x, 2)
        (values * lib.tensor([1.0, 10.0])).sum().backward()
        return x.grad, values.grad_fn.name()

    same(program)


def test_out_writes_into_the_given_tensors() -> None:
    def program(lib: Any) -> Any:
        values, indices = lib.empty(0), lib.empty(0, dtype=lib.int64)
        result = lib.sort(lib.tensor([2.0, 0.5, 1.0]), out=(values, indices))
        return result.values is values, result.indices is indices, values, indices

    same(program)

    def resized(lib: Any) -> Any:
        out = lib.zeros(1)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.msort(lib.tensor([1.0, 3.0, 2.0]), out=out)
        return out, [str(w.message)[:120] for w in caught]

    same(resized)

    def in_no_grad(lib: Any) -> Any:
        out = lib.empty(2)
        with lib.no_grad():
            lib.msort(lib.tensor([2.0, 1.0], requires_grad=True), out=out)
        return out, out.requires_grad, out.grad_fn

    same(in_no_grad)


def test_out_errors() -> None:
    same_error(
        lambda lib: lib.sort(
            lib.tensor([1.0, 2.0], requires_grad=True),
            out=(lib.empty(2), lib.empty(2, dtype=lib.int64)),
        )
    )
    same_error(lambda lib: lib.msort(lib.tensor([1.0]), out=lib.empty(1, dtype=lib.int64)))
    same_error(lambda lib: lib.msort(lib.tensor([1.0]), out=lib.empty(1, requires_grad=True)))
    same_error(lambda lib: lib.median(lib.tensor([1.0]), out=lib.empty(1)))
    for lib in LIBS:  # PyTorch's messages differ from op to op; all refuse another dtype
        with pytest.raises(RuntimeError, match="type"):
            lib.kthvalue(lib.tensor([1.0]), 1, out=(lib.empty(0, dtype=lib.float64), lib.empty(0)))


def test_errors() -> None:
    same_error(lambda lib: lib.topk(lib.tensor([1.0, 2.0]), 3))
    same_error(lambda lib: lib.kthvalue(lib.tensor([1.0, 2.0]), 3))
    same_error(lambda lib: lib.kthvalue(lib.tensor([1.0, 2.0]), 0))
    same_error(lambda lib: lib.sort(lib.tensor([1.0, 2.0]), 1))
    same_error(lambda lib: lib.median(lib.empty(0, 3), 0))
    same_error(lambda lib: lib.mode(lib.empty(2, 0), 1))


def test_full_median_of_nothing_and_of_integers() -> None:
    same(lambda lib: (lib.median(lib.empty(0)), lib.nanmedian(lib.empty(0))))
    same(lambda lib: lib.median(lib.empty(0, dtype=lib.int64)))
    same(lambda lib: lib.median(lib.tensor([[2, 9], [4, 1]])))
