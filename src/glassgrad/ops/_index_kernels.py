"""Where PyTorch's index kernels find an index out of bounds: inside their loops, after they
wrote the elements before it (scatter, scatter_add, scatter_reduce, index_add_, put_). Each
check here raises the kernel's error with those writes attached (``kernel_order.stopped``:
``apply_inplace`` makes them after its own checks), in the kernel's order of elements.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.lib.stride_tricks import as_strided

from .._strides import iterator_order
from ..autograd.kernel_order import stopped, write_at_in_order

__all__ = [
    "along_key",
    "check_index_add_bounds",
    "check_index_reduce_bounds",
    "check_put_bounds",
    "check_scatter_bounds",
    "check_slice_bounds",
]


def along_key(index: np.ndarray, dim: int) -> tuple:
    """The advanced key that addresses, for every position p of ``index``, the element at
    p with coordinate ``dim`` replaced by ``index[p]`` (gather/scatter addressing)."""
    grids = np.indices(index.shape, sparse=True)
    return tuple(index if d == dim else grids[d] for d in range(index.ndim))


def _scatter_order(shape: tuple, dim: int, operands: list) -> list:
    """The dims of ``shape`` (the index's), slowest first, as PyTorch's
    ``cpu_scatter_gather_base_kernel`` loops over them: TensorIterator's order over the
    others (``dim`` squashed), the loop along ``dim`` innermost where ``dim`` is the target's
    last, else just outside the iterator's innermost (coalesced) run."""
    squashed = tuple(1 if d == dim else n for d, n in enumerate(shape))
    carriers = [as_strided(np.zeros(1, a.dtype), squashed, a.strides) for a in operands]
    fastest = [d for d in iterator_order(squashed, carriers) if d != dim]
    if dim == len(shape) - 1:
        return [*fastest[::-1], dim]
    run: list = []
    size = 1
    for d in (d for d in fastest if shape[d] != 1):
        if run and not all(a.strides[d] == a.strides[run[0]] * size for a in operands):
            break
        run.append(d)
        size *= shape[d]
    outer = [d for d in fastest if d not in run]
    return [*outer[::-1], dim, *run[::-1]]


def check_scatter_bounds(
    x: np.ndarray, dim: int, index: np.ndarray, values: Any, reduce: Any = None
) -> None:
    """The scatter kernels' check, ``0 <= index < x.shape[dim]`` for each element in their
    order, having written (or reduced with ufunc ``reduce``) ``values`` at the elements
    before the first that fails. ``values``: a number, or an array of ``index``'s shape."""
    size = x.shape[dim] if x.ndim else 1
    outside = (index < 0) | (index >= size)
    if not outside.any():
        return
    operands = [x, *([values] if np.ndim(values) else []), index]  # PyTorch's, in its order
    order = _scatter_order(index.shape, dim, operands) if index.ndim else None
    key = along_key(np.where(outside, 0, index), dim) if x.ndim else (np.where(outside, 0, index),)

    def write(data: np.ndarray) -> Any:
        target = data.reshape(1) if data.ndim == 0 else data
        return write_at_in_order(target, key, values, reduce, stop=outside, order=order)

    first = write(np.empty_like(x))
    error = RuntimeError(
        f"index {index[first]} is out of bounds for dimension {dim} with size {size}"
    )
    raise stopped(error, write)


def check_index_add_bounds(
    x: np.ndarray, dim: int, index: np.ndarray, source: np.ndarray, alpha: Any
) -> None:
    """index_add_'s checks as its CPU kernel makes them: a target of 2 or more dims added
    along its first or last dim, with alpha 1, an int64 index and a source of the target's
    shape elsewhere goes through scatter_add_ (its check, its order); otherwise each slice
    ``i`` is checked and added in turn ("index out of range in self"). Negative indices are
    out of bounds. An empty index or target of 2 or more dims is not checked at all."""
    if x.ndim > 1 and (not index.size or not x.size):
        return
    size = x.shape[dim] if x.ndim > 1 else x.size
    outside = (index < 0) | (index >= size)
    if not outside.any():
        return
    if (
        x.ndim > 1
        and dim in (0, x.ndim - 1)
        and alpha == 1
        and index.dtype == np.int64
        and all(n == m for d, (n, m) in enumerate(zip(x.shape, source.shape)) if d != dim)
    ):
        spread = [-1 if d == dim else 1 for d in range(x.ndim)]
        expanded = np.broadcast_to(index.reshape(spread), source.shape)
        check_scatter_bounds(x, dim, expanded, source, np.add)  # raises
    first = int(outside.argmax())
    added = source if alpha == 1 else source * alpha
    key = (slice(None),) * dim + (index[:first],)
    before = added[(slice(None),) * dim + (slice(0, first),)] if added.ndim else added

    def write(data: np.ndarray) -> None:
        target = data.reshape(1) if data.ndim == 0 else data
        write_at_in_order(target, key, before, np.add)

    raise stopped(IndexError("index out of range in self"), write)


def check_put_bounds(x: np.ndarray, index: np.ndarray, values: Any, accumulate: bool) -> None:
    """put_'s (and take's) check, each flat index in ``[-numel, numel)``, element after
    element; put_ has written ``values`` at the indices before the first that fails."""
    numel = x.size
    flat = index.reshape(-1)
    outside = (flat >= numel) | (flat < -numel)
    if not outside.any():
        return
    first = int(outside.argmax())
    error = IndexError(
        f"out of range: tried to access index {flat[first]} on a tensor of {numel} elements."
    )
    if values is None:  # take: nothing written
        raise error
    where = np.unravel_index(flat[:first] % numel, x.shape or (1,))
    before = np.reshape(values, -1)[:first]

    def write(data: np.ndarray) -> None:
        target = data.reshape(1) if data.ndim == 0 else data
        write_at_in_order(target, where, before, np.add if accumulate else None)

    raise stopped(error, write)


def check_index_reduce_bounds(
    x: np.ndarray, dim: int, index: np.ndarray, source: np.ndarray, reduce: Any, identity: Any
) -> None:
    """index_reduce_'s checks as its CPU kernel makes them: with ``identity`` (no
    include_self), index_fill_ puts it at the slices ``index`` first (negative indices count
    from the end there; its own error); then slice after slice is checked (``0 <= i <
    size``, "index out of range in self") and reduced in with ufunc ``reduce``."""
    size = x.shape[dim] if x.ndim else 1
    filled = (slice(None),) * dim
    if identity is not None:
        check_slice_bounds(x, dim, index, "", -size, identity)
    outside = (index < 0) | (index >= size)
    if not outside.any():
        return
    first = int(outside.argmax())
    key = (*filled, index[:first])
    before = source[(*filled, slice(0, first))] if source.ndim else source

    def write(data: np.ndarray) -> None:
        target = data.reshape(1) if data.ndim == 0 else data
        if identity is not None:
            write_at_in_order(target, (*filled, index % size), identity)
        write_at_in_order(target, key, before, reduce)

    raise stopped(IndexError("index out of range in self"), write)


def check_slice_bounds(
    x: np.ndarray, dim: int, index: np.ndarray, prefix: str, low: int, values: Any
) -> None:
    """index_fill_'s and index_copy_'s check: every index in ``[low, size)`` (``low``:
    ``-size`` where negative indices count from the end), element after element of their
    TensorIterator over ``x`` with ``dim`` replaced by the index, having written ``values``
    (a number, or the slices' values) at the elements before the first that fails."""
    size = x.shape[dim] if x.ndim else 1
    outside = (index < low) | (index >= size)
    if not outside.any():
        return
    flat = index.reshape(-1)
    key = (slice(None),) * dim + (np.where(outside.reshape(-1), 0, flat),)
    spread = [-1 if k == dim else 1 for k in range(max(x.ndim, 1))]
    stop = outside.reshape(-1).reshape(spread)
    x1 = x.reshape(1) if x.ndim == 0 else x
    values = np.reshape(values, x1[key].shape) if np.ndim(values) else values

    def write(data: np.ndarray) -> Any:
        return write_at_in_order(
            data.reshape(1) if data.ndim == 0 else data, key, values, stop=stop
        )

    first = write(np.empty_like(x))
    bad = flat[first[dim if x.ndim else 0]]
    error = IndexError(f"{prefix}index {bad} is out of bounds for dimension {dim} with size {size}")
    raise stopped(error, write)
