"""Ops that copy a tensor's values into a new order: repeat, tile, flip and roll.

The gradient moves the values back: a sum over the repeats, a flip, a roll the other way.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._strides import row_major
from .._tensor import Tensor
from ..autograd.op import Op
from ._common import array_of, check_tensor, varargs_or_keyword, wrap_dim
from ._registry import Sample, register
from ._samples import randn
from .shape_views import _dims_arg, _sizes_arg

__all__ = ["repeat", "tile", "flip", "roll"]


# --- repeat, tile ------------------------------------------------------------------------


class RepeatBackward0(Op):
    """out = the input tiled ``repeats`` times along each dimension"""

    repeats: Any
    self_sizes: Any

    __slots__ = ("self_sizes", "repeats")

    def forward(self, x: Any, repeats: Any) -> Any:
        self.self_sizes, self.repeats = x.shape, repeats
        padded = x.reshape((1,) * (len(repeats) - x.ndim) + x.shape)
        return np.tile(padded, repeats)

    def backward(self, F: Any, grad: Any) -> Any:
        # PyTorch's repeat_backward: zeros outside the graph when a repeat is 0 (so the
        # gradient of a gradient does not require grad), the leading new dims summed one by
        # one, then each dim repeated r != 1 times split into (r, size) and the r's summed.
        if 0 in self.repeats:
            return F.zeros(self.self_sizes, array_of(grad).dtype)
        new_dims = len(self.repeats) - len(self.self_sizes)
        for _ in range(new_dims):
            grad = F.sum(grad, (0,))
        sizes: list[int] = []
        summed: list[int] = []
        for repeat, size in zip(self.repeats[new_dims:], self.self_sizes):
            if repeat != 1:
                sizes.append(repeat)
                summed.append(len(sizes) - 1)
            sizes.append(size)
        if summed:
            grad = F.sum(F.reshape(grad, tuple(sizes)), tuple(summed))
        return grad


def repeat(input: Tensor, *args: Any, repeats: Any = None) -> Tensor:
    """Tile the tensor ``repeats[i]`` times along dimension i (leading new dims allowed).

    Example::

        >>> glassgrad.tensor([1.0, 2.0]).repeat(2, 2)
        tensor([[1., 2., 1., 2.],
                [1., 2., 1., 2.]])
    """
    n = check_tensor(input, "repeat")._data.ndim
    repeats = _sizes_arg(varargs_or_keyword("repeat", args, repeats, "repeats"))
    if len(repeats) < n:
        raise RuntimeError(
            "Number of dimensions of repeat dims can not be smaller than number of dimensions "
            "of tensor"
        )
    if any(r < 0 for r in repeats):
        shape = (1,) * (len(repeats) - n) + input._data.shape
        target = [r * s for r, s in zip(repeats, shape)]
        bad = next(t for t in target if t < 0) if any(t < 0 for t in target) else repeats[0]
        raise RuntimeError(
            f"Trying to create tensor with negative dimension {bad}: {target} "
            f"(repeat: repeats {list(repeats)} must be non-negative)"
        )
    return RepeatBackward0.apply(input, repeats=repeats)


def tile(input: Tensor, *args: Any, dims: Any = None) -> Tensor:
    """``repeat`` with ``dims`` padded by leading ones to the tensor's number of dimensions.

    Example::

        >>> glassgrad.zeros(2, 3).tile((2,)).shape
        glassgrad.Size([2, 6])
    """
    n = check_tensor(input, "tile")._data.ndim
    if not args and dims is None:
        raise TypeError('tile() missing 1 required positional arguments: "dims"')
    dims = _sizes_arg(varargs_or_keyword("tile", args, dims, "dims"))
    return repeat(input, (1,) * (n - len(dims)) + dims)


# --- flip, roll ---------------------------------------------------------------------------


class FlipBackward0(Op):
    """out = the input reversed along ``dims`` (a copy)"""

    dims: Any

    __slots__ = ("dims",)

    def forward(self, x: Any, dims: Any) -> Any:
        self.dims = dims
        # In x's memory layout, as PyTorch's empty_like (order K reads |strides|).
        return np.flip(x, dims).copy(order="K") if x.ndim else x.copy()

    def backward(self, F: Any, grad: Any) -> Any:
        return FlipBackward0.call(grad, dims=self.dims)


def flip(input: Tensor, *args: Any, dims: Any = None) -> Tensor:
    """Reverse the order of elements along ``dims`` (a copy, as in PyTorch).

    Example::

        >>> glassgrad.tensor([1.0, 2.0, 3.0]).flip(0)
        tensor([3., 2., 1.])
    """
    n = check_tensor(input, "flip")._data.ndim
    dims = varargs_or_keyword("flip", args, dims, "dims")
    dims = _dims_arg(dims[0]) if len(dims) == 1 and not isinstance(dims[0], int) else dims
    wrapped = tuple(wrap_dim(d, n, "flip") for d in dims)
    for d in wrapped:
        if wrapped.count(d) > 1:
            raise RuntimeError(f"flip: dim {d} appears multiple times in the list of dims")
    return FlipBackward0.apply(input, dims=wrapped if n else ())


class RollBackward0(Op):
    """out = the input rotated by ``shifts`` along ``dims`` (all flattened if dims is None)"""

    dims: Any
    shifts: Any

    __slots__ = ("shifts", "dims")

    @row_major
    def forward(self, x: Any, shifts: Any, dims: Any) -> Any:
        self.shifts, self.dims = shifts, dims
        if not x.ndim:
            return x.copy()
        if dims is None:
            return np.roll(x, shifts[0])
        return np.roll(x, shifts, axis=dims)

    def backward(self, F: Any, grad: Any) -> Any:
        back = tuple(-s for s in self.shifts)
        return RollBackward0.call(grad, shifts=back, dims=self.dims)


def roll(input: Tensor, shifts: Any, dims: Any = None) -> Tensor:
    """Rotate elements along ``dims`` by ``shifts`` (elements leaving one end re-enter at
    the other); with ``dims=None`` the flattened tensor is rolled and reshaped back.

    Example::

        >>> glassgrad.tensor([1.0, 2.0, 3.0]).roll(1)
        tensor([3., 1., 2.])
    """
    n = check_tensor(input, "roll")._data.ndim
    shifts = _dims_arg(shifts)
    if dims is None:
        if len(shifts) != 1:
            raise RuntimeError(
                f"roll: shifts and dimensions must align. shifts: {len(shifts)}, dims:0"
            )
        return RollBackward0.apply(input, shifts=shifts, dims=None)
    dims = _dims_arg(dims)
    if len(shifts) != len(dims):
        raise RuntimeError(
            f"roll: shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}"
        )
    wrapped = tuple(wrap_dim(d, n, "roll") for d in dims)
    return RollBackward0.apply(input, shifts=shifts, dims=wrapped if n else None)


register(
    "repeat",
    repeat,
    samples=lambda rng: [
        Sample((randn(rng, 2, 3), 2, 3)),
        Sample((randn(rng, 2, 3), (2, 1, 2))),
        Sample((randn(rng, 3, 2).T, 1, 2), note="non-contiguous"),
        Sample((randn(rng), 2, 2)),
        Sample((randn(rng, 2, 3), 0, 2)),
    ],
    torch=lambda torch, x, *sizes: x.repeat(*sizes),
)


register(
    "tile",
    tile,
    samples=lambda rng: [
        Sample((randn(rng, 2, 3), (2,))),
        Sample((randn(rng, 2, 3), (2, 1, 3))),
        Sample((randn(rng), (3,))),
    ],
)


register(
    "flip",
    flip,
    samples=lambda rng: [
        Sample((randn(rng, 2, 3, 4), (0, 2))),
        Sample((randn(rng, 4, 3).T, (-1,)), note="non-contiguous"),
        Sample((randn(rng), ())),
        Sample((randn(rng, 0, 3), (1,))),
    ],
)


register(
    "roll",
    roll,
    samples=lambda rng: [
        Sample((randn(rng, 3, 4), 1)),
        Sample((randn(rng, 3, 4), (1, -5), (0, 1))),
        Sample((randn(rng, 3, 4), 2, -1)),
        Sample((randn(rng, 4, 3).T, 1, 0), note="non-contiguous"),
        Sample((randn(rng), 3)),
    ],
)
