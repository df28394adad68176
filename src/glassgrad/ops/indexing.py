"""Indexing: ``x[key]`` as PyTorch records it (select / slice / unsqueeze views, then one
IndexBackward0 for advanced indices) and ``x[key] = value`` (a view plus ``copy_``, so the
base gets CopySlices; advanced keys use ``index_put_``). Also the scatter ops that backward
formulas use to route gradients into a zero tensor.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from .._tensor import Tensor
from ..autograd.op import Op, keep_versions
from ._common import check_tensor, take_along_axis, wrap_dim
from ._registry import Sample, register
from ._samples import randn


class SelectBackward0(Op):
    dim: Any
    index: Any
    shape: Any
    __slots__ = ("shape", "dim", "index")
    is_view = True

    def forward(self, x: Any, dim: Any, index: Any) -> Any:
        self.shape, self.dim, self.index = x.shape, dim, index
        # The trailing Ellipsis keeps a 0-d result a view instead of a NumPy scalar copy.
        return x[(slice(None),) * dim + (index, Ellipsis)]

    def backward(self, F: Any, grad: Any) -> Any:
        if isinstance(grad, Tensor):  # create_graph: PyTorch's select_backward node
            return SelectBackwardBackward0.apply(
                grad, shape=self.shape, dim=self.dim, index=self.index
            )
        key = (slice(None),) * self.dim + (self.index, Ellipsis)
        return F.index_zeros_add(self.shape, key, grad, True)


class SliceBackward0(Op):
    dim: Any
    end: Any
    shape: Any
    start: Any
    step: Any
    __slots__ = ("shape", "dim", "start", "end", "step")
    is_view = True

    def forward(self, x: Any, dim: Any, start: Any, end: Any, step: Any) -> Any:
        self.shape, self.dim, self.start, self.end, self.step = x.shape, dim, start, end, step
        return x[(slice(None),) * dim + (slice(start, end, step),)]

    def backward(self, F: Any, grad: Any) -> Any:
        if isinstance(grad, Tensor):  # create_graph: PyTorch's slice_backward node
            return SliceBackwardBackward0.apply(
                grad, shape=self.shape, dim=self.dim, start=self.start, end=self.end, step=self.step
            )
        key = (slice(None),) * self.dim + (slice(self.start, self.end, self.step),)
        return F.index_zeros_add(self.shape, key, grad, True)


class SelectBackwardBackward0(Op):
    """PyTorch's select_backward (the gradient of ``select``, recorded under create_graph):
    zeros of the input's shape holding ``grad`` at ``index`` of ``dim``. Its gradient is
    that select of the incoming one."""

    dim: Any
    index: Any
    __slots__ = ("dim", "index")

    def forward(self, grad: Any, shape: Any, dim: Any, index: Any) -> Any:
        self.dim, self.index = dim, index
        out = np.zeros(shape, grad.dtype)
        out[(slice(None),) * dim + (index, Ellipsis)] = grad
        return out

    def backward(self, F: Any, gg: Any) -> Any:
        if isinstance(gg, Tensor):
            return SelectBackward0.apply(gg, dim=self.dim, index=self.index)
        return gg[(slice(None),) * self.dim + (self.index, Ellipsis)]


class SliceBackwardBackward0(Op):
    """PyTorch's slice_backward (the gradient of a slice, recorded under create_graph): zeros
    of the input's shape holding ``grad`` in the slice. Its gradient is that slice of the
    incoming one."""

    dim: Any
    start: Any
    end: Any
    step: Any
    __slots__ = ("dim", "start", "end", "step")

    def forward(self, grad: Any, shape: Any, dim: Any, start: Any, end: Any, step: Any) -> Any:
        self.dim, self.start, self.end, self.step = dim, start, end, step
        out = np.zeros(shape, grad.dtype)
        out[(slice(None),) * dim + (slice(start, end, step),)] = grad
        return out

    def backward(self, F: Any, gg: Any) -> Any:
        if isinstance(gg, Tensor):
            return SliceBackward0.apply(
                gg, dim=self.dim, start=self.start, end=self.end, step=self.step
            )
        return gg[(slice(None),) * self.dim + (slice(self.start, self.end, self.step),)]


class IndexBackward0(Op):
    """Advanced indexing (integer arrays, masks): a copy; repeated indices accumulate."""

    key: Any
    shape: Any

    __slots__ = ("shape", "key")

    def forward(self, x: Any, key: Any) -> Any:
        self.shape, self.key = x.shape, key
        try:
            # A fresh tensor, laid out row-major as PyTorch's index kernel gives it for all but
            # permuted inputs (NumPy may return it in another order, which view() would refuse).
            return np.ascontiguousarray(x[key])
        except IndexError as error:
            raise IndexError(f"index: {error}".replace("axis", "dimension")) from None

    def backward(self, F: Any, grad: Any) -> Any:
        return F.index_zeros_add(self.shape, self.key, grad, False)

    def _release(self) -> None:
        _release_index_key(self)


class IndexPutAccumulateBackward0(Op):
    """zeros(shape) with ``values`` added at ``key`` (the gradient of indexing)."""

    key: Any

    __slots__ = ("key",)

    def forward(self, values: Any, shape: Any, key: Any, basic: Any) -> Any:
        self.key = key
        out = np.zeros(shape, dtype=values.dtype)
        if basic:
            out[key] = values
        else:
            np.add.at(out, key, values)
        return out

    def backward(self, F: Any, grad: Any) -> Any:
        return grad[self.key]


class ScatterZerosBackward0(Op):
    """zeros(shape) with ``src`` placed at ``index`` along ``dim`` (gradient of max(dim))."""

    dim: Any
    index: Any

    __slots__ = ("dim", "index")

    def forward(self, src: Any, shape: Any, dim: Any, index: Any) -> Any:
        self.dim, self.index = dim, index
        out = np.zeros(shape, dtype=src.dtype)
        np.put_along_axis(out, index, src, axis=dim)
        return out

    def backward(self, F: Any, grad: Any) -> Any:
        values = grad._data if isinstance(grad, Tensor) else grad
        if isinstance(grad, Tensor):
            return take_along_dim(grad, Tensor._from_array(self.index), self.dim)
        return take_along_axis(values, self.index, axis=self.dim)


def index_zeros_add(shape: tuple[int, ...], key: Any, values: Tensor, basic: bool) -> Tensor:
    """Differentiable ``zeros(shape)`` with ``values`` added at ``key`` (backward helper)."""
    return IndexPutAccumulateBackward0.apply(values, shape=shape, key=key, basic=basic)


def scatter_zeros(shape: tuple[int, ...], dim: int, index: np.ndarray, src: Tensor) -> Tensor:
    """Differentiable ``zeros(shape)`` with ``src`` at ``index`` along ``dim`` (backward helper)."""
    return ScatterZerosBackward0.apply(src, shape=shape, dim=dim, index=index)


class ScatterAddZerosBackward0(Op):
    dim: Any
    index: Any
    __slots__ = ("dim", "index")

    def forward(self, src: Any, shape: Any, dim: Any, index: Any) -> Any:
        self.dim, self.index = dim, index
        out = np.zeros(shape, dtype=src.dtype)
        _scatter_add_along(out, index, src, dim)
        return out

    def backward(self, F: Any, grad: Any) -> Any:
        if isinstance(grad, Tensor):
            return take_along_dim(grad, Tensor._from_array(self.index), self.dim)
        return take_along_axis(grad, self.index, axis=self.dim)


def _scatter_add_along(out: np.ndarray, index: np.ndarray, src: np.ndarray, dim: int) -> None:
    """out[..., index[i], ...] += src[i] along ``dim`` (repeated indices accumulate)."""
    grids = np.indices(index.shape, sparse=True)
    key = tuple(index if d == dim else grids[d] for d in range(index.ndim))
    np.add.at(out, key, src[tuple(slice(0, s) for s in index.shape)])


def scatter_add_zeros(shape: tuple[int, ...], dim: int, index: np.ndarray, src: Tensor) -> Tensor:
    """Differentiable ``zeros(shape)`` with ``src`` added at ``index`` along ``dim`` (backward
    helper)."""
    return ScatterAddZerosBackward0.apply(src, shape=shape, dim=dim, index=index)


def take_along_dim(input: Tensor, indices: Tensor, dim: int | None = None) -> Tensor:
    """Values of ``input`` at ``indices`` along ``dim``; ``input`` and ``indices`` broadcast
    against each other in the other dims. With ``dim=None``, both are flattened. Recorded as
    PyTorch does: an expand (to the broadcast shape), then ``gather``.

    Example::

        >>> x = glassgrad.tensor([[10.0, 30.0, 20.0]])
        >>> glassgrad.take_along_dim(x, glassgrad.tensor([[1]]), 1)
        tensor([[30.]])
    """
    from .broadcasting import expand
    from .gather_scatter import gather
    from .shape import reshape

    check_tensor(input, "take_along_dim")
    index = indices._data if isinstance(indices, Tensor) else np.asarray(indices)
    if index.dtype.kind not in "iu":
        raise RuntimeError(
            f"take_along_dim(): dtype of indices should be Long but got {index.dtype}"
        )
    if dim is None:
        return keep_versions(gather(reshape(input, (-1,)), 0, index.reshape(-1)), indices)
    shape = input._data.shape
    d = wrap_dim(dim, len(shape), "take_along_dim")
    if index.ndim != len(shape):
        raise RuntimeError(
            "take_along_dim(): input and indices should have the same number of dimensions, "
            f"but got {len(shape)} dimensions for input, and {index.ndim} dimensions for indices"
        )
    try:
        common = list(
            np.broadcast_shapes(shape[:d] + shape[d + 1 :], index.shape[:d] + index.shape[d + 1 :])
        )
    except ValueError:
        raise RuntimeError(
            f"take_along_dim(): input {list(shape)} and indices {list(index.shape)} do not "
            f"broadcast outside dimension {d}"
        ) from None
    # An expand even to the same shape, as PyTorch's broadcast_to: gather saves that view, so
    # the input detached in place afterwards does not reach the backward (fuzz seed 856012)
    input = expand(input, tuple(common[:d] + [shape[d]] + common[d:]))
    # PyTorch's backward raises for indices changed in place since only when dim is None;
    # here they are copied, so a later change cannot reach the gradient either way.
    index = np.broadcast_to(
        index.copy(order="K"), tuple(common[:d] + [index.shape[d]] + common[d:])
    )
    return gather(input, d, index)


# --- __getitem__ ---------------------------------------------------------------------------


_SEQUENCE_KEY_WARNING = (
    "Using a non-tuple sequence for multidimensional indexing is deprecated and will be changed "
    "in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be "
    "interpreted as tensor index, x[torch.tensor(seq)], which will result either in an error "
    "or a different result"
)


def _sequence_as_tuple(key: Any) -> bool:
    """PyTorch's treatSequenceAsTuple: a list (of fewer than 32 items) holding a tensor, a
    sequence, a slice, Ellipsis or None indexes several dims, as a tuple would (deprecated,
    with a warning): ``x[[[1, 0]]]`` is ``x[[1, 0]]``."""
    if type(key) is not list or len(key) >= 32:
        return False
    for k in key:
        if isinstance(k, (Tensor, list, tuple, np.ndarray, slice, str)) or k is None or k is ...:
            warnings.warn(_SEQUENCE_KEY_WARNING, UserWarning, stacklevel=4)
            return True
    return False


def _normalize_key(key: Any) -> tuple:
    if _sequence_as_tuple(key):
        key = tuple(key)
    elif not isinstance(key, tuple):
        key = (key,)
    normalized = []
    for k in key:
        if isinstance(k, Tensor):
            if k._data.dtype.kind == "f":
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
            k = k._data
            if k.ndim == 0 and k.dtype.kind in "iu":
                k = int(k)
        elif isinstance(k, (list, np.ndarray)):
            k = np.asarray(k)
            if k.dtype.kind == "f":
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
            if k.dtype.kind not in "iub":
                raise IndexError(f"index: unsupported index type {k.dtype}")
        elif isinstance(k, (bool, np.bool_)):
            k = np.asarray(k)
        elif isinstance(k, np.integer):
            k = int(k)
        elif not (k is None or k is Ellipsis or isinstance(k, (int, slice))):
            raise IndexError(
                "only integers, slices (`:`), ellipsis (`...`), None and long or byte "
                f"Variables are valid indices (got {type(k).__name__})"
            )
        normalized.append(k)
    return tuple(normalized)


def _consumed(k: Any) -> int:
    if k is None or k is Ellipsis:
        return 0
    if isinstance(k, np.ndarray) and k.dtype == np.bool_:
        return k.ndim
    return 1


def _split_key(x: Tensor, key: tuple, deferred: list | None = None) -> tuple:
    """Apply the basic part of ``key`` as views; return (view, advanced key or None).

    With a list ``deferred``, an index tensor that does not fit (a mask of another shape, an
    index out of bounds) is not refused here: its error is appended, as ``("mask", error)``
    or ``("bounds", error, (position in the key, the index, the dim's size))`` (the key then
    holds a stand-in), for ``index_put_`` to raise where PyTorch's does, after the autograd
    and overlap checks."""
    ndim = x._data.ndim
    used = sum(_consumed(k) for k in key)
    if used > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    if sum(k is Ellipsis for k in key) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    out, dim, advanced, has_advanced = x, 0, [], False
    source_dim = 0  # the dimension of ``x`` that ``k`` indexes (for error messages)
    for k in key:
        if k is None:
            out = UnsqueezeView.apply(out, dim=dim)
            advanced.append(slice(None))
            dim += 1
        elif k is Ellipsis:
            n = ndim - used
            advanced.extend([slice(None)] * n)
            dim += n
            source_dim += n
        elif isinstance(k, int):
            size = out._data.shape[dim]
            if not -size <= k < size:
                raise IndexError(
                    f"index {k} is out of bounds for dimension {source_dim} with size {size}"
                )
            out = SelectBackward0.apply(out, dim=dim, index=k % size)
            source_dim += 1
        elif isinstance(k, slice):
            size = out._data.shape[dim]
            if k.step is not None and k.step <= 0:
                raise ValueError("step must be greater than zero")
            # PyTorch skips the slice for a start of 0, a stop at or past the end and a step
            # of 1 as written, not as clamped: x[1:] of an empty dimension is a slice view
            # all the same (and x[1:] = v then records CopySlices, not CopyBackwards).
            if not (
                k.start in (None, 0) and k.step in (None, 1) and (k.stop is None or k.stop >= size)
            ):
                start, stop, step = k.indices(size)
                stop = max(stop, start)
                out = SliceBackward0.apply(out, dim=dim, start=start, end=stop, step=step)
            advanced.append(slice(None))
            dim += 1
            source_dim += 1
        else:
            has_advanced = True
            if k.dtype == np.bool_:
                shape = out._data.shape[dim : dim + k.ndim]
                if k.shape != shape and k.ndim:
                    error = IndexError(
                        f"The shape of the mask {list(k.shape)} at index {dim} does not match "
                        f"the shape of the indexed tensor {list(shape)} at index {dim}"
                    )
                    if deferred is None:
                        raise error
                    deferred.append(("mask", error))
                    k = np.zeros(shape, bool)
                advanced.extend(np.nonzero(k) if k.ndim else [k])
                dim += k.ndim
                source_dim += k.ndim
            else:
                size = out._data.shape[dim]
                if k.size and size and not out._data.size:
                    # PyTorch's kernel checks each index as it reads it: with no element to
                    # read (another dim is empty) none is checked (fuzz seed 839339)
                    k = np.where((k < size) & (k >= -size), k, 0)
                elif k.size and (k.max() >= size or k.min() < -size):
                    bad = k.max() if k.max() >= size else k.min()
                    error = IndexError(
                        f"index {bad} is out of bounds for dimension {source_dim} with size {size}"
                        if size
                        else "index is out of bounds for dimension with size 0"
                    )
                    if deferred is None:
                        raise error
                    if size:
                        deferred.append(("bounds", error, (len(advanced), k, size)))
                    else:  # refused by make_info (AdvancedIndex), before the kernel
                        deferred.append(("empty", error))
                    k = np.where((k < size) & (k >= -size), k, 0)  # the result's shape stays
                advanced.append(k)
                dim += 1
                source_dim += 1
    return out, (tuple(advanced) if has_advanced else None)


def getitem(input: Tensor, key: Any) -> Tensor:
    """``input[key]`` with PyTorch's views for basic keys and a copy for advanced ones.

    Example::

        >>> x = glassgrad.arange(6.0).view(2, 3)
        >>> x[1, 1:], x[:, [0, 0]].shape
        (tensor([4., 5.]), glassgrad.Size([2, 2]))
    """
    data = input._data
    if type(key) is int and data.ndim:  # fast path: x[i]
        size = data.shape[0]
        if -size <= key < size:
            return SelectBackward0.apply(input, dim=0, index=key % size)
    elif type(key) is slice and data.ndim and (key.step is None or key.step > 0):  # x[a:b]
        # Always a slice, x[:] too (PyTorch's get_item disables its slice optimization here)
        start, stop, step = key.indices(data.shape[0])
        return SliceBackward0.apply(input, dim=0, start=start, end=max(stop, start), step=step)
    view, advanced = _split_key(input, _normalize_key(key))
    if advanced is None:
        if view is input:
            return ViewBackward0Alias.apply(input)
        return view
    # The backward reads the integer index tensors of the key, which PyTorch saves (a boolean
    # mask becomes indices of its own, so changing the mask later changes nothing).
    indices = [k for k in (key if type(key) is tuple else (key,)) if isinstance(k, Tensor)]
    result = IndexBackward0.apply(view, key=advanced)
    return keep_versions(result, *(k for k in indices if k._data.dtype.kind in "iu"))


class UnsqueezeView(Op):
    """``x[None]``: PyTorch records it as UnsqueezeBackward0."""

    dim: Any

    __slots__ = ("dim",)
    is_view = True

    def forward(self, x: Any, dim: Any) -> Any:
        self.dim = dim
        return np.expand_dims(x, dim)

    def backward(self, F: Any, grad: Any) -> Any:
        return F.squeeze(grad, self.dim)


UnsqueezeView.__name__ = UnsqueezeView.__qualname__ = "UnsqueezeBackward0"


class ViewBackward0Alias(Op):
    """``x[:]`` or ``x[...]``: an alias of the whole tensor."""

    is_view = True

    def forward(self, x: Any) -> Any:
        return x.view()

    def backward(self, F: Any, grad: Any) -> Any:
        return grad


ViewBackward0Alias.__name__ = ViewBackward0Alias.__qualname__ = "AliasBackward0"


def _release_index_key(node: Op) -> None:
    """PyTorch saves index tensors (not slices) as saved variables, freed after backward: a
    second backward through an advanced-indexing node then fails as for any saved tensor."""
    key = node.key
    if key is not None and any(
        isinstance(k, np.ndarray) for k in (key if type(key) is tuple else (key,))
    ):
        node._saved = None
        node.key = None
    Op._release(node)


def _getitem_samples(rng: np.random.Generator) -> list[Sample]:
    return [
        Sample((randn(rng, 3, 4), 1)),
        Sample((randn(rng, 3, 4), (0, 2))),
        Sample((randn(rng, 3, 4), (slice(None), slice(1, 3)))),
        Sample((randn(rng, 3, 4), (slice(None, None, 2), -1))),
        Sample((randn(rng, 3, 4), (None, Ellipsis, 0))),
        Sample((randn(rng, 3, 4), np.array([0, 2, 0]))),
        Sample((randn(rng, 3, 4), (slice(None), np.array([1, 1, 3])))),
        Sample((randn(rng, 3, 4), (1, np.array([0, 1])))),
        Sample((randn(rng, 3, 4), np.array([True, False, True]))),
        Sample((randn(rng, 2, 3), randn(rng, 2, 3) > 0)),
    ]


register(
    "getitem",
    getitem,
    nodes=(SelectBackward0, SliceBackward0, IndexBackward0),
    methods=("__getitem__",),
    samples=_getitem_samples,
    torch=lambda torch, x, key: x[_torch_key(torch, key)],
)
register(
    "take_along_dim",
    take_along_dim,
    samples=lambda rng: [
        Sample((randn(rng, 3, 4), np.array([[0, 3], [1, 1], [2, 0]]), 1)),
        Sample((randn(rng, 3, 4), np.array([[0, 3]]), 1), note="index broadcasts"),
        Sample((randn(rng, 1, 4), np.array([[0, 3], [1, 1], [2, 2]]), -1), note="input broadcasts"),
        Sample((randn(rng, 3, 4), np.array([0, 11, 5])), note="flattened (dim=None)"),
    ],
)


def _torch_key(torch: Any, key: Any) -> Any:
    """The same key for PyTorch (NumPy index arrays become tensors)."""
    items = key if isinstance(key, tuple) else (key,)
    converted = tuple(torch.as_tensor(k) if isinstance(k, np.ndarray) else k for k in items)
    return converted if isinstance(key, tuple) else converted[0]
