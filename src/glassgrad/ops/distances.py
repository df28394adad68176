"""Norms of differences: cdist (between rows of two sets), dist (of two tensors) and
renorm (slices scaled down to a maximum norm). cdist and dist are nodes of their own, saving
what PyTorch's save; their gradients are the vector norm's (norms.vector_norm_backward).
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from .._dtype import scalar_type_name
from .._strides import row_major
from .._tensor import Tensor
from ..autograd.kernel_order import write_in_kernel_order
from ..autograd.op import Op, apply_inplace
from ._common import array_of, broadcast_error, check_tensor, wrap_dim
from ._namespace import ArrayNamespace
from ._registry import Sample, register
from ._samples import randn, register_on_copy
from .arithmetic import MulBackward0
from .norms import LinalgVectorNormBackward0, vector_norm_backward


def _norm_of(difference: np.ndarray, p: float, axis: Any) -> np.ndarray:
    return LinalgVectorNormBackward0.__new__(LinalgVectorNormBackward0).forward(
        difference, ord=float(p), dim=axis, keepdim=False
    )


def _pair_norms(difference: np.ndarray, p: float, axis: int, skips_nan: bool = False) -> np.ndarray:
    """The p-norm of ``difference`` along ``axis`` as ATen's ``Dist`` kernels reduce it: a NaN
    counts as NaN for p = 0 (``min(ceil(|d|), 1)``), and for p = inf cdist's scalar loop
    (``skips_nan``) takes ``std::max(agg, |d|)`` from 0, which passes over a NaN."""
    if p == 0:
        with np.errstate(invalid="ignore"):
            return np.sum(np.minimum(np.ceil(np.abs(difference)), 1.0), axis=axis)
    if math.isinf(p) and skips_nan and difference.shape[axis]:
        return np.fmax.reduce(np.abs(difference), axis=axis, initial=0.0)
    return _norm_of(difference, p, (axis,))


def _dist_backward(diff: np.ndarray, grad: np.ndarray, dist: np.ndarray, p: float) -> np.ndarray:
    """The gradient of each pair's p-norm distance in ``diff`` (pairs along all but the last
    axis; ``grad`` and ``dist`` with a trailing axis of 1): ATen's ``Dist::*_calc::backward``,
    shared by cdist and pdist. Its sign is ``min(max(0, ceil d), 1) + min(max(-1, floor d), 0)``
    (NaN at a NaN), and an infinity-norm coordinate counts as reaching the norm when
    ``ceil(||d| - dist|)`` is 0: every tied coordinate gets the whole gradient, and an
    infinite coordinate of an infinite norm gets NaN (inf - inf)."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if p == 0:
            return np.zeros_like(diff)
        if p == 1:
            return grad * np.sign(diff)
        if math.isinf(p):
            reaches = 1.0 - np.minimum(1.0, np.ceil(np.abs(np.abs(diff) - dist)))
            return grad * np.sign(diff) * reaches
        if p == 2:
            return np.where(dist == 0, 0.0, grad * diff / dist)
        if p < 2:
            value = np.sign(diff) * np.abs(diff) ** (p - 1) * grad / dist ** (p - 1)
            zero = (dist == 0) | ((diff == 0) & (p < 1))
            return np.where(zero, 0.0, value)
        value = diff * np.abs(diff) ** (p - 2) * grad / dist ** (p - 1)
        return np.where(dist == 0, 0.0, value)


class CdistBackwardBackward0(Op):
    """cdist's gradient computed under ``create_graph`` without the matrix-product shortcut:
    PyTorch has no derivative of ``_cdist_backward``, so this node's backward raises."""

    __slots__ = ()

    def forward(self, grad: Any, x1: Any, x2: Any, result: Any, gradient: Any) -> Any:
        return gradient

    def backward(self, F: Any, grad: Any) -> Any:
        raise NotImplementedError("the derivative for '_cdist_backward' is not implemented.")


class CdistBackward0(Op):
    """out[..., i, j] = || x1[..., i, :] - x2[..., j, :] ||_p"""

    p: Any
    matmul: Any

    saved_inputs: tuple[int, ...] = (0, 1)
    saves_output = True
    __slots__ = ("p", "matmul")

    def forward(self, x1: Any, x2: Any, p: Any, matmul: Any = False) -> Any:
        self.p, self.matmul = p, matmul
        difference = x1[..., :, None, :] - x2[..., None, :, :]
        return _pair_norms(difference, p, difference.ndim - 1, skips_nan=True)

    def backward(self, F: Any, grad: Any) -> Any:
        if F is ArrayNamespace or self.matmul:
            return self._gradients(F, grad, *self.saved)
        # Without PyTorch's matrix-product shortcut its gradient is _cdist_backward, which has
        # no derivative: the gradients are recorded by a node whose backward raises.
        x1, x2, out = self.saved
        arrays = self._gradients(ArrayNamespace, *(array_of(t) for t in (grad, x1, x2, out)))
        return tuple(
            None
            if g is None
            else CdistBackwardBackward0.apply(grad, x1, x2, out, Tensor._from_array(g))
            for g in arrays
        )

    def _gradients(self, F: Any, grad: Any, x1: Any, x2: Any, out: Any) -> tuple:
        needs = self.needs_input_grad
        if F is ArrayNamespace:
            # ATen's _cdist_backward kernel, run for x1 and again with the operands swapped
            # (grad.mT) for x2, as PyTorch's formula does: x2's pairs are x2_j - x1_i.
            g, dist = grad[..., None], out[..., None]
            return (
                _dist_backward(x1[..., :, None, :] - x2[..., None, :, :], g, dist, self.p).sum(-2)
                if needs[0]
                else None,
                _dist_backward(x2[..., None, :, :] - x1[..., :, None, :], g, dist, self.p).sum(-3)
                if needs[1]
                else None,
            )
        # p = 2 through matrix products under create_graph: differentiable
        difference = F.unsqueeze(x1, -2) - F.unsqueeze(x2, -3)
        axis = array_of(difference).ndim - 1
        per_pair = vector_norm_backward(F, grad, difference, out, self.p, (axis,), False)
        return (
            F.sum(per_pair, -2) if needs[0] else None,
            -F.sum(per_pair, -3) if needs[1] else None,
        )


def cdist(
    x1: Tensor,
    x2: Tensor,
    p: float = 2.0,
    compute_mode: str = "use_mm_for_euclid_dist_if_necessary",
) -> Tensor:
    """The p-norm distance between each row of ``x1`` (..., P, M) and each row of ``x2``
    (..., R, M): a (..., P, R) tensor. ``compute_mode`` chooses PyTorch's matrix-product
    shortcut for p = 2; glassgrad always takes the direct difference (the same values, more
    exact).

    Example::

        >>> glassgrad.cdist(glassgrad.tensor([[0.0, 0.0]]), glassgrad.tensor([[3.0, 4.0]]))
        tensor([[5.]])
    """
    check_tensor(x1, "cdist", "x1")
    check_tensor(x2, "cdist", "x2", 2)
    if compute_mode not in (
        "use_mm_for_euclid_dist_if_necessary",
        "use_mm_for_euclid_dist",
        "donot_use_mm_for_euclid_dist",
    ):
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    a, b = x1._data, x2._data
    if a.ndim < 2 or b.ndim < 2:
        raise RuntimeError(
            f"cdist only supports at least 2D tensors, X1 got: {a.ndim}D"
            if a.ndim < 2
            else f"cdist only supports at least 2D tensors, X2 got: {b.ndim}D"
        )
    if a.shape[-1] != b.shape[-1]:
        raise RuntimeError(
            f"X1 and X2 must have the same number of columns. X1: {a.shape[-1]} X2: {b.shape[-1]}"
        )
    for name, array in (("X1", a), ("X2", b)):
        if array.dtype.kind != "f":
            raise RuntimeError(
                f"cdist only supports floating-point dtypes, {name} got: "
                f"{scalar_type_name(array.dtype)}"
            )
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    if a.dtype == np.float16:  # the kernel is chosen by x1's dtype, then reads x2 as it
        raise NotImplementedError("\"cdist\" not implemented for 'Half'")
    if a.dtype != b.dtype:
        raise RuntimeError(
            f"expected scalar type {scalar_type_name(a.dtype)} but found "
            f"{scalar_type_name(b.dtype)}"
        )
    # PyTorch's matrix-product path (p = 2 with many rows, or asked for) is differentiable
    # twice; its direct kernel is not (see CdistBackward0.backward)
    matmul = p == 2 and (
        compute_mode == "use_mm_for_euclid_dist"
        or (
            compute_mode == "use_mm_for_euclid_dist_if_necessary"
            and max(a.shape[-2], b.shape[-2]) > 25
        )
    )
    return CdistBackward0.apply(x1, x2, p=float(p), matmul=matmul)


class DistBackward0(Op):
    """out = || a - b ||_p over all elements (broadcast); its gradient is the norm's"""

    p: Any

    saved_inputs: tuple[int, ...] = (0, 1)
    saves_output = True
    __slots__ = ("p",)

    def forward(self, a: Any, b: Any, p: Any) -> Any:
        self.p = p
        difference = np.asarray(a - b)
        return _norm_of(difference, p, None)

    def backward(self, F: Any, grad: Any) -> Any:
        a, b, out = self.saved
        per_element = vector_norm_backward(F, grad, a - b, out, self.p, None, False)
        needs = self.needs_input_grad
        if per_element is None and needs[1]:
            # p = 0: PyTorch's formula for other negates the undefined gradient of self.
            raise RuntimeError(
                "Expected a proper Tensor but got None (or an undefined Tensor in C++) for "
                "argument #0 'self'"
            )
        return (per_element if needs[0] else None), (-per_element if needs[1] else None)


def dist(input: Tensor, other: Tensor, p: float = 2) -> Tensor:
    """The p-norm of ``input - other``.

    Example::

        >>> glassgrad.dist(glassgrad.tensor([0.0, 0.0]), glassgrad.tensor([3.0, 4.0]))
        tensor(5.)
    """
    check_tensor(input, "dist")
    check_tensor(other, "dist", "other", 2)
    try:
        np.broadcast_shapes(input._data.shape, other._data.shape)
    except ValueError:
        raise broadcast_error("dist", input._data, other._data) from None
    return DistBackward0.apply(input, other, p=float(p))


class RenormBackward0(Op):
    """out = x * c per slice along ``dim``: c = maxnorm / (norm + 1e-7) where the slice's
    p-norm exceeds maxnorm, else 1 (PyTorch's factor); the gradient (PyTorch's
    renorm_backward) adds, where scaled, the factor's dependence on the norm."""

    maxnorm: Any
    others: Any
    p: Any

    __slots__ = ("p", "others", "maxnorm")
    saved_inputs: tuple[int, ...] = (0,)

    @row_major
    def forward(self, x: Any, p: Any, others: Any, maxnorm: Any) -> Any:
        self.p, self.others, self.maxnorm = p, others, maxnorm
        return (x * _renorm_factor(x, p, others, maxnorm)).astype(x.dtype, copy=False)

    @staticmethod
    def write_overlapping(data: np.ndarray, p: Any, others: Any, maxnorm: Any) -> None:
        # PyTorch's renorm_ takes the factor from the whole tensor, then writes
        # mul_out(self, factor, self): an element sharing memory with one written before it
        # reads the scaled value (an unfold's windows: scaled twice).
        factor = _renorm_factor(data, p, others, maxnorm)
        write_in_kernel_order(MulBackward0, data, [factor], {})

    def backward(self, F: Any, grad: Any) -> Any:
        (x,) = self.saved
        norm = LinalgVectorNormBackward0.call(x, ord=self.p, dim=self.others, keepdim=True)
        exceeds = array_of(norm) > self.maxnorm
        inverse = 1.0 / (norm + 1e-7)
        along = F.sum(x * grad, self.others, True)
        through_norm = vector_norm_backward(F, along, x, norm, self.p, self.others, True)
        scaled = grad * (inverse * self.maxnorm) - through_norm * (self.maxnorm * inverse**2)
        return F.where(exceeds, scaled, grad)


def _renorm_factor(x: np.ndarray, p: float, others: tuple, maxnorm: float) -> np.ndarray:
    """PyTorch's renorm factor per slice (kept dims): maxnorm / (norm + 1e-7) where the
    slice's p-norm exceeds maxnorm, else 1."""
    norm = _norm_of(x, p, others).reshape([1 if k in others else n for k, n in enumerate(x.shape)])
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(norm > maxnorm, maxnorm / (norm + 1e-7), 1.0)


def _renorm_args(input: Tensor, p: float, dim: int, maxnorm: float, op: str) -> dict:
    check_tensor(input, op)
    if p <= 0:
        raise RuntimeError(f"{op}: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"{op}: expected maxnorm to be >= 0 but got {maxnorm}")
    n = input._data.ndim
    d = wrap_dim(dim, n, op)
    if input._data.dtype.kind not in "fc":  # its implementation's vector_norm refuses it
        raise RuntimeError(
            "linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
            f"{scalar_type_name(input._data.dtype)}"
        )
    others = tuple(k for k in range(n) if k != d)
    return {"p": float(p), "others": others, "maxnorm": float(maxnorm)}


def renorm(input: Tensor, p: float, dim: int, maxnorm: float) -> Tensor:
    """Each slice along ``dim`` whose p-norm exceeds ``maxnorm`` scaled down to that norm.

    Example::

        >>> glassgrad.renorm(glassgrad.tensor([[3.0, 4.0], [0.3, 0.4]]), 2, 0, 1.0)
        tensor([[0.6000, 0.8000],
                [0.3000, 0.4000]])
    """
    return RenormBackward0.apply(input, **_renorm_args(input, p, dim, maxnorm, "renorm"))


def renorm_(input: Tensor, p: float, dim: int, maxnorm: float) -> Tensor:
    """In-place ``renorm``.

    Example::

        >>> glassgrad.tensor([[3.0, 4.0]]).renorm_(2, 0, 1.0)
        tensor([[0.6000, 0.8000]])
    """
    return apply_inplace(RenormBackward0, input, **_renorm_args(input, p, dim, maxnorm, "renorm_"))


TENSOR_METHODS: dict[str, Any] = {"renorm_": renorm_}


class PdistBackwardBackward0(Op):
    """The gradient of pdist computed under ``create_graph``: PyTorch has no derivative of
    ``_pdist_backward``, so this node records it and its backward raises."""

    __slots__ = ()

    def forward(self, grad: Any, x: Any, result: Any) -> Any:
        return result

    def backward(self, F: Any, grad: Any) -> Any:
        raise NotImplementedError("the derivative for '_pdist_backward' is not implemented.")


@functools.lru_cache(maxsize=16)
def _pairs(n: int) -> tuple:
    """The rows (i, j) of every pair i < j of ``n``, row-major (``np.triu_indices(n, 1)``, whose
    Python costs more than a small pdist; cached, read-only)."""
    first, second = np.triu_indices(n, 1)
    first.flags.writeable = second.flags.writeable = False
    return first, second


class PdistBackward0(Op):
    """out[k] = || x[i_k] - x[j_k] ||_p over the pairs i < j of rows, in row-major order."""

    p: Any

    saved_inputs: tuple[int, ...] = (0,)
    saves_output = True
    __slots__ = ("p",)

    def forward(self, x: Any, p: Any) -> Any:
        self.p = p
        first, second = _pairs(x.shape[0])
        return _pair_norms(x[first] - x[second], p, 1)

    def backward(self, F: Any, grad: Any) -> Any:
        saved, out = self.saved
        x, dist, g = array_of(saved), array_of(out)[:, None], array_of(grad)[:, None]
        first, second = _pairs(x.shape[0])
        per_pair = _dist_backward(x[first] - x[second], g, dist, self.p)
        result = np.zeros_like(x)
        np.add.at(result, first, per_pair.astype(x.dtype))
        np.add.at(result, second, -per_pair.astype(x.dtype))
        if F is ArrayNamespace:
            return result
        return PdistBackwardBackward0.apply(grad, saved, Tensor._from_array(result))


def pdist(input: Tensor, p: float = 2) -> Tensor:
    """The p-norm distance between every pair of rows of ``input`` (N, M): the upper triangle
    of ``cdist(input, input)`` without its diagonal, row by row, N (N - 1) / 2 values.

    Example::

        >>> glassgrad.nn.functional.pdist(glassgrad.tensor([[0.0, 0.0], [3.0, 4.0], [0.0, 1.0]]))
        tensor([5.0000, 1.0000, 4.2426])
    """
    check_tensor(input, "pdist")
    x = input._data
    if x.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {x.ndim}D")
    if x.dtype.kind != "f":
        raise RuntimeError("pdist only supports floating-point dtypes")
    if not p >= 0:
        raise RuntimeError("pdist only supports non-negative p values")
    if x.dtype == np.float16:
        raise NotImplementedError("\"pdist\" not implemented for 'Half'")
    return PdistBackward0.apply(input, p=float(p))


def _cdist_samples(rng):
    return [
        Sample((randn(rng, 3, 4), randn(rng, 2, 4))),
        Sample((randn(rng, 2, 3, 4), randn(rng, 2, 5, 4)), {"p": 1.0}),
        Sample((randn(rng, 3, 2), randn(rng, 4, 2), 3.0)),
        Sample((randn(rng, 3, 2), randn(rng, 4, 2), math.inf)),
        Sample((randn(rng, 3, 2), randn(rng, 4, 2), 0.0), grad=False),
        Sample((randn(rng, 1, 3, 2), randn(rng, 2, 4, 2)), note="batch broadcast"),
    ]


register(
    "pdist",
    pdist,
    nodes=(PdistBackward0,),
    samples=lambda rng: [
        Sample((randn(rng, 5, 3),)),
        Sample((randn(rng, 4, 3), 1.0)),
        Sample((randn(rng, 4, 3), 0.5)),
        Sample((randn(rng, 4, 3), 1.5)),
        Sample((randn(rng, 4, 3), 3.0)),
        Sample((randn(rng, 4, 3), math.inf)),
        Sample((randn(rng, 4, 3), 0.0), grad=False),
        Sample((randn(rng, 1, 3),), note="one row: no pairs"),
    ],
    namespace="nn.functional",
    second_order=False,  # PyTorch has no derivative of _pdist_backward
)
register("cdist", cdist, methods=(), samples=_cdist_samples, second_order=False)
register(
    "dist",
    dist,
    samples=lambda rng: [
        Sample((randn(rng, 3, 4), randn(rng, 3, 4))),
        Sample((randn(rng, 3, 4), randn(rng, 4), 1)),
        Sample((randn(rng, 3), randn(rng, 3), 3.5)),
        Sample((randn(rng, 3), randn(rng, 3), math.inf)),
    ],
)
register(
    "renorm",
    renorm,
    nodes=(RenormBackward0,),
    samples=lambda rng: [
        Sample((3 * randn(rng, 3, 4), 2, 0, 1.0)),
        Sample((3 * randn(rng, 3, 4), 1, 1, 2.0)),
        Sample((randn(rng, 2, 3, 2), 3, -1, 0.5)),
        Sample((randn(rng, 3, 4), math.inf, 1, 0.5)),
        Sample((np.array([[3.0, 4.0], [0.3, 0.4]]), 2, 0, 100.0), note="nothing scaled"),
    ],
)
register_on_copy(
    "renorm_",
    lambda rng: [
        Sample((3 * randn(rng, 3, 4), 2, 0, 1.0)),
        Sample((randn(rng, 2, 3, 2), 3, -1, 0.5)),
    ],
)
