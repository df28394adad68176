"""Elementwise math beyond the core set of ``pointwise.py``: exp2, expm1, log2, log10, log1p,
rsqrt, square; tan, asin, acos, atan, atan2 and the hyperbolic functions; erf and erfinv;
with their in-place forms (rounding is in ``rounding.py``).

Each op is one Node class named as PyTorch names its grad_fn (forward on arrays, one backward
formula for arrays or Tensors), one public function, and one registry row with its samples.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from .._strides import like_operands
from .._tensor import Tensor
from ..autograd.op import Op, apply_inplace
from . import _erf
from ._common import (
    array_of,
    check_tensor,
    floating_operands,
)
from ._namespace import ArrayNamespace, default_float
from ._not_implemented import _binary, _check_tensor_other, refuse_complex
from ._registry import NoGrad, Sample, register
from ._samples import positive, randn, unary_samples
from .masking import masked_zero
from .powers import PowBackward0

_LN2 = math.log(2.0)


_LN10 = math.log(10.0)


_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


_HALF_SQRT_PI = 0.5 * math.sqrt(math.pi)


# --- exponentials, logarithms, roots -------------------------------------------------------


class Exp2Backward0(Op):
    pointwise = True
    holomorphic = True
    saves_output = True

    def forward(self, x: Any) -> Any:
        return np.exp2(default_float(x))

    def backward(self, F: Any, grad: Any) -> Any:
        (out,) = self.saved
        return grad * out * _LN2


class Expm1Backward0(Op):
    pointwise = True
    holomorphic = True
    saves_output = True

    def forward(self, x: Any) -> Any:
        return np.expm1(default_float(x))

    def backward(self, F: Any, grad: Any) -> Any:
        (out,) = self.saved
        return grad * (out + 1.0)


class Log2Backward0(Op):
    pointwise = True
    holomorphic = True
    saved_inputs: tuple[int, ...] = (0,)

    def forward(self, x: Any) -> Any:
        return np.log2(default_float(x))

    def backward(self, F: Any, grad: Any) -> Any:
        (x,) = self.saved
        return grad / (x * _LN2)


class Log10Backward0(Op):
    pointwise = True
    holomorphic = True
    saved_inputs: tuple[int, ...] = (0,)

    def forward(self, x: Any) -> Any:
        return np.log10(default_float(x))

    def backward(self, F: Any, grad: Any) -> Any:
        (x,) = self.saved
        return grad / (x * _LN10)


class Log1PBackward0(Op):
    pointwise = True
    holomorphic = True
    saved_inputs: tuple[int, ...] = (0,)

    def forward(self, x: Any) -> Any:
        return np.log1p(default_float(x))

    def backward(self, F: Any, grad: Any) -> Any:
        (x,) = self.saved
        return grad / (x + 1.0)


class RsqrtBackward0(Op):
    pointwise = True
    holomorphic = True
    saves_output = True

    def forward(self, x: Any) -> Any:
        with np.errstate(divide="ignore", invalid="ignore"):
            return 1.0 / np.sqrt(default_float(x))

    def backward(self, F: Any, grad: Any) -> Any:
        (out,) = self.saved
        return -0.5 * grad * out * out * out


# --- trigonometric and hyperbolic ----------------------------------------------------------


class TanBackward0(Op):
    pointwise = True
    holomorphic = True
    saves_output = True

    def forward(self, x: Any) -> Any:
        return np.tan(default_float(x))

    def backward(self, F: Any, grad: Any) -> Any:
        (out,) = self.saved
        return grad * (1.0 + out * out)


class AsinBackward0(Op):
    pointwise = True
    holomorphic = True
    saved_inputs: tuple[int, ...] = (0,)

    def forward(self, x: Any) -> Any:
        return np.arcsin(default_float(x))

    def backward(self, F: Any, grad: Any) -> Any:
        (x,) = self.saved
        return grad / F.sqrt(1.0 - x * x)


class AcosBackward0(Op):
    pointwise = True
    holomorphic = True
    saved_inputs: tuple[int, ...] = (0,)

    def forward(self, x: Any) -> Any:
        return np.arccos(default_float(x))

    def backward(self, F: Any, grad: Any) -> Any:
        (x,) = self.saved
        return -grad / F.sqrt(1.0 - x * x)


class AtanBackward0(Op):
    pointwise = True
    holomorphic = True
    saved_inputs: tuple[int, ...] = (0,)

    def forward(self, x: Any) -> Any:
        return np.arctan(default_float(x))

    def backward(self, F: Any, grad: Any) -> Any:
        (x,) = self.saved
        return grad / (x * x + 1.0)


class Atan2Backward0(Op):
    """out = atan2(a, b), the angle of the point (b, a)"""

    pointwise = True
    vector_bits = 512  # ALSO_REGISTER_AVX512_DISPATCH(atan2_stub, ...)

    saved_inputs: tuple[int, ...] = (0, 1)

    def forward(self, a: Any, b: Any) -> Any:
        refuse_complex("atan2_cpu", a, b)
        a, b = floating_operands(a, b)
        return _binary("atan2", a, b, np.arctan2)

    def backward(self, F: Any, grad: Any) -> Any:
        # PyTorch's atan2_backward: 1 / (a^2 + b^2), zero where it is infinite (a = b = 0:
        # the gradient there is 0, not NaN; its own derivative stays NaN, as PyTorch's)
        a, b = self.saved
        needs = self.needs_input_grad
        recip = 1 / (a * a + b * b)
        recip = masked_zero(recip, np.isinf(array_of(recip)))
        return grad * b * recip if needs[0] else None, grad * -a * recip if needs[1] else None


class SinhBackward0(Op):
    pointwise = True
    holomorphic = True
    saved_inputs: tuple[int, ...] = (0,)

    def forward(self, x: Any) -> Any:
        return np.sinh(default_float(x))

    def backward(self, F: Any, grad: Any) -> Any:
        (x,) = self.saved
        return grad * CoshBackward0.call(x)


class CoshBackward0(Op):
    pointwise = True
    holomorphic = True
    saved_inputs: tuple[int, ...] = (0,)

    def forward(self, x: Any) -> Any:
        return np.cosh(default_float(x))

    def backward(self, F: Any, grad: Any) -> Any:
        (x,) = self.saved
        return grad * SinhBackward0.call(x)


class AsinhBackward0(Op):
    pointwise = True
    holomorphic = True
    saved_inputs: tuple[int, ...] = (0,)

    def forward(self, x: Any) -> Any:
        return np.arcsinh(default_float(x))

    def backward(self, F: Any, grad: Any) -> Any:
        (x,) = self.saved
        return grad / F.sqrt(x * x + 1.0)


class AcoshBackward0(Op):
    pointwise = True
    holomorphic = True
    saved_inputs: tuple[int, ...] = (0,)

    def forward(self, x: Any) -> Any:
        return np.arccosh(default_float(x))

    def backward(self, F: Any, grad: Any) -> Any:
        (x,) = self.saved
        # PyTorch's formula: sqrt(x^2 - 1) for real x (finite for x < -1, where the forward
        # is NaN), sqrt(x - 1) sqrt(x + 1) for complex x (the right branch there)
        if array_of(x).dtype.kind == "c":
            return grad / (F.sqrt(x - 1.0) * F.sqrt(x + 1.0))
        return grad / F.sqrt(x * x - 1.0)


class AtanhBackward0(Op):
    pointwise = True
    holomorphic = True
    saved_inputs: tuple[int, ...] = (0,)

    def forward(self, x: Any) -> Any:
        return np.arctanh(default_float(x))

    def backward(self, F: Any, grad: Any) -> Any:
        (x,) = self.saved
        return grad / (1.0 - x * x)


class ErfBackward0(Op):
    """d erf(x)/dx = 2/sqrt(pi) * exp(-x^2)"""

    pointwise = True

    saved_inputs: tuple[int, ...] = (0,)

    def forward(self, x: Any) -> Any:
        refuse_complex("erf_vml_cpu", x)
        return _erf.erf(default_float(x))

    def backward(self, F: Any, grad: Any) -> Any:
        (x,) = self.saved
        return grad * _TWO_OVER_SQRT_PI * F.exp(-(x * x))


class ErfinvBackward0(Op):
    """d erfinv(x)/dx = sqrt(pi)/2 * exp(erfinv(x)^2)"""

    pointwise = True

    saved_inputs: tuple[int, ...] = (
        0,
    )  # PyTorch saves the input and recomputes erfinv in backward
    # A copy of the forward's result (the result itself may be written in place), kept for one
    # array-path backward instead of that recomputation: the same values, at a copy's cost.
    __slots__ = ("result",)

    def forward(self, x: Any) -> Any:
        refuse_complex("erfinv_vml_cpu", x)
        out = like_operands(_erf.erfinv(default_float(x)), (x,))
        self.result = out.copy(order="K")
        return out

    def backward(self, F: Any, grad: Any) -> Any:
        (x,) = self.saved
        out, self.result = self.result, None
        if out is None or F is not ArrayNamespace:
            out = ErfinvBackward0.call(x)
        return grad * _HALF_SQRT_PI * F.exp(out * out)


def _unary(node_cls: type, name: str, doc: str, example: str) -> Any:
    def op(input: Tensor) -> Tensor:
        return node_cls.apply(check_tensor(input, name))

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"{doc}\n\nExample::\n\n    >>> {example}\n"
    return op


exp2: Callable[..., Any] = _unary(
    Exp2Backward0,
    "exp2",
    "Elementwise ``2 ** input``.",
    "glassgrad.exp2(glassgrad.tensor([3.0]))\n    tensor([8.])",
)


expm1: Callable[..., Any] = _unary(
    Expm1Backward0,
    "expm1",
    "Elementwise ``exp(input) - 1``, accurate near 0.",
    "glassgrad.expm1(glassgrad.tensor([0.0]))\n    tensor([0.])",
)


log2: Callable[..., Any] = _unary(
    Log2Backward0,
    "log2",
    "Elementwise base-2 logarithm.",
    "glassgrad.log2(glassgrad.tensor([8.0]))\n    tensor([3.])",
)


log10: Callable[..., Any] = _unary(
    Log10Backward0,
    "log10",
    "Elementwise base-10 logarithm.",
    "glassgrad.log10(glassgrad.tensor([100.0]))\n    tensor([2.])",
)


log1p: Callable[..., Any] = _unary(
    Log1PBackward0,
    "log1p",
    "Elementwise ``log(1 + input)``, accurate near 0.",
    "glassgrad.log1p(glassgrad.tensor([0.0]))\n    tensor([0.])",
)


rsqrt: Callable[..., Any] = _unary(
    RsqrtBackward0,
    "rsqrt",
    "Elementwise ``1 / sqrt(input)``.",
    "glassgrad.rsqrt(glassgrad.tensor([4.0]))\n    tensor([0.5000])",
)


tan: Callable[..., Any] = _unary(
    TanBackward0,
    "tan",
    "Elementwise tangent.",
    "glassgrad.tan(glassgrad.tensor([0.0]))\n    tensor([0.])",
)


asin: Callable[..., Any] = _unary(
    AsinBackward0,
    "asin",
    "Elementwise arcsine (NaN outside [-1, 1]).",
    "glassgrad.asin(glassgrad.tensor([1.0]))\n    tensor([1.5708])",
)


acos: Callable[..., Any] = _unary(
    AcosBackward0,
    "acos",
    "Elementwise arccosine (NaN outside [-1, 1]).",
    "glassgrad.acos(glassgrad.tensor([1.0]))\n    tensor([0.])",
)


atan: Callable[..., Any] = _unary(
    AtanBackward0,
    "atan",
    "Elementwise arctangent.",
    "glassgrad.atan(glassgrad.tensor([1.0]))\n    tensor([0.7854])",
)


sinh: Callable[..., Any] = _unary(
    SinhBackward0,
    "sinh",
    "Elementwise hyperbolic sine.",
    "glassgrad.sinh(glassgrad.tensor([0.0]))\n    tensor([0.])",
)


cosh: Callable[..., Any] = _unary(
    CoshBackward0,
    "cosh",
    "Elementwise hyperbolic cosine.",
    "glassgrad.cosh(glassgrad.tensor([0.0]))\n    tensor([1.])",
)


asinh: Callable[..., Any] = _unary(
    AsinhBackward0,
    "asinh",
    "Elementwise inverse hyperbolic sine.",
    "glassgrad.asinh(glassgrad.tensor([0.0]))\n    tensor([0.])",
)


acosh: Callable[..., Any] = _unary(
    AcoshBackward0,
    "acosh",
    "Elementwise inverse hyperbolic cosine (NaN below 1).",
    "glassgrad.acosh(glassgrad.tensor([1.0]))\n    tensor([0.])",
)


atanh: Callable[..., Any] = _unary(
    AtanhBackward0,
    "atanh",
    "Elementwise inverse hyperbolic tangent (NaN outside [-1, 1]).",
    "glassgrad.atanh(glassgrad.tensor([0.0]))\n    tensor([0.])",
)


erf: Callable[..., Any] = _unary(
    ErfBackward0,
    "erf",
    "The error function ``2/sqrt(pi) * integral_0^x exp(-t^2) dt``.",
    "glassgrad.erf(glassgrad.tensor([0.0]))\n    tensor([0.])",
)


erfinv: Callable[..., Any] = _unary(
    ErfinvBackward0,
    "erfinv",
    "The inverse error function on [-1, 1] (+-inf at +-1).",
    "glassgrad.erfinv(glassgrad.tensor([0.0]))\n    tensor([0.])",
)


def square(input: Tensor) -> Tensor:
    """Elementwise ``input * input`` (recorded as ``pow(input, 2)``; bools become int64).

    Example::

        >>> glassgrad.square(glassgrad.tensor([-3.0]))
        tensor([9.])
    """
    check_tensor(input, "square")
    if input.dtype.numpy == np.bool_:
        input = Tensor._from_array(input._data.astype(np.int64))
    return PowBackward0.apply(input, exponent=2)


def atan2(input: Tensor, other: Tensor) -> Tensor:
    """Elementwise angle of the point ``(other, input)``, in ``(-pi, pi]``.

    Example::

        >>> glassgrad.atan2(glassgrad.tensor([1.0]), glassgrad.tensor([-1.0]))
        tensor([2.3562])
    """
    check_tensor(input, "atan2")
    return Atan2Backward0.apply(input, _check_tensor_other(other, "atan2"))


def _open_unit(rng: np.random.Generator, *shape: int) -> np.ndarray:
    """Values in (-0.9, 0.9): inside the domain of asin, acos, atanh, erfinv."""
    return 0.9 * (2.0 * rng.random(shape) - 1.0)


def _open_unit_samples(rng: np.random.Generator) -> list[Sample]:
    return [
        Sample((_open_unit(rng, 3, 4),)),
        Sample((_open_unit(rng, 4, 3).T,)),
        Sample((_open_unit(rng),)),
        Sample((_open_unit(rng, 0, 2),)),
    ]


def _positive_samples(rng: np.random.Generator) -> list[Sample]:
    return [
        Sample((positive(rng, 3, 4) + 0.2,)),
        Sample((positive(rng, 4, 3).T + 0.2,)),
        Sample((positive(rng) + 0.2,)),
        Sample((np.array([1, 4, 10]),), grad=False),
    ]


for _fn, _node, _samples in (
    (exp2, Exp2Backward0, unary_samples),
    (expm1, Expm1Backward0, unary_samples),
    (log2, Log2Backward0, _positive_samples),
    (log10, Log10Backward0, _positive_samples),
    (log1p, Log1PBackward0, _positive_samples),
    (rsqrt, RsqrtBackward0, _positive_samples),
    (tan, TanBackward0, _open_unit_samples),
    (asin, AsinBackward0, _open_unit_samples),
    (acos, AcosBackward0, _open_unit_samples),
    (atan, AtanBackward0, unary_samples),
    (sinh, SinhBackward0, unary_samples),
    (cosh, CoshBackward0, unary_samples),
    (asinh, AsinhBackward0, unary_samples),
    (atanh, AtanhBackward0, _open_unit_samples),
    (erf, ErfBackward0, unary_samples),
    (erfinv, ErfinvBackward0, _open_unit_samples),
):
    register(_fn.__name__, _fn, nodes=(_node,), samples=_samples)


register(
    "acosh",
    acosh,
    nodes=(AcoshBackward0,),
    samples=lambda rng: [
        Sample((positive(rng, 3, 4) + 1.2,)),
        Sample((positive(rng, 4, 3).T + 1.2,)),
        Sample((np.array(2.5),)),
    ],
)


register(
    "square",
    square,
    nodes=(PowBackward0,),
    samples=lambda rng: [
        *unary_samples(rng),
        Sample((np.array([3, -7, 0]),), grad=False),
        Sample((np.array([True, False]),), grad=False),
    ],
)


register(
    "atan2",
    atan2,
    nodes=(Atan2Backward0,),
    samples=lambda rng: [
        Sample((randn(rng, 3, 4), randn(rng, 3, 4))),
        Sample((randn(rng, 3, 1), randn(rng, 1, 4))),
        Sample((randn(rng, 2, 3), NoGrad(randn(rng, 3)))),
        Sample((randn(rng), randn(rng, 2, 2))),
        Sample((np.array([1, -1, 0]), np.array([-1, -1, 1])), grad=False),
    ],
)


def _inplace_unary(node: type, name: str) -> Any:
    def method(self: Tensor) -> Tensor:
        return apply_inplace(node, self)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"In-place version of ``{name[:-1]}``."
    return method


def _atan2_inplace(self: Tensor, other: Tensor) -> Tensor:
    return apply_inplace(Atan2Backward0, self, _check_tensor_other(other, "atan2_"))


def _square_inplace(self: Tensor) -> Tensor:
    return apply_inplace(PowBackward0, self, exponent=2)


TENSOR_METHODS: dict[str, Any] = {
    "exp2_": _inplace_unary(Exp2Backward0, "exp2_"),
    "expm1_": _inplace_unary(Expm1Backward0, "expm1_"),
    "log2_": _inplace_unary(Log2Backward0, "log2_"),
    "log10_": _inplace_unary(Log10Backward0, "log10_"),
    "log1p_": _inplace_unary(Log1PBackward0, "log1p_"),
    "rsqrt_": _inplace_unary(RsqrtBackward0, "rsqrt_"),
    "square_": _square_inplace,
    "tan_": _inplace_unary(TanBackward0, "tan_"),
    "asin_": _inplace_unary(AsinBackward0, "asin_"),
    "acos_": _inplace_unary(AcosBackward0, "acos_"),
    "atan_": _inplace_unary(AtanBackward0, "atan_"),
    "atan2_": _atan2_inplace,
    "sinh_": _inplace_unary(SinhBackward0, "sinh_"),
    "cosh_": _inplace_unary(CoshBackward0, "cosh_"),
    "asinh_": _inplace_unary(AsinhBackward0, "asinh_"),
    "acosh_": _inplace_unary(AcoshBackward0, "acosh_"),
    "atanh_": _inplace_unary(AtanhBackward0, "atanh_"),
    "erf_": _inplace_unary(ErfBackward0, "erf_"),
    "erfinv_": _inplace_unary(ErfinvBackward0, "erfinv_"),
}
