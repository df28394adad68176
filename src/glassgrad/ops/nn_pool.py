"""Max pooling: ``max_pool1d/2d/3d`` and their ``_with_indices`` forms (public in
``glassgrad.nn.functional``).

The 2-d and 3-d ops share one N-d implementation; the 1-d ops are, as in PyTorch, the 2-d ones
on an input with a unit height (``unsqueeze``, pool, ``squeeze``: the same graph).

Windows are never materialised element by element: the max loops over the kernel offsets
only, each step one vectorised operation on a strided slice of the (padded) input planes, and
the gradient is one masked slice-add per offset. The backward is itself an op whose backward
gathers from the chosen elements, so ``create_graph=True`` gives second derivatives.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from .._dtype import scalar_type_name
from .._tensor import Tensor
from ..autograd.grad_mode import is_grad_enabled
from ..autograd.op import Op
from . import shape as shape_ops
from ._common import input_zeros, remember
from ._pool_geometry import (
    _as_2d,
    _axis_shape,
    _element_strides,
    _inside,
    _kernel_offsets,
    _offset_slices,
    _padded_planes,
    _padded_size,
    _pool_params,
    _single,
    _unpadded,
    _window_elements,
    _window_starts,
    gather_flat,
)
from ._registry import Sample, register
from ._samples import randn


def _lowest(dtype: np.dtype) -> Any:
    return -np.inf if dtype.kind == "f" else np.iinfo(dtype).min


def _offset_dtype(count: int) -> type:
    return np.int8 if count <= 127 else np.int32


# Below this many gathered elements (windows x kernel elements) a max pool gathers every
# window at once and reduces each row; above it, one vectorised step per kernel offset costs
# less than NumPy's row-by-row argmax.
_GATHER_ELEMENTS = 1 << 15


def _max_pool(x: np.ndarray, kernel, stride, padding, dilation, out) -> tuple:
    """The max of every window and, per output, the row-major kernel offset ``q`` it came from.

    PyTorch's choice: the first maximum in row-major window order; a NaN wins (the last NaN
    if several); padding never wins (a window of -inf picks its first real element).
    """
    inside = _inside(x.shape, kernel, stride, padding, dilation, out)
    gather = math.prod(x.shape[: -len(kernel)]) * math.prod(out) * math.prod(kernel)
    if gather <= _GATHER_ELEMENTS:
        planes = _padded_planes(x, padding, out, kernel, stride, dilation, _lowest(x.dtype))
        best, choice = _max_pool_gathered(planes, kernel, stride, dilation, out)
    else:
        if inside:
            best, choice = _max_pool_inside(x, kernel, stride, dilation, out)
            if x.dtype.kind != "f" or not np.isnan(best).any():
                return best, choice
        planes = _padded_planes(x, padding, out, kernel, stride, dilation, _lowest(x.dtype))
        best, choice = _max_pool_sliced(planes, kernel, stride, dilation, out)
    if planes is not x:
        # Only padding ties with an all -inf window; PyTorch then keeps the first real element.
        empty = best == _lowest(x.dtype)
        if empty.any():
            nd = len(kernel)
            first = 0
            for axis, (o, s, p, d, k) in enumerate(zip(out, stride, padding, dilation, kernel)):
                start = np.arange(o) * s - p
                first = first * k + _axis_shape(np.maximum(-(start // d), 0), axis, nd)
            np.copyto(choice, np.broadcast_to(first, choice.shape), where=empty, casting="unsafe")
    return best, choice


def _max_pool_gathered(planes: np.ndarray, kernel, stride, dilation, out) -> tuple:
    """``_max_pool`` of padded ``planes`` by one gather of every window's elements, a row
    (windows, kernel elements) each: the first maximum of a row is ``argmax``'s, the last NaN
    that of the reversed row."""
    nd = len(kernel)
    index = _window_elements(planes.shape, kernel, stride, dilation, out)
    windows = np.ascontiguousarray(planes).reshape(-1).take(index)
    count = index.shape[1]
    choice = windows.argmax(axis=1)
    best = windows.reshape(-1).take(choice + np.arange(0, windows.size, count))
    if planes.dtype.kind == "f" and np.isnan(best).any():
        nan = np.isnan(windows)
        last = (count - 1) - nan[:, ::-1].argmax(axis=1)
        choice = np.where(nan.any(axis=1), last, choice)
    shape = (*planes.shape[:-nd], *out)
    return best.reshape(shape), choice.astype(_offset_dtype(count)).reshape(shape)


def _max_pool_sliced(planes: np.ndarray, kernel, stride, dilation, out) -> tuple:
    """``_max_pool`` of padded ``planes``, one strided slice per kernel offset."""
    views = [planes[key] for key in _offset_slices(kernel, out, stride, dilation)]
    best = views[0].copy() if len(views) == 1 else np.maximum(views[0], views[1])
    for values in views[2:]:
        np.maximum(best, values, out=best)
    choice = np.full(best.shape, len(views) - 1, _offset_dtype(len(views)))
    for q in range(len(views) - 2, -1, -1):
        np.copyto(choice, q, where=views[q] == best)
    if planes.dtype.kind == "f" and np.isnan(best).any():
        for q, values in enumerate(views):
            np.copyto(choice, q, where=np.isnan(values))
    return best, choice


def _max_pool_inside(x: np.ndarray, kernel, stride, dilation, out) -> tuple:
    """``_max_pool`` when every window lies inside the input. The choice is the first strict
    maximum, as PyTorch's loop makes it; a NaN is left to the caller (``best`` shows it)."""
    nd = len(kernel)
    flat = np.ascontiguousarray(x).reshape(-1)
    starts = _window_starts(x.shape, stride, out)
    offsets = _kernel_offsets(x.shape[-nd:], kernel, dilation)
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
    shape = (*x.shape[:-nd], *out)
    return best.reshape(shape), choice.reshape(shape)


def _flat_indices(choice: np.ndarray, size: tuple, kernel, stride, padding, dilation) -> np.ndarray:
    """Kernel offsets as flat indices into each input volume of spatial ``size``
    (``return_indices``: ``h*W + w`` in 2-d, ``(t*H + h)*W + w`` in 3-d)."""
    nd = len(kernel)
    out = choice.shape[-nd:]
    table = _plane_indices(size, kernel, stride, padding, dilation, out)
    windows, count = table.shape
    rows = np.arange(0, windows * count, count)
    picked = table.reshape(-1).take(choice.reshape(-1, windows) + rows)
    return picked.reshape(choice.shape)


_PLANE_INDICES: dict = {}  # geometry -> (windows, kernel elements) table (oldest first)


def _plane_indices(size: tuple, kernel, stride, padding, dilation, out) -> np.ndarray:
    """The flat index in an input plane of spatial ``size`` of every window's (row, output
    order) every kernel element (column, row-major); padding gives indices nothing chooses."""
    key = (size, kernel, stride, padding, dilation, out)
    table = _PLANE_INDICES.get(key)
    if table is not None:
        return table
    nd = len(kernel)
    flat = np.zeros((1,) * (2 * nd), np.int64)
    for axis, (o, s, p, d, k, e) in enumerate(
        zip(out, stride, padding, dilation, kernel, _element_strides(size))
    ):
        along = (np.arange(o, dtype=np.int64) * s - p)[:, None] + np.arange(k) * d
        shape = [1] * (2 * nd)
        shape[axis], shape[nd + axis] = o, k
        flat = flat + along.reshape(shape) * e
    table = np.ascontiguousarray(np.broadcast_to(flat, (*out, *kernel))).reshape(
        math.prod(out), math.prod(kernel)
    )
    return remember(_PLANE_INDICES, key, table, 8)


@functools.lru_cache(maxsize=32)
def _kernel_offset_array(size: tuple, kernel: tuple, dilation: tuple) -> np.ndarray:
    """``_kernel_offsets`` as an index array (shared: callers must not modify it)."""
    return np.array(_kernel_offsets(size, kernel, dilation), np.intp)


def _max_pool_backward(grad, choice, shape, kernel, stride, padding, dilation) -> np.ndarray:
    """Each output gradient sent to its window's chosen element: one scatter into the padded
    volume. Where windows overlap, an element chosen by several windows sums their gradients
    in kernel-offset order (``add.at`` over the windows sorted by offset, stably)."""
    nd = len(kernel)
    out = grad.shape[-nd:]
    size = shape[-nd:]
    overlap = any(s < d * (k - 1) + 1 for k, s, d in zip(kernel, stride, dilation))
    full = _padded_size(size, padding, out, kernel, stride, dilation)
    padded = (*shape[:-nd], *full)
    offsets = _kernel_offset_array(full, kernel, dilation)
    chosen = choice.reshape(-1)
    targets = offsets.take(chosen)
    targets += _window_starts(padded, stride, out)
    # Only the chosen elements receive a gradient: a NaN gradient reaches no other one.
    buf = np.zeros(math.prod(padded), grad.dtype)
    if overlap:
        order = chosen.argsort(kind="stable")
        np.add.at(buf, targets.take(order), grad.reshape(-1).take(order))
    else:
        buf[targets] = grad.reshape(-1)
    buf = buf.reshape(padded)
    return buf if padded == tuple(shape) else buf[_unpadded(padding, size)]


class MaxPool2DWithIndicesBackward0(Op):
    """out = max of each window (and its flat indices, with ``return_indices``); the gradient
    goes to each window's chosen element."""

    ceil_mode: Any
    dilation: Any
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
        "dilation",
        "ceil_mode",
        "_choice",
        "_shape",
    )
    nondiff_outputs: tuple[int, ...] = (1,)
    saved_outputs: tuple[int, ...] = (1,)  # the indices, when returned: PyTorch saves them

    def forward(
        self,
        x: Any,
        kernel_size: Any,
        stride: Any,
        padding: Any,
        dilation: Any,
        ceil_mode: Any,
        out_size: Any,
        indices: Any,
    ) -> Any:
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
            self._shape[-len(self.kernel_size) :],
            self.kernel_size,
            self.stride,
            self.padding,
            self.dilation,
        )

    def backward(self, F: Any, grads: Any) -> Any:
        grad = grads[0] if type(grads) is tuple else grads
        geometry = (self.kernel_size, self.stride, self.padding, self.dilation)
        x = self.saved[0]
        return _DOUBLE_BACKWARD[type(self)].call(
            grad, x, shape=self._shape, choice=self._choice, geometry=geometry
        )


class MaxPool3DWithIndicesBackward0(MaxPool2DWithIndicesBackward0):
    """``max_pool3d``: as ``MaxPool2DWithIndicesBackward0`` over (T, H, W) volumes."""

    __slots__ = ()


class MaxPool2DWithIndicesBackwardBackward0(Op):
    """grad_input = max pooling's backward (the gradient placed at each window's maximum); its
    own gradient gathers from those places. It takes the input, as PyTorch's node does, for
    an edge only: its gradient there is zeros."""

    __slots__ = ("_choice", "_geometry", "_shape")

    def forward(self, grad: Any, x: Any, shape: Any, choice: Any, geometry: Any) -> Any:
        self._choice, self._geometry, self._shape = choice, geometry, shape
        return _max_pool_backward(grad, choice, shape, *geometry)

    def backward(self, F: Any, grad: Any) -> Any:
        kernel, stride, padding, dilation = self._geometry
        nd = len(kernel)
        size = self._shape[-nd:]
        indices = _flat_indices(self._choice, size, kernel, stride, padding, dilation)
        return gather_flat(F, grad, indices, nd), input_zeros(F, self, 1)


class MaxPool3DWithIndicesBackwardBackward0(MaxPool2DWithIndicesBackwardBackward0):
    """``max_pool3d``'s backward as an op (see ``MaxPool2DWithIndicesBackwardBackward0``)."""

    __slots__ = ()


_DOUBLE_BACKWARD: dict = {
    MaxPool2DWithIndicesBackward0: MaxPool2DWithIndicesBackwardBackward0,
    MaxPool3DWithIndicesBackward0: MaxPool3DWithIndicesBackwardBackward0,
}


def _max_pool_nd(
    op: str, nd: int, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices
) -> Any:
    kernel, stride, padding, dilation, out = _pool_params(
        op, input, nd, kernel_size, stride, padding, dilation, ceil_mode, True
    )
    if input._data.dtype == np.bool_ or input._data.dtype.kind == "c":
        raise NotImplementedError(
            f"\"{op}\" not implemented for '{scalar_type_name(input._data.dtype)}'"
        )
    node = MaxPool3DWithIndicesBackward0 if nd == 3 else MaxPool2DWithIndicesBackward0
    return node.apply(
        input,
        kernel_size=kernel,
        stride=stride,
        padding=padding,
        dilation=dilation,
        ceil_mode=bool(ceil_mode),
        out_size=out,
        indices=bool(return_indices),
    )


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
    return _max_pool_nd(
        "max_pool2d", 2, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices
    )


def max_pool3d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Any:
    """3-d max pooling over (N, C, T, H, W) or (C, T, H, W); as ``max_pool2d`` with one more
    spatial axis (indices are flat ``(t*H + h)*W + w`` positions in each input volume).

    Example::

        >>> x = glassgrad.arange(8.0).reshape(1, 1, 2, 2, 2)
        >>> glassgrad.nn.functional.max_pool3d(x, 2)
        tensor([[[[[7.]]]]])
    """
    return _max_pool_nd(
        "max_pool3d", 3, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices
    )


def max_pool1d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Any:
    """1-d max pooling over (N, C, L) or (C, L): ``max_pool2d`` on a unit height, as PyTorch.

    Example::

        >>> glassgrad.nn.functional.max_pool1d(glassgrad.tensor([[[1.0, 3.0, 2.0, 0.0]]]), 2)
        tensor([[[3., 2.]]])
    """
    op = "max_pool1d"
    kernel = (1, *_single(kernel_size, "kernel_size", op))
    stride = None if stride is None else (1, *_single(stride, "stride", op))
    padding = (0, *_single(padding, "padding", op))
    dilation = (1, *_single(dilation, "dilation", op))
    result = _max_pool_nd(
        op, 2, _as_2d(input, op), kernel, stride, padding, dilation, ceil_mode, return_indices
    )
    if return_indices:
        return tuple(shape_ops.squeeze(r, -2) for r in result)
    values = shape_ops.squeeze(result, -2)
    if input.requires_grad and is_grad_enabled():
        return values  # PyTorch's max_pool1d_with_indices: a view of max_pool2d's values
    # PyTorch's max_pool1d_impl: its own kernel's new tensor, not a view (so detach_ takes
    # it: fuzz seed 921162, lp_pool1d with p = inf)
    return Tensor._from_array(np.ascontiguousarray(values._data))


def _with_indices(pool: Any) -> Any:
    """PyTorch's ``max_poolNd_with_indices``: the pool, always returning (values, indices)."""

    def with_indices(
        input: Tensor,
        kernel_size: Any,
        stride: Any = None,
        padding: Any = 0,
        dilation: Any = 1,
        ceil_mode: bool = False,
        return_indices: bool = False,
    ) -> tuple:
        return pool(input, kernel_size, stride, padding, dilation, ceil_mode, True)

    with_indices.__name__ = with_indices.__qualname__ = f"{pool.__name__}_with_indices"
    with_indices.__doc__ = (
        f"``{pool.__name__}`` returning the values and the flat indices of the maxima "
        "(``return_indices`` is accepted and ignored by PyTorch too: always True)."
    )
    return with_indices


max_pool1d_with_indices: Callable[..., Any] = _with_indices(max_pool1d)
max_pool2d_with_indices: Callable[..., Any] = _with_indices(max_pool2d)
max_pool3d_with_indices: Callable[..., Any] = _with_indices(max_pool3d)


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


def _max_pool3d_samples(rng: np.random.Generator) -> list[Sample]:
    return [
        Sample((randn(rng, 2, 2, 4, 4, 4), 2)),
        Sample((randn(rng, 1, 2, 5, 4, 5), 3), {"stride": 2, "padding": 1}),
        Sample((randn(rng, 1, 1, 5, 5, 4), (3, 2, 2)), {"stride": 1, "dilation": (2, 1, 1)}),
        Sample((randn(rng, 2, 3, 5, 4), 2), {"ceil_mode": True}, note="unbatched"),
    ]


def _max_pool1d_samples(rng: np.random.Generator) -> list[Sample]:
    return [
        Sample((randn(rng, 2, 3, 8), 2)),
        Sample((randn(rng, 2, 2, 9), 3), {"stride": 2, "padding": 1}),
        Sample((randn(rng, 3, 7), (2,)), {"stride": 1, "dilation": 2, "ceil_mode": True}),
        Sample((randn(rng, 2, 3, 7), 3), {"return_indices": True}),
    ]


def _with_indices_samples(ndim: int) -> Any:
    def samples(rng: np.random.Generator) -> list[Sample]:
        return [Sample((randn(rng, 2, 3, *(5,) * ndim), 2), {"stride": 1})]

    return samples


_NF = "nn.functional"
_MAX2 = (MaxPool2DWithIndicesBackward0, MaxPool2DWithIndicesBackwardBackward0)
_MAX3 = (MaxPool3DWithIndicesBackward0, MaxPool3DWithIndicesBackwardBackward0)
register("max_pool1d", max_pool1d, nodes=_MAX2, samples=_max_pool1d_samples, namespace=_NF)
register("max_pool2d", max_pool2d, nodes=_MAX2, samples=_max_pool2d_samples, namespace=_NF)
register("max_pool3d", max_pool3d, nodes=_MAX3, samples=_max_pool3d_samples, namespace=_NF)
for _nd, _fn, _nodes in (
    (1, max_pool1d_with_indices, _MAX2),
    (2, max_pool2d_with_indices, _MAX2),
    (3, max_pool3d_with_indices, _MAX3),
):
    register(_fn.__name__, _fn, nodes=_nodes, samples=_with_indices_samples(_nd), namespace=_NF)

__all__ = [
    "max_pool1d",
    "max_pool2d",
    "max_pool3d",
    "max_pool1d_with_indices",
    "max_pool2d_with_indices",
    "max_pool3d_with_indices",
]
