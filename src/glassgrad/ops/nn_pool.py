"""Pooling: ``max_pool2d avg_pool2d adaptive_avg_pool2d`` (public in
``glassgrad.nn.functional``).

Windows are never materialised pixel by pixel: max and average pooling loop over the
``kh*kw`` kernel offsets only, each step one vectorised operation on a strided slice of the
(padded) input planes, and their gradients are one masked slice-add per offset. Adaptive
average pooling is two small matrix products, ``A_h @ x @ A_w^T``.

Each backward is a differentiable op whose own backward is known (max pooling's gradient
gathers back from the chosen elements; average pooling's backward and forward are adjoint),
so ``create_graph=True`` gives second derivatives like PyTorch.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .._tensor import Tensor
from ..autograd.op import Op
from . import reduction
from ._common import check_tensor
from ._registry import Sample, register
from ._samples import randn
from .nn_conv import _tuple_arg

# --- window geometry -------------------------------------------------------------------------------


def _pool_out_size(size: int, k: int, pad: int, stride: int, dilation: int, ceil: bool) -> int:
    """PyTorch's pooling output size, including the ceil-mode rule that the last window must
    start inside the input or its left padding."""
    span = size + 2 * pad - dilation * (k - 1) - 1
    out = (span + (stride - 1 if ceil else 0)) // stride + 1
    if ceil and (out - 1) * stride >= size + pad:
        out -= 1
    return out


def _kernel_slices(i: int, j: int, out: tuple, stride: tuple, dilation: tuple) -> tuple:
    """The (…, Ho, Wo) strided slice of a padded plane seen by kernel offset (i, j)."""
    (ho, wo), (sh, sw), (dh, dw) = out, stride, dilation
    return (
        Ellipsis,
        slice(i * dh, i * dh + sh * (ho - 1) + 1, sh),
        slice(j * dw, j * dw + sw * (wo - 1) + 1, sw),
    )


def _padded_size(size: tuple, pad: tuple, out: tuple, kernel, stride, dilation) -> tuple:
    """Height and width of a plane padded by ``pad`` before and enough after for every window
    (ceil mode's last window may hang over the end)."""
    return tuple(
        max((o - 1) * s + d * (k - 1) + 1, n + p)
        for n, p, o, k, s, d in zip(size, pad, out, kernel, stride, dilation)
    )


def _padded_planes(
    x: np.ndarray, pad: tuple, out: tuple, kernel, stride, dilation, fill
) -> np.ndarray:
    """``x`` (…, H, W) with ``pad`` before and enough ``fill`` after for every window."""
    h, w = x.shape[-2:]
    full_h, full_w = _padded_size((h, w), pad, out, kernel, stride, dilation)
    if pad == (0, 0) and full_h == h and full_w == w:
        return x
    buf = np.full((*x.shape[:-2], full_h, full_w), fill, x.dtype)
    buf[..., pad[0] : pad[0] + h, pad[1] : pad[1] + w] = x
    return buf


def _lowest(dtype: np.dtype) -> Any:
    return -np.inf if dtype.kind == "f" else np.iinfo(dtype).min


def _offset_dtype(count: int) -> type:
    return np.int8 if count <= 127 else np.int32


def _max_pool(x: np.ndarray, kernel, stride, padding, dilation, out) -> tuple:
    """The max of every window and, per output, the kernel offset ``q = i*kw + j`` it came from.

    PyTorch's choice: the first maximum in row-major window order; a NaN wins (the last NaN
    if several); padding never wins (a window of -inf picks its first real element).
    """
    if _inside(x.shape, kernel, stride, padding, dilation, out):
        best, choice = _max_pool_inside(x, kernel, stride, dilation, out)
        if x.dtype.kind != "f" or not np.isnan(best).any():
            return best, choice
    planes = _padded_planes(x, padding, out, kernel, stride, dilation, _lowest(x.dtype))
    offsets = [(i, j) for i in range(kernel[0]) for j in range(kernel[1])]
    views = [planes[_kernel_slices(i, j, out, stride, dilation)] for i, j in offsets]
    best = views[0].copy() if len(views) == 1 else np.maximum(views[0], views[1])
    for values in views[2:]:
        np.maximum(best, values, out=best)
    choice = np.full(best.shape, len(views) - 1, _offset_dtype(len(views)))
    for q in range(len(views) - 2, -1, -1):
        np.copyto(choice, q, where=views[q] == best)
    if x.dtype.kind == "f" and np.isnan(best).any():
        for q, values in enumerate(views):
            np.copyto(choice, q, where=np.isnan(values))
    if planes is not x:
        # Only padding ties with an all -inf window; PyTorch then keeps the first real element.
        empty = best == _lowest(x.dtype)
        if empty.any():
            top = np.arange(out[0]) * stride[0] - padding[0]
            left = np.arange(out[1]) * stride[1] - padding[1]
            first_i = np.maximum(-(top // dilation[0]), 0)
            first_j = np.maximum(-(left // dilation[1]), 0)
            first = first_i[:, None] * kernel[1] + first_j[None, :]
            np.copyto(choice, np.broadcast_to(first, choice.shape), where=empty, casting="unsafe")
    return best, choice


# --- the usual case: unpadded windows inside the input --------------------------------------
#
# Small images (8x8 digits) make every strided slice of an (N, C, H, W) array a loop of a few
# elements, and NumPy's per-loop cost then dominates (a 2x2 max of 64x32 8x8 planes: 0.7 ms).
# When no window reaches into padding, each kernel offset's candidates are instead gathered
# from the flat input by one ``take`` with the windows' start indices, and the rest is
# arithmetic on contiguous arrays (0.15 ms).

_STARTS: dict = {}  # geometry -> flat start index of every window (oldest first)
_STARTS_ENTRIES = 8
_STARTS_CACHED_MAX = 1 << 20  # windows; larger index arrays are rebuilt on each call


def _inside(shape: tuple, kernel, stride, padding, dilation, out) -> bool:
    """Whether no window touches padding or hangs over the input's end (ceil mode)."""
    if padding != (0, 0):
        return False
    return all(
        (o - 1) * s + d * (k - 1) + 1 <= n
        for n, o, k, s, d in zip(shape[-2:], out, kernel, stride, dilation)
    )


def _window_starts(shape: tuple, stride: tuple, out: tuple) -> np.ndarray:
    """Flat index into the contiguous input of every window's top-left element, in output
    order (planes, then rows, then columns). Cached and shared: callers must not modify it
    (it stays writeable because ``take`` copies a read-only index array first, 5x slower)."""
    key = (shape, stride, out)
    starts = _STARTS.get(key)
    if starts is not None:
        return starts
    planes = int(np.prod(shape[:-2], dtype=np.int64))
    h, w = shape[-2:]
    starts = (
        np.arange(planes, dtype=np.intp)[:, None, None] * (h * w)
        + (np.arange(out[0], dtype=np.intp) * (stride[0] * w))[:, None]
        + np.arange(out[1], dtype=np.intp) * stride[1]
    ).reshape(-1)
    if starts.size <= _STARTS_CACHED_MAX:
        _STARTS[key] = starts
        while len(_STARTS) > _STARTS_ENTRIES:  # the oldest geometries go first
            _STARTS.pop(next(iter(_STARTS)), None)
    return starts


def _kernel_offsets(width: int, kernel, dilation) -> list[int]:
    """Flat offset of kernel element ``q = i*kw + j`` from its window's first element."""
    return [
        i * dilation[0] * width + j * dilation[1]
        for i in range(kernel[0])
        for j in range(kernel[1])
    ]


def _max_pool_inside(x: np.ndarray, kernel, stride, dilation, out) -> tuple:
    """``_max_pool`` when every window lies inside the input. The choice is the first strict
    maximum, as PyTorch's loop makes it; a NaN is left to the caller (``best`` shows it)."""
    flat = np.ascontiguousarray(x).reshape(-1)
    starts = _window_starts(x.shape, stride, out)
    offsets = _kernel_offsets(x.shape[-1], kernel, dilation)
    best = flat.take(starts)
    choice = np.zeros(best.shape, _offset_dtype(len(offsets)))
    step = np.empty_like(choice)
    for q, offset in enumerate(offsets[1:], 1):
        values = flat[offset:].take(starts)
        greater = np.greater(values, best)
        np.maximum(best, values, out=best)
        np.subtract(q, choice, out=step)  # choice = q where greater, as arithmetic
        step *= greater
        choice += step
    shape = (*x.shape[:-2], *out)
    return best.reshape(shape), choice.reshape(shape)


def _flat_indices(choice: np.ndarray, width: int, kernel, stride, padding, dilation) -> np.ndarray:
    """Kernel offsets as flat ``h*W + w`` indices into each input plane (``return_indices``)."""
    out = choice.shape[-2:]
    top = np.arange(out[0]) * stride[0] - padding[0]
    left = np.arange(out[1]) * stride[1] - padding[1]
    ki, kj = np.divmod(choice.astype(np.int64), kernel[1])
    return (top[:, None] * width + left[None, :]) + ki * (dilation[0] * width) + kj * dilation[1]


def _max_pool_backward(grad, choice, shape, kernel, stride, padding, dilation) -> np.ndarray:
    """Each output gradient sent to its window's chosen element; one masked slice-add per
    kernel offset (overlapping windows accumulate)."""
    out = grad.shape[-2:]
    h, w = shape[-2:]
    overlap = any(s < d * (k - 1) + 1 for k, s, d in zip(kernel, stride, dilation))
    if not overlap and _inside(shape, kernel, stride, padding, dilation, out):
        # Every input element is chosen by at most one window: one scatter.
        offsets = np.array(_kernel_offsets(w, kernel, dilation), np.intp)
        targets = offsets.take(choice.reshape(-1))
        targets += _window_starts(tuple(shape), stride, out)
        result = np.zeros(int(np.prod(shape, dtype=np.int64)), grad.dtype)
        result[targets] = grad.reshape(-1)
        return result.reshape(shape)
    full = _padded_size((h, w), padding, out, kernel, stride, dilation)
    buf = np.zeros((*shape[:-2], *full), grad.dtype)
    for q in range(kernel[0] * kernel[1]):
        target = buf[_kernel_slices(q // kernel[1], q % kernel[1], out, stride, dilation)]
        if overlap:
            target += grad * (choice == q)
        else:
            np.multiply(grad, choice == q, out=target)
    return buf[..., padding[0] : padding[0] + h, padding[1] : padding[1] + w]


class MaxPool2DWithIndicesBackward0(Op):
    """out = max of each window (and its flat indices, with ``return_indices``); the gradient
    goes to each window's chosen element."""

    # Saved as PyTorch saves it (its backward node takes the input): in-place changes to the
    # input are caught, and under create_graph the gradient depends on it.
    saved_inputs = (0,)
    grad_reads_saved = True
    __slots__ = (
        "kernel_size",
        "stride",
        "padding",
        "dilation",
        "ceil_mode",
        "_choice",
        "_shape",
    )
    nondiff_outputs = (1,)

    def forward(self, x, kernel_size, stride, padding, dilation, ceil_mode, out_size, indices):
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding
        self.dilation, self.ceil_mode, self._shape = dilation, ceil_mode, x.shape
        values, self._choice = _max_pool(x, kernel_size, stride, padding, dilation, out_size)
        if not indices:
            return values
        return values, self.result1

    @property
    def result1(self) -> np.ndarray:
        """The flat input index of each output's maximum (PyTorch's saved ``result1``)."""
        return _flat_indices(
            self._choice,
            self._shape[-1],
            self.kernel_size,
            self.stride,
            self.padding,
            self.dilation,
        )

    def backward(self, F, grads):
        grad = grads[0] if type(grads) is tuple else grads
        geometry = (self.kernel_size, self.stride, self.padding, self.dilation)
        return MaxPool2DWithIndicesBackwardBackward0.call(
            grad, shape=self._shape, choice=self._choice, geometry=geometry
        )


class MaxPool2DWithIndicesBackwardBackward0(Op):
    """grad_input = max_pool2d's backward (the gradient placed at each window's maximum); its
    own gradient gathers from those places."""

    __slots__ = ("_choice", "_geometry", "_shape")

    def forward(self, grad, shape, choice, geometry):
        self._choice, self._geometry, self._shape = choice, geometry, shape
        return _max_pool_backward(grad, choice, shape, *geometry)

    def backward(self, F, grad):
        kernel, stride, padding, dilation = self._geometry
        indices = _flat_indices(self._choice, self._shape[-1], kernel, stride, padding, dilation)
        planes = int(np.prod(indices.shape[:-2], dtype=np.int64))
        flat = F.reshape(grad, (planes, self._shape[-2] * self._shape[-1]))
        picked = flat[np.arange(planes)[:, None], indices.reshape(planes, -1)]
        return F.reshape(picked, indices.shape)


def _avg_divisor(size, out, kernel, stride, padding, count_include_pad, override) -> np.ndarray:
    """(Ho, Wo) divisors: window area clipped to the padded input, or to the input itself."""
    if override is not None:
        return np.full(out, float(override))
    lengths = []
    for n, o, k, s, p in zip(size, out, kernel, stride, padding):
        start = np.arange(o) * s - p
        end = np.minimum(start + k, n + p)
        if count_include_pad:
            lengths.append(end - start)
        else:
            lengths.append(np.minimum(end, n) - np.maximum(start, 0))
    return np.multiply.outer(lengths[0], lengths[1]).astype(np.float64)


class AvgPool2DBackward0(Op):
    """out = mean of each window (zero padding counted or not, or a fixed divisor)."""

    # Saved as PyTorch saves it (its backward node takes the input): in-place changes to the
    # input are caught, and under create_graph the gradient depends on it.
    saved_inputs = (0,)
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
        x,
        kernel_size,
        stride,
        padding,
        ceil_mode,
        count_include_pad,
        divisor_override,
        out_size,
    ):
        out = out_size
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding
        self.ceil_mode, self.count_include_pad = ceil_mode, count_include_pad
        self.divisor_override, self._shape = divisor_override, x.shape
        self._divisor = _avg_divisor(
            x.shape[-2:], out, kernel_size, stride, padding, count_include_pad, divisor_override
        )
        planes = _padded_planes(x, padding, out, kernel_size, stride, (1, 1), 0)
        total = np.zeros((*x.shape[:-2], *out), np.float64 if x.dtype.kind != "f" else x.dtype)
        for i in range(kernel_size[0]):
            for j in range(kernel_size[1]):
                total += planes[_kernel_slices(i, j, out, stride, (1, 1))]
        if x.dtype.kind != "f":
            return np.trunc(total / self._divisor).astype(x.dtype)
        return total / self._divisor.astype(x.dtype)

    def backward(self, F, grad):
        return AvgPool2DBackwardBackward0.call(grad, **self._params())

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


class AvgPool2DBackwardBackward0(Op):
    """grad_input = avg_pool2d's backward: each output gradient spread evenly over its window.
    Linear in the gradient; its own gradient is avg_pool2d again."""

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
        grad,
        shape,
        kernel_size,
        stride,
        padding,
        ceil_mode,
        count_include_pad,
        divisor_override,
        divisor,
    ):
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding
        self.ceil_mode, self.count_include_pad = ceil_mode, count_include_pad
        self.divisor_override = divisor_override
        out = self._out = grad.shape[-2:]
        h, w = shape[-2:]
        spread = grad / divisor.astype(grad.dtype)
        full = _padded_size((h, w), padding, out, kernel_size, stride, (1, 1))
        buf = np.zeros((*shape[:-2], *full), grad.dtype)
        for i in range(kernel_size[0]):
            for j in range(kernel_size[1]):
                buf[_kernel_slices(i, j, out, stride, (1, 1))] += spread
        return buf[..., padding[0] : padding[0] + h, padding[1] : padding[1] + w]

    def backward(self, F, grad):
        return AvgPool2DBackward0.apply(
            grad,
            kernel_size=self.kernel_size,
            stride=self.stride,
            padding=self.padding,
            ceil_mode=self.ceil_mode,
            count_include_pad=self.count_include_pad,
            divisor_override=self.divisor_override,
            out_size=self._out,
        )


def _pool_params(
    op: str,
    input: Tensor,
    kernel_size,
    stride,
    padding,
    dilation,
    ceil_mode,
    half_of_effective: bool,
) -> tuple:
    check_tensor(input, op)
    x = input._data
    kernel = _tuple_arg(kernel_size, 2, "kernel_size", op)
    stride = (
        kernel
        if stride is None or (isinstance(stride, Sequence) and not stride)
        else (_tuple_arg(stride, 2, "stride", op))
    )
    padding = _tuple_arg(padding, 2, "padding", op)
    dilation = _tuple_arg(dilation, 2, "dilation", op)
    if any(k <= 0 for k in kernel):
        raise RuntimeError(
            f"{op}(): kernel size should be greater than zero, but got kH: {kernel[0]} kW: "
            f"{kernel[1]}"
        )
    if any(s <= 0 for s in stride):
        raise RuntimeError(f"{op}(): stride should not be zero, got stride={list(stride)}")
    if any(d <= 0 for d in dilation):
        raise RuntimeError(
            f"{op}(): dilation should be greater than zero, but got dilationH: {dilation[0]} "
            f"dilationW: {dilation[1]}"
        )
    if x.ndim not in (3, 4) or 0 in x.shape[-3:]:
        raise RuntimeError(
            f"{op}(): non-empty 3D or 4D (batch mode) tensor expected for input, but got input "
            f"of size {list(x.shape)}"
        )
    for p, k, d in zip(padding, kernel, dilation):
        limit = (d * (k - 1) + 1) // 2 if half_of_effective else k // 2
        if p < 0 or p > limit:
            raise RuntimeError(
                f"{op}(): pad should be at most half of effective kernel size, but got pad={p}, "
                f"kernel_size={k} and dilation={d}"
            )
    out = tuple(
        _pool_out_size(s, k, p, st, d, bool(ceil_mode))
        for s, k, p, st, d in zip(x.shape[-2:], kernel, padding, stride, dilation)
    )
    if any(o < 1 for o in out):
        size = "x".join(str(s) for s in x.shape[-3:])
        raise RuntimeError(
            f"{op}(): Given input size: ({size}). Calculated output size: "
            f"({x.shape[-3]}x{out[0]}x{out[1]}). Output size is too small"
        )
    return kernel, stride, padding, dilation, out


def max_pool2d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Any:
    """2-d max pooling over (N, C, H, W) or (C, H, W); padding is -inf (never chosen).

    ``out[n, c, y, x] = max_{i,j} input_padded[n, c, y*stride + i*dilation, x*stride +
    j*dilation]``; ``stride`` defaults to ``kernel_size``. With ``return_indices`` also returns
    the flat ``h*W + w`` index of each maximum in its input plane (ties: the first one).

    Example::

        >>> x = glassgrad.arange(16.0).reshape(1, 1, 4, 4)
        >>> glassgrad.nn.functional.max_pool2d(x, 2)
        tensor([[[[ 5.,  7.],
                  [13., 15.]]]])
    """
    op = "max_pool2d"
    kernel, stride, padding, dilation, out = _pool_params(
        op, input, kernel_size, stride, padding, dilation, ceil_mode, True
    )
    if input._data.dtype == np.bool_:
        raise NotImplementedError(f"\"{op}\" not implemented for 'Bool'")
    return MaxPool2DWithIndicesBackward0.apply(
        input,
        kernel_size=kernel,
        stride=stride,
        padding=padding,
        dilation=dilation,
        ceil_mode=bool(ceil_mode),
        out_size=out,
        indices=bool(return_indices),
    )


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
    op = "avg_pool2d"
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError(f"{op}(): divisor must be not zero")
    kernel, stride, padding, _, out = _pool_params(
        op, input, kernel_size, stride, padding, 1, ceil_mode, False
    )
    return AvgPool2DBackward0.apply(
        input,
        kernel_size=kernel,
        stride=stride,
        padding=padding,
        ceil_mode=bool(ceil_mode),
        count_include_pad=bool(count_include_pad),
        divisor_override=divisor_override,
        out_size=out,
    )


def _adaptive_matrix(size: int, out: int, dtype: np.dtype) -> np.ndarray:
    """(out, size) averaging matrix: row i averages [floor(i*size/out), ceil((i+1)*size/out))."""
    i = np.arange(out)
    start = (i * size) // out
    end = -((-(i + 1) * size) // out)
    cols = np.arange(size)
    inside = (cols[None, :] >= start[:, None]) & (cols[None, :] < end[:, None])
    return (inside / (end - start)[:, None]).astype(dtype)


class AdaptiveAvgPool2DBackward0(Op):
    """out = A_h @ input @ A_w^T, A the averaging matrices of the adaptive windows."""

    # Saved as PyTorch saves it (its backward node takes the input): in-place changes to the
    # input are caught, and under create_graph the gradient depends on it.
    saved_inputs = (0,)
    grad_reads_saved = True
    __slots__ = ("_rows", "_cols")

    def forward(self, x, output_size):
        dtype = x.dtype if x.dtype.kind == "f" else np.float64
        self._rows = _adaptive_matrix(x.shape[-2], output_size[0], dtype)
        self._cols = _adaptive_matrix(x.shape[-1], output_size[1], dtype)
        return np.matmul(np.matmul(self._rows, x), self._cols.T).astype(x.dtype, copy=False)

    def backward(self, F, grad):
        rows_t, cols = np.ascontiguousarray(self._rows.T), self._cols
        if isinstance(grad, Tensor):
            rows_t, cols = Tensor._from_array(rows_t), Tensor._from_array(cols)
        return F.matmul(F.matmul(rows_t, grad), cols)


def adaptive_avg_pool2d(input: Tensor, output_size: Any) -> Tensor:
    """2-d average pooling to a fixed ``output_size`` (an int, a pair; ``None`` keeps that
    input size): output cell ``i`` averages input rows ``floor(i*H/Ho)`` to
    ``ceil((i+1)*H/Ho) - 1``, and likewise for columns.

    Example::

        >>> x = glassgrad.arange(16.0).reshape(1, 1, 4, 4)
        >>> glassgrad.nn.functional.adaptive_avg_pool2d(x, 1)
        tensor([[[[7.5000]]]])
    """
    op = "adaptive_avg_pool2d"
    check_tensor(input, op)
    x = input._data
    if x.ndim not in (3, 4):
        raise RuntimeError(f"{op}(): Expected 3D or 4D tensor, but got {list(x.shape)}")
    for d in range(x.ndim - 3, x.ndim):
        if x.shape[d] == 0:
            raise RuntimeError(
                f"{op}(): Expected input to have non-zero size for non-batch dimensions, but "
                f"input has sizes {list(x.shape)} with dimension {d} being empty"
            )
    if isinstance(output_size, (int, np.integer)) or output_size is None:
        output_size = (output_size, output_size)
    output_size = tuple(output_size)
    if len(output_size) != 2:
        raise RuntimeError(f"{op}(): output_size must be 2, got {list(output_size)}")
    size = tuple(x.shape[-2 + i] if s is None else int(s) for i, s in enumerate(output_size))
    if any(s < 0 for s in size):
        raise RuntimeError(
            f"{op}(): elements of output_size must be greater than or equal to 0 but received "
            f"{list(size)}"
        )
    if size == (1, 1):
        # PyTorch computes a global average as a mean (grad_fn MeanBackward1).
        return reduction.mean(input, (-2, -1), keepdim=True)
    return AdaptiveAvgPool2DBackward0.apply(input, output_size=size)


# --- registry ---------------------------------------------------------------------------


def _max_pool2d_samples(rng: np.random.Generator) -> list[Sample]:
    return [
        Sample((randn(rng, 2, 3, 6, 6), 2)),
        Sample((randn(rng, 2, 2, 7, 6), 3), {"stride": 2, "padding": 1}),
        Sample((randn(rng, 1, 2, 7, 7), (3, 2)), {"stride": 1, "dilation": (2, 1)}),
        Sample((randn(rng, 1, 2, 5, 5), 2), {"ceil_mode": True}),
        Sample((randn(rng, 3, 5, 6), 2), {"stride": 1, "padding": 1}, note="unbatched"),
        Sample(
            (np.array([[[[1.0, 3.0, 3.0], [0.0, 3.0, 2.0]]]]), (2, 2), 1),
            fd=False,
            note="ties: the first maximum in the window gets the gradient",
        ),
    ]


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


def _adaptive_samples(rng: np.random.Generator) -> list[Sample]:
    return [
        Sample((randn(rng, 2, 3, 7, 5), (3, 2))),
        Sample((randn(rng, 2, 3, 4, 4), 6), note="larger than input"),
        Sample((randn(rng, 2, 5, 6), (None, 4)), note="unbatched, None keeps H"),
        Sample((randn(rng, 2, 3, 4, 4), 1), note="global average"),
    ]


_NF = "nn.functional"
register(
    "max_pool2d",
    max_pool2d,
    nodes=(MaxPool2DWithIndicesBackward0, MaxPool2DWithIndicesBackwardBackward0),
    samples=_max_pool2d_samples,
    namespace=_NF,
)
register(
    "avg_pool2d",
    avg_pool2d,
    nodes=(AvgPool2DBackward0, AvgPool2DBackwardBackward0),
    samples=_avg_pool2d_samples,
    namespace=_NF,
)
register(
    "adaptive_avg_pool2d",
    adaptive_avg_pool2d,
    nodes=(AdaptiveAvgPool2DBackward0,),
    samples=_adaptive_samples,
    namespace=_NF,
)

__all__ = ["max_pool2d", "avg_pool2d", "adaptive_avg_pool2d"]
