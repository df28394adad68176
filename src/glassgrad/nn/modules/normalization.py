"""Per-sample normalization: ``LayerNorm``, ``GroupNorm``, ``RMSNorm``, ``LocalResponseNorm``,
``CrossMapLRN2d``."""

from __future__ import annotations

import numbers
from typing import Any

from ..._tensor import Tensor
from .. import functional as F
from .. import init
from ..parameter import Parameter
from . import _functions
from ._utils import new_parameter
from .module import Module

__all__ = ["LayerNorm", "GroupNorm", "RMSNorm", "LocalResponseNorm", "CrossMapLRN2d"]


class LayerNorm(Module):
    """Normalise over the last ``len(normalized_shape)`` dimensions of each sample, then
    scale and shift elementwise.

    Parameters
    ----------
    normalized_shape : int or tuple
        The trailing shape to normalise over.
    eps : float
        Added to the variance for stability.
    elementwise_affine : bool
        Learn ``weight`` (ones) and, with ``bias``, ``bias`` (zeros) of ``normalized_shape``.
    bias : bool
        Learn the additive bias (when ``elementwise_affine``).

    Example::

        >>> ln = nn.LayerNorm(10)
        >>> ln(glassgrad.randn(20, 5, 10)).shape
        glassgrad.Size([20, 5, 10])
    """

    normalized_shape: tuple[int, ...]
    weight: Parameter | None
    bias: Parameter | None

    def __init__(
        self,
        normalized_shape: int | tuple[int, ...],
        eps: float = 1e-5,
        elementwise_affine: bool = True,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = new_parameter(*self.normalized_shape, dtype=dtype, device=device)
            if bias:
                self.bias = new_parameter(*self.normalized_shape, dtype=dtype, device=device)
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Weight 1 and bias 0."""
        if self.elementwise_affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input: Tensor) -> Tensor:
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (
            f"{self.normalized_shape}, eps={self.eps}, "
            f"elementwise_affine={self.elementwise_affine}, bias={self.bias is not None}"
        )


class GroupNorm(Module):
    """Split the channels (dim 1) into ``num_groups`` groups and normalise each group of
    each sample, then scale and shift per channel.

    Parameters
    ----------
    num_groups : int
        Number of groups (must divide ``num_channels``).
    num_channels : int
        C, the number of channels.
    eps : float
        Added to the variance for stability.
    affine : bool
        Learn ``weight`` (ones) and, with ``bias``, ``bias`` (zeros) per channel.
    bias : bool
        Learn the additive bias (keyword only; when ``affine``).

    Example::

        >>> gn = nn.GroupNorm(3, 6)
        >>> gn(glassgrad.randn(20, 6, 10, 10)).shape
        glassgrad.Size([20, 6, 10, 10])
    """

    weight: Parameter | None
    bias: Parameter | None

    def __init__(
        self,
        num_groups: int,
        num_channels: int,
        eps: float = 1e-5,
        affine: bool = True,
        device: Any = None,
        dtype: Any = None,
        *,
        bias: bool = True,
    ) -> None:
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError(
                f"num_channels ({num_channels}) must be divisible by num_groups ({num_groups})"
            )
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        if affine:
            self.weight = new_parameter(num_channels, dtype=dtype, device=device)
            if bias:
                self.bias = new_parameter(num_channels, dtype=dtype, device=device)
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Weight 1 and bias 0."""
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input: Tensor) -> Tensor:
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (
            f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, "
            f"bias={self.bias is not None}"
        )


class RMSNorm(Module):
    """Root-mean-square normalization over the last ``len(normalized_shape)`` dimensions,
    ``y = x / sqrt(mean(x**2) + eps) * weight`` (``eps`` None: the dtype's epsilon).

    Example::

        >>> nn.RMSNorm([2, 3])(glassgrad.randn(4, 2, 3)).shape
        glassgrad.Size([4, 2, 3])
    """

    normalized_shape: tuple[int, ...]
    weight: Parameter | None

    def __init__(
        self,
        normalized_shape: int | tuple[int, ...] | list[Any],
        eps: float | None = None,
        elementwise_affine: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = new_parameter(*self.normalized_shape, dtype=dtype, device=device)
        else:
            self.register_parameter("weight", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Weight 1."""
        if self.elementwise_affine:
            init.ones_(self.weight)

    def forward(self, x: Tensor) -> Tensor:
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self) -> str:
        return (
            f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"
        )


class LocalResponseNorm(Module):
    """Normalise each element by the energy of ``size`` neighbouring channels
    (``F.local_response_norm``).

    Example::

        >>> nn.LocalResponseNorm(2)(glassgrad.randn(2, 8, 4, 4)).shape
        glassgrad.Size([2, 8, 4, 4])
    """

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0) -> None:
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input: Tensor) -> Tensor:
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


class CrossMapLRN2d(Module):
    """Local response normalization across channels of a 4-d input, as Lua Torch's
    ``SpatialCrossMapLRN``: ``x / (k + alpha / size * sum of x^2 over nearby channels)^beta``.

    Example::

        >>> nn.CrossMapLRN2d(3)(glassgrad.ones(1, 4, 2, 2)).shape
        glassgrad.Size([1, 4, 2, 2])
    """

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1) -> None:
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input: Tensor) -> Tensor:
        return _functions.CrossMapLRN2d.apply(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
