"""PyTorch's ``gelu_backward`` (the gradient of gelu, exact and tanh) and its derivatives, as
``derivatives.yaml`` writes them: ``gelu_backward`` again for the incoming gradient, and
``gelu_double_backward`` for the input, ``gg * grad * gelu''(x)`` with gelu'' written as
FunctionsManual.cpp writes it (for an infinite or NaN gradient, the same products meet the
same zeros and infinities as in PyTorch; the derivative of glassgrad's own gradient formula
had other terms).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._tensor import Tensor
from ..autograd.op import Op
from . import pointwise
from ._namespace import ArrayNamespace
from .nn_activation import call_op
from .unary_math import CoshBackward0, ErfBackward0

SQRT1_2 = math.sqrt(0.5)
# 1 / sqrt(2 pi): PyTorch's kBeta of the exact gelu, M_2_SQRTPI * M_SQRT1_2 * 0.5 (the same
# double).
INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
# sqrt(2 / pi) and 0.044715: the tanh approximation's constants (PyTorch's kBeta, kKappa).
TANH_BETA = math.sqrt(2.0 / math.pi)
TANH_KAPPA = 0.044715


def normal_cdf(F: Any, x: Any) -> Any:
    """Phi(x) = (1 + erf(x / sqrt 2)) / 2, through erf's node on Tensors."""
    return 0.5 * (1.0 + call_op(F, ErfBackward0, x * SQRT1_2))


def gelu_backward(grad: Any, x: Any, approximate: str, cdf: Any = None) -> Any:
    """``grad`` times gelu's slope at ``x`` (``cdf``: Phi(x) if the forward kept it). On
    Tensors (create_graph) a GeluBackwardBackward0 node; on arrays computed at once."""
    if isinstance(x, Tensor) or isinstance(grad, Tensor):
        return GeluBackwardBackward0.apply(grad, x, approximate=approximate)
    return _slope_times(grad, x, approximate, cdf)


def _slope_times(grad: Any, x: np.ndarray, approximate: str, cdf: Any = None) -> Any:
    F = ArrayNamespace
    if approximate == "tanh":
        inner = TANH_BETA * (x + TANH_KAPPA * x * x * x)
        t = call_op(F, pointwise.TanhBackward0, inner)
        d_inner = TANH_BETA * (1.0 + 3.0 * TANH_KAPPA * x * x)
        return grad * (0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * d_inner)
    if cdf is None:
        cdf = normal_cdf(F, x)
    pdf = INV_SQRT_2PI * np.exp(-0.5 * x * x)
    return grad * (cdf + x * pdf)


def gelu_double_backward(F: Any, gg: Any, grad: Any, x: Any, approximate: str) -> Any:
    """PyTorch's ``gelu_double_backward(ggI, gO, input)``: ``ggI * gO * gelu''(input)``, in
    its order of operations."""
    if approximate == "tanh":
        inner = TANH_BETA * (x + TANH_KAPPA * x**3)
        tanh_inner = call_op(F, pointwise.TanhBackward0, inner)
        sech_inner = 1 / call_op(F, CoshBackward0, inner)
        f = 0.5 * x
        g = 1 - tanh_inner * tanh_inner
        h = TANH_BETA * (1 + 3 * TANH_KAPPA * x * x)
        f_prime_gh = 0.5 * g * h
        g_prime = (2 * sech_inner) * (-sech_inner * tanh_inner) * h
        g_prime_fh = f * h * g_prime
        h_prime = 6 * TANH_KAPPA * x * TANH_BETA
        h_prime_fg = f * g * h_prime
        return gg * grad * (2 * f_prime_gh + g_prime_fh + h_prime_fg)
    x_sq = x * x
    pdf = INV_SQRT_2PI * F.exp(-0.5 * x_sq)
    return gg * grad * (2 * pdf - x_sq * pdf)


class GeluBackwardBackward0(Op):
    """``gelu_backward(grad, x)`` recorded under ``create_graph``, with PyTorch's derivatives
    of it."""

    approximate: Any

    saved_inputs: tuple[int, ...] = (0, 1)
    saved_for: tuple[tuple[int, ...], ...] = ((1,), (0, 1))
    __slots__ = ("approximate",)

    def forward(self, grad: Any, x: Any, approximate: Any) -> Any:
        self.approximate = approximate
        return _slope_times(grad, x, approximate)

    def backward(self, F: Any, gg: Any) -> Any:
        grad, x = self.saved
        needs = self.needs_input_grad
        approximate = self.approximate
        grad_grad = gelu_backward(gg, x, approximate) if needs[0] else None
        grad_x = gelu_double_backward(F, gg, grad, x, approximate) if needs[1] else None
        return grad_grad, grad_x
