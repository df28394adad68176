"""Ops that count values: bincount, histc, histogram, unique, unique_consecutive.

None has a gradient in PyTorch: ``histc`` and ``histogram`` results do not require grad,
``unique`` records a node whose backward raises, as PyTorch's ``Unique2Backward0`` does.
"""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from .. import return_types
from .._dtype import c_type_name, from_numpy_dtype, scalar_type_name
from .._factories import linspace
from .._tensor import Tensor
from ..autograd.op import Op
from ._common import check_tensor, moveaxis, wrap_dim
from ._not_implemented import _not_implemented_node, computed_result, refuse_complex
from ._out import out_result
from ._registry import NoGrad, Sample, register
from ._samples import randn
from ._tie_order import unique_sorted


def bincount(input: Tensor, weights: Tensor | None = None, minlength: int = 0) -> Tensor:
    """How often each value 0, 1, ... occurs in the 1-d non-negative integer ``input`` (the
    sum of ``weights`` at its places, if given); at least ``minlength`` bins.

    Example::

        >>> glassgrad.bincount(glassgrad.tensor([1, 1, 3]))
        tensor([0, 2, 0, 1])
    """
    check_tensor(input, "bincount")
    data = input._data
    if data.dtype.kind not in "iub":
        raise NotImplementedError(
            f"\"bincount_cpu\" not implemented for '{scalar_type_name(data.dtype)}'"
        )
    if data.ndim != 1:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if data.size and data.min() < 0:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is None:
        return Tensor._from_array(np.bincount(data, minlength=minlength).astype(np.int64))
    w = check_tensor(weights, "bincount", "weights", 2)._data
    if w.shape != data.shape:
        raise RuntimeError("weights should be 1-d and have the same length as input")
    # float32 weights keep their dtype; other weights count in float64, as in PyTorch.
    dtype = np.float32 if w.dtype == np.float32 else np.float64
    counts = np.bincount(data, weights=w.astype(np.float64), minlength=minlength)
    return BincountNotImplemented.apply(weights, after=counts.astype(dtype))


def _histc_range(data: np.ndarray, low: float, high: float) -> tuple:
    """PyTorch's range of ``histc`` (``histc_select_outer_bin_edges``): ``[min, max]`` of the
    data when both bounds are equal (then widened by 1 on each side if the data are
    constant); it must be finite and not empty."""
    if low == high and data.size:
        low, high = float(data.min()), float(data.max())
        if data.size > 1:  # aminmax's vectorised min/max return x86's default NaN, "-nan"
            low, high = (-abs(v) if v != v else v for v in (low, high))
    if low == high:
        low, high = low - 1, high + 1
    if not (np.isfinite(low) and np.isfinite(high)):
        raise RuntimeError(
            f"torch.histc: range of [{_c_double(low)}, {_c_double(high)}] is not finite"
        )
    if not low < high:
        raise RuntimeError("torch.histc: max must be larger than min")
    return low, high


def _c_double(value: float) -> str:
    """A double as C++'s ostream prints it (``-nan`` for a NaN with its sign bit set)."""
    return "-nan" if value != value and np.signbit(value) else f"{value:g}"


def histc(
    input: Tensor, bins: int = 100, min: float = 0, max: float = 0, *, out: Any = None
) -> Tensor:
    """A histogram of ``bins`` equal bins over ``[min, max]`` (the data's range when
    ``min == max``); elements outside are ignored.

    Example::

        >>> glassgrad.histc(glassgrad.tensor([1.0, 2.0, 1.0]), bins=4, min=0, max=3)
        tensor([0., 2., 1., 0.])
    """
    check_tensor(input, "histc")
    data = input._data
    _check_float(data, "histogram_cpu")
    if bins <= 0:
        raise RuntimeError("torch.histc(): bins must be > 0, but got " + str(bins) + " for bins")
    low, high = _histc_range(data, float(min), float(max))
    edges = linspace(low, high, bins + 1, dtype=from_numpy_dtype(data.dtype))._data
    counts = _bin_sums(data.reshape(-1, 1), [edges], None, _LINEAR)
    result = Tensor._from_array(counts)
    return out_result("histc", out, result, (input,), differentiable=False)


def histogram(
    input: Tensor,
    bins: Any = 100,
    *,
    range: tuple[float, float] | None = None,
    weight: Tensor | None = None,
    density: bool = False,
    out: Any = None,
) -> Any:
    """``(hist, bin_edges)``: ``bins`` equal bins over ``range`` (the data's by default), or
    the given bin edges (a 1-d tensor); ``weight`` per element, ``density`` normalises.

    Example::

        >>> glassgrad.histogram(glassgrad.tensor([1.0, 2.0, 1.0]), bins=2).hist
        tensor([2., 1.])
    """
    check_tensor(input, "histogram")
    data = input._data
    points = data.reshape(-1, 1)
    w = None if weight is None else check_tensor(weight, "histogram", "weight")._data.reshape(-1)
    if isinstance(bins, Tensor):
        edges, algorithm = [bins._data], _BINARY_SEARCH
    else:  # ATen's histogram_out_cpu: the count is checked first, then the range, the data
        count = int(bins)
        _check_bin_counts([count])
        low, high = _outer_edges(points, range)[0]
        edges = [linspace(low, high, count + 1, dtype=from_numpy_dtype(data.dtype))._data]
        algorithm = _LINEAR_LOCAL_SEARCH
    hist = _histogramdd(points, edges, w, density, algorithm)
    sources = _sources(input, weight, bins)
    hist, edges = (
        HistogramNotImplemented.apply(*sources, after=t) for t in (hist, np.array(edges[0]))
    )
    return out_result("histogram", out, return_types.histogram(hist, edges), (input,))


def _outer_edges(data: np.ndarray, range: Any) -> list:
    """PyTorch's outer bin edges per dim of the (N, D) samples: ``range`` (flat, two per
    dim), else the data's min and max (0 and 1 without data), widened by 0.5 on each side
    where they are equal."""
    n_dims = data.shape[1]
    if range is not None:
        if len(range) != 2 * n_dims:
            raise RuntimeError(
                f"torch.histogramdd: for a {n_dims}-dimensional histogram range should have "
                f"{2 * n_dims} elements, but got {len(range)}"
            )
        bounds = [(float(range[2 * d]), float(range[2 * d + 1])) for d in builtins.range(n_dims)]
    elif data.shape[0]:
        _check_float(data, "histogramdd")  # aminmax of the data, dispatched on floats only
        bounds = [(float(lo), float(hi)) for lo, hi in zip(data.min(0), data.max(0))]
    else:
        bounds = [(0.0, 1.0)] * n_dims
    for dim, (low, high) in enumerate(bounds):
        if not (np.isfinite(low) and np.isfinite(high)):
            raise RuntimeError(
                f"torch.histogramdd: dimension {dim}'s range [{low:g}, {high:g}] is not finite"
            )
        if low > high:
            raise RuntimeError(
                f"torch.histogramdd: min should not exceed max, but got min {low:g} max {high:g} "
                f"for dimension {dim}"
            )
    return [(low - 0.5, high + 0.5) if low == high else (low, high) for low, high in bounds]


def _check_float(data: np.ndarray, kernel: str) -> None:
    if data.dtype.kind != "f":
        raise NotImplementedError(
            f"\"{kernel}\" not implemented for '{scalar_type_name(data.dtype)}'"
        )


def _check_bin_counts(counts: list) -> None:
    """ATen's ``histogramdd_prepare_out``: at least one bin per dimension."""
    for dim, count in enumerate(counts):
        if count <= 0:
            raise RuntimeError(
                f"torch.histogram(): bins must be > 0, but got {count} for dimension {dim}"
            )


def _check_inputs(points: np.ndarray, edges: list, weight: np.ndarray | None) -> None:
    """ATen's ``histogramdd_check_inputs`` of the points (..., N), the edges of each of the N
    dimensions and the weights (one per point)."""
    n_dims = points.shape[-1]
    if len(edges) != n_dims:
        raise RuntimeError(
            f"torch.histogramdd: expected {n_dims} sequences of bin edges for a {n_dims}-"
            f"dimensional histogram but got {len(edges)}"
        )
    for dim, e in enumerate(edges):
        if e.dtype != points.dtype:
            raise RuntimeError(
                "torch.histogramdd: input tensor and bins tensors should have the same dtype, "
                f"but got input with dtype {c_type_name(points.dtype)} and bins for dimension "
                f"{dim} with dtype {c_type_name(e.dtype)}"
            )
        if e.ndim != 1:
            raise RuntimeError(
                f"torch.histogramdd: bins tensor should have one dimension, but got {e.ndim} "
                f"dimensions in the bins tensor for dimension {dim}"
            )
        if not e.size:
            raise RuntimeError(
                "torch.histogramdd: bins tensor should have at least 1 element, but got 0 "
                f"elements in the bins tensor for dimension {dim}"
            )
    if weight is None:
        return
    if weight.dtype != points.dtype:
        raise RuntimeError(
            "torch.histogramdd: if weight tensor is provided, input tensor and weight tensor "
            f"should have the same dtype, but got input({c_type_name(points.dtype)}), and "
            f"weight({c_type_name(weight.dtype)})"
        )
    if list(weight.shape or (1,)) != list(points.shape[:-1]):
        raise RuntimeError(
            "torch.histogramdd: if weight tensor is provided it should have the same shape as "
            "the input tensor excluding its innermost dimension, but got input with shape "
            f"{list(points.shape)} and weight with shape {list(weight.shape)}"
        )


def _histogramdd(
    points: np.ndarray, edges: list, weight: np.ndarray | None, density: bool, algorithm: str
) -> np.ndarray:
    """The histogram of ``points`` (..., N) over the ``edges`` of each dimension, after
    ATen's checks in its order: the inputs, the bin counts, then the kernel's dtype."""
    _check_inputs(points, edges, weight)
    _check_bin_counts([e.size - 1 for e in edges])
    _check_float(points, "histogram_cpu")
    w = None if weight is None else weight.reshape(-1)
    flat = points.reshape(-1, points.shape[-1])
    hist = _bin_sums(flat, edges, w, algorithm)
    if density:  # ATen divides by the total, then by each bin's width along each dim
        hist = hist / hist.sum()
        for dim, e in enumerate(edges):
            shape = [1] * len(edges)
            shape[dim] = e.size - 1
            hist = hist / np.diff(e).reshape(shape)
    return hist


# ATen's bin selection algorithms (HistogramKernel.cpp): histc interpolates linearly between
# the outer edges; histogram with a bin count corrects that by searching the neighbouring
# edges; given edges are searched with std::upper_bound (whether sorted or not).
_LINEAR, _LINEAR_LOCAL_SEARCH, _BINARY_SEARCH = "linear", "linear+local search", "binary search"


def _upper_bound(edges: np.ndarray, values: np.ndarray, first: Any, last: Any) -> np.ndarray:
    """libstdc++'s ``std::upper_bound`` of each value over ``edges[first:last]`` (per value),
    step for step: on edges that are not sorted its answer is the one PyTorch's kernel gets."""
    first = np.broadcast_to(first, values.shape).copy()
    length = np.broadcast_to(last, values.shape) - first
    while (length > 0).any():
        half = length >> 1
        middle = first + half
        right = (length > 0) & ~(values < edges[np.minimum(middle, edges.size - 1)])
        first = np.where(right, middle + 1, first)
        length = np.where(right, length - half - 1, np.where(length > 0, half, 0))
    return first


def _bin_sums(flat: np.ndarray, edges: list, weight: np.ndarray | None, algorithm: str) -> Any:
    """ATen's ``histogramdd_cpu_contiguous``: the sum of the weights (1 each without) of the
    points (M, D) in each bin, accumulated in the input's dtype in the points' order. A point
    outside the outer edges of a dim, or NaN, is skipped; the last bin includes its right
    edge."""
    keep = np.ones(flat.shape[0], bool)
    flat_index = np.zeros(flat.shape[0], np.int64)
    for dim, e in enumerate(edges):
        values, n_edges = flat[:, dim], e.size
        left, right = e[0], e[-1]
        keep &= (values >= left) & (values <= right)
        if algorithm == _BINARY_SEARCH:
            pos = _upper_bound(e, values, 0, n_edges) - 1
        else:
            with np.errstate(all="ignore"):  # skipped points may give inf or NaN here
                linear = (values - left) * e.dtype.type(n_edges - 1) / (right - left)
            pos = np.where(keep, linear, 0).astype(np.int64)
            if algorithm == _LINEAR_LOCAL_SEARCH:
                low, high = np.maximum(pos - 1, 0), np.minimum(pos + 2, n_edges)
                pos = _upper_bound(e, values, low, high) - 1
        pos = np.where(pos == n_edges - 1, pos - 1, pos)
        flat_index = flat_index * (n_edges - 1) + pos
    hist = np.zeros(tuple(e.size - 1 for e in edges), flat.dtype)
    added = np.ones(1, flat.dtype) if weight is None else weight[keep]
    np.add.at(hist.reshape(-1), flat_index[keep], np.broadcast_to(added, flat_index[keep].shape))
    return hist


def histogramdd(
    input: Tensor,
    bins: Any,
    range: Any = None,
    weight: Tensor | None = None,
    density: bool = False,
) -> Any:
    """``(hist, bin_edges)``: the D-dimensional histogram of the points ``input`` (..., D).
    ``bins`` is a count for every dim, one count per dim, or one 1-D tensor of edges per
    dim; ``range`` the flat bounds (min, max per dim) of equal bins (the data's by default);
    ``weight`` (one per point) and ``density`` as in ``histogram``.

    Example::

        >>> points = glassgrad.tensor([[0.0, 1.0], [1.0, 2.0], [3.0, 3.0]])
        >>> glassgrad.histogramdd(points, bins=2).hist
        tensor([[1., 1.],
                [0., 1.]])
    """
    check_tensor(input, "histogramdd")
    data = input._data
    if data.ndim < 2:
        raise RuntimeError("torch.histogramdd: input tensor should have at least 2 dimensions")
    n_dims = data.shape[-1]
    w = None if weight is None else check_tensor(weight, "histogramdd", "weight")._data
    given = isinstance(bins, (list, tuple)) and all(isinstance(b, Tensor) for b in bins)
    # PyTorch's histogramdd: given edges are returned as they are, counted ones come from
    # _histogramdd_bin_edges (the range and the data checked first); each result is recorded
    # by its own NotImplemented node
    if given and bins:
        hist = _histogramdd(data, [b._data for b in bins], w, density, _BINARY_SEARCH)
        node, edges = HistogramddFromTensorsNotImplemented, list(bins)
    else:
        counts = [int(b) for b in bins] if isinstance(bins, (list, tuple)) else [bins] * n_dims
        if len(counts) != n_dims:
            raise RuntimeError(
                "histogramdd: The size of bins must be equal to the innermost dimension of the "
                "input."
            )
        outer, dtype = _outer_edges(data.reshape(-1, n_dims), range), from_numpy_dtype(data.dtype)
        arrays = [
            linspace(*outer[dim], int(count) + 1, dtype=dtype)._data
            for dim, count in enumerate(counts)
        ]
        hist = _histogramdd(data, arrays, w, density, _LINEAR_LOCAL_SEARCH)
        node = HistogramddFromCountsNotImplemented
        edges = [
            HistogramddEdgesNotImplemented.apply(*_sources(input, weight), after=e) for e in arrays
        ]
    hist = node.apply(*_sources(input, weight, *(bins if given else ())), after=hist)
    return return_types.histogramdd(hist, tuple(edges))


# PyTorch records bincount's weighted counts and the histograms with nodes whose backward
# raises: the results require grad when the weights, the input or a tensor of edges does.
BincountNotImplemented: type[Op] = _not_implemented_node("bincount", computed_result)
HistogramNotImplemented: type[Op] = _not_implemented_node("histogram", computed_result)
HistogramddFromTensorsNotImplemented: type[Op] = _not_implemented_node(
    "_histogramdd_from_bin_tensors", computed_result
)
HistogramddFromCountsNotImplemented: type[Op] = _not_implemented_node(
    "_histogramdd_from_bin_cts", computed_result
)
HistogramddEdgesNotImplemented: type[Op] = _not_implemented_node(
    "_histogramdd_bin_edges", computed_result
)


def _sources(*arguments: Any) -> list:
    return [a for a in arguments if isinstance(a, Tensor)]


def _unique_consecutive(x: np.ndarray, dim: Any) -> tuple:
    if dim is None:
        flat = x.reshape(-1)
        if flat.size == 0:
            return flat, np.zeros(x.shape, np.int64), np.zeros(0, np.int64)
        starts = np.concatenate([[True], flat[1:] != flat[:-1]])
        values = flat[starts]
        inverse = (np.cumsum(starts) - 1).reshape(x.shape)
    else:
        moved = moveaxis(x, dim, 0)
        if moved.shape[0] == 0:
            return x, np.zeros(0, np.int64), np.zeros(0, np.int64)
        differs = (moved[1:] != moved[:-1]).reshape(moved.shape[0] - 1, -1).any(axis=1)
        starts = np.concatenate([[True], differs])
        values = moveaxis(moved[starts], 0, dim)
        inverse = np.cumsum(starts) - 1
    counts = np.diff(np.append(np.flatnonzero(starts), starts.size))
    return values, inverse.astype(np.int64), counts.astype(np.int64)


def _unique_forward(x: np.ndarray, params: tuple) -> Any:
    kind, sorted_, dim = params
    if kind == "consecutive":
        return _unique_consecutive(x, dim)[0]
    return unique_sorted(x, dim)[0]


# PyTorch records unique with nodes whose backward raises; these stand for them.
Unique2Backward0: type[Op] = _not_implemented_node("_unique2", _unique_forward, "Unique2Backward0")
UniqueDimBackward0: type[Op] = _not_implemented_node(
    "unique_dim", _unique_forward, "UniqueDimBackward0"
)
UniqueConsecutiveBackward0: type[Op] = _not_implemented_node(
    "unique_consecutive", _unique_forward, "UniqueConsecutiveBackward0"
)


def _unique_result(
    input: Tensor, node: type, params: tuple, extra: tuple, inverse: bool, counts: bool
) -> Any:
    values = node.apply(input, after=params)
    results = [values]
    if inverse:
        results.append(Tensor._from_array(extra[0]))
    if counts:
        results.append(Tensor._from_array(extra[1]))
    return results[0] if len(results) == 1 else tuple(results)


def unique(
    input: Tensor,
    sorted: bool = True,
    return_inverse: bool = False,
    return_counts: bool = False,
    dim: int | None = None,
) -> Any:
    """The distinct values (sorted), or distinct slices along ``dim``; with
    ``return_inverse`` each element's index among them, with ``return_counts`` how often
    each occurs.

    Example::

        >>> glassgrad.unique(glassgrad.tensor([3, 1, 3, 2]))
        tensor([1, 2, 3])
    """
    check_tensor(input, "unique")
    refuse_complex("unique" if dim is None else "unique_dim", input)
    d = None if dim is None else wrap_dim(dim, input._data.ndim, "unique")
    _, inverse, counts = unique_sorted(input._data, d)
    node = Unique2Backward0 if d is None else UniqueDimBackward0
    return _unique_result(
        input, node, ("unique", sorted, d), (inverse, counts), return_inverse, return_counts
    )


def unique_consecutive(
    input: Tensor, return_inverse: bool = False, return_counts: bool = False, dim: int | None = None
) -> Any:
    """Like ``unique``, but only runs of equal consecutive values (or slices) collapse; the
    order is kept.

    Example::

        >>> glassgrad.unique_consecutive(glassgrad.tensor([1, 1, 2, 2, 1]))
        tensor([1, 2, 1])
    """
    check_tensor(input, "unique_consecutive")
    refuse_complex("unique" if dim is None else "unique_dim", input)
    d = None if dim is None else wrap_dim(dim, input._data.ndim, "unique_consecutive")
    _, inverse, counts = _unique_consecutive(input._data, d)
    return _unique_result(
        input,
        UniqueConsecutiveBackward0,
        ("consecutive", True, d),
        (inverse, counts),
        return_inverse,
        return_counts,
    )


register(
    "bincount",
    bincount,
    differentiable=False,
    samples=lambda rng: [
        Sample((np.array([1, 1, 3, 0, 5]),)),
        Sample((np.array([1, 1, 3]),), {"minlength": 6}),
        Sample((np.array([1, 1, 3]), NoGrad(np.array([0.5, 1.0, 2.0])))),
        Sample((np.array([1, 1, 3]), np.array([2, 1, 7]))),
        Sample((np.zeros(0, np.int64),)),
    ],
)
register(
    "histc",
    histc,
    differentiable=False,
    samples=lambda rng: [
        Sample((NoGrad(randn(rng, 20)),)),
        Sample((NoGrad(randn(rng, 4, 5)), 5, -1.0, 1.0)),
        Sample((NoGrad(np.array([2.0, 2.0, 2.0])), 4)),
        Sample((NoGrad(np.array([0.0, 1.0, 2.0, 3.0])),), {"bins": 3, "min": 0, "max": 3}),
    ],
)
register(
    "histogramdd",
    histogramdd,
    methods=(),
    differentiable=False,
    samples=lambda rng: [
        Sample((NoGrad(randn(rng, 20, 2)), 4)),
        Sample((NoGrad(randn(rng, 4, 5, 3)), [2, 3, 4])),
        Sample((NoGrad(randn(rng, 20, 2)), 3), {"range": [-1.0, 1.0, 0.0, 2.0], "density": True}),
        Sample(
            (
                NoGrad(randn(rng, 6, 2)),
                [NoGrad(np.array([-2.0, 0.0, 2.0])), NoGrad(np.array([-1.0, 1.0]))],
            ),
            {"weight": NoGrad(1.0 - rng.random(6))},
        ),
        Sample((NoGrad(np.ones((3, 2))), 2), note="constant data: edges widened by 0.5"),
        Sample((NoGrad(np.zeros((0, 2))), 2), note="no data: edges 0 to 1"),
    ],
)
register(
    "histogram",
    histogram,
    differentiable=False,
    samples=lambda rng: [
        Sample((NoGrad(randn(rng, 20)), 4)),
        Sample((NoGrad(randn(rng, 20)),), {"bins": 3, "range": (-1.0, 1.0)}),
        Sample((NoGrad(randn(rng, 6)), NoGrad(np.array([-2.0, 0.0, 0.5, 2.0])))),
        Sample(
            (NoGrad(randn(rng, 6)), 3),
            {"weight": NoGrad(1.0 - rng.random(6)), "density": True},
        ),
    ],
)
register(
    "unique",
    unique,
    differentiable=False,
    samples=lambda rng: [
        Sample((np.array([[3, 1, 3], [2, 1, 0]]),)),
        Sample((np.array([3, 1, 3, 2]),), {"return_inverse": True, "return_counts": True}),
        Sample((np.array([[1, 2], [1, 2], [0, 5]]),), {"dim": 0, "return_inverse": True}),
        Sample((np.array([[1, 2, 1], [3, 0, 3]]),), {"dim": 1, "return_counts": True}),
        Sample((NoGrad(np.array([2.5, -1.0, 2.5, 0.0])),), {"return_counts": True}),
        Sample((np.array([True, False, True]),)),
        # zeros of both signs: which one stands for 0 is std::sort's
        Sample((NoGrad(np.tile([0.0, -0.0, 1.0, -0.0], 5)),)),
        Sample((NoGrad(np.tile([[0.0, 1.0], [-0.0, 1.0]], (9, 1))),), {"dim": 0}),
    ],
)
register(
    "unique_consecutive",
    unique_consecutive,
    differentiable=False,
    samples=lambda rng: [
        Sample((np.array([1, 1, 2, 2, 3, 1, 1]),)),
        Sample((np.array([[1, 1], [2, 2]]),), {"return_inverse": True, "return_counts": True}),
        Sample((np.array([[1, 2], [1, 2], [0, 5], [1, 2]]),), {"dim": 0, "return_inverse": True}),
        Sample((NoGrad(np.array([2.5, 2.5, 0.0])),), {"return_counts": True}),
    ],
)
