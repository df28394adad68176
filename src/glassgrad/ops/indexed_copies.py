"""Ops that read or write at indices, built as PyTorch builds them from the core views and
copies: take and put (flat indices, TakeBackward0 / PutBackward0), index_fill, index_copy,
select_scatter and slice_scatter.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._dtype import checked_scalar, scalar_type_name
from .._strides import like_operands
from .._tensor import Tensor
from ..autograd.kernel_order import write_at_in_order
from ..autograd.op import Op, apply_inplace, keep_versions
from ._common import array_of, check_tensor, wrap_dim
from ._index_kernels import check_put_bounds, check_slice_bounds
from ._registry import Sample, register
from ._samples import randn
from .conversion import clone
from .gather_scatter import IndexSelectBackward0


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
    check_put_bounds(input._data, index._data, None, False)
    return keep_versions(TakeBackward0.apply(input, index=index._data), index)


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
        where = np.unravel_index(index.reshape(-1) % data.size, data.shape)
        write_at_in_order(data, where, source.reshape(-1), np.add if accumulate else None)

    def forward(self, x: Any, source: Any, index: Any, accumulate: Any) -> Any:
        check_put_bounds(x, index, source.astype(x.dtype, copy=False), accumulate)
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


def _slices_key(ndim: int, dim: int, index: np.ndarray) -> tuple:
    """The NumPy key of the slices ``index`` along ``dim`` (a 0-d tensor is one of size 1)."""
    return (slice(None),) * dim + (index.reshape(-1),) if ndim else (index.reshape(-1),)


def _at_least_1d(x: np.ndarray) -> np.ndarray:
    return x.reshape(1) if x.ndim == 0 else x


class IndexFillBackward0(Op):
    """out = input with the number ``value`` in the slices ``index`` along ``dim``; d/dinput:
    grad with those slices zeroed"""

    dim: Any
    index: Any

    __slots__ = ("dim", "index")
    # PyTorch's index_fill_ only warns for a target whose elements share memory
    overlap_warning = (
        "Use of index_fill_ on expanded tensors is deprecated. Please clone() the tensor before "
        "performing this operation. This also applies to advanced indexing e.g. tensor[mask] = "
        "scalar"
    )

    @staticmethod
    def write_overlapping(data: np.ndarray, dim: int, index: np.ndarray, value: Any) -> None:
        write_at_in_order(data, _slices_key(data.ndim, dim, index), value)

    def forward(self, x: Any, dim: Any, index: Any, value: Any) -> Any:
        # PyTorch's kernel converts the value (checked), then finds a bad index
        value = checked_scalar(
            value.item() if isinstance(value, np.ndarray) else value, x.dtype, "index_fill"
        )
        fill = np.asarray(value).astype(x.dtype)
        check_slice_bounds(x, dim, index, "", -(x.shape[dim] if x.ndim else 1), fill)
        self.dim, self.index = dim, index
        out = x.copy(order="K")  # PyTorch fills a clone that keeps self's layout
        _at_least_1d(out)[_slices_key(x.ndim, dim, index)] = np.asarray(value).astype(x.dtype)
        return out

    def backward(self, F: Any, grad: Any) -> Any:
        return IndexFillBackward0.call(grad, dim=self.dim, index=self.index, value=0)


class IndexFillBackward1(Op):
    """out = input with the 0-d tensor ``value`` in the slices ``index`` along ``dim``;
    d/dvalue: the sum of grad over those slices (each once)"""

    dim: Any
    index: Any

    __slots__ = ("dim", "index")
    overlap_warning = IndexFillBackward0.overlap_warning
    checks_source_overlap = False  # PyTorch's kernel reads value.item() first

    @staticmethod
    def write_overlapping(data: np.ndarray, value: Any, dim: int, index: np.ndarray) -> None:
        write_at_in_order(data, _slices_key(data.ndim, dim, index), value.copy())

    def forward(self, x: Any, value: Any, dim: Any, index: Any) -> Any:
        return IndexFillBackward0.forward(self, x, dim, index, value)  # type: ignore[arg-type]

    def backward(self, F: Any, grad: Any) -> Any:
        needs = self.needs_input_grad
        grad_self = grad_value = None
        if needs[0]:
            grad_self = IndexFillBackward0.call(grad, dim=self.dim, index=self.index, value=0)
        if needs[1]:
            g = F.reshape(grad, (1,)) if array_of(grad).ndim == 0 else grad
            positions = np.unique(self.index)
            if positions.size and positions[0] < 0:
                # PyTorch's index_select of the unique indices takes no negative one (its
                # forward does): the value's gradient fails there.
                size = array_of(g).shape[self.dim]
                raise RuntimeError(
                    f"INDICES element is out of DATA bounds, id={positions[0]} axis_dim={size}"
                )
            picked = IndexSelectBackward0.call(g, dim=self.dim, index=positions)
            grad_value = F.sum(picked)
        return grad_self, grad_value


def _index_fill_args(op: str, input: Tensor, dim: int, index: Tensor, value: Any) -> tuple:
    """PyTorch's index_fill_ checks before its kernel (which checks the bounds)."""
    check_tensor(input, op)
    if isinstance(value, Tensor) and value._data.ndim:
        raise RuntimeError(
            "index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
            f"{value._data.ndim} dimension(s)."
        )
    check_tensor(index, op, "index")
    if index._data.dtype != np.int64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    if isinstance(value, complex) and input._data.dtype.kind != "c":
        raise RuntimeError(
            "index_fill_(): Converting complex Scalar to non-complex type is not supported"
        )
    d = wrap_dim(dim, max(input._data.ndim, 1), op)
    if index._data.ndim > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    return d, index


def index_fill(input: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:
    """A copy of ``input`` with ``value`` (a number or a 0-d tensor) at ``index`` along ``dim``.

    Example::

        >>> glassgrad.zeros(2, 3).index_fill(1, glassgrad.tensor([0, 2]), 1.0)
        tensor([[1., 0., 1.],
                [1., 0., 1.]])
    """
    d, index = _index_fill_args("index_fill", input, dim, index, value)
    if isinstance(value, Tensor):
        result = IndexFillBackward1.apply(input, value, dim=d, index=index._data)
    else:
        result = IndexFillBackward0.apply(input, dim=d, index=index._data, value=value)
    return keep_versions(result, index)


def _index_fill_(input: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:
    d, index = _index_fill_args("index_fill", input, dim, index, value)
    if isinstance(value, Tensor):
        result = apply_inplace(IndexFillBackward1, input, value, dim=d, index=index._data)
    else:
        result = apply_inplace(IndexFillBackward0, input, dim=d, index=index._data, value=value)
    return keep_versions(result, index)


class IndexCopyBackward0(Op):
    """out = input with its slices ``index`` along ``dim`` replaced by ``source``'s (of a
    repeated index, the last one stays); d/dinput: grad with those slices zeroed,
    d/dsource: grad's slices ``index``"""

    dim: Any
    index: Any
    source_shape: Any

    __slots__ = ("dim", "index", "source_shape")
    saved_inputs: tuple[int, ...] = (1,)  # the source, as PyTorch's node (expand_as(source))
    saved_for: tuple[tuple[int, ...], ...] = ((1,),)
    refuses_full_overlap = True  # PyTorch's assert_no_overlap(self, source)
    errors_after_overlap = "all"  # its argument checks follow the overlap checks

    @staticmethod
    def write_overlapping(data: np.ndarray, source: Any, dim: int, index: np.ndarray) -> None:
        key = _slices_key(data.ndim, dim, index)
        write_at_in_order(data, key, source.reshape(_at_least_1d(data)[key].shape))

    def forward(self, x: Any, source: Any, dim: Any, index: Any) -> Any:
        _check_index_copy(x, source, dim, index)
        self.dim, self.index, self.source_shape = dim, index, source.shape
        out = x.copy(order="C")  # PyTorch's structured index_copy allocates it contiguous
        target = _at_least_1d(out)
        key = _slices_key(x.ndim, dim, index)
        target[key] = source.reshape(target[key].shape)
        return out

    def backward(self, F: Any, grad: Any) -> Any:
        needs = self.needs_input_grad
        grad_self = grad_source = None
        if needs[0]:
            grad_self = IndexFillBackward0.call(grad, dim=self.dim, index=self.index, value=0)
        if needs[1]:
            g = F.reshape(grad, (1,)) if array_of(grad).ndim == 0 else grad
            picked = IndexSelectBackward0.call(g, dim=self.dim, index=self.index.reshape(-1))
            grad_source = F.reshape(picked, self.source_shape)
        return grad_self, grad_source


def _check_index_copy(x: np.ndarray, source: np.ndarray, dim: int, index: np.ndarray) -> None:
    """PyTorch's index_copy checks, in its order (after the overlap checks)."""
    if index.ndim >= 2:
        raise IndexError(f"index_copy_(): Index should have dimension 1 or 0 (got {index.ndim})")
    numel = index.size
    if source.ndim == 0 and numel != 1:
        raise IndexError(
            f"index_copy_(): When source is scalar, index should have one element (got {numel})"
        )
    if source.ndim != x.ndim and source.ndim and x.ndim:
        raise IndexError(
            "index_copy_(): When source and destination are not scalars, their dimensionality "
            f"must match. Source dimensionality ({source.ndim}), destination dimensionality "
            f"({x.ndim})"
        )
    if index.dtype != np.int64:
        raise RuntimeError(
            "index_copy_(): Expected a long tensor for index, but got "
            f"{scalar_type_name(index.dtype)}"
        )
    if source.dtype != x.dtype:
        raise RuntimeError(
            "index_copy_(): self and source expected to have the same dtype, but got (self) "
            f"{scalar_type_name(x.dtype)} and (source) {scalar_type_name(source.dtype)}"
        )
    own = [n for k, n in enumerate(x.shape) if k != dim]
    given = [n for k, n in enumerate(source.shape) if k != dim]
    if own != given:
        raise RuntimeError(
            "index_copy_(): Source/destination tensor must have same slice shapes. Destination "
            f"slice shape: {' '.join(map(str, own))} at dimension {dim} and source slice shape: "
            f"{' '.join(map(str, given))} at dimension 0."
        )
    count = source.shape[dim] if source.ndim else 1
    if index.ndim and numel != count:
        raise IndexError(
            f"index_copy_(): Number of indices ({numel}) should be equal to source.size(dim) "
            f"({count})"
        )
    check_slice_bounds(x, dim, index, "index_copy_(): ", 0, source)


def _index_copy_args(op: str, input: Tensor, dim: int, index: Tensor, source: Tensor) -> int:
    check_tensor(input, op)
    check_tensor(index, op, "index")
    check_tensor(source, op, "source", 4)
    return wrap_dim(dim, max(input._data.ndim, 1), op)


def index_copy(input: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    """A copy of ``input`` whose slices at ``index`` along ``dim`` are ``source``'s.

    Example::

        >>> glassgrad.zeros(3).index_copy(0, glassgrad.tensor([2]), glassgrad.tensor([5.0]))
        tensor([0., 0., 5.])
    """
    d = _index_copy_args("index_copy", input, dim, index, source)
    return keep_versions(IndexCopyBackward0.apply(input, source, dim=d, index=index._data), index)


def _index_copy_(input: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    d = _index_copy_args("index_copy", input, dim, index, source)
    result = apply_inplace(IndexCopyBackward0, input, source, dim=d, index=index._data)
    return keep_versions(result, index)


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
    nodes=(IndexFillBackward0, IndexFillBackward1),
    samples=lambda rng: [
        Sample((randn(rng, 3, 4), 1, np.array([0, 2]), 1.5)),
        Sample((randn(rng, 3, 4), 0, np.array([1]), randn(rng))),
        Sample((randn(rng, 3, 4), -1, np.array([3, 3]), -2.0)),
    ],
)


register(
    "index_copy",
    index_copy,
    nodes=(IndexCopyBackward0,),
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
    "index_fill_": _index_fill_,
    "index_copy_": _index_copy_,
}
