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
        scale = 2.0 * _grad_scale(self.reduction, array_of(x).size)
        g = grad * scale * (x - t)
        needs = self.needs_input_grad
        return g if needs[0] else None, -g if needs[1] else None


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
        d = x - t
        dv = array_of(x) - array_of(t)
        # PyTorch's kernel tests the bounds, so a NaN difference takes the inner branch
        # (d / beta: NaN), not a sign; its double backward's slope is (|d| < beta) / beta,
        # 0 at a NaN, so there the inner branch is d's value only, outside the graph.
        inner = F.where(np.abs(dv) < self.beta, d, dv) / self.beta
        slope = F.where(dv <= -self.beta, -1.0, F.where(dv >= self.beta, 1.0, inner))
        g = grad * _grad_scale(self.reduction, array_of(x).size) * slope
        needs = self.needs_input_grad
        return g if needs[0] else None, -g if needs[1] else None


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
        dv = array_of(x) - array_of(t)
        # d itself inside [-delta, delta], the bound outside (PyTorch's kernel); d depends on
        # the inputs only where |d| < delta, the mask of PyTorch's huber_loss_double_backward
        # (at |d| == delta, or NaN, the second derivative is 0).
        d = F.where(np.abs(dv) < self.delta, x - t, dv)
        slope = F.where(dv < -self.delta, -self.delta, F.where(dv > self.delta, self.delta, d))
        g = grad * _grad_scale(self.reduction, array_of(x).size) * slope
        needs = self.needs_input_grad
        return g if needs[0] else None, -g if needs[1] else None


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
