"""Result memory layouts as PyTorch's CPU kernels choose them.

User code depends on a result's strides: ``y.view(-1)`` works or raises by them, and
``y.mT.view(...)`` the other way round. NumPy gives a ufunc's result its input's layout, but a
composite kernel (``np.where``, ``np.empty`` then fills, a loop over slices) returns a
row-major array, and a NumPy scan or softmax keeps a transposed input's layout where PyTorch's
kernel returns a row-major one. An op's forward states which layout its result takes with one
of the two decorators here; results of contiguous inputs pay one flag test. A leaf's first
gradient takes the leaf's layout (``grad_layout``, PyTorch's gradient layout contract).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import wraps
from typing import Any

import numpy as np

__all__ = [
    "as_row_major",
    "grad_layout",
    "in_order",
    "iterator_order",
    "iterator_strides",
    "keeps_operand_layout",
    "like_operands",
    "restrided",
    "row_major",
]


def iterator_strides(shape: tuple, operands: Sequence[Any], itemsize: int) -> tuple:
    """The byte strides PyTorch's TensorIterator gives a new result of ``shape`` computed
    from ``operands`` (arrays in the op's argument order; numbers are skipped): dense in the
    order of ``iterator_order``.

    Example::

        >>> a = np.zeros((4, 3)).T
        >>> iterator_strides((3, 4), [a], 8)
        (8, 24)
    """
    return in_order(shape, iterator_order(shape, operands), itemsize)


def iterator_order(shape: tuple, operands: Sequence[Any]) -> list[int]:
    """The dimensions of ``shape`` in the order PyTorch's TensorIterator visits them, fastest
    first, for ``operands`` (arrays in the op's argument order, an in-place op's target first;
    numbers are skipped).

    ``TensorIteratorBase::reorder_dimensions``: the dimensions are sorted, fastest first, by
    the operands' strides, the first operand with an unequal pair deciding; a broadcast
    dimension (stride 0) leaves the decision to the next operand, equal strides put the
    smaller dimension first.

    Example::

        >>> iterator_order((3, 4), [np.zeros((4, 3)).T])
        [0, 1]
    """
    ndim = len(shape)
    strides = []
    for a in operands:
        if type(a) is not np.ndarray or a.ndim == 0:
            continue
        offset = ndim - a.ndim
        own = [0] * offset
        for n, s, full in zip(a.shape, a.strides, shape[offset:]):
            own.append(0 if n == 1 and full != 1 else s)
        strides.append(own)

    def should_swap(dim0: int, dim1: int) -> int:
        for own in strides:
            s0, s1 = own[dim0], own[dim1]
            if s0 == 0 or s1 == 0:
                continue
            if s0 != s1:
                return -1 if s0 < s1 else 1
            if shape[dim0] > shape[dim1]:
                return 1
        return 0

    perm = list(range(ndim - 1, -1, -1))  # fastest first
    for i in range(1, ndim):
        dim1 = i
        for dim0 in range(i - 1, -1, -1):
            comparison = should_swap(perm[dim0], perm[dim1])
            if comparison > 0:
                perm[dim0], perm[dim1] = perm[dim1], perm[dim0]
                dim1 = dim0
            elif comparison < 0:
                break
    return perm


def in_order(shape: tuple, fastest_first: Sequence[int], itemsize: int) -> tuple:
    """Dense byte strides for ``shape`` with its dimensions laid out in ``fastest_first``."""
    result = [0] * len(shape)
    step = itemsize
    for d in fastest_first:
        result[d] = step
        step *= shape[d]
    return tuple(result)


def grad_layout(array: np.ndarray) -> tuple | None:
    """The byte strides PyTorch's gradient layout contract gives the ``.grad`` of a leaf
    holding ``array``: its own when it is dense (no gaps, no overlap), else None (row-major).

    Example::

        >>> grad_layout(np.zeros((4, 3)).T), grad_layout(np.zeros((4, 6))[:, ::2])
        ((8, 24), None)
    """
    if array.flags.c_contiguous:
        return None
    dense = iterator_strides(array.shape, (array,), array.itemsize)
    return dense if _agree(array, dense) else None


def _agree(array: np.ndarray, strides: tuple) -> bool:
    """Whether ``array`` has ``strides`` where it matters (dimensions of size > 1)."""
    for s, t, n in zip(array.strides, strides, array.shape):
        if n > 1 and s != t:
            return False
    return True


def restrided(array: np.ndarray, strides: tuple) -> np.ndarray:
    """``array`` with the dense byte ``strides`` (a copy unless it has them already)."""
    if _agree(array, strides):
        return array
    order = sorted(range(array.ndim), key=lambda d: -strides[d])  # slowest first
    copy = np.empty([array.shape[d] for d in order], array.dtype).transpose(np.argsort(order))
    np.copyto(copy, array)
    return copy


def like_operands(out: Any, operands: Sequence[Any]) -> Any:
    """``out`` (an array or a tuple of them, each of the broadcast shape) in the layout
    PyTorch's TensorIterator gives a pointwise result of ``operands``; copied only when that
    layout differs from the one it has.

    Example::

        >>> x = np.arange(6.0).reshape(3, 2).T
        >>> like_operands(np.where(x > 1, x, 0.0), [x]).strides
        (8, 16)
    """
    if type(out) is tuple:
        return tuple(like_operands(o, operands) for o in out)
    if type(out) is not np.ndarray or out.ndim < 2:
        return out
    for a in operands:
        if type(a) is np.ndarray and not a.flags.c_contiguous:
            break
    else:  # row-major operands (the usual case) give a row-major result
        return out if out.flags.c_contiguous else np.ascontiguousarray(out)
    strides = iterator_strides(out.shape, operands, out.itemsize)
    return restrided(out, strides)


def as_row_major(out: Any) -> Any:
    """``out`` (an array or a tuple of them) row-major: copied only when it is not."""
    if type(out) is tuple:
        return tuple(as_row_major(o) for o in out)
    if type(out) is not np.ndarray or out.flags.c_contiguous:
        return out
    return out.copy(order="C")


def keeps_operand_layout(forward: Callable) -> Callable:
    """Decorate an ``Op.forward`` whose result PyTorch computes with a TensorIterator
    (pointwise ops): the result takes its array inputs' layout (see ``like_operands``)."""

    @wraps(forward)
    def in_operand_layout(self: Any, *arrays: Any, **params: Any) -> Any:
        return like_operands(forward(self, *arrays, **params), arrays)

    return in_operand_layout


def row_major(forward: Callable) -> Callable:
    """Decorate an ``Op.forward`` whose PyTorch kernel allocates a contiguous result
    whatever its input's layout (softmax, scans, reductions, index ops)."""

    @wraps(forward)
    def in_row_major(self: Any, *arrays: Any, **params: Any) -> Any:
        return as_row_major(forward(self, *arrays, **params))

    return in_row_major
