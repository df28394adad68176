"""Loss modules: each calls the matching ``nn.functional`` loss with its settings.

``reduction`` is ``"mean"`` (default), ``"sum"`` or ``"none"``; the pre-1.0 arguments
``size_average`` and ``reduce`` are still accepted (with PyTorch's deprecation warning).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable

from ..._tensor import Tensor
from .. import functional as F
from .distance import PairwiseDistance
from .module import Module

__all__ = [
    "L1Loss",
    "MSELoss",
    "SmoothL1Loss",
    "HuberLoss",
    "CrossEntropyLoss",
    "NLLLoss",
    "BCELoss",
    "BCEWithLogitsLoss",
    "KLDivLoss",
    "MarginRankingLoss",
    "HingeEmbeddingLoss",
    "SoftMarginLoss",
    "CosineEmbeddingLoss",
    "TripletMarginLoss",
    "TripletMarginWithDistanceLoss",
    "MultiLabelSoftMarginLoss",
    "PoissonNLLLoss",
    "GaussianNLLLoss",
]


def legacy_reduction(size_average: bool | None, reduce: bool | None) -> str:
    """The ``reduction`` string for the deprecated ``size_average``/``reduce`` pair."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    if size_average and reduce:
        reduction = "mean"
    elif reduce:
        reduction = "sum"
    else:
        reduction = "none"
    warnings.warn(
        "size_average and reduce args will be deprecated, please use "
        f"reduction='{reduction}' instead.",
        UserWarning,
        stacklevel=3,
    )
    return reduction


class _Loss(Module):
    def __init__(
        self, size_average: bool | None = None, reduce: bool | None = None, reduction: str = "mean"
    ) -> None:
        super().__init__()
        if size_average is not None or reduce is not None:
            reduction = legacy_reduction(size_average, reduce)
        self.reduction = reduction


class _WeightedLoss(_Loss):
    def __init__(
        self,
        weight: Tensor | None = None,
        size_average: bool | None = None,
        reduce: bool | None = None,
        reduction: str = "mean",
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)


class L1Loss(_Loss):
    """Mean (or sum) absolute error ``|input - target|``.

    Example::

        >>> nn.L1Loss()(glassgrad.tensor([1.0, 2.0]), glassgrad.tensor([0.0, 0.0]))
        tensor(1.5000)
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.l1_loss(input, target, reduction=self.reduction)


class MSELoss(_Loss):
    """Mean (or sum) squared error ``(input - target)^2``.

    Example::

        >>> nn.MSELoss()(glassgrad.tensor([1.0, 2.0]), glassgrad.tensor([0.0, 0.0]))
        tensor(2.5000)
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.mse_loss(input, target, reduction=self.reduction)


class SmoothL1Loss(_Loss):
    """``0.5 d^2 / beta`` where ``|d| < beta``, ``|d| - 0.5 beta`` elsewhere
    (``d = input - target``).

    Example::

        >>> nn.SmoothL1Loss()(glassgrad.tensor([0.5, 3.0]), glassgrad.tensor([0.0, 0.0]))
        tensor(1.3125)
    """

    def __init__(
        self,
        size_average: bool | None = None,
        reduce: bool | None = None,
        reduction: str = "mean",
        beta: float = 1.0,
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.beta = beta

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(_Loss):
    """``0.5 d^2`` where ``|d| < delta``, ``delta (|d| - 0.5 delta)`` elsewhere.

    Example::

        >>> nn.HuberLoss(delta=2.0)(glassgrad.tensor([3.0]), glassgrad.tensor([0.0]))
        tensor(4.)
    """

    def __init__(self, reduction: str = "mean", delta: float = 1.0) -> None:
        super().__init__(reduction=reduction)
        self.delta = delta

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class CrossEntropyLoss(_WeightedLoss):
    """Cross entropy between logits (N, C, ...) and class indices (N, ...) or class
    probabilities (N, C, ...): ``log_softmax`` followed by ``nll_loss``.

    Parameters
    ----------
    weight : Tensor of shape (C,), optional
        A weight per class (a buffer of the module).
    ignore_index : int
        Targets with this class index add nothing (and leave the mean's divisor).
    reduction : {"mean", "sum", "none"}
    label_smoothing : float
        Mix the targets with the uniform distribution by this amount.

    Example::

        >>> loss = nn.CrossEntropyLoss()
        >>> loss(glassgrad.zeros(2, 3), glassgrad.tensor([0, 2]))
        tensor(1.0986)
    """

    def __init__(
        self,
        weight: Tensor | None = None,
        size_average: bool | None = None,
        ignore_index: int = -100,
        reduce: bool | None = None,
        reduction: str = "mean",
        label_smoothing: float = 0.0,
    ) -> None:
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.cross_entropy(
            input,
            target,
            weight=self.weight,
            ignore_index=self.ignore_index,
            reduction=self.reduction,
            label_smoothing=self.label_smoothing,
        )


class NLLLoss(_WeightedLoss):
    """Negative log likelihood: ``-input[n, target[n]]`` (input holds log-probabilities),
    weighted per class.

    Example::

        >>> nn.NLLLoss()(glassgrad.tensor([[-1.0, -2.0]]), glassgrad.tensor([1]))
        tensor(2.)
    """

    def __init__(
        self,
        weight: Tensor | None = None,
        size_average: bool | None = None,
        ignore_index: int = -100,
        reduce: bool | None = None,
        reduction: str = "mean",
    ) -> None:
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.nll_loss(
            input,
            target,
            weight=self.weight,
            ignore_index=self.ignore_index,
            reduction=self.reduction,
        )


class BCELoss(_WeightedLoss):
    """Binary cross entropy between probabilities and targets in [0, 1]:
    ``-(t log p + (1 - t) log(1 - p))``, logs clamped at -100.

    Example::

        >>> nn.BCELoss()(glassgrad.tensor([0.5]), glassgrad.tensor([1.0]))
        tensor(0.6931)
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.binary_cross_entropy(input, target, weight=self.weight, reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    """``sigmoid`` followed by binary cross entropy, computed stably from logits.

    Parameters
    ----------
    weight : Tensor, optional
        A rescaling weight broadcast over the batch (a buffer).
    pos_weight : Tensor, optional
        A weight of the positive examples, per class (a buffer).

    Example::

        >>> nn.BCEWithLogitsLoss()(glassgrad.tensor([0.0]), glassgrad.tensor([1.0]))
        tensor(0.6931)
    """

    def __init__(
        self,
        weight: Tensor | None = None,
        size_average: bool | None = None,
        reduce: bool | None = None,
        reduction: str = "mean",
        pos_weight: Tensor | None = None,
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.binary_cross_entropy_with_logits(
            input, target, self.weight, pos_weight=self.pos_weight, reduction=self.reduction
        )


class KLDivLoss(_Loss):
    """Kullback-Leibler divergence ``target * (log target - input)`` with ``input`` given
    as log-probabilities (and ``target`` too, with ``log_target=True``).

    ``reduction="batchmean"`` divides the sum by the batch size (the mathematically correct
    KL divergence); ``"mean"`` divides by the number of elements.

    Example::

        >>> log_probs = nn.functional.log_softmax(glassgrad.zeros(1, 2), dim=1)
        >>> nn.KLDivLoss(reduction="batchmean")(log_probs, glassgrad.tensor([[0.5, 0.5]]))
        tensor(0.)
    """

    def __init__(
        self,
        size_average: bool | None = None,
        reduce: bool | None = None,
        reduction: str = "mean",
        log_target: bool = False,
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.log_target = log_target

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)


class MarginRankingLoss(_Loss):
    """``max(0, -target * (input1 - input2) + margin)`` (``F.margin_ranking_loss``).

    Example::

        >>> loss = nn.MarginRankingLoss()
        >>> loss(glassgrad.tensor([1.0]), glassgrad.tensor([2.0]), glassgrad.tensor([1.0]))
        tensor(1.)
    """

    __constants__: list[str] = ["margin", "reduction"]

    def __init__(
        self,
        margin: float = 0.0,
        size_average: bool | None = None,
        reduce: bool | None = None,
        reduction: str = "mean",
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1: Tensor, input2: Tensor, target: Tensor) -> Tensor:
        return F.margin_ranking_loss(
            input1, input2, target, margin=self.margin, reduction=self.reduction
        )


class HingeEmbeddingLoss(_Loss):
    """``input`` where ``target`` is 1, ``max(0, margin - input)`` where it is -1
    (``F.hinge_embedding_loss``).

    Example::

        >>> nn.HingeEmbeddingLoss()(glassgrad.tensor([0.3, 2.0]), glassgrad.tensor([-1.0, 1.0]))
        tensor(1.3500)
    """

    __constants__: list[str] = ["margin", "reduction"]

    def __init__(
        self,
        margin: float = 1.0,
        size_average: bool | None = None,
        reduce: bool | None = None,
        reduction: str = "mean",
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.hinge_embedding_loss(input, target, margin=self.margin, reduction=self.reduction)


class SoftMarginLoss(_Loss):
    """Two-class logistic loss ``log(1 + exp(-target * input))`` (``F.soft_margin_loss``).

    Example::

        >>> nn.SoftMarginLoss()(glassgrad.tensor([0.0]), glassgrad.tensor([1.0]))
        tensor(0.6931)
    """

    __constants__: list[str] = ["reduction"]

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.soft_margin_loss(input, target, reduction=self.reduction)


class CosineEmbeddingLoss(_Loss):
    """``1 - cos(x1, x2)`` for ``target`` 1, ``max(0, cos(x1, x2) - margin)`` for -1
    (``F.cosine_embedding_loss``).

    Example::

        >>> x = glassgrad.tensor([[1.0, 0.0]])
        >>> nn.CosineEmbeddingLoss()(x, x, glassgrad.tensor([1.0]))
        tensor(0.)
    """

    __constants__: list[str] = ["margin", "reduction"]

    def __init__(
        self,
        margin: float = 0.0,
        size_average: bool | None = None,
        reduce: bool | None = None,
        reduction: str = "mean",
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1: Tensor, input2: Tensor, target: Tensor) -> Tensor:
        return F.cosine_embedding_loss(
            input1, input2, target, margin=self.margin, reduction=self.reduction
        )


class TripletMarginLoss(_Loss):
    """``max(0, margin + d(a, p) - d(a, n))`` with the ``p``-norm distance
    (``F.triplet_margin_loss``).

    Example::

        >>> a, p, n = glassgrad.zeros(1, 2), glassgrad.zeros(1, 2), glassgrad.ones(1, 2)
        >>> nn.TripletMarginLoss(margin=2.0)(a, p, n)
        tensor(0.5858)
    """

    __constants__: list[str] = ["margin", "p", "eps", "swap", "reduction"]

    def __init__(
        self,
        margin: float = 1.0,
        p: float = 2.0,
        eps: float = 1e-6,
        swap: bool = False,
        size_average: bool | None = None,
        reduce: bool | None = None,
        reduction: str = "mean",
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        if margin <= 0:
            raise ValueError(
                f"TripletMarginLoss: expected margin to be greater than 0, got {margin} instead"
            )
        self.margin = margin
        self.p = p
        self.eps = eps
        self.swap = swap

    def forward(self, anchor: Tensor, positive: Tensor, negative: Tensor) -> Tensor:
        return F.triplet_margin_loss(
            anchor,
            positive,
            negative,
            margin=self.margin,
            p=self.p,
            eps=self.eps,
            swap=self.swap,
            reduction=self.reduction,
        )


class TripletMarginWithDistanceLoss(_Loss):
    """``TripletMarginLoss`` with any ``distance_function`` (default ``PairwiseDistance()``).

    Example::

        >>> a, p, n = glassgrad.zeros(1, 2), glassgrad.zeros(1, 2), glassgrad.ones(1, 2)
        >>> nn.TripletMarginWithDistanceLoss(margin=2.0)(a, p, n)
        tensor(0.5858)
    """

    distance_function: Callable[[Tensor, Tensor], Tensor]

    __constants__: list[str] = ["margin", "swap", "reduction"]

    def __init__(
        self,
        *,
        distance_function: Callable[[Tensor, Tensor], Tensor] | None = None,
        margin: float = 1.0,
        swap: bool = False,
        reduction: str = "mean",
    ) -> None:
        super().__init__(size_average=None, reduce=None, reduction=reduction)
        if margin <= 0:
            raise ValueError(
                "TripletMarginWithDistanceLoss: expected margin to be greater than 0, got "
                f"{margin} instead"
            )
        self.distance_function = (
            distance_function if distance_function is not None else PairwiseDistance()
        )
        self.margin = margin
        self.swap = swap

    def forward(self, anchor: Tensor, positive: Tensor, negative: Tensor) -> Tensor:
        return F.triplet_margin_with_distance_loss(
            anchor,
            positive,
            negative,
            distance_function=self.distance_function,
            margin=self.margin,
            swap=self.swap,
            reduction=self.reduction,
        )


class MultiLabelSoftMarginLoss(_WeightedLoss):
    """Per-class logistic loss averaged over the classes (``F.multilabel_soft_margin_loss``).

    Example::

        >>> nn.MultiLabelSoftMarginLoss()(glassgrad.zeros(1, 2), glassgrad.tensor([[1.0, 0.0]]))
        tensor(0.6931)
    """

    __constants__: list[str] = ["reduction"]

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.multilabel_soft_margin_loss(
            input, target, weight=self.weight, reduction=self.reduction
        )


class PoissonNLLLoss(_Loss):
    """Poisson negative log likelihood (``F.poisson_nll_loss``).

    Example::

        >>> nn.PoissonNLLLoss()(glassgrad.tensor([0.0]), glassgrad.tensor([2.0]))
        tensor(1.)
    """

    __constants__: list[str] = ["log_input", "full", "eps", "reduction"]

    def __init__(
        self,
        log_input: bool = True,
        full: bool = False,
        size_average: bool | None = None,
        eps: float = 1e-8,
        reduce: bool | None = None,
        reduction: str = "mean",
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.log_input = log_input
        self.full = full
        self.eps = eps

    def forward(self, log_input: Tensor, target: Tensor) -> Tensor:
        return F.poisson_nll_loss(
            log_input,
            target,
            log_input=self.log_input,
            full=self.full,
            eps=self.eps,
            reduction=self.reduction,
        )


class GaussianNLLLoss(_Loss):
    """Gaussian negative log likelihood with predicted variances (``F.gaussian_nll_loss``).

    Example::

        >>> nn.GaussianNLLLoss()(glassgrad.tensor([1.0]), glassgrad.tensor([0.0]), glassgrad.ones(1))
        tensor(0.5000)
    """

    __constants__: list[str] = ["full", "eps", "reduction"]

    def __init__(self, *, full: bool = False, eps: float = 1e-6, reduction: str = "mean") -> None:
        super().__init__(None, None, reduction)
        self.full = full
        self.eps = eps

    def forward(self, input: Tensor, target: Tensor, var: Tensor | float) -> Tensor:
        return F.gaussian_nll_loss(
            input, target, var, full=self.full, eps=self.eps, reduction=self.reduction
        )
