"""Adaptive pooling: ``adaptive_avg_pool1d/2d/3d adaptive_max_pool1d/2d/3d`` (public in
``glassgrad.nn.functional``).

Output cell ``i`` of an axis of size ``n`` pooled to ``m`` covers input positions
``floor(i*n/m)`` to ``ceil((i+1)*n/m) - 1`` (windows may overlap). Average pooling is one
gather per axis and its backward one scatter (``_axis_taps``); max pooling gathers every
window, padded to the largest by repeating its last element, and picks PyTorch's element: the
first maximum in row-major order, or the last NaN. The 1-d ops are, as in PyTorch, the 2-d
ones on a unit height.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from .._dtype import scalar_type_name
from .._strides import row_major
from .._tensor import Tensor
from ..autograd.op import Op
from . import reduction
from . import shape as shape_ops
from ._axis_taps import apply_taps, apply_taps_adjoint
from ._common import check_tensor, input_zeros, remember
from ._pool_geometry import _as_2d, _element_strides, _single, gather_flat
from ._registry import Sample, register
from ._samples import randn

# --- windows -------------------------------------------------------------------------------


def _bounds(size: int, out: int) -> tuple:
    """First and one-past-last input position of each of the ``out`` adaptive windows."""
    i = np.arange(out)
    return (i * size) // out, -((-(i + 1) * size) // out)


@functools.lru_cache(maxsize=32)
def _adaptive_taps(size: int, out: int, dtype: np.dtype) -> tuple:
    """One axis's adaptive windows as taps (``_axis_taps``): row i reads its window, each
    element with weight 1 / its length; shorter windows end in -1 (no tap). Cached per
    geometry, read-only."""
    start, end = _bounds(size, out)
    positions = start[:, None] + np.arange(int((end - start).max(initial=0)))
    index = np.where(positions < end[:, None], positions, -1)
    index.flags.writeable = False
    return index, np.broadcast_to((1 / (end - start)).astype(dtype)[:, None], index.shape)


class AdaptiveAvgPool2DBackward0(Op):
    """out = the input averaged over each adaptive window, axis by axis (``_axis_taps``)."""

    # Saved as PyTorch saves it (its backward node takes the input): in-place changes to the
    # input are caught, and under create_graph the gradient depends on it.
    saved_inputs: tuple[int, ...] = (0,)
    grad_reads_saved = True
    __slots__ = ("_taps", "_sizes")

    @row_major
    def forward(self, x: Any, output_size: Any) -> Any:
        nd = len(output_size)
        self._sizes = x.shape[-nd:]
        self._taps = [_adaptive_taps(n, o, x.dtype) for n, o in zip(self._sizes, output_size)]
        return apply_taps(x, self._taps)

    def backward(self, F: Any, grad: Any) -> Any:
        double = _AVG_DOUBLE_BACKWARD[type(self)]
        (x,) = self.saved
        return double.call(grad, x, taps=self._taps, sizes=self._sizes)


class AdaptiveAvgPool3DBackward0(AdaptiveAvgPool2DBackward0):
    """``adaptive_avg_pool3d``: as ``AdaptiveAvgPool2DBackward0`` over (T, H, W) volumes."""

    __slots__ = ()


class AdaptiveAvgPool2DBackwardBackward0(Op):
    """grad_input = each window's gradient spread evenly over it (so a NaN reaches only its
    window, as in PyTorch's loop); its own gradient is the pooling again, and zeros for the
    input (taken, as PyTorch's node takes it, for an edge only)."""

    __slots__ = ("_taps",)

    def forward(self, grad: Any, x: Any, taps: Any, sizes: Any) -> Any:
        self._taps = taps
        return apply_taps_adjoint(grad, taps, sizes)

    def backward(self, F: Any, grad: Any) -> Any:
        forward = _AVG_FORWARD[type(self)]
        size = tuple(len(index) for index, _ in self._taps)
        return forward.call(grad, output_size=size), input_zeros(F, self, 1)


class AdaptiveAvgPool3DBackwardBackward0(AdaptiveAvgPool2DBackwardBackward0):
    """``adaptive_avg_pool3d``'s backward as an op."""

    __slots__ = ()


_AVG_DOUBLE_BACKWARD = {
    AdaptiveAvgPool2DBackward0: AdaptiveAvgPool2DBackwardBackward0,
    AdaptiveAvgPool3DBackward0: AdaptiveAvgPool3DBackwardBackward0,
}
_AVG_FORWARD = {v: k for k, v in _AVG_DOUBLE_BACKWARD.items()}


_WINDOWS: dict = {}  # (size, out) -> the (*out, K) index of _gathered_windows (oldest first)


def _gathered_windows(x: np.ndarray, out: tuple) -> tuple:
    """Every adaptive window of ``x`` as (planes, *out, K) values and the (*out, K) flat
    spatial index of each of their elements; windows shorter than the longest repeat their
    last element (which changes neither the max nor which element PyTorch picks)."""
    nd = len(out)
    size = x.shape[-nd:]
    index = _WINDOWS.get((size, out))
    if index is None:
        index = remember(_WINDOWS, (size, out), _window_index(size, out), 8)
    planes = x.reshape(-1, math.prod(size))
    return planes[:, index], index


def _window_index(size: tuple, out: tuple) -> np.ndarray:
    nd = len(out)
    flat = 0
    for axis, (n, o, e) in enumerate(zip(size, out, _element_strides(size))):
        start, end = _bounds(n, o)
        k = int((end - start).max())
        positions = np.minimum(start[:, None] + np.arange(k), end[:, None] - 1) * e
        shape = [1] * (2 * nd)
        shape[2 * axis], shape[2 * axis + 1] = o, k
        flat = flat + positions.reshape(shape)
    # (o0, k0, o1, k1, ...) -> (o0, o1, ..., k0, k1, ...) -> (*out, K)
    order = [*range(0, 2 * nd, 2), *range(1, 2 * nd, 2)]
    return np.ascontiguousarray(flat.transpose(order)).reshape(*out, -1)


def _window_max(x: np.ndarray, out: tuple) -> tuple:
    """Each window's max and the flat spatial index of PyTorch's pick of it."""
    values, index = _gathered_windows(x, out)
    count = values.shape[-1]
    choice = np.argmax(values, axis=-1)  # the first maximum (or the first NaN)
    rows = np.arange(0, values.size, count).reshape(choice.shape)
    best = values.reshape(-1).take(choice + rows)
    if values.dtype.kind == "f" and np.isnan(best).any():
        # PyTorch's loop keeps the last NaN of a window (argmax found its first NaN)
        nan = np.isnan(values)
        last = count - 1 - np.argmax(nan[..., ::-1], axis=-1)
        choice = np.where(nan.any(axis=-1), last, choice)
        best = values.reshape(-1).take(choice + rows)
    picked = index.reshape(-1).take(choice + rows % index.size)
    lead = x.shape[: -len(out)]
    return best.reshape(*lead, *out), picked.reshape(*lead, *out).astype(np.int64)


def _scatter_flat(grad: np.ndarray, indices: np.ndarray, shape: tuple, nd: int) -> np.ndarray:
    """Each gradient added at its flat spatial index of its plane (windows may overlap)."""
    volume = math.prod(shape[-nd:])
    planes = math.prod(shape[:-nd])
    targets = indices.reshape(planes, -1) + (np.arange(planes) * volume)[:, None]
    total = np.bincount(targets.reshape(-1), grad.reshape(-1), minlength=planes * volume)
    return total.astype(grad.dtype, copy=False).reshape(shape)


class AdaptiveMaxPool2DBackward0(Op):
    """out, indices = the max of each adaptive window and where it is; the gradient goes to
    that element."""

    result1: np.ndarray

    # PyTorch's backward takes the input and the indices (result1).
    saved_inputs: tuple[int, ...] = (0,)
    grad_reads_saved = True
    nondiff_outputs: tuple[int, ...] = (1,)
    saved_outputs: tuple[int, ...] = (1,)  # the indices, when returned: PyTorch saves them
    __slots__ = ("result1", "_shape")

    def forward(self, x: Any, output_size: Any, indices: Any) -> Any:
        self._shape = x.shape
        values, self.result1 = _window_max(x, output_size)
        return (values, self.result1) if indices else values

    def backward(self, F: Any, grads: Any) -> Any:
        grad = grads[0] if type(grads) is tuple else grads
        double = _DOUBLE_BACKWARD[type(self)]
        x = self.saved[0]
        return double.call(grad, x, indices=self.result1, shape=self._shape)


class AdaptiveMaxPool3DBackward0(AdaptiveMaxPool2DBackward0):
    """``adaptive_max_pool3d``: as ``AdaptiveMaxPool2DBackward0`` over (T, H, W) volumes."""

    __slots__ = ()


class AdaptiveMaxPool2DBackwardBackward0(Op):
    """grad_input = adaptive max pooling's backward (each gradient added at its window's
    maximum); its own gradient gathers from those places, and is zeros for the input
    (taken, as PyTorch's node takes it, for an edge only)."""

    __slots__ = ("_indices",)

    def forward(self, grad: Any, x: Any, indices: Any, shape: Any) -> Any:
        self._indices = indices
        return _scatter_flat(grad, indices, shape, _spatial_dims(type(self)))

    def backward(self, F: Any, grad: Any) -> Any:
        nd = _spatial_dims(type(self))
        return gather_flat(F, grad, self._indices, nd), input_zeros(F, self, 1)


class AdaptiveMaxPool3DBackwardBackward0(AdaptiveMaxPool2DBackwardBackward0):
    """``adaptive_max_pool3d``'s backward as an op."""

    __slots__ = ()


_DOUBLE_BACKWARD = {
    AdaptiveMaxPool2DBackward0: AdaptiveMaxPool2DBackwardBackward0,
    AdaptiveMaxPool3DBackward0: AdaptiveMaxPool3DBackwardBackward0,
}


def _spatial_dims(node: type) -> int:
    return 3 if node is AdaptiveMaxPool3DBackwardBackward0 else 2


# --- public functions ---------------------------------------------------------------------


def _adaptive_params(op: str, input: Tensor, nd: int, output_size: Any) -> tuple:
    """Checked input and the output size (``None`` entries keep the input's size)."""
    check_tensor(input, op)
    x = input._data
    if x.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(
            f"{op}(): Expected {nd + 1}D or {nd + 2}D tensor, but got {list(x.shape)}"
        )
    for d in range(x.ndim - nd - 1, x.ndim):
        if x.shape[d] == 0:
            raise RuntimeError(
                f"{op}(): Expected input to have non-zero size for non-batch dimensions, but "
                f"input has sizes {list(x.shape)} with dimension {d} being empty"
            )
    if x.dtype.kind != "f":  # PyTorch's kernel: 1-d pools run the 2-d one
        kernel = f"{op[:-2]}{nd}d" + ("_cpu" if nd == 3 else "")
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{scalar_type_name(x.dtype)}'")
    if isinstance(output_size, (int, np.integer)) or output_size is None:
        output_size = (output_size,) * nd
    output_size = tuple(output_size)
    if len(output_size) != nd:
        raise RuntimeError(f"{op}(): output_size must be {nd}, got {list(output_size)}")
    size = tuple(x.shape[i - nd] if s is None else int(s) for i, s in enumerate(output_size))
    if any(s < 0 for s in size):
        raise RuntimeError(
            f"{op}(): elements of output_size must be greater than or equal to 0 but received "
            f"{list(size)}"
        )
    return size


def _adaptive_avg(op: str, nd: int, input: Tensor, output_size: Any) -> Tensor:
    size = _adaptive_params(op, input, nd, output_size)
    if all(s == 1 for s in size):
        # PyTorch computes a global average as a mean (grad_fn MeanBackward1).
        return reduction.mean(input, tuple(range(-nd, 0)), keepdim=True)
    node = AdaptiveAvgPool3DBackward0 if nd == 3 else AdaptiveAvgPool2DBackward0
    return node.apply(input, output_size=size)


def _adaptive_max(op: str, nd: int, input: Tensor, output_size: Any, return_indices: bool):
    size = _adaptive_params(op, input, nd, output_size)
    node = AdaptiveMaxPool3DBackward0 if nd == 3 else AdaptiveMaxPool2DBackward0
    return node.apply(input, output_size=size, indices=bool(return_indices))


def adaptive_avg_pool1d(input: Tensor, output_size: Any) -> Tensor:
    """1-d average pooling of (N, C, L) or (C, L) to ``output_size`` positions: position ``i``
    averages ``floor(i*L/Lo)`` to ``ceil((i+1)*L/Lo) - 1``.

    Example::

        >>> x = glassgrad.tensor([[[1.0, 2.0, 3.0, 4.0, 5.0]]])
        >>> glassgrad.nn.functional.adaptive_avg_pool1d(x, 2)
        tensor([[[2., 4.]]])
    """
    op = "adaptive_avg_pool1d"
    size = _single(output_size, "output_size", op)
    _check_1d(input, op)
    return shape_ops.squeeze(_adaptive_avg(op, 2, _as_2d(input, op), (1, *size)), -2)


def adaptive_avg_pool2d(input: Tensor, output_size: Any) -> Tensor:
    """2-d average pooling to a fixed ``output_size`` (an int, a pair; ``None`` keeps that
    input size): output cell ``i`` averages input rows ``floor(i*H/Ho)`` to
    ``ceil((i+1)*H/Ho) - 1``, and likewise for columns.

    Example::

        >>> x = glassgrad.arange(16.0).reshape(1, 1, 4, 4)
        >>> glassgrad.nn.functional.adaptive_avg_pool2d(x, 1)
        tensor([[[[7.5000]]]])
    """
    return _adaptive_avg("adaptive_avg_pool2d", 2, input, output_size)


def adaptive_avg_pool3d(input: Tensor, output_size: Any) -> Tensor:
    """3-d average pooling of (N, C, T, H, W) or (C, T, H, W) to a fixed ``output_size``, as
    ``adaptive_avg_pool2d`` with one more axis.

    Example::

        >>> x = glassgrad.arange(8.0).reshape(1, 1, 2, 2, 2)
        >>> glassgrad.nn.functional.adaptive_avg_pool3d(x, (1, 1, 2))
        tensor([[[[[3., 4.]]]]])
    """
    return _adaptive_avg("adaptive_avg_pool3d", 3, input, output_size)


def _check_1d(input: Tensor, op: str) -> None:
    check_tensor(input, op)
    if input._data.ndim not in (2, 3):
        raise RuntimeError(
            f"Expected 2 to 3 dimensions, but got {input._data.ndim}-dimensional tensor for "
            f"argument #1 'self' (while checking arguments for {op})"
        )


def adaptive_max_pool1d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    """1-d max pooling of (N, C, L) or (C, L) to ``output_size`` positions (windows as in
    ``adaptive_avg_pool1d``); with ``return_indices`` also the position of each maximum.

    Example::

        >>> x = glassgrad.tensor([[[1.0, 5.0, 3.0, 4.0, 2.0]]])
        >>> glassgrad.nn.functional.adaptive_max_pool1d(x, 2)
        tensor([[[5., 4.]]])
    """
    op = "adaptive_max_pool1d"
    size = _single(output_size, "output_size", op)
    _check_1d(input, op)
    result = _adaptive_max(op, 2, _as_2d(input, op), (1, *size), return_indices)
    if return_indices:
        return tuple(shape_ops.squeeze(r, -2) for r in result)
    return shape_ops.squeeze(result, -2)


def adaptive_max_pool2d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    """2-d max pooling of (N, C, H, W) or (C, H, W) to a fixed ``output_size`` (windows as in
    ``adaptive_avg_pool2d``); with ``return_indices`` also the flat ``h*W + w`` index of each
    maximum (ties: the first; a NaN wins).

    Example::

        >>> x = glassgrad.arange(16.0).reshape(1, 1, 4, 4)
        >>> glassgrad.nn.functional.adaptive_max_pool2d(x, 1)
        tensor([[[[15.]]]])
    """
    return _adaptive_max("adaptive_max_pool2d", 2, input, output_size, return_indices)


def adaptive_max_pool3d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    """3-d max pooling of (N, C, T, H, W) or (C, T, H, W) to a fixed ``output_size``, as
    ``adaptive_max_pool2d`` with one more axis.

    Example::

        >>> x = glassgrad.arange(8.0).reshape(1, 1, 2, 2, 2)
        >>> glassgrad.nn.functional.adaptive_max_pool3d(x, 1)
        tensor([[[[[7.]]]]])
    """
    return _adaptive_max("adaptive_max_pool3d", 3, input, output_size, return_indices)


def _with_indices(pool: Any) -> Any:
    """PyTorch's ``adaptive_max_poolNd_with_indices``: always (values, indices)."""

    def with_indices(input: Tensor, output_size: Any, return_indices: bool = False) -> tuple:
        return pool(input, output_size, True)

    with_indices.__name__ = with_indices.__qualname__ = f"{pool.__name__}_with_indices"
    with_indices.__doc__ = (
        f"``{pool.__name__}`` returning the values and the indices of the maxima."
    )
    return with_indices


adaptive_max_pool1d_with_indices: Callable[..., Any] = _with_indices(adaptive_max_pool1d)
adaptive_max_pool2d_with_indices: Callable[..., Any] = _with_indices(adaptive_max_pool2d)
adaptive_max_pool3d_with_indices: Callable[..., Any] = _with_indices(adaptive_max_pool3d)


# --- registry ---------------------------------------------------------------------------


def _avg_samples(nd: int) -> Any:
    def samples(rng: np.random.Generator) -> list[Sample]:
        spatial = {1: (7,), 2: (7, 5), 3: (5, 4, 6)}[nd]
        out = {1: 3, 2: (3, 2), 3: (3, 2, 4)}[nd]
        return [
            Sample((randn(rng, 2, 3, *spatial), out)),
            Sample((randn(rng, 2, *spatial), 6), note="unbatched, larger than input"),
            Sample((randn(rng, 2, 3, *spatial), 1), note="global average"),
            Sample((randn(rng, 1, 2, *spatial), (None,) * (nd - 1) + (2,)), note="None keeps"),
        ]

    return samples


def _max_samples(nd: int) -> Any:
    def samples(rng: np.random.Generator) -> list[Sample]:
        spatial = {1: (7,), 2: (7, 5), 3: (5, 4, 6)}[nd]
        out = {1: 3, 2: (3, 2), 3: (3, 2, 4)}[nd]
        return [
            Sample((randn(rng, 2, 3, *spatial), out)),
            Sample((randn(rng, 2, *spatial), 6), {"return_indices": True}, note="unbatched"),
            Sample((randn(rng, 2, 3, *spatial), 1)),
        ]

    return samples


_NF = "nn.functional"
_AVG = {2: (AdaptiveAvgPool2DBackward0,), 3: (AdaptiveAvgPool3DBackward0,)}
_MAX = {
    2: (AdaptiveMaxPool2DBackward0, AdaptiveMaxPool2DBackwardBackward0),
    3: (AdaptiveMaxPool3DBackward0, AdaptiveMaxPool3DBackwardBackward0),
}
for _nd, _avg, _max, _max_indices in (
    (1, adaptive_avg_pool1d, adaptive_max_pool1d, adaptive_max_pool1d_with_indices),
    (2, adaptive_avg_pool2d, adaptive_max_pool2d, adaptive_max_pool2d_with_indices),
    (3, adaptive_avg_pool3d, adaptive_max_pool3d, adaptive_max_pool3d_with_indices),
):
    _nodes = max(_nd, 2)
    register(_avg.__name__, _avg, nodes=_AVG[_nodes], samples=_avg_samples(_nd), namespace=_NF)
    register(_max.__name__, _max, nodes=_MAX[_nodes], samples=_max_samples(_nd), namespace=_NF)
    register(_max_indices.__name__, _max_indices, nodes=_MAX[_nodes], namespace=_NF)

__all__ = [
    "adaptive_avg_pool1d",
    "adaptive_avg_pool2d",
    "adaptive_avg_pool3d",
    "adaptive_max_pool1d",
    "adaptive_max_pool2d",
    "adaptive_max_pool3d",
    "adaptive_max_pool1d_with_indices",
    "adaptive_max_pool2d_with_indices",
    "adaptive_max_pool3d_with_indices",
]
