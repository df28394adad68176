"""Activation modules: each calls the matching ``nn.functional`` op with its settings."""

from __future__ import annotations

import warnings

from ... import ops as _ops
from ..._tensor import Tensor
from .. import functional as F
from .module import Module

__all__ = [
    "ReLU",
    "ReLU6",
    "LeakyReLU",
    "ELU",
    "SELU",
    "GELU",
    "SiLU",
    "Mish",
    "Softplus",
    "Hardtanh",
    "Hardsigmoid",
    "Hardswish",
    "LogSigmoid",
    "Sigmoid",
    "Tanh",
    "Softmax",
    "LogSoftmax",
    "Softmin",
    "Softmax2d",
    "CELU",
    "Softsign",
    "Tanhshrink",
]


def _inplace_repr(inplace: bool) -> str:
    return "inplace=True" if inplace else ""


class ReLU(Module):
    """``max(0, x)`` elementwise.

    Example::

        >>> nn.ReLU()(glassgrad.tensor([-1.0, 2.0]))
        tensor([0., 2.])
    """

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.relu(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return _inplace_repr(self.inplace)


class Hardtanh(Module):
    """``clamp(x, min_val, max_val)`` elementwise (gradient 1 strictly inside, 0 outside).

    Example::

        >>> nn.Hardtanh(-2, 2)(glassgrad.tensor([-3.0, 0.5, 3.0]))
        tensor([-2.0000,  0.5000,  2.0000])
    """

    def __init__(
        self,
        min_val: float = -1.0,
        max_val: float = 1.0,
        inplace: bool = False,
        min_value: float | None = None,
        max_value: float | None = None,
    ) -> None:
        super().__init__()
        if min_value is not None:
            warnings.warn(
                "keyword argument `min_value` is deprecated and rename to `min_val`",
                FutureWarning,
                stacklevel=2,
            )
            min_val = min_value
        if max_value is not None:
            warnings.warn(
                "keyword argument `max_value` is deprecated and rename to `max_val`",
                FutureWarning,
                stacklevel=2,
            )
            max_val = max_value
        self.min_val = min_val
        self.max_val = max_val
        self.inplace = inplace
        if not self.max_val > self.min_val:
            raise AssertionError(f"max_val ({max_val}) must be greater than min_val ({min_val})")

    def forward(self, input: Tensor) -> Tensor:
        return F.hardtanh(input, self.min_val, self.max_val, inplace=self.inplace)

    def extra_repr(self) -> str:
        inplace = ", inplace=True" if self.inplace else ""
        return f"min_val={self.min_val}, max_val={self.max_val}{inplace}"


class ReLU6(Hardtanh):
    """``min(max(0, x), 6)`` elementwise.

    Example::

        >>> nn.ReLU6()(glassgrad.tensor([-1.0, 7.0]))
        tensor([0., 6.])
    """

    def __init__(self, inplace: bool = False) -> None:
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self) -> str:
        return _inplace_repr(self.inplace)


class LeakyReLU(Module):
    """``x`` for positive x, ``negative_slope * x`` otherwise.

    Example::

        >>> nn.LeakyReLU(0.1)(glassgrad.tensor([-1.0, 2.0]))
        tensor([-0.1000,  2.0000])
    """

    def __init__(self, negative_slope: float = 1e-2, inplace: bool = False) -> None:
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.leaky_relu(input, self.negative_slope, inplace=self.inplace)

    def extra_repr(self) -> str:
        inplace = ", inplace=True" if self.inplace else ""
        return f"negative_slope={self.negative_slope}{inplace}"


class ELU(Module):
    """``x`` for positive x, ``alpha * (exp(x) - 1)`` otherwise.

    Example::

        >>> nn.ELU()(glassgrad.tensor([0.0, 1.0]))
        tensor([0., 1.])
    """

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.elu(input, self.alpha, inplace=self.inplace)

    def extra_repr(self) -> str:
        inplace = ", inplace=True" if self.inplace else ""
        return f"alpha={self.alpha}{inplace}"


class SELU(Module):
    """``scale * elu(x, alpha)`` with the self-normalising constants
    (alpha ~ 1.6733, scale ~ 1.0507).

    Example::

        >>> nn.SELU()(glassgrad.tensor([0.0]))
        tensor([0.])
    """

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.selu(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return _inplace_repr(self.inplace)


class GELU(Module):
    """``x * Phi(x)`` (Phi the standard normal CDF); ``approximate="tanh"`` uses the tanh
    approximation.

    Example::

        >>> nn.GELU()(glassgrad.tensor([0.0]))
        tensor([0.])
    """

    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, input: Tensor) -> Tensor:
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class SiLU(Module):
    """``x * sigmoid(x)`` (swish).

    Example::

        >>> nn.SiLU()(glassgrad.tensor([0.0]))
        tensor([0.])
    """

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.silu(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return _inplace_repr(self.inplace)


class Mish(Module):
    """``x * tanh(softplus(x))``.

    Example::

        >>> nn.Mish()(glassgrad.tensor([0.0]))
        tensor([0.])
    """

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.mish(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return _inplace_repr(self.inplace)


class Softplus(Module):
    """``log(1 + exp(beta * x)) / beta``, linear where ``beta * x > threshold``.

    Example::

        >>> nn.Softplus()(glassgrad.tensor([0.0]))
        tensor([0.6931])
    """

    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input: Tensor) -> Tensor:
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


class Hardsigmoid(Module):
    """``clamp(x / 6 + 1 / 2, 0, 1)``.

    Example::

        >>> nn.Hardsigmoid()(glassgrad.tensor([0.0]))
        tensor([0.5000])
    """

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.hardsigmoid(input, inplace=self.inplace)


class Hardswish(Module):
    """``x * hardsigmoid(x)``.

    Example::

        >>> nn.Hardswish()(glassgrad.tensor([0.0]))
        tensor([0.])
    """

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.hardswish(input, inplace=self.inplace)


class LogSigmoid(Module):
    """``log(sigmoid(x))``, computed stably.

    Example::

        >>> nn.LogSigmoid()(glassgrad.tensor([0.0]))
        tensor([-0.6931])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.logsigmoid(input)


class Sigmoid(Module):
    """``1 / (1 + exp(-x))``.

    Example::

        >>> nn.Sigmoid()(glassgrad.tensor([0.0]))
        tensor([0.5000])
    """

    def forward(self, input: Tensor) -> Tensor:
        return _ops.pointwise.sigmoid(input)


class Tanh(Module):
    """Hyperbolic tangent.

    Example::

        >>> nn.Tanh()(glassgrad.tensor([0.0]))
        tensor([0.])
    """

    def forward(self, input: Tensor) -> Tensor:
        return _ops.pointwise.tanh(input)


class Softmax(Module):
    """``exp(x) / sum(exp(x))`` along ``dim``.

    Example::

        >>> nn.Softmax(dim=1)(glassgrad.zeros(1, 2))
        tensor([[0.5000, 0.5000]])
    """

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return F.softmax(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class LogSoftmax(Module):
    """``log(softmax(x))`` along ``dim``, computed stably.

    Example::

        >>> nn.LogSoftmax(dim=1)(glassgrad.zeros(1, 2))
        tensor([[-0.6931, -0.6931]])
    """

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return F.log_softmax(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Softmin(Module):
    """``softmax(-x)`` along ``dim``.

    Example::

        >>> nn.Softmin(dim=1)(glassgrad.zeros(1, 2))
        tensor([[0.5000, 0.5000]])
    """

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return F.softmax(-input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Softmax2d(Module):
    """Softmax over the channels of (N, C, H, W) or (C, H, W), at each position.

    Example::

        >>> nn.Softmax2d()(glassgrad.zeros(1, 2, 1, 1)).flatten()
        tensor([0.5000, 0.5000])
    """

    def forward(self, input: Tensor) -> Tensor:
        if input.dim() not in (3, 4):
            raise ValueError(
                f"Softmax2d: expected input to be 3D or 4D, got {input.dim()}D instead"
            )
        return F.softmax(input, -3)


class CELU(Module):
    """``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``.

    Example::

        >>> nn.CELU()(glassgrad.tensor([0.0, 1.0]))
        tensor([0., 1.])
    """

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.celu(input, self.alpha, self.inplace)

    def extra_repr(self) -> str:
        inplace = ", inplace=True" if self.inplace else ""
        return f"alpha={self.alpha}{inplace}"


class Softsign(Module):
    """``x / (1 + |x|)``.

    Example::

        >>> nn.Softsign()(glassgrad.tensor([1.0]))
        tensor([0.5000])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.softsign(input)


class Tanhshrink(Module):
    """``x - tanh(x)``.

    Example::

        >>> nn.Tanhshrink()(glassgrad.tensor([0.0]))
        tensor([0.])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.tanhshrink(input)
