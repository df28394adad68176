"""Vector normalisation and similarities: ``normalize``, ``cosine_similarity`` and
``pairwise_distance`` (``nn.functional``), composed from other ops as PyTorch composes them.
"""

from __future__ import annotations

import numpy as np

from .. import _dtype
from .._dtype import scalar_type_name
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from . import arithmetic, broadcasting, conversion, division, reduction
from ._common import binary_operands, broadcast_error, check_tensor, wrap_dim
from ._out import out_result
from ._registry import NoGrad, Sample, register
from ._samples import randn
from .clamping import clamp_min
from .nn_activation import NN, AddBackward1
from .norms import LinalgVectorNormBackward0, vector_norm

__all__ = ["normalize", "cosine_similarity", "pairwise_distance"]


# --- norms and similarities --------------------------------------------------------------------


class NormBackward1(LinalgVectorNormBackward0):
    """``at::norm(x, p, dim, keepdim)``: the p-norm over ``dim`` as PyTorch's C++ composites
    (``pairwise_distance``) record it; the same math as ``linalg.vector_norm``."""


def _check_float_input(x: Tensor, op: str) -> None:
    if x._data.dtype.kind not in "fc":
        raise RuntimeError(
            f"{op}: Expected a floating point or complex tensor as input. Got "
            f"{scalar_type_name(x._data.dtype)}"
        )


def normalize(
    input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out: Tensor | None = None
) -> Tensor:
    """``input / max(||input||_p, eps)``, the norm taken along ``dim``.

    Example::

        >>> glassgrad.nn.functional.normalize(glassgrad.tensor([[3.0, 4.0]]))
        tensor([[0.6000, 0.8000]])
    """
    check_tensor(input, "normalize")
    _check_float_input(input, "normalize")
    d = wrap_dim(dim, input._data.ndim, "normalize")
    norm = vector_norm(input, p, d, True)
    denominator = broadcasting.expand_as(clamp_min(norm, eps), input)
    # PyTorch's out= is div's (its autograd check names div).
    return out_result("div", out, division.div(input, denominator), (input, denominator))


def _broadcast_pair(a: Tensor, b: Tensor, op: str, expand_all: bool = True) -> tuple:
    """Both tensors at their common shape. Nothing is recorded when the shapes are equal;
    else both are expanded (``expand_outplace``), or with ``expand_all=False`` only those of
    another shape (``broadcast_tensors``), as PyTorch records them."""
    sa, sb = a._data.shape, b._data.shape
    if sa == sb:
        return a, b
    try:
        common = np.broadcast_shapes(sa, sb)
    except ValueError:
        raise broadcast_error(op, a._data, b._data) from None
    if expand_all or sa != common:
        a = broadcasting.expand(a, common)
    if expand_all or sb != common:
        b = broadcasting.expand(b, common)
    return a, b


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """``sum(x1/max(||x1||, eps) * x2/max(||x2||, eps))`` along ``dim`` (broadcasting).

    As in PyTorch, the norms are clamped without recording the clamp, and each input is
    divided by its norm before the product (values stay in [-1, 1]).

    Example::

        >>> a = glassgrad.tensor([[1.0, 0.0]])
        >>> glassgrad.nn.functional.cosine_similarity(a, glassgrad.tensor([[1.0, 1.0]]))
        tensor([0.7071])
    """
    check_tensor(x1, "cosine_similarity", "x1", 1)
    check_tensor(x2, "cosine_similarity", "x2", 2)
    common = _dtype.result_numpy_dtype((x1._data, x2._data))
    if common.kind != "f":
        raise RuntimeError(
            "cosine_similarity: expected common dtype to be floating point, yet common dtype "
            f"is {scalar_type_name(common)}"
        )
    x1, x2 = _broadcast_pair(x1, x2, "cosine_similarity")
    d = wrap_dim(dim, x1._data.ndim, "cosine_similarity")
    norm1 = conversion.clone(vector_norm(x1, 2, d, True))
    norm2 = conversion.clone(vector_norm(x2, 2, d, True))
    with no_grad():
        norm1.clamp_(min=eps)
        norm2.clamp_(min=eps)
    product = arithmetic.mul(division.div(x1, norm1), division.div(x2, norm2))
    return reduction.sum(product, d)


def pairwise_distance(
    x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False
) -> Tensor:
    """``||x1 - x2 + eps||_p`` along the last dimension (broadcasting).

    Example::

        >>> a = glassgrad.tensor([[0.0, 0.0]])
        >>> glassgrad.nn.functional.pairwise_distance(a, glassgrad.tensor([[3.0, 4.0]]), eps=0)
        tensor([5.])
    """
    check_tensor(x1, "pairwise_distance", "x1", 1)
    check_tensor(x2, "pairwise_distance", "x2", 2)
    a, b = binary_operands(x1._data, x2._data)
    try:
        np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        raise broadcast_error("pairwise_distance", a, b) from None
    innermost = max(x1._data.ndim, x2._data.ndim) - 1
    difference = AddBackward1.apply(arithmetic.sub(x1, x2), other=eps)
    dims = (innermost,) if innermost >= 0 else None
    return NormBackward1.apply(difference, ord=float(p), dim=dims, keepdim=keepdim)


register(
    "normalize",
    normalize,
    namespace=NN,
    samples=lambda rng: [
        Sample((randn(rng, 3, 4),)),
        Sample((randn(rng, 3, 4),), {"dim": 0}),
        Sample((randn(rng, 2, 3, 4),), {"p": 1.0, "dim": -1}),
        Sample((randn(rng, 4, 3).T,), {"p": 3.0}),
        Sample((randn(rng, 5),), {"dim": 0}),
    ],
)


register(
    "cosine_similarity",
    cosine_similarity,
    namespace=NN,
    samples=lambda rng: [
        Sample((randn(rng, 3, 4), randn(rng, 3, 4))),
        Sample((randn(rng, 3, 4), randn(rng, 3, 4)), {"dim": 0}),
        Sample((randn(rng, 2, 3, 4), randn(rng, 3, 4)), {"dim": -1}),
        Sample((randn(rng, 5), randn(rng, 5)), {"dim": 0}),
        Sample((randn(rng, 3, 4), NoGrad(randn(rng, 3, 4))), {"eps": 1e-6}),
    ],
)


register(
    "pairwise_distance",
    pairwise_distance,
    namespace=NN,
    samples=lambda rng: [
        Sample((randn(rng, 3, 4), randn(rng, 3, 4))),
        Sample((randn(rng, 3, 4), randn(rng, 4)), {"p": 1.0}),
        Sample((randn(rng, 3, 4), randn(rng, 3, 4)), {"p": 3.0, "keepdim": True}),
        Sample((randn(rng, 3, 4), NoGrad(randn(rng, 3, 4))), {"eps": 0.0}),
    ],
)
