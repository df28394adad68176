"""PyTorch's backward kernels that pass the incoming gradient through a mask or a slope read
from a saved input: ``threshold_backward`` (relu, threshold), ``leaky_relu_backward``,
``hardtanh_backward`` (hardtanh, relu6), ``hardshrink_backward`` and ``softshrink_backward``.

Under ``create_graph`` each is recorded as its own node with edges to the gradient and the
input (``ThresholdBackwardBackward0``, ``LeakyReluBackwardBackward0`` ...), as PyTorch's.
Their derivatives, as ``derivatives.yaml`` writes them: the same kernel of the second-order
gradient for the gradient, and zeros for the input (the mask is constant almost everywhere).
The masks test as PyTorch's scalar loops do, so a NaN input passes its gradient where they
pass it (docs/fuzzing.md, "A NaN input to a branching pointwise backward").
"""

from __future__ import annotations

from typing import Any

from .._tensor import Tensor
from ..autograd.op import Op
from ._common import zeros_like_grad
from ._namespace import ArrayNamespace

where = ArrayNamespace.where


class MaskedBackward(Op):
    """``kernel(grad, x, **params)`` recorded as an op (the base of the nodes below)."""

    params: dict

    saved_inputs: tuple[int, ...] = (1,)
    saved_for: tuple[tuple[int, ...], ...] = ((0,),)
    __slots__ = ("params",)

    @staticmethod
    def kernel(grad: Any, x: Any, **params: Any) -> Any:
        raise NotImplementedError

    def forward(self, grad: Any, x: Any, **params: Any) -> Any:
        self.params = params
        return self.kernel(grad, x, **params)

    def backward(self, F: Any, gg: Any) -> Any:
        (x,) = self.saved  # None when no gradient of ``grad`` is wanted (saved_for)
        grad_grad = None if x is None else masked_backward(type(self), gg, x, **self.params)
        return grad_grad, zeros_like_grad(F, gg)


def masked_backward(node: type[MaskedBackward], grad: Any, x: Any, **params: Any) -> Any:
    """``node``'s kernel of ``grad`` and ``x``: on Tensors (create_graph) recorded as the
    node; on arrays computed at once, without making one."""
    if isinstance(x, Tensor) or isinstance(grad, Tensor):
        return node.apply(grad, x, **params)
    return node.kernel(grad, x, **params)


class ThresholdBackwardBackward0(MaskedBackward):
    """``grad`` where ``x > threshold``, else 0 (not ``x > threshold``: a NaN passes)."""

    __slots__ = ()

    @staticmethod
    def kernel(grad: Any, x: Any, threshold: Any) -> Any:  # type: ignore[override]
        return where(~(x <= threshold), grad, 0.0)


class LeakyReluBackwardBackward0(MaskedBackward):
    """``grad`` where ``x > 0`` (the input, or the result of the in-place op), else
    ``grad * negative_slope``."""

    __slots__ = ()

    @staticmethod
    def kernel(grad: Any, x: Any, negative_slope: Any) -> Any:  # type: ignore[override]
        return where(x > 0, grad, grad * negative_slope)


class HardtanhBackwardBackward0(MaskedBackward):
    """``grad`` strictly inside (min_val, max_val), else 0: where, not a product with a mask,
    so an infinite gradient outside gives 0."""

    __slots__ = ()

    @staticmethod
    def kernel(grad: Any, x: Any, min_val: Any, max_val: Any) -> Any:  # type: ignore[override]
        return where(~((x <= min_val) | (x >= max_val)), grad, 0.0)


def _outside_lambd(grad: Any, x: Any, lambd: Any) -> Any:
    return where((x >= -lambd) & (x <= lambd), 0.0, grad)


class HardshrinkBackwardBackward0(MaskedBackward):
    """``grad`` where ``|x| > lambd``, else 0."""

    __slots__ = ()
    kernel = staticmethod(_outside_lambd)


class SoftshrinkBackwardBackward0(MaskedBackward):
    """``grad`` where ``|x| > lambd``, else 0 (softshrink's slope is 1 outside)."""

    __slots__ = ()
    kernel = staticmethod(_outside_lambd)
