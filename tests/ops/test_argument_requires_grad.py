"""Tensor arguments PyTorch's derivative formulas do not cover (derivatives.yaml gives them no
formula): with grad mode on they must not require grad, and the error names PyTorch's function
and argument. Backward formulas PyTorch does not have raise its NotImplementedError."""

from __future__ import annotations

from typing import Any

import pytest

from ._parity import same_error


def _g(lib: Any, *shape: int) -> Any:
    return lib.ones(*shape, requires_grad=True)


CASES = {
    "soft_margin_loss target": lambda L: L.nn.functional.soft_margin_loss(L.ones(3), _g(L, 3)),
    "soft_margin_loss target, before the shape check": lambda L: L.nn.functional.soft_margin_loss(
        L.ones(3), _g(L, 4)
    ),
    "multi_margin_loss weight": lambda L: L.nn.functional.multi_margin_loss(
        L.ones(1, 3), L.tensor([1]), weight=_g(L, 3)
    ),
    "batch_norm running_mean": lambda L: L.nn.functional.batch_norm(
        L.ones(2, 3), _g(L, 3), L.ones(3)
    ),
    "batch_norm running_var, training": lambda L: L.nn.functional.batch_norm(
        L.ones(2, 3), L.zeros(3), _g(L, 3), training=True
    ),
    "instance_norm running_mean": lambda L: L.nn.functional.instance_norm(
        L.ones(2, 3, 4).cumsum(-1), _g(L, 3), _g(L, 3)
    ),
    "fractional_max_pool2d random samples": lambda L: L.nn.functional.fractional_max_pool2d(
        L.ones(1, 1, 4, 4), 2, output_size=2, _random_samples=_g(L, 1, 1, 2)
    ),
    "fractional_max_pool3d random samples, before the size check": lambda L: (
        L.nn.functional.fractional_max_pool3d(
            L.ones(1, 1, 4, 4, 4), 2, output_size=9, _random_samples=_g(L, 1, 1, 3)
        )
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_argument_that_must_not_require_grad(name: str) -> None:
    same_error(CASES[name])


def test_no_check_without_grad_mode() -> None:
    """Under no_grad the arguments may require grad (PyTorch checks only in grad mode)."""
    import glassgrad as gg

    with gg.no_grad():
        out = gg.nn.functional.soft_margin_loss(gg.ones(3), _g(gg, 3))
    assert not out.requires_grad


def test_pdist_second_derivative_is_not_implemented() -> None:
    """pdist's first derivative under create_graph has no derivative: NotImplementedError."""

    def program(lib: Any) -> Any:
        x = lib.tensor([[0.0, 1.0], [2.0, 0.5], [1.0, 3.0]], requires_grad=True)
        (grad,) = lib.autograd.grad(lib.nn.functional.pdist(x).sum(), x, create_graph=True)
        grad.sum().backward()

    same_error(program)


@pytest.mark.parametrize(
    "size, p, mode",
    [
        (3, 2.0, None),
        (3, 2.0, "use_mm_for_euclid_dist"),
        (30, 2.0, None),
        (30, 1.0, "use_mm_for_euclid_dist"),
    ],
)
def test_cdist_second_derivative_as_pytorch(size: int, p: float, mode: str | None) -> None:
    """cdist is differentiable twice on PyTorch's matrix-product path (p = 2 with more than 25
    rows, or asked for) only; its direct kernel's gradient has no derivative."""
    import numpy as np
    import torch

    import glassgrad as gg

    rng = np.random.default_rng(size)
    a, b = rng.standard_normal((size, 3)), rng.standard_normal((4, 3))
    outcomes = []
    for lib in (gg, torch):
        x = lib.tensor(a, requires_grad=True)
        kwargs = {} if mode is None else {"compute_mode": mode}
        out = lib.cdist(x, lib.tensor(b), p, **kwargs)
        (grad,) = lib.autograd.grad((out * out).sum(), x, create_graph=True)
        try:
            (second,) = lib.autograd.grad((grad**3).sum(), x)
            outcomes.append(np.round(second.numpy(), 6).tolist())
        except Exception as exc:  # noqa: BLE001 - compared with PyTorch's
            outcomes.append((type(exc).__name__, str(exc)))
    assert outcomes[0] == outcomes[1]


def test_embedding_bag_second_derivatives_raise_as_pytorch() -> None:
    """embedding_bag's gradients are recorded under create_graph and have no derivatives."""

    def program(lib: Any) -> Any:
        weight = lib.ones(5, 2, requires_grad=True)
        psw = lib.ones(4, requires_grad=True)
        out = lib.nn.functional.embedding_bag(
            lib.tensor([0, 2, 4, 1]), weight, lib.tensor([0, 2]), per_sample_weights=psw
        )
        grads = lib.autograd.grad((out * out).sum(), (weight, psw), create_graph=True)
        assert all(g.requires_grad for g in grads)
        lib.autograd.grad(grads[1].sum(), weight)

    same_error(program)
