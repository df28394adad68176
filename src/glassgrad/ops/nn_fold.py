"""Sliding blocks: ``nn.functional.unfold`` (im2col) and ``fold`` (col2im), each the other's
adjoint and so the other's gradient (PyTorch's Im2ColBackward0 / Col2ImBackward0). ``fold``
loops over the ``kh*kw`` kernel offsets only, each iteration one vectorised slice-add.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.lib.stride_tricks import as_strided

from .._strides import row_major
from .._tensor import Tensor
from ..autograd.op import Op
from ._common import check_tensor
from ._conv_kernels import _tuple_arg
from ._registry import Sample, register
from ._samples import randn
from .nn_conv import _NF

__all__ = ["unfold", "fold"]


# --- sliding blocks: unfold (im2col) and fold (col2im) ---------------------------------------


def _im2col(x: np.ndarray, kernel, dilation, padding, stride) -> np.ndarray:
    """(N, C, H, W) -> (N, C*kh*kw, L): every block of the zero-padded input as a column."""
    n, c, h, w = x.shape
    (kh, kw), (dh, dw), (ph, pw), (sh, sw) = kernel, dilation, padding, stride
    if ph or pw:
        padded = np.zeros((n, c, h + 2 * ph, w + 2 * pw), x.dtype)
        padded[:, :, ph : ph + h, pw : pw + w] = x
        x = padded
    ho = (x.shape[2] - dh * (kh - 1) - 1) // sh + 1
    wo = (x.shape[3] - dw * (kw - 1) - 1) // sw + 1
    bn, bc, bh, bw = x.strides
    view = as_strided(
        x,
        (n, c, kh, kw, ho, wo),
        (bn, bc, bh * dh, bw * dw, bh * sh, bw * sw),
        writeable=False,
    )
    return view.reshape(n, c * kh * kw, ho * wo)


def _col2im(cols: np.ndarray, output_size, kernel, dilation, padding, stride) -> np.ndarray:
    """(N, C*kh*kw, L) -> (N, C, H, W): columns added back into their blocks (overlaps sum);
    one vectorised slice-add per kernel offset."""
    n = cols.shape[0]
    (h, w), (kh, kw), (dh, dw), (ph, pw), (sh, sw) = output_size, kernel, dilation, padding, stride
    ho = (h + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    wo = (w + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    c = cols.shape[1] // (kh * kw)
    blocks = cols.reshape(n, c, kh, kw, ho, wo)
    out = np.zeros((n, c, h + 2 * ph, w + 2 * pw), cols.dtype)
    for i in range(kh):
        rows = slice(i * dh, i * dh + sh * (ho - 1) + 1, sh)
        for j in range(kw):
            out[:, :, rows, j * dw : j * dw + sw * (wo - 1) + 1 : sw] += blocks[:, :, i, j]
    return out[:, :, ph : ph + h, pw : pw + w]


class Im2ColBackward0(Op):
    """out = unfold(input): the sliding blocks of ``input`` as columns."""

    dilation: Any
    kernel_size: Any
    padding: Any
    self_sym_argsize_minus_2: Any
    stride: Any

    __slots__ = ("self_sym_argsize_minus_2", "kernel_size", "dilation", "padding", "stride")

    def forward(self, x: Any, kernel_size: Any, dilation: Any, padding: Any, stride: Any) -> Any:
        self.self_sym_argsize_minus_2 = x.shape[-2:]
        self.kernel_size, self.dilation, self.padding, self.stride = (
            kernel_size,
            dilation,
            padding,
            stride,
        )
        if x.ndim == 3:
            return _im2col(x[None], kernel_size, dilation, padding, stride)[0]
        return _im2col(x, kernel_size, dilation, padding, stride)

    def backward(self, F: Any, grad: Any) -> Any:
        params = dict(
            output_size=self.self_sym_argsize_minus_2,
            kernel_size=self.kernel_size,
            dilation=self.dilation,
            padding=self.padding,
            stride=self.stride,
        )
        return Col2ImBackward0.call(grad, **params)


class Col2ImBackward0(Op):
    """out = fold(input): columns summed back into an image."""

    dilation: Any
    kernel_size: Any
    padding: Any
    stride: Any

    __slots__ = ("kernel_size", "dilation", "padding", "stride")

    @row_major
    def forward(
        self,
        cols: Any,
        output_size: Any,
        kernel_size: Any,
        dilation: Any,
        padding: Any,
        stride: Any,
    ) -> Any:
        self.kernel_size, self.dilation, self.padding, self.stride = (
            kernel_size,
            dilation,
            padding,
            stride,
        )
        if cols.ndim == 2:
            return _col2im(cols[None], output_size, kernel_size, dilation, padding, stride)[0]
        return _col2im(cols, output_size, kernel_size, dilation, padding, stride)

    def backward(self, F: Any, grad: Any) -> Any:
        params = dict(
            kernel_size=self.kernel_size,
            dilation=self.dilation,
            padding=self.padding,
            stride=self.stride,
        )
        return Im2ColBackward0.call(grad, **params)


def _block_params(op: str, kernel_size, dilation, padding, stride) -> tuple:
    kernel = _tuple_arg(kernel_size, 2, "kernel_size", op)
    dilation = _tuple_arg(dilation, 2, "dilation", op)
    padding = _tuple_arg(padding, 2, "padding", op)
    stride = _tuple_arg(stride, 2, "stride", op)
    for name, values, low in (
        ("kernel size", kernel, 1),
        ("dilation", dilation, 1),
        ("padding", padding, 0),
        ("stride", stride, 1),
    ):
        if any(v < low for v in values):
            relation = "greater than zero" if low else "non-negative"
            raise RuntimeError(f"{op}(): {name} should be {relation}, but got {list(values)}")
    return kernel, dilation, padding, stride


def _blocks_count(size: tuple, kernel, dilation, padding, stride) -> tuple:
    return tuple(
        (s + 2 * p - d * (k - 1) - 1) // st + 1
        for s, k, d, p, st in zip(size, kernel, dilation, padding, stride)
    )


def unfold(
    input: Tensor, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1
) -> Tensor:
    """Extract sliding blocks (im2col): (N, C, H, W) -> (N, C*kh*kw, L), L the number of blocks;
    column ``l`` holds block ``l`` in row-major order, channel-major within.

    Example::

        >>> x = glassgrad.arange(16.0).reshape(1, 1, 4, 4)
        >>> glassgrad.nn.functional.unfold(x, 2, stride=2).shape
        glassgrad.Size([1, 4, 4])
    """
    op = "unfold"
    check_tensor(input, op)
    params = _block_params(op, kernel_size, dilation, padding, stride)
    x = input._data
    if x.ndim not in (3, 4) or 0 in x.shape[-3:]:
        raise RuntimeError(
            f"{op}(): Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other "
            f"non-zero dimensions for input, but got: {list(x.shape)}"
        )
    blocks = _blocks_count(x.shape[-2:], *params)
    if any(b < 1 for b in blocks):
        kernel, dilation, padding, _ = params
        raise RuntimeError(
            f"{op}(): Given input with spatial size {tuple(x.shape[-2:])}, kernel_size={kernel}, "
            f"dilation={dilation}, padding={padding}, calculated shape of the array of sliding "
            f"blocks as {blocks}, but its components must be at least one."
        )
    kernel, dilation, padding, stride = params
    return Im2ColBackward0.apply(
        input, kernel_size=kernel, dilation=dilation, padding=padding, stride=stride
    )


def fold(
    input: Tensor,
    output_size: Any,
    kernel_size: Any,
    dilation: Any = 1,
    padding: Any = 0,
    stride: Any = 1,
) -> Tensor:
    """Combine sliding blocks into an image (col2im), the adjoint of ``unfold``: (N, C*kh*kw, L)
    -> (N, C, H, W); values of overlapping blocks are summed.

    Example::

        >>> cols = glassgrad.ones(1, 4, 9)
        >>> glassgrad.nn.functional.fold(cols, (4, 4), 2)[0, 0, 1]
        tensor([2., 4., 4., 2.])
    """
    op = "fold"
    check_tensor(input, op)
    size = _tuple_arg(output_size, 2, "output_size", op)
    kernel, dilation, padding, stride = _block_params(op, kernel_size, dilation, padding, stride)
    x = input._data
    if x.ndim not in (2, 3) or 0 in x.shape[-2:]:
        raise RuntimeError(
            f"{op}(): Expected 2D or 3D (batch mode) tensor with possibly 0 batch size and "
            f"non-zero dimensions for input, but got: {list(x.shape)}"
        )
    kk = kernel[0] * kernel[1]
    if x.shape[-2] % kk:
        raise RuntimeError(
            f"{op}(): Expected size of input's dimension {x.ndim - 2} to be divisible by the "
            f"product of kernel_size, but got input.size({x.ndim - 2})={x.shape[-2]} and "
            f"kernel_size={kernel}."
        )
    blocks = _blocks_count(size, kernel, dilation, padding, stride)
    if any(b < 1 for b in blocks) or blocks[0] * blocks[1] != x.shape[-1]:
        raise RuntimeError(
            f"{op}(): Given output_size={size}, kernel_size={kernel}, dilation={dilation}, "
            f"padding={padding}, stride={stride}, expected size of input's dimension "
            f"{x.ndim - 1} to match the calculated number of sliding blocks {blocks[0]} * "
            f"{blocks[1]} = {blocks[0] * blocks[1]}, but got input.size({x.ndim - 1})="
            f"{x.shape[-1]}."
        )
    return Col2ImBackward0.apply(
        input,
        output_size=size,
        kernel_size=kernel,
        dilation=dilation,
        padding=padding,
        stride=stride,
    )


def _unfold_samples(rng: np.random.Generator) -> list[Sample]:
    return [
        Sample((randn(rng, 2, 3, 5, 5), 2)),
        Sample((randn(rng, 1, 2, 6, 7), (3, 2)), {"dilation": (1, 2), "padding": 1, "stride": 2}),
        Sample((randn(rng, 2, 4, 4), 3), {"padding": 1}, note="unbatched"),
    ]


def _fold_samples(rng: np.random.Generator) -> list[Sample]:
    return [
        Sample((randn(rng, 2, 12, 16), (5, 5), 2)),
        Sample(
            (randn(rng, 1, 12, 12), (6, 7), (3, 2)),
            {"dilation": (1, 2), "padding": 1, "stride": 2},
        ),
        Sample((randn(rng, 18, 16), 4, 3), {"padding": 1}, note="unbatched"),
    ]


register("unfold", unfold, nodes=(Im2ColBackward0,), samples=_unfold_samples, namespace=_NF)


register("fold", fold, nodes=(Col2ImBackward0,), samples=_fold_samples, namespace=_NF)
