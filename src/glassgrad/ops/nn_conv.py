"""Convolution and sliding blocks: ``conv1d conv2d conv3d conv_transpose1d conv_transpose2d
conv_transpose3d unfold fold`` (public in
``glassgrad.nn.functional``).

Every op runs as a few whole-array operations, never a Python loop over pixels:

- a convolution pads the input once into a channels-last buffer, takes a strided view of all
  its windows (``as_strided``), copies that view into one ``(pixels, kh*kw*channels)`` matrix
  (im2col) and multiplies it with the weight in one matrix product;
- a transposed convolution is the same ordinary convolution on the input with ``stride - 1``
  zeros inserted between its elements and the weight flipped, so it shares that path;
- ``fold`` (col2im) loops over the ``kh*kw`` kernel offsets only, each iteration one
  vectorised slice-add.

Backward formulas are themselves differentiable ops (the gradient of a convolution with respect
to its input is a transposed convolution of the gradient with the same weight, the gradient with
respect to the weight a convolution of the input with the gradient; ``unfold`` and ``fold`` are
each other's adjoint), so ``create_graph=True`` gives second derivatives. Without a graph, the
backward recomputes the input's im2col matrix rather than keeping it from the forward pass:
im2col matrices live in a small reused workspace, which spares memory between the passes and
the page faults of allocating several megabytes per call.
"""

from __future__ import annotations

import itertools
import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.lib.stride_tricks import as_strided

from .._dtype import c_type_name, scalar_type_name
from .._tensor import Tensor
from ..autograd.op import Op
from . import shape
from ._common import array_of, check_tensor
from ._conv_nd import conv_nd_array, conv_nd_weight_grad_array
from ._registry import NoGrad, Sample, register
from ._samples import randn
from .padding import pad

Pads = tuple  # ((low, high), ...) per spatial dim; a negative value crops instead


# --- argument normalisation ----------------------------------------------------------------


def _tuple_arg(value: Any, n: int, name: str, op: str) -> tuple:
    """An int, or a sequence of 1 or ``n`` ints, as a tuple of ``n`` ints (PyTorch's rule)."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return (int(value),) * n
    if isinstance(value, Sequence) and not isinstance(value, str):
        items = tuple(value)
        if all(isinstance(v, (int, np.integer)) for v in items):
            if len(items) == 1:
                return (int(items[0]),) * n
            if len(items) == n:
                return tuple(int(v) for v in items)
        raise RuntimeError(
            f"{op}(): expected {name} to be a single integer value or a list of {n} values to "
            f"match the convolution dimensions, but got {name}={list(items)}"
        )
    raise TypeError(f"{op}(): argument '{name}' must be tuple of ints, not {type(value).__name__}")


def _size_text(sizes: Sequence) -> str:
    return " x ".join(str(s) for s in sizes)


# --- array kernels --------------------------------------------------------------------------


def _as_2d(stride: tuple, pads: Pads, dilation: tuple, output_padding: tuple) -> tuple:
    """Spatial parameters of a 1-d convolution as those of a 2-d one of unit height."""
    if len(stride) == 2:
        return stride, pads, dilation, output_padding
    return (1, *stride), ((0, 0), *pads), (1, *dilation), (0, *output_padding)


class _Workspace(threading.local):
    """Reusable memory for the temporaries of a convolution (padded inputs, im2col matrices,
    products), one buffer per shape and dtype, most recently used kept.

    Each temporary is filled and consumed inside a single call, so its memory can serve the
    next call. A fresh multi-megabyte array per call costs page faults (glibc hands such blocks
    back to the kernel when they are freed), which for the small convolutions of a CNN step
    cost as much as the matrix products themselves. At most ``_WORKSPACE_BYTES`` are kept.

    Every ``take`` gives the buffer a new stamp (unique across threads), so a caller that
    remembers ``last_stamp`` can later ask ``intact`` whether the buffer still holds what it
    wrote: a convolution's backward reuses its forward's im2col matrix that way.
    """

    def __init__(self) -> None:
        self.buffers: OrderedDict = OrderedDict()
        self.stamps: dict = {}
        self.nbytes = 0
        self.last_stamp = 0

    def take(self, shape: tuple, dtype: np.dtype) -> np.ndarray:
        key = (shape, np.dtype(dtype))
        self.last_stamp = stamp = next(_stamps)
        buffer = self.buffers.pop(key, None)
        if buffer is None:
            buffer = np.empty(shape, dtype)
            if buffer.nbytes > _WORKSPACE_BYTES:
                return buffer  # too large to keep
            self.nbytes += buffer.nbytes
        self.buffers[key] = buffer  # most recently used last
        self.stamps[key] = stamp
        while self.nbytes > _WORKSPACE_BYTES:
            evicted_key, evicted = self.buffers.popitem(last=False)
            del self.stamps[evicted_key]
            self.nbytes -= evicted.nbytes
        return buffer

    def intact(self, shape: tuple, dtype: np.dtype, stamp: int) -> np.ndarray | None:
        """The buffer of ``shape`` and ``dtype`` if no ``take`` has handed it out since the
        one that returned ``stamp``; else None."""
        key = (shape, np.dtype(dtype))
        if self.stamps.get(key) != stamp:
            return None
        return self.buffers[key]


_stamps = itertools.count(1)
_WORKSPACE_BYTES = 64 * 2**20
_workspace = _Workspace()


def _channels_last(
    x: np.ndarray, pads: Pads, spread: tuple = (1, 1), x_last: np.ndarray | None = None
) -> np.ndarray:
    """``x`` (N, C, H, W) as a channels-last (N, H', W', C) array with ``spread - 1`` zeros
    between neighbouring pixels and ``pads`` zeros around (negative pads crop). ``x_last``,
    if given, is ``x`` already laid out channels-last (N, H, W, C): a faster source to copy.

    The array lives in the shared workspace: use it before the next call."""
    n, c, h, w = x.shape
    (top, bottom), (left, right) = pads
    sh, sw = spread
    span_h = (h - 1) * sh + 1 if h else 0
    span_w = (w - 1) * sw + 1 if w else 0
    lo_h, lo_w = max(top, 0), max(left, 0)
    full_h = span_h + lo_h + max(bottom, 0)
    full_w = span_w + lo_w + max(right, 0)
    plain = lo_h == lo_w == 0 and full_h == span_h and full_w == span_w and sh == sw == 1
    buf = _workspace.take((n, full_h, full_w, c), x.dtype)
    if not plain:
        buf.fill(0)
    source = x.transpose(0, 2, 3, 1) if x_last is None else x_last
    buf[:, lo_h : lo_h + span_h : sh, lo_w : lo_w + span_w : sw, :] = source
    if top < 0 or bottom < 0 or left < 0 or right < 0:
        buf = buf[
            :, max(-top, 0) : full_h - max(-bottom, 0), max(-left, 0) : full_w - max(-right, 0)
        ]
    return buf


def _channels_first_suits(channels: int, kernel_w: int, out_w: int, groups: int) -> bool:
    """Whether the (C*kh*kw, N*Ho*Wo) im2col layout copies faster than the channels-last one.

    Both copies are loops over contiguous runs, and NumPy pays about as much per run as for a
    few dozen elements: channels-last runs are ``kw*C`` long, channels-first runs ``Wo`` long.
    A first layer with one input channel (runs of 3 against 8 on 8x8 digits) goes channels
    first; deeper layers, with many channels, channels last.
    """
    return groups == 1 and channels * kernel_w < out_w


def _im2col_channels_first(
    x: np.ndarray, pads: Pads, kernel: tuple, stride: tuple, dilation: tuple
) -> tuple[np.ndarray, tuple, tuple]:
    """The windows of (N, C, H, W) ``x`` zero-padded by ``pads`` (>= 0) as a (C*kh*kw,
    N*Ho*Wo) matrix, the output's (N, Ho, Wo), and a ticket for ``_cols_if_intact``.

    The matrix lives in the shared workspace: use it before the next im2col call.
    """
    n, c, h, w = x.shape
    (top, bottom), (left, right) = pads
    xp = x
    if top or bottom or left or right:
        xp = _workspace.take((n, c, h + top + bottom, w + left + right), x.dtype)
        xp.fill(0)
        xp[:, :, top : top + h, left : left + w] = x
    (kh, kw), (sh, sw), (dh, dw) = kernel, stride, dilation
    ho = (xp.shape[2] - dh * (kh - 1) - 1) // sh + 1
    wo = (xp.shape[3] - dw * (kw - 1) - 1) // sw + 1
    bn, bc, bh, bw = xp.strides
    view = as_strided(
        xp, (c, kh, kw, n, ho, wo), (bc, bh * dh, bw * dw, bn, bh * sh, bw * sw), writeable=False
    )
    cols = _workspace.take(view.shape, x.dtype)
    ticket = (view.shape, x.dtype, _workspace.last_stamp)
    np.copyto(cols, view)
    return cols.reshape(c * kh * kw, n * ho * wo), (n, ho, wo), ticket


def _channels_first_cols_if_intact(ticket: tuple | None) -> np.ndarray | None:
    """``_cols_if_intact`` for a ticket of ``_im2col_channels_first``."""
    if ticket is None:
        return None
    cols = _workspace.intact(*ticket)
    if cols is None:
        return None
    c, kh, kw, n, ho, wo = cols.shape
    return cols.reshape(c * kh * kw, n * ho * wo)


def _bias_grad(matrix: np.ndarray, axis: int) -> np.ndarray:
    """Sum of a gradient matrix along ``axis`` as a matrix-vector product (NumPy's reduction
    of the short rows of an (N*Ho*Wo, O) matrix costs 8x more)."""
    ones = np.ones(matrix.shape[axis], matrix.dtype)
    return ones @ matrix if axis == 0 else matrix @ ones


def _im2col_channels_last(
    xl: np.ndarray, kernel: tuple, stride: tuple, dilation: tuple, groups: int
) -> tuple[np.ndarray, tuple, tuple]:
    """The windows of channels-last ``xl`` as a (groups, N*Ho*Wo, kh*kw*C/groups) matrix, the
    output's (N, Ho, Wo), and a ticket for ``_cols_if_intact``.

    The matrix lives in the shared workspace: use it before the next im2col call.
    """
    view, pixels = _windows(xl, kernel, stride, dilation, groups)
    cols = _workspace.take(view.shape, xl.dtype)
    ticket = (view.shape, xl.dtype, _workspace.last_stamp)
    np.copyto(cols, view)
    return _as_matrix(cols), pixels, ticket


def _as_matrix(cols: np.ndarray) -> np.ndarray:
    """(groups, N, Ho, Wo, kh, kw, C/groups) windows as (groups, N*Ho*Wo, kh*kw*C/groups)."""
    g, n, ho, wo, kh, kw, cg = cols.shape
    return cols.reshape(g, n * ho * wo, kh * kw * cg)


def _cols_if_intact(ticket: tuple | None) -> np.ndarray | None:
    """The im2col matrix an earlier ``_im2col_channels_last`` call returned with ``ticket``,
    if the workspace has not handed its buffer out since (else None)."""
    if ticket is None:
        return None
    cols = _workspace.intact(*ticket)
    return None if cols is None else _as_matrix(cols)


def _windows(
    xl: np.ndarray, kernel: tuple, stride: tuple, dilation: tuple, groups: int
) -> tuple[np.ndarray, tuple]:
    """A strided (groups, N, Ho, Wo, kh, kw, C/groups) view of the windows of ``xl``."""
    n, hp, wp, c = xl.shape
    (kh, kw), (sh, sw), (dh, dw) = kernel, stride, dilation
    ho = (hp - dh * (kh - 1) - 1) // sh + 1
    wo = (wp - dw * (kw - 1) - 1) // sw + 1
    bn, bh, bw, bc = xl.strides
    cg = c // groups
    view = as_strided(
        xl,
        (groups, n, ho, wo, kh, kw, cg),
        (bc * cg, bn, bh * sh, bw * sw, bh * dh, bw * dw, bc),
        writeable=False,
    )
    return view, (n, ho, wo)


def _weight_matrix(w: np.ndarray, groups: int) -> np.ndarray:
    """(O, C/g, kh, kw) weight as (g, kh*kw*C/g, O/g), matching the im2col column order."""
    o, cg, kh, kw = w.shape
    w5 = w.reshape(groups, o // groups, cg, kh, kw)
    return w5.transpose(0, 3, 4, 2, 1).reshape(groups, kh * kw * cg, o // groups)


def _weight_from_matrix(m: np.ndarray, weight_shape: tuple, groups: int) -> np.ndarray:
    """Inverse of ``_weight_matrix``."""
    o, cg, kh, kw = weight_shape
    m5 = m.reshape(groups, kh, kw, cg, o // groups)
    return np.ascontiguousarray(m5.transpose(0, 4, 3, 1, 2)).reshape(weight_shape)


def _matmul_groups(a: np.ndarray, b: np.ndarray, scratch: bool = False) -> np.ndarray:
    """Batched product over the leading group axis (a plain 2-d product for one group);
    with ``scratch`` the result is written into the workspace (use it before the next call)."""
    out = None
    if scratch:
        dtype = np.result_type(a, b)
        out = _workspace.take((a.shape[0], a.shape[1], b.shape[2]), dtype)
    if a.shape[0] == 1:
        return np.matmul(a[0], b[0], out=None if out is None else out[0])[None]
    return np.matmul(a, b, out=out)


def _ungroup(out: np.ndarray, pixels: tuple) -> np.ndarray:
    """(g, N*Ho*Wo, O/g) product as channels-last (N, Ho, Wo, O)."""
    g, _, og = out.shape
    flat = out[0] if g == 1 else out.transpose(1, 0, 2)
    return flat.reshape(*pixels, g * og)


def _to_channels_first(out_l: np.ndarray, bias: np.ndarray | None = None) -> np.ndarray:
    """A channels-last (N, H, W, C) result as contiguous (N, C, H, W), plus ``bias``."""
    n, h, w, c = out_l.shape
    result = np.empty(
        (n, c, h, w), np.result_type(out_l, bias) if bias is not None else out_l.dtype
    )
    moved = out_l.transpose(0, 3, 1, 2)
    if bias is None:
        np.copyto(result, moved)
    else:
        np.add(moved, bias.reshape(c, 1, 1), out=result)
    return result


def _grad_channels_last(grad: np.ndarray) -> np.ndarray:
    """An (N, O, Ho, Wo) gradient as an (N*Ho*Wo, O) matrix (in the workspace)."""
    n, o, ho, wo = grad.shape
    flat = _workspace.take((n * ho * wo, o), grad.dtype)
    np.copyto(flat.reshape(n, ho, wo, o), grad.transpose(0, 2, 3, 1))
    return flat


def _flipped_transposed_weight(w: np.ndarray, groups: int) -> np.ndarray:
    """A transposed convolution's (Cin, Cout/g, kh, kw) weight as the equivalent ordinary
    convolution's (Cout, Cin/g, kh, kw) weight: channels swapped per group, kernel flipped."""
    cin, cog, kh, kw = w.shape
    w5 = w.reshape(groups, cin // groups, cog, kh, kw).transpose(0, 2, 1, 3, 4)
    return w5.reshape(groups * cog, cin // groups, kh, kw)[:, :, ::-1, ::-1]


def _unflip_transposed_weight(weq: np.ndarray, groups: int) -> np.ndarray:
    """Inverse of ``_flipped_transposed_weight``."""
    cout, cig, kh, kw = weq.shape
    w5 = weq[:, :, ::-1, ::-1].reshape(groups, cout // groups, cig, kh, kw).transpose(0, 2, 1, 3, 4)
    return np.ascontiguousarray(w5).reshape(groups * cig, cout // groups, kh, kw)


def _transposed_geometry(kernel: tuple, pads: Pads, output_padding: tuple, dilation: tuple) -> Pads:
    """Pads of the ordinary convolution that equals a transposed one on the spread input."""
    return tuple(
        (d * (k - 1) - lo, d * (k - 1) - hi + op)
        for k, (lo, hi), op, d in zip(kernel, pads, output_padding, dilation)
    )


def _ordinary_form(
    x, w, stride, pads, dilation, groups, transposed, output_padding, x_last=None
) -> tuple:
    """The channels-last padded input, weight and stride of the ordinary convolution that
    computes this one: a transposed convolution is an ordinary one on the input spread with
    ``stride - 1`` zeros, with the kernel flipped and its channel axes swapped per group.
    ``x_last`` is ``x`` laid out channels-last, if the caller has it."""
    if not transposed:
        return _channels_last(x, pads, x_last=x_last), w, stride
    pads = _transposed_geometry(w.shape[2:], pads, output_padding, dilation)
    xl = _channels_last(x, pads, spread=stride, x_last=x_last)
    return xl, _flipped_transposed_weight(w, groups), (1, 1)


def conv_array(
    x: np.ndarray,
    w: np.ndarray,
    b: np.ndarray | None,
    stride: tuple,
    pads: Pads,
    dilation: tuple,
    groups: int,
    transposed: bool = False,
    output_padding: tuple = (0, 0),
    x_last: np.ndarray | None = None,
) -> tuple[np.ndarray, tuple]:
    """A 2-d convolution of (N, C, H, W) arrays plus ``b`` (or None): the contiguous (N, O, Ho,
    Wo) result and the ticket of its im2col matrix (which ``conv_weight_grad_array`` can reuse
    while the workspace holds it). ``x_last``: ``x`` laid out channels-last, if at hand."""
    if not transposed and _channels_first_suits(
        x.shape[1],
        w.shape[3],
        _out_size(x.shape[3], w.shape[3], pads[1], stride[1], dilation[1]),
        groups,
    ):
        cols, (n, ho, wo), ticket = _im2col_channels_first(x, pads, w.shape[2:], stride, dilation)
        o = w.shape[0]
        product = _workspace.take((o, n * ho * wo), np.result_type(w, cols))
        np.matmul(w.reshape(o, -1), cols, out=product)
        moved = product.reshape(o, n, ho * wo).transpose(1, 0, 2)
        result = np.empty(
            (n, o, ho, wo), np.result_type(product, b) if b is not None else product.dtype
        )
        if b is None:
            np.copyto(result.reshape(n, o, ho * wo), moved)
        else:
            np.add(moved, b.reshape(o, 1), out=result.reshape(n, o, ho * wo))
        return result, ticket
    xl, w_eq, stride_eq = _ordinary_form(
        x, w, stride, pads, dilation, groups, transposed, output_padding, x_last
    )
    cols, pixels, ticket = _im2col_channels_last(xl, w.shape[2:], stride_eq, dilation, groups)
    out = _ungroup(_matmul_groups(cols, _weight_matrix(w_eq, groups), scratch=True), pixels)
    return _to_channels_first(out, b), ticket


def _out_size(size: int, k: int, pad: tuple, stride: int, dilation: int) -> int:
    """Output length of an ordinary convolution along one axis."""
    return (size + pad[0] + pad[1] - dilation * (k - 1) - 1) // stride + 1


def conv_weight_grad_array(
    x: np.ndarray,
    w: np.ndarray,
    grad: np.ndarray,
    stride: tuple,
    pads: Pads,
    dilation: tuple,
    groups: int,
    transposed: bool = False,
    output_padding: tuple = (0, 0),
    ticket: tuple | None = None,
    with_bias: bool = False,
) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
    """The weight gradient of ``conv_array``: ``im2col(x)^T @ grad`` per group; with
    ``with_bias`` also the bias gradient (the sum of ``grad`` over all but the channel axis);
    and, when it was made, ``grad`` laid out channels-last (N, Ho, Wo, O), in the workspace.

    ``ticket`` is the one ``conv_array`` returned: its im2col matrix is reused if the
    workspace still holds it (else recomputed).
    """
    if not transposed and _channels_first_suits(x.shape[1], w.shape[3], grad.shape[3], groups):
        cols = _channels_first_cols_if_intact(ticket)
        if cols is None:
            cols, _, _ = _im2col_channels_first(x, pads, w.shape[2:], stride, dilation)
        n, o, ho, wo = grad.shape
        grad_matrix = _workspace.take((o, n, ho * wo), grad.dtype)
        np.copyto(grad_matrix, grad.reshape(n, o, ho * wo).transpose(1, 0, 2))
        grad_matrix = grad_matrix.reshape(o, n * ho * wo)
        grad_bias = _bias_grad(grad_matrix, 1) if with_bias else None
        return (grad_matrix @ cols.T).reshape(w.shape), grad_bias, None
    w_eq = _flipped_transposed_weight(w, groups) if transposed else w
    cols = _cols_if_intact(ticket)
    if cols is None:
        xl, w_eq, stride_eq = _ordinary_form(
            x, w, stride, pads, dilation, groups, transposed, output_padding
        )
        cols, _, _ = _im2col_channels_last(xl, w.shape[2:], stride_eq, dilation, groups)
    grad_matrix = _grad_channels_last(grad)
    grad_last = grad_matrix.reshape(grad.shape[0], *grad.shape[2:], grad.shape[1])
    grad_bias = _bias_grad(grad_matrix, 0) if with_bias else None
    if groups > 1:
        o = grad_matrix.shape[1]
        grad_matrix = grad_matrix.reshape(-1, groups, o // groups).transpose(1, 0, 2)
    else:
        grad_matrix = grad_matrix[None]
    m = _matmul_groups(cols.transpose(0, 2, 1), grad_matrix)
    grad_eq = _weight_from_matrix(m, w_eq.shape, groups)
    grad_weight = _unflip_transposed_weight(grad_eq, groups) if transposed else grad_eq
    return grad_weight, grad_bias, grad_last


def _crop_to(x: Any, spatial: tuple) -> Any:
    """``x`` cut to ``spatial`` trailing sizes (Tensors and arrays alike)."""
    if tuple(x.shape[2:]) == tuple(spatial):
        return x
    return x[(slice(None), slice(None)) + tuple(slice(0, s) for s in spatial)]


# --- convolution node --------------------------------------------------------------------


class ConvolutionBackward0(Op):
    """out = conv(input, weight) + bias, ordinary or transposed, 1-d, 2-d or 3-d."""

    saved_inputs = (0, 1)
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
        x,
        w,
        b,
        stride,
        padding,
        dilation,
        transposed,
        output_padding,
        groups,
        x_last=None,
    ):
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

    def backward(self, F, grad):
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
            if grad_last is not None:
                params["x_last"] = grad_last
            grad_input = _crop_to(ConvolutionBackward0.call(grad, w, None, **params), spatial)
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
    result = ConvolutionBackward0.apply(
        as_batch,
        as_weight,
        None,
        stride=node.dilation,
        padding=node.padding,
        dilation=node.stride,
        transposed=False,
        output_padding=(0,) * len(spatial),
        groups=groups,
    )
    return shape.transpose(_crop_to(result, kernel), 0, 1)


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
    _check_conv(op, input, weight, bias, n, False, groups)
    stride = _tuple_arg(stride, n, "stride", op)
    dilation = _tuple_arg(dilation, n, "dilation", op)
    _check_geometry(op, stride, dilation)
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


def _conv_transpose(
    op: str,
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
    _check_conv(op, input, weight, bias, n, True, groups)
    stride = _tuple_arg(stride, n, "stride", op)
    dilation = _tuple_arg(dilation, n, "dilation", op)
    _check_geometry(op, stride, dilation)
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
        "conv_transpose2d",
        2,
        input,
        weight,
        bias,
        stride,
        padding,
        output_padding,
        groups,
        dilation,
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
        "conv_transpose1d",
        1,
        input,
        weight,
        bias,
        stride,
        padding,
        output_padding,
        groups,
        dilation,
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
        "conv_transpose3d",
        3,
        input,
        weight,
        bias,
        stride,
        padding,
        output_padding,
        groups,
        dilation,
    )


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

    __slots__ = ("self_sym_argsize_minus_2", "kernel_size", "dilation", "padding", "stride")

    def forward(self, x, kernel_size, dilation, padding, stride):
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

    def backward(self, F, grad):
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

    __slots__ = ("kernel_size", "dilation", "padding", "stride")

    def forward(self, cols, output_size, kernel_size, dilation, padding, stride):
        self.kernel_size, self.dilation, self.padding, self.stride = (
            kernel_size,
            dilation,
            padding,
            stride,
        )
        if cols.ndim == 2:
            return _col2im(cols[None], output_size, kernel_size, dilation, padding, stride)[0]
        return _col2im(cols, output_size, kernel_size, dilation, padding, stride)

    def backward(self, F, grad):
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


def _conv3d_samples(rng: np.random.Generator) -> list[Sample]:
    return [
        Sample((randn(rng, 2, 2, 4, 3, 4), randn(rng, 3, 2, 2, 2, 3), randn(rng, 3))),
        Sample(
            (randn(rng, 1, 4, 5, 4, 4), randn(rng, 2, 2, 3, 2, 2)),
            {"stride": (2, 1, 2), "padding": (1, 0, 1), "dilation": (1, 2, 1), "groups": 2},
        ),
        Sample((randn(rng, 2, 3, 3, 4), randn(rng, 2, 2, 2, 2, 2)), {"padding": "same"}),
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


_NF = "nn.functional"
register("conv2d", conv2d, nodes=(ConvolutionBackward0,), samples=_conv2d_samples, namespace=_NF)
register("conv1d", conv1d, nodes=(ConvolutionBackward0,), samples=_conv1d_samples, namespace=_NF)
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
register("conv3d", conv3d, nodes=(ConvolutionBackward0,), samples=_conv3d_samples, namespace=_NF)
register(
    "conv_transpose3d",
    conv_transpose3d,
    nodes=(ConvolutionBackward0,),
    samples=_conv_transpose3d_samples,
    namespace=_NF,
)
register("unfold", unfold, nodes=(Im2ColBackward0,), samples=_unfold_samples, namespace=_NF)
register("fold", fold, nodes=(Col2ImBackward0,), samples=_fold_samples, namespace=_NF)

__all__ = [
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_transpose1d",
    "conv_transpose2d",
    "conv_transpose3d",
    "unfold",
    "fold",
]
