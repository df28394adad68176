"""``nn.functional``'s losses on probabilities: ``binary_cross_entropy`` (each log term
clamped at -100, as PyTorch), ``binary_cross_entropy_with_logits`` (with ``pos_weight``) and
``kl_div`` (built from xlogy and the other ops PyTorch uses).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from .._dtype import scalar_type_name
from .._strides import keeps_operand_layout
from .._tensor import Tensor
from ..autograd.op import Op, keep_versions
from . import arithmetic, division, pointwise
from . import reduction as reduce_ops
from ._common import array_of, broadcast_error, check_tensor
from ._registry import NoGrad, Sample, register
from ._samples import positive, randn
from .nn_activation import call_op
from .nn_activation_smooth import LogSigmoidBackward0
from .nn_loss import (
    _REDUCTIONS,
    NN,
    _check_floating_loss,
    _constant_weight,
    _grad_scale,
    _legacy_reduction,
    _probabilities,
    _reduce,
    _reduce_array,
    _reduction,
)
from .nn_loss_classification import _rows_of_probabilities
from .special import LogitBackward0
from .special_xlogy import XlogyBackward0

__all__ = ["binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div"]


# --- binary cross entropy ----------------------------------------------------------------------

_LOG_FLOOR = -100.0  # PyTorch clamps each log term of binary_cross_entropy at -100


_BCE_EPS = 1e-12  # the double backward formulas' eps
# The first backward kernel's EPSILON is a float literal: 1e-12 rounded to float32.
_BCE_KERNEL_EPS = float(np.float32(1e-12))


class BinaryCrossEntropyBackward0(Op):
    """out = reduce(-w (t log x + (1 - t) log(1 - x))), each log clamped at -100"""

    reduction: Any
    weight: Any | None

    saved_inputs: tuple[int, ...] = (0, 1)
    __slots__ = ("reduction", "weight")

    @keeps_operand_layout
    def forward(self, x: Any, t: Any, weight: Any = None, reduction: Any = "mean") -> Any:
        if weight is not None:
            weight = np.broadcast_to(weight._data, x.shape).astype(x.dtype, copy=False)
        self.reduction, self.weight = reduction, weight
        with np.errstate(divide="ignore"):
            log_x = np.maximum(np.log(x), _LOG_FLOOR)
            log_1mx = np.maximum(np.log1p(-x), _LOG_FLOOR)
        loss = -(t * log_x + (1.0 - t) * log_1mx)
        if weight is not None:
            loss = loss * weight
        return _reduce_array(loss, reduction)

    def backward(self, F: Any, grad: Any) -> Any:
        x, t = self.saved
        xv = array_of(x)
        needs = self.needs_input_grad
        grad_x = grad_t = None
        if needs[0]:
            grad_x = BinaryCrossEntropyBackwardBackward0.call(
                grad, x, t, weight=self.weight, reduction=self.reduction
            )
        if needs[1]:
            # PyTorch's binary_cross_entropy_target_backward: -logit(x) grad, times the weight,
            # over the count for a mean (its derivative in x is logit's: dy * inf at 0).
            with np.errstate(divide="ignore"):
                grad_t = -LogitBackward0.call(x) * grad
            if self.weight is not None:
                grad_t = grad_t * self.weight
            if self.reduction == "mean":
                grad_t = grad_t / xv.size
        return grad_x, grad_t


class BinaryCrossEntropyBackwardBackward0(Op):
    """PyTorch's ``binary_cross_entropy_backward(grad, x, t)``: grad (x - t) / max(x (1 - x),
    eps), times the weight, over the count for a mean. Its gradients are derivatives.yaml's
    (``binary_cross_entropy_double_backward`` and its ``_grad_output`` and ``_target``
    kin), whose denominators add eps to x and 1 - x instead of clamping."""

    reduction: Any
    weight: Any | None

    saved_inputs: tuple[int, ...] = (0, 1, 2)
    saved_for: tuple[tuple[int, ...], ...] = ((1, 2), (0, 1, 2), (0, 1))
    __slots__ = ("reduction", "weight")

    def forward(self, grad: Any, x: Any, t: Any, weight: Any, reduction: Any) -> Any:
        self.reduction, self.weight = reduction, weight
        out = grad * (x - t) / np.maximum((1.0 - x) * x, x.dtype.type(_BCE_KERNEL_EPS))
        if weight is not None:
            out = out * weight
        return out / x.size if reduction == "mean" else out

    def backward(self, F: Any, gg: Any) -> Any:
        grad, x, t = self.saved
        needs, weight = self.needs_input_grad, self.weight
        xv = array_of(x)
        d_grad = d_x = d_t = None
        if needs[0]:
            d_grad = (x - t) / ((x + _BCE_EPS) * (1.0 - x + _BCE_EPS)) * gg
        if needs[1]:
            above, below = x + _BCE_EPS, 1.0 - x + _BCE_EPS
            d_x = (x * x - 2.0 * x * t + t) / ((above * above) * (below * below)) * (gg * grad)
        if needs[2]:
            d_t = -gg * grad
            if weight is not None:
                d_t = d_t * weight
            d_t = d_t / np.maximum((1.0 - xv) * xv, _BCE_EPS)  # clamped outside the graph
        if weight is not None:
            d_grad = None if d_grad is None else d_grad * weight
            d_x = None if d_x is None else d_x * weight
        if self.reduction == "mean":
            d_grad, d_x, d_t = (None if d is None else d / xv.size for d in (d_grad, d_x, d_t))
        return d_grad, d_x, d_t


def binary_cross_entropy(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """``-w (t log(x) + (1 - t) log(1 - x))`` for probabilities ``x`` in [0, 1], each log
    clamped at -100 (as PyTorch). ``weight`` broadcasts to the input.

    Example::

        >>> F = glassgrad.nn.functional
        >>> F.binary_cross_entropy(glassgrad.tensor([0.5]), glassgrad.tensor([1.0]))
        tensor(0.6931)
    """
    op = "binary_cross_entropy"
    check_tensor(input, op)
    check_tensor(target, op, "target", 2)
    how = _reduction(reduction, size_average, reduce)
    x, t = input._data, target._data
    if x.shape != t.shape:
        raise ValueError(
            f"{op}: Using a target size ({list(t.shape)}) that is different to the input size "
            f"({list(x.shape)}) is deprecated. Please ensure they have the same size."
        )
    _check_floating_loss(op, "binary_cross_entropy", x)
    if t.dtype != x.dtype:
        raise RuntimeError(
            f"{op}: Found dtype {scalar_type_name(t.dtype)} but expected {scalar_type_name(x.dtype)} "
            "(target dtype must match input dtype)"
        )
    for name, values in (("input", x), ("target", t)):
        outside = ~((values >= 0) & (values <= 1))
        if outside.any():
            raise RuntimeError(
                f"{op}: all elements of {name} should be between 0 and 1 (found "
                f"{float(values[outside].flat[0])})"
            )
    w = _constant_weight(op, op, "weight", weight)
    if w is not None:
        try:
            np.broadcast_shapes(w.shape, x.shape)
        except ValueError:
            raise broadcast_error(op, w, x) from None
    # The weight (a tensor without an edge) is saved as PyTorch saves it.
    return keep_versions(
        BinaryCrossEntropyBackward0.apply(input, target, weight=weight, reduction=how), weight
    )


class BinaryCrossEntropyWithLogitsBackward0(Op):
    """out = reduce(w ((1 - t) x - (1 + (pw - 1) t) log_sigmoid(x))): finite at any |x|

    Computed step by step as PyTorch computes it, in place into ``1 - t``: the result has the
    target's dtype (and ``log_sigmoid(x)`` the input's), whatever the other operands' dtypes.
    """

    pos_weight: Any
    reduction: Any
    weight: Any

    saved_inputs: tuple[int, ...] = (0, 1)
    __slots__ = ("reduction", "weight", "pos_weight")

    def forward(
        self, x: Any, t: Any, weight: Any = None, pos_weight: Any = None, reduction: Any = "mean"
    ) -> Any:
        weight = None if weight is None else weight._data
        pos_weight = None if pos_weight is None else pos_weight._data
        self.reduction, self.weight, self.pos_weight = reduction, weight, pos_weight
        log_sigmoid = np.negative(np.logaddexp(0.0, -x)).astype(x.dtype, copy=False)
        if pos_weight is not None:
            log_sigmoid = (log_sigmoid * ((pos_weight - 1) * t + 1)).astype(x.dtype, copy=False)
        loss = np.subtract(1, t, dtype=t.dtype)
        loss = (loss * x).astype(t.dtype, copy=False)
        loss = (loss - log_sigmoid).astype(t.dtype, copy=False)
        if weight is not None:
            loss = (loss * weight).astype(t.dtype, copy=False)
        return _reduce_array(loss, reduction)

    def backward(self, F: Any, grad: Any) -> Any:
        x, t = self.saved
        scale = grad * _grad_scale(self.reduction, array_of(x).size)
        if self.weight is not None:
            scale = scale * self.weight
        pw = self.pos_weight
        needs = self.needs_input_grad
        grad_x = grad_t = None
        if needs[0]:
            s = call_op(F, pointwise.SigmoidBackward0, x)
            if pw is None:
                grad_x = scale * (s - t)
            else:
                weighted_t = t * pw
                grad_x = scale * ((weighted_t + 1.0 - t) * s - weighted_t)
        if needs[1]:
            if pw is None:
                grad_t = scale * -x
            else:
                log_sig = call_op(F, LogSigmoidBackward0, x)
                log_sig_neg = call_op(F, LogSigmoidBackward0, -x)
                grad_t = scale * (log_sig_neg - log_sig * pw)
        return grad_x, grad_t


def binary_cross_entropy_with_logits(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
    pos_weight: Tensor | None = None,
) -> Tensor:
    """``w ((1 - t) x + (1 + (pos_weight - 1) t) log(1 + exp(-x)))`` for logits ``x``:
    ``binary_cross_entropy(sigmoid(x), t)`` computed stably (finite at |x| = 1e4).

    ``pos_weight`` (broadcast along the last dimension) weighs the positive term.

    Example::

        >>> F = glassgrad.nn.functional
        >>> F.binary_cross_entropy_with_logits(glassgrad.tensor([0.0]), glassgrad.tensor([1.0]))
        tensor(0.6931)
    """
    op = "binary_cross_entropy_with_logits"
    check_tensor(input, op)
    check_tensor(target, op, "target", 2)
    how = _reduction(reduction, size_average, reduce)
    x, t = input._data, target._data
    if x.shape != t.shape:
        raise ValueError(
            f"{op}: Target size ({list(t.shape)}) must be the same as input size ({list(x.shape)})"
        )
    _check_floating_loss(op, op, x)
    if t.dtype.kind != "f":
        raise RuntimeError(
            f"{op}: expected a floating point target, got {scalar_type_name(t.dtype)} (result type "
            f"{scalar_type_name(x.dtype)} can't be cast to the desired output type "
            f"{scalar_type_name(t.dtype)})"
        )
    for name, value in (("weight", weight), ("pos_weight", pos_weight)):
        a = _constant_weight(op, op, name, value)
        if a is not None:
            try:
                np.broadcast_shapes(a.shape, x.shape)
            except ValueError:
                raise broadcast_error(op, a, x) from None
    # The weights (tensors without an edge) are saved as PyTorch saves them.
    out = BinaryCrossEntropyWithLogitsBackward0.apply(
        input, target, weight=weight, pos_weight=pos_weight, reduction=how
    )
    return keep_versions(out, weight, pos_weight)


# --- Kullback-Leibler divergence ---------------------------------------------------------------


def kl_div(
    input: Tensor,
    target: Tensor,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
    log_target: bool = False,
) -> Tensor:
    """Kullback-Leibler divergence with ``input`` as log-probabilities: pointwise
    ``target (log target - input)`` (``exp(target) (target - input)`` with ``log_target``).

    ``reduction='batchmean'`` divides the sum by the batch size (the mathematical KL
    divergence); ``'mean'`` divides by the number of elements (with PyTorch's warning).

    Example::

        >>> F = glassgrad.nn.functional
        >>> p = glassgrad.tensor([[0.5, 0.5]])
        >>> F.kl_div(p.log(), p, reduction="batchmean")
        tensor(0.)
    """
    check_tensor(input, "kl_div")
    check_tensor(target, "kl_div", "target", 2)
    if size_average is not None or reduce is not None:
        how = _legacy_reduction(size_average, reduce)
    else:
        how = _reduction(reduction, allowed=(*_REDUCTIONS, "batchmean"))
        if how == "mean":
            warnings.warn(
                "reduction: 'mean' divides the total loss by both the batch size and the support "
                "size.'batchmean' divides only by the batch size, and aligns with the KL div math "
                "definition.'mean' will be changed to behave the same as 'batchmean' in the next "
                "major release.",
                UserWarning,
                stacklevel=2,
            )
    for a in (input._data, target._data):
        if a.dtype.kind != "f":
            raise RuntimeError(
                f"kl_div: Integral inputs not supported (input {input._data.dtype}, target "
                f"{target._data.dtype})."
            )
    if log_target:
        pointwise_loss = arithmetic.mul(pointwise.exp(target), arithmetic.sub(target, input))
    else:
        pointwise_loss = arithmetic.sub(
            XlogyBackward0.apply(target, target), arithmetic.mul(target, input)
        )
    if how != "batchmean":
        return _reduce(pointwise_loss, how)
    total = reduce_ops.sum(pointwise_loss)
    return division.div(total, input._data.shape[0]) if input._data.ndim else total


def _bce_samples(rng: np.random.Generator) -> list[Sample]:
    return [
        Sample((_probabilities(rng, 3, 4), _probabilities(rng, 3, 4))),
        Sample((_probabilities(rng, 3, 4), NoGrad(_probabilities(rng, 3, 4)))),
        Sample(
            (_probabilities(rng, 3, 4), _probabilities(rng, 3, 4)),
            {"weight": NoGrad(positive(rng, 4)), "reduction": "sum"},
        ),
        Sample(
            (_probabilities(rng, 3, 4), _probabilities(rng, 3, 4)),
            {"weight": NoGrad(positive(rng, 3, 4)), "reduction": "none"},
        ),
        Sample((_probabilities(rng, 4, 3).T, _probabilities(rng, 3, 4))),
        Sample((_probabilities(rng), _probabilities(rng))),
    ]


register(
    "binary_cross_entropy",
    binary_cross_entropy,
    nodes=(BinaryCrossEntropyBackward0,),
    namespace=NN,
    samples=_bce_samples,
)


def _bce_logits_samples(rng: np.random.Generator) -> list[Sample]:
    return [
        Sample((randn(rng, 3, 4), _probabilities(rng, 3, 4))),
        Sample((3.0 * randn(rng, 3, 4), NoGrad(_probabilities(rng, 3, 4))), {"reduction": "sum"}),
        Sample(
            (randn(rng, 3, 4), _probabilities(rng, 3, 4)),
            {"weight": NoGrad(positive(rng, 4)), "reduction": "none"},
        ),
        Sample(
            (randn(rng, 3, 4), _probabilities(rng, 3, 4)),
            {"pos_weight": NoGrad(positive(rng, 4) + 0.5)},
        ),
        Sample(
            (randn(rng, 3, 4), _probabilities(rng, 3, 4)),
            {"pos_weight": NoGrad(positive(rng, 4) + 0.5), "weight": NoGrad(positive(rng, 3, 1))},
        ),
        Sample((randn(rng, 4, 3).T, _probabilities(rng, 3, 4))),
        Sample((randn(rng), _probabilities(rng))),
        Sample((randn(rng, 0, 4), _probabilities(rng, 0, 4)), {"reduction": "sum"}),
    ]


register(
    "binary_cross_entropy_with_logits",
    binary_cross_entropy_with_logits,
    nodes=(BinaryCrossEntropyWithLogitsBackward0,),
    namespace=NN,
    samples=_bce_logits_samples,
)


def _kl_samples(rng: np.random.Generator) -> list[Sample]:
    return [
        Sample((randn(rng, 3, 4), _rows_of_probabilities(rng, 3, 4)), {"reduction": "batchmean"}),
        Sample((randn(rng, 3, 4), NoGrad(_rows_of_probabilities(rng, 3, 4))), {"reduction": "sum"}),
        Sample((randn(rng, 3, 4), _rows_of_probabilities(rng, 3, 4)), {"reduction": "none"}),
        Sample((randn(rng, 3, 4), randn(rng, 3, 4)), {"log_target": True, "reduction": "sum"}),
        Sample(
            (randn(rng, 3, 4), NoGrad(randn(rng, 3, 4))),
            {"log_target": True, "reduction": "batchmean"},
        ),
        Sample((randn(rng, 4, 3).T, _rows_of_probabilities(rng, 3, 4)), {"reduction": "mean"}),
        Sample((randn(rng), positive(rng)), {"reduction": "batchmean"}),
    ]


register("kl_div", kl_div, namespace=NN, samples=_kl_samples)
