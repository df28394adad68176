"""``nn.functional`` activations, the softmax family and vector similarities.

Each activation is one Node class named as PyTorch names its grad_fn (``GeluBackward0``,
``EluBackward0`` ...), a public function with PyTorch's signature (``inplace=True`` writes
into the input through ``apply_inplace``), and a registry row in the ``nn.functional``
namespace. Where PyTorch itself builds an op from others (``softsign``, ``tanhshrink``,
``softmin``, ``normalize``, ``cosine_similarity``, ``pairwise_distance``) so does this module,
so the graphs look the same.

Backward formulas that need a smooth function of the input (``sigmoid``, ``tanh``, ``erf``,
``softplus``) call its Node through ``call_op``: a plain forward on arrays, a recorded op on
Tensors, so second derivatives come from the same formula.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from .. import _dtype
from .._dtype import scalar_type_name
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..autograd.op import Op, apply_inplace
from . import arithmetic, conversion, division, pointwise, reduction, shape
from ._common import array_of, binary_operands, broadcast_error, check_tensor, wrap_dim
from ._namespace import ArrayNamespace
from ._registry import NoGrad, Sample, register
from ._samples import randn, unary_samples
from .clamping import clamp_min
from .norms import LinalgVectorNormBackward0, vector_norm
from .unary_math import ErfBackward0

__all__ = [
    "call_op",
    "relu",
    "relu_",
    "relu6",
    "leaky_relu",
    "leaky_relu_",
    "elu",
    "elu_",
    "selu",
    "selu_",
    "celu",
    "celu_",
    "gelu",
    "silu",
    "mish",
    "softplus",
    "hardtanh",
    "hardtanh_",
    "hardsigmoid",
    "hardswish",
    "logsigmoid",
    "softsign",
    "tanhshrink",
    "softmax",
    "log_softmax",
    "softmin",
    "normalize",
    "cosine_similarity",
    "pairwise_distance",
]

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946
_SQRT1_2 = math.sqrt(0.5)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_GELU_TANH_BETA = math.sqrt(2.0 / math.pi)
_GELU_TANH_KAPPA = 0.044715


def call_op(F: Any, node_cls: type, *inputs: Any, **params: Any) -> Any:
    """Run ``node_cls`` inside a backward formula: on arrays its forward, on Tensors the
    recorded op (so the formula stays differentiable under ``create_graph``)."""
    if F is ArrayNamespace:
        return node_cls.__new__(node_cls).forward(*inputs, **params)
    return node_cls.apply(*inputs, **params)


def _check_floating(x: np.ndarray, op: str) -> None:
    # PyTorch's kernels for these ops exist for floating types only.
    if x.dtype.kind != "f":
        raise NotImplementedError(
            f"{op}: not implemented for '{scalar_type_name(x.dtype)}' (expected a floating point "
            f"input, got dtype {x.dtype})"
        )


def _sigmoid(x: np.ndarray) -> np.ndarray:
    # 1 / (1 + e^-x) without overflow, and to full relative precision in both tails.
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def _softplus(x: np.ndarray) -> np.ndarray:
    # log(1 + e^x) without overflow: finite for |x| of 1e4 and beyond.
    return np.logaddexp(0.0, x)


# --- scalar-operand nodes ----------------------------------------------------------------------
# PyTorch's C++ composites (pairwise_distance, the label-smoothing and probability-target
# cross entropy) call the Scalar overloads of add/mul/div, recorded as AddBackward1,
# MulBackward1 and DivBackward1 with a single edge; these nodes keep those graphs the same.


class AddBackward1(Op):
    """out = x + alpha * other, ``other`` a Python number"""

    def forward(self, x, other, alpha=1):
        x, other = binary_operands(x, other)
        return x + alpha * other

    def backward(self, F, grad):
        return grad


class MulBackward1(Op):
    """out = x * other, ``other`` a Python number"""

    __slots__ = ("other",)

    def forward(self, x, other):
        self.other = other
        x, other = binary_operands(x, other)
        return x * other

    def backward(self, F, grad):
        return grad * self.other


class DivBackward1(Op):
    """out = x / other, ``other`` a Python number"""

    __slots__ = ("other",)

    def forward(self, x, other):
        self.other = other
        x = x if x.dtype.kind == "f" else x.astype(_dtype.default_numpy_float())
        return x / other

    def backward(self, F, grad):
        return grad / self.other


# --- rectifiers --------------------------------------------------------------------------------


class HardtanhBackward0(Op):
    """out = min(max(x, min_val), max_val); the gradient passes strictly inside the bounds.

    The input is saved, as PyTorch saves it (for the in-place variant, the values before the
    write: see apply_inplace).
    """

    saved_inputs = (0,)
    grad_reads_saved = True
    __slots__ = ("min_val", "max_val")

    def forward(self, x, min_val=-1.0, max_val=1.0):
        if x.dtype == np.bool_:
            raise RuntimeError("Bool inputs not supported for hardtanh")
        self.min_val, self.max_val = min_val, max_val
        return np.clip(x, min_val, max_val).astype(x.dtype, copy=False)

    def backward(self, F, grad):
        (x,) = self.saved
        v = array_of(x)
        # where, not a product with a mask: an inf gradient outside the bounds gives 0 (and so
        # does a NaN input, as in PyTorch).
        return F.where((v > self.min_val) & (v < self.max_val), grad, 0.0)


class LeakyReluBackward0(Op):
    """out = x if x > 0 else negative_slope * x"""

    saved_inputs = (0,)
    grad_reads_saved = True
    __slots__ = ("negative_slope",)

    def forward(self, x, negative_slope=0.01):
        _check_floating(x, "leaky_relu")
        self.negative_slope = negative_slope
        return np.where(x > 0, x, x * negative_slope)

    def backward(self, F, grad):
        (x,) = self.saved
        return F.where(array_of(x) > 0, grad, grad * self.negative_slope)


class LeakyReluBackward1(LeakyReluBackward0):
    """In-place leaky_relu: the slope is read from the result (needs negative_slope >= 0)."""

    saved_inputs = ()
    saves_output = True

    def backward(self, F, grad):
        if self.negative_slope < 0:
            raise RuntimeError(
                "In-place leakyReLu backward calculation is triggered with a negative slope "
                "which is not supported. This is caused by calling in-place forward function "
                "with a negative slope, please call out-of-place version instead."
            )
        (out,) = self.saved
        return F.where(array_of(out) > 0, grad, grad * self.negative_slope)


class EluBackward0(Op):
    """out = scale * x if x > 0 else alpha * scale * (exp(input_scale * x) - 1)

    ``elu`` has scale = input_scale = 1; ``selu`` uses its fixed alpha and scale.
    """

    saved_inputs = (0,)
    __slots__ = ("alpha", "scale", "input_scale")
    op_name = "elu"

    def forward(self, x, alpha=1.0, scale=1.0, input_scale=1.0):
        _check_floating(x, self.op_name)
        self.alpha, self.scale, self.input_scale = alpha, scale, input_scale
        negative = np.expm1(np.minimum(x, 0) * input_scale) * (alpha * scale)
        return np.where(x > 0, x * scale, negative)

    def backward(self, F, grad):
        (x,) = self.saved
        positive = array_of(x) > 0
        # exp is taken of min(x, 0) only, so large positive inputs never overflow.
        negative_part = F.where(positive, 0.0, x)
        slope = (self.input_scale * self.alpha * self.scale) * F.exp(
            negative_part * self.input_scale
        )
        return grad * F.where(positive, self.scale, slope)


class EluBackward1(EluBackward0):
    """In-place elu/selu: the slope is read from the result (needs alpha >= 0)."""

    saved_inputs = ()
    saves_output = True

    def backward(self, F, grad):
        if self.alpha < 0:
            raise RuntimeError(
                f"In-place {self.op_name} backward calculation is triggered with a negative "
                "slope which is not supported. This is caused by calling in-place forward "
                "function with a negative slope, please call out-of-place version instead."
            )
        (out,) = self.saved
        positive = array_of(out) > 0
        slope = self.input_scale * (out + self.alpha * self.scale)
        return grad * F.where(positive, self.scale, slope)


class CeluBackward0(EluBackward0):
    """out = x if x > 0 else alpha * (exp(x / alpha) - 1)"""

    op_name = "celu"


class CeluBackward1(EluBackward1):
    op_name = "celu"


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """Rectified linear unit, ``max(input, 0)``; the gradient at 0 is 0, as in PyTorch.

    Example::

        >>> glassgrad.nn.functional.relu(glassgrad.tensor([-1.0, 2.0]))
        tensor([0., 2.])
    """
    check_tensor(input, "relu")
    if input._data.dtype == np.bool_:
        raise RuntimeError("Boolean inputs not supported for relu")
    if inplace:
        return apply_inplace(pointwise.ReluBackward0, input)
    return pointwise.ReluBackward0.apply(input)


def relu_(input: Tensor) -> Tensor:
    """In-place ``relu``.

    Example::

        >>> x = glassgrad.tensor([-1.0, 2.0])
        >>> glassgrad.nn.functional.relu_(x)
        tensor([0., 2.])
    """
    return relu(input, inplace=True)


def hardtanh(
    input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False
) -> Tensor:
    """``clamp(input, min_val, max_val)``; the gradient is 1 strictly inside the bounds.

    Example::

        >>> glassgrad.nn.functional.hardtanh(glassgrad.tensor([-3.0, 0.5, 2.0]))
        tensor([-1.0000,  0.5000,  1.0000])
    """
    check_tensor(input, "hardtanh")
    if min_val > max_val:
        raise ValueError(
            f"hardtanh: min_val cannot be greater than max_val (got min_val={min_val}, "
            f"max_val={max_val})"
        )
    if inplace:
        return apply_inplace(HardtanhBackward0, input, min_val=min_val, max_val=max_val)
    return HardtanhBackward0.apply(input, min_val=min_val, max_val=max_val)


def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    """In-place ``hardtanh``.

    Example::

        >>> glassgrad.nn.functional.hardtanh_(glassgrad.tensor([-3.0, 0.5]))
        tensor([-1.0000,  0.5000])
    """
    return hardtanh(input, min_val, max_val, inplace=True)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    """``min(max(input, 0), 6)`` (``hardtanh(input, 0, 6)``, as PyTorch records it).

    Example::

        >>> glassgrad.nn.functional.relu6(glassgrad.tensor([-1.0, 3.0, 8.0]))
        tensor([0., 3., 6.])
    """
    check_tensor(input, "relu6")
    return hardtanh(input, 0.0, 6.0, inplace)


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """``input`` where positive, else ``negative_slope * input`` (slope at 0: negative_slope).

    Example::

        >>> glassgrad.nn.functional.leaky_relu(glassgrad.tensor([-2.0, 3.0]), 0.1)
        tensor([-0.2000,  3.0000])
    """
    check_tensor(input, "leaky_relu")
    if inplace:
        return apply_inplace(LeakyReluBackward1, input, negative_slope=negative_slope)
    return LeakyReluBackward0.apply(input, negative_slope=negative_slope)


def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    """In-place ``leaky_relu``.

    Example::

        >>> glassgrad.nn.functional.leaky_relu_(glassgrad.tensor([-2.0, 3.0]), 0.5)
        tensor([-1.,  3.])
    """
    return leaky_relu(input, negative_slope, inplace=True)


def _elu_like(
    input: Tensor, name: str, inplace: bool, alpha: float, scale: float, input_scale: float
) -> Tensor:
    check_tensor(input, name)
    _check_floating(input._data, name)
    celu_like = name == "celu"
    if inplace:
        node = CeluBackward1 if celu_like else EluBackward1
        return apply_inplace(node, input, alpha=alpha, scale=scale, input_scale=input_scale)
    node = CeluBackward0 if celu_like else EluBackward0
    return node.apply(input, alpha=alpha, scale=scale, input_scale=input_scale)


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """Exponential linear unit: ``x`` if ``x > 0`` else ``alpha * (exp(x) - 1)``.

    Example::

        >>> glassgrad.nn.functional.elu(glassgrad.tensor([-1.0, 2.0]))
        tensor([-0.6321,  2.0000])
    """
    return _elu_like(input, "elu", inplace, alpha, 1.0, 1.0)


def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """In-place ``elu``.

    Example::

        >>> glassgrad.nn.functional.elu_(glassgrad.tensor([-1.0, 2.0]))
        tensor([-0.6321,  2.0000])
    """
    return elu(input, alpha, inplace=True)


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    """Scaled ELU: ``scale * elu(x, alpha)`` with alpha ≈ 1.6733 and scale ≈ 1.0507.

    Example::

        >>> glassgrad.nn.functional.selu(glassgrad.tensor([-1.0, 1.0]))
        tensor([-1.1113,  1.0507])
    """
    return _elu_like(input, "selu", inplace, _SELU_ALPHA, _SELU_SCALE, 1.0)


def selu_(input: Tensor) -> Tensor:
    """In-place ``selu``.

    Example::

        >>> glassgrad.nn.functional.selu_(glassgrad.tensor([1.0]))
        tensor([1.0507])
    """
    return selu(input, inplace=True)


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """Continuously differentiable ELU: ``x`` if ``x > 0`` else ``alpha * (exp(x / alpha) - 1)``.

    Example::

        >>> glassgrad.nn.functional.celu(glassgrad.tensor([-1.0, 2.0]), alpha=2.0)
        tensor([-0.7869,  2.0000])
    """
    check_tensor(input, "celu")
    if alpha == 0:
        raise RuntimeError("celu: ZeroDivisionError: alpha cannot be 0 for CELU")
    return _elu_like(input, "celu", inplace, alpha, 1.0, 1.0 / alpha)


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """In-place ``celu``.

    Example::

        >>> glassgrad.nn.functional.celu_(glassgrad.tensor([2.0]))
        tensor([2.])
    """
    return celu(input, alpha, inplace=True)


# --- smooth activations ------------------------------------------------------------------------


class GeluBackward0(Op):
    """out = x * Phi(x) (Phi the standard normal CDF, through erf), or its tanh approximation
    ``0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))``."""

    saved_inputs = (0,)
    # The forward's Phi(x), kept for one array-path backward (erf is the costly part).
    __slots__ = ("approximate", "cdf")

    def forward(self, x, approximate="none"):
        _check_floating(x, "gelu")
        self.approximate = approximate
        self.cdf = None
        if approximate == "tanh":
            inner = _GELU_TANH_BETA * (x + _GELU_TANH_KAPPA * x * x * x)
            return 0.5 * x * (1.0 + np.tanh(inner))
        self.cdf = 0.5 * (1.0 + call_op(ArrayNamespace, ErfBackward0, x * _SQRT1_2))
        return x * self.cdf

    def backward(self, F, grad):
        (x,) = self.saved
        if self.approximate == "tanh":
            inner = _GELU_TANH_BETA * (x + _GELU_TANH_KAPPA * x * x * x)
            t = call_op(F, pointwise.TanhBackward0, inner)
            d_inner = _GELU_TANH_BETA * (1.0 + 3.0 * _GELU_TANH_KAPPA * x * x)
            return grad * (0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * d_inner)
        cdf, self.cdf = self.cdf, None
        if cdf is None or F is not ArrayNamespace:
            cdf = 0.5 * (1.0 + call_op(F, ErfBackward0, x * _SQRT1_2))
        pdf = _INV_SQRT_2PI * F.exp(-0.5 * x * x)
        return grad * (cdf + x * pdf)


class SiluBackward0(Op):
    """out = x * sigmoid(x)"""

    saved_inputs = (0,)

    def forward(self, x):
        _check_floating(x, "silu")
        return x * _sigmoid(x)

    def backward(self, F, grad):
        (x,) = self.saved
        s = call_op(F, pointwise.SigmoidBackward0, x)
        return grad * (s * (1.0 + x * (1.0 - s)))


class SoftplusBackward0(Op):
    """out = log(1 + exp(beta x)) / beta, or x where beta x > threshold"""

    saved_inputs = (0,)
    __slots__ = ("beta", "threshold")

    def forward(self, x, beta=1.0, threshold=20.0):
        _check_floating(x, "softplus")
        self.beta, self.threshold = beta, threshold
        scaled = x * beta
        return np.where(scaled > threshold, x, _softplus(scaled) / beta)

    def backward(self, F, grad):
        (x,) = self.saved
        linear = array_of(x) * self.beta > self.threshold
        s = call_op(F, pointwise.SigmoidBackward0, x * self.beta)
        return F.where(linear, grad, grad * s)


class MishBackward0(Op):
    """out = x * tanh(softplus(x))"""

    saved_inputs = (0,)

    def forward(self, x):
        _check_floating(x, "mish")
        return x * np.tanh(_softplus(x))

    def backward(self, F, grad):
        (x,) = self.saved
        sp = call_op(F, SoftplusBackward0, x, beta=1.0, threshold=math.inf)
        t = call_op(F, pointwise.TanhBackward0, sp)
        s = call_op(F, pointwise.SigmoidBackward0, x)
        return grad * (t + x * s * (1.0 - t * t))


class HardsigmoidBackward0(Op):
    """out = min(max(x + 3, 0), 6) / 6; the gradient is 1/6 strictly inside (-3, 3)."""

    saved_inputs = (0,)
    grad_reads_saved = True

    def forward(self, x):
        _check_floating(x, "hardsigmoid")
        return np.minimum(np.maximum(x + 3.0, 0.0), 6.0) / 6.0

    def backward(self, F, grad):
        (x,) = self.saved
        v = array_of(x)
        return F.where((v > -3.0) & (v < 3.0), grad / 6.0, 0.0)


class HardswishBackward0(Op):
    """out = x * min(max(x + 3, 0), 6) / 6"""

    saved_inputs = (0,)

    def forward(self, x):
        _check_floating(x, "hardswish")
        return x * np.minimum(np.maximum(x + 3.0, 0.0), 6.0) / 6.0

    def backward(self, F, grad):
        (x,) = self.saved
        v = array_of(x)
        # 0 for x <= -3, x/3 + 1/2 inside, 1 for x >= 3 (PyTorch's choices at the kinks).
        return F.where(v <= -3.0, 0.0, grad * F.where(v < 3.0, x / 3.0 + 0.5, 1.0))


class LogSigmoidBackward0(Op):
    """out = log(sigmoid(x)) = -softplus(-x), finite for any x"""

    saved_inputs = (0,)

    def forward(self, x):
        _check_floating(x, "logsigmoid")
        return -_softplus(-x)

    def backward(self, F, grad):
        (x,) = self.saved
        return grad * call_op(F, pointwise.SigmoidBackward0, -x)


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


# --- softmax family ----------------------------------------------------------------------------


def _reduce_axis(x: np.ndarray, dim: int) -> int | None:
    # A 0-d tensor is its own (only) slice; NumPy reduces it with axis=None.
    return dim if x.ndim else None


# Largest spread (max - min) of the values for which one shift by the overall max is safe:
# exp() of every shifted value stays a normal number, so no slice sums to zero.
_ONE_SHIFT_SPREAD = {
    np.dtype(np.float16): 4.0,
    np.dtype(np.float32): 40.0,
    np.dtype(np.float64): 350.0,
}


def _exp_and_sums(x: np.ndarray, dim: int | None) -> tuple:
    """``(x - shift, exp(x - shift), sum of the exps along dim)`` with ``shift`` the max.

    When the values are finite and close together (the usual logits) one overall max does:
    two whole-array reductions and a matrix-vector sum cost less than per-slice reductions.
    """
    spread = _ONE_SHIFT_SPREAD.get(x.dtype)
    if spread is not None and x.size:
        top = float(x.max())
        if top - float(x.min()) <= spread:  # False for inf and nan as well
            shifted = x - top
            e = np.exp(shifted)
            return shifted, e, ArrayNamespace.sum(e, dim, True)
    with np.errstate(invalid="ignore", over="ignore"):
        # `initial` keeps empty inputs legal.
        shifted = x - x.max(axis=dim, keepdims=True, initial=-np.inf)
        e = np.exp(shifted)
        return shifted, e, e.sum(axis=dim, keepdims=True)


class SoftmaxBackward0(Op):
    """out = exp(x) / sum(exp(x)) along ``dim`` (computed from x - max, so no overflow)"""

    saves_output = True
    __slots__ = ("dim",)

    def forward(self, x, dim):
        self.dim = dim = _reduce_axis(x, dim)
        _, e, sums = _exp_and_sums(x, dim)
        # Every slice sums to at least 1 (its max gives exp(0)), or to nan: nothing to warn.
        return e / sums if x.size else e

    def backward(self, F, grad):
        (out,) = self.saved
        return out * (grad - F.sum(grad * out, self.dim, True))


class LogSoftmaxBackward0(Op):
    """out = x - log(sum(exp(x))) along ``dim`` (computed from x - max: finite at 1e4)"""

    saves_output = True
    __slots__ = ("dim",)

    def forward(self, x, dim):
        self.dim = dim = _reduce_axis(x, dim)
        shifted, _, sums = _exp_and_sums(x, dim)
        # Every slice sums to at least 1 (its max gives exp(0)), or to nan: nothing to warn.
        return shifted - np.log(sums) if x.size else shifted

    def backward(self, F, grad):
        (out,) = self.saved
        return grad - F.exp(out) * F.sum(grad, self.dim, True)


def _implicit_softmax_dim(name: str, ndim: int) -> int:
    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. Change the call to include "
        "dim=X as an argument.",
        UserWarning,
        stacklevel=4,
    )
    return 0 if ndim in (0, 1, 3) else 1


def _softmax_input(input: Tensor, name: str, dtype: Any) -> Tensor:
    """``input`` cast to ``dtype`` first (ToCopyBackward0, as in PyTorch), checked floating."""
    if dtype is not None:
        input = conversion.to(input, dtype)
    kind = input._data.dtype
    if kind.kind != "f":
        raise NotImplementedError(
            f"{name}: \"{name}_lastdim_kernel_impl\" not implemented for '{scalar_type_name(kind)}' "
            f"(expected a floating point input; pass dtype=glassgrad.float32 to convert)"
        )
    return input


def _softmax_like(node: type, name: str, input: Tensor, dim: Any, dtype: Any) -> Tensor:
    check_tensor(input, name)
    if dim is None:
        dim = _implicit_softmax_dim(name, input._data.ndim)
    d = wrap_dim(dim, input._data.ndim, name)
    return node.apply(_softmax_input(input, name, dtype), dim=d)


def softmax(
    input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None
) -> Tensor:
    """``exp(x) / sum(exp(x))`` along ``dim``; with ``dtype`` the input is cast first.

    Example::

        >>> glassgrad.nn.functional.softmax(glassgrad.tensor([0.0, 0.0]), dim=0)
        tensor([0.5000, 0.5000])
    """
    return _softmax_like(SoftmaxBackward0, "softmax", input, dim, dtype)


def log_softmax(
    input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None
) -> Tensor:
    """``x - log(sum(exp(x)))`` along ``dim``; finite for logits of any magnitude.

    Example::

        >>> glassgrad.nn.functional.log_softmax(glassgrad.tensor([0.0, 1e4]), dim=0)
        tensor([-10000.,      0.])
    """
    return _softmax_like(LogSoftmaxBackward0, "log_softmax", input, dim, dtype)


def softmin(
    input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None
) -> Tensor:
    """``softmax(-input)`` along ``dim``.

    Example::

        >>> glassgrad.nn.functional.softmin(glassgrad.tensor([0.0, 0.0]), dim=0)
        tensor([0.5000, 0.5000])
    """
    check_tensor(input, "softmin")
    if dim is None:
        dim = _implicit_softmax_dim("softmin", input._data.ndim)
    return _softmax_like(SoftmaxBackward0, "softmax", arithmetic.neg(input), dim, dtype)


def _softmax_method(input: Tensor, dim: int, dtype: Any = None) -> Tensor:
    """``glassgrad.softmax(input, dim, dtype=None)`` (``dim`` required), also ``x.softmax``.

    Example::

        >>> glassgrad.tensor([0.0, 0.0]).softmax(0)
        tensor([0.5000, 0.5000])
    """
    return _softmax_like(SoftmaxBackward0, "softmax", input, dim, dtype)


def _log_softmax_method(input: Tensor, dim: int, dtype: Any = None) -> Tensor:
    """``glassgrad.log_softmax(input, dim, dtype=None)``, also ``x.log_softmax(dim)``.

    Example::

        >>> glassgrad.tensor([0.0, 0.0]).log_softmax(0)
        tensor([-0.6931, -0.6931])
    """
    return _softmax_like(LogSoftmaxBackward0, "log_softmax", input, dim, dtype)


_softmax_method.__name__ = _softmax_method.__qualname__ = "softmax"
_log_softmax_method.__name__ = _log_softmax_method.__qualname__ = "log_softmax"


# --- norms and similarities --------------------------------------------------------------------


class NormBackward1(LinalgVectorNormBackward0):
    """``at::norm(x, p, dim, keepdim)``: the p-norm over ``dim`` as PyTorch's C++ composites
    (``pairwise_distance``) record it; the same math as ``linalg.vector_norm``."""


def _check_float_input(x: Tensor, op: str) -> None:
    if x._data.dtype.kind != "f":
        raise RuntimeError(
            f"{op}: Expected a floating point tensor as input. Got {scalar_type_name(x._data.dtype)}"
        )


def normalize(
    input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out: Tensor | None = None
) -> Tensor:
    """``input / max(||input||_p, eps)``, the norm taken along ``dim``.

    Example::

        >>> glassgrad.nn.functional.normalize(glassgrad.tensor([[3.0, 4.0]]))
        tensor([[0.6000, 0.8000]])
    """
    check_tensor(input, "normalize")
    _check_float_input(input, "normalize")
    d = wrap_dim(dim, input._data.ndim, "normalize")
    norm = vector_norm(input, p, d, True)
    result = division.div(input, shape.expand_as(clamp_min(norm, eps), input))
    if out is None:
        return result
    with no_grad():
        return out.copy_(result)


def _broadcast_pair(a: Tensor, b: Tensor, op: str, expand_all: bool = True) -> tuple:
    """Both tensors at their common shape. Nothing is recorded when the shapes are equal;
    else both are expanded (``expand_outplace``), or with ``expand_all=False`` only those of
    another shape (``broadcast_tensors``), as PyTorch records them."""
    sa, sb = a._data.shape, b._data.shape
    if sa == sb:
        return a, b
    try:
        common = np.broadcast_shapes(sa, sb)
    except ValueError:
        raise broadcast_error(op, a._data, b._data) from None
    if expand_all or sa != common:
        a = shape.expand(a, common)
    if expand_all or sb != common:
        b = shape.expand(b, common)
    return a, b


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """``sum(x1/max(||x1||, eps) * x2/max(||x2||, eps))`` along ``dim`` (broadcasting).

    As in PyTorch, the norms are clamped without recording the clamp, and each input is
    divided by its norm before the product (values stay in [-1, 1]).

    Example::

        >>> a = glassgrad.tensor([[1.0, 0.0]])
        >>> glassgrad.nn.functional.cosine_similarity(a, glassgrad.tensor([[1.0, 1.0]]))
        tensor([0.7071])
    """
    check_tensor(x1, "cosine_similarity", "x1", 1)
    check_tensor(x2, "cosine_similarity", "x2", 2)
    common = _dtype.result_numpy_dtype((x1._data, x2._data))
    if common.kind != "f":
        raise RuntimeError(
            "cosine_similarity: expected common dtype to be floating point, yet common dtype "
            f"is {scalar_type_name(common)}"
        )
    x1, x2 = _broadcast_pair(x1, x2, "cosine_similarity")
    d = wrap_dim(dim, x1._data.ndim, "cosine_similarity")
    norm1 = conversion.clone(vector_norm(x1, 2, d, True))
    norm2 = conversion.clone(vector_norm(x2, 2, d, True))
    with no_grad():
        norm1.clamp_(min=eps)
        norm2.clamp_(min=eps)
    product = arithmetic.mul(division.div(x1, norm1), division.div(x2, norm2))
    return reduction.sum(product, d)


def pairwise_distance(
    x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False
) -> Tensor:
    """``||x1 - x2 + eps||_p`` along the last dimension (broadcasting).

    Example::

        >>> a = glassgrad.tensor([[0.0, 0.0]])
        >>> glassgrad.nn.functional.pairwise_distance(a, glassgrad.tensor([[3.0, 4.0]]), eps=0)
        tensor([5.])
    """
    check_tensor(x1, "pairwise_distance", "x1", 1)
    check_tensor(x2, "pairwise_distance", "x2", 2)
    a, b = binary_operands(x1._data, x2._data)
    try:
        np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        raise broadcast_error("pairwise_distance", a, b) from None
    innermost = max(x1._data.ndim, x2._data.ndim) - 1
    difference = AddBackward1.apply(arithmetic.sub(x1, x2), other=eps)
    dims = (innermost,) if innermost >= 0 else None
    return NormBackward1.apply(difference, ord=float(p), dim=dims, keepdim=keepdim)


# --- registry ----------------------------------------------------------------------------------

NN = "nn.functional"


def _activation_samples(rng: np.random.Generator) -> list[Sample]:
    """The unary samples, plus values spread wide enough to reach every branch."""
    return [*unary_samples(rng), Sample((3.0 * randn(rng, 5, 4),), note="wide values")]


def _inplace_samples(**kwargs: Any) -> Any:
    # In-place rows run on tensors without grad (a leaf that requires grad cannot be written).
    return lambda rng: [
        Sample((NoGrad(3.0 * randn(rng, 3, 4)),), kwargs, grad=False),
    ]


register("relu", relu, nodes=(pointwise.ReluBackward0,), namespace=NN, samples=_activation_samples)
register("relu_", relu_, nodes=(pointwise.ReluBackward0,), namespace=NN, samples=_inplace_samples())
register("relu6", relu6, nodes=(HardtanhBackward0,), namespace=NN, samples=_activation_samples)
register(
    "hardtanh",
    hardtanh,
    nodes=(HardtanhBackward0,),
    namespace=NN,
    samples=lambda rng: [
        *_activation_samples(rng),
        Sample((3.0 * randn(rng, 4, 5), -0.5, 2.0)),
        Sample((3.0 * randn(rng, 4, 5),), {"min_val": -2.0, "max_val": 0.5}),
    ],
)
register(
    "hardtanh_",
    hardtanh_,
    nodes=(HardtanhBackward0,),
    namespace=NN,
    samples=_inplace_samples(min_val=-0.5, max_val=2.0),
)
register(
    "leaky_relu",
    leaky_relu,
    nodes=(LeakyReluBackward0, LeakyReluBackward1),
    namespace=NN,
    samples=lambda rng: [
        *_activation_samples(rng),
        Sample((randn(rng, 3, 4), 0.2)),
        Sample((randn(rng, 3, 4),), {"negative_slope": -0.3}),
    ],
)
register(
    "leaky_relu_",
    leaky_relu_,
    nodes=(LeakyReluBackward1,),
    namespace=NN,
    samples=_inplace_samples(negative_slope=0.2),
)
register(
    "elu",
    elu,
    nodes=(EluBackward0, EluBackward1),
    namespace=NN,
    samples=lambda rng: [
        *_activation_samples(rng),
        Sample((randn(rng, 3, 4), 0.5)),
        Sample((randn(rng, 3, 4),), {"alpha": 2.0}),
    ],
)
register("elu_", elu_, nodes=(EluBackward1,), namespace=NN, samples=_inplace_samples(alpha=0.7))
register(
    "selu", selu, nodes=(EluBackward0, EluBackward1), namespace=NN, samples=_activation_samples
)
register("selu_", selu_, nodes=(EluBackward1,), namespace=NN, samples=_inplace_samples())
register(
    "celu",
    celu,
    nodes=(CeluBackward0, CeluBackward1),
    namespace=NN,
    samples=lambda rng: [
        *_activation_samples(rng),
        Sample((randn(rng, 3, 4), 0.5)),
        Sample((randn(rng, 3, 4),), {"alpha": 2.0}),
    ],
)
register("celu_", celu_, nodes=(CeluBackward1,), namespace=NN, samples=_inplace_samples(alpha=2.0))
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
register(
    "sigmoid",
    pointwise.sigmoid,
    nodes=(pointwise.SigmoidBackward0,),
    namespace=NN,
    samples=_activation_samples,
)
register(
    "tanh",
    pointwise.tanh,
    nodes=(pointwise.TanhBackward0,),
    namespace=NN,
    samples=_activation_samples,
)


def _softmax_samples(rng: np.random.Generator) -> list[Sample]:
    return [
        Sample((randn(rng, 3, 4), 1)),
        Sample((randn(rng, 3, 4), 0)),
        Sample((randn(rng, 2, 3, 4),), {"dim": -1}),
        Sample((randn(rng, 2, 3, 4), 1)),
        Sample((randn(rng, 5, 3).T, 1), note="non-contiguous"),
        Sample((randn(rng), 0)),
        Sample((randn(rng, 0, 3), 1)),
        Sample((randn(rng, 3, 0), 1)),
        Sample((10.0 * randn(rng, 4, 6), 1), note="wide logits"),
    ]


register("softmax", softmax, nodes=(SoftmaxBackward0,), namespace=NN, samples=_softmax_samples)
register(
    "log_softmax",
    log_softmax,
    nodes=(LogSoftmaxBackward0,),
    namespace=NN,
    samples=_softmax_samples,
)
register("softmin", softmin, nodes=(SoftmaxBackward0,), namespace=NN, samples=_softmax_samples)
register(
    "softmax",
    _softmax_method,
    nodes=(SoftmaxBackward0,),
    methods=("softmax",),
    samples=_softmax_samples,
)
register(
    "log_softmax",
    _log_softmax_method,
    nodes=(LogSoftmaxBackward0,),
    methods=("log_softmax",),
    samples=_softmax_samples,
)
register(
    "normalize",
    normalize,
    namespace=NN,
    samples=lambda rng: [
        Sample((randn(rng, 3, 4),)),
        Sample((randn(rng, 3, 4),), {"dim": 0}),
        Sample((randn(rng, 2, 3, 4),), {"p": 1.0, "dim": -1}),
        Sample((randn(rng, 4, 3).T,), {"p": 3.0}),
        Sample((randn(rng, 5),), {"dim": 0}),
    ],
)
register(
    "cosine_similarity",
    cosine_similarity,
    namespace=NN,
    samples=lambda rng: [
        Sample((randn(rng, 3, 4), randn(rng, 3, 4))),
        Sample((randn(rng, 3, 4), randn(rng, 3, 4)), {"dim": 0}),
        Sample((randn(rng, 2, 3, 4), randn(rng, 3, 4)), {"dim": -1}),
        Sample((randn(rng, 5), randn(rng, 5)), {"dim": 0}),
        Sample((randn(rng, 3, 4), NoGrad(randn(rng, 3, 4))), {"eps": 1e-6}),
    ],
)
register(
    "pairwise_distance",
    pairwise_distance,
    namespace=NN,
    samples=lambda rng: [
        Sample((randn(rng, 3, 4), randn(rng, 3, 4))),
        Sample((randn(rng, 3, 4), randn(rng, 4)), {"p": 1.0}),
        Sample((randn(rng, 3, 4), randn(rng, 3, 4)), {"p": 3.0, "keepdim": True}),
        Sample((randn(rng, 3, 4), NoGrad(randn(rng, 3, 4))), {"eps": 0.0}),
    ],
)
