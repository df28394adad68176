"""Convolutions: ``nn.functional.conv1d``, ``conv2d`` and ``conv3d`` as PyTorch's
ConvolutionBackward0, with PyTorch's argument checks and ``padding="same"``. The array kernels
(im2col into a reused workspace, one matrix product per group) are in ``_conv_kernels.py``; the
transposed convolutions in ``nn_conv_transpose.py``; unfold and fold in ``nn_fold.py``.

Every op runs as a few whole-array operations, never a Python loop over pixels. Backward
formulas are themselves differentiable ops (the gradient of a convolution with respect to its
input is a transposed convolution of the gradient with the same weight, the gradient with
respect to the weight a convolution of the input with the gradient), so ``create_graph=True``
gives second derivatives. Without a graph, the backward recomputes the input's im2col matrix
rather than keeping it from the forward pass: im2col matrices live in a small reused
workspace, which spares memory between the passes and the page faults of allocating several
megabytes per call.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._dtype import c_type_name, scalar_type_name
from .._tensor import Tensor
from ..autograd.op import Op
from . import shape
from ._common import array_of, check_tensor
from ._conv_kernels import (
    _as_2d,
    _crop_to,
    _size_text,
    _tuple_arg,
    conv_array,
    conv_weight_grad_array,
)
from ._conv_nd import conv_nd_array, conv_nd_weight_grad_array
from ._registry import NoGrad, Sample, register
from ._samples import randn
from .padding import pad

__all__ = ["conv1d", "conv2d", "conv3d"]


# --- convolution node --------------------------------------------------------------------


class ConvolutionBackward0(Op):
    """out = conv(input, weight) + bias, ordinary or transposed, 1-d, 2-d or 3-d."""

    dilation: Any
    groups: Any
    output_padding: Any
    padding: Any
    stride: Any
    transposed: Any

    saved_inputs: tuple[int, ...] = (0, 1)
    grad_reads_saved = True
    double_backward_zeros = False
    __slots__ = (
        "stride",
        "padding",
        "dilation",
        "transposed",
        "output_padding",
        "groups",
        "_cols_ticket",
    )

    def forward(
        self,
        x: Any,
        w: Any,
        b: Any,
        stride: Any,
        padding: Any,
        dilation: Any,
        transposed: Any,
        output_padding: Any,
        groups: Any,
        x_last: Any = None,
    ) -> Any:
        # x_last: x laid out channels-last, (N, H, W, C) (or (N, 1, L, C)), when the caller
        # has it (the backward passes the gradient its weight gradient already moved).
        self.stride, self.padding, self.dilation = stride, padding, dilation
        self.transposed, self.output_padding, self.groups = transposed, output_padding, groups
        if x.ndim == 5:
            self._cols_ticket = None
            return conv_nd_array(
                x, w, b, stride, padding, dilation, groups, transposed, output_padding
            )
        one_d = x.ndim == 3
        if one_d:
            x, w = x[:, :, None, :], w[:, :, None, :]
        stride2, pads2, dil2, outpad2 = _as_2d(stride, padding, dilation, output_padding)
        out, self._cols_ticket = conv_array(
            x, w, b, stride2, pads2, dil2, groups, transposed, outpad2, x_last
        )
        # The input's dtype (a transposed conv's bias may have another); PyTorch's Empty
        # backend multiplies an input without channels by the whole weight, promoting.
        dtype = np.result_type(x, w) if x.shape[1] == 0 else x.dtype
        out = out.astype(dtype, copy=False)
        return out[:, :, 0, :] if one_d else out

    def backward(self, F: Any, grad: Any) -> Any:
        x, w = self.saved
        needs = self.needs_input_grad
        if not array_of(x).size:
            # An empty batch: zero gradients, constant as PyTorch's (nothing to differentiate).
            dtype = array_of(w).dtype
            channels = w.shape[1] * self.groups if self.transposed else w.shape[0]
            shapes = (tuple(x.shape), tuple(w.shape), (channels,))
            return tuple(F.zeros(s, dtype) if n else None for s, n in zip(shapes, needs))
        spatial = tuple(x.shape[2:])
        grad_input = grad_weight = grad_bias = grad_last = None
        if needs[1]:
            if isinstance(grad, Tensor):
                inputs = (grad, x) if self.transposed else (x, grad)
                grad_weight = _weight_grad_tensors(*inputs, tuple(w.shape[2:]), self)
            else:
                # First, while the workspace may still hold the forward's im2col matrix; the
                # bias and input gradients reuse its channels-last copy of the gradient.
                grad_weight, grad_bias, grad_last = self._weight_grad_arrays(grad, x, w, needs[2])
        if needs[0]:
            # A transposed convolution of the gradient with the same weight (or, for a
            # transposed forward, an ordinary one), run as an op when a graph is built.
            params = self._input_grad_params(spatial, tuple(grad.shape[2:]), tuple(w.shape[2:]))
            source = grad
            if self.transposed:
                source, params["padding"] = _exact_windows(
                    grad, params["padding"], tuple(w.shape[2:]), self.stride, self.dilation, spatial
                )
                if source is not grad:
                    grad_last = None
            if grad_last is not None:
                params["x_last"] = grad_last
            grad_input = _crop_to(ConvolutionBackward0.call(source, w, None, **params), spatial)
        if needs[2] and grad_bias is None:
            grad_bias = F.sum(grad, (0, *range(2, len(grad.shape))))
        return grad_input, grad_weight, grad_bias

    def _input_grad_params(self, spatial: tuple, grad_spatial: tuple, kernel: tuple) -> dict:
        """Parameters of the convolution that maps the gradient back onto the input."""
        if self.transposed:
            zeros = (0,) * len(spatial)
            return dict(
                stride=self.stride,
                padding=self.padding,
                dilation=self.dilation,
                transposed=False,
                output_padding=zeros,
                groups=self.groups,
            )
        # The rows the forward's floor division dropped come back as output padding.
        output_padding = tuple(
            size - ((g - 1) * s - lo - hi + d * (k - 1) + 1)
            for size, g, s, (lo, hi), d, k in zip(
                spatial, grad_spatial, self.stride, self.padding, self.dilation, kernel
            )
        )
        return dict(
            stride=self.stride,
            padding=self.padding,
            dilation=self.dilation,
            transposed=True,
            output_padding=output_padding,
            groups=self.groups,
        )

    def _weight_grad_arrays(self, grad, x, w, with_bias):
        """Without a graph: ``im2col(x)^T @ grad`` in one matrix product per group (the
        forward's im2col matrix if the workspace still holds it), the bias gradient, and
        the gradient laid out channels-last if it was (else None)."""
        if x.ndim == 5:
            grad_weight = conv_nd_weight_grad_array(
                x,
                w,
                grad,
                self.stride,
                self.padding,
                self.dilation,
                self.groups,
                self.transposed,
                self.output_padding,
            )
            grad_bias = grad.sum(axis=(0, 2, 3, 4)) if with_bias else None
            return grad_weight.astype(w.dtype, copy=False), grad_bias, None
        stride2, pads2, dil2, outpad2 = _as_2d(
            self.stride, self.padding, self.dilation, self.output_padding
        )
        w_shape = w.shape
        if x.ndim == 3:
            x, w, grad = x[:, :, None, :], w[:, :, None, :], grad[:, :, None, :]
        grad_weight, grad_bias, grad_last = conv_weight_grad_array(
            x,
            w,
            grad,
            stride2,
            pads2,
            dil2,
            self.groups,
            self.transposed,
            outpad2,
            ticket=self._cols_ticket,
            with_bias=with_bias,
        )
        return grad_weight.reshape(w_shape).astype(w.dtype, copy=False), grad_bias, grad_last


def _weight_grad_tensors(inp: Tensor, grad_out: Tensor, kernel: tuple, node: Any) -> Tensor:
    """The weight gradient of ``conv(inp, w)`` with output gradient ``grad_out``, written as a
    differentiable convolution: batch and channels swap roles, stride and dilation swap.

    ``gw[o, c, i, j] = sum_{n,y,x} grad_out[n, o, y, x] * inp_padded[n, c, y*s + i*d, x*s + j*d]``
    """
    groups = node.groups
    n, c = inp.shape[0], inp.shape[1]
    spatial = tuple(inp.shape[2:])
    rest = tuple(range(3, 3 + len(spatial)))
    grouped = shape.reshape(inp, (n, groups, c // groups, *spatial))
    as_batch = shape.reshape(
        shape.permute(grouped, (2, 1, 0, *rest)), (c // groups, groups * n, *spatial)
    )
    as_weight = shape.transpose(grad_out, 0, 1)
    as_batch, padding = _exact_windows(
        as_batch, node.padding, tuple(grad_out.shape[2:]), node.dilation, node.stride, kernel
    )
    result = ConvolutionBackward0.apply(
        as_batch,
        as_weight,
        None,
        stride=node.dilation,
        padding=padding,
        dilation=node.stride,
        transposed=False,
        output_padding=(0,) * len(spatial),
        groups=groups,
    )
    return shape.transpose(result, 0, 1)


def _exact_windows(
    x: Any, pads: tuple, kernel: tuple, stride: tuple, dilation: tuple, want: tuple
) -> tuple:
    """``x`` and ``pads`` with the trailing rows that no window of an ordinary convolution
    with ``want`` outputs per axis reads taken off (high padding first, then ``x``'s rows).

    A convolution computed past ``want`` and cropped after would send zero gradients to the
    extra outputs, and ``0 * inf`` makes NaN of an infinite value only those read.
    """
    new_pads, cuts = [], []
    for size, (lo, hi), k, s, d, o in zip(x.shape[2:], pads, kernel, stride, dilation, want):
        surplus = lo + size + hi - ((o - 1) * s + d * (k - 1) + 1)
        high = hi - max(surplus, 0)
        cuts.append(size + min(high, 0))
        new_pads.append((lo, max(high, 0)))
    if any(c != size for c, size in zip(cuts, x.shape[2:])):
        x = x[(slice(None), slice(None), *(slice(0, c) for c in cuts))]
    return x, tuple(new_pads)


# --- public convolutions ---------------------------------------------------------------------


def _conv_padding(padding: Any, n: int, kernel: tuple, dilation: tuple, stride: tuple, op: str):
    if isinstance(padding, str):
        if padding == "valid":
            return ((0, 0),) * n
        if padding == "same":
            if any(s != 1 for s in stride):
                raise RuntimeError(
                    f"{op}(): padding='same' is not supported for strided convolutions"
                )
            pads = []
            for k, d in zip(kernel, dilation):
                total = d * (k - 1)
                pads.append((total // 2, total - total // 2))
            return tuple(pads)
        raise RuntimeError(f"{op}(): Invalid padding string: '{padding}'")
    values = _tuple_arg(padding, n, "padding", op)
    if any(p < 0 for p in values):
        raise RuntimeError(f"{op}(): negative padding is not supported, got padding={list(values)}")
    return tuple((p, p) for p in values)


def _check_conv(
    op: str,
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None,
    n: int,
    transposed: bool,
    groups: int,
) -> None:
    check_tensor(input, op)
    check_tensor(weight, op, "weight", 2)
    if bias is not None:
        check_tensor(bias, op, "bias", 3)
    x, w = input._data, weight._data
    if x.ndim not in (n + 1, n + 2):
        raise RuntimeError(
            f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to {op}, but got input "
            f"of size: {list(x.shape)}"
        )
    if w.ndim != n + 2:
        raise RuntimeError(
            f"{op}(): expected weight to be {n + 2}-dimensional, but got weight of size "
            f"{list(w.shape)}"
        )
    if not isinstance(groups, (int, np.integer)) or groups <= 0:
        raise RuntimeError(f"{op}(): non-positive groups is not supported, got groups={groups}")
    # PyTorch's order: the bias (not checked for transposed convolutions, whose kernel casts
    # it to the input's dtype), then the weight.
    if not transposed and bias is not None and bias._data.dtype != x.dtype:
        raise RuntimeError(
            f"Input type ({c_type_name(x.dtype)}) and bias type ({c_type_name(bias._data.dtype)}) "
            "should be the same"
        )
    if x.dtype != w.dtype and x.size:  # an empty input takes PyTorch's Empty backend
        raise RuntimeError(
            f"expected scalar type {scalar_type_name(x.dtype)} but found "
            f"{scalar_type_name(w.dtype)}"
        )
    batched = list(x.shape) if x.ndim == n + 2 else [1, *x.shape]
    if w.shape[0] == 0:
        raise RuntimeError(
            f"{op}(): Given groups={groups}, expected weight to be at least 1 at dimension 0, "
            f"but got weight of size {list(w.shape)} instead"
        )
    if w.shape[0] % groups:
        raise RuntimeError(
            f"{op}(): Given groups={groups}, expected weight to be divisible by {groups} at "
            f"dimension 0, but got weight of size {list(w.shape)} instead"
        )
    expected = w.shape[0] if transposed else w.shape[1] * groups
    if batched[1] != expected:
        given = "transposed=1" if transposed else f"groups={groups}"
        raise RuntimeError(
            f"{op}(): Given {given}, weight of size {list(w.shape)}, expected input{batched} to "
            f"have {expected} channels, but got {batched[1]} channels instead"
        )
    out_channels = w.shape[1] * groups if transposed else w.shape[0]
    if bias is not None and (bias._data.ndim != 1 or bias._data.shape[0] != out_channels):
        raise RuntimeError(
            f"{op}(): Given weight of size {list(w.shape)}, expected bias to be 1-dimensional "
            f"with {out_channels} elements, but got bias of size {list(bias._data.shape)} instead"
        )


def _check_geometry(op: str, stride: tuple, dilation: tuple) -> None:
    if any(s <= 0 for s in stride):
        raise RuntimeError(
            f"{op}(): non-positive stride is not supported, got stride={list(stride)}"
        )
    if any(d <= 0 for d in dilation):
        raise RuntimeError(
            f"{op}(): non-positive dilation is not supported, got dilation={list(dilation)}"
        )


def _conv_arguments(
    op: str,
    n: int,
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None,
    transposed: bool,
    groups: int,
    stride: Any,
    dilation: Any,
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Check a (transposed) convolution's tensors; its ``stride`` and ``dilation`` as checked
    ``n``-tuples."""
    _check_conv(op, input, weight, bias, n, transposed, groups)
    stride = _tuple_arg(stride, n, "stride", op)
    dilation = _tuple_arg(dilation, n, "dilation", op)
    _check_geometry(op, stride, dilation)
    return stride, dilation


def _convolution(
    op: str,
    n: int,
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None,
    stride: Any,
    padding: Any,
    dilation: Any,
    groups: int,
) -> Tensor:
    stride, dilation = _conv_arguments(op, n, input, weight, bias, False, groups, stride, dilation)
    kernel = tuple(weight._data.shape[2:])
    pads = _conv_padding(padding, n, kernel, dilation, stride, op)
    spatial = input._data.shape[-n:]
    padded = tuple(s + lo + hi for s, (lo, hi) in zip(spatial, pads))
    dilated = tuple(d * (k - 1) + 1 for k, d in zip(kernel, dilation))
    if any(p < k for p, k in zip(padded, dilated)):
        raise RuntimeError(
            f"{op}(): Calculated padded input size per channel: ({_size_text(padded)}). Kernel "
            f"size: ({_size_text(dilated)}). Kernel size can't be greater than actual input size"
        )
    unbatched = input._data.ndim == n + 1
    x = shape.unsqueeze(input, 0) if unbatched else input
    if any(lo != hi for lo, hi in pads):
        # 'same' with an even span: as PyTorch, pad the extra zero on the right first (its
        # own ConstantPadNdBackward0 node), then convolve with symmetric padding.
        extra = [p for lo, hi in reversed(pads) for p in (0, hi - lo)]
        x = pad(x, tuple(extra))
        pads = tuple((lo, lo) for lo, _ in pads)
    out = ConvolutionBackward0.apply(
        x,
        weight,
        bias,
        stride=stride,
        padding=pads,
        dilation=dilation,
        transposed=False,
        output_padding=(0,) * n,
        groups=int(groups),
    )
    return shape.squeeze(out, 0) if unbatched else out


def conv2d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Tensor:
    """2-d cross-correlation of ``input`` (N, C, H, W) or (C, H, W) with ``weight``
    (O, C/groups, kh, kw), plus ``bias`` (O,).

    ``out[n, o, y, x] = bias[o] + sum_{c,i,j} weight[o, c, i, j] *
    input_padded[n, g(o)*C/groups + c, y*stride + i*dilation, x*stride + j*dilation]``.
    ``padding`` is an int, a pair, ``'valid'`` (none) or ``'same'`` (output as large as the
    input; stride 1 only).

    Example::

        >>> x, w = glassgrad.ones(1, 1, 4, 4), glassgrad.ones(2, 1, 3, 3)
        >>> glassgrad.nn.functional.conv2d(x, w, padding=1).shape
        glassgrad.Size([1, 2, 4, 4])
    """
    return _convolution("conv2d", 2, input, weight, bias, stride, padding, dilation, groups)


def conv1d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Tensor:
    """1-d cross-correlation of ``input`` (N, C, L) or (C, L) with ``weight`` (O, C/groups, k).

    ``out[n, o, t] = bias[o] + sum_{c,i} weight[o, c, i] * input_padded[n, c', t*stride +
    i*dilation]``; ``padding`` as in ``conv2d``.

    Example::

        >>> x, w = glassgrad.ones(1, 2, 5), glassgrad.ones(3, 2, 3)
        >>> glassgrad.nn.functional.conv1d(x, w).shape
        glassgrad.Size([1, 3, 3])
    """
    return _convolution("conv1d", 1, input, weight, bias, stride, padding, dilation, groups)


def conv3d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Tensor:
    """3-d cross-correlation of ``input`` (N, C, D, H, W) or (C, D, H, W) with ``weight``
    (O, C/groups, kd, kh, kw), plus ``bias`` (O,); ``padding`` as in ``conv2d``.

    Example::

        >>> x, w = glassgrad.ones(1, 2, 4, 4, 4), glassgrad.ones(3, 2, 3, 3, 3)
        >>> glassgrad.nn.functional.conv3d(x, w, padding=1).shape
        glassgrad.Size([1, 3, 4, 4, 4])
    """
    return _convolution("conv3d", 3, input, weight, bias, stride, padding, dilation, groups)


# --- registry --------------------------------------------------------------------------------


def _conv2d_samples(rng: np.random.Generator) -> list[Sample]:
    return [
        Sample((randn(rng, 2, 3, 6, 6), randn(rng, 4, 3, 3, 3), randn(rng, 4))),
        Sample((randn(rng, 2, 3, 7, 6), randn(rng, 4, 3, 3, 2)), {"stride": 2, "padding": 1}),
        Sample(
            (randn(rng, 1, 4, 7, 7), randn(rng, 6, 2, 3, 3), randn(rng, 6)),
            {"stride": (2, 1), "padding": (1, 2), "dilation": (2, 1), "groups": 2},
        ),
        Sample((randn(rng, 2, 2, 5, 5), randn(rng, 3, 2, 2, 2)), {"padding": "same"}),
        Sample((randn(rng, 2, 2, 5, 5), randn(rng, 3, 2, 3, 3)), {"padding": "valid"}),
        Sample((randn(rng, 3, 5, 5), randn(rng, 2, 3, 3, 3), randn(rng, 2)), note="unbatched"),
        Sample(
            (randn(rng, 5, 5, 3, 2).transpose(3, 2, 0, 1), randn(rng, 4, 3, 1, 1)),
            note="non-contiguous input, 1x1 kernel",
        ),
        Sample(
            (randn(rng, 1, 3, 6, 6), NoGrad(randn(rng, 3, 1, 3, 3))),
            {"groups": 3, "stride": 3},
            note="depthwise, fixed weight",
        ),
        Sample((randn(rng, 0, 2, 4, 4), randn(rng, 3, 2, 3, 3)), note="empty batch"),
    ]


def _conv1d_samples(rng: np.random.Generator) -> list[Sample]:
    return [
        Sample((randn(rng, 2, 3, 9), randn(rng, 4, 3, 3), randn(rng, 4))),
        Sample(
            (randn(rng, 2, 4, 10), randn(rng, 4, 2, 2)),
            {"stride": 2, "padding": 1, "dilation": 2, "groups": 2},
        ),
        Sample((randn(rng, 2, 7), randn(rng, 3, 2, 4)), {"padding": "same"}, note="unbatched"),
    ]


def _conv3d_samples(rng: np.random.Generator) -> list[Sample]:
    return [
        Sample((randn(rng, 2, 2, 4, 3, 4), randn(rng, 3, 2, 2, 2, 3), randn(rng, 3))),
        Sample(
            (randn(rng, 1, 4, 5, 4, 4), randn(rng, 2, 2, 3, 2, 2)),
            {"stride": (2, 1, 2), "padding": (1, 0, 1), "dilation": (1, 2, 1), "groups": 2},
        ),
        Sample((randn(rng, 2, 3, 3, 4), randn(rng, 2, 2, 2, 2, 2)), {"padding": "same"}),
    ]


_NF = "nn.functional"


register("conv2d", conv2d, nodes=(ConvolutionBackward0,), samples=_conv2d_samples, namespace=_NF)


register("conv1d", conv1d, nodes=(ConvolutionBackward0,), samples=_conv1d_samples, namespace=_NF)


register("conv3d", conv3d, nodes=(ConvolutionBackward0,), samples=_conv3d_samples, namespace=_NF)
