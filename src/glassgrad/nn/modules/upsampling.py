"""Upsampling layers: ``Upsample``, ``UpsamplingNearest2d``, ``UpsamplingBilinear2d``."""

from __future__ import annotations

from typing import Any

from ..._tensor import Tensor
from .. import functional as F
from .module import Module

__all__ = ["Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d"]


class Upsample(Module):
    """``F.interpolate`` as a layer: resample (N, C, *spatial) to ``size`` or by
    ``scale_factor`` with ``mode`` (nearest, nearest-exact, linear, bilinear, bicubic,
    trilinear, area).

    Example::

        >>> nn.Upsample(scale_factor=2, mode="bilinear")(glassgrad.randn(1, 3, 4, 4)).shape
        glassgrad.Size([1, 3, 8, 8])
    """

    name: str
    scale_factor: tuple[float, ...]

    def __init__(
        self,
        size: Any = None,
        scale_factor: Any = None,
        mode: str = "nearest",
        align_corners: bool | None = None,
        recompute_scale_factor: bool | None = None,
    ) -> None:
        super().__init__()
        self.name = type(self).__name__
        self.size = size
        if isinstance(scale_factor, tuple):
            self.scale_factor = tuple(float(factor) for factor in scale_factor)
        else:
            self.scale_factor = float(scale_factor) if scale_factor else None
        self.mode = mode
        self.align_corners = align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input: Tensor) -> Tensor:
        return F.interpolate(
            input,
            self.size,
            self.scale_factor,
            self.mode,
            self.align_corners,
            recompute_scale_factor=self.recompute_scale_factor,
        )

    def extra_repr(self) -> str:
        if self.scale_factor is not None:
            info = "scale_factor=" + repr(self.scale_factor)
        else:
            info = "size=" + repr(self.size)
        return info + ", mode=" + repr(self.mode)


class UpsamplingNearest2d(Upsample):
    """``Upsample(size, scale_factor, mode="nearest")`` for (N, C, H, W) inputs.

    Example::

        >>> nn.UpsamplingNearest2d(scale_factor=2)(glassgrad.randn(1, 3, 4, 4)).shape
        glassgrad.Size([1, 3, 8, 8])
    """

    def __init__(self, size: Any = None, scale_factor: Any = None) -> None:
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    """``Upsample(size, scale_factor, mode="bilinear", align_corners=True)``.

    Example::

        >>> nn.UpsamplingBilinear2d(scale_factor=2)(glassgrad.randn(1, 3, 4, 4)).shape
        glassgrad.Size([1, 3, 8, 8])
    """

    def __init__(self, size: Any = None, scale_factor: Any = None) -> None:
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)
