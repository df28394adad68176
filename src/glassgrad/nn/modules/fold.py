"""Sliding-block layers: ``Unfold`` (im2col) and ``Fold`` (col2im)."""

from __future__ import annotations

from typing import Any

from ..._tensor import Tensor
from .. import functional as F
from .module import Module

__all__ = ["Fold", "Unfold"]


class Fold(Module):
    """Sum the columns of (N, C*prod(kernel_size), L) into their blocks of an output of
    spatial size ``output_size`` (``F.fold``; overlapping blocks add up).

    Example::

        >>> nn.Fold(output_size=(4, 5), kernel_size=(2, 2))(glassgrad.ones(1, 12, 12)).shape
        glassgrad.Size([1, 3, 4, 5])
    """

    def __init__(
        self,
        output_size: Any,
        kernel_size: Any,
        dilation: Any = 1,
        padding: Any = 0,
        stride: Any = 1,
    ) -> None:
        super().__init__()
        self.output_size = output_size
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input: Tensor) -> Tensor:
        return F.fold(
            input, self.output_size, self.kernel_size, self.dilation, self.padding, self.stride
        )

    def extra_repr(self) -> str:
        return (
            f"output_size={self.output_size}, kernel_size={self.kernel_size}, "
            f"dilation={self.dilation}, padding={self.padding}, stride={self.stride}"
        )


class Unfold(Module):
    """Every ``kernel_size`` block of (N, C, H, W) as a column of (N, C*prod(kernel_size), L)
    (``F.unfold``).

    Example::

        >>> nn.Unfold(kernel_size=(2, 3))(glassgrad.randn(2, 5, 3, 4)).shape
        glassgrad.Size([2, 30, 4])
    """

    def __init__(
        self, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1
    ) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input: Tensor) -> Tensor:
        return F.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self) -> str:
        return (
            f"kernel_size={self.kernel_size}, dilation={self.dilation}, padding={self.padding}, "
            f"stride={self.stride}"
        )
