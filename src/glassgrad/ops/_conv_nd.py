"""Convolution of arrays with any number of spatial dimensions (3-d convolutions; the 1-d and
2-d ones have their own tuned kernels in ``nn_conv``): im2col through a strided window view,
then one matrix product per group. A transposed convolution is the ordinary one of the input
spread with ``stride - 1`` zeros, padded by ``dilation * (k - 1) - padding``, with the kernel
flipped and its channel axes swapped per group.
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

__all__ = [
    "conv_nd_array",
    "conv_nd_weight_grad_array",
    "conv_transpose_col2im",
    "grad_as_transposed_input",
]


def _padded(x: np.ndarray, pads: tuple) -> np.ndarray:
    """``x`` (N, C, *S) with ``(low, high)`` zeros per spatial axis; negative values crop."""
    crop = tuple(slice(max(-lo, 0), s - max(-hi, 0)) for s, (lo, hi) in zip(x.shape[2:], pads))
    x = x[(slice(None), slice(None), *crop)]
    widths = [(0, 0), (0, 0), *((max(lo, 0), max(hi, 0)) for lo, hi in pads)]
    return np.pad(x, widths) if any(any(w) for w in widths) else x


def _spread(x: np.ndarray, stride: tuple) -> np.ndarray:
    """``x`` with ``stride - 1`` zeros between neighbours along each spatial axis."""
    if all(s == 1 for s in stride):
        return x
    size = tuple((n - 1) * s + 1 for n, s in zip(x.shape[2:], stride))
    out = np.zeros((*x.shape[:2], *size), x.dtype)
    out[(slice(None), slice(None), *(slice(None, None, s) for s in stride))] = x
    return out


def _windows(xp: np.ndarray, kernel: tuple, stride: tuple, dilation: tuple) -> np.ndarray:
    """(N, C, *O, *K) view of every window of the padded input ``xp``."""
    nd = len(kernel)
    spans = [d * (k - 1) + 1 for k, d in zip(kernel, dilation)]
    view = sliding_window_view(xp, spans, axis=tuple(range(2, 2 + nd)))
    picks = (*(slice(None, None, s) for s in stride), *(slice(None, None, d) for d in dilation))
    return view[(slice(None), slice(None), *picks)]


def _flipped_transposed(w: np.ndarray, groups: int) -> np.ndarray:
    """(Cin, Cout/g, *K) transposed-convolution weight as the ordinary (Cout, Cin/g, *K)."""
    cin, cog, *kernel = w.shape
    grouped = w.reshape(groups, cin // groups, cog, *kernel).swapaxes(1, 2)
    flip = (slice(None), slice(None), *(slice(None, None, -1),) * len(kernel))
    return grouped.reshape(groups * cog, cin // groups, *kernel)[flip]


def _unflip_transposed(w_eq: np.ndarray, groups: int) -> np.ndarray:
    cout, cig, *kernel = w_eq.shape
    flip = (slice(None), slice(None), *(slice(None, None, -1),) * len(kernel))
    grouped = w_eq[flip].reshape(groups, cout // groups, cig, *kernel).swapaxes(1, 2)
    return np.ascontiguousarray(grouped).reshape(groups * cig, cout // groups, *kernel)


def _ordinary(x, w, stride, pads, dilation, groups, transposed, output_padding) -> tuple:
    """The padded input, weight and stride of the ordinary convolution computing this one."""
    if not transposed:
        return _padded(x, pads), w, stride
    kernel = w.shape[2:]
    eq_pads = tuple(
        (d * (k - 1) - lo, d * (k - 1) - hi + op)
        for k, (lo, hi), op, d in zip(kernel, pads, output_padding, dilation)
    )
    return _padded(_spread(x, stride), eq_pads), _flipped_transposed(w, groups), (1,) * len(kernel)


def _columns(xp: np.ndarray, kernel: tuple, stride: tuple, dilation: tuple, groups: int):
    """(groups, N*prod(O), C/g*prod(K)) im2col matrix and the output sizes O."""
    nd = len(kernel)
    win = _windows(xp, kernel, stride, dilation)
    n, c = win.shape[:2]
    out = win.shape[2 : 2 + nd]
    grouped = win.reshape(n, groups, c // groups, *win.shape[2:])
    # (g, N, *O, C/g, *K)
    order = (1, 0, *range(3, 3 + nd), 2, *range(3 + nd, 3 + 2 * nd))
    cols = np.ascontiguousarray(grouped.transpose(order))
    # The last size spelled out: -1 is ambiguous for an empty batch.
    return cols.reshape(groups, n * int(np.prod(out)), c // groups * int(np.prod(kernel))), out


def conv_nd_array(
    x: np.ndarray,
    w: np.ndarray,
    b: np.ndarray | None,
    stride: tuple,
    pads: tuple,
    dilation: tuple,
    groups: int,
    transposed: bool,
    output_padding: tuple,
) -> np.ndarray:
    """The convolution (ordinary or transposed) of (N, C, *S) ``x`` with ``w``, plus ``b``."""
    if transposed and not np.isfinite(w).all():
        # The ordinary form multiplies every weight by the zeros spread between the input's
        # elements (0 * nan); PyTorch's col2im adds each tap at the positions it reaches only.
        result = conv_transpose_col2im(x, w, stride, pads, dilation, groups, output_padding)
        return result if b is None else result + b.reshape(-1, *(1,) * len(stride))
    xp, w_eq, stride_eq = _ordinary(
        x, w, stride, pads, dilation, groups, transposed, output_padding
    )
    cols, out = _columns(xp, w_eq.shape[2:], stride_eq, dilation, groups)
    o = w_eq.shape[0]
    weight = w_eq.reshape(groups, o // groups, -1).swapaxes(1, 2)
    product = np.matmul(cols, weight)  # (g, N*prod(O), O/g)
    n = x.shape[0]
    positions = int(np.prod(out))  # spelled out: -1 is ambiguous for an empty batch
    result = product.reshape(groups, n, positions, o // groups).transpose(1, 0, 3, 2)
    result = np.ascontiguousarray(result).reshape(n, o, *out)
    if b is not None:
        result += b.reshape(o, *(1,) * len(out))
    return result


def conv_nd_weight_grad_array(
    x: np.ndarray,
    w: np.ndarray,
    grad: np.ndarray,
    stride: tuple,
    pads: tuple,
    dilation: tuple,
    groups: int,
    transposed: bool,
    output_padding: tuple,
) -> np.ndarray:
    """The gradient of ``conv_nd_array`` with respect to ``w``: ``im2col(x)^T @ grad`` per
    group (through the ordinary form for a transposed convolution).

    When a transposed convolution's gradient or input holds NaN or inf, the gradient is
    gathered at the output positions the forward reached, as PyTorch does (the weight
    gradient of the ordinary convolution of ``grad`` with ``x`` as its gradient), not
    multiplied by the zeros that the ordinary form spreads in ``x``."""
    if transposed and not (np.isfinite(grad).all() and np.isfinite(x).all()):
        grad_cut, grad_pads = grad_as_transposed_input(grad, pads, output_padding)
        zeros = (0,) * len(stride)
        return conv_nd_weight_grad_array(
            grad_cut, w, x, stride, grad_pads, dilation, groups, False, zeros
        )
    xp, w_eq, stride_eq = _ordinary(
        x, w, stride, pads, dilation, groups, transposed, output_padding
    )
    cols, out = _columns(xp, w_eq.shape[2:], stride_eq, dilation, groups)
    n, o = grad.shape[:2]
    positions = int(np.prod(out))  # spelled out: -1 is ambiguous for an empty batch
    grad_matrix = grad.reshape(n, groups, o // groups, positions).transpose(1, 0, 3, 2)
    grad_matrix = grad_matrix.reshape(groups, n * positions, o // groups)
    grad_eq = np.matmul(grad_matrix.swapaxes(1, 2), cols).reshape(w_eq.shape)
    return _unflip_transposed(grad_eq, groups) if transposed else grad_eq


def grad_as_transposed_input(grad: np.ndarray, pads: tuple, output_padding: tuple) -> tuple:
    """A transposed convolution's output gradient and the pads that make it the input of the
    ordinary convolution whose windows are the forward's taps (``y*stride + k*dilation -
    padding``): the output padding that no window reaches cut off."""
    extra = tuple(max(op - hi, 0) for (_, hi), op in zip(pads, output_padding))
    cut = tuple(slice(0, s - e) for s, e in zip(grad.shape[2:], extra))
    grad_pads = tuple((lo, max(hi - op, 0)) for (lo, hi), op in zip(pads, output_padding))
    return grad[(slice(None), slice(None), *cut)], grad_pads


def conv_transpose_col2im(
    x: np.ndarray,
    w: np.ndarray,
    stride: tuple,
    pads: tuple,
    dilation: tuple,
    groups: int,
    output_padding: tuple,
) -> np.ndarray:
    """The transposed convolution of (N, Cin, *S) ``x`` with (Cin, Cout/g, *K) ``w`` as
    PyTorch computes it (col2im): the columns ``x^T @ w`` per group, then each kernel tap's
    column added at its output positions ``y*stride + k*dilation - padding``.

    An output position receives only the taps that reach it, so a NaN or infinite weight
    lands where PyTorch puts it, not on every output (as the ordinary convolution of a
    zero-spread input makes it: ``0 * nan``).
    """
    n, cin, *size = x.shape
    _, cog, *kernel = w.shape
    nd = len(kernel)
    cig = cin // groups
    pixels = int(np.prod(size))  # spelled out: -1 is ambiguous for an empty batch
    taps = int(np.prod(kernel))
    xg = x.reshape(n, groups, cig, pixels).transpose(1, 0, 3, 2)  # (g, N, P, Cin/g)
    wg = w.reshape(groups, 1, cig, cog * taps)
    cols = np.matmul(xg, wg).reshape(groups, n, *size, cog, *kernel)
    # (N, g, Cout/g, *K, *S): each tap's block contiguous for the additions below
    order = (1, 0, 2 + nd, *range(3 + nd, 3 + 2 * nd), *range(2, 2 + nd))
    cols = cols.transpose(order)
    span = tuple((s - 1) * st + 1 for s, st in zip(size, stride))
    out = tuple(
        sp - lo - hi + d * (k - 1) + op
        for sp, (lo, hi), d, k, op in zip(span, pads, dilation, kernel, output_padding)
    )
    full = tuple(
        max(sp + d * (k - 1), lo + o)
        for sp, d, k, (lo, _), o in zip(span, dilation, kernel, pads, out)
    )
    result = np.zeros((n, groups, cog, *full), cols.dtype)
    every = (slice(None),) * 3
    for tap in np.ndindex(*kernel):
        where = tuple(
            slice(t * d, t * d + sp, st) for t, d, sp, st in zip(tap, dilation, span, stride)
        )
        result[(*every, *where)] += cols[(*every, *tap)]
    crop = tuple(slice(lo, lo + o) for (lo, _), o in zip(pads, out))
    return np.ascontiguousarray(result[(*every, *crop)]).reshape(n, groups * cog, *out)
