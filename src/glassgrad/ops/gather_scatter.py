"""Indexing along one dimension by an index tensor: index_select / index_add,
gather / scatter / scatter_add, with their in-place forms.

Ops that move values around have a partner that moves gradients back: the gradient of
``gather`` is a ``scatter_add`` into zeros, that of ``scatter_add`` is a ``gather``; likewise
``index_select`` / ``index_add``. A backward formula calls its partner through ``Op.call``,
which records it when the gradient is a Tensor (so second derivatives come for free) and
runs its forward directly on arrays.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._dtype import scalar_type_name
from .._strides import row_major
from .._tensor import Tensor
from ..autograd.kernel_order import write_at_in_order
from ..autograd.op import Op, apply_inplace, keep_versions
from ._common import array_of, check_tensor, moveaxis, scaled, wrap_dim
from ._index_kernels import along_key as _along_key
from ._index_kernels import check_index_add_bounds, check_scatter_bounds
from ._not_implemented import _not_implemented_node
from ._registry import NoGrad, Sample, register
from ._samples import randn

__all__ = ["index_select", "gather", "scatter", "scatter_add", "index_add"]


def _index_array(index: Any, op: str, message: str | None = None) -> np.ndarray:
    """The integer array behind ``index`` (a Tensor or array), PyTorch's dtype error if not."""
    array = index._data if isinstance(index, Tensor) else np.asarray(index)
    if array.dtype.kind not in "iu":
        raise RuntimeError(message or f"{op}(): Expected dtype int64 for index")
    return array.astype(np.int64, copy=False)


def _box(shape: tuple) -> tuple:
    """Basic key of the leading ``shape``-sized corner of an array."""
    return tuple(slice(0, s) for s in shape)


def _check_same_dtype(op: str, self_array: np.ndarray, src: np.ndarray, name: str) -> None:
    if self_array.dtype != src.dtype:
        raise RuntimeError(
            f"{op}(): Expected self.dtype to be equal to {name}.dtype, but got "
            f"{self_array.dtype} and {src.dtype}"
        )


# --- index_select, index_add --------------------------------------------------------------


def _index_key(dim: int, index: np.ndarray) -> tuple:
    return (slice(None),) * dim + (index,)


class IndexSelectBackward0(Op):
    """out = the slices ``index`` along ``dim``; the gradient is an index_add into zeros"""

    dim: Any
    index: Any
    self_sizes: Any

    __slots__ = ("self_sizes", "dim", "index")

    @row_major
    def forward(self, x: Any, dim: Any, index: Any) -> Any:
        self.self_sizes, self.dim, self.index = x.shape, dim, index
        if x.ndim == 0:
            return x.reshape(1)[index.reshape(-1)].reshape(())
        return x[_index_key(dim, index)]

    def backward(self, F: Any, grad: Any) -> Any:
        zeros = np.zeros(self.self_sizes, dtype=array_of(grad).dtype)
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
    return keep_versions(
        IndexSelectBackward0.apply(input, dim=d, index=idx.reshape(-1) if shape else idx), index
    )


class IndexAddBackward0(Op):
    """out = input with ``alpha * source`` added at positions ``index`` along ``dim``"""

    alpha: Any
    dim: Any
    index: Any

    refuses_full_overlap = True

    # The source is saved when its gradient is wanted, as PyTorch saves it (for its shape).
    saved_inputs: tuple[int, ...] = (1,)
    saved_for: tuple[tuple[int, ...], ...] = ((1,),)
    __slots__ = ("dim", "index", "alpha")

    @row_major
    def forward(self, x: Any, source: Any, dim: Any, index: Any, alpha: Any = 1) -> Any:
        check_index_add_bounds(x, dim, index, source, alpha)
        self.dim, self.index, self.alpha = dim, index, alpha
        out = x.astype(np.result_type(x, source), copy=True)
        if not out.size:  # PyTorch returns before it reads the index
            return out
        values = scaled(source, alpha, out.dtype)
        if out.ndim == 0:
            np.add.at(out.reshape(1), index.reshape(-1), values.reshape(-1))
        else:
            np.add.at(out, _index_key(dim, index), values)
        return out

    @staticmethod
    def write_overlapping(
        data: np.ndarray, source: Any, dim: int, index: np.ndarray, alpha: Any = 1
    ) -> None:
        values = scaled(source, alpha, data.dtype)
        write_at_in_order(data, _index_key(dim, index), values, np.add)

    def backward(self, F: Any, grad: Any) -> Any:
        needs = self.needs_input_grad
        grad_source = None
        if needs[1]:
            grad_source = IndexSelectBackward0.call(grad, dim=self.dim, index=self.index)
            if self.alpha != 1:
                grad_source = grad_source * self.alpha
        return (grad if needs[0] else None), grad_source


def _check_index_add(input: Tensor, d: int, idx: np.ndarray, source: Any, op: str) -> None:
    shape, src = input._data.shape, array_of(source)
    if idx.ndim > 1:
        raise IndexError(f"{op}(): Index is supposed to be a vector")
    if src.dtype != input._data.dtype:
        raise RuntimeError(
            f"index_add_(): self ({scalar_type_name(input._data.dtype)}) and source "
            f"({scalar_type_name(src.dtype)}) must have the same scalar type"
        )
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


def index_add(input: Tensor, dim: int, index: Any, source: Any, *, alpha: float = 1) -> Tensor:
    """A copy of ``input`` with ``alpha * source`` added at ``index`` along ``dim``
    (repeated indices accumulate).

    Example::

        >>> glassgrad.zeros(3).index_add(0, glassgrad.tensor([0, 0]), glassgrad.ones(2))
        tensor([2., 0., 0.])
    """
    d = wrap_dim(dim, check_tensor(input, "index_add")._data.ndim, "index_add")
    idx = _index_array(index, "index_add", "index_add_(): Expected dtype int32/int64 for index")
    idx = idx.reshape(1) if idx.ndim == 0 else idx  # ATen takes a 0-d index as one position
    check_tensor(source, "index_add", "source", 4)
    _check_index_add(input, d, idx, source, "index_add")
    return keep_versions(
        IndexAddBackward0.apply(input, source, dim=d, index=idx, alpha=alpha), index
    )


def index_add_(input: Tensor, dim: int, index: Any, source: Any, *, alpha: float = 1) -> Tensor:
    """In-place ``index_add``."""
    d = wrap_dim(dim, check_tensor(input, "index_add_")._data.ndim, "index_add_")
    idx = _index_array(index, "index_add_", "index_add_(): Expected dtype int32/int64 for index")
    idx = idx.reshape(1) if idx.ndim == 0 else idx  # ATen takes a 0-d index as one position
    _check_index_add(input, d, idx, check_tensor(source, "index_add_", "source", 4), "index_add_")
    return keep_versions(
        apply_inplace(IndexAddBackward0, input, source, dim=d, index=idx, alpha=alpha), index
    )


# --- gather, scatter, scatter_add ---------------------------------------------------------


def _gather_array(x: np.ndarray, dim: int, index: np.ndarray) -> np.ndarray:
    if x.ndim == 0:
        return x.reshape(1)[index.reshape(-1)].reshape(index.shape)
    return x[_along_key(index, dim)]


def _scatter_overlapping(
    data: np.ndarray, dim: int, index: Any, src: Any, reduce: Any = None
) -> None:
    """Scatter into ``data`` whose elements share memory, as PyTorch's kernel (kernel_order)."""
    if isinstance(src, np.ndarray) and src.ndim:
        src = src[_box(index.shape)]
    write_at_in_order(data, _along_key(index, dim), src, reduce, (index,))


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

    dim: Any
    index: Any
    self_sizes: Any

    saved_inputs: tuple[int, ...] = (0,)  # unread, but saved as PyTorch saves it (in-place checks)
    __slots__ = ("self_sizes", "dim", "index")

    def forward(self, x: Any, dim: Any, index: Any) -> Any:
        self.self_sizes, self.dim, self.index = x.shape, dim, index
        return _gather_array(x, dim, index)

    def backward(self, F: Any, grad: Any) -> Any:
        zeros = np.zeros(self.self_sizes, dtype=array_of(grad).dtype)
        return ScatterAddBackward0.call(zeros, grad, dim=self.dim, index=self.index)


def _scatter_src_grad(F: Any, grad: Any, dim: int, index: np.ndarray, src_shape: tuple) -> Any:
    """Gradient of the ``src`` of a scatter: grad gathered at index, zero outside its box."""
    g = GatherBackward0.call(grad, dim=dim, index=index)
    if tuple(src_shape) != index.shape:
        g = F.index_zeros_add(tuple(src_shape), _box(index.shape), g, True)
    return g


class ScatterBackward0(Op):
    """out = input with ``src`` written at gather addressing (edges: input, src)"""

    dim: Any
    index: Any
    src_sizes: Any

    refuses_full_overlap = True

    __slots__ = ("dim", "index", "src_sizes")

    @staticmethod
    def write_overlapping(data: np.ndarray, src: Any, dim: int, index: np.ndarray) -> None:
        _scatter_overlapping(data, dim, index, src)

    @row_major
    def forward(self, x: Any, src: Any, dim: Any, index: Any) -> Any:
        check_scatter_bounds(x, dim, index, src[_box(index.shape)] if src.ndim else src)
        self.dim, self.index, self.src_sizes = dim, index, src.shape
        return _scatter_array(x.copy(), dim, index, src, accumulate=False)

    def backward(self, F: Any, grad: Any) -> Any:
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

    dim: Any
    index: Any
    value: Any

    __slots__ = ("dim", "index", "value")

    @staticmethod
    def write_overlapping(data: np.ndarray, dim: int, index: np.ndarray, value: Any) -> None:
        _scatter_overlapping(data, dim, index, value)

    @row_major
    def forward(self, x: Any, dim: Any, index: Any, value: Any) -> Any:
        check_scatter_bounds(x, dim, index, value)
        self.dim, self.index, self.value = dim, index, value
        return _scatter_array(x.copy(), dim, index, value, accumulate=False)

    def backward(self, F: Any, grad: Any) -> Any:
        keep = _scatter_array(np.ones(grad.shape, dtype=bool), self.dim, self.index, False, False)
        return F.where(keep, grad, 0.0)


class ScatterAddBackward0(Op):
    """out = input with ``src`` added at gather addressing (repeated indices accumulate)"""

    dim: Any
    index: Any
    src_sizes: Any

    refuses_full_overlap = True

    __slots__ = ("dim", "index", "src_sizes")

    @staticmethod
    def write_overlapping(data: np.ndarray, src: Any, dim: int, index: np.ndarray) -> None:
        _scatter_overlapping(data, dim, index, src, np.add)

    @row_major
    def forward(self, x: Any, src: Any, dim: Any, index: Any) -> Any:
        values = src[_box(index.shape)] if src.ndim else src
        check_scatter_bounds(x, dim, index, values, np.add)
        self.dim, self.index, self.src_sizes = dim, index, src.shape
        out = x.astype(np.result_type(x, src), copy=True)
        return _scatter_array(out, dim, index, src, accumulate=True)

    def backward(self, F: Any, grad: Any) -> Any:
        needs = self.needs_input_grad
        grad_src = None
        if needs[1]:
            grad_src = _scatter_src_grad(F, grad, self.dim, self.index, self.src_sizes)
        return (grad if needs[0] else None), grad_src


def _check_gather_index(
    op: str, shape: tuple, d: int, idx: np.ndarray, src_shape: tuple | None = None,
    bounds: bool = True,
) -> None:  # fmt: skip
    """PyTorch's checks: same ndim, index no larger than self (except at dim) and src; and
    with ``bounds`` (gather), every index within the dim (the scatters check it in their
    kernels, check_scatter_bounds)."""
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
    if bounds and idx.size and (idx.min() < 0 or idx.max() >= size):
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
    return keep_versions(GatherBackward0.apply(input, dim=d, index=idx), index)


def _scatter_args(op: str, input: Tensor, dim: int, index: Any, src: Any) -> tuple:
    shape = check_tensor(input, op)._data.shape
    d = wrap_dim(dim, len(shape), op)
    idx = _index_array(index, op, f"{op}(): Expected dtype int64 for index")
    if isinstance(src, Tensor):
        _check_same_dtype(op, input._data, src._data, "src")
        _check_gather_index(op, shape, d, idx, src._data.shape, bounds=False)
    else:
        _check_gather_index(op, shape, d, idx, bounds=False)
    return d, idx


def _scatter_with_reduce(x: np.ndarray, *rest: Any) -> np.ndarray:
    """scatter(..., reduce="add" | "multiply"): repeated indices accumulate."""
    *src, (dim, index, reduce, value) = rest
    values = src[0] if src else np.full(index.shape, value, x.dtype)
    taken = values[tuple(slice(0, n) for n in index.shape)].astype(x.dtype, copy=False)
    check_scatter_bounds(x, dim, index, taken, np.add if reduce == "add" else np.multiply)
    out = x.copy()
    key = _along_key(index, dim)
    (np.add if reduce == "add" else np.multiply).at(out, key, taken)
    return out


# PyTorch has no derivative for scatter with reduce=: a NotImplemented node.
ScatterReduceNotImplemented: type[Op] = _not_implemented_node("scatter", _scatter_with_reduce)


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
        return keep_versions(ScatterBackward0.apply(input, src, dim=d, index=idx), index)
    return keep_versions(ScatterBackward1.apply(input, dim=d, index=idx, value=src), index)


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
            return keep_versions(
                apply_inplace(
                    ScatterReduceNotImplemented, input, src, after=(d, idx, reduce, None)
                ),
                index,
            )
        return keep_versions(
            apply_inplace(ScatterReduceNotImplemented, input, after=(d, idx, reduce, src)), index
        )
    if isinstance(src, Tensor):
        return keep_versions(apply_inplace(ScatterBackward0, input, src, dim=d, index=idx), index)
    return keep_versions(apply_inplace(ScatterBackward1, input, dim=d, index=idx, value=src), index)


def scatter_add(input: Tensor, dim: int, index: Any, src: Tensor) -> Tensor:
    """A copy of ``input`` with ``src`` added at gather addressing (repeats accumulate):
    ``out[i][index[i][j]] += src[i][j]`` for ``dim=1``.

    Example::

        >>> glassgrad.zeros(3).scatter_add(0, glassgrad.tensor([0, 0, 2]), glassgrad.ones(3))
        tensor([2., 0., 1.])
    """
    check_tensor(src, "scatter_add", "src", 4)
    d, idx = _scatter_args("scatter_add", input, dim, index, src)
    return keep_versions(ScatterAddBackward0.apply(input, src, dim=d, index=idx), index)


def scatter_add_(input: Tensor, dim: int, index: Any, src: Tensor) -> Tensor:
    """In-place ``scatter_add``."""
    check_tensor(src, "scatter_add_", "src", 4)
    d, idx = _scatter_args("scatter_add_", input, dim, index, src)
    return keep_versions(apply_inplace(ScatterAddBackward0, input, src, dim=d, index=idx), index)


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
    return moveaxis(index, -1, dim)


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


TENSOR_METHODS: dict[str, Any] = {
    "scatter_": scatter_,
    "scatter_add_": scatter_add_,
    "index_add_": index_add_,
}
