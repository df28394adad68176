"""Norms of differences: cdist (between rows of two sets), dist (of two tensors) and
renorm (slices scaled down to a maximum norm). cdist and dist are nodes of their own, saving
what PyTorch's save; their gradients are the vector norm's (norms.vector_norm_backward).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._tensor import Tensor
from ..autograd.op import Op
from ._common import array_of, broadcast_error, check_tensor, wrap_dim
from ._registry import Sample, register
from ._samples import randn
from .norms import LinalgVectorNormBackward0, vector_norm_backward
from .pointwise import where


def _norm_of(difference: np.ndarray, p: float, axis: Any) -> np.ndarray:
    return LinalgVectorNormBackward0.__new__(LinalgVectorNormBackward0).forward(
        difference, ord=float(p), dim=axis, keepdim=False
    )


class CdistBackward0(Op):
    """out[..., i, j] = || x1[..., i, :] - x2[..., j, :] ||_p"""

    saved_inputs = (0, 1)
    saves_output = True
    __slots__ = ("p",)

    def forward(self, x1, x2, p):
        self.p = p
        difference = x1[..., :, None, :] - x2[..., None, :, :]
        return _norm_of(difference, p, (difference.ndim - 1,))

    def backward(self, F, grad):
        x1, x2, out = self.saved
        difference = F.unsqueeze(x1, -2) - F.unsqueeze(x2, -3)
        axis = array_of(difference).ndim - 1
        per_pair = vector_norm_backward(F, grad, difference, out, self.p, (axis,), False)
        needs = self.needs_input_grad
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
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    return CdistBackward0.apply(x1, x2, p=float(p))


class DistBackward0(Op):
    """out = || a - b ||_p over all elements (broadcast); its gradient is the norm's"""

    saved_inputs = (0, 1)
    saves_output = True
    __slots__ = ("p",)

    def forward(self, a, b, p):
        self.p = p
        difference = np.asarray(a - b)
        return _norm_of(difference, p, None)

    def backward(self, F, grad):
        a, b, out = self.saved
        per_element = vector_norm_backward(F, grad, a - b, out, self.p, None, False)
        needs = self.needs_input_grad
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


def renorm(input: Tensor, p: float, dim: int, maxnorm: float) -> Tensor:
    """Each slice along ``dim`` whose p-norm exceeds ``maxnorm`` scaled down to that norm.

    Example::

        >>> glassgrad.renorm(glassgrad.tensor([[3.0, 4.0], [0.3, 0.4]]), 2, 0, 1.0)
        tensor([[0.6000, 0.8000],
                [0.3000, 0.4000]])
    """
    check_tensor(input, "renorm")
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    n = input._data.ndim
    d = wrap_dim(dim, n, "renorm")
    others = tuple(k for k in range(n) if k != d)
    norm = LinalgVectorNormBackward0.apply(input, ord=float(p), dim=others, keepdim=True)
    # PyTorch's factor: maxnorm / (norm + 1e-7) where the norm exceeds maxnorm, else 1.
    exceeds = Tensor._from_array(norm._data > maxnorm)
    factor = where(exceeds, maxnorm / (norm + 1e-7), 1.0)
    return input * factor


def _cdist_samples(rng):
    return [
        Sample((randn(rng, 3, 4), randn(rng, 2, 4))),
        Sample((randn(rng, 2, 3, 4), randn(rng, 2, 5, 4)), {"p": 1.0}),
        Sample((randn(rng, 3, 2), randn(rng, 4, 2), 3.0)),
        Sample((randn(rng, 3, 2), randn(rng, 4, 2), math.inf)),
        Sample((randn(rng, 3, 2), randn(rng, 4, 2), 0.0), grad=False),
        Sample((randn(rng, 1, 3, 2), randn(rng, 2, 4, 2)), note="batch broadcast"),
    ]


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
    samples=lambda rng: [
        Sample((3 * randn(rng, 3, 4), 2, 0, 1.0)),
        Sample((3 * randn(rng, 3, 4), 1, 1, 2.0)),
        Sample((randn(rng, 2, 3, 2), 3, -1, 0.5)),
    ],
)
