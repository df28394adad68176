"""Pooling layers: ``MaxPool2d``, ``AvgPool2d``, ``AdaptiveAvgPool2d``."""

from __future__ import annotations

from typing import Any

from ..._tensor import Tensor
from .. import functional as F
from .module import Module

__all__ = ["MaxPool2d", "AvgPool2d", "AdaptiveAvgPool2d"]


class MaxPool2d(Module):
    """The maximum over each ``kernel_size`` window of an (N, C, H, W) or (C, H, W) input.

    Parameters
    ----------
    kernel_size : int or tuple
        Window size.
    stride : int or tuple, optional
        Step between windows (default: ``kernel_size``).
    padding : int or tuple
        Implicit negative-infinity padding on both sides.
    dilation : int or tuple
        Spacing between window elements.
    return_indices : bool
        Also return the flat indices of the maxima (for ``MaxUnpool2d``).
    ceil_mode : bool
        Round the output size up instead of down.

    Example::

        >>> nn.MaxPool2d(2)(glassgrad.randn(1, 3, 8, 8)).shape
        glassgrad.Size([1, 3, 4, 4])
    """

    def __init__(
        self,
        kernel_size: int | tuple,
        stride: int | tuple | None = None,
        padding: int | tuple = 0,
        dilation: int | tuple = 1,
        return_indices: bool = False,
        ceil_mode: bool = False,
    ) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def forward(self, input: Tensor) -> Any:
        return F.max_pool2d(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.dilation,
            ceil_mode=self.ceil_mode,
            return_indices=self.return_indices,
        )

    def extra_repr(self) -> str:
        return (
            f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
            f"dilation={self.dilation}, ceil_mode={self.ceil_mode}"
        )


class AvgPool2d(Module):
    """The mean over each ``kernel_size`` window of an (N, C, H, W) or (C, H, W) input.

    Parameters
    ----------
    kernel_size, stride, padding, ceil_mode
        As for ``MaxPool2d`` (zero padding).
    count_include_pad : bool
        Whether padded zeros count in the divisor (default True).
    divisor_override : int, optional
        Divide by this instead of the window size.

    Example::

        >>> nn.AvgPool2d(3, stride=2)(glassgrad.randn(1, 3, 9, 9)).shape
        glassgrad.Size([1, 3, 4, 4])
    """

    def __init__(
        self,
        kernel_size: int | tuple,
        stride: int | tuple | None = None,
        padding: int | tuple = 0,
        ceil_mode: bool = False,
        count_include_pad: bool = True,
        divisor_override: int | None = None,
    ) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input: Tensor) -> Tensor:
        return F.avg_pool2d(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.ceil_mode,
            self.count_include_pad,
            self.divisor_override,
        )

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AdaptiveAvgPool2d(Module):
    """Average pooling to a fixed output size (H_out, W_out), whatever the input size.

    Parameters
    ----------
    output_size : int, tuple or None entries
        Target size; ``None`` keeps that dimension's input size.

    Example::

        >>> nn.AdaptiveAvgPool2d((5, 7))(glassgrad.randn(1, 64, 8, 9)).shape
        glassgrad.Size([1, 64, 5, 7])
    """

    def __init__(self, output_size: int | tuple) -> None:
        super().__init__()
        self.output_size = output_size

    def forward(self, input: Tensor) -> Tensor:
        return F.adaptive_avg_pool2d(input, self.output_size)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"
