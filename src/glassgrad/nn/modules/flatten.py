"""``Flatten`` and ``Unflatten``: merge a range of dimensions into one, or split one."""

from __future__ import annotations

import math
from typing import Any

from ..._tensor import Tensor, wrap_dim
from .module import Module

__all__ = ["Flatten", "Unflatten"]


def flatten(input: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    """``input`` with dimensions ``start_dim..end_dim`` merged into one (a view if it can)."""
    shape = tuple(input.shape)
    if not shape:
        return input.reshape(1)
    start = wrap_dim(start_dim, len(shape), "flatten")
    end = wrap_dim(end_dim, len(shape), "flatten")
    if start > end:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if start == end:
        return input
    merged = math.prod(shape[start : end + 1])
    return input.reshape(shape[:start] + (merged,) + shape[end + 1 :])


def unflatten(input: Tensor, dim: int, sizes: tuple[Any, ...]) -> Tensor:
    """``input`` with dimension ``dim`` split into ``sizes`` (one entry may be -1)."""
    shape = tuple(input.shape)
    d = wrap_dim(dim, len(shape), "unflatten")
    sizes = tuple(sizes)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    if sizes.count(-1) > 1:
        raise RuntimeError("unflatten: only one dimension can be inferred")
    known = math.prod(s for s in sizes if s != -1)
    if -1 in sizes:
        if known == 0 or shape[d] % known:
            raise RuntimeError(
                f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim "
                f"{dim} ({shape[d]}) in the input tensor"
            )
        sizes = tuple(shape[d] // known if s == -1 else s for s in sizes)
    elif known != shape[d]:
        raise RuntimeError(
            f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim "
            f"{dim} ({shape[d]}) in the input tensor"
        )
    return input.reshape(shape[:d] + sizes + shape[d + 1 :])


class Flatten(Module):
    """Merge dimensions ``start_dim`` to ``end_dim`` into one (by default all but the batch
    dimension).

    Example::

        >>> nn.Flatten()(glassgrad.randn(32, 1, 5, 5)).shape
        glassgrad.Size([32, 25])
    """

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input: Tensor) -> Tensor:
        return flatten(input, self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """Split dimension ``dim`` into the shape ``unflattened_size``.

    Example::

        >>> nn.Unflatten(1, (2, 5, 5))(glassgrad.randn(2, 50)).shape
        glassgrad.Size([2, 2, 5, 5])
    """

    def __init__(self, dim: int, unflattened_size: tuple[int, ...] | list[int]) -> None:
        super().__init__()
        if not isinstance(unflattened_size, (tuple, list)):
            raise TypeError(
                "unflattened_size must be a tuple of ints, but found type "
                f"{type(unflattened_size).__name__}"
            )
        for idx, elem in enumerate(unflattened_size):
            if not isinstance(elem, int):
                raise TypeError(
                    "unflattened_size must be tuple of ints, but found element of type "
                    f"{type(elem).__name__} at pos {idx}"
                )
        self.dim = dim
        self.unflattened_size = unflattened_size

    def forward(self, input: Tensor) -> Tensor:
        return unflatten(input, self.dim, self.unflattened_size)

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
