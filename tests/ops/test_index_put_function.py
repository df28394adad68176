"""``index_put(_)`` called as a function or method (not ``x[key] = v``): PyTorch's parser
takes a sequence of tensors only, then the autograd checks, the count of indices, the overlap
checks and each index's own checks come in that order; and the index tensors are saved."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import torch

import glassgrad as gg


def _outcome(program: Callable, lib: Any) -> tuple:
    try:
        result = program(lib)
    except Exception as exc:  # compared with PyTorch's: type and message
        return (type(exc).__name__, str(exc).split("\n")[0])
    return ("ok", result.tolist())


def _leaf(lib: Any, *shape: int) -> Any:
    return lib.zeros(*shape, requires_grad=True)


def _overlapping(lib: Any, key: Any) -> Any:
    x = lib.zeros(3)
    return x.index_put_(key(lib), x)


CASES = {
    "too many indices on a leaf": lambda L: L.index_put_(
        _leaf(L, 3), (L.tensor([0]), L.tensor([0])), L.tensor(1.0)
    ),
    "too many indices, method": lambda L: _leaf(L, 3).index_put_(
        (L.tensor([0]), L.tensor([0])), L.tensor(1.0)
    ),
    "too many indices, value overlapping": lambda L: _overlapping(
        L, lambda L: (L.tensor([0]), L.tensor([0]))
    ),
    "too many indices, out of place": lambda L: L.index_put(
        L.zeros(3), (L.tensor([0]), L.tensor([0])), L.tensor(1.0)
    ),
    "float index on a leaf": lambda L: L.index_put_(_leaf(L, 3), (L.tensor([0.0]),), L.tensor(1.0)),
    "float index, value overlapping": lambda L: _overlapping(L, lambda L: (L.tensor([0.0]),)),
    "float index, out of place": lambda L: L.index_put(
        _leaf(L, 3), (L.tensor([0.0]),), L.tensor(1.0)
    ),
    "a mask over too many dims on a leaf": lambda L: L.index_put_(
        _leaf(L, 3, 2), (L.tensor([[True, False]] * 3), L.tensor([0])), L.tensor(1.0)
    ),
    "out of bounds on a leaf": lambda L: _leaf(L, 3).index_put_((L.tensor([5]),), L.tensor(1.0)),
    "None among the indices": lambda L: L.index_put_(
        L.zeros(3), [L.tensor([0]), None], L.tensor(1.0)
    ),
    "an int among the indices": lambda L: L.index_put(
        L.zeros(3), [L.tensor([0]), 1], L.tensor(1.0)
    ),
    "a list among the indices": lambda L: L.index_put(L.zeros(3), [[0]], L.tensor(1.0)),
    "a tensor for the indices": lambda L: L.index_put_(L.zeros(3), L.tensor([0]), L.tensor(1.0)),
    "a number for the value": lambda L: L.index_put(L.zeros(3), (L.tensor([0]),), 1.0),
    "an int for accumulate": lambda L: L.index_put(L.zeros(3), (L.tensor([0]),), L.tensor(1.0), 1),
    "a mask": lambda L: L.zeros(3).index_put_((L.tensor([True, False, True]),), L.tensor(2.0)),
    "keywords": lambda L: L.zeros(3).index_put_(
        indices=[L.tensor([0, 0])], values=L.tensor(1.0), accumulate=True
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_index_put_arguments_and_errors_as_pytorch(name: str) -> None:
    assert _outcome(CASES[name], gg) == _outcome(CASES[name], torch)


@pytest.mark.parametrize("mask", [False, True])
@pytest.mark.parametrize("accumulate", [False, True])
@pytest.mark.parametrize("needs", ["self", "values"])
def test_index_changed_in_place_before_the_backward_raises(
    mask: bool, accumulate: bool, needs: str
) -> None:
    def program(lib: Any) -> tuple:
        x = lib.zeros(3, requires_grad=needs == "self") * 1
        v = lib.ones(1, requires_grad=needs == "values")
        index = lib.tensor([True, False, False]) if mask else lib.tensor([0])
        lib.index_put_(x, (index,), v, accumulate=accumulate)
        index.logical_not_() if mask else index.add_(1)
        return _outcome(lambda _: (x * 2).sum().backward() or lib.zeros(0), lib)

    ours, theirs = program(gg), program(torch)
    assert ours[0] == theirs[0] == "RuntimeError"
    assert "modified by an inplace operation" in ours[1]
    assert ours[1].split(";")[0] == theirs[1].split(";")[0]


def test_setitem_writes_a_view_of_the_value_without_its_leading_ones() -> None:
    """PyTorch's set_item strips the value's leading 1s with a view: IndexPutBackward0's
    edge is a ViewBackward0, and an empty tensor written into itself is another tensor then,
    so no overlap (fuzz seed 847305); index_put_ of the very same tensor still refuses."""

    def program(L):
        x = L.zeros(3, 2, requires_grad=True)
        v = L.ones(1, 2, requires_grad=True)
        y = x.clone()
        y[L.tensor([0, 1])] = v
        names = [n.name() for n, _ in y.grad_fn.next_functions]
        e = L.zeros(1, 0, 2)
        e[L.tensor([0])] = e
        try:
            e.index_put_((L.tensor([0]),), e)
        except RuntimeError as error:
            return names, str(error)[:40]
        return names, "no error"

    ours, theirs = program(gg), program(torch)
    assert ours == theirs
