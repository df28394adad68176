"""Margin, embedding and likelihood losses: ``margin_ranking_loss hinge_embedding_loss
soft_margin_loss cosine_embedding_loss triplet_margin_loss triplet_margin_with_distance_loss
multilabel_soft_margin_loss poisson_nll_loss gaussian_nll_loss`` (public in
``glassgrad.nn.functional``).

All but ``soft_margin_loss`` are, in PyTorch, compositions of other ops (in ATen or in
``torch/nn/functional.py``); they are composed here the same way, so their values, gradients,
second derivatives and saved tensors are PyTorch's. ``soft_margin_loss`` is one node.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from .._strides import keeps_operand_layout
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..autograd.op import Op
from . import arithmetic, clamping, pointwise
from . import reduction as reductions
from ._common import array_of, check_tensor
from ._not_implemented import check_no_requires_grad, refuse_complex_autograd
from ._registry import NoGrad, Sample, register
from ._samples import positive, randn
from .nn_activation_smooth import logsigmoid
from .nn_loss import _reduce, _reduction
from .nn_similarity import pairwise_distance

_EPSILON = 1e-12  # ATen's cosine_embedding_loss


def margin_ranking_loss(
    input1: Tensor,
    input2: Tensor,
    target: Tensor,
    margin: float = 0,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """``max(0, -target * (input1 - input2) + margin)``, reduced; ``target`` is 1 where
    ``input1`` should rank higher, -1 where ``input2`` should.

    Example::

        >>> F = glassgrad.nn.functional
        >>> F.margin_ranking_loss(glassgrad.tensor([1.0]), glassgrad.tensor([2.0]), glassgrad.tensor([1.0]))
        tensor(1.)
    """
    how = _reduction(reduction, size_average, reduce)
    for i, t in enumerate((input1, input2, target)):
        check_tensor(t, "margin_ranking_loss", ("input1", "input2", "target")[i], i + 1)
    if not input1.dim() == input2.dim() == target.dim():
        raise RuntimeError(
            "margin_ranking_loss : All input tensors should have same dimension but got sizes: "
            f"input1: {input1.shape}, input2: {input2.shape}, target: {target.shape} "
        )
    loss = clamping.clamp_min(-target * (input1 - input2) + margin, 0)
    return _reduce(loss, how)


def hinge_embedding_loss(
    input: Tensor,
    target: Tensor,
    margin: float = 1.0,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """``input`` where ``target`` is 1, ``max(0, margin - input)`` where it is -1, reduced
    (``input`` usually a distance).

    Example::

        >>> F = glassgrad.nn.functional
        >>> F.hinge_embedding_loss(glassgrad.tensor([0.3, 2.0]), glassgrad.tensor([-1.0, 1.0]))
        tensor(1.3500)
    """
    how = _reduction(reduction, size_average, reduce)
    check_tensor(input, "hinge_embedding_loss")
    check_tensor(target, "hinge_embedding_loss", "target", 2)
    zeros = Tensor._from_array(np.zeros(input._data.shape, input._data.dtype))
    margin_clamp = clamping.clamp_min(arithmetic.rsub(input, margin), 0)
    output_margin = pointwise.where(target != 1, margin_clamp, zeros)
    output_self = pointwise.where(target != -1, input, zeros)
    return _reduce(output_margin + output_self, how)


class SoftMarginLossBackward0(Op):
    """out = reduce(log(1 + exp(-target * input)))."""

    reduction: Any

    saved_inputs: tuple[int, ...] = (0, 1)
    grad_reads_saved = True
    __slots__ = ("reduction",)

    @keeps_operand_layout
    def forward(self, x: Any, target: Any, reduction: Any) -> Any:
        self.reduction = reduction
        # PyTorch's neg(x).mul_(t).exp_().log1p_(): infinite where exp overflows (seed 834310)
        with np.errstate(all="ignore"):
            loss = np.log1p(np.exp(-x * target)).astype(x.dtype, copy=False)
        if reduction == "none":
            return loss
        total = loss.sum()
        return np.asarray(total / loss.size if reduction == "mean" else total, x.dtype)

    def backward(self, F: Any, grad: Any) -> Any:
        x, target = self.saved
        if self.needs_input_grad[1]:
            raise RuntimeError("the derivative for 'target' is not implemented.")
        node = SoftMarginLossBackwardBackward0
        return node.call(grad, x, target=array_of(target), reduction=self.reduction), None


class SoftMarginLossBackwardBackward0(Op):
    """PyTorch's ``soft_margin_loss_backward(grad, input, target)``: d/dx log(1 + z),
    z = e^{-tx}, is -t z / (1 + z), in its order (an infinite z gives NaN, as there); recorded
    under ``create_graph`` with PyTorch's derivatives of it (``soft_margin_loss_double_backward``
    and ``..._grad_output``), with edges to the gradient and the input (``target`` never
    requires grad)."""

    reduction: Any
    target: Any

    saved_inputs: tuple[int, ...] = (0, 1)
    __slots__ = ("reduction", "target")

    def forward(self, grad: Any, x: Any, target: Any, reduction: Any) -> Any:
        self.reduction, self.target = reduction, target
        z = np.exp(-target * x)
        norm = 1.0 / x.size if reduction == "mean" else 1.0
        return (target * z * -norm / (z + 1) * grad).astype(x.dtype, copy=False)

    def backward(self, F: Any, gg: Any) -> Any:
        grad, x = self.saved
        target = self.target
        needs = self.needs_input_grad
        d_grad = d_x = None
        if needs[0]:
            if self.reduction == "none":
                d_grad = type(self).call(gg, x, target=target, reduction="none")
            else:
                ones = np.ones(array_of(grad).shape, array_of(x).dtype)
                again = type(self).call(ones, x, target=target, reduction=self.reduction)
                d_grad = F.sum(again * gg)
        if needs[1]:
            z = F.exp(x * -target)
            zplus1 = z + 1
            d_x = target * target * z / (zplus1 * zplus1) * (gg * grad)
            if self.reduction == "mean":
                d_x = d_x / array_of(x).size
        return d_grad, d_x


def soft_margin_loss(
    input: Tensor,
    target: Tensor,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """Two-class logistic loss ``log(1 + exp(-target * input))``, reduced (``target`` +-1).

    Example::

        >>> F = glassgrad.nn.functional
        >>> F.soft_margin_loss(glassgrad.tensor([0.0]), glassgrad.tensor([1.0]))
        tensor(0.6931)
    """
    how = _reduction(reduction, size_average, reduce)
    check_tensor(input, "soft_margin_loss")
    check_tensor(target, "soft_margin_loss", "target", 2)
    check_no_requires_grad(target, "target", "soft_margin_loss")
    refuse_complex_autograd("soft_margin_loss", input)
    if input._data.shape != target._data.shape:
        x, t = np.broadcast_arrays(input._data, target._data)  # raises as PyTorch would
        if x.shape != input._data.shape:
            raise RuntimeError(
                f"The size of tensor a ({input._data.shape[-1]}) must match the size of tensor "
                f"b ({target._data.shape[-1]}) at non-singleton dimension "
                f"{input._data.ndim - 1}"
            )
        target = Tensor._from_array(np.ascontiguousarray(t))
    return SoftMarginLossBackward0.apply(input, target, reduction=how)


def cosine_embedding_loss(
    input1: Tensor,
    input2: Tensor,
    target: Tensor,
    margin: float = 0,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """``1 - cos(input1, input2)`` where ``target`` is 1, ``max(0, cos - margin)`` where it is
    -1 (cosine along the last dimension), reduced.

    Example::

        >>> F = glassgrad.nn.functional
        >>> x = glassgrad.tensor([[1.0, 0.0]])
        >>> F.cosine_embedding_loss(x, x, glassgrad.tensor([-1.0]))
        tensor(1.)
    """
    how = _reduction(reduction, size_average, reduce)
    targ_dim = target.dim()
    if targ_dim not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    wanted = 2 if targ_dim == 1 else 1
    if input1.dim() != wanted or input2.dim() != wanted:
        raise RuntimeError(
            f"{targ_dim}D target tensor expects {wanted}D input tensors, but found inputs with "
            f"sizes {list(input1.shape)} and {list(input2.shape)}."
        )
    prod_sum = reductions.sum(input1 * input2, targ_dim)
    mag_square1 = reductions.sum(input1 * input1, targ_dim) + _EPSILON
    mag_square2 = reductions.sum(input2 * input2, targ_dim) + _EPSILON
    denom = pointwise.sqrt(mag_square1 * mag_square2)
    cos = prod_sum / denom
    zeros = Tensor._from_array(np.zeros(cos._data.shape, cos._data.dtype))
    pos = arithmetic.rsub(cos, 1)
    neg = clamping.clamp_min(cos - margin, 0)
    output = pointwise.where(target == 1, pos, zeros) + pointwise.where(target == -1, neg, zeros)
    return _reduce(output, how)


def triplet_margin_loss(
    anchor: Tensor,
    positive: Tensor,
    negative: Tensor,
    margin: float = 1.0,
    p: float = 2,
    eps: float = 1e-6,
    swap: bool = False,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """``max(0, margin + d(anchor, positive) - d(anchor, negative))``, reduced, ``d`` the
    ``p``-norm pairwise distance (``swap``: also the positive-negative distance).

    Example::

        >>> F = glassgrad.nn.functional
        >>> a, p, n = glassgrad.zeros(1, 2), glassgrad.zeros(1, 2), glassgrad.ones(1, 2)
        >>> F.triplet_margin_loss(a, p, n, margin=2.0)
        tensor(0.5858)
    """
    how = _reduction(reduction, size_average, reduce)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    _check_triplet_dims(anchor, positive, negative, "aten")
    dist_pos = pairwise_distance(anchor, positive, p, eps)
    dist_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        dist_neg = clamping.minimum(dist_neg, pairwise_distance(positive, negative, p, eps))
    loss = clamping.clamp_min(dist_pos - dist_neg + margin, 0)
    return _reduce(loss, how)


def _check_triplet_dims(anchor: Tensor, positive: Tensor, negative: Tensor, where: str) -> None:
    dims = (anchor.dim(), positive.dim(), negative.dim())
    if len(set(dims)) != 1:
        if where == "aten":
            raise RuntimeError(
                "The anchor, positive, and negative tensors are expected to have the same "
                f"number of dimensions, but got: anchor {dims[0]}D, positive {dims[1]}D, and "
                f"negative {dims[2]}D inputs"
            )
        raise RuntimeError(
            "The anchor, positive, and negative tensors are expected to have the same number of "
            f"dimensions, but got: anchor {dims[0]}D, positive {dims[1]}D, and negative "
            f"{dims[2]}D inputs"
        )


def triplet_margin_with_distance_loss(
    anchor: Tensor,
    positive: Tensor,
    negative: Tensor,
    *,
    distance_function: Callable[[Tensor, Tensor], Tensor] | None = None,
    margin: float = 1.0,
    swap: bool = False,
    reduction: str = "mean",
) -> Tensor:
    """``triplet_margin_loss`` with any ``distance_function`` (default: pairwise distance).

    Example::

        >>> F = glassgrad.nn.functional
        >>> a, p, n = glassgrad.zeros(1, 2), glassgrad.zeros(1, 2), glassgrad.ones(1, 2)
        >>> F.triplet_margin_with_distance_loss(a, p, n, margin=2.0)
        tensor(0.5858)
    """
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    _check_triplet_dims(anchor, positive, negative, "python")
    distance = pairwise_distance if distance_function is None else distance_function
    dist_pos = distance(anchor, positive)
    dist_neg = distance(anchor, negative)
    if swap:
        dist_neg = clamping.minimum(dist_neg, distance(positive, negative))
    loss = clamping.clamp_min(dist_pos - dist_neg + margin, 0)
    return _reduce(loss, reduction)


def multilabel_soft_margin_loss(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """Per-class logistic loss averaged over the classes (last dimension), then reduced:
    ``-mean_c(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))``.

    Example::

        >>> F = glassgrad.nn.functional
        >>> F.multilabel_soft_margin_loss(glassgrad.zeros(1, 2), glassgrad.tensor([[1.0, 0.0]]))
        tensor(0.6931)
    """
    if size_average is not None or reduce is not None:
        reduction = _reduction(reduction, size_average, reduce)
    loss = -(target * logsigmoid(input) + arithmetic.rsub(target, 1) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    loss = reductions.sum(loss, class_dim) / input.size(class_dim)
    if reduction == "none":
        return loss
    if reduction == "mean":
        return reductions.mean(loss)
    if reduction == "sum":
        return reductions.sum(loss)
    raise ValueError(reduction + " is not valid")


def poisson_nll_loss(
    input: Tensor,
    target: Tensor,
    log_input: bool = True,
    full: bool = False,
    size_average: bool | None = None,
    eps: float = 1e-8,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """Poisson negative log likelihood: ``exp(input) - target * input`` (``log_input``) or
    ``input - target * log(input + eps)``, plus Stirling's term with ``full``, reduced.

    Example::

        >>> F = glassgrad.nn.functional
        >>> F.poisson_nll_loss(glassgrad.tensor([0.0]), glassgrad.tensor([2.0]))
        tensor(1.)
    """
    if size_average is not None or reduce is not None:
        reduction = _reduction(reduction, size_average, reduce)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not a valid value for reduction")
    if log_input:
        loss = pointwise.exp(input) - target * input
    else:
        loss = input - target * pointwise.log(input + eps)
    if full:
        stirling = (
            target * pointwise.log(target) - target + pointwise.log(target * (2 * math.pi)) * 0.5
        )
        loss = loss + stirling.masked_fill(target <= 1, 0)
    return _reduce(loss, reduction)


def gaussian_nll_loss(
    input: Tensor,
    target: Tensor,
    var: Tensor | float,
    full: bool = False,
    eps: float = 1e-6,
    reduction: str = "mean",
) -> Tensor:
    """Gaussian negative log likelihood ``0.5 * (log(var) + (input - target)**2 / var)`` (plus
    ``0.5 * log(2 pi)`` with ``full``), ``var`` clamped to ``eps`` without gradient, reduced.

    Example::

        >>> F = glassgrad.nn.functional
        >>> F.gaussian_nll_loss(glassgrad.tensor([1.0]), glassgrad.tensor([0.0]), 1.0)
        tensor(0.5000)
    """
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * Tensor._from_array(np.ones(input._data.shape, input._data.dtype))
    elif bool((var._data < 0).any()):
        raise ValueError("var has negative entry/entries")
    if var.shape != input.shape:
        if input.shape[:-1] == var.shape:
            var = var.unsqueeze(-1)
        elif input.dim() == var.dim() and (
            sum(y for x, y in zip(input.shape, var.shape) if x != y) == 1
        ):
            pass  # heteroscedastic: one variance for a dimension of size 1
        else:
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    var = var.clone()
    with no_grad():
        var.clamp_(min=eps)
    loss = (pointwise.log(var) + (input - target) ** 2 / var) * 0.5
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


# --- registry ---------------------------------------------------------------------------


def _signs(rng: np.random.Generator, *shape: int) -> np.ndarray:
    return np.where(rng.random(shape) < 0.5, -1.0, 1.0)


def _margin_ranking_samples(rng: np.random.Generator) -> list[Sample]:
    return [
        Sample((randn(rng, 6), randn(rng, 6), NoGrad(_signs(rng, 6)))),
        Sample(
            (randn(rng, 3, 4), randn(rng, 3, 4), NoGrad(_signs(rng, 3, 4))),
            {"margin": 0.5, "reduction": "none"},
        ),
        Sample((randn(rng, 5), randn(rng, 5), NoGrad(_signs(rng, 5))), {"reduction": "sum"}),
    ]


def _hinge_samples(rng: np.random.Generator) -> list[Sample]:
    return [
        Sample((randn(rng, 6), NoGrad(_signs(rng, 6)))),
        Sample(
            (2 * randn(rng, 3, 4), NoGrad(_signs(rng, 3, 4))), {"margin": 0.5, "reduction": "none"}
        ),
    ]


def _soft_margin_samples(rng: np.random.Generator) -> list[Sample]:
    return [
        Sample((randn(rng, 6), NoGrad(_signs(rng, 6)))),
        Sample((randn(rng, 3, 4), NoGrad(_signs(rng, 3, 4))), {"reduction": "none"}),
        Sample((randn(rng, 3, 4), NoGrad(_signs(rng, 3, 4))), {"reduction": "sum"}),
    ]


def _cosine_embedding_samples(rng: np.random.Generator) -> list[Sample]:
    return [
        Sample((randn(rng, 4, 3), randn(rng, 4, 3), NoGrad(_signs(rng, 4)))),
        Sample(
            (randn(rng, 4, 3), randn(rng, 4, 3), NoGrad(_signs(rng, 4))),
            {"margin": -0.5, "reduction": "none"},
        ),
        Sample((randn(rng, 3), randn(rng, 3), NoGrad(np.array(-1.0))), {"margin": 0.1}),
    ]


def _triplet_samples(rng: np.random.Generator) -> list[Sample]:
    return [
        Sample((randn(rng, 4, 3), randn(rng, 4, 3), randn(rng, 4, 3))),
        Sample(
            (randn(rng, 4, 3), randn(rng, 4, 3), randn(rng, 4, 3)),
            {"margin": 2.0, "p": 1.5, "swap": True, "reduction": "none"},
        ),
        Sample((randn(rng, 3), randn(rng, 3), randn(rng, 3)), {"margin": 3.0, "reduction": "sum"}),
    ]


def _triplet_distance_samples(rng: np.random.Generator) -> list[Sample]:
    return [
        Sample((randn(rng, 4, 3), randn(rng, 4, 3), randn(rng, 4, 3)), {"margin": 2.0}),
        Sample(
            (randn(rng, 4, 3), randn(rng, 4, 3), randn(rng, 4, 3)),
            {"margin": 3.0, "swap": True, "reduction": "none"},
        ),
    ]


def _multilabel_soft_margin_samples(rng: np.random.Generator) -> list[Sample]:
    labels = (rng.random((4, 3)) < 0.5).astype(np.float64)
    return [
        Sample((randn(rng, 4, 3), NoGrad(labels))),
        Sample((randn(rng, 4, 3), NoGrad(labels)), {"weight": randn(rng, 3), "reduction": "none"}),
        Sample((randn(rng, 4, 3), NoGrad(labels)), {"reduction": "sum"}),
    ]


def _poisson_samples(rng: np.random.Generator) -> list[Sample]:
    counts = rng.integers(0, 5, (3, 4)).astype(np.float64)
    return [
        Sample((randn(rng, 3, 4), NoGrad(counts))),
        Sample(
            (positive(rng, 3, 4) * 3, NoGrad(counts)), {"log_input": False, "reduction": "none"}
        ),
        Sample((positive(rng, 3, 4) * 3, NoGrad(counts + 1)), {"log_input": False, "full": True}),
        Sample((randn(rng, 3, 4), NoGrad(counts + 1)), {"full": True, "reduction": "sum"}),
    ]


def _gaussian_samples(rng: np.random.Generator) -> list[Sample]:
    return [
        Sample((randn(rng, 3, 4), randn(rng, 3, 4), positive(rng, 3, 4))),
        Sample((randn(rng, 3, 4), randn(rng, 3, 4), positive(rng, 3)), {"reduction": "none"}),
        Sample((randn(rng, 3, 4), randn(rng, 3, 4), positive(rng, 3, 1)), {"full": True}),
        Sample((randn(rng, 3, 4), randn(rng, 3, 4), 0.5), {"reduction": "sum", "eps": 1e-3}),
    ]


_NF = "nn.functional"
for _fn, _samples in (
    (margin_ranking_loss, _margin_ranking_samples),
    (hinge_embedding_loss, _hinge_samples),
    (cosine_embedding_loss, _cosine_embedding_samples),
    (triplet_margin_loss, _triplet_samples),
    (triplet_margin_with_distance_loss, _triplet_distance_samples),
    (multilabel_soft_margin_loss, _multilabel_soft_margin_samples),
    (poisson_nll_loss, _poisson_samples),
    (gaussian_nll_loss, _gaussian_samples),
):
    register(_fn.__name__, _fn, samples=_samples, namespace=_NF)
register(
    "soft_margin_loss",
    soft_margin_loss,
    nodes=(SoftMarginLossBackward0,),
    samples=_soft_margin_samples,
    namespace=_NF,
)

__all__ = [
    "margin_ranking_loss",
    "hinge_embedding_loss",
    "soft_margin_loss",
    "cosine_embedding_loss",
    "triplet_margin_loss",
    "triplet_margin_with_distance_loss",
    "multilabel_soft_margin_loss",
    "poisson_nll_loss",
    "gaussian_nll_loss",
]
