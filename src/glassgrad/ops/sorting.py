"""Ops that order or rank values along a dim: sort, argsort, msort, topk, kthvalue, median,
nanmedian, mode.

Each picks elements of its input; the gradient goes back to the picked positions only
(PyTorch's ``value_selecting_reduction_backward``: zeros with the incoming gradient scattered
at the indices), except the full ``median``/``nanmedian``, which share it evenly among the
elements equal to the result, as ``max()`` does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .. import return_types
from .._strides import keeps_operand_layout, like_operands
from .._tensor import Tensor
from ._common import check_tensor, moveaxis, take_along_axis, wrap_dim
from ._not_implemented import refuse_complex
from ._out import out_result
from ._registry import Sample, register
from ._samples import randn
from ._tie_order import (
    all_nan_median_index,
    mode_index,
    sort_order,
    stable_argsort,
    topk_order,
)
from .reduction import _DimExtremum, _FullExtremum


def _refuse_complex_sort(op: str, input: Tensor) -> None:
    if input._data.dtype.kind == "c":  # complex numbers are not ordered
        raise RuntimeError(f" {op} does not support complex dtypes on CPU")


def _check_integer(value: Any, op: str, arg: str, position: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(
            f"{op}(): argument '{arg}' (position {position}) must be int, not "
            f"{type(value).__name__}"
        )
    return int(value)


class _Selecting(_DimExtremum):
    """(values, indices) picked along ``dim``; ``pick`` gives the indices with the dim kept."""

    dim: Any
    indices: np.ndarray
    keepdim: Any
    shape: Any

    def forward(self, x: Any, dim: Any, keepdim: Any = False, **params: Any) -> Any:
        self.shape, self.dim, self.keepdim = x.shape, dim, keepdim
        if x.ndim == 0:
            self.pick(x.reshape(1), 0, **params)  # argument checks only
            self.indices = np.zeros((), dtype=np.int64)
            return x.copy(), self.indices
        index, values = self.pick_with_values(x, dim, **params)
        index = index.astype(np.int64)
        self.indices = index
        if not keepdim:
            values, index = values.squeeze(dim), index.squeeze(dim)
        return values, index

    def pick(self, x: np.ndarray, dim: int, **params: Any) -> np.ndarray:
        raise NotImplementedError

    def pick_with_values(self, x: np.ndarray, dim: int, **params: Any) -> tuple:
        """The indices and the values at them (ops that gather the values anyway override
        it)."""
        index = self.pick(x, dim, **params)
        return index, take_along_axis(x, index, axis=dim)


class SortBackward0(_Selecting):
    # PyTorch's sort gives values and indices the input's layout (made dense).
    forward: Callable[..., Any] = keeps_operand_layout(_Selecting.forward)

    def pick(
        self, x: np.ndarray, dim: int, descending: bool = False, stable: Any = False
    ) -> np.ndarray:
        return self.pick_with_values(x, dim, descending, stable)[0]

    def pick_with_values(
        self, x: np.ndarray, dim: int, descending: bool = False, stable: Any = False
    ) -> tuple:
        index, values = sort_order(x, dim, descending, bool(stable))
        return index, take_along_axis(x, index, axis=dim) if values is None else values


class TopkBackward0(_Selecting):
    def pick(
        self, x: np.ndarray, dim: int, k: int, largest: bool = True, sorted: bool = True
    ) -> np.ndarray:
        return self.pick_with_values(x, dim, k, largest, sorted)[0]

    def pick_with_values(
        self, x: np.ndarray, dim: int, k: int, largest: bool = True, sorted: bool = True
    ) -> tuple:
        if not 0 <= k <= x.shape[dim]:
            raise RuntimeError("selected index k out of range")
        return topk_order(x, dim, k, largest, sorted)


class KthvalueBackward0(_Selecting):
    def pick(self, x: np.ndarray, dim: int, k: int) -> np.ndarray:
        size = x.shape[dim]
        if not size:
            raise IndexError(f"kthvalue(): Expected reduction dim {dim} to have non-zero size.")
        if not 1 <= k <= size:
            raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {dim}")
        index = np.take(stable_argsort(x, dim, False), [k - 1], axis=dim)
        # Which of several equal k-th values PyTorch returns is the one its quickselect
        # leaves at k - 1: only rows with such a tie need that walk.
        values = moveaxis(x, dim, -1)
        kth = take_along_axis(values, moveaxis(index, dim, -1), -1)
        tied = ((values == kth) | ((values != values) & (kth != kth))).sum(-1) > 1
        if tied.any():
            picked = moveaxis(index, dim, -1).copy()
            for at in map(tuple, np.argwhere(tied)):
                picked[at] = _quickselect(values[at], k - 1)
            index = moveaxis(picked, -1, dim)
        return index


def _greater_or_nan(a: Any, b: Any) -> bool:
    """ATen's quickselect order: NaN above every number."""
    return bool((a != a and b == b) or a > b)


def _quickselect(row: np.ndarray, k: int) -> int:
    """The index ATen's ``quick_select_template`` (SortingUtils.h; median-of-three pivot,
    Sedgewick's partition) leaves at position ``k`` of ``row``."""
    values, index = row.tolist(), list(range(len(row)))

    def swap(i: int, j: int) -> None:
        values[i], values[j] = values[j], values[i]
        index[i], index[j] = index[j], index[i]

    low, high = 0, len(values) - 1
    while high > low + 1:
        middle = (low + high) >> 1
        swap(middle, low + 1)
        if _greater_or_nan(values[low + 1], values[high]):
            swap(low + 1, high)
        if _greater_or_nan(values[low], values[high]):
            swap(low, high)
        if _greater_or_nan(values[low + 1], values[low]):
            swap(low + 1, low)
        i, j, pivot = low + 2, high - 1, values[low]
        while True:
            while _greater_or_nan(pivot, values[i]):
                i += 1
            while _greater_or_nan(values[j], pivot):
                j -= 1
            if j < i:
                break
            swap(i, j)
            i, j = i + 1, j - 1
        swap(low, j)
        if j <= k:
            low = i
        if j >= k:
            high = j - 1
    if high == low + 1 and _greater_or_nan(values[low], values[high]):
        swap(low, high)
    return index[k]


def _median_index(x: np.ndarray, dim: int, ignore_nan: bool) -> np.ndarray:
    """The index of the lower median along ``dim`` (kept as size 1). With NaN present, the
    first NaN (``median``) or the median of the other values (``nanmedian``)."""
    order = stable_argsort(x, dim, False)
    nan = np.isnan(x) if x.dtype.kind == "f" else np.zeros(x.shape, bool)
    if ignore_nan:
        count = x.shape[dim] - nan.sum(axis=dim, keepdims=True)
        position = np.maximum(count - 1, 0) // 2
        index = take_along_axis(order, position, axis=dim)
        if count.size and not count.all():  # all NaN: the order nth_element leaves
            empty = count == 0
            index[empty] = all_nan_median_index(int(empty.sum()), x.shape[dim])
        return index
    position = np.full_like(nan.sum(axis=dim, keepdims=True), (x.shape[dim] - 1) // 2)
    first_nan = np.argmax(nan, axis=dim, keepdims=True)
    has_nan = nan.any(axis=dim, keepdims=True)
    index = take_along_axis(order, position, axis=dim)
    return np.where(has_nan, first_nan, index)


class MedianBackward1(_Selecting):
    def pick(self, x: np.ndarray, dim: int) -> np.ndarray:
        if x.shape[dim] == 0:
            raise IndexError(f"median(): Expected reduction dim {dim} to have non-zero size.")
        return _median_index(x, dim, False)


class NanmedianBackward1(_Selecting):
    def pick(self, x: np.ndarray, dim: int) -> np.ndarray:
        if x.shape[dim] == 0:
            raise IndexError(f"nanmedian(): Expected reduction dim {dim} to have non-zero size.")
        return _median_index(x, dim, True)


class ModeBackward0(_Selecting):
    def pick(self, x: np.ndarray, dim: int) -> np.ndarray:
        if x.shape[dim] == 0:
            raise IndexError(f"mode(): Expected reduction dim {dim} to have non-zero size.")
        moved = moveaxis(x, dim, -1)
        return np.expand_dims(
            mode_index(moved.reshape(-1, moved.shape[-1])).reshape(moved.shape[:-1]), dim
        )


class _FullMedian(_FullExtremum):
    """out = the lower median of all elements; ties share the gradient evenly."""

    ignore_nan = False

    def forward(self, x: Any) -> Any:
        if x.size == 0:  # NaN, or the lowest value of an integer type, as PyTorch
            return np.asarray(np.nan if x.dtype.kind == "f" else np.iinfo(x.dtype).min, x.dtype)
        flat = x.reshape(-1)
        return flat[_median_index(flat, 0, self.ignore_nan)].reshape(())


class MedianBackward0(_FullMedian):
    pass


class NanmedianBackward0(_FullMedian):
    ignore_nan = True


def sort(
    input: Tensor,
    dim: int = -1,
    descending: bool = False,
    *,
    stable: bool | None = False,
    out: Any = None,
) -> Any:
    """Sort along ``dim``: ``(values, indices)``; NaN counts as the largest value. Equal values
    keep their order if ``stable``, else they are in the order PyTorch's CPU kernel
    (``std::sort``) leaves them.

    Example::

        >>> glassgrad.sort(glassgrad.tensor([3.0, 1.0, 2.0])).values
        tensor([1., 2., 3.])
    """
    check_tensor(input, "sort")
    _refuse_complex_sort("Sort", input)
    d = wrap_dim(dim, input._data.ndim, "sort")
    values, indices = SortBackward0.apply(
        input, dim=d, keepdim=True, descending=descending, stable=stable
    )
    return out_result("sort", out, return_types.sort(values, indices), (input,), exact=True)


def argsort(
    input: Tensor, dim: int = -1, descending: bool = False, *, stable: bool = False
) -> Tensor:
    """The indices that sort ``input`` along ``dim`` (``sort(...).indices``).

    Example::

        >>> glassgrad.argsort(glassgrad.tensor([3.0, 1.0, 2.0]))
        tensor([1, 2, 0])
    """
    check_tensor(input, "argsort")
    _refuse_complex_sort("Sort", input)
    d = wrap_dim(dim, input._data.ndim, "argsort")
    if input._data.ndim == 0:
        return Tensor._from_array(np.zeros((), np.int64))
    indices = sort_order(input._data, d, descending, bool(stable))[0].astype(np.int64)
    return Tensor._from_array(like_operands(indices, (input._data,)))


def msort(input: Tensor, *, out: Any = None) -> Tensor:
    """``input`` sorted along its first dim.

    Example::

        >>> glassgrad.msort(glassgrad.tensor([[2.0], [1.0]]))
        tensor([[1.],
                [2.]])
    """
    check_tensor(input, "msort")
    return out_result("sort", out, sort(input, 0).values, (input,), exact=True)


def topk(
    input: Tensor,
    k: int,
    dim: int = -1,
    largest: bool = True,
    sorted: bool = True,
    *,
    out: Any = None,
) -> Any:
    """The ``k`` largest (or smallest) elements along ``dim``: ``(values, indices)``, in order
    if ``sorted`` (else in the order PyTorch's CPU kernel leaves them; equal values are in its
    order either way).

    Example::

        >>> glassgrad.topk(glassgrad.tensor([1.0, 5.0, 3.0]), 2).values
        tensor([5., 3.])
    """
    check_tensor(input, "topk")
    _refuse_complex_sort("topk", input)
    k = _check_integer(k, "topk", "k", 2)
    d = wrap_dim(dim, input._data.ndim, "topk")
    values, indices = TopkBackward0.apply(
        input, dim=d, keepdim=True, k=k, largest=largest, sorted=sorted
    )
    return out_result("topk", out, return_types.topk(values, indices), (input,), exact=True)


def kthvalue(
    input: Tensor, k: int, dim: int = -1, keepdim: bool = False, *, out: Any = None
) -> Any:
    """The ``k``-th smallest element along ``dim`` (``k`` from 1): ``(values, indices)``.

    Example::

        >>> glassgrad.kthvalue(glassgrad.tensor([4.0, 1.0, 3.0]), 2).values
        tensor(3.)
    """
    check_tensor(input, "kthvalue")
    refuse_complex("kthvalue_cpu", input)
    k = _check_integer(k, "kthvalue", "k", 2)
    d = wrap_dim(dim, input._data.ndim, "kthvalue")
    values, indices = KthvalueBackward0.apply(input, dim=d, keepdim=keepdim, k=k)
    return out_result("kthvalue", out, return_types.kthvalue(values, indices), (input,), exact=True)


def _median(name: str, full: type, by_dim: type, result: type) -> Any:
    def op(input: Tensor, dim: Any = None, keepdim: bool = False, *, out: Any = None) -> Any:
        check_tensor(input, name)
        refuse_complex("median_cpu" if dim is None else "median_out", input)
        if dim is None:
            if out is not None:  # PyTorch has no out= for the full reduction
                raise TypeError(f'{name}() missing 1 required positional arguments: "dim"')
            return full.apply(input)
        d = wrap_dim(dim, input._data.ndim, name)
        values, indices = by_dim.apply(input, dim=d, keepdim=keepdim)
        return out_result(name, out, result(values, indices), (input,), exact=True)

    op.__name__ = op.__qualname__ = name
    return op


median: Callable[..., Any] = _median(
    "median", MedianBackward0, MedianBackward1, return_types.median
)
median.__doc__ = """The lower median of all elements, or ``(values, indices)`` along ``dim``; NaN
if any element is NaN.

Example::

    >>> glassgrad.median(glassgrad.tensor([1.0, 4.0, 2.0, 3.0]))
    tensor(2.)
"""
nanmedian: Callable[..., Any] = _median(
    "nanmedian", NanmedianBackward0, NanmedianBackward1, return_types.nanmedian
)
nanmedian.__doc__ = """``median`` ignoring NaN elements (NaN only where all are NaN).

Example::

    >>> glassgrad.nanmedian(glassgrad.tensor([1.0, float("nan"), 3.0]))
    tensor(1.)
"""


def mode(input: Tensor, dim: int = -1, keepdim: bool = False, *, out: Any = None) -> Any:
    """The most frequent value along ``dim`` (the smallest if several): ``(values, indices)``.

    Example::

        >>> glassgrad.mode(glassgrad.tensor([2.0, 1.0, 2.0])).values
        tensor(2.)
    """
    check_tensor(input, "mode")
    refuse_complex("mode_cpu", input)
    d = wrap_dim(dim, input._data.ndim, "mode")
    values, indices = ModeBackward0.apply(input, dim=d, keepdim=keepdim)
    return out_result("mode", out, return_types.mode(values, indices), (input,), exact=True)


# --- samples: distinct values, and ties whose indices are the kernels' algorithms' ---------


def _distinct(rng: np.random.Generator, *shape: int) -> np.ndarray:
    count = int(np.prod(shape))
    return (rng.permutation(count) + rng.random(count) * 0.5).reshape(shape) - count / 2


def _ties(rng: np.random.Generator, *shape: int) -> np.ndarray:
    """Values of three classes, zeros of both signs among them: past 16 elements a sort is
    std::sort's, past 3 a topk nth_element's."""
    return rng.choice(np.array([0.0, -0.0, 1.0, 2.0]), size=shape)


def _sort_samples(rng):
    return [
        Sample((_distinct(rng, 3, 4),)),
        Sample((_distinct(rng, 3, 4), 0, True)),
        Sample((_distinct(rng, 4, 3).T,), {"dim": 1, "stable": True}),
        Sample((_distinct(rng, 2, 3, 4), -2), {"descending": True}),
        Sample((randn(rng),)),
        Sample((randn(rng, 0, 3),)),
        Sample((np.array([3.0, 1.0, 3.0, np.nan, 1.0]),), {"stable": True}, fd=False),
        Sample(
            (np.array([3.0, 1.0, 3.0, np.nan, 1.0]),),
            {"dim": 0, "descending": True, "stable": True},
            fd=False,
        ),
        Sample((np.array([[3, 1, 2], [0, 5, 5]]),), {"stable": True}, grad=False),
        Sample((_ties(rng, 2, 20),), fd=False),
        Sample((_ties(rng, 20, 2), 0, True), fd=False),
        Sample((rng.integers(0, 3, (2, 40)),), grad=False),
    ]


def _argsort_samples(rng):
    return [
        Sample((_distinct(rng, 3, 4),)),
        Sample((_distinct(rng, 3, 4), 0, True)),
        Sample((np.array([2.0, 1.0, 2.0, np.nan, 1.0]),), {"stable": True}),
        Sample((np.array([2.0, 1.0, 2.0, np.nan, 1.0]),), {"descending": True, "stable": True}),
        Sample((np.array(1.5),)),
        Sample((_ties(rng, 2, 20), 1, True)),
    ]


def _topk_samples(rng):
    return [
        Sample((_distinct(rng, 3, 5), 2)),
        Sample((_distinct(rng, 3, 5), 3, 0, False)),
        Sample((_distinct(rng, 3, 5), 0)),
        Sample((_distinct(rng, 2, 3, 4), 4), {"dim": -1, "largest": False}),
        Sample((randn(rng), 1)),
        Sample((np.zeros(4), 4), {"largest": False}, fd=False),  # fuzz seed 702202
        Sample((_ties(rng, 3, 7), 3), {"sorted": False}, fd=False),
        Sample((_ties(rng, 2, 130), 2), fd=False),  # k * 64 <= n: partial_sort
    ]


def _kth_samples(rng):
    return [
        Sample((_distinct(rng, 3, 5), 2)),
        Sample((_distinct(rng, 3, 5), 3, 0, True)),
        Sample((_distinct(rng, 2, 3, 4), 4), {"dim": -1}),
        Sample((randn(rng), 1)),
    ]


def _median_samples(rng):
    return [
        Sample((_distinct(rng, 3, 5),)),
        Sample((_distinct(rng, 3, 4),)),
        Sample((_distinct(rng, 3, 5), 1)),
        Sample((_distinct(rng, 4, 3), 0, True)),
        Sample((randn(rng),)),
        Sample((randn(rng), 0)),
        Sample((np.array([1.0, 2.0, 2.0, 3.0]),), fd=False, note="ties share the gradient"),
        Sample((np.array([[1.0, np.nan, 2.0], [4.0, 3.0, 2.0]]), 1), fd=False),
        Sample((np.array([[1.0, np.nan, 2.0, 5.0], [4.0, 3.0, 2.0, 0.0]]),), fd=False),
        Sample((np.array([[4, 1, 2], [0, 5, 3]]), 1), grad=False),
        Sample((np.array([[np.nan] * 5, [1.0, np.nan, 2.0, 2.0, 0.0]]), 1), fd=False),
    ]


def _mode_samples(rng):
    return [
        Sample(
            (np.array([[3.0, 1.0, 3.0, 2.0, 1.0, 3.0], [5.0, 5.0, 2.0, 2.0, 7.0, 7.0]]),), fd=False
        ),
        Sample((np.array([[3.0, 1.0], [1.0, 3.0], [3.0, 2.0]]), 0, True), fd=False),
        Sample((_distinct(rng, 3, 4), 1)),
        Sample((randn(rng),)),
        Sample((np.array([4, 1, 4, 1, 0]),), grad=False),
        Sample((_ties(rng, 2, 20),), fd=False),
        Sample((np.array([1.0, np.nan, 1.0, np.nan, np.nan, 2.0]),), fd=False),
    ]


register("sort", sort, nodes=(SortBackward0,), samples=_sort_samples)
register("argsort", argsort, differentiable=False, samples=_argsort_samples)
register(
    "msort",
    msort,
    nodes=(SortBackward0,),
    samples=lambda rng: [
        Sample((_distinct(rng, 4, 3),)),
        Sample((_distinct(rng, 5),)),
        Sample((_ties(rng, 20, 2),), fd=False),
    ],
)
register("topk", topk, nodes=(TopkBackward0,), samples=_topk_samples)
register("kthvalue", kthvalue, nodes=(KthvalueBackward0,), samples=_kth_samples)
register("median", median, nodes=(MedianBackward0, MedianBackward1), samples=_median_samples)
register(
    "nanmedian", nanmedian, nodes=(NanmedianBackward0, NanmedianBackward1), samples=_median_samples
)
register("mode", mode, nodes=(ModeBackward0,), samples=_mode_samples)
