"""``nn.functional`` losses: regression (mse, l1, smooth_l1, huber), classification (nll,
cross_entropy, binary_cross_entropy with and without logits) and kl_div.

Losses PyTorch computes in one kernel are one Node here (``MseLossBackward0``,
``NllLossBackward0`` ...), with the reduction inside; losses PyTorch builds from other ops
(``l1_loss``, ``kl_div``, label smoothing, class-probability targets) are built from the same
ops, so the recorded graphs match. Class indices are checked, never clipped: an index outside
``[0, C)`` that is not ``ignore_index`` raises an IndexError naming the op and the value.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from .._dtype import scalar_type_name
from .._tensor import Tensor
from ..autograd.grad_mode import is_grad_enabled
from ..autograd.op import Op, save_argument, unpack_argument
from . import arithmetic, conversion, division, pointwise, powers, shape
from . import reduction as reduce_ops
from ._common import array_of, binary_operands, broadcast_error, check_tensor
from ._namespace import cached_constant
from ._registry import NoGrad, Sample, register
from ._samples import positive, randn
from .nn_activation import DivBackward1, MulBackward1, call_op
from .nn_activation_smooth import LogSigmoidBackward0
from .nn_similarity import _broadcast_pair
from .nn_softmax import LogSoftmaxBackward0, log_softmax

__all__ = [
    "mse_loss",
    "l1_loss",
    "smooth_l1_loss",
    "huber_loss",
    "nll_loss",
    "cross_entropy",
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "kl_div",
]

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


def _not_differentiable(op: str, argument: str) -> RuntimeError:
    return RuntimeError(
        f"The function '{op}' is not differentiable with respect to argument '{argument}'. "
        "This input cannot have requires_grad True."
    )


def _constant_weight(op: str, kernel: str, name: str, weight: Tensor | None) -> Any:
    """A weight that must not require grad (PyTorch's rule), as its array."""
    if weight is None:
        return None
    check_tensor(weight, op, name)
    if weight._requires_grad and is_grad_enabled():
        raise _not_differentiable(kernel, name)
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

    saved_inputs = (0, 1)
    __slots__ = ("reduction",)

    def forward(self, x, t, reduction="mean"):
        x, t = binary_operands(x, t)
        _check_floating_loss("mse_loss", "mse_cpu", x)
        self.reduction = reduction
        d = x - t
        return _reduce_array(d * d, reduction)

    def backward(self, F, grad):
        x, t = self.saved
        scale = 2.0 * _grad_scale(self.reduction, array_of(x).size)
        g = grad * scale * (x - t)
        needs = self.needs_input_grad
        return g if needs[0] else None, -g if needs[1] else None


class SmoothL1LossBackward0(Op):
    """out = reduce(0.5 d^2 / beta if |d| < beta else |d| - 0.5 beta), d = x - t"""

    saved_inputs = (0, 1)
    __slots__ = ("reduction", "beta")

    def forward(self, x, t, reduction="mean", beta=1.0):
        x, t = binary_operands(x, t)
        _check_floating_loss("smooth_l1_loss", "smooth_l1_cpu", x)
        self.reduction, self.beta = reduction, beta
        d = np.abs(x - t)
        return _reduce_array(np.where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta), reduction)

    def backward(self, F, grad):
        x, t = self.saved
        d = x - t
        inside = np.abs(array_of(x) - array_of(t)) < self.beta
        slope = F.where(inside, d / self.beta, F.sign(d))
        g = grad * _grad_scale(self.reduction, array_of(x).size) * slope
        needs = self.needs_input_grad
        return g if needs[0] else None, -g if needs[1] else None


class HuberLossBackward0(Op):
    """out = reduce(0.5 d^2 if |d| < delta else delta (|d| - 0.5 delta)), d = x - t"""

    saved_inputs = (0, 1)
    __slots__ = ("reduction", "delta")

    def forward(self, x, t, reduction="mean", delta=1.0):
        dtype = x.dtype  # PyTorch's kernel writes into a tensor like the input
        x, t = binary_operands(x, t)
        _check_floating_loss("huber_loss", "huber_cpu", x)
        self.reduction, self.delta = reduction, delta
        d = np.abs(x - t)
        loss = np.where(d < delta, 0.5 * d * d, delta * (d - 0.5 * delta))
        return _reduce_array(loss.astype(dtype, copy=False), reduction)

    def backward(self, F, grad):
        x, t = self.saved
        x_dtype, t_dtype = array_of(x).dtype, array_of(t).dtype
        if x_dtype != t_dtype:
            # PyTorch's backward kernel writes into a gradient like the input and refuses a
            # target of another dtype (its forward allows it).
            raise RuntimeError(
                f"Found dtype {scalar_type_name(t_dtype)} but expected {scalar_type_name(x_dtype)}"
            )
        d = x - t
        dv = array_of(x) - array_of(t)
        # d itself inside [-delta, delta], the bound outside (PyTorch's kernel).
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
    _check_floating_loss("l1_loss", "abs_cpu", binary_operands(x._data, t._data)[0])
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


# --- negative log likelihood and cross entropy ------------------------------------------------

_INT64 = np.dtype(np.int64)


class NllLossBackward0(Op):
    """out = reduce(-weight[t] * x[n, t[n]]) over targets t != ignore_index; the mean divides
    by the sum of the picked weights.

    ``x`` is (C,) with a 0-d target or (N, C, ...) with a target (N, ...); the class dimension
    is 1 (0 for 1-D input).
    """

    # Saved as PyTorch saves it (its backward node takes the input): in-place changes to the
    # input are caught, and under create_graph the gradient depends on it.
    saved_inputs = (0,)
    grad_reads_saved = True
    __slots__ = ("reduction", "shape", "class_dim", "index", "coefficient", "ignored", "_kept")

    def forward(self, x, *, target, weight=None, reduction="mean", ignore_index=-100):
        # The target and the class weights are keywords (tensors without an edge, as in
        # PyTorch, whose node saves them: changing one in place before the backward raises).
        self._kept = (save_argument(target), save_argument(weight))
        weight = None if weight is None else weight._data
        class_dim = 0 if x.ndim == 1 else 1
        classes = x.shape[class_dim]
        target = target._data.astype(np.int64, copy=False)
        self.reduction, self.shape, self.class_dim = reduction, x.shape, class_dim
        if (
            x.ndim == 2
            and weight is None
            and reduction == "mean"
            and target.size
            and not 0 <= ignore_index < classes
            and target.view(np.uint64).max() < classes  # negative targets wrap to huge
        ):
            # The usual classifier loss (every target a valid class): a few array calls.
            rows = target.size
            self.index = target.reshape(rows, 1)
            self.ignored = None
            self.coefficient = cached_constant("full", rows, x.dtype, -1.0 / rows)
            picked = x[cached_constant("arange", rows, None), target]
            return np.asarray(-np.add.reduce(picked) / rows, dtype=x.dtype)
        kept = target != ignore_index
        out_of_range = kept & ((target < 0) | (target >= classes))
        if out_of_range.any():
            bad = int(target[out_of_range].flat[0])
            raise IndexError(
                f"{_op_name(self)}: Target {bad} is out of bounds (expected class indices in "
                f"[0, {classes - 1}] or ignore_index={ignore_index})."
            )
        index = np.expand_dims(np.where(kept, target, 0), class_dim)
        picked = np.take_along_axis(x, index, axis=class_dim).squeeze(class_dim)
        weights = kept.astype(x.dtype)
        if weight is not None:
            weights = weights * weight.astype(x.dtype, copy=False)[index.squeeze(class_dim)]
        losses = -picked * weights
        self.index = index
        self.ignored = None if kept.all() else ~kept
        if reduction == "none":
            self.coefficient = -weights
            return losses
        if reduction == "sum":
            self.coefficient = -weights
            return np.asarray(np.sum(losses), dtype=x.dtype)
        total_weight = np.sum(weights)
        with np.errstate(invalid="ignore", divide="ignore"):
            # Ignored targets get exactly 0 (not 0/0) even when every target is ignored.
            self.coefficient = np.where(kept, -weights / total_weight, 0.0).astype(x.dtype)
            return np.asarray(np.sum(losses) / total_weight, dtype=x.dtype)

    def backward(self, F, grad):
        for kept in self._kept:
            unpack_argument(kept)
        # Linear in grad: the gradient puts -weight[t] (/ total weight) at each target class.
        values = grad * self.coefficient
        if self.ignored is not None:  # exact zeros there, even for an inf incoming gradient
            values = F.where(self.ignored, 0.0, values)
        values = F.unsqueeze(values, self.class_dim)
        return F.scatter_zeros(self.shape, self.class_dim, self.index, values)


class NllLoss2DBackward0(NllLossBackward0):
    """``nll_loss`` of a 4-D input (N, C, H, W); other spatial ranks are viewed as 4-D."""


def _op_name(node: Op) -> str:
    return "nll_loss2d" if isinstance(node, NllLoss2DBackward0) else "nll_loss"


def _check_class_target(op: str, input: Tensor, target: Tensor) -> None:
    """Shapes and dtype of a class-index target, with PyTorch's checks and words."""
    x, t = input._data, target._data
    if x.ndim < 1:
        raise ValueError(f"{op}: Expected 1 or more dimensions (got {x.ndim})")
    if t.dtype not in (np.int64, np.uint8):
        hint = ""
        if t.dtype.kind == "f":
            hint = (
                f" (a floating target is read as class probabilities only when its shape "
                f"equals the input's: input {list(x.shape)}, target {list(t.shape)})"
            )
        raise RuntimeError(
            f"{op}: expected target dtype to be Long or Byte, but got {scalar_type_name(t.dtype)}{hint}"
        )
    if x.ndim == 1:
        if t.ndim != 0:
            raise RuntimeError(
                f"{op}: 0D target tensor expected for a 1D input, multi-target not supported "
                f"(input {list(x.shape)}, target {list(t.shape)})"
            )
        return
    if t.ndim == 0 or x.shape[0] != t.shape[0]:
        got = t.shape[0] if t.ndim else "a 0-d target"
        raise ValueError(
            f"{op}: Expected input batch_size ({x.shape[0]}) to match target batch_size "
            f"({got}) (input {list(x.shape)}, target {list(t.shape)})."
        )
    if x.ndim == 2 and t.ndim != 1:
        raise RuntimeError(
            f"{op}: 0D or 1D target tensor expected, multi-target not supported "
            f"(input {list(x.shape)}, target {list(t.shape)})"
        )
    if x.ndim > 2 and t.shape[1:] != x.shape[2:]:
        expected = [x.shape[0], *x.shape[2:]]
        raise RuntimeError(
            f"{op}: Expected target size {expected}, got {list(t.shape)} (input {list(x.shape)})"
        )


def _class_weight(op: str, input: Tensor, weight: Tensor | None) -> Tensor | None:
    """The per-class weight, checked: 1-D, one per class, the input's dtype."""
    w = _constant_weight(op, "nll_loss_forward", "weight", weight)
    if w is None:
        return None
    classes = input._data.shape[0 if input._data.ndim == 1 else 1]
    if w.ndim != 1 or w.size != classes:
        raise RuntimeError(
            f"{op}: weight tensor should be defined either for all {classes} classes or no "
            f"classes but got weight tensor of shape: {list(w.shape)}"
        )
    if w.dtype != input._data.dtype:
        raise RuntimeError(
            f"{op}: expected scalar type {scalar_type_name(input._data.dtype)} but found "
            f"{scalar_type_name(w.dtype)} (weight dtype must match input dtype)"
        )
    return weight


def _nll_nd(input: Tensor, target: Tensor, weight: Any, how: str, ignore_index: int) -> Tensor:
    """PyTorch's ``nll_loss_nd``: 1-D/2-D directly, 4-D as 2-D images, other ranks viewed
    as (N, C, 1, -1) images."""
    params = {"weight": weight, "reduction": how, "ignore_index": ignore_index}
    ndim = input._data.ndim
    if ndim <= 2:
        return NllLossBackward0.apply(input, target=target, **params)
    if ndim == 4:
        return NllLoss2DBackward0.apply(input, target=target, **params)
    n, c = input._data.shape[:2]
    out_size = (n, *input._data.shape[2:])
    x = conversion.contiguous(input)
    t = conversion.contiguous(target)
    x = shape.view(x, (n, c, 1, -1) if x._data.size else (n, c, 0, 0))
    t = shape.view(t, (n, 1, -1) if t._data.size else (n, 0, 0))
    out = NllLoss2DBackward0.apply(x, target=t, **params)
    return shape.view(out, out_size) if how == "none" else out


def nll_loss(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    ignore_index: int = -100,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """Negative log likelihood: ``-weight[t] * input[n, t[n]]`` per target, reduced (the mean
    divides by the sum of the weights of the targets that are not ``ignore_index``).

    ``input`` is (C,), (N, C) or (N, C, d1, ...) log-probabilities; ``target`` holds class
    indices in ``[0, C)`` (int64 or uint8) of shape (), (N,) or (N, d1, ...).

    Example::

        >>> F = glassgrad.nn.functional
        >>> F.nll_loss(glassgrad.tensor([[-1.0, -2.0]]), glassgrad.tensor([1]))
        tensor(2.)
    """
    check_tensor(input, "nll_loss")
    check_tensor(target, "nll_loss", "target", 2)
    how = _reduction(reduction, size_average, reduce)
    _check_class_target("nll_loss", input, target)
    _check_floating_loss("nll_loss", "nll_loss_out_frame", input._data)
    w = _class_weight("nll_loss", input, weight)
    return _nll_nd(input, target, w, how, ignore_index)


def _class_view(weight: np.ndarray, ndim: int) -> np.ndarray:
    """A per-class weight shaped to broadcast along the class dimension (1)."""
    return weight.reshape((1, -1) + (1,) * (ndim - 2)) if ndim > 1 else weight


def _cross_entropy_smoothed(
    log_probs: Tensor,
    target: Tensor,
    weight: Any,
    how: str,
    ignore_index: int,
    smoothing: float,
) -> Tensor:
    """PyTorch's label smoothing for class indices: (1 - s) * nll + s / C * smooth loss."""
    class_dim = 0 if log_probs._data.ndim == 1 else 1
    classes = log_probs._data.shape[class_dim]
    nll = _nll_nd(log_probs, target, weight, how, ignore_index)
    ignored = target._data == ignore_index
    if weight is not None:
        weighted = arithmetic.mul(log_probs, _class_view(weight._data, log_probs._data.ndim))
        smooth = arithmetic.neg(reduce_ops.sum(weighted, class_dim))
    else:
        smooth = arithmetic.neg(reduce_ops.sum(log_probs, class_dim))
    smooth = smooth.masked_fill_(Tensor._from_array(ignored), 0.0)
    if how == "mean":
        kept = target._data[~ignored].astype(np.int64)
        if weight is not None:
            denominator = Tensor._from_array(np.asarray(np.sum(weight._data[kept])))
        else:
            denominator = Tensor._from_array(np.asarray(np.sum(~ignored), dtype=np.int64))
        smooth = division.div(reduce_ops.sum(smooth), denominator)
    elif how == "sum":
        smooth = reduce_ops.sum(smooth)
    return arithmetic.add(
        MulBackward1.apply(nll, other=1.0 - smoothing),
        MulBackward1.apply(smooth, other=smoothing / classes),
    )


def _cross_entropy_probabilities(
    log_probs: Tensor, target: Tensor, weight: Any, how: str, smoothing: float
) -> Tensor:
    """PyTorch's cross entropy against class probabilities: -sum(target * log_softmax)."""
    class_dim = 0 if log_probs._data.ndim == 1 else 1
    classes = log_probs._data.shape[class_dim]
    if smoothing > 0.0:
        from .nn_activation import AddBackward1

        target = AddBackward1.apply(
            MulBackward1.apply(target, other=1.0 - smoothing), other=smoothing / classes
        )
    product = arithmetic.mul(log_probs, target)
    if weight is not None:
        product = arithmetic.mul(product, _class_view(weight, log_probs._data.ndim))
    if how == "none":
        return arithmetic.neg(reduce_ops.sum(product, class_dim))
    total = arithmetic.neg(reduce_ops.sum(product))
    if how == "sum":
        return total
    if log_probs._data.size == 0:
        return DivBackward1.apply(total, other=math.nan)
    return DivBackward1.apply(total, other=log_probs._data.size // classes)


def cross_entropy(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    ignore_index: int = -100,
    reduce: bool | None = None,
    reduction: str = "mean",
    label_smoothing: float = 0.0,
) -> Tensor:
    """Cross entropy of logits ``input`` against class indices or class probabilities.

    With class indices (``target`` int64/uint8, shape (), (N,) or (N, d1, ...)) it is
    ``nll_loss(log_softmax(input, 1), target)``; with probabilities (``target`` floating, the
    same shape as ``input``) it is ``-sum(target * log_softmax(input, 1))``, the mean dividing
    by the number of positions. ``label_smoothing`` s mixes the target with the uniform
    distribution: ``(1 - s) * target + s / C``. Finite for logits of any magnitude.

    Example::

        >>> F = glassgrad.nn.functional
        >>> F.cross_entropy(glassgrad.tensor([[0.0, 0.0]]), glassgrad.tensor([1]))
        tensor(0.6931)
    """
    if (
        weight is None
        and reduction == "mean"
        and size_average is None
        and reduce is None
        and label_smoothing <= 0.0
        and isinstance(input, Tensor)
        and isinstance(target, Tensor)
    ):
        x, t = input._data, target._data
        if x.ndim == 2 and x.dtype.kind == "f" and t.dtype is _INT64 and t.shape == x.shape[:1]:
            # A classifier's loss, logits (N, C) against class indices (N,), no options: every
            # check below passes. The same two nodes as below, without the checks (~5 us).
            log_probs = LogSoftmaxBackward0.apply(input, dim=1)
            return NllLossBackward0.apply(log_probs, target=target, ignore_index=ignore_index)
    check_tensor(input, "cross_entropy")
    check_tensor(target, "cross_entropy", "target", 2)
    how = _reduction(reduction, size_average, reduce)
    x, t = input._data, target._data
    if x.ndim < 1:
        raise ValueError(f"cross_entropy: Expected 1 or more dimensions (got {x.ndim})")
    if label_smoothing > 1.0:  # negative values mean no smoothing, as in PyTorch
        raise RuntimeError(
            f"cross_entropy: label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}"
        )
    _check_floating_loss("cross_entropy", "log_softmax_lastdim_kernel_impl", x)
    class_dim = 0 if x.ndim == 1 else 1
    if x.shape == t.shape:
        if t.dtype.kind != "f":
            raise RuntimeError(
                f"cross_entropy: Expected floating point type for target with class "
                f"probabilities, got {scalar_type_name(t.dtype)} (a target of the input's shape "
                f"{list(x.shape)} holds probabilities)"
            )
        w = _constant_weight("cross_entropy", "cross_entropy", "weight", weight)
        if w is not None and (w.ndim != 1 or w.size != x.shape[class_dim]):
            raise RuntimeError(
                f"cross_entropy: weight tensor should be defined either for all "
                f"{x.shape[class_dim]} classes or no classes but got weight tensor of shape: "
                f"{list(w.shape)}"
            )
        log_probs = log_softmax(input, class_dim)
        return _cross_entropy_probabilities(log_probs, target, w, how, label_smoothing)
    _check_class_target("cross_entropy", input, target)
    w = _class_weight("cross_entropy", input, weight)
    log_probs = log_softmax(input, class_dim)
    if label_smoothing > 0.0:
        return _cross_entropy_smoothed(log_probs, target, w, how, ignore_index, label_smoothing)
    return _nll_nd(log_probs, target, w, how, ignore_index)


# --- binary cross entropy ----------------------------------------------------------------------

_LOG_FLOOR = -100.0  # PyTorch clamps each log term of binary_cross_entropy at -100
_BCE_EPS = 1e-12


class BinaryCrossEntropyBackward0(Op):
    """out = reduce(-w (t log x + (1 - t) log(1 - x))), each log clamped at -100"""

    saved_inputs = (0, 1)
    __slots__ = ("reduction", "weight", "_kept")

    def forward(self, x, t, weight=None, reduction="mean"):
        # The weight (a tensor without an edge) is saved as PyTorch saves it.
        self._kept = save_argument(weight)
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

    def backward(self, F, grad):
        x, t = self.saved
        unpack_argument(self._kept)
        xv = array_of(x)
        scale = grad * _grad_scale(self.reduction, xv.size)
        if self.weight is not None:
            scale = scale * self.weight
        needs = self.needs_input_grad
        grad_x = grad_t = None
        if needs[0]:
            # (x - t) / max(x (1 - x), eps), as PyTorch's kernel.
            tiny = (1.0 - xv) * xv < _BCE_EPS
            grad_x = scale * (x - t) / F.where(tiny, _BCE_EPS, (1.0 - x) * x)
        if needs[1]:
            with np.errstate(divide="ignore"):
                grad_t = scale * (F.log(1.0 - x) - F.log(x))
        return grad_x, grad_t


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
    return BinaryCrossEntropyBackward0.apply(input, target, weight=weight, reduction=how)


class BinaryCrossEntropyWithLogitsBackward0(Op):
    """out = reduce(w ((1 - t) x - (1 + (pw - 1) t) log_sigmoid(x))): finite at any |x|

    Computed step by step as PyTorch computes it, in place into ``1 - t``: the result has the
    target's dtype (and ``log_sigmoid(x)`` the input's), whatever the other operands' dtypes.
    """

    saved_inputs = (0, 1)
    __slots__ = ("reduction", "weight", "pos_weight", "_kept")

    def forward(self, x, t, weight=None, pos_weight=None, reduction="mean"):
        # The weights (tensors without an edge) are saved as PyTorch saves them.
        self._kept = (save_argument(weight), save_argument(pos_weight))
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

    def backward(self, F, grad):
        x, t = self.saved
        for kept in self._kept:
            unpack_argument(kept)
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
    return BinaryCrossEntropyWithLogitsBackward0.apply(
        input, target, weight=weight, pos_weight=pos_weight, reduction=how
    )


# --- Kullback-Leibler divergence ---------------------------------------------------------------


class XlogyBackward0(Op):
    """out = x * log(y), and 0 where x == 0 (the 0 log 0 = 0 of entropy terms)"""

    saved_inputs = (0, 1)

    def forward(self, x, y):
        x, y = binary_operands(x, y)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.asarray(np.where((x == 0) & ~np.isnan(y), 0.0, x * np.log(y)), dtype=x.dtype)

    def backward(self, F, grad):
        x, y = self.saved
        needs = self.needs_input_grad
        grad_x = grad_y = None
        if needs[0]:
            # grad * xlogy(x != 0, y): log(y) where x != 0, else 0 (y may be 0 there).
            skip = array_of(x) == 0
            grad_x = F.where(skip, 0.0, grad * F.log(F.where(skip, 1.0, y)))
        if needs[1]:
            grad_y = grad * x / y
        return grad_x, grad_y


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


# --- registry ----------------------------------------------------------------------------------

NN = "nn.functional"


def _probabilities(rng: np.random.Generator, *shape: int) -> np.ndarray:
    """Values in (0.05, 0.95): inside binary_cross_entropy's domain, away from its clamps."""
    return np.asarray(0.05 + 0.9 * (1.0 - positive(rng, *shape)))


def _rows_of_probabilities(rng: np.random.Generator, *shape: int, dim: int = 1) -> np.ndarray:
    e = np.exp(randn(rng, *shape))
    return e / e.sum(axis=dim, keepdims=True)


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


def _classes(rng: np.random.Generator, classes: int, *shape: int) -> np.ndarray:
    return rng.integers(0, classes, size=shape).astype(np.int64)


def _with_ignored(rng: np.random.Generator, classes: int, *shape: int, ignore: int) -> np.ndarray:
    t = _classes(rng, classes, *shape)
    t.flat[:: max(t.size // 3, 1)] = ignore
    return t


def _nll_samples(rng: np.random.Generator) -> list[Sample]:
    return [
        Sample((randn(rng, 5, 4), _classes(rng, 4, 5))),
        Sample((randn(rng, 5, 4), _classes(rng, 4, 5)), {"reduction": "sum"}),
        Sample((randn(rng, 5, 4), _classes(rng, 4, 5)), {"reduction": "none"}),
        Sample((randn(rng, 5, 4), _classes(rng, 4, 5)), {"weight": NoGrad(positive(rng, 4))}),
        Sample(
            (randn(rng, 6, 4), _with_ignored(rng, 4, 6, ignore=-100)),
            {"weight": NoGrad(positive(rng, 4))},
        ),
        Sample((randn(rng, 6, 4), _with_ignored(rng, 4, 6, ignore=2)), {"ignore_index": 2}),
        Sample(
            (randn(rng, 6, 4), _with_ignored(rng, 4, 6, ignore=-1)),
            {"ignore_index": -1, "reduction": "none"},
        ),
        Sample((randn(rng, 4), np.asarray(2, dtype=np.int64))),
        Sample((randn(rng, 2, 3, 4), _classes(rng, 3, 2, 4)), note="one spatial dim"),
        Sample(
            (randn(rng, 2, 3, 4), _classes(rng, 3, 2, 4)),
            {"reduction": "none"},
            note="one spatial dim",
        ),
        Sample((randn(rng, 2, 3, 4, 2), _classes(rng, 3, 2, 4, 2)), note="2-D images"),
        Sample(
            (randn(rng, 2, 3, 4, 2), _with_ignored(rng, 3, 2, 4, 2, ignore=-100)),
            {"reduction": "none", "weight": NoGrad(positive(rng, 3))},
        ),
        Sample((randn(rng, 2, 3, 2, 2, 2), _classes(rng, 3, 2, 2, 2, 2)), note="3 spatial dims"),
        Sample((randn(rng, 4, 5, 3).transpose(0, 2, 1), _classes(rng, 3, 4, 5))),
        Sample((randn(rng, 0, 4), _classes(rng, 4, 0)), {"reduction": "sum"}),
    ]


register(
    "nll_loss",
    nll_loss,
    nodes=(NllLossBackward0, NllLoss2DBackward0),
    namespace=NN,
    samples=_nll_samples,
)


def _cross_entropy_samples(rng: np.random.Generator) -> list[Sample]:
    return [
        *_nll_samples(rng),
        Sample((randn(rng, 5, 4), _classes(rng, 4, 5)), {"label_smoothing": 0.1}),
        Sample(
            (randn(rng, 6, 4), _with_ignored(rng, 4, 6, ignore=-100)),
            {"label_smoothing": 0.2, "weight": NoGrad(positive(rng, 4))},
        ),
        Sample(
            (randn(rng, 6, 4), _with_ignored(rng, 4, 6, ignore=1)),
            {"label_smoothing": 0.3, "ignore_index": 1, "reduction": "sum"},
        ),
        Sample(
            (randn(rng, 2, 3, 4), _with_ignored(rng, 3, 2, 4, ignore=-100)),
            {"label_smoothing": 0.25, "reduction": "none", "weight": NoGrad(positive(rng, 3))},
        ),
        Sample((randn(rng, 4), np.asarray(1, dtype=np.int64)), {"label_smoothing": 0.1}),
        Sample((randn(rng, 5, 4), _rows_of_probabilities(rng, 5, 4))),
        Sample((randn(rng, 5, 4), NoGrad(_rows_of_probabilities(rng, 5, 4))), {"reduction": "sum"}),
        Sample(
            (randn(rng, 2, 3, 4), _rows_of_probabilities(rng, 2, 3, 4)),
            {"reduction": "none", "weight": NoGrad(positive(rng, 3))},
        ),
        Sample(
            (randn(rng, 5, 4), _rows_of_probabilities(rng, 5, 4)),
            {"label_smoothing": 0.2, "weight": NoGrad(positive(rng, 4))},
        ),
        Sample((randn(rng, 4), _rows_of_probabilities(rng, 4, dim=0))),
        Sample((20.0 * randn(rng, 5, 6), _classes(rng, 6, 5)), note="wide logits"),
    ]


register(
    "cross_entropy",
    cross_entropy,
    nodes=(NllLossBackward0, NllLoss2DBackward0),
    namespace=NN,
    samples=_cross_entropy_samples,
)


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
