"""PyTorch's ``elu_backward`` (the gradient of elu, selu and celu) and its derivatives, as
``derivatives.yaml`` writes them: ``elu_backward`` again for the incoming gradient, and
``elu_double_backward`` for the saved input or result, which multiplies by the mask
``self_or_result < 0``. A product, not a selection: an infinite or NaN gradient meeting the
mask's zeros gives NaN there, as in PyTorch.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._tensor import Tensor
from ..autograd.op import Op
from ._common import array_of
from ._namespace import ArrayNamespace


def elu_backward(grad: Any, saved: Any, coefficients: tuple, is_result: bool) -> Any:
    """``grad`` times elu's slope at ``saved`` (the input, or the result if ``is_result``);
    ``coefficients`` is ``(alpha, scale, input_scale)``. ATen's scalar loop tests
    ``saved <= 0`` for the negative side, so a NaN takes the positive slope. On Tensors
    (create_graph) an EluBackwardBackward0 node; on arrays computed at once."""
    if isinstance(saved, Tensor) or isinstance(grad, Tensor):
        return EluBackwardBackward0.apply(
            grad, saved, coefficients=coefficients, is_result=is_result
        )
    return _slope_times(grad, saved, coefficients, is_result)


def _slope_times(grad: Any, saved: np.ndarray, coefficients: tuple, is_result: bool) -> Any:
    alpha, scale, input_scale = coefficients
    # min(saved, 0): the negative side's formula, whose exp never overflows; a NaN stays NaN
    # there but takes the positive slope below.
    negative_side = np.minimum(saved, 0)
    if is_result:
        slope = input_scale * (negative_side + alpha * scale)
    else:
        slope = np.exp(negative_side * input_scale) * (input_scale * alpha * scale)
    return grad * np.where(saved <= 0, slope, scale).astype(saved.dtype, copy=False)


class EluBackwardBackward0(Op):
    """``elu_backward(grad, saved)`` recorded under ``create_graph``, with PyTorch's
    derivatives of it."""

    coefficients: Any
    is_result: Any

    saved_inputs: tuple[int, ...] = (0, 1)
    saved_for: tuple[tuple[int, ...], ...] = ((1,), (0, 1))
    __slots__ = ("coefficients", "is_result")

    def forward(self, grad: Any, saved: Any, coefficients: Any, is_result: Any) -> Any:
        self.coefficients, self.is_result = coefficients, is_result
        return _slope_times(grad, saved, coefficients, is_result)

    def backward(self, F: Any, gg: Any) -> Any:
        grad, saved = self.saved
        needs = self.needs_input_grad
        coefficients, is_result = self.coefficients, self.is_result
        grad_grad = elu_backward(gg, saved, coefficients, is_result) if needs[0] else None
        grad_saved = None
        if needs[1]:  # elu_double_backward
            values = array_of(saved)
            mask = (values < 0).astype(values.dtype)
            if F is not ArrayNamespace:
                mask = Tensor._from_array(mask)
            scaled = gg * grad * coefficients[2]
            if not is_result:
                scaled = elu_backward(scaled, saved, coefficients, False)
            grad_saved = scaled * mask
        return grad_grad, grad_saved
