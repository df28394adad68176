"""Shape and selection ops beyond the core set: flatten, unflatten, movedim, repeat, tile,
flip, roll, split, chunk, narrow, select, index_select, gather, scatter, scatter_add,
index_add, masked_fill, masked_select, masked_scatter, tril, triu, diag, diagonal,
diagonal_scatter, view_as, reshape_as, swapdims, and ``nn.functional.pad``.

Ops that move values around have a partner that moves gradients back: the gradient of
``gather`` is a ``scatter_add`` into zeros, that of ``scatter_add`` is a ``gather``; likewise
``index_select`` / ``index_add``, ``masked_select`` / ``masked_scatter``, ``diagonal`` /
``diagonal_scatter``, ``flip`` / ``flip``, ``roll`` / ``roll`` back. A backward formula calls
its partner through ``Op.call``, which records it when the gradient is a Tensor (so second
derivatives come for free) and runs its forward directly on arrays.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._tensor import Tensor
from ..autograd.op import Op, apply_inplace
from ._common import broadcast_error, check_tensor, varargs_or_keyword, wrap_dim
from ._registry import NoGrad, Sample, register
from ._samples import randn
from .indexing import SelectBackward0, SliceBackward0
from .pointwise_extra import _not_implemented_node
from .shape import cat, permute, reshape, transpose, view

__all__ = [
    "flatten",
    "unflatten",
    "movedim",
    "repeat",
    "tile",
    "flip",
    "roll",
    "split",
    "chunk",
    "narrow",
    "select",
    "index_select",
    "gather",
    "scatter",
    "scatter_add",
    "index_add",
    "masked_fill",
    "masked_select",
    "masked_scatter",
    "tril",
    "triu",
    "diag",
    "diagonal",
    "diagonal_scatter",
    "view_as",
    "reshape_as",
    "swapdims",
    "pad",
]


# --- helpers ------------------------------------------------------------------------------


def _array(x: Any) -> np.ndarray:
    return x._data if isinstance(x, Tensor) else x


def _index_array(index: Any, op: str, message: str | None = None) -> np.ndarray:
    """The integer array behind ``index`` (a Tensor or array), PyTorch's dtype error if not."""
    array = index._data if isinstance(index, Tensor) else np.asarray(index)
    if array.dtype.kind not in "iu":
        raise RuntimeError(message or f"{op}(): Expected dtype int64 for index")
    return array.astype(np.int64, copy=False)


def _sizes_arg(sizes: tuple) -> tuple:
    """``repeat(2, 3)`` and ``repeat((2, 3))`` alike."""
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list, Tensor, np.ndarray)):
        sizes = tuple(np.asarray(_array(sizes[0])).reshape(-1).tolist())
    return tuple(int(s) for s in sizes)


def _dims_arg(dims: Any) -> tuple:
    if isinstance(dims, (int, np.integer)):
        return (int(dims),)
    return tuple(int(d) for d in dims)


def _along_key(index: np.ndarray, dim: int) -> tuple:
    """The advanced key that addresses, for every position p of ``index``, the element at
    p with coordinate ``dim`` replaced by ``index[p]`` (gather/scatter addressing)."""
    grids = np.indices(index.shape, sparse=True)
    return tuple(index if d == dim else grids[d] for d in range(index.ndim))


def _box(shape: tuple) -> tuple:
    """Basic key of the leading ``shape``-sized corner of an array."""
    return tuple(slice(0, s) for s in shape)


def _check_same_dtype(op: str, self_array: np.ndarray, src: np.ndarray, name: str) -> None:
    if self_array.dtype != src.dtype:
        raise RuntimeError(
            f"{op}(): Expected self.dtype to be equal to {name}.dtype, but got "
            f"{self_array.dtype} and {src.dtype}"
        )


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


def _split_method(self: Tensor, split_size: Any, dim: int = 0) -> tuple:
    # Tensor.split names its argument split_size (torch.split: split_size_or_sections).
    return split(self, split_size, dim)


# --- repeat, tile ------------------------------------------------------------------------


class RepeatBackward0(Op):
    """out = the input tiled ``repeats`` times along each dimension"""

    __slots__ = ("self_sizes", "repeats")

    def forward(self, x, repeats):
        self.self_sizes, self.repeats = x.shape, repeats
        padded = x.reshape((1,) * (len(repeats) - x.ndim) + x.shape)
        return np.tile(padded, repeats)

    def backward(self, F, grad):
        if not self.repeats:
            return grad
        sizes = (1,) * (len(self.repeats) - len(self.self_sizes)) + self.self_sizes
        # Each output dim of size r*s splits into (r, s); summing the r's folds the copies.
        interleaved = tuple(v for pair in zip(self.repeats, sizes) for v in pair)
        grad = F.sum(F.reshape(grad, interleaved), tuple(range(0, len(interleaved), 2)))
        return F.reshape(grad, self.self_sizes)


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

    __slots__ = ("dims",)

    def forward(self, x, dims):
        self.dims = dims
        return np.flip(x, dims).copy() if x.ndim else x.copy()

    def backward(self, F, grad):
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

    __slots__ = ("shifts", "dims")

    def forward(self, x, shifts, dims):
        self.shifts, self.dims = shifts, dims
        if not x.ndim:
            return x.copy()
        if dims is None:
            return np.roll(x, shifts[0])
        return np.roll(x, shifts, axis=dims)

    def backward(self, F, grad):
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


# --- split, chunk, narrow, select -------------------------------------------------------


class SplitBackward0(Op):
    """outs = consecutive slices of ``sizes`` along ``dim`` (views)"""

    __slots__ = ("dim", "sizes")
    is_view = True

    def forward(self, x, dim, sizes):
        self.dim, self.sizes = dim, sizes
        lead = (slice(None),) * dim
        starts = np.cumsum((0,) + sizes[:-1]).tolist()
        return tuple(x[lead + (slice(a, a + s),)] for a, s in zip(starts, sizes))

    def backward(self, F, grads):
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


def split(tensor: Tensor, split_size_or_sections: Any, dim: int = 0) -> tuple:
    """Split into pieces of ``split_size`` (the last may be smaller), or of the given sizes.

    Example::

        >>> [t.shape[0] for t in glassgrad.zeros(5, 2).split(2)]
        [2, 2, 1]
        >>> [t.shape[0] for t in glassgrad.zeros(5, 2).split([1, 4])]
        [1, 4]
    """
    d = _split_dim(tensor, dim, "split")
    size = tensor._data.shape[d]
    if isinstance(split_size_or_sections, (int, np.integer)):
        step = int(split_size_or_sections)
        if step < 0:
            raise RuntimeError(
                f"split expects split_size be non-negative, but got split_size={step}"
            )
        if step == 0:
            if size != 0:
                raise RuntimeError(
                    "split_size can only be 0 if dimension size is 0, but got dimension size "
                    f"of {size}"
                )
            sizes: tuple = (0,)
        else:
            sizes = (step,) * (size // step) + ((size % step,) if size % step else ())
            sizes = sizes or (0,)
        return SplitBackward0.apply(tensor, dim=d, sizes=sizes)
    sizes = _sizes_arg((split_size_or_sections,))
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
    return SplitWithSizesBackward0.apply(tensor, dim=d, sizes=sizes)


def chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple:
    """Split into ``chunks`` pieces of equal size ``ceil(size / chunks)`` (the last may be
    smaller, and there may be fewer pieces).

    Example::

        >>> [t.shape[0] for t in glassgrad.zeros(5, 2).chunk(3)]
        [2, 2, 1]
    """
    d = _split_dim(input, dim, "chunk")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    size = input._data.shape[d]
    if size == 0:
        return SplitWithSizesBackward0.apply(input, dim=d, sizes=(0,) * chunks)
    step = -(-size // chunks)
    sizes = (step,) * (size // step) + ((size % step,) if size % step else ())
    return SplitBackward0.apply(input, dim=d, sizes=sizes)


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
    start = int(_array(start)) if isinstance(start, Tensor) else int(start)
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
    index = int(_array(index)) if isinstance(index, Tensor) else int(index)
    if not -shape[d] <= index < shape[d]:
        raise IndexError(
            f"select(): index {index} out of range for tensor of size {list(shape)} at "
            f"dimension {d}"
        )
    return SelectBackward0.apply(input, dim=d, index=index % shape[d])


# --- index_select, index_add --------------------------------------------------------------


def _index_key(dim: int, index: np.ndarray) -> tuple:
    return (slice(None),) * dim + (index,)


class IndexSelectBackward0(Op):
    """out = the slices ``index`` along ``dim``; the gradient is an index_add into zeros"""

    __slots__ = ("self_sizes", "dim", "index")

    def forward(self, x, dim, index):
        self.self_sizes, self.dim, self.index = x.shape, dim, index
        if x.ndim == 0:
            return x.reshape(1)[index.reshape(-1)].reshape(())
        return x[_index_key(dim, index)]

    def backward(self, F, grad):
        zeros = np.zeros(self.self_sizes, dtype=_array(grad).dtype)
        return IndexAddBackward0.call(zeros, grad, dim=self.dim, index=self.index)


def index_select(input: Tensor, dim: int, index: Any) -> Tensor:
    """The entries at positions ``index`` (a 1-D integer tensor) along ``dim``.

    Example::

        >>> x = glassgrad.tensor([[1.0, 2.0, 3.0]])
        >>> x.index_select(1, glassgrad.tensor([2, 0]))
        tensor([[3., 1.]])
    """
    shape = check_tensor(input, "index_select")._data.shape
    d = wrap_dim(dim, len(shape), "index_select")
    idx = _index_array(
        index, "index_select", "index_select(): Expected dtype int32 or int64 for index"
    )
    if idx.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    if not shape and idx.size != 1:
        raise RuntimeError(
            f"index_select(): Index to scalar can have only 1 value, got {idx.size} value(s)"
        )
    size = shape[d] if shape else 1
    if idx.size and (idx.min() < -size or idx.max() >= size):
        bad = idx.min() if idx.min() < -size else idx.max()
        raise IndexError(
            f"index_select(): index out of range in self (index {bad} for dimension {d} with "
            f"size {size})"
        )
    return IndexSelectBackward0.apply(input, dim=d, index=idx.reshape(-1) if shape else idx)


class IndexAddBackward0(Op):
    """out = input with ``alpha * source`` added at positions ``index`` along ``dim``"""

    refuses_full_overlap = True

    # The source is saved when its gradient is wanted, as PyTorch saves it (for its shape).
    saved_inputs = (1,)
    saved_for = ((1,),)
    __slots__ = ("dim", "index", "alpha")

    def forward(self, x, source, dim, index, alpha=1):
        self.dim, self.index, self.alpha = dim, index, alpha
        out = x.astype(np.result_type(x, source), copy=True)
        values = source if alpha == 1 else source * alpha
        if out.ndim == 0:
            np.add.at(out.reshape(1), index.reshape(-1), values.reshape(-1))
        else:
            np.add.at(out, _index_key(dim, index), values)
        return out

    def backward(self, F, grad):
        needs = self.needs_input_grad
        grad_source = None
        if needs[1]:
            grad_source = IndexSelectBackward0.call(grad, dim=self.dim, index=self.index)
            if self.alpha != 1:
                grad_source = grad_source * self.alpha
        return (grad if needs[0] else None), grad_source


def _check_index_add(input: Tensor, d: int, idx: np.ndarray, source: Any, op: str) -> None:
    shape, src = input._data.shape, _array(source)
    if idx.ndim > 1:
        raise IndexError(f"{op}(): Index is supposed to be a vector")
    expected = shape[:d] + (idx.size,) + shape[d + 1 :] if shape else (idx.size,)
    if shape and src.shape != expected:
        if src.ndim != len(shape) or src.shape[d] != idx.size:
            raise RuntimeError(
                f"{op}(): Number of indices ({idx.size}) should be equal to source.size(dim): "
                f"({src.shape[d] if src.ndim > d else 1}), for dim: {d}"
            )
        raise RuntimeError(
            f"{op}(): source {list(src.shape)} must have the shape of self {list(shape)} except "
            f"at dimension {d} (of size len(index) = {idx.size})"
        )
    size = shape[d] if shape else 1
    if idx.size and (idx.min() < -size or idx.max() >= size):
        bad = idx.min() if idx.min() < -size else idx.max()
        raise RuntimeError(
            f"{op}(): index {bad} is out of bounds for dimension {d} with size {size}"
        )


def index_add(input: Tensor, dim: int, index: Any, source: Any, *, alpha: float = 1) -> Tensor:
    """A copy of ``input`` with ``alpha * source`` added at ``index`` along ``dim``
    (repeated indices accumulate).

    Example::

        >>> glassgrad.zeros(3).index_add(0, glassgrad.tensor([0, 0]), glassgrad.ones(2))
        tensor([2., 0., 0.])
    """
    d = wrap_dim(dim, check_tensor(input, "index_add")._data.ndim, "index_add")
    idx = _index_array(index, "index_add", "index_add_(): Expected dtype int32/int64 for index")
    check_tensor(source, "index_add", "source", 4)
    _check_index_add(input, d, idx, source, "index_add")
    return IndexAddBackward0.apply(input, source, dim=d, index=idx, alpha=alpha)


def index_add_(input: Tensor, dim: int, index: Any, source: Any, *, alpha: float = 1) -> Tensor:
    """In-place ``index_add``."""
    d = wrap_dim(dim, check_tensor(input, "index_add_")._data.ndim, "index_add_")
    idx = _index_array(index, "index_add_", "index_add_(): Expected dtype int32/int64 for index")
    _check_index_add(input, d, idx, check_tensor(source, "index_add_", "source", 4), "index_add_")
    return apply_inplace(IndexAddBackward0, input, source, dim=d, index=idx, alpha=alpha)


# --- gather, scatter, scatter_add ---------------------------------------------------------


def _gather_array(x: np.ndarray, dim: int, index: np.ndarray) -> np.ndarray:
    if x.ndim == 0:
        return x.reshape(1)[index.reshape(-1)].reshape(index.shape)
    return x[_along_key(index, dim)]


def _scatter_array(
    out: np.ndarray, dim: int, index: np.ndarray, src: Any, accumulate: bool
) -> np.ndarray:
    """Write (or add) ``src`` into ``out`` in place at gather addressing; returns ``out``."""
    if isinstance(src, np.ndarray) and src.ndim:
        src = src[_box(index.shape)]
    target = out.reshape(1) if out.ndim == 0 else out
    key = (index.reshape(-1),) if out.ndim == 0 else _along_key(index, dim)
    if accumulate:
        np.add.at(target, key, np.reshape(src, index.shape) if out.ndim == 0 else src)
    else:
        target[key] = np.reshape(src, -1) if out.ndim == 0 else src
    return out


class GatherBackward0(Op):
    """out[p] = input[p with coordinate ``dim`` replaced by index[p]]"""

    saved_inputs = (0,)  # unread, but saved as PyTorch saves it (in-place checks)
    __slots__ = ("self_sizes", "dim", "index")

    def forward(self, x, dim, index):
        self.self_sizes, self.dim, self.index = x.shape, dim, index
        return _gather_array(x, dim, index)

    def backward(self, F, grad):
        zeros = np.zeros(self.self_sizes, dtype=_array(grad).dtype)
        return ScatterAddBackward0.call(zeros, grad, dim=self.dim, index=self.index)


def _scatter_src_grad(F: Any, grad: Any, dim: int, index: np.ndarray, src_shape: tuple) -> Any:
    """Gradient of the ``src`` of a scatter: grad gathered at index, zero outside its box."""
    g = GatherBackward0.call(grad, dim=dim, index=index)
    if tuple(src_shape) != index.shape:
        g = F.index_zeros_add(tuple(src_shape), _box(index.shape), g, True)
    return g


class ScatterBackward0(Op):
    """out = input with ``src`` written at gather addressing (edges: input, src)"""

    refuses_full_overlap = True

    __slots__ = ("dim", "index", "src_sizes")

    def forward(self, x, src, dim, index):
        self.dim, self.index, self.src_sizes = dim, index, src.shape
        return _scatter_array(x.copy(), dim, index, src, accumulate=False)

    def backward(self, F, grad):
        needs = self.needs_input_grad
        grad_self = grad_src = None
        if needs[0]:
            keep = _scatter_array(
                np.ones(grad.shape, dtype=bool), self.dim, self.index, False, False
            )
            grad_self = F.where(keep, grad, 0.0)
        if needs[1]:
            grad_src = _scatter_src_grad(F, grad, self.dim, self.index, self.src_sizes)
        return grad_self, grad_src


class ScatterBackward1(Op):
    """out = input with the number ``value`` written at gather addressing"""

    __slots__ = ("dim", "index", "value")

    def forward(self, x, dim, index, value):
        self.dim, self.index, self.value = dim, index, value
        return _scatter_array(x.copy(), dim, index, value, accumulate=False)

    def backward(self, F, grad):
        keep = _scatter_array(np.ones(grad.shape, dtype=bool), self.dim, self.index, False, False)
        return F.where(keep, grad, 0.0)


class ScatterAddBackward0(Op):
    """out = input with ``src`` added at gather addressing (repeated indices accumulate)"""

    refuses_full_overlap = True

    __slots__ = ("dim", "index", "src_sizes")

    def forward(self, x, src, dim, index):
        self.dim, self.index, self.src_sizes = dim, index, src.shape
        out = x.astype(np.result_type(x, src), copy=True)
        return _scatter_array(out, dim, index, src, accumulate=True)

    def backward(self, F, grad):
        needs = self.needs_input_grad
        grad_src = None
        if needs[1]:
            grad_src = _scatter_src_grad(F, grad, self.dim, self.index, self.src_sizes)
        return (grad if needs[0] else None), grad_src


def _check_gather_index(
    op: str, shape: tuple, d: int, idx: np.ndarray, src_shape: tuple | None = None
) -> None:
    """PyTorch's checks: same ndim, index no larger than self (except at dim) and src."""
    if max(idx.ndim, 1) != max(len(shape), 1):
        raise RuntimeError(
            f"{op}(): Index tensor must have the same number of dimensions as input tensor "
            f"(index {list(idx.shape)}, input {list(shape)})"
        )
    if src_shape is not None and max(len(src_shape), 1) != max(idx.ndim, 1):
        raise RuntimeError(
            f"{op}(): Index tensor must have the same number of dimensions as src tensor "
            f"(index {list(idx.shape)}, src {list(src_shape)})"
        )
    for i, s in enumerate(idx.shape):
        too_big_self = i != d and s > shape[i]
        too_big_src = src_shape is not None and len(src_shape) and s > src_shape[i]
        if too_big_self or too_big_src:
            if src_shape is None:
                raise RuntimeError(
                    f"{op}(): Size does not match at dimension {i} expected index "
                    f"{list(idx.shape)} to be no larger than self {list(shape)} apart from "
                    f"dimension {d}"
                )
            raise RuntimeError(
                f"{op}(): Expected index {list(idx.shape)} to be no larger than self "
                f"{list(shape)} apart from dimension {d} and to be no larger size than src "
                f"{list(src_shape)}"
            )
    size = shape[d] if shape else 1
    if idx.size and (idx.min() < 0 or idx.max() >= size):
        bad = idx.min() if idx.min() < 0 else idx.max()
        raise RuntimeError(
            f"{op}(): index {bad} is out of bounds for dimension {d} with size {size}"
        )


def gather(input: Tensor, dim: int, index: Any, *, sparse_grad: bool = False) -> Tensor:
    """``out[i][j][k] = input[i][index[i][j][k]][k]`` for ``dim=1`` (and likewise for other
    dims); ``index`` has the input's number of dimensions and is no larger elsewhere.

    Example::

        >>> x = glassgrad.tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> x.gather(1, glassgrad.tensor([[1], [0]]))
        tensor([[2.],
                [3.]])
    """
    shape = check_tensor(input, "gather")._data.shape
    d = wrap_dim(dim, len(shape), "gather")
    idx = _index_array(index, "gather", "gather(): Expected dtype int64 for index")
    _check_gather_index("gather", shape, d, idx)
    return GatherBackward0.apply(input, dim=d, index=idx)


def _scatter_args(op: str, input: Tensor, dim: int, index: Any, src: Any) -> tuple:
    shape = check_tensor(input, op)._data.shape
    d = wrap_dim(dim, len(shape), op)
    idx = _index_array(index, op, f"{op}(): Expected dtype int64 for index")
    if isinstance(src, Tensor):
        _check_same_dtype(op, input._data, src._data, "src")
        _check_gather_index(op, shape, d, idx, src._data.shape)
    else:
        _check_gather_index(op, shape, d, idx)
    return d, idx


def _scatter_with_reduce(x: np.ndarray, *rest: Any) -> np.ndarray:
    """scatter(..., reduce="add" | "multiply"): repeated indices accumulate."""
    *src, (dim, index, reduce, value) = rest
    values = src[0] if src else np.full(index.shape, value, x.dtype)
    out = x.copy()
    key = _along_key(index, dim)
    taken = values[tuple(slice(0, n) for n in index.shape)].astype(x.dtype, copy=False)
    (np.add if reduce == "add" else np.multiply).at(out, key, taken)
    return out


# PyTorch has no derivative for scatter with reduce=: a NotImplemented node.
ScatterReduceNotImplemented = _not_implemented_node("scatter", _scatter_with_reduce)


def _check_reduce(reduce: str) -> None:
    if reduce not in ("add", "multiply"):
        raise RuntimeError("reduce argument must be either add or multiply.")


def scatter(
    input: Tensor,
    dim: int,
    index: Any,
    src: Any = None,
    *,
    value: Any = None,
    reduce: str | None = None,
) -> Tensor:
    """A copy of ``input`` with ``src`` (a tensor, or a number) written at gather addressing:
    ``out[i][index[i][j]] = src[i][j]`` for ``dim=1``. With repeated indices the written
    value is unspecified, as in PyTorch; with ``reduce="add"`` or ``"multiply"`` they
    accumulate (no gradient, as in PyTorch).

    Example::

        >>> glassgrad.zeros(2, 3).scatter(1, glassgrad.tensor([[2], [0]]), 1.0)
        tensor([[0., 0., 1.],
                [1., 0., 0.]])
    """
    src = value if src is None else src
    if src is None:
        raise TypeError("scatter(): expected a src tensor or a value")
    d, idx = _scatter_args("scatter", input, dim, index, src)
    if reduce is not None:
        _check_reduce(reduce)
        if isinstance(src, Tensor):
            return ScatterReduceNotImplemented.apply(input, src, after=(d, idx, reduce, None))
        return ScatterReduceNotImplemented.apply(input, after=(d, idx, reduce, src))
    if isinstance(src, Tensor):
        return ScatterBackward0.apply(input, src, dim=d, index=idx)
    return ScatterBackward1.apply(input, dim=d, index=idx, value=src)


def scatter_(
    input: Tensor,
    dim: int,
    index: Any,
    src: Any = None,
    *,
    value: Any = None,
    reduce: str | None = None,
) -> Tensor:
    """In-place ``scatter``."""
    src = value if src is None else src
    d, idx = _scatter_args("scatter_", input, dim, index, src)
    if reduce is not None:
        _check_reduce(reduce)
        if isinstance(src, Tensor):
            return apply_inplace(
                ScatterReduceNotImplemented, input, src, after=(d, idx, reduce, None)
            )
        return apply_inplace(ScatterReduceNotImplemented, input, after=(d, idx, reduce, src))
    if isinstance(src, Tensor):
        return apply_inplace(ScatterBackward0, input, src, dim=d, index=idx)
    return apply_inplace(ScatterBackward1, input, dim=d, index=idx, value=src)


def scatter_add(input: Tensor, dim: int, index: Any, src: Tensor) -> Tensor:
    """A copy of ``input`` with ``src`` added at gather addressing (repeats accumulate):
    ``out[i][index[i][j]] += src[i][j]`` for ``dim=1``.

    Example::

        >>> glassgrad.zeros(3).scatter_add(0, glassgrad.tensor([0, 0, 2]), glassgrad.ones(3))
        tensor([2., 0., 1.])
    """
    check_tensor(src, "scatter_add", "src", 4)
    d, idx = _scatter_args("scatter_add", input, dim, index, src)
    return ScatterAddBackward0.apply(input, src, dim=d, index=idx)


def scatter_add_(input: Tensor, dim: int, index: Any, src: Tensor) -> Tensor:
    """In-place ``scatter_add``."""
    check_tensor(src, "scatter_add_", "src", 4)
    d, idx = _scatter_args("scatter_add_", input, dim, index, src)
    return apply_inplace(ScatterAddBackward0, input, src, dim=d, index=idx)


# --- masked_fill, masked_select, masked_scatter -----------------------------------------


def _mask_array(mask: Any, op: str) -> np.ndarray:
    array = mask._data if isinstance(mask, Tensor) else np.asarray(mask)
    if array.dtype != np.bool_:
        kind = {"f": "float", "i": "long", "u": "unsigned char"}.get(array.dtype.kind, array.dtype)
        raise RuntimeError(f"{op} only supports boolean masks, but got mask with dtype {kind}")
    return array


def _broadcast_shape(op: str, a: np.ndarray, b: np.ndarray) -> tuple:
    try:
        return np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        raise broadcast_error(op, a, b) from None


_MASKED_FILL_OVERLAP = (
    "Use of masked_fill_ on expanded tensors is deprecated. Please clone() the tensor before "
    "performing this operation. This also applies to advanced indexing e.g. tensor[mask] = scalar"
)


class MaskedFillBackward0(Op):
    """out = input with ``value`` (a number) where ``mask`` is true"""

    __slots__ = ("mask",)
    overlap_warning = _MASKED_FILL_OVERLAP

    @staticmethod
    def write_overlapping(data, mask, value):
        data[np.broadcast_to(mask, data.shape)] = value

    def forward(self, x, mask, value):
        self.mask = mask
        return np.where(mask, np.asarray(value).astype(x.dtype), x)

    def backward(self, F, grad):
        return F.where(self.mask, 0.0, grad)


class MaskedFillBackward1(Op):
    """out = input with the 0-d tensor ``value`` where ``mask`` is true"""

    __slots__ = ("mask",)
    overlap_warning = _MASKED_FILL_OVERLAP

    @staticmethod
    def write_overlapping(data, value, mask):
        data[np.broadcast_to(mask, data.shape)] = value

    def forward(self, x, value, mask):
        self.mask = mask
        return np.where(mask, value.astype(x.dtype), x)

    def backward(self, F, grad):
        needs = self.needs_input_grad
        grad_self = F.where(self.mask, 0.0, grad) if needs[0] else None
        return grad_self, (F.where(self.mask, grad, 0.0) if needs[1] else None)


def _masked_fill_args(op: str, input: Tensor, mask: Any, value: Any) -> np.ndarray:
    m = _mask_array(mask, op)
    _broadcast_shape(op, m, input._data)
    if isinstance(value, Tensor) and value._data.ndim:
        raise RuntimeError(
            f"{op} only supports a 0-dimensional value tensor, but got tensor with "
            f"{value._data.ndim} dimension(s)."
        )
    return m


def masked_fill(input: Tensor, mask: Any, value: Any) -> Tensor:
    """``input`` with ``value`` where the boolean ``mask`` (broadcast) is true.

    Example::

        >>> x = glassgrad.tensor([1.0, -2.0, 3.0])
        >>> x.masked_fill(x < 0, 0.0)
        tensor([1., 0., 3.])
    """
    m = _masked_fill_args("masked_fill_", check_tensor(input, "masked_fill"), mask, value)
    if isinstance(value, Tensor):
        return MaskedFillBackward1.apply(input, value, mask=m)
    return MaskedFillBackward0.apply(input, mask=m, value=value)


def masked_fill_(input: Tensor, mask: Any, value: Any) -> Tensor:
    """In-place ``masked_fill`` (the mask must broadcast to ``input``'s shape)."""
    m = _masked_fill_args("masked_fill_", check_tensor(input, "masked_fill_"), mask, value)
    if isinstance(value, Tensor):
        return apply_inplace(MaskedFillBackward1, input, value, mask=m)
    return apply_inplace(MaskedFillBackward0, input, mask=m, value=value)


class MaskedSelectBackward0(Op):
    """out = 1-D tensor of the entries of input (broadcast with mask) where mask is true"""

    saved_inputs = (0,)  # unread, but saved as PyTorch saves it (in-place checks)
    __slots__ = ("mask",)

    def forward(self, x, mask):
        shape = np.broadcast_shapes(x.shape, mask.shape)
        self.mask = np.broadcast_to(mask, shape)
        return np.broadcast_to(x, shape)[self.mask]

    def backward(self, F, grad):
        zeros = np.zeros(self.mask.shape, dtype=_array(grad).dtype)
        return MaskedScatterBackward0.call(zeros, grad, mask=self.mask)


class MaskedScatterBackward0(Op):
    """out = input with the first entries of ``source`` written where ``mask`` is true"""

    __slots__ = ("mask", "source_sizes")

    def forward(self, x, source, mask):
        self.mask = np.broadcast_to(mask, x.shape)
        self.source_sizes = source.shape
        out = x.copy()
        out[self.mask] = source.reshape(-1)[: int(self.mask.sum())]
        return out

    def backward(self, F, grad):
        needs = self.needs_input_grad
        grad_self = F.where(self.mask, 0.0, grad) if needs[0] else None
        grad_source = None
        if needs[1]:
            grad_source = MaskedSelectBackward0.call(grad, mask=self.mask)
            numel, count = math.prod(self.source_sizes), int(self.mask.sum())
            if numel != count:
                grad_source = F.index_zeros_add((numel,), (slice(0, count),), grad_source, True)
            grad_source = F.reshape(grad_source, self.source_sizes)
        return grad_self, grad_source


def masked_select(input: Tensor, mask: Any) -> Tensor:
    """The entries of ``input`` where the boolean ``mask`` is true, as a 1-D tensor (both
    are broadcast first).

    Example::

        >>> x = glassgrad.tensor([[1.0, -2.0], [-3.0, 4.0]])
        >>> x.masked_select(x > 0)
        tensor([1., 4.])
    """
    m = _mask_array(mask, "masked_select:")
    _broadcast_shape("masked_select", m, check_tensor(input, "masked_select")._data)
    return MaskedSelectBackward0.apply(input, mask=m)


def masked_scatter(input: Tensor, mask: Any, source: Tensor) -> Tensor:
    """A copy of ``input`` with consecutive entries of ``source`` written where ``mask`` is
    true (row-major order).

    Example::

        >>> x = glassgrad.zeros(4)
        >>> x.masked_scatter(glassgrad.tensor([True, False, True, False]), glassgrad.ones(2))
        tensor([1., 0., 1., 0.])
    """
    m = _mask_array(mask, "masked_scatter_")
    x = check_tensor(input, "masked_scatter")._data
    src = check_tensor(source, "masked_scatter", "source", 3)._data
    shape = _broadcast_shape("masked_scatter", m, x)
    _check_same_dtype("masked_scatter", x, src, "source")
    count = int(np.broadcast_to(m, shape).sum())
    if src.size < count:
        raise RuntimeError(
            f"masked_scatter: Number of elements of source ({src.size}) < number of ones in "
            f"mask ({count})"
        )
    if shape != x.shape:
        from .shape import expand

        input = expand(input, shape)
    return MaskedScatterBackward0.apply(input, source, mask=m)


# --- tril, triu ---------------------------------------------------------------------------


def _triangle_mask(shape: tuple, diagonal: int, lower: bool) -> np.ndarray:
    rows, cols = shape[-2:]
    below = np.tri(rows, cols, diagonal, dtype=bool)
    return below if lower else ~np.tri(rows, cols, diagonal - 1, dtype=bool)


class TrilBackward0(Op):
    """out = input with entries above diagonal ``diagonal`` set to zero"""

    __slots__ = ("diagonal",)
    lower = True

    def forward(self, x, diagonal):
        self.diagonal = diagonal
        return np.where(_triangle_mask(x.shape, diagonal, self.lower), x, x.dtype.type(0))

    def backward(self, F, grad):
        return F.where(_triangle_mask(grad.shape, self.diagonal, self.lower), grad, 0.0)


class TriuBackward0(TrilBackward0):
    """out = input with entries below diagonal ``diagonal`` set to zero"""

    __slots__ = ()
    lower = False


def _triangle(node: type, name: str) -> Any:
    def op(input: Tensor, diagonal: int = 0) -> Tensor:
        n = check_tensor(input, name)._data.ndim
        if n < 2:
            raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
        return node.apply(input, diagonal=int(diagonal))

    def inplace(input: Tensor, diagonal: int = 0) -> Tensor:
        if check_tensor(input, name + "_")._data.ndim < 2:
            raise RuntimeError(f"{name}_: input tensor must have at least 2 dimensions")
        return apply_inplace(node, input, diagonal=int(diagonal))

    side, keep = ("lower", "on and below") if name == "tril" else ("upper", "on and above")
    rows = ("[1., 0.]", "[1., 1.]") if name == "tril" else ("[1., 1.]", "[0., 1.]")
    op.__name__ = op.__qualname__ = name
    op.__doc__ = (
        f"The {side} triangle of the matrices in the last two dims: entries {keep} diagonal\n"
        f"``diagonal`` (0: main, >0 above, <0 below) are kept, the others become zero.\n\n"
        f"Example::\n\n    >>> glassgrad.ones(2, 2).{name}()\n"
        f"    tensor([{rows[0]},\n            {rows[1]}])\n"
    )
    inplace.__name__ = inplace.__qualname__ = name + "_"
    inplace.__doc__ = f"In-place ``{name}``."
    return op, inplace


tril, tril_ = _triangle(TrilBackward0, "tril")
triu, triu_ = _triangle(TriuBackward0, "triu")


# --- diagonal, diag, diagonal_scatter ---------------------------------------------------


def _diagonal_view(x: np.ndarray, offset: int, dim1: int, dim2: int) -> np.ndarray:
    """The diagonal as a view that is writable when ``x`` is (NumPy returns it read-only)."""
    out = np.diagonal(x, offset, dim1, dim2)
    if x.flags.writeable:
        out.flags.writeable = True
    return out


class DiagonalBackward0(Op):
    """out = the diagonal ``offset`` of the planes (dim1, dim2), as a last dimension (a view)"""

    __slots__ = ("self_sizes", "offset", "dim1", "dim2")
    is_view = True

    def forward(self, x, offset, dim1, dim2):
        self.self_sizes, self.offset, self.dim1, self.dim2 = x.shape, offset, dim1, dim2
        return _diagonal_view(x, offset, dim1, dim2)

    def backward(self, F, grad):
        zeros = np.zeros(self.self_sizes, dtype=_array(grad).dtype)
        return DiagonalScatterBackward0.call(
            zeros,
            grad,
            offset=self.offset,
            dim1=self.dim1,
            dim2=self.dim2,
        )


class DiagonalBackward0_copy(DiagonalBackward0):  # noqa: N801 - PyTorch's name for diag(2-D)
    """out = a copy of the diagonal ``offset`` of a matrix (``diag`` of a 2-D input)"""

    __slots__ = ()
    is_view = False

    def forward(self, x, offset, dim1, dim2):
        return DiagonalBackward0.forward(self, x, offset, dim1, dim2).copy()


class DiagonalScatterBackward0(Op):
    """out = input with ``src`` written on the diagonal ``offset`` of the planes (dim1, dim2)"""

    __slots__ = ("offset", "dim1", "dim2")

    def forward(self, x, src, offset, dim1, dim2):
        self.offset, self.dim1, self.dim2 = offset, dim1, dim2
        out = x.copy()
        _diagonal_view(out, offset, dim1, dim2)[...] = src
        return out

    def backward(self, F, grad):
        needs = self.needs_input_grad
        params = {"offset": self.offset, "dim1": self.dim1, "dim2": self.dim2}
        grad_self = grad_src = None
        if needs[0]:
            keep = np.ones(grad.shape, dtype=bool)
            _diagonal_view(keep, **params)[...] = False
            grad_self = F.where(keep, grad, 0.0)
        if needs[1]:
            grad_src = DiagonalBackward0_copy.call(grad, **params)
        return grad_self, grad_src


class DiagEmbedBackward0(Op):
    """out = the square matrix with the vector input on diagonal ``offset`` (``diag`` of 1-D)"""

    __slots__ = ("offset",)

    def forward(self, x, offset):
        self.offset = offset
        n = x.shape[0] + abs(offset)
        out = np.zeros((n, n), dtype=x.dtype)
        _diagonal_view(out, offset, 0, 1)[...] = x
        return out

    def backward(self, F, grad):
        return DiagonalBackward0_copy.call(grad, offset=self.offset, dim1=0, dim2=1)


def _diagonal_dims(op: str, n: int, dim1: int, dim2: int) -> tuple:
    d1, d2 = wrap_dim(dim1, n, op), wrap_dim(dim2, n, op)
    if d1 == d2:
        raise RuntimeError(f"{op}: diagonal dimensions cannot be identical {dim1}, {dim2}")
    return d1, d2


def diagonal(input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """The diagonal ``offset`` of the planes spanned by ``dim1`` and ``dim2``, appended as
    the last dimension (a view).

    Example::

        >>> glassgrad.tensor([[1.0, 2.0], [3.0, 4.0]]).diagonal()
        tensor([1., 4.])
    """
    n = check_tensor(input, "diagonal")._data.ndim
    if n < 2:
        raise RuntimeError(f"diagonal: input must have at least 2 dimensions, got {n}")
    d1, d2 = _diagonal_dims("diagonal", n, dim1, dim2)
    return DiagonalBackward0.apply(input, offset=int(offset), dim1=d1, dim2=d2)


def diagonal_scatter(
    input: Tensor, src: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1
) -> Tensor:
    """A copy of ``input`` with ``src`` written on its diagonal (see ``diagonal``).

    Example::

        >>> glassgrad.zeros(2, 2).diagonal_scatter(glassgrad.ones(2))
        tensor([[1., 0.],
                [0., 1.]])
    """
    x = check_tensor(input, "diagonal_scatter")._data
    src_array = check_tensor(src, "diagonal_scatter", "src", 2)._data
    if x.ndim < 2:
        raise RuntimeError(f"diagonal_scatter: input must have at least 2 dimensions, got {x.ndim}")
    d1, d2 = _diagonal_dims("diagonal_scatter", x.ndim, dim1, dim2)
    expected = np.diagonal(x, offset, d1, d2).shape
    if src_array.shape != expected:
        raise RuntimeError(
            f"diagonal_scatter: expected src to have a size equal to the slice of self. src "
            f"size = {list(src_array.shape)}, slice size = {list(expected)}"
        )
    return DiagonalScatterBackward0.apply(input, src, offset=int(offset), dim1=d1, dim2=d2)


def diag(input: Tensor, diagonal: int = 0) -> Tensor:
    """For a vector, the square matrix with it on diagonal ``diagonal``; for a matrix, a
    copy of its diagonal ``diagonal``.

    Example::

        >>> glassgrad.diag(glassgrad.tensor([1.0, 2.0]))
        tensor([[1., 0.],
                [0., 2.]])
    """
    n = check_tensor(input, "diag")._data.ndim
    if n == 1:
        return DiagEmbedBackward0.apply(input, offset=int(diagonal))
    if n == 2:
        return DiagonalBackward0_copy.apply(input, offset=int(diagonal), dim1=0, dim2=1)
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {n}D")


# --- nn.functional.pad --------------------------------------------------------------------


class ConstantPadNdBackward0(Op):
    """out = input padded (or cropped, for negative pads) with ``value`` on the last dims"""

    __slots__ = ("self_sizes", "pad")

    def forward(self, x, pad, value):
        self.self_sizes, self.pad = x.shape, pad
        src, dst, shape = _constant_pad_keys(x.shape, pad)
        out = np.full(shape, value, dtype=x.dtype)
        out[dst] = x[src]
        return out

    def backward(self, F, grad):
        src, dst, _ = _constant_pad_keys(self.self_sizes, self.pad)
        return F.index_zeros_add(self.self_sizes, src, grad[dst], True)


def _constant_pad_keys(shape: tuple, pad: tuple) -> tuple:
    """Keys of the kept part in the input and in the output, and the output shape."""
    src, dst, out = [slice(None)] * len(shape), [slice(None)] * len(shape), list(shape)
    for i in range(len(pad) // 2):
        d = len(shape) - 1 - i
        left, right = pad[2 * i], pad[2 * i + 1]
        out[d] = shape[d] + left + right
        kept = shape[d] - max(-left, 0) - max(-right, 0)
        src[d] = slice(max(-left, 0), max(-left, 0) + max(kept, 0))
        dst[d] = slice(max(left, 0), max(left, 0) + max(kept, 0))
    return tuple(src), tuple(dst), tuple(out)


class _IndexPad(Op):
    """out = input gathered at padded positions on the last dims (reflect / replicate)"""

    # Saved as PyTorch saves it (its backward node takes the input): in-place changes to the
    # input are caught, and under create_graph the gradient depends on it.
    saved_inputs = (0,)
    grad_reads_saved = True
    __slots__ = ("self_sizes", "key")

    def forward(self, x, key):
        self.self_sizes, self.key = x.shape, key
        return np.ascontiguousarray(x[key])  # a fresh row-major tensor, as PyTorch's

    def backward(self, F, grad):
        return F.index_zeros_add(self.self_sizes, self.key, grad, False)


def _pad_node(name: str) -> type:
    node = type(name, (_IndexPad,), {"__slots__": (), "__module__": __name__})
    node.__qualname__ = name
    return node


_PAD_NODES = {
    (mode, k): _pad_node(f"{prefix}Pad{k}DBackward0")
    for mode, prefix in (("reflect", "Reflection"), ("replicate", "Replication"))
    for k in (1, 2, 3)
}
ReflectionPad1DBackward0 = _PAD_NODES["reflect", 1]
ReflectionPad2DBackward0 = _PAD_NODES["reflect", 2]
ReflectionPad3DBackward0 = _PAD_NODES["reflect", 3]
ReplicationPad1DBackward0 = _PAD_NODES["replicate", 1]
ReplicationPad2DBackward0 = _PAD_NODES["replicate", 2]
ReplicationPad3DBackward0 = _PAD_NODES["replicate", 3]


def _padded_positions(size: int, left: int, right: int, mode: str) -> np.ndarray:
    """Input position of every output position of one padded dimension."""
    p = np.arange(-left, size + right)
    if mode == "reflect":
        return np.abs(p) - 2 * np.maximum(p - (size - 1), 0)
    if mode == "replicate":
        return np.clip(p, 0, size - 1)
    return p % size


def _check_pad_dims(pad: tuple, shape: tuple, mode: str) -> int:
    k = len(pad) // 2
    if k not in (1, 2, 3) or not k + 1 <= len(shape) <= k + 2:
        raise NotImplementedError(
            f"pad: Padding size {len(pad)} is not supported for {len(shape)}D input tensor "
            f"(mode {mode!r} pads the last 1, 2 or 3 dims of a (batched) (N, C, ...) input)."
        )
    for i in range(k):
        d = len(shape) - 1 - i
        left, right, size = pad[2 * i], pad[2 * i + 1], shape[d]
        if mode == "reflect" and (left >= size or right >= size):
            raise RuntimeError(
                f"pad: Argument #4: Padding size should be less than the corresponding input "
                f"dimension, but got: padding ({left}, {right}) at dimension {d} of input "
                f"{list(shape)}"
            )
        kept = size + min(left, 0) + min(right, 0)  # negative pads crop first
        if mode == "circular" and (left > kept or right > kept):
            # (PyTorch checks against the uncropped size and then reads overlapping or
            # uninitialized memory when a pad exceeds the cropped size; glassgrad refuses.)
            raise RuntimeError(
                f"pad: Padding value causes wrapping around more than once (padding "
                f"({left}, {right}) at dimension {d} of input {list(shape)}, {kept} kept)."
            )
        if size == 0 or size + left + right < 0:
            raise RuntimeError(
                f"pad: Expected {len(shape) - 1}D or {len(shape)}D (batch mode) tensor with "
                f"possibly 0 batch size and other non-zero dimensions for input, but got: "
                f"{list(shape)} (padding ({left}, {right}) at dimension {d})"
            )
    return k


def _circular_pad(input: Tensor, pad: tuple) -> Tensor:
    """Circular padding written as PyTorch does: copy the input into the middle, then copy
    wrapped slices into the borders (so the graph is a chain of CopySlices)."""
    from .._factories import zeros

    shape = input._data.shape
    k = len(pad) // 2
    src, dst, out_shape = _constant_pad_keys(shape, pad)
    out = zeros(out_shape, dtype=input.dtype)
    out[dst] = input[src]
    for i in range(k):
        d = len(shape) - 1 - i
        left, right, size = pad[2 * i], pad[2 * i + 1], shape[d]
        lead = (slice(None),) * d
        begin = max(left, 0)  # where the kept input starts along d
        kept = size + min(left, 0) + min(right, 0)  # negative pads crop before wrapping
        if left > 0:
            out[lead + (slice(0, left),)] = out[lead + (slice(begin + kept - left, begin + kept),)]
        if right > 0:
            end = out_shape[d]
            out[lead + (slice(end - right, end),)] = out[lead + (slice(begin, begin + right),)]
    return out


def pad(input: Tensor, pad: Any, mode: str = "constant", value: float | None = None) -> Tensor:
    """Pad the last ``len(pad) // 2`` dims: ``pad = (left_last, right_last, left_2nd_last,
    ...)``. Modes: ``"constant"`` (with ``value``, negative pads crop), ``"reflect"``
    (mirror without repeating the edge), ``"replicate"`` (repeat the edge) and
    ``"circular"`` (wrap around).

    Example::

        >>> import glassgrad.nn.functional as F
        >>> F.pad(glassgrad.tensor([[1.0, 2.0, 3.0]]), (1, 1), mode="reflect")
        tensor([[2., 1., 2., 3., 2.]])
    """
    shape = check_tensor(input, "pad")._data.shape
    pad = tuple(int(p) for p in pad)
    if len(pad) % 2:
        raise RuntimeError("pad: Padding length must be divisible by 2")
    if len(pad) // 2 > len(shape):
        raise RuntimeError(
            "pad: Padding length should be less than or equal to two times the input dimension "
            f"but got padding length {len(pad)} and input of dimension {len(shape)}"
        )
    if mode == "constant":
        for i in range(len(pad) // 2):
            d, left, right = len(shape) - 1 - i, pad[2 * i], pad[2 * i + 1]
            if shape[d] + min(left, 0) + min(right, 0) < 0:
                # PyTorch crops (narrows) first, so cropping more than there is fails even
                # when positive padding on the other side would make up for it.
                raise RuntimeError(
                    f"pad: narrow(): length must be non-negative. (The input size {shape[d]} at "
                    f"dimension {d} cannot be cropped by the negative padding ({left}, {right}).)"
                )
        fill = 0 if value is None else value
        return ConstantPadNdBackward0.apply(input, pad=pad, value=fill)
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"pad: Unrecognised padding mode {mode}")
    if value is not None and value != 0:
        raise RuntimeError(f'pad: Padding mode "{mode}" doesn\'t take in value argument')
    k = _check_pad_dims(pad, shape, mode)
    if mode == "circular":
        return _circular_pad(input, pad)
    positions = []
    for i in range(k):
        d = len(shape) - 1 - i
        index = _padded_positions(shape[d], pad[2 * i], pad[2 * i + 1], mode)
        positions.insert(0, index.reshape((-1,) + (1,) * i))
    key = (slice(None),) * (len(shape) - k) + tuple(positions)
    return _PAD_NODES[mode, k].apply(input, key=key)


# --- registry ----------------------------------------------------------------------------


def _ints(*values: int) -> np.ndarray:
    return np.array(values, dtype=np.int64)


def _unique_index(rng: np.random.Generator, shape: tuple, dim: int, size: int) -> np.ndarray:
    """An index of ``shape`` with distinct values in ``[0, size)`` along ``dim`` (scatter
    with repeats writes an unspecified value, so samples avoid them)."""
    moved = list(shape)
    count = moved.pop(dim)
    rows = [rng.permutation(size)[:count] for _ in range(math.prod(moved))]
    index = np.array(rows, dtype=np.int64).reshape((*moved, count))
    return np.moveaxis(index, -1, dim)


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
register(
    "index_select",
    index_select,
    samples=lambda rng: [
        Sample((randn(rng, 3, 4), 1, _ints(3, 0, 0))),
        Sample((randn(rng, 3, 4), 0, _ints(2))),
        Sample((randn(rng, 4, 3).T, -1, _ints(1, 2)), note="non-contiguous"),
        Sample((randn(rng, 3, 4), 1, _ints())),
        Sample((randn(rng), 0, _ints(0))),
    ],
)
register(
    "index_add",
    index_add,
    samples=lambda rng: [
        Sample((randn(rng, 3, 4), 1, _ints(3, 0, 0), randn(rng, 3, 3))),
        Sample((randn(rng, 3, 4), 0, _ints(2), randn(rng, 1, 4)), {"alpha": 2.5}),
        Sample((NoGrad(randn(rng, 4, 3).T), 0, _ints(1, 2), randn(rng, 2, 4))),
    ],
)
register(
    "gather",
    gather,
    samples=lambda rng: [
        Sample((randn(rng, 3, 4), 1, rng.integers(0, 4, (3, 5)))),
        Sample((randn(rng, 3, 4), 0, rng.integers(0, 3, (2, 2))), note="smaller index"),
        Sample((randn(rng, 2, 3, 4), -1, rng.integers(0, 4, (2, 3, 1)))),
        Sample((randn(rng, 4, 3).T, 0, rng.integers(0, 3, (3, 4))), note="non-contiguous"),
        Sample((randn(rng, 3, 4), 1, np.zeros((3, 0), dtype=np.int64))),
        Sample((randn(rng), 0, np.zeros((), dtype=np.int64))),
    ],
)
register(
    "scatter",
    scatter,
    nodes=(ScatterBackward0, ScatterBackward1),
    samples=lambda rng: [
        Sample((randn(rng, 3, 4), 1, _unique_index(rng, (3, 2), 1, 4), randn(rng, 3, 2))),
        Sample((randn(rng, 3, 4), 0, _unique_index(rng, (2, 3), 0, 3), randn(rng, 2, 3))),
        Sample((randn(rng, 3, 4), 1, _unique_index(rng, (3, 2), 1, 4), 1.5)),
        Sample((randn(rng, 3, 4), 1, _unique_index(rng, (2, 3), 1, 4)), {"value": -2.0}),
        Sample((randn(rng, 4, 3).T, 0, _unique_index(rng, (2, 4), 0, 3), randn(rng, 2, 4))),
    ],
)
register(
    "scatter_add",
    scatter_add,
    samples=lambda rng: [
        Sample((randn(rng, 3, 4), 1, rng.integers(0, 4, (3, 5)), randn(rng, 3, 5))),
        Sample((randn(rng, 3, 4), 0, rng.integers(0, 3, (2, 3)), randn(rng, 2, 3))),
        Sample((NoGrad(randn(rng, 4, 3).T), -1, rng.integers(0, 4, (3, 2)), randn(rng, 3, 2))),
        Sample((randn(rng, 3, 4), 1, np.zeros((3, 0), dtype=np.int64), randn(rng, 3, 0))),
    ],
)
register(
    "masked_fill",
    masked_fill,
    nodes=(MaskedFillBackward0, MaskedFillBackward1),
    samples=lambda rng: [
        Sample((randn(rng, 3, 4), randn(rng, 3, 4) > 0, 2.5)),
        Sample((randn(rng, 3, 4), randn(rng, 4) > 0, -1.0), note="broadcast mask"),
        Sample((randn(rng, 3, 1), randn(rng, 3, 4) > 0, 0.0), note="broadcast input"),
        Sample((randn(rng, 3, 4), randn(rng, 3, 4) > 0, randn(rng)), note="tensor value"),
        Sample((randn(rng, 4, 3).T, randn(rng, 3, 4) > 0, 1.0), note="non-contiguous"),
        Sample((randn(rng), np.array(True), 1.0)),
    ],
)
register(
    "masked_select",
    masked_select,
    samples=lambda rng: [
        Sample((randn(rng, 3, 4), randn(rng, 3, 4) > 0)),
        Sample((randn(rng, 3, 1), randn(rng, 3, 4) > 0), note="broadcast input"),
        Sample((randn(rng, 3, 4), randn(rng, 4) > 0), note="broadcast mask"),
        Sample((randn(rng, 0, 4), np.zeros((0, 4), dtype=bool))),
    ],
)
register(
    "masked_scatter",
    masked_scatter,
    samples=lambda rng: [
        Sample((randn(rng, 3, 4), randn(rng, 3, 4) > 0, randn(rng, 3, 4))),
        Sample((randn(rng, 3, 4), randn(rng, 4) > 0, randn(rng, 20)), note="broadcast mask"),
    ],
)
_triangle_samples = lambda rng: [  # noqa: E731
    Sample((randn(rng, 4, 4),)),
    Sample((randn(rng, 3, 5), 1)),
    Sample((randn(rng, 2, 4, 3), -1), note="batched"),
    Sample((randn(rng, 4, 3).T,), {"diagonal": 2}, note="non-contiguous"),
    Sample((randn(rng, 0, 3),)),
]
register("tril", tril, samples=_triangle_samples)
register("triu", triu, samples=_triangle_samples)
register(
    "diagonal",
    diagonal,
    samples=lambda rng: [
        Sample((randn(rng, 3, 4),)),
        Sample((randn(rng, 3, 4), 1)),
        Sample((randn(rng, 3, 4), -2)),
        Sample((randn(rng, 2, 3, 4),), {"offset": 1, "dim1": 2, "dim2": 0}),
        Sample((randn(rng, 4, 3).T, 0, -1, -2), note="non-contiguous"),
        Sample((randn(rng, 3, 4), 5)),
    ],
)
register(
    "diagonal_scatter",
    diagonal_scatter,
    samples=lambda rng: [
        Sample((randn(rng, 3, 4), randn(rng, 3))),
        Sample((randn(rng, 3, 4), randn(rng, 2), -1)),
        Sample((randn(rng, 2, 3, 4), randn(rng, 3, 1), 1, 2, 0)),
    ],
)
register(
    "diag",
    diag,
    nodes=(DiagEmbedBackward0, DiagonalBackward0_copy),
    samples=lambda rng: [
        Sample((randn(rng, 3),)),
        Sample((randn(rng, 3), -2)),
        Sample((randn(rng, 3, 4),)),
        Sample((randn(rng, 3, 4), 1)),
        Sample((randn(rng, 4, 3).T, -1), note="non-contiguous"),
        Sample((randn(rng, 0),)),
    ],
)
register(
    "pad",
    pad,
    nodes=(ConstantPadNdBackward0, *_PAD_NODES.values()),
    namespace="nn.functional",
    samples=lambda rng: [
        Sample((randn(rng, 2, 3), (1, 2))),
        Sample((randn(rng, 2, 3, 4), (1, 0, 2, 1)), {"value": 1.5}),
        Sample((randn(rng, 2, 3, 4), (-1, 2, 0, -2, 1, 1)), note="negative pads crop"),
        Sample((randn(rng, 4, 3).T, (2, 2)), note="non-contiguous"),
        Sample((randn(rng), ())),
        Sample((randn(rng, 0, 3), (1, 1))),
        Sample((randn(rng, 2, 3, 5), (2, 3)), {"mode": "reflect"}),
        Sample((randn(rng, 1, 2, 4, 5), (1, 2, 3, 0)), {"mode": "reflect"}),
        Sample((randn(rng, 2, 3, 3, 4), (1, -1, 2, 1, 0, 2)), {"mode": "reflect"}),
        Sample((randn(rng, 2, 3, 4), (3, 5)), {"mode": "replicate"}),
        Sample((randn(rng, 3, 4, 5), (1, 2, 2, 1)), {"mode": "replicate"}),
        Sample((randn(rng, 1, 2, 2, 3, 2), (1, 1, 2, 0, 0, 3)), {"mode": "replicate"}),
        Sample((randn(rng, 2, 3, 4), (2, 4)), {"mode": "circular"}),
        Sample((randn(rng, 1, 2, 3, 4), (1, 2, 3, 1)), {"mode": "circular"}),
        Sample((randn(rng, 3, 2, 4).transpose(1, 0, 2), (1, 1)), {"mode": "reflect"}),
    ],
)

TENSOR_METHODS = {
    "split": _split_method,
    "scatter_": scatter_,
    "scatter_add_": scatter_add_,
    "index_add_": index_add_,
    "masked_fill_": masked_fill_,
    "tril_": tril_,
    "triu_": triu_,
}
