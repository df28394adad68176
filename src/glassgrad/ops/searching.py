"""Ops that find positions: searchsorted, bucketize, nonzero, argwhere, count_nonzero.
Their results are indices or counts (int64, or int32 with ``out_int32``): no gradient."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._tensor import Tensor
from ._common import check_tensor, operand_array, take_along_axis, varargs_or_keyword, wrap_dims
from ._not_implemented import refuse_complex
from ._out import out_result
from ._registry import NoGrad, Sample, register
from ._samples import randn
from .shape import unbind


def _side(right: bool, side: str | None) -> str:
    if side is None:
        return "right" if right else "left"
    if side not in ("left", "right"):
        raise RuntimeError(
            f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}"
        )
    if right and side == "left":
        raise RuntimeError(
            "torch.searchsorted(): side and right can't be set to opposites, got side of left "
            "while right was True"
        )
    return side


def _search(sequence: np.ndarray, values: np.ndarray, side: str) -> np.ndarray:
    """The places of ``values`` in ``sequence`` as ATen's binary search finds them
    (:func:`_search_steps`). In a sorted row without NaN the first (last) place is unique, and
    NumPy's searchsorted finds it at the cost of one call per row (a few rows at most)."""
    if sequence.ndim == 1 and _sorted_without_nan(sequence):
        return np.searchsorted(sequence, values, side).reshape(values.shape)
    if 1 < sequence.ndim and sequence.size <= _FEW_ROWS * sequence.shape[-1]:
        if sequence.shape[-1] and _sorted_without_nan(sequence):
            rows = sequence.reshape(-1, sequence.shape[-1])
            queries = values.reshape(rows.shape[0], -1)
            found = [np.searchsorted(r, q, side) for r, q in zip(rows, queries, strict=True)]
            return np.stack(found).reshape(values.shape)
    return _search_steps(sequence, values, side)


_FEW_ROWS = 8


def _sorted_without_nan(sequence: np.ndarray) -> bool:
    """Every row (last dim) in non-decreasing order, and no NaN."""
    if sequence.shape[-1] < 2:  # a pair that compares false (NaN) leaves it out otherwise
        return not (sequence.dtype.kind == "f" and np.isnan(sequence).any())
    return bool((sequence[..., :-1] <= sequence[..., 1:]).all())


def _search_steps(sequence: np.ndarray, values: np.ndarray, side: str) -> np.ndarray:
    """ATen's binary search (``cus_lower_bound``/``cus_upper_bound`` in Bucketization.cpp),
    all values at once: on a sorted sequence NumPy's searchsorted gives the same places, but on
    an unsorted one (which PyTorch does not check) only the same halving steps give PyTorch's.
    A 1-d ``sequence`` serves every value; otherwise each row its own row of ``values``."""
    n = sequence.shape[-1]
    rows = sequence.reshape(int(np.prod(sequence.shape[:-1], dtype=np.int64)), n)
    queries = (
        values.reshape(rows.shape[0], values.shape[-1])
        if sequence.ndim > 1
        else values.reshape(1, values.size)
    )
    row = np.arange(rows.shape[0])[:, None]
    start = np.zeros(queries.shape, np.int64)
    end = np.full(queries.shape, n, np.int64)
    active = start < end
    while active.any():
        mid = start + ((end - start) >> 1)
        probe = rows[row, np.minimum(mid, n - 1)]
        # Written as ATen's tests so that a NaN value goes right, as there.
        right = ~(probe > queries) if side == "right" else ~(probe >= queries)
        start = np.where(active & right, mid + 1, start)
        end = np.where(active & ~right, mid, end)
        active = start < end
    return start.reshape(values.shape)


def searchsorted(
    sorted_sequence: Tensor,
    input: Any,
    *,
    out_int32: bool = False,
    right: bool = False,
    side: str | None = None,
    sorter: Tensor | None = None,
    out: Any = None,
) -> Tensor:
    """Where each value of ``input`` would be inserted in ``sorted_sequence`` (sorted along
    its last dim; leading dims pair with ``input``'s) to keep it sorted: the first such
    place, or the last with ``right=True`` / ``side="right"``.

    Example::

        >>> glassgrad.searchsorted(glassgrad.tensor([1, 3, 5]), glassgrad.tensor([3, 6]))
        tensor([1, 3])
    """
    check_tensor(sorted_sequence, "searchsorted", "sorted_sequence")
    sequence = sorted_sequence._data
    scalar = not isinstance(input, Tensor)
    values = operand_array(input, "searchsorted", "input", 2)
    refuse_complex("searchsorted_out_cpu", sequence, input if scalar else values)
    if sorter is not None:
        sequence = take_along_axis(sequence, check_tensor(sorter, "searchsorted")._data, -1)
    if sequence.ndim == 0:
        raise RuntimeError(
            "torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 "
            "dimension"
        )
    if sequence.ndim > 1 and (scalar or sequence.shape[:-1] != values.shape[:-1]):
        raise RuntimeError(
            "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
            "dimensions of boundaries tensor and input value tensor must match, but we got "
            f"boundaries tensor {list(sequence.shape)} and input value tensor "
            f"{list(values.shape)}"
        )
    found = _search(sequence, values, _side(right, side))
    result = Tensor._from_array(np.asarray(found, np.int32 if out_int32 else np.int64))
    return out_result("searchsorted", out, result, ())


def bucketize(
    input: Any, boundaries: Tensor, *, out_int32: bool = False, right: bool = False, out: Any = None
) -> Tensor:
    """The bucket of each value: the index ``i`` with ``boundaries[i-1] < x <= boundaries[i]``
    (``boundaries[i-1] <= x < boundaries[i]`` with ``right=True``); ``boundaries`` 1-d.

    Example::

        >>> glassgrad.bucketize(glassgrad.tensor([0.5, 3.0]), glassgrad.tensor([1.0, 3.0]))
        tensor([0, 1])
    """
    check_tensor(boundaries, "bucketize", "boundaries", 2)
    if boundaries._data.ndim != 1:
        raise RuntimeError(
            f"boundaries tensor must be 1 dimension, but got dim({boundaries._data.ndim})"
        )
    values = operand_array(input, "bucketize", "input", 1)
    refuse_complex("searchsorted_out_cpu", boundaries, input)
    found = _search(boundaries._data, values, "right" if right else "left")
    result = Tensor._from_array(np.asarray(found, np.int32 if out_int32 else np.int64))
    return out_result("bucketize", out, result, ())


def nonzero(input: Tensor, *, out: Any = None, as_tuple: bool = False) -> Any:
    """The indices of the nonzero elements: an ``(n, ndim)`` int64 tensor, or with
    ``as_tuple=True`` one 1-d tensor of indices per dim.

    Example::

        >>> glassgrad.nonzero(glassgrad.tensor([0, 2, 0, 3]))
        tensor([[1],
                [3]])
    """
    check_tensor(input, "nonzero")
    data = input._data
    if as_tuple:
        if out is not None:
            raise RuntimeError("nonzero does not support the out kwarg when as_tuple is True")
        # PyTorch's nonzero_numpy: the columns of the (column-major) nonzero matrix, views.
        found = np.asarray(np.argwhere(data.reshape(1) if data.ndim == 0 else data), np.int64)
        return unbind(Tensor._from_array(found), 1)
    if data.ndim == 0:
        found = np.zeros((int(data != 0), 0), np.int64)
    else:
        found = np.asarray(np.argwhere(data), np.int64)
    return out_result("nonzero", out, Tensor._from_array(found), (), exact=True)


def argwhere(input: Tensor) -> Tensor:
    """``nonzero(input)``: the indices of the nonzero elements, one row each.

    Example::

        >>> glassgrad.argwhere(glassgrad.tensor([[0, 1], [1, 0]]))
        tensor([[0, 1],
                [1, 0]])
    """
    check_tensor(input, "argwhere")
    return nonzero(input)


def count_nonzero(input: Tensor, *args: Any, dim: Any = None) -> Tensor:
    """The number of nonzero elements, in all or over ``dim`` (an int, a tuple, or on the
    method several ints).

    Example::

        >>> glassgrad.count_nonzero(glassgrad.tensor([[0, 1], [2, 3]]), dim=0)
        tensor([1, 2])
    """
    check_tensor(input, "count_nonzero")
    if args:
        dims = varargs_or_keyword("count_nonzero", args, dim, "dim")
        dim = dims[0] if len(dims) == 1 else dims
    data = input._data
    dims = wrap_dims(dim, data.ndim, "count_nonzero")
    counts = np.count_nonzero(data, axis=dims if dims else None)
    return Tensor._from_array(np.asarray(counts, np.int64))


def _sorted_rows(rng: np.random.Generator) -> np.ndarray:
    return np.sort(randn(rng, 2, 5), axis=-1)


register(
    "searchsorted",
    searchsorted,
    differentiable=False,
    methods=(),
    samples=lambda rng: [
        Sample((np.array([1, 3, 5, 7]), np.array([[0, 3], [6, 9]]))),
        Sample((np.array([1, 3, 5, 7]), np.array([3, 5, 8])), {"right": True}),
        Sample((np.array([1, 3, 5, 7]), np.array([3, 5])), {"side": "right", "out_int32": True}),
        Sample((np.array([1, 3, 5, 7]), 5)),
        Sample((NoGrad(_sorted_rows(rng)), NoGrad(randn(rng, 2, 3)))),
        Sample((np.array([5, 1, 3]), np.array([2, 4])), {"sorter": np.array([1, 2, 0])}),
    ],
)
register(
    "bucketize",
    bucketize,
    differentiable=False,
    methods=(),
    samples=lambda rng: [
        Sample((NoGrad(randn(rng, 3, 4)), NoGrad(np.array([-1.0, 0.0, 1.0])))),
        Sample((np.array([1, 3, 5, 9]), np.array([1, 3, 5])), {"right": True}),
        Sample((np.array([1, 3, 5, 9]), np.array([1, 3, 5])), {"out_int32": True}),
        Sample((3, np.array([1, 3, 5]))),
    ],
)
register(
    "nonzero",
    nonzero,
    differentiable=False,
    samples=lambda rng: [
        Sample((np.array([[0, 1, 0], [2, 0, 3]]),)),
        Sample((NoGrad(np.array([0.0, 1.5, 0.0, -2.0])),)),
        Sample((np.array([[0, 1, 0], [2, 0, 3]]),), {"as_tuple": True}),
        Sample((np.array(3),)),
        Sample((np.array(0),)),
        Sample((np.array(3),), {"as_tuple": True}),
        Sample((np.zeros((0, 2)),)),
    ],
)
register(
    "argwhere",
    argwhere,
    differentiable=False,
    samples=lambda rng: [
        Sample((np.array([[0, 1, 0], [2, 0, 3]]),)),
        Sample((np.array([True, False, True]),)),
    ],
)
register(
    "count_nonzero",
    count_nonzero,
    differentiable=False,
    samples=lambda rng: [
        Sample((np.array([[0, 1, 0], [2, 0, 3]]),)),
        Sample((np.array([[0, 1, 0], [2, 0, 3]]), 0)),
        Sample((NoGrad(np.array([[0.0, 1.0], [0.0, 0.0]])), (0, 1))),
        Sample((np.array([[0, 1, 0], [2, 0, 3]]), -1)),
    ],
)
