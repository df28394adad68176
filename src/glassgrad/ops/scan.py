"""Running (scan) ops along a dim: cumsum, cumprod (and their in-place forms), cummax, cummin, logcumsumexp, the
finite differences ``diff``, and trapezoidal integration (trapezoid, trapz,
cumulative_trapezoid)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .. import return_types
from .._dtype import scalar_type_name
from .._strides import row_major
from .._tensor import Tensor
from ..autograd.op import Op, apply_inplace
from ._common import array_of, check_tensor, moveaxis, scaled, wrap_dim
from ._not_implemented import refuse_complex
from ._out import check_out_dtypes, out_result
from ._registry import NoGrad, Sample, register
from ._samples import randn
from ._scan_kernel import (
    WIDER,
    accumulated,
    check_scan_out,
    extremum_in_kernel_order,
    scan_out,
    write_scan_overlapping,
)
from .indexing import ScatterAddZerosBackward0
from .pointwise_binary import log_add_exp_complex
from .reduction import _integer_accumulator, sum
from .shape import cat, reshape
from .shape_views import narrow

# --- cumsum, cumprod -------------------------------------------------------------------------


def _check_scan_kernel(kernel: str, x: np.ndarray) -> None:
    """PyTorch's cumulative kernels have no bool case (a 0-d or empty input needs none)."""
    if x.dtype == np.bool_ and x.size:
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")


class CumsumBackward0(Op):
    """out_k = sum_{j <= k} x_j along ``dim``; the gradient is the reversed cumulative sum"""

    dim: Any

    __slots__ = ("dim",)
    write_overlapping = write_scan_overlapping("cumsum")
    check_out = check_scan_out("cumsum")

    @row_major
    def forward(self, x: Any, dim: Any, dtype: Any = None) -> Any:
        self.dim = dim
        x = _integer_accumulator(x, dtype)
        if not x.ndim:
            return x.copy()
        _check_scan_kernel("cumsum_out_cpu", x)
        return accumulated(np.cumsum, x, dim)

    def backward(self, F: Any, grad: Any) -> Any:
        if not array_of(grad).ndim:
            return grad
        return ReversedCumsumBackward0.call(grad, dim=self.dim)


class ReversedCumsumBackward0(Op):
    """out_k = sum_{j >= k} x_j along ``dim`` (the adjoint of cumsum; used by its backward)"""

    dim: Any

    __slots__ = ("dim",)

    def forward(self, x: Any, dim: Any) -> Any:
        self.dim = dim
        return np.flip(np.cumsum(np.flip(x, axis=dim), axis=dim), axis=dim)

    def backward(self, F: Any, grad: Any) -> Any:
        return CumsumBackward0.call(grad, dim=self.dim)


class CumprodBackward0(Op):
    """out_k = prod_{j <= k} x_j along ``dim``

    The gradient is ``reversed_cumsum(grad * out) / x`` without zeros. With zeros, on arrays
    an O(n) formula from the first zero of each slice; under create_graph (Tensors), the
    O(n^2) sum over "products with x_i left out", which is differentiable again (as PyTorch).
    """

    dim: Any

    holomorphic = True

    saved_inputs: tuple[int, ...] = (0,)
    saves_output = True
    __slots__ = ("dim",)
    write_overlapping = write_scan_overlapping("cumprod")
    check_out = check_scan_out("cumprod")

    @row_major
    def forward(self, x: Any, dim: Any, dtype: Any = None) -> Any:
        self.dim = dim
        x = _integer_accumulator(x, dtype)
        if not x.ndim:
            return x.copy()
        _check_scan_kernel("cumprod_out_cpu", x)
        if x.dtype.kind == "c" and x.shape[dim]:
            # PyTorch's product starts from 1: the first element is 1 * x, which for a
            # complex x with a non-finite part is NaN in the other part (inf + nanj).
            x = x.copy()
            first = (slice(None),) * dim + (0,)
            x[first] = x[first] * 1
        return accumulated(np.cumprod, x, dim)

    def backward(self, F: Any, grad: Any) -> Any:
        x, out = self.saved
        xv = array_of(x)
        if xv.size <= 1 or xv.shape[self.dim] <= 1:  # PyTorch's shortcut, empty included
            return grad
        dim = self.dim
        if not (xv == 0).any():
            return ReversedCumsumBackward0.call(grad * out, dim=dim) / x
        if not isinstance(grad, Tensor):
            return _cumprod_grad_with_zeros(grad, xv, out, dim)
        return _cumprod_grad_left_out(F, grad, x, dim)


def _cumprod_grad_with_zeros(grad: np.ndarray, x: np.ndarray, out: np.ndarray, dim: int):
    """O(n): before the first zero z, reversed_cumsum(grad*out)/x; at z, the product before z
    times sum_{k>=z} grad_k prod_{z<j<=k} x_j; after z, zero."""
    zeros_seen = np.cumsum(x == 0, axis=dim)
    before = zeros_seen == 0
    first_zero = (x == 0) & (zeros_seen == 1)
    reversed_total = np.flip(np.cumsum(np.flip(grad * out, axis=dim), axis=dim), axis=dim)
    result = np.where(before, reversed_total / np.where(before, x, 1.0), 0.0)
    prefix = np.prod(np.where(before, x, 1.0), axis=dim, keepdims=True)
    after_first = np.cumprod(np.where(before | first_zero, 1.0, x), axis=dim)
    tail = np.sum(np.where(zeros_seen >= 1, grad * after_first, 0.0), axis=dim, keepdims=True)
    return np.where(first_zero, prefix * tail, result).astype(x.dtype, copy=False)


def _cumprod_grad_left_out(F: Any, grad: Any, x: Any, dim: int) -> Any:
    """grad_i = sum_{k >= i} grad_k * prod_{j <= k, j != i} x_j, built from an n x n tensor."""
    n = array_of(x).shape[dim]
    moved = F.transpose(x, dim, -1)
    moved_grad = F.transpose(grad, dim, -1)
    eye = np.eye(n, dtype=bool)
    left_out = F.where(eye, 1.0, F.unsqueeze(moved, -2))  # [..., i, j]: x_j, or 1 at j == i
    products = CumprodBackward0.apply(left_out, dim=left_out.dim() - 1)
    upper = np.triu(np.ones((n, n), dtype=bool))  # k >= i
    terms = F.where(upper, F.unsqueeze(moved_grad, -2) * products, 0.0)
    return F.transpose(F.sum(terms, -1), dim, -1)


def _cumulative(name: str, node: type) -> Any:
    def op(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
        check_tensor(input, name)
        d = wrap_dim(dim, input._data.ndim, name)
        return node.apply(input, dim=d, dtype=dtype)

    word = "sum" if name == "cumsum" else "product"
    op.__name__ = op.__qualname__ = name
    op.__doc__ = (
        f"Cumulative {word} along ``dim``: ``out[k]`` combines ``input[0..k]``; integers and\n"
        f"bools accumulate as int64 unless ``dtype`` is given.\n\n"
        f"Example::\n\n    >>> glassgrad.{name}(glassgrad.tensor([1.0, 2.0, 3.0]), dim=0)\n"
    )
    return op


cumsum: Callable[..., Any] = _cumulative("cumsum", CumsumBackward0)


cumprod: Callable[..., Any] = _cumulative("cumprod", CumprodBackward0)


def _cumulative_samples(rng: np.random.Generator) -> list[Sample]:
    return [
        Sample((randn(rng, 3, 4), 1)),
        Sample((randn(rng, 3, 4), 0)),
        Sample((randn(rng, 4, 3).T, -1)),
        Sample((randn(rng, 2, 3, 4),), {"dim": 1}),
        Sample((randn(rng), 0)),
        Sample((randn(rng, 0, 3), 1)),
        Sample((np.array([[1, 2], [3, 4]]), 1), grad=False),
        Sample((np.array([True, False, True]), 0), grad=False),
    ]


def _cumprod_zero_samples(rng: np.random.Generator) -> list[Sample]:
    one = randn(rng, 3, 5)
    one[1, 2] = 0.0
    two = randn(rng, 2, 5)
    two[0, 1] = two[0, 3] = 0.0
    first = randn(rng, 4, 3)
    first[0, 1] = 0.0
    return [
        Sample((one, 1), note="one zero"),
        Sample((two, 1), note="two zeros"),
        Sample((first, 0), note="zero in the first position"),
    ]


register("cumsum", cumsum, nodes=(CumsumBackward0,), samples=_cumulative_samples)


register(
    "cumprod",
    cumprod,
    nodes=(CumprodBackward0,),
    samples=lambda rng: [*_cumulative_samples(rng), *_cumprod_zero_samples(rng)],
)


def _cumsum_inplace(self: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    return apply_inplace(
        CumsumBackward0, self, dim=wrap_dim(dim, self.dim(), "cumsum_"), dtype=dtype
    )


def _cumprod_inplace(self: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    return apply_inplace(
        CumprodBackward0, self, dim=wrap_dim(dim, self.dim(), "cumprod_"), dtype=dtype
    )


TENSOR_METHODS: dict[str, Any] = {
    "cumsum_": _cumsum_inplace,
    "cumprod_": _cumprod_inplace,
}


def _running_extremum(x: np.ndarray, axis: int, better: Any) -> tuple:
    """Running max/min and the index where it was reached (the latest among equal values;
    NaN wins and stays, as in PyTorch)."""
    moved = moveaxis(x, axis, 0)
    values = np.empty_like(moved)
    indices = np.empty(moved.shape, np.int64)
    best = moved[0].copy()
    at = np.zeros(best.shape, np.int64)
    for k in range(moved.shape[0]):
        current = moved[k]
        nan = np.isnan(current) if x.dtype.kind == "f" else False
        best_nan = np.isnan(best) if x.dtype.kind == "f" else False
        take = nan | (~best_nan & (better(current, best) | (current == best)))
        best = np.where(take, current, best)
        at = np.where(take, k, at)
        values[k], indices[k] = best, at
    return moveaxis(values, 0, axis), moveaxis(indices, 0, axis)


class _CumExtremum(Op):
    """(values, indices) of a running max or min; each element's gradient goes to the element
    that was the extremum there (summed where one element stays it)."""

    indices: np.ndarray

    dim: Any
    shape: Any

    __slots__ = ("dim", "indices", "shape")
    saved_inputs: tuple[int, ...] = (
        0,
    )  # PyTorch's node keeps self (for its shape; an empty self is returned)
    nondiff_outputs: tuple[int, ...] = (1,)
    saved_outputs: tuple[int, ...] = (1,)  # the indices: PyTorch saves them
    better: Any = None

    @row_major
    def forward(self, x: Any, dim: Any) -> Any:
        self.dim, self.shape = dim, x.shape
        if x.ndim == 0 or x.size == 0:
            self.indices = np.zeros(x.shape, np.int64)
            return x.copy(), self.indices
        values, self.indices = _running_extremum(x, dim, type(self).better)
        return values, self.indices

    def backward(self, F: Any, grads: Any) -> Any:
        grad = grads[0]
        x = self.saved[0]  # then the saved indices (only checked)
        if not array_of(grad).size:
            return x
        if not self.shape:
            return grad
        return ScatterAddZerosBackward0.call(
            grad, shape=self.shape, dim=self.dim, index=self.indices
        )


class CummaxBackward0(_CumExtremum):
    better: Any = staticmethod(np.greater)


class CumminBackward0(_CumExtremum):
    better: Any = staticmethod(np.less)


def _cum_extremum(name: str, node: type, result: type) -> Any:
    def op(input: Tensor, dim: int, *, out: Any = None) -> Any:
        check_tensor(input, name)
        if out is not None:
            check_out_dtypes(name, out, (input,), (input._data.dtype, np.dtype(np.int64)))
        d = wrap_dim(dim, input._data.ndim, name)
        refuse_complex(f"{name}_cpu", input)
        values, indices = node.apply(input, dim=d)
        x = input._data
        if (
            isinstance(out, (tuple, list))
            and len(out) == 2
            and all(isinstance(o, Tensor) and o._data.shape == x.shape for o in out)
            and x.ndim
            and x.size
            and any(np.may_share_memory(o._data, x) for o in out)
        ):
            # PyTorch's kernel checks no overlap: it reads the input as its writes leave it
            written = (out[0]._data, out[1]._data)
            extremum_in_kernel_order(*written, x, d, node.better)
            values, indices = (Tensor._from_array(w.copy()) for w in written)
        return out_result(name, out, result(values, indices), (input,), exact=True)

    op.__name__ = op.__qualname__ = name
    word = "maximum" if name == "cummax" else "minimum"
    op.__doc__ = f"""The running {word} along ``dim`` and where it was reached:
``(values, indices)``; NaN, once met, stays.

Example::

    >>> glassgrad.{name}(glassgrad.tensor([1.0, 3.0, 2.0]), 0).indices
    tensor([0, 1, {1 if name == "cummax" else 0}])
"""
    return op


cummax: Callable[..., Any] = _cum_extremum("cummax", CummaxBackward0, return_types.cummax)
cummin: Callable[..., Any] = _cum_extremum("cummin", CumminBackward0, return_types.cummin)


def _log_cum_sum_exp(x: np.ndarray, dim: int) -> np.ndarray:
    """The running ``log(sum(exp))`` along ``dim``, in PyTorch's accumulator with each running
    value cast back. Complex: ATen's ``_log_add_exp_helper(x, running)`` step by step from
    -inf + 0j (a first element of real part -inf is that -inf + 0j, the later operand wins a
    tie of real parts)."""
    if x.dtype.kind != "c":
        return np.logaddexp.accumulate(x, axis=dim, dtype=WIDER.get(x.dtype)).astype(x.dtype)
    lines = moveaxis(x, dim, 0).astype(WIDER.get(x.dtype, x.dtype))
    out = np.empty(lines.shape, x.dtype)
    running = np.full(lines.shape[1:], complex(-np.inf, 0.0), lines.dtype)
    for k in range(lines.shape[0]):
        running = log_add_exp_complex(lines[k], running)
        out[k] = running
    return moveaxis(out, 0, dim)


def _reversed_logcumsumexp(F: Any, v: Any, dim: int) -> Any:
    if isinstance(v, Tensor):
        return v.flip(dim).logcumsumexp(dim).flip(dim)
    return np.flip(_log_cum_sum_exp(np.flip(v, dim), dim), dim)


def _add_kernel(a: Any, b: Any, sign: int) -> Any:
    """``a + sign * b`` of complex values as PyTorch's add and sub kernels (and glassgrad's
    Tensor ops) give it: ``b`` times 1 + 0j first, so a non-finite part of ``b`` makes the
    other part NaN (``(1 + 0j) * (inf + inf j)`` is NaN + NaN j)."""
    if isinstance(a, Tensor) or isinstance(b, Tensor):
        return a + b if sign > 0 else a - b
    b = scaled(b, 1, np.result_type(a, b))
    return a + b if sign > 0 else a - b


class LogcumsumexpBackward0(Op):
    """out_k = log(sum_{j <= k} exp(x_j)) along ``dim``

    The gradient, sum_{k >= i} grad_k exp(x_i - out_k), is taken as PyTorch (after
    TensorFlow) takes it: the positive and negative parts of ``grad`` apart, in log space,
    so that nothing overflows.
    """

    dim: Any

    saved_inputs: tuple[int, ...] = (0,)
    saves_output = True
    holomorphic = True  # complex: the backward gets grad.conj(), its result is conjugated
    __slots__ = ("dim",)

    @row_major
    def forward(self, x: Any, dim: Any) -> Any:
        self.dim = dim
        if x.ndim == 0 or x.size == 0:
            return x.copy()
        return _log_cum_sum_exp(x, dim)

    def backward(self, F: Any, grad: Any) -> Any:
        x, out = self.saved
        values = array_of(grad)
        if values.ndim == 0 or values.size == 0:
            return grad
        if values.dtype.kind == "c":
            # PyTorch's logcumsumexp_backward for complex: no split by sign, log(grad.conj()).
            shifted = _add_kernel(F.log(grad), out, -1)
            return F.exp(_add_kernel(_reversed_logcumsumexp(F, shifted, self.dim), x, 1))
        lowest = float(np.finfo(values.dtype).min)
        log_abs = F.log(F.abs(grad))
        positive = F.where(values > 0, log_abs, lowest)
        negative = F.where(values < 0, log_abs, lowest)
        dim = self.dim
        return F.exp(_reversed_logcumsumexp(F, positive - out, dim) + x) - F.exp(
            _reversed_logcumsumexp(F, negative - out, dim) + x
        )


def logcumsumexp(input: Tensor, dim: int, *, out: Any = None) -> Tensor:
    """``log(cumsum(exp(input)))`` along ``dim``, computed without overflow.

    Example::

        >>> glassgrad.logcumsumexp(glassgrad.tensor([0.0, 0.0]), 0)
        tensor([0.0000, 0.6931])
    """
    check_tensor(input, "logcumsumexp")
    if out is not None:
        check_out_dtypes("logcumsumexp", out, (input,), (input._data.dtype,))
    d = wrap_dim(dim, input._data.ndim, "logcumsumexp")
    if input._data.dtype.kind not in "fc":
        raise NotImplementedError(
            f"\"logcumsumexp_out_cpu\" not implemented for '{scalar_type_name(input._data.dtype)}'"
        )
    result = LogcumsumexpBackward0.apply(input, dim=d)
    scanned = scan_out("logcumsumexp", input._data, d)
    return out_result("logcumsumexp", out, result, (input,), pointwise=scanned)


def diff(
    input: Tensor,
    n: int = 1,
    dim: int = -1,
    prepend: Tensor | None = None,
    append: Tensor | None = None,
    *,
    out: Any = None,
) -> Tensor:
    """The ``n``-th forward difference along ``dim`` (``out[i] = x[i + 1] - x[i]``, applied
    ``n`` times), after joining ``prepend`` and ``append`` on that dim. Bools give ``!=``.

    Example::

        >>> glassgrad.diff(glassgrad.tensor([1, 4, 9, 16]))
        tensor([3, 5, 7])
    """
    check_tensor(input, "diff")
    if input._data.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = wrap_dim(dim, input._data.ndim, "diff")
    if n == 0:
        # PyTorch's diff_helper: a copy of input (CopyBackwards), prepend and append unused.
        copy = Tensor._from_array(np.zeros_like(input._data)).copy_(input)
        return out_result("diff", out, copy, (input, prepend, append))
    x = input
    if prepend is not None or append is not None:
        parts = [t for t in (prepend, input, append) if t is not None]
        x = cat(parts, d)
    for _ in range(n):
        size = x._data.shape[d]
        if size == 0:
            break
        later, earlier = narrow(x, d, 1, size - 1), narrow(x, d, 0, size - 1)
        x = later != earlier if x._data.dtype.kind == "b" else later - earlier
    return out_result("diff", out, x, (input, prepend, append))


def _trapezoid_parts(y: Tensor, dim: int) -> tuple:
    n = y._data.shape[dim]
    return narrow(y, dim, 1, n - 1), narrow(y, dim, 0, n - 1)


def trapezoid(
    y: Tensor, x: Tensor | None = None, *, dx: float | None = None, dim: int = -1
) -> Tensor:
    """The integral of ``y`` along ``dim`` by the trapezoidal rule, with sample points ``x``
    or a constant spacing ``dx`` (1 by default).

    Example::

        >>> glassgrad.trapezoid(glassgrad.tensor([1.0, 2.0, 3.0]))
        tensor(4.)
    """
    check_tensor(y, "trapezoid", "y")
    if x is not None and dx is not None:
        raise TypeError("trapezoid() received both x and dx")
    d = wrap_dim(dim, y._data.ndim, "trapezoid")
    if y._data.shape[d] == 0:
        return sum(y, d)
    if x is None:  # ATen's do_trapezoid: (sum - (first + last) * 0.5) * dx, as it orders it
        n = y._data.shape[d]
        ends = narrow(y, d, 0, 1) + narrow(y, d, n - 1, 1)
        return (sum(y, d) - sum(ends, d) * 0.5) * (1.0 if dx is None else dx)
    later, earlier = _trapezoid_parts(y, d)
    xs = check_tensor(x, "trapezoid", "x", 2)
    if xs._data.ndim == 1:
        shape = [1] * y._data.ndim
        shape[d] = xs._data.size
        xs = reshape(xs, tuple(shape))
        xd = 0 if y._data.ndim == 0 else d
    else:
        xd = wrap_dim(dim, xs._data.ndim, "trapezoid")
    x_later, x_earlier = _trapezoid_parts(xs, xd)
    return sum((earlier + later) * (x_later - x_earlier), d) / 2.0


def trapz(y: Tensor, x: Tensor | None = None, *, dx: float | None = None, dim: int = -1) -> Tensor:
    """Alias of ``trapezoid``."""
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(
    y: Tensor, x: Tensor | None = None, *, dx: float | None = None, dim: int = -1
) -> Tensor:
    """The running trapezoidal integral of ``y`` along ``dim`` (one element shorter).

    Example::

        >>> glassgrad.cumulative_trapezoid(glassgrad.tensor([1.0, 2.0, 3.0]))
        tensor([1.5000, 4.0000])
    """
    check_tensor(y, "cumulative_trapezoid", "y")
    if x is not None and dx is not None:
        raise TypeError("cumulative_trapezoid() received both x and dx")
    d = wrap_dim(dim, y._data.ndim, "cumulative_trapezoid")
    later, earlier = _trapezoid_parts(y, d)
    if x is None:  # ATen's do_cumulative_trapezoid: (dx / 2 * (left + right)).cumsum
        return cumsum((earlier + later) * ((1.0 if dx is None else dx) / 2.0), d)
    xs = check_tensor(x, "cumulative_trapezoid", "x", 2)
    if xs._data.ndim == 1:
        shape = [1] * y._data.ndim
        shape[d] = xs._data.size
        xs = reshape(xs, tuple(shape))
    x_later, x_earlier = _trapezoid_parts(xs, d)
    return cumsum((earlier + later) * (x_later - x_earlier), d) / 2.0


register("cummax", cummax, nodes=(CummaxBackward0,), samples=lambda rng: _cum_samples(rng))
register("cummin", cummin, nodes=(CumminBackward0,), samples=lambda rng: _cum_samples(rng))


def _cum_samples(rng: np.random.Generator) -> list:
    ties = np.array([[1.0, 1.0, 0.0, 2.0, 2.0], [3.0, -1.0, 3.0, 0.0, 4.0]])
    return [
        Sample((randn(rng, 3, 4), 1)),
        Sample((randn(rng, 3, 4), 0)),
        Sample((randn(rng, 2, 3, 4), -2)),
        Sample((ties, 1), fd=False, note="ties: the latest index"),
        Sample((np.array([1.0, np.nan, 3.0, np.nan]), 0), fd=False),
        Sample((randn(rng), 0)),
        Sample((randn(rng, 0, 3), 1)),
        Sample((np.array([[3, 1, 4], [1, 5, 9]]), 1), grad=False),
    ]


register(
    "logcumsumexp",
    logcumsumexp,
    nodes=(LogcumsumexpBackward0,),
    samples=lambda rng: [
        Sample((randn(rng, 3, 4), 1)),
        Sample((randn(rng, 3, 4), 0)),
        Sample((randn(rng, 2, 3, 4), -1)),
        Sample((100 * randn(rng, 5), 0), note="large values stay finite"),
        Sample((randn(rng), 0)),
        Sample((randn(rng, 0, 3), 0)),
    ],
)
register(
    "diff",
    diff,
    samples=lambda rng: [
        Sample((randn(rng, 3, 5),)),
        Sample((randn(rng, 3, 5), 2, 0)),
        Sample((randn(rng, 3, 5), 1, -1, randn(rng, 3, 1), randn(rng, 3, 2))),
        Sample((randn(rng, 4),), {"n": 3, "append": randn(rng, 2)}),
        Sample((randn(rng, 3),), {"n": 5}),
        Sample((randn(rng, 3),), {"n": 0}),
        Sample((np.array([1, 4, 9, 16]),)),
        Sample((np.array([True, False, False, True]),)),
    ],
)


def _trapezoid_samples(rng):
    return [
        Sample((randn(rng, 3, 4),)),
        Sample((randn(rng, 3, 4),), {"dx": 0.5, "dim": 0}),
        Sample((randn(rng, 3, 4), np.sort(randn(rng, 4)))),
        Sample((randn(rng, 3, 4), np.sort(randn(rng, 3, 4), axis=-1))),
        Sample((randn(rng, 3, 4), NoGrad(np.sort(randn(rng, 3)))), {"dim": 0}),
    ]


register("trapezoid", trapezoid, methods=(), samples=_trapezoid_samples)
register("trapz", trapz, methods=(), samples=_trapezoid_samples)
register("cumulative_trapezoid", cumulative_trapezoid, methods=(), samples=_trapezoid_samples)
