"""The backward of layer and batch norm as PyTorch's ops, ``native_layer_norm_backward`` and
``native_batch_norm_backward``: under ``create_graph`` one node each
(``NativeLayerNormBackwardBackward0``, ``NativeBatchNormBackwardBackward0``) whose gradients
are FunctionsManual.cpp's ``layer_norm_double_backward`` and ``batchnorm_double_backward``, in
their order of operations. The statistics (mean, invstd) are constants there, as PyTorch's
saved ones are: the formulas carry their dependence on the input. Also the kernels' input
gradient of layer and group norm, and ``var_mean_backward`` for group norm's composite.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._tensor import Tensor
from ..autograd.op import Op
from ._common import array_of, sum_defined
from ._namespace import ArrayNamespace


def _constant(F: Any, array: np.ndarray) -> Any:
    return array if F is ArrayNamespace else Tensor._from_array(array)


def var_mean_backward(F: Any, d_var: Any, d_mean: Any, x: Any, count: int) -> Any:
    """PyTorch's ``var_mean_backward`` over dims (2, 3) of ``x`` (biased, dims kept):
    ``(2 / n) d_var (x - mean(x)) + d_mean / n``."""
    centered = x - F.sum(x, (2, 3), True) / count
    return (2.0 / count) * d_var * centered + F.expand(d_mean, tuple(x.shape)) / count


# --- layer norm ------------------------------------------------------------------------------


def kernel_grad_input(
    F: Any, grad_gamma: Any, x: Any, mean: Any, rstd: Any, dims: tuple, count: int
) -> Any:
    """dL/dx of a layer or group norm from ``grad_gamma`` (dL/dy times the weight), in the
    order of PyTorch's CPU kernels (``layer_norm_backward_frame``,
    ``GroupNormBackwardKernelImplInternal``): ``rstd * grad_gamma + b * x + c`` with
    ``b = (db * mean - ds) * rstd^3 / count`` and ``c = -b * mean - db * rstd / count``, ``ds``
    and ``db`` the sums of ``grad_gamma * x`` and ``grad_gamma``. An infinite weight or
    gradient then gives NaN and inf where PyTorch's does."""
    ds = F.sum(grad_gamma * x, dims, True)
    db = F.sum(grad_gamma, dims, True)
    b = (db * mean - ds) * rstd * rstd * rstd / count
    c = -b * mean - db * rstd / count
    return rstd * grad_gamma + b * x + c


class NativeLayerNormBackwardBackward0(Op):
    """PyTorch's ``native_layer_norm_backward(grad, x, w, b)``: the input, weight and bias
    gradients of a layer norm over the trailing ``normalized_shape`` dims (weight and bias ones
    summed over the leading dims), from the forward's statistics ``mean`` and ``rstd`` (one a
    row)."""

    normalized_shape: Any

    saved_inputs: tuple[int, ...] = (0, 1, 2)
    takes_undefined_grads = True  # an undefined gradient's terms are left out, as in PyTorch
    __slots__ = ("normalized_shape", "_mean", "_rstd")

    def forward(
        self, grad: Any, x: Any, w: Any, b: Any, mean: Any, rstd: Any, normalized_shape: Any
    ) -> Any:
        self.normalized_shape, self._mean, self._rstd = normalized_shape, mean, rstd
        shape, n = x.shape, math.prod(normalized_shape)
        rows = (mean.size, n)
        grad, x, mean, rstd = (
            grad.reshape(rows),
            x.reshape(rows),
            mean.reshape(-1, 1),
            rstd.reshape(-1, 1),
        )
        grad_gamma = grad if w is None else grad * w.reshape(1, n)
        grad_input = kernel_grad_input(ArrayNamespace, grad_gamma, x, mean, rstd, (1,), n)
        # The kernel's dgamma: dy * (rstd * x - rstd * mean), summed over the rows.
        grad_weight = np.sum(grad * (rstd * x - rstd * mean), 0).reshape(normalized_shape)
        return grad_input.reshape(shape), grad_weight, np.sum(grad, 0).reshape(normalized_shape)

    def backward(self, F: Any, grads: Any) -> Any:
        gg_input, gg_weight, gg_bias = grads
        grad, x, w = self.saved
        shape = tuple(x.shape)
        m, n = self._mean.size, math.prod(self.normalized_shape)
        rows = (m, n)
        x2 = F.reshape(x, rows)
        grad2 = F.reshape(grad, rows)
        mu = _constant(F, self._mean.reshape(m, 1))
        s12 = self._rstd.reshape(m, 1)
        s1, s32 = _constant(F, s12 * s12), _constant(F, s12 * s12 * s12)
        s12 = _constant(F, s12)
        affine = w is not None
        gamma = F.reshape(w, (1, n)) if affine else _constant(F, np.ones(1, array_of(x).dtype))
        gg_g = None if gg_weight is None else F.reshape(gg_weight, (1, n))
        gg_b = None if gg_bias is None else F.reshape(gg_bias, (1, n))
        gg_i = None if gg_input is None else F.reshape(gg_input, rows)
        centered = x2 - mu
        centered_s32 = centered * s32

        d_input = None
        if gg_i is not None:
            gxhat = grad2 * gamma
            gxhat_mu_sum = F.sum(gxhat * centered, 1, True)
            gxhat_sum = F.sum(gxhat, 1, True)
            gg_sum = F.sum(gg_i, 1, True)
            gg_mu_sum = F.sum(gg_i * centered, 1, True)
            all_sub = (
                (gg_sum * gxhat_sum) / n
                - F.sum(gg_i * gxhat, 1, True)
                + (s1 * gxhat_mu_sum * gg_mu_sum) * (3.0 / n)
            )
            term0 = (centered_s32 * all_sub) / n
            term1 = ((gg_mu_sum * s32) / n) * (gxhat_sum / n - gxhat)
            term2 = ((gxhat_mu_sum * s32) / n) * (gg_sum / n - gg_i)
            d_input = term0 + term1 + term2
        if affine and gg_g is not None:
            t0 = grad2 * gg_g * s12
            t1 = (s12 * F.sum(grad2 * gg_g, 1, True)) / -n
            t2 = (centered_s32 * F.sum(grad2 * gg_g * centered, 1, True)) / -n
            d_input = sum_defined(d_input, t0 + t1 + t2)
        if d_input is not None:
            d_input = F.reshape(d_input, shape)

        def first_grad_input(g: Any, gamma_local: Any) -> Any:
            h0 = (gamma_local * s12) / n
            h1 = n * g - F.sum(g, 1, True) - (centered * s1) * F.sum(g * centered, 1, True)
            return h0 * h1

        d_weight = None
        if affine and gg_i is not None:
            d_weight = first_grad_input(gg_i, _constant(F, np.ones((), array_of(x).dtype)))
            d_weight = F.reshape(F.sum(grad2 * d_weight, 0), tuple(w.shape))
        d_grad = None
        if gg_i is not None:
            d_grad = first_grad_input(gg_i, gamma)
        if gg_g is not None:
            d_grad = sum_defined(d_grad, gg_g * centered * s12)
        if gg_b is not None:
            d_grad = sum_defined(d_grad, gg_b)
        if d_grad is not None:
            d_grad = F.reshape(F.expand(d_grad, rows), shape)
        return d_grad, d_input, d_weight, None


# --- batch norm ------------------------------------------------------------------------------


class NativeBatchNormBackwardBackward0(Op):
    """PyTorch's ``native_batch_norm_backward(grad, x, w)``: the input, weight and bias
    gradients of a batch norm with per-channel statistics ``mean`` and ``invstd`` (channel
    shape), the batch's (``training``) or the running ones, in the order of its CPU kernel:
    ``dotp = sum((x - mean) dy)``; ``dx = (dy - sum(dy) / n - (x - mean) dotp invstd^2 / n)
    invstd w`` (training) or ``dy invstd w``; ``dw = dotp invstd``; ``db = sum(dy)``."""

    training: Any

    saved_inputs: tuple[int, ...] = (0, 1, 2)
    takes_undefined_grads = True  # an undefined gradient's terms are left out, as in PyTorch
    __slots__ = ("training", "_mean", "_invstd")

    def forward(self, grad: Any, x: Any, w: Any, mean: Any, invstd: Any, training: Any) -> Any:
        self.training, self._mean, self._invstd = training, mean, invstd
        dims = (0, *range(2, x.ndim))
        count = x.size // x.shape[1] if x.shape[1] else 0
        centered = x - mean
        dotp = np.sum(centered * grad, dims, keepdims=True)
        if training:
            k = dotp * invstd * invstd / count
            grad_input = (grad - np.sum(grad, dims, keepdims=True) / count - centered * k) * invstd
        else:
            grad_input = grad * invstd
        if w is not None:
            grad_input = grad_input * w.reshape(mean.shape)
        return grad_input, (dotp * invstd).reshape(x.shape[1]), np.sum(grad, dims)

    def backward(self, F: Any, grads: Any) -> Any:
        """``batchnorm_double_backward``."""
        gg_input, gg_weight, gg_bias = grads
        grad, x, w = self.saved
        shape = self._mean.shape
        dims = (0, *range(2, len(shape)))
        count = math.prod(x.shape) // x.shape[1] if x.shape[1] else 0
        training = self.training
        affine = w is not None
        gamma = F.reshape(w, shape) if affine else _constant(F, np.ones((), array_of(x).dtype))
        gg_g = None if gg_weight is None else F.reshape(gg_weight, shape)
        gg_b = None if gg_bias is None else F.reshape(gg_bias, shape)
        s12 = self._invstd
        s1, s32 = _constant(F, s12 * s12), _constant(F, s12 * s12 * s12)
        s12 = _constant(F, s12)
        centered = x - _constant(F, self._mean)
        centered_s32 = centered * s32

        def sum_but_channels(t: Any) -> Any:
            return F.sum(t, dims, True)

        grad_centered_sum = sum_but_channels(grad * centered)
        grad_sum = sum_but_channels(grad)
        d_input = None
        if gg_input is not None and training:
            gg_sum = sum_but_channels(gg_input)
            gg_centered_sum = sum_but_channels(gg_input * centered)
            all_sub = (
                (gg_sum * grad_sum) / count
                - sum_but_channels(grad * gg_input)
                + (s1 * grad_centered_sum * gg_centered_sum) * (3.0 / count)
            )
            term0 = (centered_s32 * all_sub) / count
            term1 = ((gg_centered_sum * s32) / count) * (grad_sum / count - grad)
            term2 = ((grad_centered_sum * s32) / count) * (gg_sum / count - gg_input)
            d_input = gamma * (term0 + term1 + term2)
        if affine and gg_g is not None:
            if training:
                t0 = grad * s12
                t1 = (s12 * grad_sum) / -count
                t2 = (centered_s32 * sum_but_channels(grad * centered)) / -count
                d_input = sum_defined(d_input, gg_g * (t0 + t1 + t2))
            else:
                d_input = sum_defined(d_input, gg_g * s12 * grad)

        def first_grad_input(g: Any, gamma_local: Any) -> Any:
            h0 = (gamma_local * s12) / count
            h1 = count * g - sum_but_channels(g) - (centered * s1) * sum_but_channels(g * centered)
            return h0 * h1

        d_weight = None
        if affine and gg_input is not None:
            if training:
                ones = _constant(F, np.ones((), array_of(x).dtype))
                d_weight = F.sum(gg_input * first_grad_input(grad, ones), dims)
            else:
                d_weight = F.sum(gg_input * grad * s12, dims)
        d_grad = None
        if gg_input is not None:
            if training:
                d_grad = first_grad_input(gg_input, gamma)
            else:
                d_grad = gg_input * s12 * gamma
        if gg_g is not None:
            d_grad = sum_defined(d_grad, gg_g * centered * s12)
        if gg_b is not None:
            d_grad = sum_defined(d_grad, gg_b)
        return d_grad, d_input, d_weight
