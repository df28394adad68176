"""Transposed convolutions: ``nn.functional.conv_transpose1d/2d/3d``, each the ordinary
convolution of ``nn_conv.py`` on the input with ``stride - 1`` zeros between its elements and
the weight flipped, recorded as PyTorch's ConvolutionBackward0 with ``transposed=True``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._dtype import scalar_type_name, tensor_type_name
from .._runtime import get_num_threads
from .._tensor import Tensor
from . import shape
from ._conv_kernels import _size_text, _tuple_arg
from ._registry import Sample, register
from ._samples import randn
from .nn_conv import _NF, ConvolutionBackward0, _conv_arguments

__all__ = ["conv_transpose1d", "conv_transpose2d", "conv_transpose3d"]


def _conv_transpose(
    n: int,
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None,
    stride: Any,
    padding: Any,
    output_padding: Any,
    groups: int,
    dilation: Any,
) -> Tensor:
    op = f"conv_transpose{n}d"
    stride, dilation = _conv_arguments(op, n, input, weight, bias, True, groups, stride, dilation)
    if isinstance(padding, str):
        raise TypeError(f"{op}(): argument 'padding' must be tuple of ints, not str")
    pad_values = _tuple_arg(padding, n, "padding", op)
    if any(p < 0 for p in pad_values):
        raise RuntimeError(f"{op}(): negative padding is not supported, got {list(pad_values)}")
    output_padding = _tuple_arg(output_padding, n, "output_padding", op)
    if any(p < 0 or (p >= s and p >= d) for p, s, d in zip(output_padding, stride, dilation)):
        raise RuntimeError(
            f"{op}(): output padding must be smaller than either stride or dilation, but got "
            f"output_padding={list(output_padding)}, stride={list(stride)}, "
            f"dilation={list(dilation)}"
        )
    x = input._data
    if bias is not None and bias._data.dtype != x.dtype and x.size:
        # PyTorch's backends differ here: oneDNN and the slow 3-d kernel refuse the bias, the
        # slow 1-d and 2-d kernels cast it to the input's dtype.
        if _pytorch_uses_mkldnn(n, x, weight._data.shape, stride, dilation, output_padding, groups):
            raise RuntimeError(
                f"Input type ({tensor_type_name(x.dtype)}) and bias type "
                f"({tensor_type_name(bias._data.dtype)}) should be the same or input should be "
                "a MKLDNN tensor and bias is a dense tensor"
            )
        if n == 3:
            raise RuntimeError(
                f"expected scalar type {scalar_type_name(x.dtype)} but found "
                f"{scalar_type_name(bias._data.dtype)}"
            )
    kernel = weight._data.shape[2:]
    spatial = input._data.shape[-n:]
    out_size = tuple(
        (s - 1) * st - 2 * p + d * (k - 1) + op_ + 1
        for s, st, p, d, k, op_ in zip(
            spatial, stride, pad_values, dilation, kernel, output_padding
        )
    )
    if any(o <= 0 for o in out_size):
        raise RuntimeError(
            f"{op}(): Given input size per channel: ({_size_text(spatial)}), calculated output "
            f"size per channel: ({_size_text(out_size)}). Output size is too small"
        )
    unbatched = input._data.ndim == n + 1
    x = shape.unsqueeze(input, 0) if unbatched else input
    out = ConvolutionBackward0.apply(
        x,
        weight,
        bias,
        stride=stride,
        padding=tuple((p, p) for p in pad_values),
        dilation=dilation,
        transposed=True,
        output_padding=output_padding,
        groups=int(groups),
    )
    return shape.squeeze(out, 0) if unbatched else out


def _pytorch_uses_mkldnn(
    n: int,
    x: np.ndarray,
    weight_shape: tuple,
    stride: tuple,
    dilation: tuple,
    output_padding: tuple,
    groups: int,
) -> bool:
    """Whether PyTorch's CPU convolution runs this transposed convolution on its oneDNN
    backend (``ConvParams::use_mkldnn``): that backend refuses a bias whose dtype is not the
    input's, the slow kernels it uses otherwise cast the bias to it.

    float32 input only; not with an output padding of at least the stride. A 1-d convolution
    is viewed as a 2-d one (a size 1 dim before the last). For kernels of 1x1 without stride or
    dilation and a batch under 16, only with more than one thread (glassgrad's
    ``get_num_threads``, as PyTorch asks its own pool). Then: groups > 1, or both last kernel
    sizes above 3, or a batch above 1, or more than 20480 input elements in the first four
    dims.
    """
    if x.dtype != np.float32 or any(p >= s for p, s in zip(output_padding, stride)):
        return False
    batched = x.shape if x.ndim == n + 2 else (1, *x.shape)
    sizes = (*batched[:2], 1, batched[2]) if n == 1 else batched[:4]
    kernel_h = 1 if n == 1 else weight_shape[-2]
    one_by_one = weight_shape[-1] == 1 and kernel_h == 1
    if (
        one_by_one
        and sizes[0] < 16
        and all(s == 1 for s in stride)
        and all(d == 1 for d in dilation)
        and get_num_threads() == 1
    ):
        return False  # PyTorch: "THNN is faster when single-threaded"
    return (
        groups > 1
        or (weight_shape[-1] > 3 and kernel_h > 3)
        or sizes[0] > 1
        or sizes[0] * sizes[1] * sizes[2] * sizes[3] > 20480
    )


def conv_transpose2d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    output_padding: Any = 0,
    groups: int = 1,
    dilation: Any = 1,
) -> Tensor:
    """2-d transposed convolution (the gradient of ``conv2d`` with respect to its input) of
    ``input`` (N, Cin, H, W) with ``weight`` (Cin, Cout/groups, kh, kw).

    Output size per dimension: ``(H - 1)*stride - 2*padding + dilation*(k - 1) +
    output_padding + 1``; ``out[n, o, y*stride + i*dilation - padding, ...] += input[n, c, y,
    x] * weight[c, o, i, j]``.

    Example::

        >>> x, w = glassgrad.ones(1, 1, 2, 2), glassgrad.ones(1, 1, 3, 3)
        >>> glassgrad.nn.functional.conv_transpose2d(x, w, stride=2).shape
        glassgrad.Size([1, 1, 5, 5])
    """
    return _conv_transpose(
        2, input, weight, bias, stride, padding, output_padding, groups, dilation
    )


def conv_transpose1d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    output_padding: Any = 0,
    groups: int = 1,
    dilation: Any = 1,
) -> Tensor:
    """1-d transposed convolution (the gradient of ``conv1d`` with respect to its input) of
    ``input`` (N, Cin, L) or (Cin, L) with ``weight`` (Cin, Cout/groups, k); output length
    ``(L - 1)*stride - 2*padding + dilation*(k - 1) + output_padding + 1``.

    Example::

        >>> x, w = glassgrad.ones(1, 1, 3), glassgrad.ones(1, 2, 3)
        >>> glassgrad.nn.functional.conv_transpose1d(x, w, stride=2).shape
        glassgrad.Size([1, 2, 7])
    """
    return _conv_transpose(
        1, input, weight, bias, stride, padding, output_padding, groups, dilation
    )


def conv_transpose3d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    output_padding: Any = 0,
    groups: int = 1,
    dilation: Any = 1,
) -> Tensor:
    """3-d transposed convolution (the gradient of ``conv3d`` with respect to its input) of
    ``input`` (N, Cin, D, H, W) or (Cin, D, H, W) with ``weight`` (Cin, Cout/groups, kd, kh,
    kw); output sizes as in ``conv_transpose2d``.

    Example::

        >>> x, w = glassgrad.ones(1, 1, 2, 2, 2), glassgrad.ones(1, 2, 3, 3, 3)
        >>> glassgrad.nn.functional.conv_transpose3d(x, w, stride=2).shape
        glassgrad.Size([1, 2, 5, 5, 5])
    """
    return _conv_transpose(
        3, input, weight, bias, stride, padding, output_padding, groups, dilation
    )


def _conv_transpose2d_samples(rng: np.random.Generator) -> list[Sample]:
    return [
        Sample((randn(rng, 2, 3, 4, 4), randn(rng, 3, 2, 3, 3), randn(rng, 2))),
        Sample(
            (randn(rng, 1, 4, 3, 4), randn(rng, 4, 3, 3, 2)),
            {"stride": 2, "padding": 1, "output_padding": 1, "groups": 2},
        ),
        Sample(
            (randn(rng, 2, 2, 3, 3), randn(rng, 2, 2, 2, 3)),
            {"stride": (1, 2), "padding": (0, 1), "dilation": 2, "output_padding": (1, 0)},
        ),
        Sample((randn(rng, 2, 3, 3), randn(rng, 2, 3, 2, 2)), note="unbatched"),
    ]


def _conv_transpose1d_samples(rng: np.random.Generator) -> list[Sample]:
    return [
        Sample((randn(rng, 2, 3, 5), randn(rng, 3, 2, 3), randn(rng, 2))),
        Sample(
            (randn(rng, 1, 4, 4), randn(rng, 4, 3, 2)),
            {"stride": 3, "padding": 1, "output_padding": 2, "groups": 2, "dilation": 2},
        ),
        Sample((randn(rng, 2, 4), randn(rng, 2, 3, 3)), {"stride": 2}, note="unbatched"),
    ]


def _conv_transpose3d_samples(rng: np.random.Generator) -> list[Sample]:
    return [
        Sample((randn(rng, 2, 2, 3, 2, 3), randn(rng, 2, 3, 2, 2, 2), randn(rng, 3))),
        Sample(
            (randn(rng, 1, 4, 2, 3, 2), randn(rng, 4, 1, 3, 2, 2)),
            {"stride": (2, 1, 2), "padding": 1, "output_padding": (1, 0, 1), "groups": 2},
        ),
        Sample((randn(rng, 2, 2, 2, 3), randn(rng, 2, 2, 2, 2, 2)), {"dilation": 2}),
    ]


register(
    "conv_transpose2d",
    conv_transpose2d,
    nodes=(ConvolutionBackward0,),
    samples=_conv_transpose2d_samples,
    namespace=_NF,
)


register(
    "conv_transpose1d",
    conv_transpose1d,
    nodes=(ConvolutionBackward0,),
    samples=_conv_transpose1d_samples,
    namespace=_NF,
)


register(
    "conv_transpose3d",
    conv_transpose3d,
    nodes=(ConvolutionBackward0,),
    samples=_conv_transpose3d_samples,
    namespace=_NF,
)
