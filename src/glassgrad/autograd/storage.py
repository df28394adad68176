"""Tensors as PyTorch lays them in a storage: sizes, strides and an offset, counted in
elements of a flat array. ``as_strided`` reads a storage this way, and so do the nodes that
send a view's gradient to its base (``CopySlices``, ``AsStridedBackward0``), as PyTorch's
do: with the base's and the view's geometry, not the ops the view was made with.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import graph

__all__ = [
    "Geometry",
    "as_strided_backward",
    "check_geometry",
    "geometry_of",
    "maybe_overlapping",
    "storage_size",
    "strided",
]

# (sizes, strides, storage offset), in elements.
Geometry = tuple[tuple[int, ...], tuple[int, ...], int]


def strided(flat: np.ndarray, shape: tuple, strides: tuple, offset: int) -> np.ndarray:
    """The view of the 1-D contiguous ``flat`` with ``shape``, ``strides`` and ``offset`` in
    elements (they fit in it: ``check_geometry``)."""
    item = flat.itemsize
    if 0 in shape:  # its offset may lie past the storage's end, which the constructor refuses
        return np.lib.stride_tricks.as_strided(
            flat[offset:], shape, tuple(s * item for s in strides)
        )
    # The constructor takes ~0.4 us where NumPy's as_strided wrapper takes ~6.
    return np.ndarray(shape, flat.dtype, flat, offset * item, tuple(s * item for s in strides))


def storage_size(size: tuple, stride: tuple, offset: int = 0) -> int:
    """The fewest elements a storage needs to hold a tensor of this geometry."""
    if 0 in size:
        return 0
    return offset + 1 + sum((n - 1) * s for n, s in zip(size, stride))


def check_geometry(size: tuple, stride: tuple, offset: int, storage: int, itemsize: int) -> None:
    """PyTorch's errors for a geometry that does not fit a storage of ``storage`` elements."""
    if len(stride) != len(size):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(s < 0 for s in stride):
        raise RuntimeError(
            f"as_strided: Negative strides are not supported at the moment, got strides: "
            f"{list(stride)}"
        )
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    if any(n < 0 for n in size):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(size)}: {size}")
    needed = storage_size(size, stride, offset)
    if needed > storage:
        raise RuntimeError(
            f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, "
            f"and itemsize {itemsize} requiring a storage size of {needed * itemsize} are out "
            f"of bounds for storage of size {storage * itemsize}"
        )


def geometry_of(view: np.ndarray, base: np.ndarray) -> Geometry | None:
    """``view``'s geometry in the storage of ``base``, its offset counted from ``base``'s first
    element (PyTorch's ``view.storage_offset() - base.storage_offset()``); None where elements
    cannot express it (another item size, a negative stride)."""
    item = base.itemsize
    start = view.__array_interface__["data"][0] - base.__array_interface__["data"][0]
    if view.itemsize != item or start % item or any(s % item or s < 0 for s in view.strides):
        return None
    return tuple(view.shape), tuple(s // item for s in view.strides), start // item


def maybe_overlapping(size: tuple, stride: tuple) -> bool:
    """PyTorch's ``_maybe_overlapping_memory``: whether two elements may share a location
    (a sufficient test: dims sorted by stride, each stride must pass the span of the rest)."""
    dims = sorted((s, n) for n, s in zip(size, stride) if n > 1)
    span = 0
    for s, n in dims:
        if s <= span:
            return True
        span += s * (n - 1)
    return False


def as_strided_backward(grad: Any, input: Geometry, output: Geometry) -> Any:
    """PyTorch's ``as_strided_backward``: ``grad`` (of the ``output`` geometry) scattered into a
    storage of zeros, summed where output elements share a location, divided where input
    elements do, read back with the ``input`` geometry; elements of the output outside the
    input are dropped. On a Tensor (create_graph), recorded with PyTorch's ops (``squeeze``,
    ``sum``, ``as_strided(...).copy_`` or ``index_add_``, ``div_``, ``as_strided``)."""
    (in_size, in_stride, in_offset), (out_size, out_stride, out_offset) = input, output
    Tensor = graph.Tensor
    tensor_path = isinstance(grad, Tensor)
    if 0 in out_size:
        zeros = np.zeros(in_size, grad.dtype if not tensor_path else grad._data.dtype)
        return Tensor._from_array(zeros) if tensor_path else zeros
    # The output's size-1 dims dropped and its broadcast (stride 0) dims summed.
    kept = []
    for i in reversed(range(len(out_size))):
        if out_size[i] == 1:
            grad = grad.squeeze(i) if tensor_path else grad.reshape(np.delete(grad.shape, i))
        elif out_stride[i] == 0:
            grad = grad.sum(i) if tensor_path else grad.sum(axis=i)
        else:
            kept.insert(0, i)
    out_size = tuple(out_size[i] for i in kept)
    out_stride = tuple(out_stride[i] for i in kept)
    in_kept = [i for i, n in enumerate(in_size) if n != 1]
    in_size_, in_stride_ = [in_size[i] for i in in_kept], [in_stride[i] for i in in_kept]
    shared = min(in_offset, out_offset)
    in_offset, out_offset = in_offset - shared, out_offset - shared
    size = max(
        storage_size(in_size_, in_stride_, in_offset),
        storage_size(out_size, out_stride, out_offset),
    )
    in_overlap = maybe_overlapping(in_size_, in_stride_)
    out_overlap = maybe_overlapping(out_size, out_stride)
    positions = np.arange(size)
    if not tensor_path:
        storage = np.zeros(size, np.result_type(grad))
        np.add.at(storage, strided(positions, out_size, out_stride, out_offset), grad)
        read = strided(positions, in_size, in_stride, in_offset)
        if in_overlap:  # (a count of 0 is never read: no 0 / 0 there)
            storage = storage / np.maximum(np.bincount(read.reshape(-1), minlength=size), 1)
        return np.asarray(storage[read])  # a fresh array (a 0-d one for a 0-d input)
    storage = Tensor._from_array(np.zeros(size, grad._data.dtype))
    if out_overlap:
        where = strided(positions, out_size, out_stride, out_offset).reshape(-1)
        storage.index_add_(0, Tensor._from_array(where), grad.reshape(-1))
    else:
        storage.as_strided(out_size, out_stride, out_offset).copy_(grad)
    if in_overlap:
        read = strided(positions, in_size, in_stride, in_offset).reshape(-1)
        counts = np.bincount(read, minlength=size).astype(grad._data.dtype)
        storage.div_(Tensor._from_array(counts))
    return storage.as_strided(in_size, in_stride, in_offset)
