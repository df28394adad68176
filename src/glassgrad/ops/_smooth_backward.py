"""The backwards of softplus, hardswish and logsigmoid as ops of their own, PyTorch's
``softplus_backward``, ``hardswish_backward`` and ``log_sigmoid_backward``: under
``create_graph`` a first derivative is one node named as PyTorch's (``SoftplusBackwardBackward0``
...), whose derivatives are ``derivatives.yaml``'s: the same backward again for the incoming
gradient, and the op's ``*_double_backward`` for the input.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._tensor import Tensor
from ..autograd.op import Op
from ._common import array_of
from ._namespace import ArrayNamespace
from .pointwise import SigmoidBackward0, sigmoid_backward


def _constant(F: Any, mask: np.ndarray, like: Any) -> Any:
    """A 0/1 ``mask`` in ``like``'s dtype: a constant of a double backward."""
    mask = np.asarray(mask).astype(array_of(like).dtype)
    return mask if F is ArrayNamespace else Tensor._from_array(mask)


class _PointwiseBackward(Op):
    """``grad`` times an activation's slope at the saved input ``x``: ``grad``'s derivative
    reads ``x``, ``x``'s reads both."""

    saved_inputs: tuple[int, ...] = (0, 1)
    saved_for: tuple[tuple[int, ...], ...] = ((1,), (0, 1))
    __slots__ = ()


class SoftplusBackwardBackward0(_PointwiseBackward):
    """``softplus_backward(grad, x, beta, threshold)``: ``grad`` where ``beta x > threshold``,
    else ``grad * sigmoid(beta x)``. Its derivative in ``x`` is ``softplus_double_backward``,
    ``sigmoid_backward(gg * grad, sigmoid(beta x)) * (beta x < threshold) * beta``."""

    beta: Any
    threshold: Any
    __slots__ = ("beta", "threshold")

    def forward(self, grad: Any, x: Any, beta: Any, threshold: Any) -> Any:
        self.beta, self.threshold = beta, threshold
        scaled = x * beta
        s = SigmoidBackward0.call(scaled)
        return np.where(scaled > threshold, grad, grad * s)

    def backward(self, F: Any, gg: Any) -> Any:
        grad, x = self.saved
        needs, beta, threshold = self.needs_input_grad, self.beta, self.threshold
        d_grad = d_x = None
        if needs[0]:
            d_grad = SoftplusBackwardBackward0.call(gg, x, beta=beta, threshold=threshold)
        if needs[1]:
            scaled = x * beta
            below = _constant(F, array_of(scaled) < threshold, grad)
            d_x = sigmoid_backward(gg * grad, SigmoidBackward0.call(scaled)) * below * beta
        return d_grad, d_x


class HardswishBackwardBackward0(_PointwiseBackward):
    """``hardswish_backward(grad, x)``: 0 for x <= -3, ``grad (x / 3 + 1 / 2)`` inside, ``grad``
    for x >= 3 (PyTorch's choices at the kinks; 0 below -3 even at x = -inf, where x / 3 + 1 / 2
    would make it NaN). Its derivative in ``x`` is ``gg * grad / 3`` strictly inside (-3, 3)."""

    __slots__ = ()

    def forward(self, grad: Any, x: Any) -> Any:
        below = x <= -3.0
        slope = np.where(below, 0.0, np.where(x < 3.0, x / 3.0 + 0.5, 1.0))
        return ArrayNamespace.where(below, 0.0, grad * slope.astype(x.dtype, copy=False))

    def backward(self, F: Any, gg: Any) -> Any:
        grad, x = self.saved
        needs = self.needs_input_grad
        d_grad = HardswishBackwardBackward0.call(gg, x) if needs[0] else None
        d_x = None
        if needs[1]:
            v = array_of(x)
            d_x = F.where((v > -3.0) & (v < 3.0), gg * grad / 3.0, 0.0)
        return d_grad, d_x


class LogSigmoidBackwardBackward0(_PointwiseBackward):
    """``log_sigmoid_backward(grad, x)``: ``grad * sigmoid(-x)``. Its derivative in ``x`` is
    ``log_sigmoid_double_backward``, ``gg * grad * (z - 1) * z`` with z = sigmoid(x)."""

    __slots__ = ()

    def forward(self, grad: Any, x: Any) -> Any:
        return grad * SigmoidBackward0.call(-x)

    def backward(self, F: Any, gg: Any) -> Any:
        grad, x = self.saved
        needs = self.needs_input_grad
        d_grad = LogSigmoidBackwardBackward0.call(gg, x) if needs[0] else None
        d_x = None
        if needs[1]:
            z = SigmoidBackward0.call(x)
            d_x = gg * grad * (z - 1.0) * z
        return d_grad, d_x
