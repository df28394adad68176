"""Loss modules: each calls the matching ``nn.functional`` loss with its settings.

``reduction`` is ``"mean"`` (default), ``"sum"`` or ``"none"``; the pre-1.0 arguments
``size_average`` and ``reduce`` are still accepted (with PyTorch's deprecation warning).
"""

from __future__ import annotations

import warnings

from ..._tensor import Tensor
from .. import functional as F
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
