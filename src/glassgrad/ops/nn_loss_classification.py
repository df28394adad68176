"""``nn.functional``'s classification losses over class indices: ``nll_loss`` (PyTorch's
NllLossBackward0 / NllLoss2dBackward0) and ``cross_entropy`` (log_softmax then nll_loss, with
label smoothing and class-probability targets built from the same ops, as PyTorch builds them).

Class indices are checked, never clipped: an index outside ``[0, C)`` that is not
``ignore_index`` raises an IndexError naming the op and the value.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._dtype import scalar_type_name
from .._tensor import Tensor
from ..autograd.op import Op, keep_versions
from . import arithmetic, conversion, division, shape
from . import reduction as reduce_ops
from ._common import check_tensor, input_zeros, take_along_axis
from ._namespace import ArrayNamespace, cached_constant
from ._registry import NoGrad, Sample, register
from ._samples import positive, randn
from .nn_activation import DivBackward1, MulBackward1
from .nn_loss import NN, _check_floating_loss, _constant_weight, _reduction
from .nn_softmax import LogSoftmaxBackward0, log_softmax

__all__ = ["nll_loss", "cross_entropy"]


# --- negative log likelihood and cross entropy ------------------------------------------------

_INT64 = np.dtype(np.int64)


class NllLossBackward0(Op):
    """out = reduce(-weight[t] * x[n, t[n]]) over targets t != ignore_index; the mean divides
    by the sum of the picked weights.

    ``x`` is (C,) with a 0-d target or (N, C, ...) with a target (N, ...); the class dimension
    is 1 (0 for 1-D input).
    """

    index: np.ndarray
    ignored: np.ndarray | None
    coefficient: np.ndarray

    reduction: Any
    shape: Any

    arguments: tuple
    double_backward: type[Op]

    # Saved as PyTorch saves it (its backward node takes the input): in-place changes to the
    # input are caught, and under create_graph the gradient depends on it.
    saved_inputs: tuple[int, ...] = (0,)
    __slots__ = ("reduction", "shape", "class_dim", "index", "coefficient", "ignored", "arguments")

    def forward(
        self,
        x: Any,
        *,
        target: Any,
        weight: Any = None,
        reduction: Any = "mean",
        ignore_index: Any = -100,
    ) -> Any:
        # The target and the class weights are keywords: tensors without an edge (_nll_nd).
        self.arguments = (target, weight, ignore_index)
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
        picked = take_along_axis(x, index, axis=class_dim).squeeze(class_dim)
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

    def backward(self, F: Any, grad: Any) -> Any:
        if F is ArrayNamespace:
            return self.scatter(grad)
        (x,) = self.saved
        return type(self).double_backward.apply(grad, x, first=self)

    def scatter(self, grad: np.ndarray) -> np.ndarray:
        """The gradient, linear in ``grad``: -weight[t] (/ total weight) at each target."""
        values = grad * self.coefficient
        if self.ignored is not None:  # exact zeros there, even for an inf incoming gradient
            values = np.where(self.ignored, 0.0, values).astype(values.dtype, copy=False)
        values = np.expand_dims(values, self.class_dim)
        return ArrayNamespace.scatter_zeros(self.shape, self.class_dim, self.index, values)


class NllLossBackwardBackward0(Op):
    """PyTorch's ``nll_loss_backward(grad, self, ...)`` recorded under ``create_graph``: its
    derivatives are derivatives.yaml's, ``nll_loss`` of the incoming gradient for ``grad`` and
    ``zeros_like(grad)`` for the input (which it takes for its shape only)."""

    first: Any
    __slots__ = ("first",)

    def forward(self, grad: Any, x: Any, first: Any) -> Any:
        self.first = first
        return first.scatter(grad)

    def backward(self, F: Any, gg: Any) -> Any:
        first, needs = self.first, self.needs_input_grad
        d_grad = None
        if needs[0]:
            target, weight, ignore = first.arguments
            d_grad = type(first).call(
                gg, target=target, weight=weight, reduction=first.reduction, ignore_index=ignore
            )
        return d_grad, input_zeros(F, self, 1) if needs[1] else None


class NllLoss2DBackward0(NllLossBackward0):
    """``nll_loss`` of a 4-D input (N, C, H, W); other spatial ranks are viewed as 4-D."""


class NllLoss2DBackwardBackward0(NllLossBackwardBackward0):
    """``nll_loss2d_backward`` recorded under ``create_graph`` (see NllLossBackwardBackward0)."""


NllLossBackward0.double_backward = NllLossBackwardBackward0
NllLoss2DBackward0.double_backward = NllLoss2DBackwardBackward0


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
    # nll_loss_nd computes inputs of 3 dims or more as images (nll_loss2d)
    kernel = "nll_loss2d_forward" if input._data.ndim > 2 else "nll_loss_forward"
    w = _constant_weight(op, kernel, "weight", weight)
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
    # PyTorch's node saves the target and the class weights: changing one in place before
    # the backward raises.
    if ndim <= 2:
        return keep_versions(NllLossBackward0.apply(input, target=target, **params), target, weight)
    if ndim == 4:
        out = NllLoss2DBackward0.apply(input, target=target, **params)
        return keep_versions(out, target, weight)
    n, c = input._data.shape[:2]
    out_size = (n, *input._data.shape[2:])
    x = conversion.contiguous(input)
    t = conversion.contiguous(target)
    x = shape.view(x, (n, c, 1, -1) if x._data.size else (n, c, 0, 0))
    t = shape.view(t, (n, 1, -1) if t._data.size else (n, 0, 0))
    out = keep_versions(NllLoss2DBackward0.apply(x, target=t, **params), t, weight)
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
    """PyTorch's cross entropy against class probabilities: -sum(target * log_softmax), a
    composite (``cross_entropy_loss_prob_target``) differentiable in the weight too."""
    class_dim = 0 if log_probs._data.ndim == 1 else 1
    classes = log_probs._data.shape[class_dim]
    if smoothing > 0.0:
        from .nn_activation import AddBackward1

        target = AddBackward1.apply(
            MulBackward1.apply(target, other=1.0 - smoothing), other=smoothing / classes
        )
    product = arithmetic.mul(log_probs, target)
    if weight is not None:
        ndim = log_probs._data.ndim
        if ndim > 1:  # PyTorch's weight.view(1, C, 1, ...)
            weight = shape.view(weight, (1, weight._data.size) + (1,) * (ndim - 2))
        product = arithmetic.mul(product, weight)
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
            out = NllLossBackward0.apply(log_probs, target=target, ignore_index=ignore_index)
            return keep_versions(out, target)
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
        if weight is not None:
            check_tensor(weight, "cross_entropy", "weight")
            if weight._data.ndim != 1 or weight._data.size != x.shape[class_dim]:
                raise RuntimeError(
                    f"cross_entropy: weight tensor should be defined either for all "
                    f"{x.shape[class_dim]} classes or no classes but got weight tensor of "
                    f"shape: {list(weight._data.shape)}"
                )
        log_probs = log_softmax(input, class_dim)
        return _cross_entropy_probabilities(log_probs, target, weight, how, label_smoothing)
    _check_class_target("cross_entropy", input, target)
    w = _class_weight("cross_entropy", input, weight)
    log_probs = log_softmax(input, class_dim)
    if label_smoothing > 0.0:
        return keep_versions(
            _cross_entropy_smoothed(log_probs, target, w, how, ignore_index, label_smoothing),
            target,
            weight,
        )
    return _nll_nd(log_probs, target, w, how, ignore_index)


def _rows_of_probabilities(rng: np.random.Generator, *shape: int, dim: int = 1) -> np.ndarray:
    e = np.exp(randn(rng, *shape))
    return e / e.sum(axis=dim, keepdims=True)


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
