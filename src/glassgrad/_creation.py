"""Factories beyond the basic ones: logspace, range, scalar_tensor, empty_strided,
tril_indices/triu_indices, unravel_index, and asarray/frombuffer (which share memory). None records a graph; each takes PyTorch's
factory arguments. (The signal windows are in ops/windows.py.)"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from . import _dtype
from ._factories import _created, _finish, _np_dtype, _out_dtype, _size, tensor
from ._layout import check_factory_options
from ._tensor import Tensor, check_device

__all__ = [
    "logspace",
    "range",
    "scalar_tensor",
    "empty_strided",
    "tril_indices",
    "triu_indices",
    "unravel_index",
    "asarray",
    "frombuffer",
]


def logspace(
    start: float,
    end: float,
    steps: int,
    base: float = 10.0,
    *,
    out: Any = None,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    pin_memory: bool = False,
    requires_grad: bool = False,
) -> Tensor:
    """``steps`` values from ``base ** start`` to ``base ** end``, evenly spaced in exponent.

    Example::

        >>> glassgrad.logspace(0, 2, 3)
        tensor([  1.,  10., 100.])
    """
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    values = np.power(float(base), np.linspace(float(start), float(end), steps))
    data = values.astype(_out_dtype(dtype, out))
    return _created("logspace", data, out, requires_grad, device, layout, pin_memory)


def range(
    start: float = 0,
    end: float | None = None,
    step: float = 1,
    *,
    out: Any = None,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    pin_memory: bool = False,
    requires_grad: bool = False,
) -> Tensor:
    """Values from ``start`` to ``end`` inclusive by ``step``, in the default float dtype
    (deprecated in PyTorch for ``arange``, which excludes ``end``).

    Example::

        >>> glassgrad.range(0, 2)
        tensor([0., 1., 2.])
    """
    warnings.warn(
        "torch.range is deprecated and will be removed in a future release because its "
        "behavior is inconsistent with Python's range builtin. Instead, use torch.arange, which "
        "produces values in [start, end).",
        UserWarning,
        stacklevel=2,
    )
    if end is None:
        start, end = 0, start
    if step == 0:
        raise RuntimeError("step must be nonzero")
    count = int(math.floor((float(end) - float(start)) / float(step))) + 1
    values = float(start) + np.arange(max(count, 0), dtype=np.float64) * float(step)
    data = values.astype(_out_dtype(dtype, out))
    return _created("range", data, out, requires_grad, device, layout, pin_memory)


def scalar_tensor(
    s: Any,
    *,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    pin_memory: bool = False,
    requires_grad: bool = False,
) -> Tensor:
    """A 0-d tensor of the number ``s`` (the default float dtype unless given).

    Example::

        >>> glassgrad.scalar_tensor(3)
        tensor(3.)
    """
    data = np.asarray(s, dtype=_np_dtype(dtype))
    return _created("scalar_tensor", data, None, requires_grad, device, layout, pin_memory)


def empty_strided(
    size: Sequence[int],
    stride: Sequence[int],
    *,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    pin_memory: bool = False,
    requires_grad: bool = False,
) -> Tensor:
    """An uninitialised (zero-filled here) tensor of ``size`` laid out with ``stride``.

    Example::

        >>> glassgrad.empty_strided((2, 3), (1, 2)).stride()
        (1, 2)
    """
    shape = _size(tuple(size))
    strides = tuple(int(s) for s in stride)
    if len(strides) != len(shape):
        raise RuntimeError(
            f"mismatch in length of strides and shape (got {len(strides)} strides for "
            f"{len(shape)} dims)"
        )
    check_factory_options("empty_strided", layout, pin_memory)
    if device is not None:
        check_device(device)
    dt = _np_dtype(dtype)
    extent = 1 + sum((n - 1) * s for n, s in zip(shape, strides)) if all(shape) else 0
    buffer = np.zeros(max(extent, 0), dt)
    data = np.lib.stride_tricks.as_strided(buffer, shape, tuple(s * dt.itemsize for s in strides))
    t = Tensor._from_array(data)
    return t.requires_grad_() if requires_grad else t


def empty_permuted(
    size: Sequence[int],
    physical_layout: Sequence[int],
    *,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    """An uninitialised (zero-filled here) tensor of ``size`` whose dims lie in memory in the
    order ``physical_layout`` (outermost first): ``empty_permuted((2, 3, 4), (2, 0, 1))`` has
    dim 1 innermost, the layout of ``empty(4, 2, 3).permute(1, 2, 0)``.

    Example::

        >>> glassgrad.empty_permuted((2, 3, 4), (2, 0, 1)).stride()
        (3, 1, 6)
    """
    shape = _size(tuple(size))
    order = [int(d) for d in physical_layout]
    if len(order) != len(shape):
        raise RuntimeError(
            "Number of dimensions in size does not match the length of the physical_layout; "
            f"i.e. len(size) = {len(shape)} is not equal to len(physical_layout) = {len(order)}"
        )
    for index, d in enumerate(order):
        if not 0 <= d < len(shape):
            raise RuntimeError(
                f"Dimension out of range (expected to be between 0 and {len(shape) - 1}, but got "
                f"{d} at index {index}).  NB: negative dims not currently supported; file an "
                "issue if you want it."
            )
    if len(set(order)) != len(order):
        raise RuntimeError("Duplicate dim not allowed")
    check_factory_options("empty_permuted", layout, pin_memory)
    if device is not None:
        check_device(device)
    physical = np.zeros([shape[d] for d in order], _np_dtype(dtype))
    t = Tensor._from_array(physical.transpose(np.argsort(order)))
    return t.requires_grad_() if requires_grad else t


def _triangle_indices(
    name: str, row: int, col: int, offset: int, upper: bool, dtype: Any
) -> Tensor:
    if row < 0 or col < 0:
        raise RuntimeError(
            f"row must be non-negative, got{row}"
            if row < 0
            else f"col must be non-negative, got{col}"
        )
    rows, cols = np.indices((row, col))
    keep = cols - rows >= offset if upper else cols - rows <= offset
    dt = _np_dtype(dtype, np.dtype(np.int64))
    return Tensor._from_array(np.stack([rows[keep], cols[keep]]).astype(dt).reshape(2, -1))


def tril_indices(
    row: int,
    col: int,
    offset: int = 0,
    *,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    pin_memory: bool = False,
) -> Tensor:
    """The (row, column) indices of the lower triangle (with ``offset`` diagonals above the
    main one) of a ``row`` x ``col`` matrix, as a 2 x N tensor.

    Example::

        >>> glassgrad.tril_indices(2, 2)
        tensor([[0, 1, 1],
                [0, 0, 1]])
    """
    check_factory_options("tril_indices", layout, pin_memory)
    if device is not None:
        check_device(device)
    return _triangle_indices("tril_indices", row, col, offset, False, dtype)


def triu_indices(
    row: int,
    col: int,
    offset: int = 0,
    *,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    pin_memory: bool = False,
) -> Tensor:
    """The (row, column) indices of the upper triangle (from diagonal ``offset``) of a
    ``row`` x ``col`` matrix, as a 2 x N tensor.

    Example::

        >>> glassgrad.triu_indices(2, 2)
        tensor([[0, 0, 1],
                [0, 1, 1]])
    """
    check_factory_options("triu_indices", layout, pin_memory)
    if device is not None:
        check_device(device)
    return _triangle_indices("triu_indices", row, col, offset, True, dtype)


def unravel_index(indices: Any, shape: Any) -> tuple[Any, ...]:
    """The coordinates, one tensor per dim of ``shape``, of the flat ``indices``.

    Example::

        >>> glassgrad.unravel_index(glassgrad.tensor([4, 1]), (2, 3))
        (tensor([1, 0]), tensor([1, 1]))
    """
    flat = indices._data if isinstance(indices, Tensor) else np.asarray(indices)
    if flat.dtype.kind not in "iu":
        raise TypeError("expected 'indices' to be integer dtype, but got " + str(flat.dtype))
    dims = (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(int(s) for s in shape)
    if any(d < 0 for d in dims):
        raise ValueError("'shape' cannot have negative values, but got " + str(dims))
    total = math.prod(dims)
    if np.any((flat < -total) | (flat >= total)):
        raise ValueError("'indices' must be in range [-prod(shape), prod(shape) - 1]")
    coords = np.unravel_index(np.where(flat < 0, flat + total, flat), dims)
    return tuple(Tensor._from_array(np.asarray(c, np.int64)) for c in coords)


def asarray(
    obj: Any,
    *,
    dtype: Any = None,
    device: Any = None,
    copy: bool | None = None,
    requires_grad: bool = False,
) -> Tensor:
    """``obj`` as a tensor, sharing memory with a tensor or an array (or any object with the
    buffer protocol) when the dtype allows it; ``copy=True`` always copies, ``copy=False``
    never does (an error when it would have to).

    Example::

        >>> a = np.arange(3.0); t = glassgrad.asarray(a); a[0] = 7.0; t
        tensor([7., 1., 2.], dtype=glassgrad.float64)
    """
    if device is not None:
        check_device(device)
    want = None if dtype is None else _np_dtype(dtype)
    if isinstance(obj, Tensor):
        if want is not None and want != obj._data.dtype:
            if copy is False:
                raise ValueError(
                    f"can't alias tensor with dtype '{_dtype.scalar_type_name(obj._data.dtype)}' "
                    f"into dtype '{_dtype.scalar_type_name(want)}'."
                )
            result = obj.to(dtype)
        else:
            result = obj.clone() if copy else obj
        if requires_grad:  # PyTorch sets it on the tensor itself when it is returned as is
            result.requires_grad_(True)
        return result
    array = None
    if not isinstance(obj, (list, tuple, int, float, complex, bool)):
        try:
            array = np.asarray(memoryview(obj)) if not isinstance(obj, np.ndarray) else obj
        except TypeError:
            array = None
    if array is None:
        if copy is False:
            raise ValueError("can't alias arbitrary sequence into a tensor.")
        return tensor(obj, dtype=dtype, requires_grad=requires_grad)
    _dtype.from_numpy_dtype(array.dtype)
    if want is not None and want != array.dtype:
        if copy is False:
            raise ValueError(
                f"can't alias NumPy array with dtype '{array.dtype}' into dtype "
                f"'{_dtype.scalar_type_name(want)}'."
            )
        array = array.astype(want)
    elif copy:
        array = array.copy()
    return _finish(array, requires_grad)


def frombuffer(
    buffer: Any, *, dtype: Any, count: int = -1, offset: int = 0, requires_grad: bool = False
) -> Tensor:
    """A 1-D tensor over the memory of an object with the buffer protocol (``bytearray``,
    ``array.array``...): ``count`` elements of ``dtype`` (all, with -1) from byte ``offset``.

    Example::

        >>> glassgrad.frombuffer(bytearray(b"\\x01\\x02"), dtype=glassgrad.uint8)
        tensor([1, 2], dtype=glassgrad.uint8)
    """
    view = memoryview(buffer).cast("B")
    length = view.nbytes
    size = _np_dtype(dtype).itemsize
    if length <= 0 or count == 0:
        raise ValueError(f"both buffer length ({length}) and count ({count}) must not be 0")
    if offset < 0 or offset >= length:
        raise ValueError(
            f"offset ({offset} bytes) must be non-negative and no greater than buffer length "
            f"({length} bytes) minus 1"
        )
    if count < 0:
        if (length - offset) % size:
            raise ValueError(
                f"buffer length ({length - offset} bytes) after offset ({offset} bytes) must be "
                f"a multiple of element size ({size})"
            )
        count = (length - offset) // size
    elif offset + count * size > length:
        raise ValueError(
            f"requested buffer length ({count} * {size} bytes) after offset ({offset} bytes) "
            f"must not be greater than actual buffer length ({length} bytes)"
        )
    if view.readonly:
        warnings.warn(
            "The given buffer is not writable, and PyTorch does not support non-writable "
            "tensors. This means you can write to the underlying (supposedly non-writable) "
            "buffer using the tensor. You may want to copy the buffer to protect its data or "
            "make it writable before converting it to a tensor. This type of warning will be "
            "suppressed for the rest of this program.",
            UserWarning,
            stacklevel=2,
        )
    data = np.frombuffer(view, dtype=_np_dtype(dtype), count=count, offset=offset)
    return _finish(data, requires_grad)
