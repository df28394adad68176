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
