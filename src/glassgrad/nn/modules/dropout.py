"""Dropout layers: ``Dropout`` (random elements), ``Dropout1d/2d/3d`` (whole channels),
``AlphaDropout`` and ``FeatureAlphaDropout`` (for SELU networks); all only while training."""

from __future__ import annotations

from ..._tensor import Tensor
from .. import functional as F
from .module import Module

__all__ = [
    "Dropout",
    "Dropout1d",
    "Dropout2d",
    "Dropout3d",
    "AlphaDropout",
    "FeatureAlphaDropout",
]


class Dropout(Module):
    """In training mode, zero each element with probability ``p`` and scale the others by
    ``1 / (1 - p)``; in eval mode, the identity. Draws come from glassgrad's generator.

    Parameters
    ----------
    p : float
        Probability of an element being zeroed (default 0.5).
    inplace : bool
        Write the result into the input.

    Example::

        >>> m = nn.Dropout(p=0.2)
        >>> m.eval()(glassgrad.ones(3))
        tensor([1., 1., 1.])
    """

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class _DropoutNd(Module):
    """Shared arguments and printed form of the channel-wise and alpha dropout layers."""

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Dropout1d(_DropoutNd):
    """Zero whole channels of (N, C, L) or (C, L) with probability ``p`` while training.

    Example::

        >>> nn.Dropout1d(0.2).eval()(glassgrad.ones(1, 2, 3)).shape
        glassgrad.Size([1, 2, 3])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout1d(input, self.p, self.training, self.inplace)


class Dropout2d(_DropoutNd):
    """Zero whole channels of (N, C, H, W) with probability ``p`` while training.

    Example::

        >>> nn.Dropout2d(0.2).eval()(glassgrad.ones(1, 2, 3, 3)).shape
        glassgrad.Size([1, 2, 3, 3])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout2d(input, self.p, self.training, self.inplace)


class Dropout3d(_DropoutNd):
    """Zero whole channels of (N, C, D, H, W) or (C, D, H, W) with probability ``p`` while
    training.

    Example::

        >>> nn.Dropout3d(0.2).eval()(glassgrad.ones(1, 2, 2, 3, 3)).shape
        glassgrad.Size([1, 2, 2, 3, 3])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout3d(input, self.p, self.training, self.inplace)


class AlphaDropout(_DropoutNd):
    """Dropout that keeps SELU's self-normalisation (``F.alpha_dropout``) while training.

    Example::

        >>> nn.AlphaDropout(0.2).eval()(glassgrad.ones(3))
        tensor([1., 1., 1.])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(_DropoutNd):
    """``AlphaDropout`` of whole channels (``F.feature_alpha_dropout``) while training.

    Example::

        >>> nn.FeatureAlphaDropout(0.2).eval()(glassgrad.ones(1, 3))
        tensor([[1., 1., 1.]])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.feature_alpha_dropout(input, self.p, self.training)
