"""Ops that read or write at indices, built as PyTorch builds them from the core views and
copies: take and put (flat indices, TakeBackward0 / PutBackward0), index_fill, index_copy,
select_scatter and slice_scatter.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._dtype import scalar_type_name
from .._strides import like_operands
from .._tensor import Tensor
from ..autograd.kernel_order import write_at_in_order
from ..autograd.op import Op, apply_inplace, keep_versions
from ._common import array_of, check_tensor, wrap_dim
from ._registry import Sample, register
from ._samples import randn
from .conversion import clone
from .gather_scatter import index_add
from .masking import masked_fill
from .slicing import _inplace


def _index_of(index: Any, op: str) -> Tensor:
    check_tensor(index, op, "index")
    if index._data.dtype != np.int64:
        raise RuntimeError(
            f"{op}(): Expected a long tensor for index, but got "
            f"{scalar_type_name(index._data.dtype)}"
        )
    return index


class TakeBackward0(Op):
    """out = the flattened input at ``index``; the gradient adds ``grad`` back there"""

    index: Any

    __slots__ = ("index",)
    saved_inputs: tuple[int, ...] = (0,)  # as PyTorch's node (which reads its sizes)

    def forward(self, x: Any, index: Any) -> Any:
        self.index = index.reshape(-1)
        return x.reshape(-1)[self.index].reshape(index.shape)

    def backward(self, F: Any, grad: Any) -> Any:
        (x,) = self.saved
        shape = array_of(x).shape
        size = int(np.prod(shape))
        flat = F.index_zeros_add((size,), (self.index,), F.reshape(grad, (-1,)), False)
        return F.reshape(flat, shape)


def take(input: Tensor, index: Tensor) -> Tensor:
    """The elements of the flattened ``input`` at ``index`` (the result has its shape).

    Example::

        >>> glassgrad.take(glassgrad.tensor([[1, 2], [3, 4]]), glassgrad.tensor([0, 3]))
        tensor([1, 4])
    """
    check_tensor(input, "take")
    index = _index_of(index, "take")
    _check_flat_index("take", index._data, input._data.size)
    return keep_versions(TakeBackward0.apply(input, index=index._data), index)


def _check_flat_index(op: str, index: np.ndarray, size: int) -> None:
    if index.size and (index.max() >= size or index.min() < -size):
        bad = index.max() if index.max() >= size else index.min()
        raise IndexError(f"{op}(): index {bad} is out of bounds for size {size}")


class PutBackward0(Op):
    """out = input with ``source`` written (added) at flat ``index``; d/dinput: grad (zero
    at the written places unless accumulating), d/dsource: grad at ``index``"""

    accumulate: Any
    index: Any

    __slots__ = ("index", "accumulate")
    refuses_full_overlap = True  # PyTorch's put_: assert_no_overlap(self, source)
    saved_inputs: tuple[int, ...] = (1,)  # the source, as PyTorch's node
    saved_for: tuple[tuple[int, ...], ...] = ((1,),)  # only for its own gradient's shape

    @staticmethod
    def write_overlapping(data: np.ndarray, source: Any, index: Any, accumulate: bool) -> None:
        where = np.unravel_index(index.reshape(-1), data.shape)
        write_at_in_order(data, where, source.reshape(-1), np.add if accumulate else None)

    def forward(self, x: Any, source: Any, index: Any, accumulate: Any) -> Any:
        self.index, self.accumulate = index.reshape(-1), accumulate
        out = x.copy()
        flat = out.reshape(-1)
        values = source.reshape(-1).astype(x.dtype, copy=False)
        if accumulate:
            np.add.at(flat, self.index, values)
        else:
            flat[self.index] = values
        return like_operands(out, (x,))  # PyTorch writes into a clone that keeps x's layout

    def backward(self, F: Any, grad: Any) -> Any:
        (source,) = self.saved
        needs = self.needs_input_grad
        grad_input = grad_source = None
        if needs[0]:
            if self.accumulate:
                grad_input = grad
            else:
                written = np.zeros(array_of(grad).size, bool)
                written[self.index] = True
                grad_input = F.where(written.reshape(array_of(grad).shape), 0.0, grad)
        if needs[1]:
            picked = F.reshape(grad, (-1,))[self.index]
            grad_source = F.reshape(picked, array_of(source).shape)
        return grad_input, grad_source


def _put_args(op: str, input: Tensor, index: Tensor, source: Tensor) -> Tensor:
    check_tensor(input, op)
    index = _index_of(index, op)
    check_tensor(source, op, "source", 3)
    if source._data.dtype != input._data.dtype:
        raise RuntimeError(
            "put_(): self and source expected to have the same dtype, but got self.dtype = "
            f"{scalar_type_name(input._data.dtype)} and source.dtype = "
            f"{scalar_type_name(source._data.dtype)}"
        )
    if index._data.size != source._data.size:
        raise IndexError(
            f"put_(): Expected source and index to have the same number of elements, but got "
            f"source.numel() = {source._data.size}, index.numel() = {index._data.size}"
        )
    _check_flat_index(op, index._data, input._data.size)
    return index


def put(input: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    """A copy of ``input`` with ``source`` written (or added) at flat positions ``index``.

    Example::

        >>> glassgrad.put(glassgrad.zeros(2, 2), glassgrad.tensor([3]), glassgrad.tensor([9.0]))
        tensor([[0., 0.],
                [0., 9.]])
    """
    index = _put_args("put", input, index, source)
    return keep_versions(
        PutBackward0.apply(input, source, index=index._data, accumulate=bool(accumulate)), index
    )


def _put_(input: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    index = _put_args("put", input, index, source)
    return keep_versions(
        apply_inplace(PutBackward0, input, source, index=index._data, accumulate=bool(accumulate)),
        index,
    )


def _index_mask(input: Tensor, dim: int, index: Tensor, op: str) -> Tensor:
    d = wrap_dim(dim, input._data.ndim, op)
    positions = array_of(index).reshape(-1)
    mask = np.zeros(input._data.shape[d] if input._data.ndim else 1, bool)
    mask[positions] = True
    shape = [1] * max(input._data.ndim, 1)
    shape[d] = mask.size
    return Tensor._from_array(mask.reshape(shape) if input._data.ndim else mask.reshape(()))


def index_fill(input: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:
    """A copy of ``input`` with ``value`` (a number or a 0-d tensor) at ``index`` along ``dim``.

    Example::

        >>> glassgrad.zeros(2, 3).index_fill(1, glassgrad.tensor([0, 2]), 1.0)
        tensor([[1., 0., 1.],
                [1., 0., 1.]])
    """
    check_tensor(input, "index_fill")
    index = _index_of(index, "index_fill")
    if isinstance(value, complex) and input._data.dtype.kind != "c":
        raise RuntimeError(
            "index_fill_(): Converting complex Scalar to non-complex type is not supported"
        )
    return keep_versions(
        masked_fill(input, _index_mask(input, dim, index, "index_fill"), value), index
    )


def index_copy(input: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    """A copy of ``input`` whose slices at ``index`` along ``dim`` are ``source``'s.

    Example::

        >>> glassgrad.zeros(3).index_copy(0, glassgrad.tensor([2]), glassgrad.tensor([5.0]))
        tensor([0., 0., 5.])
    """
    check_tensor(input, "index_copy")
    index = _index_of(index, "index_copy")
    check_tensor(source, "index_copy", "source", 4)
    if source._data.dtype != input._data.dtype:
        raise RuntimeError(
            "index_copy_(): self and source expected to have the same dtype, but got (self) "
            f"{scalar_type_name(input._data.dtype)} and (source) "
            f"{scalar_type_name(source._data.dtype)}"
        )
    d = wrap_dim(dim, input._data.ndim, "index_copy")
    cleared = masked_fill(input, _index_mask(input, dim, index, "index_copy"), 0)
    return index_add(cleared, d, index, source)


def select_scatter(input: Tensor, src: Tensor, dim: int, index: int) -> Tensor:
    """A copy of ``input`` with ``src`` in the slice ``index`` of ``dim``.

    Example::

        >>> glassgrad.zeros(2, 2).select_scatter(glassgrad.ones(2), 0, 0)
        tensor([[1., 1.],
                [0., 0.]])
    """
    check_tensor(input, "select_scatter")
    check_tensor(src, "select_scatter", "src", 2)
    out = clone(input)
    view = out.select(dim, index)
    if view._data.shape != src._data.shape:
        raise RuntimeError(
            f"expected src to have a size equal to the slice of self. src size = "
            f"{list(src._data.shape)}, slice size = {list(view._data.shape)}"
        )
    view.copy_(src)
    return out


def slice_scatter(
    input: Tensor,
    src: Tensor,
    dim: int = 0,
    start: int | None = None,
    end: int | None = None,
    step: int = 1,
) -> Tensor:
    """A copy of ``input`` with ``src`` in the slice ``start:end:step`` of ``dim``.

    Example::

        >>> glassgrad.zeros(4).slice_scatter(glassgrad.ones(2), start=2)
        tensor([0., 0., 1., 1.])
    """
    check_tensor(input, "slice_scatter")
    check_tensor(src, "slice_scatter", "src", 2)
    out = clone(input)
    d = wrap_dim(dim, input._data.ndim, "slice_scatter")
    key = (slice(None),) * d + (slice(start, end, step),)
    view = out[key]
    if view._data.shape != src._data.shape:
        raise RuntimeError(
            f"expected src to have a size equal to the slice of self. src size = "
            f"{list(src._data.shape)}, slice size = {list(view._data.shape)}"
        )
    view.copy_(src)
    return out


register(
    "take",
    take,
    nodes=(TakeBackward0,),
    samples=lambda rng: [
        Sample((randn(rng, 3, 4), np.array([[0, 5], [11, 5]]))),
        Sample((randn(rng, 4, 3).T, np.array([1, 2, 1]))),
        Sample((randn(rng, 3), np.array(2))),
    ],
)


register(
    "put",
    put,
    nodes=(PutBackward0,),
    samples=lambda rng: [
        Sample((randn(rng, 3, 4), np.array([0, 5, 11]), randn(rng, 3))),
        Sample((randn(rng, 3, 4), np.array([1, 1]), randn(rng, 2), True)),
        Sample((randn(rng, 2, 2), np.array([[3]]), randn(rng, 1, 1))),
    ],
)


register(
    "index_fill",
    index_fill,
    samples=lambda rng: [
        Sample((randn(rng, 3, 4), 1, np.array([0, 2]), 1.5)),
        Sample((randn(rng, 3, 4), 0, np.array([1]), randn(rng))),
        Sample((randn(rng, 3, 4), -1, np.array([3, 3]), -2.0)),
    ],
)


register(
    "index_copy",
    index_copy,
    samples=lambda rng: [
        Sample((randn(rng, 4, 3), 0, np.array([0, 2]), randn(rng, 2, 3))),
        Sample((randn(rng, 3, 4), 1, np.array([3]), randn(rng, 3, 1))),
    ],
)


register(
    "select_scatter",
    select_scatter,
    samples=lambda rng: [
        Sample((randn(rng, 3, 4), randn(rng, 4), 0, 1)),
        Sample((randn(rng, 3, 4), randn(rng, 3), 1, -1)),
    ],
)


register(
    "slice_scatter",
    slice_scatter,
    samples=lambda rng: [
        Sample((randn(rng, 4, 3), randn(rng, 2, 3)), {"start": 1, "end": 3}),
        Sample((randn(rng, 4, 6), randn(rng, 4, 3), 1, 0, None, 2)),
        Sample((randn(rng, 4, 3), randn(rng, 4, 3))),
    ],
)


TENSOR_METHODS: dict[str, Any] = {
    "put_": _put_,
    "index_fill_": _inplace(index_fill, "index_fill_"),
    "index_copy_": _inplace(index_copy, "index_copy_", source=2),
}
