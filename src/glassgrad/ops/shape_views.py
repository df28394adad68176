"""Views that reshape or cut a tensor: flatten, unflatten, movedim/moveaxis,
swapdims/swapaxes, view_as, reshape_as, split, split_with_sizes, chunk, narrow and select;
and the unsafe splits (unsafe_split, unsafe_split_with_sizes, unsafe_chunk).

Each result shares its input's storage (where NumPy can give a view), so in-place changes
through it reach the base as in PyTorch. The unsafe splits share it too but are not tracked
as views: their pieces have their own version counters and may be changed in place without
rebasing the input's history (PyTorch's contract: the caller knows the input is not used
again).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._tensor import Tensor
from ..autograd.op import Op
from ._common import array_of, check_tensor, wrap_dim
from ._registry import NoGrad, Sample, register
from ._samples import randn
from .indexing import SelectBackward0, SliceBackward0
from .shape import cat, permute, reshape, transpose, view

__all__ = [
    "flatten",
    "unflatten",
    "movedim",
    "split",
    "split_with_sizes",
    "unsafe_split",
    "unsafe_split_with_sizes",
    "chunk",
    "unsafe_chunk",
    "narrow",
    "select",
    "view_as",
    "reshape_as",
    "swapdims",
]


# --- helpers ------------------------------------------------------------------------------


def _sizes_arg(sizes: tuple) -> tuple:
    """``repeat(2, 3)`` and ``repeat((2, 3))`` alike."""
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list, Tensor, np.ndarray)):
        sizes = tuple(np.asarray(array_of(sizes[0])).reshape(-1).tolist())
    return tuple(int(s) for s in sizes)


def _dims_arg(dims: Any) -> tuple:
    if isinstance(dims, (int, np.integer)):
        return (int(dims),)
    return tuple(int(d) for d in dims)


# --- flatten, unflatten, movedim, view_as, reshape_as, swapdims ---------------------------


def flatten(input: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    """Merge dimensions ``start_dim`` to ``end_dim`` into one (a view when possible).

    Example::

        >>> glassgrad.zeros(2, 3, 4).flatten(1).shape
        glassgrad.Size([2, 12])
    """
    shape = check_tensor(input, "flatten")._data.shape
    if not shape:
        return reshape(input, (1,))
    start = wrap_dim(start_dim, len(shape), "flatten")
    end = wrap_dim(end_dim, len(shape), "flatten")
    if start > end:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if start == end:
        return input
    merged = math.prod(shape[start : end + 1])
    return reshape(input, shape[:start] + (merged,) + shape[end + 1 :])


def unflatten(input: Tensor, dim: int, sizes: Any) -> Tensor:
    """Split dimension ``dim`` into ``sizes`` (one entry may be -1).

    Example::

        >>> glassgrad.zeros(2, 12).unflatten(1, (3, 4)).shape
        glassgrad.Size([2, 3, 4])
    """
    shape = check_tensor(input, "unflatten")._data.shape
    d = wrap_dim(dim, len(shape), "unflatten")
    sizes = _sizes_arg((sizes,))
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    size = shape[d] if shape else 1
    known = math.prod(s for s in sizes if s != -1)
    if sizes.count(-1) > 1:
        raise RuntimeError("unflatten: only one dimension can be inferred")
    if -1 in sizes:
        if known == 0 or size % known:
            raise RuntimeError(
                f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim "
                f"{dim} ({size}) in the input tensor"
            )
        sizes = tuple(size // known if s == -1 else s for s in sizes)
    elif known != size:
        raise RuntimeError(
            f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim {dim} "
            f"({size}) in the input tensor"
        )
    return view(input, shape[:d] + sizes + shape[d + 1 :])


def movedim(input: Tensor, source: Any, destination: Any) -> Tensor:
    """Move dimensions ``source`` to positions ``destination``; the others keep their order.

    Example::

        >>> glassgrad.zeros(2, 3, 4).movedim(0, -1).shape
        glassgrad.Size([3, 4, 2])
    """
    n = check_tensor(input, "movedim")._data.ndim
    src = [wrap_dim(d, n, "movedim") for d in _dims_arg(source)]
    dst = [wrap_dim(d, n, "movedim") for d in _dims_arg(destination)]
    if len(src) != len(dst):
        raise RuntimeError(
            f"movedim: Invalid source or destination dims: source ({list(_dims_arg(source))} "
            f"dims) should contain the same number of dims as destination "
            f"({list(_dims_arg(destination))} dims)"
        )
    for name, dims, given in (("source", src, source), ("destination", dst, destination)):
        if len(set(dims)) != len(dims):
            raise RuntimeError(f"movedim: repeated dim in `{name}` ({list(_dims_arg(given))})")
    order = [None] * max(n, 1)
    for s, d in zip(src, dst):
        order[d] = s
    rest = iter(i for i in range(n) if i not in src)
    order = [o if o is not None else next(rest) for o in order[:n]]
    return permute(input, tuple(order))


def view_as(input: Tensor, other: Tensor) -> Tensor:
    """``input.view(other.size())``.

    Example::

        >>> glassgrad.zeros(6).view_as(glassgrad.zeros(2, 3)).shape
        glassgrad.Size([2, 3])
    """
    return view(check_tensor(input, "view_as"), check_tensor(other, "view_as", "other", 2).shape)


def reshape_as(input: Tensor, other: Tensor) -> Tensor:
    """``input.reshape(other.size())`` (a copy when a view is impossible).

    Example::

        >>> glassgrad.zeros(2, 3).t().reshape_as(glassgrad.zeros(6)).shape
        glassgrad.Size([6])
    """
    other = check_tensor(other, "reshape_as", "other", 2)
    return reshape(check_tensor(input, "reshape_as"), other.shape)


def swapdims(input: Tensor, dim0: int, dim1: int) -> Tensor:
    """Alias of ``transpose``: swap dimensions ``dim0`` and ``dim1`` (a view).

    Example::

        >>> glassgrad.zeros(2, 3).swapdims(0, 1).shape
        glassgrad.Size([3, 2])
    """
    return transpose(input, dim0, dim1)


def swapaxes(input: Tensor, axis0: int, axis1: int) -> Tensor:
    """NumPy's name of ``transpose``: swap ``axis0`` and ``axis1`` (a view).

    Example::

        >>> glassgrad.zeros(2, 3).swapaxes(0, 1).shape
        glassgrad.Size([3, 2])
    """
    return transpose(input, axis0, axis1)


def _split_method(self: Tensor, split_size: Any, dim: int = 0) -> tuple[Tensor, ...]:
    # Tensor.split names its argument split_size (torch.split: split_size_or_sections).
    return split(self, split_size, dim)


# --- split, chunk, narrow, select -------------------------------------------------------


class SplitBackward0(Op):
    """outs = consecutive slices of ``sizes`` along ``dim`` (views)"""

    dim: Any
    sizes: Any

    __slots__ = ("dim", "sizes")
    is_view = True

    def forward(self, x: Any, dim: Any, sizes: Any) -> Any:
        self.dim, self.sizes = dim, sizes
        lead = (slice(None),) * dim
        starts = np.cumsum((0,) + sizes[:-1]).tolist()
        return tuple(x[lead + (slice(a, a + s),)] for a, s in zip(starts, sizes))

    def backward(self, F: Any, grads: Any) -> Any:
        if isinstance(grads[0], Tensor):
            return cat(list(grads), self.dim)
        return np.concatenate(grads, axis=self.dim)


class SplitWithSizesBackward0(SplitBackward0):
    pass


def _split_dim(input: Tensor, dim: int, op: str) -> int:
    n = check_tensor(input, op)._data.ndim
    if n == 0:
        raise RuntimeError(f"{op} expects at least a 1-dimensional tensor")
    return wrap_dim(dim, n, op)


class UnsafeSplitBackward0(SplitBackward0):
    """outs = consecutive slices of ``sizes`` along ``dim``, sharing memory with ``x`` but
    not tracked as views (new version counters, no view history)"""

    __slots__ = ()
    is_view = False


class UnsafeSplitWithSizesBackward0(UnsafeSplitBackward0):
    __slots__ = ()


def _split_sizes(tensor: Tensor, split_size: Any, d: int) -> tuple:
    """The piece sizes of ``split(split_size)`` along dimension ``d``."""
    size = tensor._data.shape[d]
    step = int(split_size)
    if step < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got split_size={step}")
    if step == 0:
        if size != 0:
            raise RuntimeError(
                f"split_size can only be 0 if dimension size is 0, but got dimension size of {size}"
            )
        return (0,)
    sizes = (step,) * (size // step) + ((size % step,) if size % step else ())
    return sizes or (0,)


def _checked_sizes(tensor: Tensor, split_sizes: Any, d: int) -> tuple:
    """``split_sizes`` as a tuple, checked against dimension ``d`` (split_with_sizes)."""
    size = tensor._data.shape[d]
    sizes = _sizes_arg((split_sizes,))
    if any(s < 0 for s in sizes):
        raise RuntimeError(
            "split_with_sizes expects split_sizes have only non-negative entries, but got "
            f"split_sizes={list(sizes)}"
        )
    if sum(sizes) != size:
        raise RuntimeError(
            f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's "
            f"size at dimension {d}), but got split_sizes={list(sizes)}"
        )
    return sizes


def _chunk_sizes(input: Tensor, chunks: int, d: int) -> tuple:
    """The piece sizes of ``chunk(chunks)`` along dimension ``d``."""
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    size = input._data.shape[d]
    if size == 0:
        return (0,) * chunks
    step = -(-size // chunks)
    return (step,) * (size // step) + ((size % step,) if size % step else ())


def split(tensor: Tensor, split_size_or_sections: Any, dim: int = 0) -> tuple[Tensor, ...]:
    """Split into pieces of ``split_size`` (the last may be smaller), or of the given sizes.

    Example::

        >>> [t.shape[0] for t in glassgrad.zeros(5, 2).split(2)]
        [2, 2, 1]
        >>> [t.shape[0] for t in glassgrad.zeros(5, 2).split([1, 4])]
        [1, 4]
    """
    d = _split_dim(tensor, dim, "split")
    if isinstance(split_size_or_sections, (int, np.integer)):
        return SplitBackward0.apply(
            tensor, dim=d, sizes=_split_sizes(tensor, split_size_or_sections, d)
        )
    sizes = _checked_sizes(tensor, split_size_or_sections, d)
    return SplitWithSizesBackward0.apply(tensor, dim=d, sizes=sizes)


def split_with_sizes(input: Tensor, split_sizes: Any, dim: int = 0) -> tuple[Tensor, ...]:
    """Split into pieces of the given sizes along ``dim`` (views).

    Example::

        >>> [t.shape[0] for t in glassgrad.zeros(5, 2).split_with_sizes([1, 4])]
        [1, 4]
    """
    d = _split_dim(input, dim, "split_with_sizes")
    return SplitWithSizesBackward0.apply(input, dim=d, sizes=_checked_sizes(input, split_sizes, d))


def unsafe_split(input: Tensor, split_size: int, dim: int = 0) -> tuple[Tensor, ...]:
    """``split`` whose pieces are not tracked as views: they may be changed in place, and
    the input's history does not see it (use only if the input is not used again).

    Example::

        >>> [t.shape[0] for t in glassgrad.zeros(5, 2).unsafe_split(2)]
        [2, 2, 1]
    """
    d = _split_dim(input, dim, "unsafe_split")
    return UnsafeSplitBackward0.apply(input, dim=d, sizes=_split_sizes(input, split_size, d))


def unsafe_split_with_sizes(input: Tensor, split_sizes: Any, dim: int = 0) -> tuple[Tensor, ...]:
    """``split_with_sizes`` whose pieces are not tracked as views (see ``unsafe_split``).

    Example::

        >>> [t.shape[0] for t in glassgrad.zeros(5, 2).unsafe_split_with_sizes([1, 4])]
        [1, 4]
    """
    d = _split_dim(input, dim, "unsafe_split_with_sizes")
    sizes = _checked_sizes(input, split_sizes, d)
    return UnsafeSplitWithSizesBackward0.apply(input, dim=d, sizes=sizes)


def chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
    """Split into ``chunks`` pieces of equal size ``ceil(size / chunks)`` (the last may be
    smaller, and there may be fewer pieces).

    Example::

        >>> [t.shape[0] for t in glassgrad.zeros(5, 2).chunk(3)]
        [2, 2, 1]
    """
    d = _split_dim(input, dim, "chunk")
    sizes = _chunk_sizes(input, chunks, d)
    if input._data.shape[d] == 0:
        return SplitWithSizesBackward0.apply(input, dim=d, sizes=sizes)
    return SplitBackward0.apply(input, dim=d, sizes=sizes)


def unsafe_chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
    """``chunk`` whose pieces are not tracked as views (see ``unsafe_split``).

    Example::

        >>> [t.shape[0] for t in glassgrad.zeros(5, 2).unsafe_chunk(3)]
        [2, 2, 1]
    """
    d = _split_dim(input, dim, "unsafe_chunk")
    return UnsafeSplitBackward0.apply(input, dim=d, sizes=_chunk_sizes(input, chunks, d))


def narrow(input: Tensor, dim: int, start: Any, length: int) -> Tensor:
    """The slice ``start : start + length`` along ``dim`` (a view).

    Example::

        >>> glassgrad.arange(5.0).narrow(0, 1, 3)
        tensor([1., 2., 3.])
    """
    n = check_tensor(input, "narrow")._data.ndim
    if n == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    d = wrap_dim(dim, n, "narrow")
    start = int(array_of(start)) if isinstance(start, Tensor) else int(start)
    length = int(length)
    size = input._data.shape[d]
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    if not -size <= start <= size:
        raise IndexError(
            f"narrow(): start out of range (expected to be in range of [{-size}, {size}], but "
            f"got {start})"
        )
    start = start + size if start < 0 else start
    if start + length > size:
        raise RuntimeError(
            f"narrow(): start ({start}) + length ({length}) exceeds dimension size ({size})."
        )
    return SliceBackward0.apply(input, dim=d, start=start, end=start + length, step=1)


def select(input: Tensor, dim: int, index: int) -> Tensor:
    """The slice at ``index`` along ``dim``, with that dimension removed (a view).

    Example::

        >>> glassgrad.tensor([[1.0, 2.0], [3.0, 4.0]]).select(1, 0)
        tensor([1., 3.])
    """
    shape = check_tensor(input, "select")._data.shape
    if not shape:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = wrap_dim(dim, len(shape), "select")
    index = int(array_of(index)) if isinstance(index, Tensor) else int(index)
    if not -shape[d] <= index < shape[d]:
        raise IndexError(
            f"select(): index {index} out of range for tensor of size {list(shape)} at "
            f"dimension {d}"
        )
    return SelectBackward0.apply(input, dim=d, index=index % shape[d])


register(
    "flatten",
    flatten,
    samples=lambda rng: [
        Sample((randn(rng, 2, 3, 4),)),
        Sample((randn(rng, 2, 3, 4), 1)),
        Sample((randn(rng, 2, 3, 4, 2),), {"start_dim": 1, "end_dim": -2}),
        Sample((randn(rng, 4, 3).T,), note="non-contiguous"),
        Sample((randn(rng),)),
        Sample((randn(rng, 0, 3),)),
    ],
)


register(
    "unflatten",
    unflatten,
    samples=lambda rng: [
        Sample((randn(rng, 2, 12), 1, (3, 4))),
        Sample((randn(rng, 6, 2), 0, (-1, 2))),
        Sample((randn(rng, 4, 6).T, -1, (2, 2)), note="non-contiguous"),
        Sample((randn(rng, 0, 6), 1, (2, 3))),
    ],
)


_movedim_samples = lambda rng: [  # noqa: E731
    Sample((randn(rng, 2, 3, 4), 0, 2)),
    Sample((randn(rng, 2, 3, 4), (0, 1), (-1, 0))),
    Sample((randn(rng, 2, 3, 4).transpose(2, 0, 1), -1, 0), note="non-contiguous"),
]


register("movedim", movedim, samples=_movedim_samples)


register("moveaxis", movedim, samples=_movedim_samples)


register(
    "view_as",
    view_as,
    samples=lambda rng: [Sample((randn(rng, 2, 6), NoGrad(randn(rng, 3, 4))))],
    torch=lambda torch, x, other: x.view_as(other),
)


register(
    "reshape_as",
    reshape_as,
    samples=lambda rng: [
        Sample((randn(rng, 2, 6), NoGrad(randn(rng, 3, 4)))),
        Sample((randn(rng, 4, 3).T, NoGrad(randn(rng, 12))), note="non-contiguous"),
    ],
    torch=lambda torch, x, other: x.reshape_as(other),
)


register(
    "swapdims",
    swapdims,
    samples=lambda rng: [Sample((randn(rng, 2, 3, 4), 0, -1))],
)


register(
    "swapaxes",
    swapaxes,
    samples=lambda rng: [Sample((randn(rng, 2, 3, 4), 2, 1))],
)


register(
    "split",
    split,
    methods=(),  # Tensor.split is _split_method
    samples=lambda rng: [
        Sample((randn(rng, 5, 2), 2)),
        Sample((randn(rng, 2, 5), (1, 4), 1)),
        Sample((randn(rng, 2, 5), [2, 0, 3]), {"dim": -1}),
        Sample((randn(rng, 5, 2).T, 1, 1), note="non-contiguous"),
        Sample((randn(rng, 0, 2), 0)),
    ],
)


register(
    "chunk",
    chunk,
    samples=lambda rng: [
        Sample((randn(rng, 5, 2), 3)),
        Sample((randn(rng, 2, 6), 2, 1)),
        Sample((randn(rng, 5, 2), 4)),
        Sample((randn(rng, 0, 2), 2)),
    ],
)


def _split_samples(rng: np.random.Generator) -> list:
    return [
        Sample((randn(rng, 5, 2), 2)),
        Sample((randn(rng, 5, 2).T, 1, 1), note="non-contiguous"),
        Sample((randn(rng, 0, 2), 0)),
    ]


def _split_with_sizes_samples(rng: np.random.Generator) -> list:
    return [
        Sample((randn(rng, 2, 5), (1, 4), 1)),
        Sample((randn(rng, 2, 5), [2, 0, 3]), {"dim": -1}),
    ]


register("split_with_sizes", split_with_sizes, samples=_split_with_sizes_samples)
register("unsafe_split", unsafe_split, samples=_split_samples)
register("unsafe_split_with_sizes", unsafe_split_with_sizes, samples=_split_with_sizes_samples)
register(
    "unsafe_chunk",
    unsafe_chunk,
    samples=lambda rng: [Sample((randn(rng, 5, 2), 3)), Sample((randn(rng, 2, 6), 2, 1))],
)


register(
    "narrow",
    narrow,
    samples=lambda rng: [
        Sample((randn(rng, 3, 5), 1, 1, 3)),
        Sample((randn(rng, 3, 5), -1, -2, 2)),
        Sample((randn(rng, 5, 3).T, 0, 0, 0), note="non-contiguous, empty result"),
    ],
)


register(
    "select",
    select,
    samples=lambda rng: [
        Sample((randn(rng, 3, 4), 1, 2)),
        Sample((randn(rng, 3, 4), 0, -1)),
        Sample((randn(rng, 4), 0, 3)),
    ],
)


TENSOR_METHODS: dict[str, Any] = {
    "split": _split_method,
}
