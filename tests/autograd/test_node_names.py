"""``grad_fn.name()`` and ``type(grad_fn).__name__`` against PyTorch's, for generated nodes
and for those PyTorch writes by hand in C++ (whose name() is their demangled C++ type)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import torch

import glassgrad as gg


def _copy_slices(lib: Any) -> Any:
    y = lib.zeros(3, requires_grad=True) * 1
    y[0] = 5.0
    return y.grad_fn


def _copy_backwards(lib: Any) -> Any:
    y = lib.zeros(3, dtype=lib.float64)
    y.copy_(lib.zeros(3, requires_grad=True))
    return y.grad_fn


def _accumulate_grad(lib: Any) -> Any:
    return (lib.zeros(3, requires_grad=True) * 2).grad_fn.next_functions[0][0]


def _not_implemented(lib: Any) -> Any:
    weights = lib.tensor([1.0, 2.0], requires_grad=True)
    return lib.bincount(lib.tensor([0, 1]), weights=weights).grad_fn


def _error(lib: Any) -> Any:
    class Twice(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, a: Any) -> Any:
            return a * 2

        @staticmethod
        @lib.autograd.function.once_differentiable
        def backward(ctx: Any, grad: Any) -> Any:
            return grad * 2

    x = lib.zeros(3, requires_grad=True)
    y = Twice.apply(x)
    (grad,) = lib.autograd.grad((y * y).sum(), x, create_graph=True)
    return grad.grad_fn


def _slice_of_copy_slices(lib: Any) -> Any:
    y = lib.zeros(3, requires_grad=True) * 1
    y[1:].mul_(2)
    return y[1:].grad_fn


NODES: dict[str, Callable] = {
    "CopySlices": _copy_slices,
    "CopyBackwards": _copy_backwards,
    "AccumulateGrad": _accumulate_grad,
    "NotImplemented": _not_implemented,
    "Error": _error,
    "generated (MulBackward0)": lambda lib: (lib.zeros(2, requires_grad=True) * 2).grad_fn,
    "a view of a view changed in place": _slice_of_copy_slices,
}


@pytest.mark.parametrize("case", sorted(NODES))
def test_node_names_are_pytorchs(case: str) -> None:
    ours, theirs = NODES[case](gg), NODES[case](torch)
    assert (ours.name(), type(ours).__name__) == (theirs.name(), type(theirs).__name__)
