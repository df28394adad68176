"""Multi-class losses: ``multi_margin_loss multilabel_margin_loss linear_cross_entropy``
(public in ``glassgrad.nn.functional``).

The margin losses are one node each, as in PyTorch (``MultiMarginLossBackward0``,
``MultilabelMarginLossBackward0``), with PyTorch's shape checks. PyTorch has no derivative of
their backward: a gradient computed with ``create_graph=True`` is recorded under a
``NotImplemented`` node whose backward raises PyTorch's error.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._dtype import scalar_type_name
from .._tensor import Tensor
from ..autograd.op import Op, keep_versions
from . import shape
from ._common import array_of, check_tensor
from ._namespace import ArrayNamespace
from ._not_implemented import _not_implemented_node, check_no_requires_grad
from ._registry import NoGrad, Sample, register
from ._samples import randn
from .nn_loss import _reduction
from .nn_loss_classification import cross_entropy
from .nn_misc import linear


def _passthrough(*arrays: np.ndarray) -> np.ndarray:
    return arrays[-1]  # the gradient, already computed from the operands before it


_MultiMarginBackwardNode = _not_implemented_node("multi_margin_loss_backward", _passthrough)
_MultilabelMarginBackwardNode = _not_implemented_node(
    "multilabel_margin_loss_backward", _passthrough
)


def _check_scores(x: np.ndarray, kernel: str) -> None:
    """ATen's checks of a margin loss's scores: floating, a non-empty vector or matrix."""
    if x.dtype.kind != "f":
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{scalar_type_name(x.dtype)}'")
    ndims = x.ndim
    if not ((ndims == 2 and x.shape[1] != 0) or (ndims == 1 and x.shape[0] != 0) or ndims == 0):
        raise RuntimeError(
            "Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
            f"{list(x.shape)}"
        )


def _reduce_rows(loss: np.ndarray, how: str, batched: bool, dtype: np.dtype) -> np.ndarray:
    """One loss per sample (``loss``, shape (N,)) reduced as ``how``; unbatched: 0-d."""
    if how == "none":
        return loss.astype(dtype) if batched else loss.reshape(()).astype(dtype)
    total = loss.sum()
    return np.asarray(total / loss.size if how == "mean" else total, dtype)


def _row_scale(grad: np.ndarray, how: str, rows: int) -> np.ndarray:
    """d(reduced loss)/d(loss of each sample), as a column."""
    if how == "none":
        return np.asarray(grad).reshape(-1, 1)
    scale = np.asarray(grad) / rows if how == "mean" else np.asarray(grad)
    return np.full((rows, 1), scale, np.asarray(grad).dtype)


# --- multi_margin_loss -------------------------------------------------------------------


def _margins(x: np.ndarray, target: np.ndarray, margin: float) -> np.ndarray:
    """``margin - x[n, y_n] + x[n, i]`` for every class ``i``, 0 at ``i = y_n``."""
    rows = np.arange(x.shape[0])
    z = margin - x[rows, target][:, None] + x
    z[rows, target] = 0
    return z


class MultiMarginLossBackward0(Op):
    """out_n = sum_{i != y_n} max(0, margin - x[n, y_n] + x[n, i])^p * w[y_n] / C, reduced."""

    batched: Any
    margin: Any
    p: Any
    reduction: Any
    target: Any
    weight: Any

    saved_inputs: tuple[int, ...] = (0,)
    grad_reads_saved = True
    __slots__ = ("target", "p", "margin", "weight", "reduction", "batched")

    def forward(
        self, x: Any, target: Any, p: Any, margin: Any, weight: Any, reduction: Any, batched: Any
    ) -> Any:
        self.target, self.p, self.margin = target, p, margin
        self.weight, self.reduction, self.batched = weight, reduction, batched
        rows = x.reshape(-1, x.shape[-1]) if x.ndim else x.reshape(1, 1)
        z = _margins(rows, target, margin)
        h = z if p == 1 else z * z
        if weight is not None:
            h = h * weight[target][:, None]
        # ATen's loop adds the terms with z > 0 only: a NaN (or a weight's inf times a
        # non-positive z) never reaches the sum.
        h = np.where(z > 0, h, 0.0)
        return _reduce_rows(h.sum(axis=1) / rows.shape[1], reduction, batched, x.dtype)

    def backward(self, F: Any, grad: Any) -> Any:
        (saved,) = self.saved
        x = array_of(saved)
        rows = x.reshape(-1, x.shape[-1]) if x.ndim else x.reshape(1, 1)
        z = _margins(rows, self.target, self.margin)
        # ATen's kernel: each term with z > 0 gives h = g (or 2 g z) times the class weight,
        # the target's entry is minus their sum, and the row is multiplied by the incoming
        # gradient last (an infinite gradient makes inf of the terms, NaN of the zeros).
        n, c = rows.shape
        g = 1.0 / (n * c) if self.reduction == "mean" else 1.0 / c
        slope = g if self.p == 1 else 2 * g * z
        if self.weight is not None:
            slope = slope * self.weight[self.target][:, None]
        slope = np.where(z > 0, slope, 0.0)
        index = np.arange(n)
        slope[index, self.target] = -slope.sum(axis=1)
        incoming = np.asarray(array_of(grad))
        slope = slope * (incoming.reshape(-1, 1) if incoming.ndim else incoming)
        result = slope.astype(x.dtype).reshape(x.shape)
        if F is ArrayNamespace:
            return result
        return _MultiMarginBackwardNode.apply(grad, saved, Tensor._from_array(result))


def multi_margin_loss(
    input: Tensor,
    target: Tensor,
    p: int = 1,
    margin: float = 1.0,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    r"""Multi-class hinge loss: for each sample (a row of ``input``, scores of ``C``
    classes, and its class ``y = target[n]``),

    .. math:: \ell_n = \frac{1}{C} \sum_{i \ne y} w_y \max(0, margin - x_y + x_i)^p

    with ``p`` 1 or 2 and ``w`` the optional class ``weight``; then reduced.

    Example::

        >>> F = glassgrad.nn.functional
        >>> F.multi_margin_loss(glassgrad.tensor([[0.1, 0.2, 0.4, 0.8]]), glassgrad.tensor([3]))
        tensor(0.3250)
    """
    how = _reduction(reduction, size_average, reduce)
    op = "multi_margin_loss"
    check_tensor(input, op)
    check_tensor(target, op, "target", 2)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None:
        check_tensor(weight, op, "weight", 5)
        check_no_requires_grad(weight, "weight", op)
        if weight.dim() != 1:
            raise ValueError("weight must be one-dimensional")
    x, t = input._data, target._data
    _check_scores(x, f"{op}_cpu_kernel")
    ndims = x.ndim
    nframe = 1 if ndims <= 1 else x.shape[0]
    dim = 1 if ndims == 0 else x.shape[-1]
    if (t.ndim > 1 if ndims <= 1 else t.ndim != 1) or t.size != nframe:
        raise RuntimeError(
            f"{op}: target tensor should be 1-D with size equal to the number of input "
            f"samples (batch size). Expected target size [{nframe}], but got "
            f"{list(t.shape)}. Input has shape {list(x.shape)}."
        )
    if t.dtype != np.int64:
        raise RuntimeError(f"expected scalar type Long but found {scalar_type_name(t.dtype)}")
    w = None
    if weight is not None:
        if weight._data.size != dim:
            raise RuntimeError(
                f"inconsistent weight size, expected {dim} but got {list(weight._data.shape)}"
            )
        if weight._data.dtype != x.dtype:  # PyTorch's kernel reads it in the input's type
            raise RuntimeError(
                f"expected scalar type {scalar_type_name(x.dtype)} but found "
                f"{scalar_type_name(weight._data.dtype)}"
            )
        w = weight._data
    flat_t = t.reshape(-1)
    if flat_t.size and (flat_t.min() < 0 or flat_t.max() >= dim):
        raise RuntimeError("target out of range")
    batched = how == "none" and t.ndim > 0
    return keep_versions(
        MultiMarginLossBackward0.apply(
            input,
            target=flat_t,
            p=int(p),
            margin=float(margin),
            weight=w,
            reduction=how,
            batched=batched,
        ),
        target,
        weight,
    )


# --- multilabel_margin_loss --------------------------------------------------------------


def _target_counts(target: np.ndarray, dim: int) -> np.ndarray:
    """How often each class is listed in each row of ``target``, up to its first -1."""
    counts = np.zeros(target.shape, np.int64)
    for n, row in enumerate(target):
        for j in row:
            if j < 0:
                break
            if j >= dim:
                raise RuntimeError("argument #2 'target' is out of range")
            counts[n, j] += 1
    return counts


class MultilabelMarginLossBackward0(Op):
    """out_n = sum_{j in targets} sum_{i not a target} max(0, 1 - (x[j] - x[i])) / C."""

    batched: Any
    counts: Any
    reduction: Any

    saved_inputs: tuple[int, ...] = (0,)
    grad_reads_saved = True
    __slots__ = ("counts", "reduction", "batched")

    def forward(self, x: Any, counts: Any, reduction: Any, batched: Any) -> Any:
        self.counts, self.reduction, self.batched = counts, reduction, batched
        rows = x.reshape(counts.shape)
        z = 1 - rows[:, :, None] + rows[:, None, :]  # [n, j, i]
        pairs = counts[:, :, None] * (counts == 0)[:, None, :]
        # ATen's loop adds z for the pairs it visits, where z > 0 (a NaN is passed over).
        z = np.where((z > 0) & (pairs > 0), z * pairs, 0.0)
        loss = z.sum(axis=(1, 2)) / rows.shape[1]
        return _reduce_rows(loss, reduction, batched, x.dtype)

    def backward(self, F: Any, grad: Any) -> Any:
        (saved,) = self.saved
        x = array_of(saved)
        counts = self.counts
        rows = x.reshape(counts.shape)
        active = (1 - rows[:, :, None] + rows[:, None, :]) > 0
        pairs = active * counts[:, :, None] * (counts == 0)[:, None, :]
        scale = _row_scale(array_of(grad), self.reduction, rows.shape[0]) / rows.shape[1]
        slope = (pairs.sum(axis=1) - pairs.sum(axis=2)) * scale
        result = slope.astype(x.dtype).reshape(x.shape)
        if F is ArrayNamespace:
            return result
        return _MultilabelMarginBackwardNode.apply(grad, saved, Tensor._from_array(result))


def multilabel_margin_loss(
    input: Tensor,
    target: Tensor,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    r"""Multi-label hinge loss. Each row of ``target`` lists a sample's classes, ended by
    the first -1; with :math:`J` those classes,

    .. math:: \ell_n = \frac{1}{C} \sum_{j \in J} \sum_{i \notin J} \max(0, 1 - (x_j - x_i))

    then reduced.

    Example::

        >>> F = glassgrad.nn.functional
        >>> x = glassgrad.tensor([[0.1, 0.2, 0.4, 0.8]])
        >>> F.multilabel_margin_loss(x, glassgrad.tensor([[3, 0, -1, 1]]))
        tensor(0.8500)
    """
    how = _reduction(reduction, size_average, reduce)
    op = "multilabel_margin_loss"
    check_tensor(input, op)
    check_tensor(target, op, "target", 2)
    x, t = input._data, target._data
    _check_scores(x, f"{op}_forward_out_frame")
    ndims = x.ndim
    dim = 1 if ndims == 0 else x.shape[-1]
    if ndims <= 1:
        consistent = t.ndim <= 1 and t.size == dim
    else:
        consistent = t.ndim == 2 and t.shape == x.shape
    if not consistent:
        raise RuntimeError(
            f"inconsistent target size: {list(t.shape)} for input of size: {list(x.shape)}"
        )
    if t.dtype != np.int64:
        raise RuntimeError(f"expected scalar type Long but found {scalar_type_name(t.dtype)}")
    counts = _target_counts(t.reshape(-1, dim), dim)
    return keep_versions(
        MultilabelMarginLossBackward0.apply(
            input, counts=counts, reduction=how, batched=how == "none" and ndims == 2
        ),
        target,
    )


# --- linear_cross_entropy ----------------------------------------------------------------


def linear_cross_entropy(
    input: Tensor,
    linear_weight: Tensor,
    target: Tensor,
    *,
    linear_bias: Tensor | None = None,
    weight: Tensor | None = None,
    reduction: str = "mean",
    ignore_index: int | None = None,
    label_smoothing: float = 0.0,
    options: object | None = None,
) -> Tensor:
    """``cross_entropy(linear(input, linear_weight, linear_bias), target, ...)``.

    ``input`` is (in,) or (N, in); ``linear_weight`` is (C, *out_features, in): with
    ``out_features`` the logits are (N, C, *out_features), a K-dimensional loss.
    ``options`` configures PyTorch's chunked, memory-saving implementation; glassgrad
    computes the reference composition and refuses ``options`` rather than ignore it.

    Example::

        >>> F = glassgrad.nn.functional
        >>> F.linear_cross_entropy(glassgrad.ones(1, 2), glassgrad.zeros(3, 2), glassgrad.tensor([1]))
        tensor(1.0986)
    """
    op = "linear_cross_entropy"
    check_tensor(input, op)
    check_tensor(linear_weight, op, "linear_weight", 2)
    check_tensor(target, op, "target", 3)
    if options is not None:
        raise NotImplementedError(
            f"{op}: options (PyTorch's chunked implementation) is not supported; glassgrad "
            "computes linear followed by cross_entropy: pass options=None"
        )
    if input.dim() < 1 or input.dim() > 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.dim()}")
    if linear_weight.dim() < 2:
        raise RuntimeError(
            f"expected linear_weight with dimensionality at least 2, got {linear_weight.dim()}"
        )
    batches, in_features = tuple(input.shape[:-1]), input.shape[-1]
    if in_features != linear_weight.shape[-1]:
        raise RuntimeError(
            "expected equal input and linear_weight last dimensions (in_features), got "
            f"{input.shape[-1]} and {linear_weight.shape[-1]}, respectively"
        )
    classes, out_features = linear_weight.shape[0], tuple(linear_weight.shape[1:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != (classes, *out_features):
        raise RuntimeError(
            f"expected linear_bias shape {(classes, *out_features)}, got {tuple(linear_bias.shape)}"
        )
    if out_features and not batches:
        raise RuntimeError(
            f"K-dimensional loss defined by linear_weight shape {tuple(linear_weight.shape)} "
            f"requires batched input, (N, {in_features}), got unbatched input with shape "
            f"{tuple(input.shape)}"
        )
    logits_shape = (*batches, classes, *out_features)
    if tuple(target.shape) == logits_shape and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains probabilities")
    flat_weight = shape.reshape(linear_weight, (-1, in_features))
    flat_bias = None if linear_bias is None else shape.reshape(linear_bias, (-1,))
    logits = shape.reshape(linear(input, flat_weight, flat_bias), logits_shape)
    return cross_entropy(
        logits,
        target,
        weight=weight,
        ignore_index=-100 if ignore_index is None else ignore_index,
        reduction=reduction,
        label_smoothing=label_smoothing,
    )


# --- registry ---------------------------------------------------------------------------


def _multi_margin_samples(rng: np.random.Generator) -> list[Sample]:
    target = rng.integers(0, 4, 5)
    return [
        Sample((randn(rng, 5, 4), target)),
        Sample((randn(rng, 5, 4), target), {"p": 2, "margin": 0.7, "reduction": "none"}),
        Sample((randn(rng, 5, 4), target), {"weight": NoGrad(rng.random(4) + 0.5)}),
        Sample((randn(rng, 5, 4), target), {"p": 2, "reduction": "sum"}),
        Sample((randn(rng, 4), np.array(2)), {"reduction": "none"}, note="unbatched"),
    ]


def _multilabel_margin_samples(rng: np.random.Generator) -> list[Sample]:
    target = np.array([[3, 0, -1, 1], [1, 2, 3, 0], [2, -1, 0, 0]])
    return [
        Sample((randn(rng, 3, 4), target)),
        Sample((randn(rng, 3, 4), target), {"reduction": "none"}),
        Sample((randn(rng, 3, 4), np.array([[1, 1, -1, 0]] * 3)), {"reduction": "sum"}),
        Sample((randn(rng, 4), np.array([2, 0, -1, 3])), note="unbatched"),
    ]


def _linear_cross_entropy_samples(rng: np.random.Generator) -> list[Sample]:
    return [
        Sample((randn(rng, 5, 3), randn(rng, 4, 3), rng.integers(0, 4, 5))),
        Sample(
            (randn(rng, 5, 3), randn(rng, 4, 3), rng.integers(0, 4, 5)),
            {"linear_bias": randn(rng, 4), "reduction": "none", "ignore_index": 2},
        ),
        Sample(
            (randn(rng, 5, 3), randn(rng, 4, 2, 3), rng.integers(0, 4, (5, 2))),
            {"weight": NoGrad(rng.random(4) + 0.5), "label_smoothing": 0.1},
            note="K-dimensional",
        ),
        Sample((randn(rng, 3), randn(rng, 4, 3), np.array(1)), {"reduction": "sum"}),
    ]


register(
    "linear_cross_entropy",
    linear_cross_entropy,
    samples=_linear_cross_entropy_samples,
    namespace="nn.functional",
)
register(
    "multi_margin_loss",
    multi_margin_loss,
    nodes=(MultiMarginLossBackward0,),
    samples=_multi_margin_samples,
    namespace="nn.functional",
    second_order=False,  # PyTorch has no derivative of multi_margin_loss_backward
)
register(
    "multilabel_margin_loss",
    multilabel_margin_loss,
    nodes=(MultilabelMarginLossBackward0,),
    samples=_multilabel_margin_samples,
    namespace="nn.functional",
    second_order=False,  # PyTorch has no derivative of multilabel_margin_loss_backward
)

__all__ = ["multi_margin_loss", "multilabel_margin_loss", "linear_cross_entropy"]
