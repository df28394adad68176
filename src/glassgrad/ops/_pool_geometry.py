"""Window geometry shared by the pooling ops (``nn_pool``, ``nn_pool_avg``, and adaptive
pooling's gathers): output sizes, kernel offsets as strided slices or flat offsets, padding,
argument checks, for any number of spatial dimensions (``len(kernel)``).
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from .._tensor import Tensor
from . import shape as shape_ops
from ._common import check_tensor, remember
from ._conv_kernels import _tuple_arg

# --- window geometry (any number of spatial dimensions: len(kernel)) ---------------------------


def _pool_out_size(size: int, k: int, pad: int, stride: int, dilation: int, ceil: bool) -> int:
    """PyTorch's pooling output size, including the ceil-mode rule that the last window must
    start inside the input or its left padding."""
    span = size + 2 * pad - dilation * (k - 1) - 1
    out = (span + (stride - 1 if ceil else 0)) // stride + 1
    if ceil and (out - 1) * stride >= size + pad:
        out -= 1
    return out


def _kernel_slices(offset: tuple, out: tuple, stride: tuple, dilation: tuple) -> tuple:
    """The (…, *out) strided slice of a padded volume seen by kernel offset ``offset``."""
    return (
        Ellipsis,
        *(
            slice(i * d, i * d + s * (o - 1) + 1, s)
            for i, o, s, d in zip(offset, out, stride, dilation)
        ),
    )


@functools.lru_cache(maxsize=64)
def _offset_slices(kernel: tuple, out: tuple, stride: tuple, dilation: tuple) -> tuple:
    """``_kernel_slices`` of every kernel offset, in row-major order (cached: a pooling call
    otherwise spends more building them than slicing with them on small inputs)."""
    return tuple(_kernel_slices(q, out, stride, dilation) for q in _kernel_positions(kernel))


def _kernel_positions(kernel: tuple) -> list[tuple]:
    """Every kernel offset, in row-major order (offset ``q`` is the ``q``-th of the list)."""
    return list(itertools.product(*(range(k) for k in kernel)))


def _padded_size(size: tuple, pad: tuple, out: tuple, kernel, stride, dilation) -> tuple:
    """Spatial sizes of a volume padded by ``pad`` before and enough after for every window
    (ceil mode's last window may hang over the end)."""
    return tuple(
        max((o - 1) * s + d * (k - 1) + 1, n + p)
        for n, p, o, k, s, d in zip(size, pad, out, kernel, stride, dilation)
    )


def _unpadded(pad: tuple, size: tuple) -> tuple:
    """The slice of a padded volume that holds the input itself."""
    return (Ellipsis, *(slice(p, p + n) for p, n in zip(pad, size)))


def _padded_planes(
    x: np.ndarray, pad: tuple, out: tuple, kernel, stride, dilation, fill
) -> np.ndarray:
    """``x`` (…, *spatial) with ``pad`` before and enough ``fill`` after for every window."""
    size = x.shape[-len(kernel) :]
    full = _padded_size(size, pad, out, kernel, stride, dilation)
    if not any(pad) and full == size:
        return x
    buf = np.full((*x.shape[: -len(kernel)], *full), fill, x.dtype)
    buf[_unpadded(pad, size)] = x
    return buf


def _axis_shape(values: np.ndarray, axis: int, nd: int) -> np.ndarray:
    """A vector shaped to broadcast along spatial ``axis`` of ``nd``."""
    return values.reshape([-1 if a == axis else 1 for a in range(nd)])


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
    if any(padding):
        return False
    return all(
        (o - 1) * s + d * (k - 1) + 1 <= n
        for n, o, k, s, d in zip(shape[-len(kernel) :], out, kernel, stride, dilation)
    )


def _element_strides(size: tuple) -> list[int]:
    """Flat distance between neighbours along each axis of a contiguous volume of ``size``."""
    return [math.prod(size[a + 1 :]) for a in range(len(size))]


def _window_starts(shape: tuple, stride: tuple, out: tuple) -> np.ndarray:
    """Flat index into the contiguous input of every window's first element, in output order
    (planes, then each spatial axis). Cached and shared: callers must not modify it (it stays
    writeable because ``take`` copies a read-only index array first, 5x slower)."""
    key = (shape, stride, out)
    starts = _STARTS.get(key)
    if starts is not None:
        return starts
    nd = len(out)
    size = shape[-nd:]
    starts = np.arange(math.prod(shape[:-nd]), dtype=np.intp) * math.prod(size)
    for o, s, e in zip(out, stride, _element_strides(size)):
        starts = starts[..., None] + np.arange(o, dtype=np.intp) * (s * e)
    starts = starts.reshape(-1)
    if starts.size <= _STARTS_CACHED_MAX:
        remember(_STARTS, key, starts, _STARTS_ENTRIES)
    return starts


def _kernel_offsets(size: tuple, kernel, dilation) -> list[int]:
    """Flat offset of kernel element ``q`` (row-major) from its window's first element."""
    steps = [d * e for d, e in zip(dilation, _element_strides(size))]
    return [sum(i * st for i, st in zip(q, steps)) for q in _kernel_positions(kernel)]


def _window_elements(shape: tuple, kernel, stride, dilation, out) -> np.ndarray:
    """Flat index into the contiguous volume ``shape`` of every window's every element, as a
    (windows, kernel elements) array: row ``w`` is window ``w`` (output order), column ``q``
    its ``q``-th kernel offset (row-major). Cached and shared with ``_window_starts``."""
    key = ("elements", shape, kernel, stride, dilation, out)
    index = _STARTS.get(key)
    if index is not None:
        return index
    offsets = np.array(_kernel_offsets(shape[-len(kernel) :], kernel, dilation), np.intp)
    index = _window_starts(shape, stride, out)[:, None] + offsets
    if index.size <= _STARTS_CACHED_MAX:
        remember(_STARTS, key, index, _STARTS_ENTRIES)
    return index


def gather_flat(F: Any, values: Any, indices: np.ndarray, nd: int) -> Any:
    """``values`` (…, *spatial) read at flat spatial ``indices`` (…, *out) of each plane
    (arrays or Tensors: the double backward of max pooling, plain and adaptive)."""
    planes = math.prod(indices.shape[:-nd])
    volume = math.prod(values.shape[-nd:])
    flat = F.reshape(values, (planes, volume))
    picked = flat[np.arange(planes)[:, None], indices.reshape(planes, -1)]
    return F.reshape(picked, indices.shape)


_AXES = {2: "HW", 3: "THW"}


def _pool_params(
    op: str,
    input: Tensor,
    nd: int,
    kernel_size,
    stride,
    padding,
    dilation,
    ceil_mode,
    half_of_effective: bool,
) -> tuple:
    check_tensor(input, op)
    x = input._data
    kernel = _tuple_arg(kernel_size, nd, "kernel_size", op)
    stride = (
        kernel
        if stride is None or (isinstance(stride, Sequence) and not stride)
        else (_tuple_arg(stride, nd, "stride", op))
    )
    padding = _tuple_arg(padding, nd, "padding", op)
    dilation = _tuple_arg(dilation, nd, "dilation", op)
    axes = _AXES[nd]
    if any(k <= 0 for k in kernel):
        sizes = " ".join(f"k{a}: {k}" for a, k in zip(axes, kernel))
        raise RuntimeError(f"{op}(): kernel size should be greater than zero, but got {sizes}")
    if any(s <= 0 for s in stride):
        raise RuntimeError(f"{op}(): stride should not be zero, got stride={list(stride)}")
    if any(d <= 0 for d in dilation):
        sizes = " ".join(f"dilation{a}: {d}" for a, d in zip(axes, dilation))
        raise RuntimeError(f"{op}(): dilation should be greater than zero, but got {sizes}")
    if x.ndim not in (nd + 1, nd + 2) or 0 in x.shape[-nd - 1 :]:
        raise RuntimeError(
            f"{op}(): non-empty {nd + 1}D or {nd + 2}D (batch mode) tensor expected for input, "
            f"but got input of size {list(x.shape)}"
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
        for s, k, p, st, d in zip(x.shape[-nd:], kernel, padding, stride, dilation)
    )
    if any(o < 1 for o in out):
        size = "x".join(str(s) for s in x.shape[-nd - 1 :])
        calculated = "x".join(str(s) for s in (x.shape[-nd - 1], *out))
        raise RuntimeError(
            f"{op}(): Given input size: ({size}). Calculated output size: ({calculated}). "
            "Output size is too small"
        )
    return kernel, stride, padding, dilation, out


def _single(value: Any, name: str, op: str) -> tuple:
    """A 1-d pooling argument (an int or a one-int sequence) as a one-tuple."""
    if isinstance(value, Sequence) and not isinstance(value, str):
        if len(value) != 1:
            raise RuntimeError(
                f"{op}() argument '{name}' should contain one int (got {len(value)})"
            )
        return (value[0],)
    return (value,)


def _as_2d(input: Tensor, op: str) -> Tensor:
    """A 1-d pooling input (N, C, L) or (C, L) with a unit height: (N, C, 1, L)."""
    check_tensor(input, op)
    if input._data.ndim not in (2, 3):
        raise RuntimeError(
            f"{op}(): Expected 2D or 3D (batch mode) tensor for input, but got input of size "
            f"{list(input._data.shape)}"
        )
    return shape_ops.unsqueeze(input, -2)
