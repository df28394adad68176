"""Pooling layers: ``MaxPool1d/2d/3d``, ``AvgPool1d/2d/3d``, ``AdaptiveAvgPool1d/2d/3d``,
``AdaptiveMaxPool1d/2d/3d``, ``MaxUnpool1d/2d/3d``, ``LPPool1d/2d/3d``."""

from __future__ import annotations

from typing import Any

from ..._tensor import Tensor
from .. import functional as F
from ._utils import ntuple
from .module import Module

__all__ = [
    "MaxPool1d",
    "MaxPool2d",
    "MaxPool3d",
    "AvgPool1d",
    "AvgPool2d",
    "AvgPool3d",
    "AdaptiveAvgPool1d",
    "AdaptiveAvgPool2d",
    "AdaptiveAvgPool3d",
    "AdaptiveMaxPool1d",
    "AdaptiveMaxPool2d",
    "AdaptiveMaxPool3d",
    "MaxUnpool1d",
    "MaxUnpool2d",
    "MaxUnpool3d",
    "LPPool1d",
    "LPPool2d",
    "LPPool3d",
]


class _MaxPoolNd(Module):
    """Shared arguments and printed form of ``MaxPool1d/2d/3d``."""

    stride: int | tuple[int, ...]

    _pool: Any = None

    def __init__(
        self,
        kernel_size: int | tuple[int, ...],
        stride: int | tuple[int, ...] | None = None,
        padding: int | tuple[int, ...] = 0,
        dilation: int | tuple[int, ...] = 1,
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
        return type(self)._pool(
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


class MaxPool1d(_MaxPoolNd):
    """The maximum over each ``kernel_size`` window of an (N, C, L) or (C, L) input (arguments
    as ``MaxPool2d``).

    Example::

        >>> nn.MaxPool1d(2)(glassgrad.randn(1, 3, 8)).shape
        glassgrad.Size([1, 3, 4])
    """

    _pool = staticmethod(F.max_pool1d)


class MaxPool2d(_MaxPoolNd):
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

    _pool = staticmethod(F.max_pool2d)


class MaxPool3d(_MaxPoolNd):
    """The maximum over each ``kernel_size`` window of an (N, C, T, H, W) or (C, T, H, W) input
    (arguments as ``MaxPool2d``).

    Example::

        >>> nn.MaxPool3d(2)(glassgrad.randn(1, 3, 4, 8, 8)).shape
        glassgrad.Size([1, 3, 2, 4, 4])
    """

    _pool = staticmethod(F.max_pool3d)


class AvgPool1d(Module):
    """The mean over each ``kernel_size`` window of an (N, C, L) or (C, L) input (arguments as
    ``AvgPool2d``, without ``divisor_override``).

    Example::

        >>> nn.AvgPool1d(3, stride=2)(glassgrad.randn(1, 3, 9)).shape
        glassgrad.Size([1, 3, 4])
    """

    kernel_size: tuple[int, ...]
    stride: tuple[int, ...]
    padding: tuple[int, ...]

    def __init__(
        self,
        kernel_size: int | tuple[int, ...],
        stride: int | tuple[int, ...] | None = None,
        padding: int | tuple[int, ...] = 0,
        ceil_mode: bool = False,
        count_include_pad: bool = True,
    ) -> None:
        super().__init__()
        self.kernel_size = _single(kernel_size)
        self.stride = _single(stride if stride is not None else kernel_size)
        self.padding = _single(padding)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, input: Tensor) -> Tensor:
        return F.avg_pool1d(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.ceil_mode,
            self.count_include_pad,
        )

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


def _single(value: Any) -> tuple[int, ...]:
    return tuple(value) if isinstance(value, (tuple, list)) else (value,)


class _AvgPoolNd(Module):
    """Shared arguments and printed form of ``AvgPool2d/3d``."""

    stride: int | tuple[int, ...]

    _pool: Any = None

    def __init__(
        self,
        kernel_size: int | tuple[int, ...],
        stride: int | tuple[int, ...] | None = None,
        padding: int | tuple[int, ...] = 0,
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
        return type(self)._pool(
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


class AvgPool2d(_AvgPoolNd):
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

    _pool = staticmethod(F.avg_pool2d)


class AvgPool3d(_AvgPoolNd):
    """The mean over each ``kernel_size`` window of an (N, C, T, H, W) or (C, T, H, W) input
    (arguments as ``AvgPool2d``).

    Example::

        >>> nn.AvgPool3d(2)(glassgrad.randn(1, 3, 4, 8, 8)).shape
        glassgrad.Size([1, 3, 2, 4, 4])
    """

    _pool = staticmethod(F.avg_pool3d)


class _AdaptiveAvgPoolNd(Module):
    """Shared arguments and printed form of ``AdaptiveAvgPool1d/2d/3d``."""

    _pool: Any = None

    def __init__(self, output_size: int | tuple[int | None, ...] | None) -> None:
        super().__init__()
        self.output_size = output_size

    def forward(self, input: Tensor) -> Tensor:
        return type(self)._pool(input, self.output_size)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_AdaptiveAvgPoolNd):
    """Average pooling of (N, C, L) or (C, L) to ``output_size`` positions, whatever L.

    Example::

        >>> nn.AdaptiveAvgPool1d(5)(glassgrad.randn(1, 64, 8)).shape
        glassgrad.Size([1, 64, 5])
    """

    _pool = staticmethod(F.adaptive_avg_pool1d)


class AdaptiveAvgPool2d(_AdaptiveAvgPoolNd):
    """Average pooling to a fixed output size (H_out, W_out), whatever the input size.

    Parameters
    ----------
    output_size : int, tuple or None entries
        Target size; ``None`` keeps that dimension's input size.

    Example::

        >>> nn.AdaptiveAvgPool2d((5, 7))(glassgrad.randn(1, 64, 8, 9)).shape
        glassgrad.Size([1, 64, 5, 7])
    """

    _pool = staticmethod(F.adaptive_avg_pool2d)


class AdaptiveAvgPool3d(_AdaptiveAvgPoolNd):
    """Average pooling of (N, C, T, H, W) or (C, T, H, W) to a fixed output size.

    Example::

        >>> nn.AdaptiveAvgPool3d((2, 5, 7))(glassgrad.randn(1, 4, 3, 8, 9)).shape
        glassgrad.Size([1, 4, 2, 5, 7])
    """

    _pool = staticmethod(F.adaptive_avg_pool3d)


class _AdaptiveMaxPoolNd(Module):
    """Shared arguments and printed form of ``AdaptiveMaxPool1d/2d/3d``, ``MaxUnpool1d/2d/3d``, ``LPPool1d/2d/3d``."""

    _pool: Any = None

    def __init__(
        self, output_size: int | tuple[int | None, ...] | None, return_indices: bool = False
    ) -> None:
        super().__init__()
        self.output_size = output_size
        self.return_indices = return_indices

    def forward(self, input: Tensor) -> Any:
        return type(self)._pool(input, self.output_size, self.return_indices)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    """Max pooling of (N, C, L) or (C, L) to ``output_size`` positions, whatever L; with
    ``return_indices`` also the positions of the maxima.

    Example::

        >>> nn.AdaptiveMaxPool1d(5)(glassgrad.randn(1, 64, 8)).shape
        glassgrad.Size([1, 64, 5])
    """

    _pool = staticmethod(F.adaptive_max_pool1d)


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    """Max pooling of (N, C, H, W) or (C, H, W) to a fixed output size (``None`` entries keep
    the input's size).

    Example::

        >>> nn.AdaptiveMaxPool2d((5, 7))(glassgrad.randn(1, 64, 8, 9)).shape
        glassgrad.Size([1, 64, 5, 7])
    """

    _pool = staticmethod(F.adaptive_max_pool2d)


class AdaptiveMaxPool3d(_AdaptiveMaxPoolNd):
    """Max pooling of (N, C, T, H, W) or (C, T, H, W) to a fixed output size.

    Example::

        >>> nn.AdaptiveMaxPool3d((2, 5, 7))(glassgrad.randn(1, 4, 3, 8, 9)).shape
        glassgrad.Size([1, 4, 2, 5, 7])
    """

    _pool = staticmethod(F.adaptive_max_pool3d)


class _MaxUnpoolNd(Module):
    """Shared arguments and printed form of ``MaxUnpool1d/2d/3d``."""

    kernel_size: tuple[Any, ...]
    padding: tuple[Any, ...]
    stride: tuple[Any, ...]

    _dims = 1
    _unpool: Any = None

    def __init__(
        self,
        kernel_size: int | tuple[int, ...],
        stride: int | tuple[int, ...] | None = None,
        padding: int | tuple[int, ...] = 0,
    ) -> None:
        super().__init__()
        n = self._dims
        self.kernel_size = ntuple(kernel_size, n)
        self.stride = ntuple(stride if stride is not None else kernel_size, n)
        self.padding = ntuple(padding, n)

    def forward(self, input: Tensor, indices: Tensor, output_size: Any = None) -> Tensor:
        return type(self)._unpool(
            input, indices, self.kernel_size, self.stride, self.padding, output_size
        )

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    """Undo ``MaxPool1d(return_indices=True)``: values back at their positions, zeros
    elsewhere.

    Example::

        >>> pool, unpool = nn.MaxPool1d(2, return_indices=True), nn.MaxUnpool1d(2)
        >>> unpool(*pool(glassgrad.tensor([[[1.0, 3.0, 2.0, 0.0]]])))
        tensor([[[0., 3., 2., 0.]]])
    """

    _dims = 1
    _unpool = staticmethod(F.max_unpool1d)


class MaxUnpool2d(_MaxUnpoolNd):
    """Undo ``MaxPool2d(return_indices=True)`` (``output_size`` picks among the sizes that
    pool to the input's).

    Example::

        >>> pool, unpool = nn.MaxPool2d(2, return_indices=True), nn.MaxUnpool2d(2)
        >>> unpool(*pool(glassgrad.randn(1, 1, 4, 4))).shape
        glassgrad.Size([1, 1, 4, 4])
    """

    _dims = 2
    _unpool = staticmethod(F.max_unpool2d)


class MaxUnpool3d(_MaxUnpoolNd):
    """Undo ``MaxPool3d(return_indices=True)``.

    Example::

        >>> pool, unpool = nn.MaxPool3d(2, return_indices=True), nn.MaxUnpool3d(2)
        >>> unpool(*pool(glassgrad.randn(1, 1, 4, 4, 4))).shape
        glassgrad.Size([1, 1, 4, 4, 4])
    """

    _dims = 3
    _unpool = staticmethod(F.max_unpool3d)


class _LPPoolNd(Module):
    """Shared arguments and printed form of ``LPPool1d/2d/3d``."""

    _pool: Any = None

    def __init__(
        self,
        norm_type: float,
        kernel_size: int | tuple[int, ...],
        stride: int | tuple[int, ...] | None = None,
        ceil_mode: bool = False,
    ) -> None:
        super().__init__()
        self.norm_type = norm_type
        self.kernel_size = kernel_size
        self.stride = stride
        self.ceil_mode = ceil_mode

    def forward(self, input: Tensor) -> Tensor:
        return type(self)._pool(
            input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode
        )

    def extra_repr(self) -> str:
        return (
            f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, "
            f"stride={self.stride}, ceil_mode={self.ceil_mode}"
        )


class LPPool1d(_LPPoolNd):
    """Power-average pooling: ``(sum over the window of x**p) ** (1/p)`` (``F.lp_pool1d``).

    Example::

        >>> nn.LPPool1d(2, 2)(glassgrad.tensor([[[3.0, 4.0]]]))
        tensor([[[5.]]])
    """

    _pool = staticmethod(F.lp_pool1d)


class LPPool2d(_LPPoolNd):
    """Power-average pooling over (N, C, H, W) (``F.lp_pool2d``).

    Example::

        >>> nn.LPPool2d(2, 2)(glassgrad.ones(1, 1, 2, 2))
        tensor([[[[2.]]]])
    """

    _pool = staticmethod(F.lp_pool2d)


class LPPool3d(_LPPoolNd):
    """Power-average pooling over (N, C, D, H, W) (``F.lp_pool3d``).

    Example::

        >>> nn.LPPool3d(1, 2)(glassgrad.ones(1, 1, 2, 2, 2))
        tensor([[[[[8.]]]]])
    """

    _pool = staticmethod(F.lp_pool3d)
