"""Broadcasting as a view and its adjoint: expand and expand_as (ExpandBackward0, a view that
repeats singleton dimensions without copying) and sum_to_size, which sums a broadcast result
back down to the size it came from (expand's backward).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.lib.stride_tricks import as_strided

from .._tensor import Tensor
from ..autograd.op import Op
from ._common import check_tensor
from ._registry import Sample, register
from ._samples import randn
from .shape import _shape_or_keyword, reshape


class ExpandBackward0(Op):
    shape: Any
    __slots__ = ("shape",)
    is_view = True

    def forward(self, x: Any, shape: Any) -> Any:
        self.shape = x.shape
        # Writable as PyTorch's expand is, where a write reaches one element per place
        # (x.expand(3)[0] = 1); in-place ops refuse overlapping ones (apply_inplace).
        return as_strided(x, shape, _expanded_strides(x, shape))

    def backward(self, F: Any, grad: Any) -> Any:
        return F.sum_to_size(grad, self.shape)


def _expanded_strides(x: np.ndarray, shape: tuple) -> tuple:
    """The strides (in bytes) of ``x`` expanded to ``shape``, as PyTorch's
    ``inferExpandGeometry``: 0 where a dimension is repeated, and a new leading dimension of
    size 1 gets the extent of the dimensions after it (np.broadcast_to gives it 0). The
    strides of size-1 dimensions matter: PyTorch's overlap check compares them, so
    ``x[None] = x`` is a copy onto the same memory and ``x[None].copy_(x)`` a partial
    overlap."""
    if x.ndim == 0:
        return (0,) * len(shape)
    strides = [0] * len(shape)
    lead = len(shape) - x.ndim
    for i in range(len(shape) - 1, -1, -1):
        if i >= lead:
            size, stride = x.shape[i - lead], x.strides[i - lead]
        else:
            size, stride = 1, shape[i + 1] * strides[i + 1]
        strides[i] = 0 if size != shape[i] else stride
    return tuple(strides)


def expand(input: Tensor, *args: Any, size: Any = None, implicit: bool = False) -> Tensor:
    """A view with singleton dimensions repeated to ``size`` (-1 keeps a size);
    ``implicit`` is PyTorch's internal flag and changes nothing.

    Example::

        >>> glassgrad.zeros(3, 1).expand(3, 4).shape
        glassgrad.Size([3, 4])
    """
    shape = check_tensor(input, "expand")._data.shape
    sizes = _shape_or_keyword("expand", args, size, "size")
    if len(sizes) < len(shape):
        raise RuntimeError(
            f"expand(torch.FloatTensor{{{list(shape)}}}, size={list(sizes)}): the number of "
            f"sizes provided ({len(sizes)}) must be greater or equal to the number of "
            f"dimensions in the tensor ({len(shape)})"
        )
    lead = len(sizes) - len(shape)
    target = []
    for i, s in enumerate(sizes):
        own = shape[i - lead] if i >= lead else None
        if s == -1:
            if own is None:
                raise RuntimeError(
                    f"expand: -1 is not allowed in a leading, non-existing dimension {i}"
                )
            s = own
        elif own is not None and own != 1 and own != s:
            raise RuntimeError(
                f"The expanded size of the tensor ({s}) must match the existing size ({own}) at "
                f"non-singleton dimension {i}.  Target sizes: {list(sizes)}.  Tensor sizes: "
                f"{list(shape)}"
            )
        target.append(s)
    return ExpandBackward0.apply(input, shape=tuple(target))


def expand_as(input: Tensor, other: Tensor) -> Tensor:
    """``input.expand(other.size())``."""
    return expand(input, other._data.shape)


def sum_to_size(input: Tensor, *args: Any, size: Any = None) -> Tensor:
    """Sum ``input`` down to ``size`` (undoes broadcasting ``size`` to ``input``'s shape).

    Example::

        >>> glassgrad.ones(2, 3).sum_to_size(1, 3)
        tensor([[2., 2., 2.]])
    """
    from .reduction import sum as reduce_sum

    shape = _shape_or_keyword("sum_to_size", args, size, "size")
    source = input._data.shape
    lead = len(source) - len(shape)
    if lead < 0 or any(s != 1 and s != source[i + lead] for i, s in enumerate(shape)):
        raise RuntimeError(f"size {list(shape)} is not expandable to size {list(source)}")
    dims = tuple(range(lead)) + tuple(
        i + lead for i, s in enumerate(shape) if s == 1 and source[i + lead] != 1
    )
    out = reduce_sum(input, dims, keepdim=True) if dims else input
    return reshape(out, shape) if lead else out


register(
    "expand",
    expand,
    nodes=(ExpandBackward0,),
    samples=lambda rng: [Sample((randn(rng, 3, 1), 3, 4)), Sample((randn(rng, 1, 3), (2, -1, 3)))],
    torch=lambda torch, x, *s: x.expand(*s),
)


register(
    "expand_as",
    expand_as,
    nodes=(ExpandBackward0,),
    samples=lambda rng: [Sample((randn(rng, 3, 1), randn(rng, 2, 3, 4)))],
    torch=lambda torch, x, o: x.expand_as(o),
)


register(
    "sum_to_size",
    sum_to_size,
    samples=lambda rng: [Sample((randn(rng, 2, 3, 4), 3, 1))],
    torch=lambda torch, x, *s: x.sum_to_size(*s),
)
