"""Piecewise and gated activation layers: ``Hardshrink``, ``Softshrink``, ``Threshold``,
``GLU``, ``PReLU``, ``RReLU``."""

from __future__ import annotations

from typing import Any

from ..._tensor import Tensor
from .. import functional as F
from .. import init
from ..parameter import Parameter
from ._utils import new_parameter
from .module import Module

__all__ = ["Hardshrink", "Softshrink", "Threshold", "GLU", "PReLU", "RReLU"]


class Hardshrink(Module):
    """``x`` where ``|x| > lambd``, else 0.

    Example::

        >>> nn.Hardshrink()(glassgrad.tensor([-1.0, 0.2]))
        tensor([-1.,  0.])
    """

    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__()
        self.lambd = lambd

    def forward(self, input: Tensor) -> Tensor:
        return F.hardshrink(input, self.lambd)

    def extra_repr(self) -> str:
        return f"{self.lambd}"


class Softshrink(Module):
    """``x`` moved ``lambd`` towards 0, and 0 within ``[-lambd, lambd]``.

    Example::

        >>> nn.Softshrink()(glassgrad.tensor([-1.0, 0.2]))
        tensor([-0.5000,  0.0000])
    """

    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__()
        self.lambd = lambd

    def forward(self, input: Tensor) -> Tensor:
        return F.softshrink(input, self.lambd)

    def extra_repr(self) -> str:
        return str(self.lambd)


class Threshold(Module):
    """``x`` where ``x > threshold``, else ``value``.

    Example::

        >>> nn.Threshold(0.1, 20.0)(glassgrad.tensor([-1.0, 0.5]))
        tensor([20.0000,  0.5000])
    """

    def __init__(self, threshold: float, value: float, inplace: bool = False) -> None:
        super().__init__()
        self.threshold = threshold
        self.value = value
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self) -> str:
        inplace = ", inplace=True" if self.inplace else ""
        return f"threshold={self.threshold}, value={self.value}{inplace}"


class GLU(Module):
    """Gated linear unit: ``a * sigmoid(b)``, ``a`` and ``b`` the halves along ``dim``.

    Example::

        >>> nn.GLU()(glassgrad.randn(4, 2)).shape
        glassgrad.Size([4, 1])
    """

    def __init__(self, dim: int = -1) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return F.glu(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class PReLU(Module):
    """``x`` where positive, else ``weight * x``, with a learned slope (one, or one per
    channel: ``num_parameters``), initialised to ``init``.

    Example::

        >>> nn.PReLU()(glassgrad.tensor([-2.0, 3.0]))
        tensor([-0.5000,  3.0000], grad_fn=<PreluKernelBackward0>)
    """

    weight: Parameter

    def __init__(
        self, num_parameters: int = 1, init: float = 0.25, device: Any = None, dtype: Any = None
    ) -> None:
        self.num_parameters = num_parameters
        super().__init__()
        self.init = init
        self.weight = new_parameter(num_parameters, dtype=dtype, device=device)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Every slope to ``init``."""
        init.constant_(self.weight, self.init)

    def forward(self, input: Tensor) -> Tensor:
        return F.prelu(input, self.weight)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"


class RReLU(Module):
    """Randomised leaky ReLU: negative inputs times a slope drawn from U(lower, upper) per
    element in training, times ``(lower + upper) / 2`` in eval mode.

    Example::

        >>> nn.RReLU(0.1, 0.3).eval()(glassgrad.tensor([-3.0, 2.0]))
        tensor([-0.6000,  2.0000])
    """

    def __init__(
        self, lower: float = 1.0 / 8, upper: float = 1.0 / 3, inplace: bool = False
    ) -> None:
        super().__init__()
        self.lower = lower
        self.upper = upper
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self) -> str:
        inplace = ", inplace=True" if self.inplace else ""
        return f"lower={self.lower}, upper={self.upper}{inplace}"
