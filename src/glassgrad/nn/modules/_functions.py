"""Autograd functions behind modules, as PyTorch's ``torch/nn/modules/_functions.py``:
``CrossMapLRN2d`` (its grad_fn is ``CrossMapLRN2dBackward``, as in PyTorch)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..._tensor import Tensor
from ...autograd.function import Function

__all__ = ["CrossMapLRN2d"]


class CrossMapLRN2d(Function):
    # torch/nn/modules/_functions.py CrossMapLRN2d, step for step on NumPy arrays: its
    # forward window (built incrementally, the first channel never leaves it) and its
    # backward (a symmetric window) are both PyTorch's.

    @staticmethod
    def forward(ctx: Any, input: Tensor, size: int, alpha: float, beta: float, k: float) -> Tensor:
        if input.dim() != 4:
            raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.dim()}D instead.")
        x = input.detach().numpy()
        channels = x.shape[1]
        square = x * x
        scale = np.empty_like(x)
        pre_pad = int((size - 1) / 2 + 1)
        scale[:, 0] = square[:, : min(pre_pad, channels)].sum(axis=1)
        for c in range(1, channels):
            scale[:, c] = scale[:, c - 1]
            if c < channels - pre_pad + 1:
                scale[:, c] += square[:, c + pre_pad - 1]
            if c > pre_pad:
                scale[:, c] -= square[:, c - pre_pad]
        scale *= alpha / size
        scale += k
        output = np.power(scale, -beta) * x
        ctx.size, ctx.alpha, ctx.beta, ctx.scale = size, alpha, beta, scale
        result = Tensor._from_array(output.astype(x.dtype, copy=False))
        ctx.save_for_backward(input, result)
        return result

    @staticmethod
    def backward(ctx: Any, grad_output: Tensor) -> tuple[Any, ...]:
        input, output = (t.detach().numpy() for t in ctx.saved_tensors)
        grad = grad_output.detach().numpy()
        size, scale = ctx.size, ctx.scale
        channels = input.shape[1]
        cache_ratio_value = 2 * ctx.alpha * ctx.beta / size
        inverse_pre_pad = int(size - (size - 1) / 2)
        grad_input = np.power(scale, -ctx.beta) * grad
        padded = np.zeros((channels + size - 1, *input.shape[2:]), input.dtype)
        for n in range(input.shape[0]):
            padded[inverse_pre_pad : inverse_pre_pad + channels] = grad[n] * output[n] / scale[n]
            accum = padded[: size - 1].sum(axis=0)
            for c in range(channels):
                accum += padded[c + size - 1]
                grad_input[n, c] -= cache_ratio_value * input[n, c] * accum
                accum -= padded[c]
        return Tensor._from_array(grad_input), None, None, None, None
