"""Affine layers: ``Identity``, ``Linear``, ``Bilinear``."""

from __future__ import annotations

import math
from typing import Any

from ..._tensor import Tensor
from .. import functional as F
from .. import init
from ..parameter import Parameter
from ._utils import new_parameter
from .module import Module

__all__ = ["Identity", "Linear", "NonDynamicallyQuantizableLinear", "Bilinear"]


class Identity(Module):
    """Returns its input unchanged (arguments are accepted and ignored).

    Example::

        >>> nn.Identity(54, unused="x")(glassgrad.ones(2)).shape
        glassgrad.Size([2])
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()

    def forward(self, input: Tensor) -> Tensor:
        return input


class Linear(Module):
    """``y = x @ weight.T + bias``, on the last dimension of ``x``.

    Parameters
    ----------
    in_features, out_features : int
        Sizes of the input's and the output's last dimension.
    bias : bool
        Whether to learn an additive bias (default True).

    Attributes
    ----------
    weight : Parameter of shape (out_features, in_features)
        Initialised from U(-1/sqrt(in_features), 1/sqrt(in_features)) (Kaiming uniform with
        a = sqrt(5)), as in PyTorch.
    bias : Parameter of shape (out_features,) or None
        Initialised from the same distribution.

    Example::

        >>> layer = nn.Linear(20, 30)
        >>> layer(glassgrad.randn(128, 20)).shape
        glassgrad.Size([128, 30])
    """

    weight: Parameter
    bias: Parameter | None

    def __init__(
        self,
        in_features: int,
        out_features: int,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = new_parameter(out_features, in_features, dtype=dtype, device=device)
        if bias:
            self.bias = new_parameter(out_features, dtype=dtype, device=device)
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Draw fresh weights with PyTorch's default scheme."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input: Tensor) -> Tensor:
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (
            f"in_features={self.in_features}, out_features={self.out_features}, "
            f"bias={self.bias is not None}"
        )


class NonDynamicallyQuantizableLinear(Linear):
    """A ``Linear`` under another name: PyTorch's ``MultiheadAttention.out_proj`` class, kept
    so that model reprs match."""


class Bilinear(Module):
    """``y[..., o] = x1 @ weight[o] @ x2 + bias[o]``.

    Parameters
    ----------
    in1_features, in2_features, out_features : int
        Sizes of the two inputs' and of the output's last dimension.
    bias : bool
        Whether to learn an additive bias (default True).

    Example::

        >>> m = nn.Bilinear(20, 30, 40)
        >>> m(glassgrad.randn(128, 20), glassgrad.randn(128, 30)).shape
        glassgrad.Size([128, 40])
    """

    weight: Parameter
    bias: Parameter | None

    def __init__(
        self,
        in1_features: int,
        in2_features: int,
        out_features: int,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        self.in1_features = in1_features
        self.in2_features = in2_features
        self.out_features = out_features
        self.weight = new_parameter(
            out_features, in1_features, in2_features, dtype=dtype, device=device
        )
        if bias:
            self.bias = new_parameter(out_features, dtype=dtype, device=device)
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Draw fresh weights from U(-1/sqrt(in1_features), 1/sqrt(in1_features))."""
        bound = 1 / math.sqrt(self.weight.shape[1])
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1: Tensor, input2: Tensor) -> Tensor:
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (
            f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
            f"out_features={self.out_features}, bias={self.bias is not None}"
        )
