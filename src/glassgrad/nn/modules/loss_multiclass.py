"""Multi-class losses beyond cross entropy: ``MultiMarginLoss``, ``MultiLabelMarginLoss``,
``LinearCrossEntropyLoss`` (a linear head fused with cross entropy), ``CTCLoss`` (sequences
without alignment) and the deprecated ``NLLLoss2d``."""

from __future__ import annotations

import math
import warnings
from typing import Any

from ..._tensor import Tensor
from .. import functional as F
from .linear import Linear
from .linear_cross_entropy_options import LinearCrossEntropyOptions
from .loss import NLLLoss, _Loss, _WeightedLoss

__all__ = [
    "MultiMarginLoss",
    "MultiLabelMarginLoss",
    "LinearCrossEntropyLoss",
    "CTCLoss",
    "NLLLoss2d",
]


class MultiMarginLoss(_WeightedLoss):
    """Multi-class hinge loss between scores (N, C) and class indices (N,)
    (``F.multi_margin_loss``).

    Example::

        >>> nn.MultiMarginLoss()(glassgrad.tensor([[0.1, 0.2, 0.4, 0.8]]), glassgrad.tensor([3]))
        tensor(0.3250)
    """

    __constants__: list[str] = ["p", "margin", "reduction"]

    def __init__(
        self,
        p: int = 1,
        margin: float = 1.0,
        weight: Tensor | None = None,
        size_average: bool | None = None,
        reduce: bool | None = None,
        reduction: str = "mean",
    ) -> None:
        super().__init__(weight, size_average, reduce, reduction)
        if p != 1 and p != 2:
            raise ValueError("only p == 1 and p == 2 supported")
        if weight is not None and weight.dim() != 1:
            raise ValueError(
                "MultiMarginLoss: expected weight to be None or 1D tensor, got "
                f"{weight.dim()}D instead"
            )
        self.p = p
        self.margin = margin

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.multi_margin_loss(
            input, target, p=self.p, margin=self.margin, weight=self.weight,
            reduction=self.reduction,
        )  # fmt: skip


class MultiLabelMarginLoss(_Loss):
    """Multi-label hinge loss; each row of the target lists classes up to its first -1
    (``F.multilabel_margin_loss``).

    Example::

        >>> loss = nn.MultiLabelMarginLoss()
        >>> loss(glassgrad.tensor([[0.1, 0.2, 0.4, 0.8]]), glassgrad.tensor([[3, 0, -1, 1]]))
        tensor(0.8500)
    """

    __constants__: list[str] = ["reduction"]

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.multilabel_margin_loss(input, target, reduction=self.reduction)


class NLLLoss2d(NLLLoss):
    """``NLLLoss`` under its old name for images; deprecated in PyTorch (FutureWarning)."""

    def __init__(
        self,
        weight: Tensor | None = None,
        size_average: bool | None = None,
        ignore_index: int = -100,
        reduce: bool | None = None,
        reduction: str = "mean",
    ) -> None:
        warnings.warn(
            "`NLLLoss2d` has been deprecated. Please use `NLLLoss` instead as a drop-in "
            "replacement and see https://pytorch.org/docs/main/nn.html#torch.nn.NLLLoss for "
            "more details.",
            FutureWarning,
            stacklevel=2,
        )
        super().__init__(weight, size_average, ignore_index, reduce, reduction)


class LinearCrossEntropyLoss(_WeightedLoss):
    """A linear layer to ``num_classes`` (times ``out_features``) logits followed by cross
    entropy (``F.linear_cross_entropy``); the layer is ``self.linear``.

    Example::

        >>> loss = nn.LinearCrossEntropyLoss(3, 4)
        >>> loss(glassgrad.randn(2, 3), glassgrad.tensor([0, 3])).shape
        glassgrad.Size([])
    """

    linear: Linear

    def __init__(
        self,
        in_features: int,
        num_classes: int,
        *,
        out_features: tuple[int, ...] = (),
        bias: bool = False,
        device: Any = None,
        dtype: Any = None,
        reduction: str = "mean",
        weight: Tensor | None = None,
        ignore_index: int | None = None,
        label_smoothing: float = 0.0,
        options: LinearCrossEntropyOptions | None = None,
    ) -> None:
        if weight is not None and tuple(weight.shape) != (num_classes,):
            raise RuntimeError(
                f"expected weight shape to be {(num_classes,)}, got {tuple(weight.shape)}"
            )
        if label_smoothing < 0 or label_smoothing > 1.0:
            raise RuntimeError(
                f"expected label_smoothing to be in range [0, 1], got {label_smoothing}"
            )
        super().__init__(weight=weight, size_average=None, reduce=None, reduction=reduction)
        self.num_classes = num_classes
        self.out_features = out_features
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing
        # Stored as a 2-d Linear, reshaped to (num_classes, *out_features, in) in forward.
        self.linear = Linear(
            in_features,
            math.prod(out_features, start=num_classes),
            bias=bias,
            device=device,
            dtype=dtype,
        )
        self.options = options

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        linear_weight = self.linear.weight.reshape(
            (self.num_classes, *self.out_features, self.linear.in_features)
        )
        linear_bias = None
        if self.linear.bias is not None:
            linear_bias = self.linear.bias.reshape((self.num_classes, *self.out_features))
        return F.linear_cross_entropy(
            input,
            linear_weight,
            target,
            linear_bias=linear_bias,
            weight=self.weight,
            reduction=self.reduction,
            ignore_index=self.ignore_index,
            label_smoothing=self.label_smoothing,
            options=self.options,
        )

    def extra_repr(self) -> str:
        return (
            f"in_features={self.linear.in_features}, num_classes={self.num_classes}, "
            f"out_features={self.out_features}, bias={self.linear.bias is not None}, "
            f"reduction={self.reduction}, ignore_index={self.ignore_index}, "
            f"label_smoothing={self.label_smoothing}, options={self.options}"
        )


class CTCLoss(_Loss):
    """The connectionist temporal classification loss (``F.ctc_loss``): ``forward(log_probs,
    targets, input_lengths, target_lengths)``.

    Example::

        >>> loss = nn.CTCLoss()
        >>> log_probs = glassgrad.randn(6, 2, 4).log_softmax(2)
        >>> loss(log_probs, glassgrad.tensor([[1, 2], [3, 3]]), [6, 6], [2, 2]).shape
        glassgrad.Size([])
    """

    __constants__: list[str] = ["blank", "reduction"]

    def __init__(self, blank: int = 0, reduction: str = "mean", zero_infinity: bool = False):
        super().__init__(reduction=reduction)
        self.blank = blank
        self.zero_infinity = zero_infinity

    def forward(
        self, log_probs: Tensor, targets: Tensor, input_lengths: Any, target_lengths: Any
    ) -> Tensor:
        return F.ctc_loss(
            log_probs, targets, input_lengths, target_lengths, self.blank, self.reduction,
            self.zero_infinity,
        )  # fmt: skip
