"""``nn.functional``'s regression losses: mse_loss, l1_loss, smooth_l1_loss and huber_loss, and
the reduction helpers every loss module shares (``reduction=``, the legacy ``size_average`` /
``reduce``). Classification losses are in ``nn_loss_classification.py``, the losses on
probabilities in ``nn_loss_probabilistic.py``, the margin losses in ``nn_loss_margin.py``.

Losses PyTorch computes in one kernel are one Node here (``MseLossBackward0`` ...), with the
reduction inside; losses PyTorch builds from other ops (``l1_loss``) are built from the same
ops, so the recorded graphs match.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from .._dtype import scalar_type_name
from .._tensor import Tensor
from ..autograd.op import Op
from . import arithmetic, division, pointwise, powers
from . import reduction as reduce_ops
from ._common import array_of, binary_operands, check_tensor
from ._namespace import ArrayNamespace
from ._not_implemented import check_no_requires_grad
from ._registry import NoGrad, Sample, register
from ._samples import positive, randn
from .nn_similarity import _broadcast_pair

__all__ = ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss"]


_REDUCTIONS = ("none", "mean", "sum")


# --- reduction arguments -----------------------------------------------------------------------


def _legacy_reduction(size_average: bool | None, reduce: bool | None) -> str:
    """PyTorch's mapping of the deprecated ``size_average``/``reduce`` pair to ``reduction``."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    result = ("mean" if size_average else "sum") if reduce else "none"
    warnings.warn(
        f"size_average and reduce args will be deprecated, please use reduction='{result}' "
        "instead.",
        UserWarning,
        stacklevel=4,
    )
    return result


def _reduction(
    reduction: str,
    size_average: bool | None = None,
    reduce: bool | None = None,
    allowed: tuple = _REDUCTIONS,
) -> str:
    """The effective reduction, checked against ``allowed``."""
    if size_average is not None or reduce is not None:
        return _legacy_reduction(size_average, reduce)
    if reduction == "elementwise_mean":
        warnings.warn(
            "reduction='elementwise_mean' is deprecated, please use reduction='mean' instead.",
            UserWarning,
            stacklevel=4,
        )
        return "mean"
    if reduction not in allowed:
        raise ValueError(
            f"{reduction} is not a valid value for reduction (expected one of "
            f"{', '.join(map(repr, allowed))})"
        )
    return reduction


def _reduce(loss: Tensor, how: str) -> Tensor:
    """Apply a reduction to an elementwise loss (MeanBackward0 / SumBackward0, as PyTorch)."""
    if how == "mean":
        return reduce_ops.mean(loss)
    if how == "sum":
        return reduce_ops.sum(loss)
    return loss


def _reduce_array(loss: np.ndarray, how: str) -> np.ndarray:
    if how == "none":
        return loss
    total = np.sum(loss)
    if how == "sum":
        return np.asarray(total)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.asarray(total / loss.size, dtype=loss.dtype)


def _grad_scale(how: str, numel: int) -> float:
    """The factor a mean reduction puts on each element's gradient."""
    return 1.0 / numel if how == "mean" and numel else 1.0


def _size_warning(input: Tensor, target: Tensor) -> None:
    if input._data.shape != target._data.shape:
        warnings.warn(
            f"Using a target size ({list(target._data.shape)}) that is different to the input "
            f"size ({list(input._data.shape)}). This will likely lead to incorrect results due "
            "to broadcasting. Please ensure they have the same size.",
            UserWarning,
            stacklevel=3,
        )


def _check_floating_loss(op: str, kernel: str, *arrays: np.ndarray) -> None:
    for a in arrays:
        if a.dtype.kind != "f":
            raise NotImplementedError(
                f"{op}: \"{kernel}\" not implemented for '{scalar_type_name(a.dtype)}' (expected "
                f"floating point inputs, got dtype {a.dtype})"
            )


def _expanded(op: str, input: Tensor, target: Tensor) -> tuple:
    """``broadcast_tensors(input, target)``, with the op named in a mismatch error."""
    return _broadcast_pair(input, target, op, expand_all=False)


def _constant_weight(op: str, kernel: str, name: str, weight: Tensor | None) -> Any:
    """A weight that must not require grad (PyTorch's rule), as its array."""
    if weight is None:
        return None
    check_tensor(weight, op, name)
    check_no_requires_grad(weight, name, kernel)
    return weight._data


def _weighted(
    op: str, elementwise: Tensor, input: Tensor, weight: Tensor, how: str, mean_by_weight: bool
) -> Tensor:
    """PyTorch's Python path for a ``weight=`` on mse/l1/huber: multiply, then reduce."""
    if weight._data.shape != input._data.shape:
        raise ValueError(
            f"{op}: Weights and input must have the same size (got weight "
            f"{list(weight._data.shape)}, input {list(input._data.shape)})."
        )
    loss = arithmetic.mul(elementwise, weight)
    if how == "mean" and mean_by_weight:
        return division.div(reduce_ops.sum(loss), reduce_ops.sum(weight))
    return _reduce(loss, how)


# --- regression losses -------------------------------------------------------------------------


class MseLossBackward0(Op):
    """out = reduce((x - t)^2)"""

    reduction: Any

    saved_inputs: tuple[int, ...] = (0, 1)
    __slots__ = ("reduction",)

    def forward(self, x: Any, t: Any, reduction: Any = "mean") -> Any:
        x, t = binary_operands(x, t)
        _check_floating_loss("mse_loss", "mse_cpu", x)
        self.reduction = reduction
        d = x - t
        return _reduce_array(d * d, reduction)

    def backward(self, F: Any, grad: Any) -> Any:
        x, t = self.saved
        reduction, needs = self.reduction, self.needs_input_grad
        # derivatives.yaml: mse_loss_backward(grad, self, target) for the input and (grad,
        # target, self) for the target, two nodes under create_graph.
        grad_x = (
            MseLossBackwardBackward0.call(grad, x, t, reduction=reduction) if needs[0] else None
        )
        grad_t = (
            MseLossBackwardBackward0.call(grad, t, x, reduction=reduction) if needs[1] else None
        )
        return grad_x, grad_t


class MseLossBackwardBackward0(Op):
    """PyTorch's ``mse_loss_backward(grad, x, t)``: ``grad`` times the reduction's scale times
    2 (x - t). Its gradients are derivatives.yaml's: itself again for ``grad``,
    ``mse_loss_double_backward(gg * grad)`` (2 gg grad, over the element count for a mean) for
    x and minus that for t."""

    reduction: Any

    saved_inputs: tuple[int, ...] = (0, 1, 2)
    saved_for: tuple[tuple[int, ...], ...] = ((1, 2), (0, 1, 2), (0, 1, 2))
    __slots__ = ("reduction",)

    def forward(self, grad: Any, x: Any, t: Any, reduction: Any) -> Any:
        self.reduction = reduction
        return grad * (2.0 * _grad_scale(reduction, x.size)) * (x - t)

    def backward(self, F: Any, gg: Any) -> Any:
        grad, x, t = self.saved
        needs, reduction = self.needs_input_grad, self.reduction
        d_grad = d_x = d_t = None
        if needs[0]:
            d_grad = MseLossBackwardBackward0.call(gg, x, t, reduction=reduction)
        if needs[1] or needs[2]:
            inner = 2.0 * (gg * grad)
            if reduction == "mean":
                inner = inner / array_of(x).size
            d_x = inner if needs[1] else None
            d_t = -inner if needs[2] else None
        return d_grad, d_x, d_t


class SmoothL1LossBackward0(Op):
    """out = reduce(0.5 d^2 / beta if |d| < beta else |d| - 0.5 beta), d = x - t"""

    beta: Any
    reduction: Any

    saved_inputs: tuple[int, ...] = (0, 1)
    __slots__ = ("reduction", "beta")

    def forward(self, x: Any, t: Any, reduction: Any = "mean", beta: Any = 1.0) -> Any:
        x, t = binary_operands(x, t)
        _check_floating_loss("smooth_l1_loss", "smooth_l1_cpu", x)
        self.reduction, self.beta = reduction, beta
        d = np.abs(x - t)
        return _reduce_array(np.where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta), reduction)

    def backward(self, F: Any, grad: Any) -> Any:
        x, t = self.saved
        params = {"reduction": self.reduction, "beta": self.beta}
        needs = self.needs_input_grad
        # derivatives.yaml: smooth_l1_loss_backward(grad, self, target) for the input and
        # (grad, target, self) for the target, two nodes under create_graph.
        grad_x = SmoothL1LossBackwardBackward0.call(grad, x, t, **params) if needs[0] else None
        grad_t = SmoothL1LossBackwardBackward0.call(grad, t, x, **params) if needs[1] else None
        return grad_x, grad_t


class SmoothL1LossBackwardBackward0(Op):
    """PyTorch's ``smooth_l1_loss_backward(grad, x, t)``: ``grad`` times the reduction's
    scale times -1, (x - t) / beta or 1 (its kernel tests the bounds, so a NaN difference
    takes the inner branch, NaN). Its gradients are derivatives.yaml's: itself again for
    ``grad``, ``smooth_l1_loss_double_backward(gg * grad)`` for x and minus that for t."""

    beta: Any
    reduction: Any

    saved_inputs: tuple[int, ...] = (0, 1, 2)
    saved_for: tuple[tuple[int, ...], ...] = ((1, 2), (0, 1, 2), (0, 1, 2))
    __slots__ = ("reduction", "beta")

    def forward(self, grad: Any, x: Any, t: Any, reduction: Any, beta: Any) -> Any:
        self.reduction, self.beta = reduction, beta
        d = x - t
        slope = np.where(d <= -beta, -1.0, np.where(d >= beta, 1.0, d / beta))
        return grad * _grad_scale(reduction, x.size) * slope.astype(d.dtype, copy=False)

    def backward(self, F: Any, gg: Any) -> Any:
        grad, x, t = self.saved
        needs, reduction, beta = self.needs_input_grad, self.reduction, self.beta
        d_grad = d_x = d_t = None
        if needs[0]:
            d_grad = SmoothL1LossBackwardBackward0.call(gg, x, t, reduction=reduction, beta=beta)
        if needs[1] or needs[2]:
            # smooth_l1_loss_double_backward: gg * grad * (|x - t| < beta) / beta, divided by
            # the element count for a mean (beta is not 0: smooth_l1_loss is l1_loss then).
            inner = gg * grad * _inner_mask(F, x, t, beta, gg) / beta
            if reduction == "mean":
                inner = inner / array_of(x).size
            d_x = inner if needs[1] else None
            d_t = -inner if needs[2] else None
        return d_grad, d_x, d_t


def _inner_mask(F: Any, x: Any, t: Any, bound: float, like: Any) -> Any:
    """``(|x - t| < bound)`` in ``like``'s dtype: a constant of the double backwards."""
    mask = (np.abs(array_of(x) - array_of(t)) < bound).astype(array_of(like).dtype)
    return mask if F is ArrayNamespace else Tensor._from_array(mask)


class HuberLossBackward0(Op):
    """out = reduce(0.5 d^2 if |d| < delta else delta (|d| - 0.5 delta)), d = x - t"""

    delta: Any
    reduction: Any

    saved_inputs: tuple[int, ...] = (0, 1)
    __slots__ = ("reduction", "delta")

    def forward(self, x: Any, t: Any, reduction: Any = "mean", delta: Any = 1.0) -> Any:
        dtype = x.dtype  # PyTorch's kernel writes into a tensor like the input
        x, t = binary_operands(x, t)
        _check_floating_loss("huber_loss", "huber_cpu", x)
        self.reduction, self.delta = reduction, delta
        d = np.abs(x - t)
        loss = np.where(d < delta, 0.5 * d * d, delta * (d - 0.5 * delta))
        return _reduce_array(loss.astype(dtype, copy=False), reduction)

    def backward(self, F: Any, grad: Any) -> Any:
        x, t = self.saved
        x_dtype, t_dtype = array_of(x).dtype, array_of(t).dtype
        if x_dtype != t_dtype:
            # PyTorch's backward kernel writes into a gradient like the input and refuses a
            # target of another dtype (its forward allows it).
            raise RuntimeError(
                f"Found dtype {scalar_type_name(t_dtype)} but expected {scalar_type_name(x_dtype)}"
            )
        params = {"reduction": self.reduction, "delta": self.delta}
        needs = self.needs_input_grad
        # derivatives.yaml: huber_loss_backward(grad, self, target) for the input and
        # (grad, target, self) for the target, two nodes under create_graph.
        grad_x = HuberLossBackwardBackward0.call(grad, x, t, **params) if needs[0] else None
        grad_t = HuberLossBackwardBackward0.call(grad, t, x, **params) if needs[1] else None
        return grad_x, grad_t


class HuberLossBackwardBackward0(Op):
    """PyTorch's ``huber_loss_backward(grad, x, t)``: ``grad`` times the reduction's scale
    times -delta, x - t or delta. Its gradients are derivatives.yaml's:
    ``huber_loss_double_backward_grad_output`` for ``grad``,
    ``huber_loss_double_backward(gg * grad)`` for x and minus that for t."""

    delta: Any
    reduction: Any

    saved_inputs: tuple[int, ...] = (0, 1, 2)
    saved_for: tuple[tuple[int, ...], ...] = ((0, 1, 2), (0, 1, 2), (0, 1, 2))
    __slots__ = ("reduction", "delta")

    def forward(self, grad: Any, x: Any, t: Any, reduction: Any, delta: Any) -> Any:
        self.reduction, self.delta = reduction, delta
        d = x - t
        slope = np.where(d < -delta, -delta, np.where(d > delta, delta, d))
        return grad * _grad_scale(reduction, x.size) * slope.astype(d.dtype, copy=False)

    def backward(self, F: Any, gg: Any) -> Any:
        grad, x, t = self.saved
        needs, reduction, delta = self.needs_input_grad, self.reduction, self.delta
        d_grad = d_x = d_t = None
        if needs[0]:  # huber_loss_double_backward_grad_output
            if reduction == "none":
                d_grad = HuberLossBackwardBackward0.call(gg, x, t, reduction=reduction, delta=delta)
            else:
                ones = np.ones(np.shape(array_of(grad)), array_of(grad).dtype)
                slope = HuberLossBackwardBackward0.call(
                    ones, x, t, reduction=reduction, delta=delta
                )
                d_grad = F.sum(slope * gg)
        if needs[1] or needs[2]:  # huber_loss_double_backward: gg * grad * (|x - t| < delta)
            inner = gg * grad * _inner_mask(F, x, t, delta, gg)
            if reduction == "mean":
                inner = inner / array_of(x).size
            d_x = inner if needs[1] else None
            d_t = -inner if needs[2] else None
        return d_grad, d_x, d_t


def mse_loss(
    input: Tensor,
    target: Tensor,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
    weight: Tensor | None = None,
) -> Tensor:
    """Mean squared error, ``reduce((input - target)^2)`` (``weight``: elementwise factors;
    the mean then divides by ``sum(weight)``).

    Example::

        >>> F = glassgrad.nn.functional
        >>> F.mse_loss(glassgrad.tensor([1.0, 2.0]), glassgrad.tensor([0.0, 0.0]))
        tensor(2.5000)
    """
    check_tensor(input, "mse_loss")
    check_tensor(target, "mse_loss", "target", 2)
    _size_warning(input, target)
    how = _reduction(reduction, size_average, reduce)
    x, t = _expanded("mse_loss", input, target)
    if weight is not None:
        squared = powers.pow(arithmetic.sub(x, t), 2)
        return _weighted("mse_loss", squared, input, weight, how, mean_by_weight=True)
    return MseLossBackward0.apply(x, t, reduction=how)


def l1_loss(
    input: Tensor,
    target: Tensor,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
    weight: Tensor | None = None,
) -> Tensor:
    """Mean absolute error, ``reduce(|input - target|)`` (built from sub, abs and the
    reduction, as PyTorch records it; the gradient at a tie is 0).

    Example::

        >>> F = glassgrad.nn.functional
        >>> F.l1_loss(glassgrad.tensor([1.0, -2.0]), glassgrad.tensor([0.0, 0.0]))
        tensor(1.5000)
    """
    check_tensor(input, "l1_loss")
    check_tensor(target, "l1_loss", "target", 2)
    _size_warning(input, target)
    how = _reduction(reduction, size_average, reduce)
    x, t = _expanded("l1_loss", input, target)
    difference = binary_operands(x._data, t._data)[0]
    if difference.dtype.kind != "c":  # complex: |input - target| is real, as in PyTorch
        _check_floating_loss("l1_loss", "abs_cpu", difference)
    absolute = pointwise.abs(arithmetic.sub(x, t))
    if weight is not None:
        return _weighted("l1_loss", absolute, input, weight, how, mean_by_weight=True)
    return _reduce(absolute, how)


def smooth_l1_loss(
    input: Tensor,
    target: Tensor,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
    beta: float = 1.0,
) -> Tensor:
    """``0.5 d^2 / beta`` where ``|d| < beta``, else ``|d| - 0.5 beta`` (d = input - target);
    ``beta=0`` is ``l1_loss``.

    Example::

        >>> F = glassgrad.nn.functional
        >>> F.smooth_l1_loss(glassgrad.tensor([0.5, 3.0]), glassgrad.tensor([0.0, 0.0]))
        tensor(1.3125)
    """
    check_tensor(input, "smooth_l1_loss")
    check_tensor(target, "smooth_l1_loss", "target", 2)
    _size_warning(input, target)
    how = _reduction(reduction, size_average, reduce)
    if beta < 0:
        raise RuntimeError(
            f"smooth_l1_loss does not support negative values for beta. (got beta={beta})"
        )
    if beta == 0.0:
        return l1_loss(input, target, reduction=how)
    x, t = _expanded("smooth_l1_loss", input, target)
    return SmoothL1LossBackward0.apply(x, t, reduction=how, beta=beta)


def huber_loss(
    input: Tensor,
    target: Tensor,
    reduction: str = "mean",
    delta: float = 1.0,
    weight: Tensor | None = None,
) -> Tensor:
    """``0.5 d^2`` where ``|d| < delta``, else ``delta (|d| - 0.5 delta)`` (d = input - target).

    Example::

        >>> F = glassgrad.nn.functional
        >>> F.huber_loss(glassgrad.tensor([0.5, 3.0]), glassgrad.tensor([0.0, 0.0]))
        tensor(1.3125)
    """
    check_tensor(input, "huber_loss")
    check_tensor(target, "huber_loss", "target", 2)
    _size_warning(input, target)
    how = _reduction(reduction)
    if delta <= 0:
        raise RuntimeError(
            f"huber_loss does not support non-positive values for delta. (got delta={delta})"
        )
    x, t = _expanded("huber_loss", input, target)
    if weight is not None:
        elementwise = HuberLossBackward0.apply(x, t, reduction="none", delta=delta)
        return _weighted("huber_loss", elementwise, input, weight, how, mean_by_weight=False)
    return HuberLossBackward0.apply(x, t, reduction=how, delta=delta)


# --- registry ----------------------------------------------------------------------------------

NN = "nn.functional"


def _probabilities(rng: np.random.Generator, *shape: int) -> np.ndarray:
    """Values in (0.05, 0.95): inside binary_cross_entropy's domain, away from its clamps."""
    return np.asarray(0.05 + 0.9 * (1.0 - positive(rng, *shape)))


def _regression_samples(rng: np.random.Generator) -> list[Sample]:
    return [
        Sample((randn(rng, 3, 4), randn(rng, 3, 4))),
        Sample((randn(rng, 3, 4), NoGrad(randn(rng, 3, 4))), {"reduction": "sum"}),
        Sample((randn(rng, 3, 4), randn(rng, 3, 4)), {"reduction": "none"}),
        Sample((randn(rng, 4, 3).T, randn(rng, 3, 4)), note="non-contiguous"),
        Sample((randn(rng), randn(rng))),
        Sample((randn(rng, 3, 4), randn(rng, 4)), note="target broadcast"),
    ]


def _weighted_samples(rng: np.random.Generator) -> list[Sample]:
    return [
        Sample((randn(rng, 3, 4), randn(rng, 3, 4)), {"weight": positive(rng, 3, 4)}),
        Sample(
            (randn(rng, 3, 4), randn(rng, 3, 4)),
            {"weight": NoGrad(positive(rng, 3, 4)), "reduction": "sum"},
        ),
        Sample(
            (randn(rng, 3, 4), randn(rng, 3, 4)),
            {"weight": positive(rng, 3, 4), "reduction": "none"},
        ),
    ]


register(
    "mse_loss",
    mse_loss,
    nodes=(MseLossBackward0,),
    namespace=NN,
    samples=lambda rng: [*_regression_samples(rng), *_weighted_samples(rng)],
)


register(
    "l1_loss",
    l1_loss,
    namespace=NN,
    samples=lambda rng: [*_regression_samples(rng), *_weighted_samples(rng)],
)


register(
    "smooth_l1_loss",
    smooth_l1_loss,
    nodes=(SmoothL1LossBackward0,),
    namespace=NN,
    samples=lambda rng: [
        *_regression_samples(rng),
        Sample((randn(rng, 3, 4), randn(rng, 3, 4)), {"beta": 0.5}),
        Sample((randn(rng, 3, 4), randn(rng, 3, 4)), {"beta": 2.0, "reduction": "sum"}),
        Sample((randn(rng, 3, 4), randn(rng, 3, 4)), {"beta": 0.0}),
    ],
)


register(
    "huber_loss",
    huber_loss,
    nodes=(HuberLossBackward0,),
    namespace=NN,
    samples=lambda rng: [
        *_regression_samples(rng),
        Sample((randn(rng, 3, 4), randn(rng, 3, 4)), {"delta": 0.5}),
        Sample((randn(rng, 3, 4), randn(rng, 3, 4)), {"delta": 2.0, "reduction": "sum"}),
        *_weighted_samples(rng),
    ],
)
