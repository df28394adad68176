"""``Dropout``: zero random elements while training (and scale the others by 1/(1-p))."""

from __future__ import annotations

from ..._tensor import Tensor
from .. import functional as F
from .module import Module

__all__ = ["Dropout"]


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
