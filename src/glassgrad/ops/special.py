"""Special functions of the error-function family and their neighbours, without SciPy:
erfc, erfcx, the normal distribution (ndtr, ndtri, log_ndtr), logit, sinc and entr. xlogy and
xlog1py are in ``special_xlogy.py``, the gamma and Bessel families in ``special_gamma.py`` and
``special_bessel.py``.

Each op is one Node class named as PyTorch names its grad_fn, with the backward formula of
PyTorch's ``derivatives.yaml`` (so first and second derivatives match), one public function,
and one registry row with its samples.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._tensor import Tensor
from ..autograd.op import Op, apply_inplace
from . import _erf, nn_softmax
from ._common import (
    array_of,
    check_tensor,
    float_kernel,
    is_scalar,
)
from ._namespace import ArrayNamespace, default_float
from ._not_implemented import refuse_complex
from ._out import composite_out, unary_kernel
from ._registry import Sample, register
from ._samples import positive, randn, unary_samples
from .nn_activation import AddBackward1, MulBackward1
from .unary_math import erf

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


_SQRT_TWO_PI = math.sqrt(2.0 * math.pi)


_SQRT_HALF = math.sqrt(0.5)


SPECIAL = "special"


# --- the error function family -------------------------------------------------------------


class ErfcBackward0(Op):
    """d erfc(x)/dx = -2/sqrt(pi) * exp(-x^2)"""

    pointwise = True

    saved_inputs: tuple[int, ...] = (0,)

    def forward(self, x: Any) -> Any:
        return float_kernel(x, _erf.erfc, "erfc_vml_cpu")

    def backward(self, F: Any, grad: Any) -> Any:
        (x,) = self.saved
        return -_TWO_OVER_SQRT_PI * F.exp(-(x * x)) * grad


class SpecialErfcxBackward0(Op):
    """d erfcx(x)/dx = 2 x erfcx(x) - 2/sqrt(pi)"""

    # A TensorIterator kernel in PyTorch (no vectorized loop, measured with an overlapping out=)
    pointwise, vector_bits = True, 0

    saved_inputs: tuple[int, ...] = (0,)
    saves_output = True

    def forward(self, x: Any) -> Any:
        return float_kernel(x, _erf.erfcx, "erfcx_cpu")

    def backward(self, F: Any, grad: Any) -> Any:
        x, out = self.saved
        return (2.0 * x * out - _TWO_OVER_SQRT_PI) * grad


class SpecialNdtriBackward0(Op):
    """d ndtri(p)/dp = sqrt(2 pi) * exp(ndtri(p)^2 / 2)"""

    # A TensorIterator kernel in PyTorch (no vectorized loop, measured with an overlapping out=)
    pointwise, vector_bits = True, 0

    saves_output = True

    def forward(self, p: Any) -> Any:
        return float_kernel(p, _erf.ndtri, "ndtri_cpu")

    def backward(self, F: Any, grad: Any) -> Any:
        (out,) = self.saved
        return grad * _SQRT_TWO_PI * F.exp(out * out / 2.0)


class SpecialLogNdtrBackward0(Op):
    """d log_ndtr(x)/dx = exp(-x^2/2 - log_ndtr(x)) / sqrt(2 pi)"""

    # A TensorIterator kernel in PyTorch (no vectorized loop, measured with an overlapping out=)
    pointwise, vector_bits = True, 0

    saved_inputs: tuple[int, ...] = (0,)
    saves_output = True

    def forward(self, x: Any) -> Any:
        return float_kernel(x, _erf.log_ndtr, "log_ndtr_cpu")

    def backward(self, F: Any, grad: Any) -> Any:
        x, out = self.saved
        return grad / _SQRT_TWO_PI * F.exp(-(out + x * x / 2.0))


def erfc(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The complementary error function ``1 - erf(input)``, accurate where it is tiny.

    Example::

        >>> glassgrad.erfc(glassgrad.tensor([0.0, 3.0]))
        tensor([1.0000e+00, 2.2090e-05])
    """
    return unary_kernel("erfc", ErfcBackward0, erfc, input, out)


def erfcx(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The scaled complementary error function ``exp(input^2) * erfc(input)``.

    Example::

        >>> glassgrad.special.erfcx(glassgrad.tensor([0.0, 30.0]))
        tensor([1.0000, 0.0188])
    """
    return unary_kernel("special_erfcx", SpecialErfcxBackward0, erfcx, input, out)


def ndtr(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The standard normal distribution function ``(1 + erf(input / sqrt(2))) / 2``, built from
    erf as PyTorch builds it (so its graph is PyTorch's).

    Example::

        >>> glassgrad.special.ndtr(glassgrad.tensor([0.0]))
        tensor([0.5000])
    """
    if out is not None:  # PyTorch's out= copies the result in (CopyBackwards)
        return composite_out("special_ndtr", out, lambda: ndtr(input))
    scaled = MulBackward1.apply(check_tensor(input, "special_ndtr"), other=_SQRT_HALF)
    return MulBackward1.apply(AddBackward1.apply(erf(scaled), other=1), other=0.5)


def ndtri(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The inverse of ``ndtr``: the normal quantile of probabilities in [0, 1].

    Example::

        >>> glassgrad.special.ndtri(glassgrad.tensor([0.5, 0.975]))
        tensor([0.0000, 1.9600])
    """
    return unary_kernel("special_ndtri", SpecialNdtriBackward0, ndtri, input, out)


def log_ndtr(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """``log(ndtr(input))``, accurate far into the left tail.

    Example::

        >>> glassgrad.special.log_ndtr(glassgrad.tensor([-40.0]))
        tensor([-804.6084])
    """
    return unary_kernel("special_log_ndtr", SpecialLogNdtrBackward0, log_ndtr, input, out)


# --- logit, sinc, entr -------------------------------------------------------------------------


class LogitBackward0(Op):
    """out = log(z / (1 - z)), z = input clamped to [eps, 1 - eps] when eps is given;
    d/dx = 1 / (x (1 - x)) inside the bounds, 0 outside them (NaN outside [0, 1] without eps)"""

    # A TensorIterator kernel in PyTorch (512-bit vectors, measured with an overlapping out=)
    pointwise, vector_bits = True, 512

    eps: Any

    __slots__ = ("eps",)
    saved_inputs: tuple[int, ...] = (0,)

    def forward(self, x: Any, eps: Any = None) -> Any:
        refuse_complex("logit_cpu", x)
        self.eps = eps
        z = default_float(x)
        if eps is not None:
            z = np.clip(z, eps, 1.0 - eps).astype(z.dtype, copy=False)
        return np.log(z / (1 - z))

    def backward(self, F: Any, grad: Any) -> Any:
        (x,) = self.saved
        values = array_of(x)
        low = 0.0 if self.eps is None else self.eps
        inside = (values >= low) & (values <= 1.0 - low)
        derivative = grad / (x * (1.0 - x))
        if F is ArrayNamespace:
            # logit_backward's scalar loop takes grad * inf at 0 and 1, where the division's
            # sign follows -0's; under create_graph PyTorch divides (its vectorized loop
            # does too: docs/fuzzing.md)
            edge = (values == 0) | (values == 1)
            derivative = np.where(edge, grad * math.inf, derivative)
        return F.where(inside, derivative, math.nan if self.eps is None else 0.0)


class SincBackward0(Op):
    """d sinc(x)/dx = (pi x cos(pi x) - sin(pi x)) / (pi x^2), 0 at x = 0"""

    # A TensorIterator kernel in PyTorch (no vectorized loop, measured with an overlapping out=)
    pointwise, vector_bits = True, 0

    holomorphic = True

    saved_inputs: tuple[int, ...] = (0,)

    def forward(self, x: Any) -> Any:
        x = default_float(x)
        product = x * np.pi
        return np.where(x == 0, x.dtype.type(1.0), np.sin(product) / product).astype(x.dtype)

    def backward(self, F: Any, grad: Any) -> Any:
        (x,) = self.saved
        x_pi = x * math.pi
        x_squared_pi = x * x * math.pi
        out = grad * ((x_pi * F.cos(x_pi) - F.sin(x_pi)) / x_squared_pi)
        return F.where(array_of(x_squared_pi) == 0, 0.0, out)


class SpecialEntrBackward0(Op):
    """out = -x log(x) (0 at 0, -inf below); d/dx = -(1 + log(x))"""

    # A TensorIterator kernel in PyTorch (no vectorized loop, measured with an overlapping out=)
    pointwise, vector_bits = True, 0

    saved_inputs: tuple[int, ...] = (0,)

    def forward(self, x: Any) -> Any:
        refuse_complex("entr_cpu", x)
        x = default_float(x)
        out = np.where(x > 0, -x * np.log(np.where(x > 0, x, 1)), np.where(x == 0, 0.0, -np.inf))
        return np.where(np.isnan(x), x, out).astype(x.dtype, copy=False)

    def backward(self, F: Any, grad: Any) -> Any:
        (x,) = self.saved
        return grad * (-(1.0 + F.log(x)))


def logit(input: Tensor, eps: float | None = None, *, out: Tensor | None = None) -> Tensor:
    """``log(p / (1 - p))`` of ``input`` clamped to ``[eps, 1 - eps]`` (unclamped when ``eps``
    is None).

    Example::

        >>> glassgrad.logit(glassgrad.tensor([0.5, 0.0]), eps=1e-6)
        tensor([  0.0000, -13.8155])
    """
    return unary_kernel("logit", LogitBackward0, logit, input, out, eps=eps)


def sinc(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The normalized sinc function ``sin(pi x) / (pi x)``, 1 at 0.

    Example::

        >>> glassgrad.sinc(glassgrad.tensor([0.0, 0.5]))
        tensor([1.0000, 0.6366])
    """
    return unary_kernel("sinc", SincBackward0, sinc, input, out)


def entr(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Elementwise entropy ``-x log(x)``: 0 at 0, -inf for negative values.

    Example::

        >>> glassgrad.special.entr(glassgrad.tensor([0.0, 0.5]))
        tensor([0.0000, 0.3466])
    """
    return unary_kernel("special_entr", SpecialEntrBackward0, entr, input, out)


def binary_special(
    op: str, nodes: tuple[type[Op], type[Op], type[Op]], input: Any, other: Any
) -> Tensor:
    """Dispatch a binary op over (Tensor | number, Tensor | number) to its Tensor-Tensor,
    number-Tensor and Tensor-number nodes, as PyTorch's overloads; two numbers are refused."""
    both, number_first, number_second = nodes
    if isinstance(input, Tensor):
        if isinstance(other, Tensor):
            return both.apply(input, other)
        if is_scalar(other):
            return number_second.apply(input, y=other)
    elif is_scalar(input) and isinstance(other, Tensor):
        return number_first.apply(other, x=input)
    raise TypeError(
        f"{op}() received an invalid combination of arguments - got "
        f"({type(input).__name__}, {type(other).__name__}), but expected one of: "
        "(Tensor input, Tensor other), (Number self, Tensor other), (Tensor input, Number other)"
    )


def _logit_inplace(self: Tensor, eps: float | None = None) -> Tensor:
    return apply_inplace(LogitBackward0, self, eps=eps)


def _unary_inplace(node: type) -> Any:
    def method(self: Tensor) -> Tensor:
        return apply_inplace(node, self)

    return method


# --- registry rows -----------------------------------------------------------------------------


def _probabilities(rng: np.random.Generator, *shape: int) -> np.ndarray:
    return 0.02 + 0.96 * rng.random(shape)


def _probability_samples(rng: np.random.Generator) -> list[Sample]:
    return [
        Sample((_probabilities(rng, 3, 4),)),
        Sample((_probabilities(rng, 4, 3).T,)),
        Sample((np.asarray(_probabilities(rng)),)),
        Sample((_probabilities(rng, 0, 2),)),
        Sample((np.array([0.0, 1.0, 1e-300, 1 - 1e-16, 0.5]),), grad=False, note="ends"),
    ]


def _wide_samples(rng: np.random.Generator) -> list[Sample]:
    """Standard samples plus both tails (-40 .. 30) without derivatives there."""
    return [
        *unary_samples(rng),
        Sample((3 * randn(rng, 5),)),
        Sample((np.array([-40.0, -10.0, -1.0, 0.0, 1.5, 2.0, 5.0, 30.0]),), grad=False),
    ]


register("erfc", erfc, nodes=(ErfcBackward0,), samples=_wide_samples)


register(
    "erfcx",
    erfcx,
    nodes=(SpecialErfcxBackward0,),
    namespace=SPECIAL,
    samples=lambda rng: [
        *_wide_samples(rng),
        Sample((np.array([-np.inf, np.inf, np.nan]),), grad=False),
    ],
)


register("ndtr", ndtr, namespace=SPECIAL, samples=_wide_samples)


register(
    "ndtri", ndtri, nodes=(SpecialNdtriBackward0,), namespace=SPECIAL, samples=_probability_samples
)


register(
    "log_ndtr",
    log_ndtr,
    nodes=(SpecialLogNdtrBackward0,),
    namespace=SPECIAL,
    samples=lambda rng: [*_wide_samples(rng), Sample((-30.0 - 10 * positive(rng, 4),))],
)


register(
    "logit",
    logit,
    nodes=(LogitBackward0,),
    samples=lambda rng: [
        *_probability_samples(rng),
        Sample((_probabilities(rng, 3, 4),), {"eps": 0.1}, note="clamped: zero gradient there"),
        Sample((np.array([-0.5, 0.3, 1.5]),), {"eps": 0.2}),
        Sample((np.array([-0.5, 0.3, 1.5]),), fd=False, note="NaN gradient outside [0, 1]"),
    ],
)


register(
    "sinc",
    sinc,
    nodes=(SincBackward0,),
    samples=lambda rng: [
        *unary_samples(rng),
        Sample((np.array([0.0, 1.0, -2.0, 0.5]),), note="0 and integers"),
        Sample((np.array([0, 1, 2]),), grad=False),
    ],
)


register(
    "entr",
    entr,
    nodes=(SpecialEntrBackward0,),
    namespace=SPECIAL,
    samples=lambda rng: [
        Sample((positive(rng, 3, 4),)),
        Sample((positive(rng, 4, 3).T,)),
        Sample((np.array([0.0, -1.0, np.nan, np.inf, 2.0]),), grad=False),
    ],
)


# --- torch.special's spellings of softmax and log_softmax ------------------------------------


def softmax(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    """``exp(x) / sum(exp(x))`` along ``dim`` (``torch.special``'s spelling: ``dim`` required,
    ``dtype`` by keyword).

    Example::

        >>> glassgrad.special.softmax(glassgrad.tensor([0.0, 0.0]), 0)
        tensor([0.5000, 0.5000])
    """
    return nn_softmax.softmax(input, dim, dtype=dtype)


def log_softmax(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    """``x - log(sum(exp(x)))`` along ``dim`` (``torch.special``'s spelling).

    Example::

        >>> glassgrad.special.log_softmax(glassgrad.tensor([0.0, 0.0]), 0)
        tensor([-0.6931, -0.6931])
    """
    return nn_softmax.log_softmax(input, dim, dtype=dtype)


def _softmax_samples(rng: np.random.Generator) -> list[Sample]:
    return [
        Sample((randn(rng, 3, 4), 1)),
        Sample((randn(rng, 4, 3).T, 0)),
        Sample((randn(rng, 2, 3), -1), {"dtype": None}),
    ]


register("softmax", softmax, nodes=(), namespace=SPECIAL, samples=_softmax_samples)


register("log_softmax", log_softmax, nodes=(), namespace=SPECIAL, samples=_softmax_samples)


TENSOR_METHODS: dict[str, Any] = {
    "erfc_": _unary_inplace(ErfcBackward0),
    "sinc_": _unary_inplace(SincBackward0),
    "logit_": _logit_inplace,
}
