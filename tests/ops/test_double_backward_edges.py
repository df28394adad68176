"""Which second derivatives exist: PyTorch's backward of a masked or indexed op is one node
with edges to the incoming gradient and to the saved tensors, so differentiating a first
derivative gives zeros (not None) for a saved input read through a mask only, even when the
first derivative requires grad through something else (an incoming gradient that requires
grad, prelu's weight) (issue 14, fuzz seed 504900)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import glassgrad as gg

CASES = {
    "leaky_relu": lambda lib, x: lib.nn.functional.leaky_relu(x, 0.1),
    "hardtanh": lambda lib, x: lib.nn.functional.hardtanh(x),
    "abs": lambda lib, x: x.abs(),
    "l1_loss": lambda lib, x: lib.nn.functional.l1_loss(x, x.detach() * 0.5, reduction="none"),
    "max_pool1d": lambda lib, x: lib.nn.functional.max_pool1d(x.reshape(1, 2, 3), 2),
    "avg_pool1d": lambda lib, x: lib.nn.functional.avg_pool1d(x.reshape(1, 2, 3), 2),
    "adaptive_avg_pool1d": lambda lib, x: lib.nn.functional.adaptive_avg_pool1d(
        x.reshape(1, 2, 3), 2
    ),
    "adaptive_max_pool1d": lambda lib, x: lib.nn.functional.adaptive_max_pool1d(
        x.reshape(1, 2, 3), 2
    ),
    "reflection_pad": lambda lib, x: lib.nn.functional.pad(x.reshape(1, 2, 3), (1, 1), "reflect"),
    "prelu": lambda lib, x: lib.nn.functional.prelu(
        x.reshape(2, 3), lib.tensor([0.1, 0.2, 0.3], dtype=lib.float64, requires_grad=True)
    ),
}


def _second(lib: Any, case: str, v_requires_grad: bool) -> list:
    x = lib.tensor(np.linspace(-2.0, 3.0, 6), requires_grad=True)
    y = CASES[case](lib, x)
    v = lib.tensor(np.linspace(0.5, 1.5, y.numel()).reshape(tuple(y.shape)))
    v.requires_grad_(v_requires_grad)
    (gx,) = lib.autograd.grad(y, [x], v, create_graph=True)
    wrt = [x, v] if v_requires_grad else [x]
    second = lib.autograd.grad(
        (gx * lib.tensor(np.linspace(1.0, 2.0, 6))).sum(), wrt, allow_unused=True
    )
    # PyTorch's zeros of sgn's backward are a ZeroTensor, which has no numpy().
    return [None if g is None else g.detach().numpy(force=True) for g in second]


@pytest.mark.parametrize("v_requires_grad", [False, True])
@pytest.mark.parametrize("case", sorted(CASES))
def test_second_derivatives_exist_where_pytorchs_do(case: str, v_requires_grad: bool) -> None:
    ours, theirs = _second(gg, case, v_requires_grad), _second(torch, case, v_requires_grad)
    assert [g is None for g in ours] == [g is None for g in theirs]
    for a, b in zip(ours, theirs):
        if b is not None:
            np.testing.assert_allclose(a, b, rtol=1e-12)


def test_pool_double_backward_nodes_take_the_input() -> None:
    names = []
    for lib in (gg, torch):
        x = lib.tensor(np.linspace(-2.0, 3.0, 8).reshape(1, 2, 4), requires_grad=True)
        v = lib.ones(1, 2, 2, dtype=lib.float64, requires_grad=True)
        for pool in (lib.nn.functional.max_pool1d, lib.nn.functional.avg_pool1d):
            (g,) = lib.autograd.grad(pool(x, 2), x, v, create_graph=True)
            names.append(type(g.grad_fn.next_functions[0][0]).__name__)
    assert (
        names[:2]
        == names[2:]
        == [
            "MaxPool2DWithIndicesBackwardBackward0",
            "AvgPool2DBackwardBackward0",
        ]
    )


def test_prelu_weight_requiring_grad_after_the_call() -> None:
    """The saved weight is a view taken before ``requires_grad_()``: it has no edge, so the
    second derivative reaches the input only (zeros there), as in PyTorch."""
    results = []
    for lib in (gg, torch):
        x = lib.tensor(np.linspace(-2.0, 3.0, 24).reshape(2, 3, 4), requires_grad=True)
        w = lib.tensor([1.5, -0.15, -0.33], dtype=lib.float64)
        y = lib.nn.functional.prelu(x, w)
        w.requires_grad_()
        gx, gw = lib.autograd.grad((y * 1.3).sum(), [x, w], create_graph=True, allow_unused=True)
        second = lib.autograd.grad(gx.sum(), [x, w], allow_unused=True)
        results.append((type(gx.grad_fn).__name__, gw, [s is None for s in second]))
        results.append(second[0].detach().numpy().tolist())
    assert results[0] == results[2]
    assert results[1] == results[3]
