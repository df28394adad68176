"""Fractional max pooling layers: ``FractionalMaxPool2d``, ``FractionalMaxPool3d``."""

from __future__ import annotations

from typing import Any

from ..._tensor import Tensor
from .. import functional as F
from .module import Module

__all__ = ["FractionalMaxPool2d", "FractionalMaxPool3d"]


def _ntuple(value: Any, n: int) -> tuple[Any, ...]:
    return tuple(value) if isinstance(value, (tuple, list)) else (value,) * n


class _FractionalMaxPoolNd(Module):
    kernel_size: tuple[int, ...]
    output_size: tuple[int, ...] | None
    output_ratio: tuple[float, ...] | None

    _nd = 2

    def __init__(
        self,
        kernel_size: Any,
        output_size: Any = None,
        output_ratio: Any = None,
        return_indices: bool = False,
        _random_samples: Tensor | None = None,
    ) -> None:
        super().__init__()
        nd, name = self._nd, type(self).__name__
        self.kernel_size = _ntuple(kernel_size, nd)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = _ntuple(output_size, nd) if output_size is not None else None
        self.output_ratio = _ntuple(output_ratio, nd) if output_ratio is not None else None
        if output_size is None and output_ratio is None:
            raise ValueError(
                f"{name} requires specifying either an output size, or a pooling ratio"
            )
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input: Tensor) -> Any:
        pool = F.fractional_max_pool2d if self._nd == 2 else F.fractional_max_pool3d
        return pool(
            input,
            self.kernel_size,
            self.output_size,
            self.output_ratio,
            self.return_indices,
            _random_samples=self._random_samples,
        )


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    """2-d fractional max pooling (``F.fractional_max_pool2d``) to ``output_size`` or
    ``output_ratio`` of the input; fixed ``_random_samples`` (a buffer) make it deterministic.

    Example::

        >>> nn.FractionalMaxPool2d(3, output_ratio=0.5)(glassgrad.randn(1, 2, 10, 8)).shape
        glassgrad.Size([1, 2, 5, 4])
    """

    _nd = 2


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    """3-d fractional max pooling (``F.fractional_max_pool3d``).

    Example::

        >>> nn.FractionalMaxPool3d(2, output_size=(3, 2, 2))(glassgrad.randn(2, 6, 5, 5)).shape
        glassgrad.Size([2, 3, 2, 2])
    """

    _nd = 3
