"""Average pooling: ``avg_pool1d/2d/3d`` (public in ``glassgrad.nn.functional``).

The 2-d and 3-d ops share one N-d implementation; ``avg_pool1d`` is, as in PyTorch, the 2-d op
on an input with a unit height. The sum loops over the kernel offsets, one strided slice-add
each; the backward spreads each gradient over its window the same way and is itself an op
(its backward is average pooling again), so ``create_graph=True`` gives second derivatives.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from .._tensor import Tensor
from ..autograd.op import Op
from . import shape as shape_ops
from ._common import input_zeros
from ._not_implemented import refuse_complex
from ._pool_geometry import (
    _as_2d,
    _offset_slices,
    _padded_planes,
    _padded_size,
    _pool_params,
    _single,
    _unpadded,
)
from ._registry import Sample, register
from ._samples import randn


@functools.lru_cache(maxsize=32)
def _avg_divisor(size, out, kernel, stride, padding, count_include_pad, override) -> np.ndarray:
    """Spatial divisors: window volume clipped to the padded input, or to the input itself
    (cached per geometry, read-only)."""
    divisor = _divisor_of(size, out, kernel, stride, padding, count_include_pad, override)
    divisor.flags.writeable = False
    return divisor


def _divisor_of(size, out, kernel, stride, padding, count_include_pad, override) -> np.ndarray:
    if override is not None:
        return np.full(out, float(override))
    divisor = np.ones(())
    for n, o, k, s, p in zip(size, out, kernel, stride, padding):
        start = np.arange(o) * s - p
        end = np.minimum(start + k, n + p)
        if count_include_pad:
            length = end - start
        else:
            length = np.minimum(end, n) - np.maximum(start, 0)
        divisor = np.multiply.outer(divisor, length)
    return divisor.astype(np.float64)


class AvgPool2DBackward0(Op):
    """out = mean of each window (zero padding counted or not, or a fixed divisor)."""

    ceil_mode: Any
    count_include_pad: Any
    divisor_override: Any
    kernel_size: Any
    padding: Any
    stride: Any

    # Saved as PyTorch saves it (its backward node takes the input): in-place changes to the
    # input are caught, and under create_graph the gradient depends on it.
    saved_inputs: tuple[int, ...] = (0,)
    grad_reads_saved = True
    __slots__ = (
        "kernel_size",
        "stride",
        "padding",
        "ceil_mode",
        "count_include_pad",
        "divisor_override",
        "_divisor",
        "_shape",
    )

    def forward(
        self,
        x: Any,
        kernel_size: Any,
        stride: Any,
        padding: Any,
        ceil_mode: Any,
        count_include_pad: Any,
        divisor_override: Any,
        out_size: Any,
    ) -> Any:
        out, nd = out_size, len(kernel_size)
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding
        self.ceil_mode, self.count_include_pad = ceil_mode, count_include_pad
        self.divisor_override, self._shape = divisor_override, x.shape
        # Cached for the usual divisor (none, or an int); any other object as given, uncached.
        plain = divisor_override is None or type(divisor_override) is int
        self._divisor = (_avg_divisor if plain else _divisor_of)(
            x.shape[-nd:], out, kernel_size, stride, padding, count_include_pad, divisor_override
        )
        ones = (1,) * nd
        planes = _padded_planes(x, padding, out, kernel_size, stride, ones, 0)
        total = np.zeros((*x.shape[:-nd], *out), np.float64 if x.dtype.kind != "f" else x.dtype)
        for key in _offset_slices(kernel_size, out, stride, ones):
            total += planes[key]
        if x.dtype.kind != "f":
            return np.trunc(total / self._divisor).astype(x.dtype)
        return total / self._divisor.astype(x.dtype)

    def backward(self, F: Any, grad: Any) -> Any:
        (x,) = self.saved
        return _DOUBLE_BACKWARD[type(self)].call(grad, x, **self._params())

    def _params(self) -> dict:
        return dict(
            shape=self._shape,
            kernel_size=self.kernel_size,
            stride=self.stride,
            padding=self.padding,
            ceil_mode=self.ceil_mode,
            count_include_pad=self.count_include_pad,
            divisor_override=self.divisor_override,
            divisor=self._divisor,
        )


class AvgPool3DBackward0(AvgPool2DBackward0):
    """``avg_pool3d``: as ``AvgPool2DBackward0`` over (T, H, W) volumes."""

    __slots__ = ()


class AvgPool2DBackwardBackward0(Op):
    """grad_input = average pooling's backward: each output gradient spread evenly over its
    window. Linear in the gradient; its own gradient is average pooling again (and zeros for
    the input, which it takes as PyTorch's node does, for an edge only)."""

    ceil_mode: Any
    count_include_pad: Any
    divisor_override: Any
    kernel_size: Any
    padding: Any
    stride: Any

    __slots__ = (
        "kernel_size",
        "stride",
        "padding",
        "ceil_mode",
        "count_include_pad",
        "divisor_override",
        "_out",
    )

    def forward(
        self,
        grad: Any,
        x: Any,
        shape: Any,
        kernel_size: Any,
        stride: Any,
        padding: Any,
        ceil_mode: Any,
        count_include_pad: Any,
        divisor_override: Any,
        divisor: Any,
    ) -> Any:
        nd = len(kernel_size)
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding
        self.ceil_mode, self.count_include_pad = ceil_mode, count_include_pad
        self.divisor_override = divisor_override
        out = self._out = grad.shape[-nd:]
        size, ones = shape[-nd:], (1,) * nd
        spread = grad / divisor.astype(grad.dtype)
        full = _padded_size(size, padding, out, kernel_size, stride, ones)
        buf = np.zeros((*shape[:-nd], *full), grad.dtype)
        for key in _offset_slices(kernel_size, tuple(out), stride, ones):
            buf[key] += spread
        return buf[_unpadded(padding, size)]

    def backward(self, F: Any, grad: Any) -> Any:
        forward = AvgPool3DBackward0 if len(self.kernel_size) == 3 else AvgPool2DBackward0
        pooled = forward.apply(
            grad,
            kernel_size=self.kernel_size,
            stride=self.stride,
            padding=self.padding,
            ceil_mode=self.ceil_mode,
            count_include_pad=self.count_include_pad,
            divisor_override=self.divisor_override,
            out_size=self._out,
        )
        return pooled, input_zeros(F, self, 1)


class AvgPool3DBackwardBackward0(AvgPool2DBackwardBackward0):
    """``avg_pool3d``'s backward as an op (see ``AvgPool2DBackwardBackward0``)."""

    __slots__ = ()


_DOUBLE_BACKWARD = {
    AvgPool2DBackward0: AvgPool2DBackwardBackward0,
    AvgPool3DBackward0: AvgPool3DBackwardBackward0,
}


def _avg_pool_nd(
    op: str,
    nd: int,
    input,
    kernel_size,
    stride,
    padding,
    ceil_mode,
    count_include_pad,
    divisor_override,
) -> Tensor:
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError(f"{op}(): divisor must be not zero")
    kernel, stride, padding, _, out = _pool_params(
        op, input, nd, kernel_size, stride, padding, 1, ceil_mode, False
    )
    refuse_complex("avg_pool3d_out_frame" if nd == 3 else "avg_pool2d", input)
    node = AvgPool3DBackward0 if nd == 3 else AvgPool2DBackward0
    return node.apply(
        input,
        kernel_size=kernel,
        stride=stride,
        padding=padding,
        ceil_mode=bool(ceil_mode),
        count_include_pad=bool(count_include_pad),
        divisor_override=divisor_override,
        out_size=out,
    )


def avg_pool1d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
) -> Tensor:
    """1-d average pooling over (N, C, L) or (C, L): ``avg_pool2d`` on a unit height.

    Example::

        >>> glassgrad.nn.functional.avg_pool1d(glassgrad.tensor([[[1.0, 3.0, 2.0, 0.0]]]), 2)
        tensor([[[2., 1.]]])
    """
    op = "avg_pool1d"
    kernel = (1, *_single(kernel_size, "kernel_size", op))
    stride = None if stride is None else (1, *_single(stride, "stride", op))
    padding = (0, *_single(padding, "padding", op))
    result = _avg_pool_nd(
        op, 2, _as_2d(input, op), kernel, stride, padding, ceil_mode, count_include_pad, None
    )
    return shape_ops.squeeze(result, -2)


def avg_pool2d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override: int | None = None,
) -> Tensor:
    """2-d average pooling over (N, C, H, W) or (C, H, W) with zero padding.

    ``out = (sum of the window) / divisor``, the divisor being the window's area within the
    padded input (``count_include_pad``), within the input only, or ``divisor_override``.

    Example::

        >>> x = glassgrad.arange(16.0).reshape(1, 1, 4, 4)
        >>> glassgrad.nn.functional.avg_pool2d(x, 2)
        tensor([[[[ 2.5000,  4.5000],
                  [10.5000, 12.5000]]]])
    """
    return _avg_pool_nd(
        "avg_pool2d",
        2,
        input,
        kernel_size,
        stride,
        padding,
        ceil_mode,
        count_include_pad,
        divisor_override,
    )


def avg_pool3d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override: int | None = None,
) -> Tensor:
    """3-d average pooling over (N, C, T, H, W) or (C, T, H, W); as ``avg_pool2d`` with one
    more spatial axis.

    Example::

        >>> x = glassgrad.arange(8.0).reshape(1, 1, 2, 2, 2)
        >>> glassgrad.nn.functional.avg_pool3d(x, 2)
        tensor([[[[[3.5000]]]]])
    """
    return _avg_pool_nd(
        "avg_pool3d",
        3,
        input,
        kernel_size,
        stride,
        padding,
        ceil_mode,
        count_include_pad,
        divisor_override,
    )


# --- registry ---------------------------------------------------------------------------


def _avg_pool2d_samples(rng: np.random.Generator) -> list[Sample]:
    return [
        Sample((randn(rng, 2, 3, 6, 6), 2)),
        Sample((randn(rng, 2, 2, 7, 6), 3), {"stride": 2, "padding": 1}),
        Sample(
            (randn(rng, 1, 2, 5, 5), 3),
            {"stride": 2, "padding": 1, "ceil_mode": True, "count_include_pad": False},
        ),
        Sample((randn(rng, 1, 2, 5, 4), (2, 3)), {"stride": 1, "divisor_override": 3}),
        Sample((randn(rng, 3, 5, 6), 2), {"ceil_mode": True}, note="unbatched"),
    ]


def _avg_pool3d_samples(rng: np.random.Generator) -> list[Sample]:
    return [
        Sample((randn(rng, 2, 2, 4, 4, 4), 2)),
        Sample(
            (randn(rng, 1, 2, 5, 4, 5), 3),
            {"stride": 2, "padding": 1, "ceil_mode": True, "count_include_pad": False},
        ),
        Sample((randn(rng, 1, 1, 3, 4, 5), (1, 2, 3)), {"stride": 1, "divisor_override": 4}),
        Sample((randn(rng, 2, 3, 5, 4), 2), {"padding": 1}, note="unbatched"),
    ]


def _avg_pool1d_samples(rng: np.random.Generator) -> list[Sample]:
    return [
        Sample((randn(rng, 2, 3, 8), 2)),
        Sample((randn(rng, 2, 2, 9), 3), {"stride": 2, "padding": 1, "count_include_pad": False}),
        Sample((randn(rng, 3, 7), (2,)), {"stride": 2, "ceil_mode": True}, note="unbatched"),
    ]


_NF = "nn.functional"
_AVG2 = (AvgPool2DBackward0, AvgPool2DBackwardBackward0)
_AVG3 = (AvgPool3DBackward0, AvgPool3DBackwardBackward0)
register("avg_pool1d", avg_pool1d, nodes=_AVG2, samples=_avg_pool1d_samples, namespace=_NF)
register("avg_pool2d", avg_pool2d, nodes=_AVG2, samples=_avg_pool2d_samples, namespace=_NF)
register("avg_pool3d", avg_pool3d, nodes=_AVG3, samples=_avg_pool3d_samples, namespace=_NF)

__all__ = ["avg_pool1d", "avg_pool2d", "avg_pool3d"]
