"""Reducing scatters: ``scatter_reduce`` (``src`` reduced into ``input`` at gather
addressing: sum, prod, mean, amax, amin, with or without ``input``'s own values) and
``index_reduce`` (whole slices of ``source`` reduced into the slices of ``input`` that
``index`` names: prod, mean, amax, amin), with PyTorch's gradients
(``scatter_reduce_backward``): ties of amax/amin share the gradient evenly, prod's gradient
handles zeros exactly."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from .._strides import row_major
from .._tensor import Tensor
from ..autograd.function import delayed_error
from ..autograd.kernel_order import write_at_in_order, write_in_kernel_order
from ..autograd.op import Op, apply_inplace, keep_versions
from ._common import array_of, check_tensor, wrap_dim
from ._index_kernels import check_index_reduce_bounds, check_scatter_bounds
from ._not_implemented import refuse_complex
from ._registry import NoGrad, Sample, register
from ._samples import randn, register_on_copy
from .division import DivBackward0, DivBackward2
from .gather_scatter import (
    GatherBackward0,
    ScatterAddBackward0,
    _along_key,
    _box,
    _index_array,
    _scatter_args,
)

_SCATTER_REDUCTIONS = ("sum", "prod", "mean", "amax", "amin")
_UFUNCS = {"sum": np.add, "mean": np.add, "prod": np.multiply, "amax": np.maximum}
_UFUNCS["amin"] = np.minimum


def _identity(reduce: str, dtype: np.dtype) -> Any:
    """The value a position starts from when ``input``'s own value is left out."""
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    if dtype.kind == "f":
        return -np.inf if reduce == "amax" else np.inf
    info = np.iinfo(dtype) if dtype.kind in "iu" else None
    if info is None:
        return reduce == "amin"  # bool
    return info.min if reduce == "amax" else info.max


def _reduce_into(x: np.ndarray, dim: int, index: np.ndarray, src: np.ndarray, reduce: str,
                 include_self: bool) -> np.ndarray:  # fmt: skip
    flat = x.ndim == 0
    out = (x.reshape(1) if flat else x).copy()
    idx = index.reshape(-1) if flat else index
    key = (idx,) if flat else _along_key(idx, dim)
    taken = (src.reshape(-1)[: idx.size] if flat else src[_box(idx.shape)]).astype(out.dtype)
    if not include_self:
        out[key] = _identity(reduce, out.dtype)
    _UFUNCS[reduce].at(out, key, taken)
    if reduce == "mean":
        count = np.full(out.shape, 1 if include_self else 0, np.int64)
        np.add.at(count, key, 1)
        count = np.maximum(count, 1)
        if out.dtype.kind == "f" or out.dtype.kind == "c":
            out = (out / count).astype(out.dtype)
        else:
            out = np.floor_divide(out, count).astype(out.dtype)
    return out.reshape(()) if flat else out


def _reduce_overlapping(data: np.ndarray, src: np.ndarray, dim: int, index: np.ndarray,
                        reduce: str, include_self: bool = True) -> None:  # fmt: skip
    """``_reduce_into`` written into ``data`` whose elements share memory, as PyTorch's
    kernels write it: the identity scattered first (without ``include_self``), then each
    value reduced into its location as the writes before it left it, and a mean divided in
    place (autograd/kernel_order.py)."""
    key = _along_key(index, dim)
    if not include_self:
        write_at_in_order(data, key, _identity(reduce, data.dtype), None, (index,))
    write_at_in_order(data, key, src[_box(index.shape)], _UFUNCS[reduce], (index,))
    if reduce == "mean":
        count = np.full(data.shape, 1 if include_self else 0, np.int64)
        np.add.at(count, key, 1)
        count = np.maximum(count, 1).astype(data.dtype)
        # PyTorch's out.div_(count): element after element, each reading what is left there
        if data.dtype.kind in "fc":
            write_in_kernel_order(DivBackward0, data, [count], {})
        else:
            write_in_kernel_order(DivBackward2, data, [count], {"rounding_mode": "floor"})


class ScatterReduceBackward0(Op):
    """out = input with ``src`` reduced in at gather addressing (see the module docstring)."""

    dim: Any
    include_self: Any
    index: Any
    reduce: Any
    src_sizes: Any

    saved_inputs: tuple[int, ...] = (0, 1)
    saves_output = True
    refuses_full_overlap = True  # scatter_reduce_(..., src=self) is refused, as in PyTorch
    __slots__ = ("dim", "index", "reduce", "include_self", "src_sizes")
    _double_backward_message = (
        "scatter_reduce(): Double backward is unsupported for src when >1 zeros in src are "
        "scattered to the same position in self"
    )

    write_overlapping = staticmethod(_reduce_overlapping)

    @row_major
    def forward(
        self, x: Any, src: Any, dim: Any, index: Any, reduce: Any, include_self: Any = True
    ) -> Any:
        # PyTorch scatters the identity first without include_self, then reduces
        if include_self:
            values, ufunc = src[_box(index.shape)] if src.ndim else src, _UFUNCS[reduce]
        else:
            values, ufunc = np.asarray(_identity(reduce, x.dtype)).astype(x.dtype), None
        check_scatter_bounds(x, dim, index, values, ufunc)
        self.dim, self.index, self.reduce = dim, index, reduce
        self.include_self, self.src_sizes = include_self, src.shape
        return _reduce_into(x, dim, index, src, reduce, include_self)

    def _call_again(self, x: Any, src: Any) -> Any:
        return ScatterReduceBackward0.call(
            x, src, dim=self.dim, index=self.index, reduce=self.reduce,
            include_self=self.include_self,
        )  # fmt: skip

    def _gather(self, t: Any) -> Any:
        return GatherBackward0.call(t, dim=self.dim, index=self.index)

    def _scatter_add(self, base: Any, values: Any) -> Any:
        return ScatterAddBackward0.call(base, values, dim=self.dim, index=self.index)

    def backward(self, F: Any, grad: Any) -> Any:
        x, src, result = self.saved
        xv, sv = array_of(x), array_of(src)[_box(self.index.shape)]
        src_box = src[_box(self.index.shape)]
        reduce, dim, index = self.reduce, self.dim, self.index
        needs = self.needs_input_grad
        if reduce == "sum":
            grad_self, grad_src_box = grad, self._gather(grad)
        elif reduce == "mean":
            count = np.full(xv.shape, 1.0 if self.include_self else 0.0, array_of(grad).dtype)
            count = _reduce_into(count, dim, index, np.ones(index.shape, count.dtype), "sum", True)
            count = np.maximum(count, 1.0)
            grad_self = grad / count
            grad_src_box = self._gather(grad_self)
        elif reduce in ("amax", "amin"):
            rv = array_of(result)
            value = _gather_values(rv, dim, index)
            self_is = (xv == rv).astype(rv.dtype)
            src_is = (sv == value).astype(rv.dtype)
            shares = _reduce_into(self_is, dim, index, src_is, "sum", True)
            distributed = grad / shares
            # masks multiply as in PyTorch: where no element equals the result (NaN) the share
            # count is 0 and the gradient NaN
            grad_self = distributed * self_is
            grad_src_box = self._gather(distributed) * src_is
        else:  # prod, with zeros handled exactly as PyTorch
            self_zero = xv == 0
            masked_self = F.where(self_zero, 1.0, x)
            grad_self = grad * self._call_again(masked_self, src) / masked_self
            src_zero = sv == 0
            zeros_at = _reduce_into(
                np.zeros(xv.shape), dim, index, src_zero.astype(float), "sum", True
            )
            single_zero = src_zero & (_gather_values(zeros_at, dim, index) == 1)
            masked_src = F.where(single_zero, 1.0, src_box)
            masked_src_result = self._call_again(x, masked_src)
            grad_src_box = F.where(
                single_zero,
                self._gather(grad * masked_src_result),
                self._gather(grad * result) / F.where(src_zero, 1.0, src_box),
            )
            if isinstance(grad_src_box, Tensor) and (zeros_at > 1).any():
                # As PyTorch: where several zeros meet, this gradient has no derivative.
                grad_src_box = delayed_error(self._double_backward_message, grad_src_box)
        if not self.include_self:
            scattered = _reduce_into(
                np.zeros(xv.shape, bool), dim, index, np.ones(index.shape, bool), "amax", True
            )
            grad_self = F.where(scattered, 0.0, grad_self)
        # PyTorch's gradient of src has the index's shape: a src larger than the index is
        # refused at backward time ("returned an invalid gradient"), as there.
        grad_src = grad_src_box if needs[1] else None
        return (grad_self if needs[0] else None), grad_src


def _gather_values(values: np.ndarray, dim: int, index: np.ndarray) -> np.ndarray:
    if values.ndim == 0:
        return values.reshape(1)[index.reshape(-1)].reshape(index.shape)
    return values[_along_key(index, dim)]


def _scatter_reduce_args(op: str, input: Tensor, dim: int, index: Any, src: Tensor) -> tuple:
    """PyTorch's checks of scatter_reduce (its index and dtype messages differ from scatter's)."""
    check_tensor(src, op, "src", 4)
    _index_array(index, op, "scatter(): Expected dtype int32/int64 for index")
    if check_tensor(input, op)._data.dtype != src._data.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    return _scatter_args("scatter", input, dim, index, src)


def _reduce_arg(op: str, reduce: str, allowed: tuple, input: Tensor) -> None:
    if reduce not in allowed:
        raise RuntimeError(
            f"reduce argument must be either {', '.join(allowed[:-1])} or {allowed[-1]}, got "
            f"{reduce}"
        )
    if reduce in ("amax", "amin"):  # complex numbers are not ordered
        refuse_complex(f"scatter_gather_tensor_cpu_reduce_{reduce}", input)


def scatter_reduce(
    input: Tensor,
    dim: int,
    index: Tensor,
    src: Tensor,
    reduce: str,
    *,
    include_self: bool = True,
) -> Tensor:
    """``src`` reduced into a copy of ``input`` at gather addressing (``out[i][index[i][j]]``
    for ``dim=1``) with ``reduce`` in sum, prod, mean, amax, amin; ``include_self=False``
    leaves ``input``'s own values out where something is scattered.

    Example::

        >>> x = glassgrad.tensor([1.0, 2.0, 3.0])
        >>> x.scatter_reduce(0, glassgrad.tensor([0, 0, 2]), glassgrad.tensor([5.0, 6.0, 7.0]), "amax")
        tensor([6., 2., 7.])
    """
    d, idx = _scatter_reduce_args("scatter_reduce", input, dim, index, src)
    _reduce_arg("scatter_reduce", reduce, _SCATTER_REDUCTIONS, input)
    return keep_versions(
        ScatterReduceBackward0.apply(
            input, src, dim=d, index=idx, reduce=reduce, include_self=include_self
        ),
        index,
    )


def scatter_reduce_(
    input: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, *, include_self: bool = True
) -> Tensor:
    """In-place ``scatter_reduce``.

    Example::

        >>> glassgrad.zeros(2).scatter_reduce_(0, glassgrad.tensor([1, 1]), glassgrad.ones(2), "sum")
        tensor([0., 2.])
    """
    d, idx = _scatter_reduce_args("scatter_reduce_", input, dim, index, src)
    _reduce_arg("scatter_reduce_", reduce, _SCATTER_REDUCTIONS, input)
    result = apply_inplace(
        ScatterReduceBackward0, input, src, dim=d, index=idx, reduce=reduce,
        include_self=include_self,
    )  # fmt: skip
    return keep_versions(result, index)


class IndexReduceBackward0(ScatterReduceBackward0):
    """``index_reduce``: a scatter_reduce whose index is ``index`` along ``dim`` for every
    element of ``source``."""

    _double_backward_message = (
        "index_reduce(): Double backward is unsupported for source when >1 zeros in source are "
        "scattered to the same position in self"
    )
    __slots__ = ()

    @row_major
    def forward(
        self, x: Any, src: Any, dim: Any, index: Any, reduce: Any, include_self: Any = True
    ) -> Any:
        line = (
            np.moveaxis(index, dim, 0).reshape(index.shape[dim], -1)[:, 0] if index.ndim else index
        )
        identity = None if include_self else np.asarray(_identity(reduce, x.dtype)).astype(x.dtype)
        check_index_reduce_bounds(x, dim, line.reshape(-1), src, _UFUNCS[reduce], identity)
        return super().forward(x, src, dim, index, reduce, include_self)


def _index_reduce_args(op: str, input: Tensor, dim: int, index: Any, source: Tensor,
                       reduce: str) -> tuple:  # fmt: skip
    warnings.warn(
        "index_reduce() is in beta and the API may change at any time.", UserWarning, stacklevel=3
    )
    x = check_tensor(input, op)._data
    s = check_tensor(source, op, "source", 4)._data
    d = wrap_dim(dim, x.ndim, op)
    idx = _index_array(index, op, f"{op}_(): Expected dtype int32/int64 for index")
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(
            f"{op}(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}."
        )
    count = s.shape[d] if s.ndim else 1
    if idx.ndim > 1 or idx.size != count:
        raise RuntimeError(
            f"{op}_(): Number of indices ({idx.size}) should be equal to source.size(dim): "
            f"({count}), for dim: {d}"
        )
    if x.dtype != s.dtype:
        raise RuntimeError(
            f"{op}_(): self ({x.dtype}) and source ({s.dtype}) must have the same scalar type"
        )
    shape = [1] * max(s.ndim, 1)
    shape[d] = idx.size
    full = np.broadcast_to(idx.reshape(shape), s.shape if s.ndim else (1,)).copy()
    return d, full.reshape(s.shape) if s.ndim else full.reshape(())


def index_reduce(input: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, *,
                 include_self: bool = True) -> Tensor:  # fmt: skip
    """The slices of ``source`` along ``dim`` reduced (prod, mean, amax, amin) into a copy of
    ``input`` at the slices ``index`` names; ``include_self=False`` leaves ``input``'s own
    values out there.

    Example::

        >>> x = glassgrad.ones(3)
        >>> x.index_reduce(0, glassgrad.tensor([0, 0]), glassgrad.tensor([2.0, 3.0]), "prod")
        tensor([6., 1., 1.])
    """
    d, full = _index_reduce_args("index_reduce", input, dim, index, source, reduce)
    return keep_versions(
        IndexReduceBackward0.apply(
            input, source, dim=d, index=full, reduce=reduce, include_self=include_self
        ),
        index,
    )


def index_reduce_(input: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, *,
                  include_self: bool = True) -> Tensor:  # fmt: skip
    """In-place ``index_reduce``.

    Example::

        >>> glassgrad.ones(2).index_reduce_(0, glassgrad.tensor([1]), glassgrad.tensor([4.0]), "amax")
        tensor([1., 4.])
    """
    d, full = _index_reduce_args("index_reduce", input, dim, index, source, reduce)
    result = apply_inplace(
        IndexReduceBackward0, input, source, dim=d, index=full, reduce=reduce,
        include_self=include_self,
    )  # fmt: skip
    return keep_versions(result, index)


TENSOR_METHODS: dict[str, Any] = {
    "scatter_reduce_": scatter_reduce_,
    "index_reduce_": index_reduce_,
}


def _scatter_samples(rng: np.random.Generator) -> list[Sample]:
    index = np.array([[0, 1, 0, 2], [2, 2, 1, 0]])
    samples = []
    for reduce in _SCATTER_REDUCTIONS:
        samples.append(Sample((randn(rng, 2, 3), 1, index, randn(rng, 2, 4), reduce)))
        samples.append(
            Sample(
                (randn(rng, 3, 3), 0, index[:, :3] % 3, randn(rng, 2, 3), reduce),
                {"include_self": False},
            )
        )
    ties = np.array([1.0, 2.0, 2.0])
    samples.append(Sample((ties, 0, np.array([1, 1]), np.array([2.0, 0.5]), "amax"), fd=False,
                          note="ties share the gradient"))  # fmt: skip
    zeros = np.array([[0.0, 2.0, 3.0]])
    samples.append(Sample((zeros, 1, np.array([[0, 1, 1]]), np.array([[2.0, 0.0, 4.0]]), "prod"),
                          note="zeros"))  # fmt: skip
    samples.append(Sample((NoGrad(randn(rng, 3)), 0, np.array([0, 0]), randn(rng, 2), "mean")))
    return samples


def _index_samples(rng: np.random.Generator) -> list[Sample]:
    samples = []
    for reduce in ("prod", "mean", "amax", "amin"):
        samples.append(
            Sample((randn(rng, 3, 2), 0, np.array([0, 2, 0, 1]), randn(rng, 4, 2), reduce))
        )
        samples.append(Sample((randn(rng, 2, 3), 1, np.array([2, 2]), randn(rng, 2, 2), reduce),
                              {"include_self": False}))  # fmt: skip
    return samples


register(
    "scatter_reduce",
    scatter_reduce,
    nodes=(ScatterReduceBackward0,),
    samples=_scatter_samples,
    torch=lambda torch, x, *a, **k: x.scatter_reduce(*a, **k),
)
register(
    "index_reduce",
    index_reduce,
    nodes=(IndexReduceBackward0,),
    samples=_index_samples,
    torch=lambda torch, x, *args, **kwargs: x.index_reduce(*args, **kwargs),
)
register_on_copy(
    "scatter_reduce_",
    lambda rng: [Sample((randn(rng, 3), 0, np.array([0, 0, 2]), randn(rng, 3), "amin"))],
)
