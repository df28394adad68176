"""The array kernels of convolution: im2col into a reused workspace (channels-last, or
channels-first where that is faster), one matrix product per group, and the weight gradient;
transposed convolutions are rewritten as ordinary ones here. ``nn_conv.py`` wraps them in ops.
"""

from __future__ import annotations

import itertools
import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ._conv_nd import conv_transpose_col2im, grad_as_transposed_input

__all__ = []


Pads = tuple  # ((low, high), ...) per spatial dim; a negative value crops instead


# --- argument normalisation ----------------------------------------------------------------


def _tuple_arg(value: Any, n: int, name: str, op: str) -> tuple:
    """An int, or a sequence of 1 or ``n`` ints, as a tuple of ``n`` ints (PyTorch's rule)."""
    if type(value) is int:  # the usual spellings first: no ABC checks
        return (value,) * n
    if type(value) is tuple and len(value) == n and all(type(v) is int for v in value):
        return value
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
    if transposed and not np.isfinite(w).all():
        # The ordinary form multiplies every weight by the zeros spread between the input's
        # elements (0 * nan); PyTorch's col2im adds each tap at the positions it reaches only.
        out = conv_transpose_col2im(x, w, stride, pads, dilation, groups, output_padding)
        return (out if b is None else out + b.reshape(-1, 1, 1)), None
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
    if transposed and not (np.isfinite(grad).all() and np.isfinite(x).all()):
        return _transposed_weight_grad_gathered(
            x, w, grad, stride, pads, dilation, groups, output_padding, with_bias
        )
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


def _transposed_weight_grad_gathered(
    x, w, grad, stride, pads, dilation, groups, output_padding, with_bias
) -> tuple:
    """The weight gradient of a transposed convolution as PyTorch computes it: the weight
    gradient of the ordinary convolution of ``grad`` (its windows at the output positions
    ``y*stride + k*dilation - padding``, the ones the forward reached) with ``x`` as the
    gradient. A NaN or infinite gradient at a position no tap reached (an output padding, or
    between strided taps) then stays out of it, where the ordinary form multiplies it by the
    zeros spread in the input; a NaN or infinite input meets the zeros padding the gradient,
    as in PyTorch's im2col."""
    grad_cut, grad_pads = grad_as_transposed_input(grad, pads, output_padding)
    grad_weight, _, _ = conv_weight_grad_array(grad_cut, w, x, stride, grad_pads, dilation, groups)
    grad_bias = grad.sum(axis=(0, 2, 3)) if with_bias else None
    return grad_weight, grad_bias, None


def _crop_to(x: Any, spatial: tuple) -> Any:
    """``x`` cut to ``spatial`` trailing sizes (Tensors and arrays alike)."""
    if tuple(x.shape[2:]) == tuple(spatial):
        return x
    return x[(slice(None), slice(None)) + tuple(slice(0, s) for s in spatial)]
