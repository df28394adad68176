"""``nn.utils.fusion``: fold an eval-mode batch norm into the convolution or linear layer
before it (one layer computing both), as PyTorch's ``fuse_*`` functions.

Example::

    >>> conv, bn = nn.Conv2d(3, 4, 3).eval(), nn.BatchNorm2d(4).eval()
    >>> fused = nn.utils.fuse_conv_bn_eval(conv, bn)
    >>> x = glassgrad.randn(1, 3, 5, 5)
    >>> bool(((fused(x) - bn(conv(x))).abs() < 1e-5).all())
    True
"""

from __future__ import annotations

import copy
from typing import Any

from ..._tensor import Tensor
from ...ops import unary_math
from ..parameter import Parameter

__all__ = [
    "fuse_conv_bn_eval",
    "fuse_conv_bn_weights",
    "fuse_linear_bn_eval",
    "fuse_linear_bn_weights",
]


def _zeros_like(t: Tensor) -> Tensor:
    return t.new_zeros(t.shape)


def fuse_conv_bn_eval(conv: Any, bn: Any, transpose: bool = False) -> Any:
    """A copy of ``conv`` whose weight and bias also apply ``bn`` (both in eval mode).

    Example::

        >>> conv, bn = nn.Conv1d(2, 2, 1).eval(), nn.BatchNorm1d(2).eval()
        >>> type(nn.utils.fuse_conv_bn_eval(conv, bn)).__name__
        'Conv1d'
    """
    if conv.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    fused = copy.deepcopy(conv)
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("bn.running_mean and bn.running_var must not be None")
    fused.weight, fused.bias = fuse_conv_bn_weights(
        fused.weight,
        fused.bias,
        bn.running_mean,
        bn.running_var,
        bn.eps,
        bn.weight,
        bn.bias,
        transpose,
    )
    return fused


def fuse_conv_bn_weights(
    conv_w: Tensor,
    conv_b: Tensor | None,
    bn_rm: Tensor,
    bn_rv: Tensor,
    bn_eps: float,
    bn_w: Tensor | None,
    bn_b: Tensor | None,
    transpose: bool = False,
) -> tuple[Parameter, Parameter]:
    """The weight and bias of a convolution followed by an eval-mode batch norm:
    ``w * (bn_w / sqrt(rv + eps))`` per output channel, ``(b - rm) * bn_w / sqrt(rv + eps) +
    bn_b``.

    Example::

        >>> w, b = nn.utils.fuse_conv_bn_weights(
        ...     glassgrad.ones(2, 1, 1), None, glassgrad.zeros(2), glassgrad.ones(2), 0.0,
        ...     None, None)
        >>> w.shape, b.shape
        (glassgrad.Size([2, 1, 1]), glassgrad.Size([2]))
    """
    weight_dtype = conv_w.dtype
    bias_dtype = conv_b.dtype if conv_b is not None else weight_dtype
    if conv_b is None:
        conv_b = _zeros_like(bn_rm)
    if bn_w is None:
        bn_w = bn_rm.new_ones(bn_rm.shape)
    if bn_b is None:
        bn_b = _zeros_like(bn_rm)
    rsqrt = unary_math.rsqrt(bn_rv + bn_eps)
    ones = [1] * (len(conv_w.shape) - 2)
    shape = [1, -1, *ones] if transpose else [-1, 1, *ones]
    fused_w = (conv_w * (bn_w * rsqrt).reshape(shape)).to(dtype=weight_dtype)
    fused_b = ((conv_b - bn_rm) * rsqrt * bn_w + bn_b).to(dtype=bias_dtype)
    return Parameter(fused_w, conv_w.requires_grad), Parameter(fused_b, conv_b.requires_grad)


def fuse_linear_bn_eval(linear: Any, bn: Any) -> Any:
    """A copy of ``linear`` whose weight and bias also apply ``bn`` (both in eval mode).

    Example::

        >>> linear, bn = nn.Linear(3, 2).eval(), nn.BatchNorm1d(2).eval()
        >>> type(nn.utils.fuse_linear_bn_eval(linear, bn)).__name__
        'Linear'
    """
    if linear.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    fused = copy.deepcopy(linear)
    if linear.out_features != bn.num_features and bn.num_features != 1:
        raise AssertionError(
            "To fuse, linear.out_features == bn.num_features or bn.num_features == 1, got "
            f"linear.out_features={linear.out_features} and bn.num_features={bn.num_features}"
        )
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("bn.running_mean and bn.running_var must not be None")
    fused.weight, fused.bias = fuse_linear_bn_weights(
        fused.weight, fused.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias
    )
    return fused


def fuse_linear_bn_weights(
    linear_w: Tensor,
    linear_b: Tensor | None,
    bn_rm: Tensor,
    bn_rv: Tensor,
    bn_eps: float,
    bn_w: Tensor,
    bn_b: Tensor,
) -> tuple[Parameter, Parameter]:
    """The weight and bias of a linear layer followed by an eval-mode batch norm.

    Example::

        >>> w, b = nn.utils.fuse_linear_bn_weights(
        ...     glassgrad.ones(2, 3), None, glassgrad.zeros(2), glassgrad.ones(2), 0.0,
        ...     glassgrad.ones(2), glassgrad.zeros(2))
        >>> w.shape, b.shape
        (glassgrad.Size([2, 3]), glassgrad.Size([2]))
    """
    weight_dtype = linear_w.dtype
    bias_dtype = linear_b.dtype if linear_b is not None else weight_dtype
    if linear_b is None:
        linear_b = _zeros_like(bn_rm)
    scale = bn_w * unary_math.rsqrt(bn_rv + bn_eps)
    fused_w = linear_w * scale.unsqueeze(-1).to(dtype=weight_dtype)
    fused_b = ((linear_b - bn_rm) * scale + bn_b).to(dtype=bias_dtype)
    return Parameter(fused_w, linear_w.requires_grad), Parameter(fused_b, linear_b.requires_grad)
