"""``nn.functional``'s smooth activations: gelu (exact and tanh), silu, mish, softplus,
hardsigmoid, hardswish, logsigmoid, and the composites softsign and tanhshrink (built from
other ops, as PyTorch builds them, so the graphs look the same).

Backward formulas that need a smooth function of the input (``sigmoid``, ``tanh``, ``erf``,
``softplus``) call its Node through ``call_op``: a plain forward on arrays, a recorded op on
Tensors, so second derivatives come from the same formula.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._strides import row_major
from .._tensor import Tensor
from ..autograd.op import Op, apply_inplace
from . import arithmetic, division, pointwise
from ._common import array_of, check_tensor
from ._gelu_backward import TANH_BETA, TANH_KAPPA, gelu_backward, normal_cdf
from ._namespace import ArrayNamespace
from ._not_implemented import refuse_complex_autograd
from ._registry import Sample, register
from ._samples import randn
from ._smooth_backward import (
    HardswishBackwardBackward0,
    LogSigmoidBackwardBackward0,
    SoftplusBackwardBackward0,
)
from .nn_activation import NN, _activation_samples, _check_floating, _sigmoid, _softplus, call_op

__all__ = [
    "gelu",
    "silu",
    "mish",
    "softplus",
    "hardsigmoid",
    "hardswish",
    "logsigmoid",
    "softsign",
    "tanhshrink",
]


# --- smooth activations ------------------------------------------------------------------------


class GeluBackward0(Op):
    """out = x * Phi(x) (Phi the standard normal CDF, through erf), or its tanh approximation
    ``0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))``."""

    approximate: Any
    cdf: np.ndarray | None

    saved_inputs: tuple[int, ...] = (0,)
    # The forward's Phi(x), kept for one array-path backward (erf is the costly part).
    __slots__ = ("approximate", "cdf")

    def forward(self, x: Any, approximate: Any = "none") -> Any:
        _check_floating(x, "gelu")
        self.approximate = approximate
        self.cdf = None
        if approximate == "tanh":
            inner = TANH_BETA * (x + TANH_KAPPA * x * x * x)
            return 0.5 * x * (1.0 + np.tanh(inner))
        self.cdf = normal_cdf(ArrayNamespace, x)
        return x * self.cdf

    def backward(self, F: Any, grad: Any) -> Any:
        (x,) = self.saved
        cdf, self.cdf = self.cdf, None
        return gelu_backward(grad, x, self.approximate, cdf)


class SiluBackward0(Op):
    """out = x * sigmoid(x)"""

    pointwise = True

    saved_inputs: tuple[int, ...] = (0,)
    holomorphic = True  # silu_ records complex inputs (silu refuses them, see silu)

    def forward(self, x: Any) -> Any:
        if x.dtype.kind == "c":  # PyTorch's kernel computes it; its autograd refuses it
            with np.errstate(all="ignore"):
                return x / (1 + np.exp(-x))
        _check_floating(x, "silu")
        return x * _sigmoid(x)

    def backward(self, F: Any, grad: Any) -> Any:
        (x,) = self.saved
        s = call_op(F, pointwise.SigmoidBackward0, x)
        return grad * (s * (1.0 + x * (1.0 - s)))


class SoftplusBackward0(Op):
    """out = log(1 + exp(beta x)) / beta, or x where beta x > threshold"""

    beta: Any
    threshold: Any

    saved_inputs: tuple[int, ...] = (0,)
    __slots__ = ("beta", "threshold")

    def forward(self, x: Any, beta: Any = 1.0, threshold: Any = 20.0) -> Any:
        _check_floating(x, "softplus")
        self.beta, self.threshold = beta, threshold
        scaled = x * beta
        return np.where(scaled > threshold, x, _softplus(scaled) / beta)

    def backward(self, F: Any, grad: Any) -> Any:
        (x,) = self.saved
        return SoftplusBackwardBackward0.call(grad, x, beta=self.beta, threshold=self.threshold)


class MishBackward0(Op):
    """out = x * tanh(softplus(x))"""

    pointwise = True

    saved_inputs: tuple[int, ...] = (0,)

    def forward(self, x: Any) -> Any:
        _check_floating(x, "mish")
        return x * np.tanh(_softplus(x))

    def backward(self, F: Any, grad: Any) -> Any:
        (x,) = self.saved
        sp = call_op(F, SoftplusBackward0, x, beta=1.0, threshold=math.inf)
        t = call_op(F, pointwise.TanhBackward0, sp)
        s = call_op(F, pointwise.SigmoidBackward0, x)
        return grad * (t + x * s * (1.0 - t * t))


class HardsigmoidBackward0(Op):
    """out = min(max(x + 3, 0), 6) / 6; the gradient is 1/6 strictly inside (-3, 3)."""

    pointwise = True

    saved_inputs: tuple[int, ...] = (0,)
    grad_reads_saved = True

    def forward(self, x: Any) -> Any:
        _check_floating(x, "hardsigmoid")
        return np.minimum(np.maximum(x + 3.0, 0.0), 6.0) / 6.0

    def backward(self, F: Any, grad: Any) -> Any:
        (x,) = self.saved
        v = array_of(x)
        return F.where((v > -3.0) & (v < 3.0), grad / 6.0, 0.0)


class HardswishBackward0(Op):
    """out = x * min(max(x + 3, 0), 6) / 6"""

    pointwise = True

    saved_inputs: tuple[int, ...] = (0,)

    def forward(self, x: Any) -> Any:
        _check_floating(x, "hardswish")
        return x * np.minimum(np.maximum(x + 3.0, 0.0), 6.0) / 6.0

    def backward(self, F: Any, grad: Any) -> Any:
        (x,) = self.saved
        return HardswishBackwardBackward0.call(grad, x)


class LogSigmoidBackward0(Op):
    """out = log(sigmoid(x)) = -softplus(-x), finite for any x"""

    saved_inputs: tuple[int, ...] = (0,)

    @row_major
    def forward(self, x: Any) -> Any:
        _check_floating(x, "logsigmoid")
        return -_softplus(-x)

    def backward(self, F: Any, grad: Any) -> Any:
        (x,) = self.saved
        return LogSigmoidBackwardBackward0.call(grad, x)


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """Gaussian error linear unit ``x * Phi(x)``, Phi the standard normal CDF (exact, via
    erf), or with ``approximate='tanh'`` ``0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))``.

    Example::

        >>> glassgrad.nn.functional.gelu(glassgrad.tensor([1.0]))
        tensor([0.8413])
    """
    check_tensor(input, "gelu")
    if approximate not in ("none", "tanh"):
        raise RuntimeError(
            f"gelu: approximate argument must be either none or tanh. (got {approximate!r})"
        )
    return GeluBackward0.apply(input, approximate=approximate)


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    """Sigmoid linear unit (swish), ``x * sigmoid(x)``.

    Example::

        >>> glassgrad.nn.functional.silu(glassgrad.tensor([1.0]))
        tensor([0.7311])
    """
    check_tensor(input, "silu")
    if inplace:
        return apply_inplace(SiluBackward0, input)
    refuse_complex_autograd("silu", input)
    return SiluBackward0.apply(input)


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    """``x * tanh(softplus(x))``.

    Example::

        >>> glassgrad.nn.functional.mish(glassgrad.tensor([1.0]))
        tensor([0.8651])
    """
    check_tensor(input, "mish")
    if inplace:
        return apply_inplace(MishBackward0, input)
    return MishBackward0.apply(input)


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """``log(1 + exp(beta * x)) / beta``, and ``x`` itself where ``beta * x > threshold``.

    Computed without overflow: finite values and gradients for inputs of any magnitude.

    Example::

        >>> glassgrad.nn.functional.softplus(glassgrad.tensor([0.0, 1e4]))
        tensor([6.9315e-01, 1.0000e+04])
    """
    check_tensor(input, "softplus")
    return SoftplusBackward0.apply(input, beta=beta, threshold=threshold)


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    """``relu6(x + 3) / 6``.

    Example::

        >>> glassgrad.nn.functional.hardsigmoid(glassgrad.tensor([-4.0, 0.0, 4.0]))
        tensor([0.0000, 0.5000, 1.0000])
    """
    check_tensor(input, "hardsigmoid")
    if inplace:
        return apply_inplace(HardsigmoidBackward0, input)
    return HardsigmoidBackward0.apply(input)


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    """``x * relu6(x + 3) / 6``.

    Example::

        >>> glassgrad.nn.functional.hardswish(glassgrad.tensor([-4.0, 1.0, 4.0]))
        tensor([-0.0000,  0.6667,  4.0000])
    """
    check_tensor(input, "hardswish")
    if inplace:
        return apply_inplace(HardswishBackward0, input)
    return HardswishBackward0.apply(input)


def logsigmoid(input: Tensor) -> Tensor:
    """``log(sigmoid(x)) = -softplus(-x)``, finite for inputs of any magnitude.

    Example::

        >>> glassgrad.nn.functional.logsigmoid(glassgrad.tensor([0.0, -1e4]))
        tensor([-6.9315e-01, -1.0000e+04])
    """
    return LogSigmoidBackward0.apply(check_tensor(input, "logsigmoid"))


def softsign(input: Tensor) -> Tensor:
    """``x / (1 + |x|)`` (built from div, add and abs, as PyTorch records it).

    Example::

        >>> glassgrad.nn.functional.softsign(glassgrad.tensor([-1.0, 3.0]))
        tensor([-0.5000,  0.7500])
    """
    check_tensor(input, "softsign")
    return division.div(input, arithmetic.add(pointwise.abs(input), 1))


def tanhshrink(input: Tensor) -> Tensor:
    """``x - tanh(x)``.

    Example::

        >>> glassgrad.nn.functional.tanhshrink(glassgrad.tensor([1.0]))
        tensor([0.2384])
    """
    check_tensor(input, "tanhshrink")
    return arithmetic.sub(input, pointwise.tanh(input))


register(
    "gelu",
    gelu,
    nodes=(GeluBackward0,),
    namespace=NN,
    samples=lambda rng: [
        *_activation_samples(rng),
        Sample((3.0 * randn(rng, 4, 5),), {"approximate": "tanh"}),
        Sample((randn(rng, 4, 3).T,), {"approximate": "tanh"}),
        Sample((randn(rng, 3, 4),), {"approximate": "none"}),
    ],
)


register("silu", silu, nodes=(SiluBackward0,), namespace=NN, samples=_activation_samples)


register("mish", mish, nodes=(MishBackward0,), namespace=NN, samples=_activation_samples)


register(
    "softplus",
    softplus,
    nodes=(SoftplusBackward0,),
    namespace=NN,
    samples=lambda rng: [
        *_activation_samples(rng),
        Sample((3.0 * randn(rng, 3, 4), 2.0, 1.5)),
        Sample((3.0 * randn(rng, 3, 4),), {"beta": 0.5, "threshold": 1.0}),
    ],
)


register(
    "hardsigmoid",
    hardsigmoid,
    nodes=(HardsigmoidBackward0,),
    namespace=NN,
    samples=_activation_samples,
    second_order=False,  # PyTorch has no derivative of hardsigmoid_backward
)


register(
    "hardswish", hardswish, nodes=(HardswishBackward0,), namespace=NN, samples=_activation_samples
)


register(
    "logsigmoid",
    logsigmoid,
    nodes=(LogSigmoidBackward0,),
    namespace=NN,
    samples=_activation_samples,
)


register("softsign", softsign, namespace=NN, samples=_activation_samples)


register("tanhshrink", tanhshrink, namespace=NN, samples=_activation_samples)
