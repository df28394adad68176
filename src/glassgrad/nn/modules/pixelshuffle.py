"""Channel rearranging layers: ``PixelShuffle``, ``PixelUnshuffle``, ``ChannelShuffle``."""

from __future__ import annotations

from ..._tensor import Tensor
from .. import functional as F
from .module import Module

__all__ = ["PixelShuffle", "PixelUnshuffle", "ChannelShuffle"]


class PixelShuffle(Module):
    """(*, C*r^2, H, W) -> (*, C, H*r, W*r) (``F.pixel_shuffle``).

    Example::

        >>> nn.PixelShuffle(3)(glassgrad.randn(1, 9, 4, 4)).shape
        glassgrad.Size([1, 1, 12, 12])
    """

    def __init__(self, upscale_factor: int) -> None:
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input: Tensor) -> Tensor:
        return F.pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self) -> str:
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    """(*, C, H*r, W*r) -> (*, C*r^2, H, W) (``F.pixel_unshuffle``).

    Example::

        >>> nn.PixelUnshuffle(3)(glassgrad.randn(1, 1, 12, 12)).shape
        glassgrad.Size([1, 9, 4, 4])
    """

    def __init__(self, downscale_factor: int) -> None:
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input: Tensor) -> Tensor:
        return F.pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self) -> str:
        return f"downscale_factor={self.downscale_factor}"


class ChannelShuffle(Module):
    """Interleave the channels of (N, C, *) from ``groups`` groups (``F.channel_shuffle``).

    Example::

        >>> nn.ChannelShuffle(2)(glassgrad.arange(4.0).reshape(1, 4, 1)).flatten()
        tensor([0., 2., 1., 3.])
    """

    def __init__(self, groups: int) -> None:
        super().__init__()
        self.groups = groups

    def forward(self, input: Tensor) -> Tensor:
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self) -> str:
        return f"groups={self.groups}"
