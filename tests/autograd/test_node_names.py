"""``grad_fn.name()`` and ``type(grad_fn).__name__`` against PyTorch's, for generated nodes
and for those PyTorch writes by hand in C++ (whose name() is their demangled C++ type)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
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


def _first_derivative(lib: Any, f: Callable, shape: tuple, linear: bool = False) -> Any:
    x = lib.linspace(-2.0, 2.0, int(np.prod(shape)), dtype=lib.float64)
    x = x.reshape(shape).requires_grad_()
    y = f(lib.nn.functional, x)
    v = lib.ones_like(y).requires_grad_(linear)
    (grad,) = lib.autograd.grad(y, x, v, create_graph=True)
    return grad.grad_fn


_MATRIX, _IMAGES = (3, 4), (2, 3, 4, 4)
SECOND_ORDER: dict[str, tuple] = {
    "leaky_relu": (lambda F, x: F.leaky_relu(x, 0.1), _MATRIX),
    "leaky_relu_": (lambda F, x: F.leaky_relu(x * 1, 0.1, inplace=True), _MATRIX),
    "hardtanh": (lambda F, x: F.hardtanh(x), _MATRIX),
    "relu6": (lambda F, x: F.relu6(x), _MATRIX),
    "hardshrink": (lambda F, x: F.hardshrink(x), _MATRIX),
    "softshrink": (lambda F, x: F.softshrink(x), _MATRIX),
    "relu": (lambda F, x: F.relu(x), _MATRIX),
    "threshold": (lambda F, x: F.threshold(x, 0.1, 2.0), _MATRIX),
    "elu": (lambda F, x: F.elu(x), _MATRIX),
    "gelu": (lambda F, x: F.gelu(x, approximate="tanh"), _MATRIX),
    "glu": (lambda F, x: F.glu(x, 1), _MATRIX),
    "prelu": (lambda F, x: F.prelu(x, x.new_full((3,), 0.25)), _IMAGES),
    "smooth_l1_loss": (lambda F, x: F.smooth_l1_loss(x, x.detach().flip(0)), _MATRIX),
    "huber_loss": (lambda F, x: F.huber_loss(x, x.detach().flip(0)), _MATRIX),
    "soft_margin_loss": (lambda F, x: F.soft_margin_loss(x, x.detach().sign()), _MATRIX),
    "l1_loss": (lambda F, x: F.l1_loss(x, x.detach().flip(0)), _MATRIX),
    "layer_norm": (lambda F, x: F.layer_norm(x, (4,)), _MATRIX),
    "batch_norm": (lambda F, x: F.batch_norm(x, None, None, training=True), _IMAGES),
    "group_norm": (lambda F, x: F.group_norm(x, 3), _IMAGES),
    "max_pool2d": (lambda F, x: F.max_pool2d(x, 2), _IMAGES),
    "avg_pool2d": (lambda F, x: F.avg_pool2d(x, 2), _IMAGES),
    "adaptive_avg_pool2d": (lambda F, x: F.adaptive_avg_pool2d(x, 3), _IMAGES),
    "adaptive_max_pool2d": (lambda F, x: F.adaptive_max_pool2d(x, 3), _IMAGES),
    "softplus": (lambda F, x: F.softplus(x, 2.0, 1.5), _MATRIX),
    "hardswish": (lambda F, x: F.hardswish(x * 2), _MATRIX),
    "logsigmoid": (lambda F, x: F.logsigmoid(x), _MATRIX),
    "tanh": (lambda F, x: F.tanh(x), _MATRIX),
    "softmax": (lambda F, x: F.softmax(x, 1), _MATRIX),
    "log_softmax": (lambda F, x: F.log_softmax(x, 0), _MATRIX),
    "mse_loss": (lambda F, x: F.mse_loss(x, x.detach().flip(0)), _MATRIX),
    "mse_loss target": (lambda F, x: F.mse_loss(x.detach().flip(0), x, reduction="sum"), _MATRIX),
    "binary_cross_entropy": (
        lambda F, x: F.binary_cross_entropy(x.sigmoid(), x.detach().flip(0).sigmoid()),
        _MATRIX,
    ),
    "pad constant": (lambda F, x: F.pad(x, (1, -1, 2, 0)), _IMAGES),
    "pad reflect": (lambda F, x: F.pad(x, (1, 2), "reflect"), _MATRIX),
    "pad replicate": (lambda F, x: F.pad(x, (1, 2, 0, 1), "replicate"), _IMAGES),
    "diagonal": (lambda F, x: x.diagonal(1, 0, 1), _MATRIX),
    "diag": (lambda F, x: x.diag(-1), _MATRIX),
    "unfold": (lambda F, x: x.unfold(1, 2, 1), _MATRIX),
    "diag of a vector": (lambda F, x: x[1].diag(1), _MATRIX),
    "rrelu": (lambda F, x: F.rrelu(x), _MATRIX),
    "masked_fill": (lambda F, x: x.masked_fill(x.detach() > 0, 2.0), _MATRIX),
    "embedding": (lambda F, x: F.embedding(x.new_tensor([[0, 2], [2, 1]]).long(), x, 1), _MATRIX),
    "mm": (lambda F, x: x.mm(x.detach().T * 2), _MATRIX),
    "linear weight": (lambda F, x: F.linear(x.detach() * 2, x), _MATRIX),
    "t": (lambda F, x: x.t(), _MATRIX),
    "vector_norm": (lambda F, x: x.norm(dim=1), _MATRIX),
    "copysign": (lambda F, x: x.copysign(x.detach().flip(0)), _MATRIX),
    "atan2": (lambda F, x: x.atan2(x.detach().flip(0) + 0.5), _MATRIX),
    "xlogy": (lambda F, x: x.xlogy(x.detach().abs() + 0.5), _MATRIX),
    "masked_scatter source": (lambda F, x: x.detach().masked_scatter(x.detach() > 0, x), _MATRIX),
    "nll_loss": (lambda F, x: F.nll_loss(x, x.new_tensor([0, 2, 3]).long()), _MATRIX),
}
# Backwards linear in the incoming gradient: recorded only when that gradient requires grad.
LINEAR = {
    "pad constant",
    "pad reflect",
    "pad replicate",
    "diagonal",
    "diag",
    "unfold",
    "diag of a vector",
    "masked_fill",
    "masked_scatter source",
    "embedding",
    "mm",
    "linear weight",
    "t",
    "xlogy",
}


@pytest.mark.parametrize("case", sorted(SECOND_ORDER))
def test_double_backward_node_names_are_pytorchs(case: str) -> None:
    # The node of a first derivative taken with create_graph: PyTorch's explicit double
    # backward (LeakyReluBackwardBackward0 ...) or the op its composite formula ends with.
    f, shape = SECOND_ORDER[case]
    ours, theirs = (_first_derivative(lib, f, shape, case in LINEAR) for lib in (gg, torch))
    assert (ours.name(), type(ours).__name__) == (theirs.name(), type(theirs).__name__)
    if case not in ("layer_norm", "batch_norm"):  # PyTorch's also reach the saved statistics
        assert _next_names(ours) == _next_names(theirs)


def _next_names(node: Any) -> list:
    return [None if n is None else type(n).__name__ for n, _ in node.next_functions]


@pytest.mark.parametrize("shape", [(4,), (3, 4), (2, 4, 3), (2, 4, 2, 2)])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_nll_loss_double_backward_is_pytorchs(shape: tuple, reduction: str) -> None:
    """nll_loss's first derivative is NllLossBackwardBackward0 (NllLoss2D... for images),
    with edges to the incoming gradient and the input; its derivative in the incoming
    gradient is nll_loss again."""
    results = []
    for lib in (gg, torch):
        x = lib.tensor(np.linspace(-2.0, 2.0, int(np.prod(shape))).reshape(shape))
        x.requires_grad_()
        classes = () if len(shape) == 1 else shape[:1] + shape[2:]
        target = lib.tensor(np.arange(np.prod(classes, dtype=int)).reshape(classes) % 4)
        weight = lib.tensor([0.5, 1.0, 2.0, 1.5], dtype=lib.float64)
        y = lib.nn.functional.nll_loss(x, target, weight, reduction=reduction)
        v = lib.ones_like(y).mul(1.5).requires_grad_()
        (g,) = lib.autograd.grad(y, x, v, create_graph=True)
        node = g.grad_fn
        while type(node).__name__ == "ViewBackward0":
            node = node.next_functions[0][0]
        second = lib.autograd.grad((g * x.detach()).sum(), [x, v], allow_unused=True)
        results.append(
            (type(node).__name__, _next_names(node), [s.detach().numpy() for s in second])
        )
    (ours, ours_next, ours_second), (theirs, theirs_next, theirs_second) = results
    assert (ours, ours_next) == (theirs, theirs_next)
    for a, b in zip(ours_second, theirs_second):
        np.testing.assert_allclose(a, b, rtol=1e-14)
