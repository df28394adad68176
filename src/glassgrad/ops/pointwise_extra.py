"""Elementwise ops beyond the core set: rounding and integer division, more exp/log and
trigonometric functions, erf/erfinv, clamp variants, maximum/minimum, lerp, addcmul/addcdiv,
and nan_to_num (the logical and bitwise ops are in ``logical.py``).

Each op is one Node class named as PyTorch names its grad_fn (forward on arrays, one backward
formula for arrays or Tensors), one public function, and one registry row with its samples.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._dtype import c_type_name, scalar_type_name
from .._tensor import Tensor
from ..autograd.graph import ACCUMULATE_PRIORITY
from ..autograd.op import Op, apply_inplace
from . import _erf
from ._common import (
    array_of,
    binary_operands,
    broadcast_error,
    check_tensor,
    floating_operands,
    is_scalar,
    number_or_tensor,
    zeros_like_grad,
)
from ._namespace import default_float
from ._registry import NoGrad, Sample, register
from ._samples import positive, randn, unary_samples
from .pointwise import ClampBackward1, DivBackward0, PowBackward0

_LN2 = math.log(2.0)
_LN10 = math.log(10.0)
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_HALF_SQRT_PI = 0.5 * math.sqrt(math.pi)


def _not_implemented_for(kernel: str, dtype: np.dtype) -> NotImplementedError:
    return NotImplementedError(f"\"{kernel}\" not implemented for '{scalar_type_name(dtype)}'")


def _check_tensor_other(other: Any, op: str) -> Tensor:
    return check_tensor(other, op, "other", 2)


def _binary(op: str, a: Any, b: Any, fn: Any) -> np.ndarray:
    try:
        return np.asarray(fn(a, b))
    except ValueError:
        raise broadcast_error(op, a, b) from None


_ABSENT = object()


def _not_implemented_node(op: str, compute: Any) -> type:
    """PyTorch's ``NotImplemented`` grad_fn: the output is recorded, its backward raises.

    Tensor operands are positional (graph edges); a Python-number operand is passed as
    ``before=`` or ``after=`` so that, as in PyTorch, it is not an edge.
    """

    def forward(self: Op, *arrays: Any, before: Any = _ABSENT, after: Any = _ABSENT) -> Any:
        operands = [v for v in (before, *arrays, after) if v is not _ABSENT]
        return compute(*operands)

    def backward(self: Op, F: Any, grad: Any) -> Any:
        raise RuntimeError(f"derivative for aten::{op} is not implemented")

    def apply(cls: type, *inputs: Any, **params: Any) -> Any:
        result = Op.apply.__func__(cls, *inputs, **params)
        if type(result._grad_fn) is cls:
            # PyTorch gives NotImplemented nodes the largest sequence number: the backward
            # reaches them, and raises, before the nodes recorded after them.
            result._grad_fn._seq = ACCUMULATE_PRIORITY
        return result

    return type(
        "NotImplemented",
        (Op,),
        {
            "__slots__": (),
            "forward": forward,
            "backward": backward,
            "apply": classmethod(apply),
            "__doc__": f"{op}: no gradient",
        },
    )


def _apply_not_implemented(node: type, input: Any, other: Any) -> Tensor:
    if not isinstance(input, Tensor):
        return node.apply(other, before=input)
    if not isinstance(other, Tensor):
        return node.apply(input, after=other)
    return node.apply(input, other)


# --- division with rounding, remainder ----------------------------------------------------


def _check_integer_divisor(op: str, a: Any, b: Any) -> None:
    b_values = np.asarray(b)
    if b_values.dtype.kind in "iub" and np.asarray(a).dtype.kind in "iub":
        if np.any(b_values == 0):
            raise RuntimeError("ZeroDivisionError")


def _floor_divide_arrays(a: Any, b: Any) -> np.ndarray:
    a, b = binary_operands(a, b)
    dtype = np.result_type(a, b)
    if dtype == np.bool_:
        raise _not_implemented_for("div_floor_cpu", dtype)
    _check_integer_divisor("floor_divide", a, b)
    with np.errstate(divide="ignore", invalid="ignore"):
        return _binary("floor_divide", a, b, np.floor_divide)


def _trunc_divide_arrays(a: Any, b: Any) -> np.ndarray:
    a, b = binary_operands(a, b)
    dtype = np.result_type(a, b)
    if dtype == np.bool_:
        raise _not_implemented_for("div_trunc_cpu", dtype)
    _check_integer_divisor("div", a, b)
    if dtype.kind in "iu":
        quotient = _binary("div", a, b, np.floor_divide)
        # Floor and truncation differ where the exact quotient is negative and inexact.
        inexact = _binary("div", a, b, np.remainder) != 0
        return np.where(
            inexact & ((np.asarray(a) < 0) != (np.asarray(b) < 0)), quotient + 1, quotient
        )
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.trunc(_binary("div", a, b, np.true_divide))


def _remainder_arrays(a: Any, b: Any) -> np.ndarray:
    a, b = binary_operands(a, b)
    dtype = np.result_type(a, b)
    if dtype == np.bool_:
        raise _not_implemented_for("remainder_cpu", dtype)
    _check_integer_divisor("remainder", a, b)
    with np.errstate(divide="ignore", invalid="ignore"):
        if dtype.kind != "f":
            return _binary("remainder", a, b, np.remainder)
        return _binary("remainder", a, b, _python_modulus)


def _python_modulus(a: Any, b: Any) -> np.ndarray:
    """PyTorch's float remainder: fmod, moved by b where its sign differs from b's (so a zero
    keeps fmod's sign: remainder(-2., 2) is -0., where NumPy's remainder gives 0.)."""
    mod = np.fmod(a, b)
    return np.where((mod != 0) & ((np.asarray(b) < 0) != (mod < 0)), mod + b, mod)


class DivBackward2(Op):
    """out = round(a / b) with rounding_mode 'trunc' or 'floor'; zero gradient."""

    # Unread (the gradient is zero) but saved as PyTorch saves them: in-place checks.
    saved_inputs = (0, 1)
    saved_for = ((1,), (0, 1))
    __slots__ = ("rounding_mode",)

    def forward(self, a, b, rounding_mode="floor"):
        self.rounding_mode = rounding_mode
        if rounding_mode == "floor":
            return _floor_divide_arrays(a, b)
        return _trunc_divide_arrays(a, b)

    def backward(self, F, grad):
        needs = self.needs_input_grad
        zero = zeros_like_grad(F, grad)
        return zero if needs[0] else None, zero if needs[1] else None


FloorDivideNotImplemented = _not_implemented_node("floor_divide", _floor_divide_arrays)
RemainderNotImplemented = _not_implemented_node("remainder", _remainder_arrays)


class RemainderBackward0(Op):
    """out = a mod b (sign of b), b a Python number"""

    def forward(self, a, other):
        return _remainder_arrays(a, other)

    def backward(self, F, grad):
        return grad


class RemainderBackward1(Op):
    """out = a - b * floor(a / b); d/da = 1, d/db = -floor(a / b) (a constant)"""

    saved_inputs = (0, 1)
    saved_for = ((1,), (1,))  # only b's gradient reads them
    grad_reads_saved = True

    def forward(self, a, b):
        return _remainder_arrays(a, b)

    def backward(self, F, grad):
        a, b = self.saved
        needs = self.needs_input_grad
        grad_b = None
        if needs[1]:
            with np.errstate(divide="ignore", invalid="ignore"):
                quotient = np.floor_divide(array_of(a), array_of(b))
            grad_b = -grad * quotient
        return grad if needs[0] else None, grad_b


_ROUNDING_MODES = (None, "trunc", "floor")


def div_rounded(input: Tensor, other: Any, rounding_mode: str | None) -> Tensor:
    """``input / other`` rounded toward zero ('trunc') or down ('floor'); integers stay integers.

    The gradient is zero (the result is piecewise constant), as in PyTorch.

    Example::

        >>> glassgrad.div(glassgrad.tensor([7.0, -7.0]), 2, rounding_mode="trunc")
        tensor([ 3., -3.])
    """
    input = number_or_tensor(input, other, "div")
    if rounding_mode not in _ROUNDING_MODES:
        raise RuntimeError(
            "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
            f"'{rounding_mode}'"
        )
    if rounding_mode is None:
        return DivBackward0.apply(input, other)
    return DivBackward2.apply(input, other, rounding_mode=rounding_mode)


def true_divide(input: Tensor, other: Any) -> Tensor:
    """Alias of ``div`` without rounding: ``input / other`` as floats.

    Example::

        >>> glassgrad.true_divide(glassgrad.tensor([1, 3]), 2)
        tensor([0.5000, 1.5000])
    """
    return DivBackward0.apply(number_or_tensor(input, other, "true_divide"), other)


def floor_divide(input: Any, other: Any) -> Tensor:
    """``floor(input / other)``; integers stay integers (division by zero raises).

    PyTorch records a ``NotImplemented`` grad_fn: backward through it raises.

    Example::

        >>> glassgrad.floor_divide(glassgrad.tensor([7, -7]), 2)
        tensor([ 3, -4])
    """
    if not isinstance(input, Tensor):
        check_tensor(other, "floor_divide", "other", 2)
    return _apply_not_implemented(FloorDivideNotImplemented, input, other)


def remainder(input: Any, other: Any) -> Tensor:
    """``input - other * floor(input / other)``: the remainder with the sign of ``other``.

    Example::

        >>> glassgrad.remainder(glassgrad.tensor([-3.0, 5.0]), 2)
        tensor([1., 1.])
    """
    if not isinstance(input, Tensor):
        check_tensor(other, "remainder", "other", 2)
        return _apply_not_implemented(RemainderNotImplemented, input, other)
    if isinstance(other, Tensor):
        return RemainderBackward1.apply(input, other)
    return RemainderBackward0.apply(input, other=other)


def _div_inplace(self: Tensor, other: Any, *, rounding_mode: str | None = None) -> Tensor:
    if rounding_mode not in _ROUNDING_MODES:
        div_rounded(self, other, rounding_mode)  # raises PyTorch's error
    if rounding_mode is None:
        return apply_inplace(DivBackward0, self, other)
    return apply_inplace(DivBackward2, self, other, rounding_mode=rounding_mode)


def _remainder_inplace(self: Tensor, other: Any) -> Tensor:
    if isinstance(other, Tensor):
        return apply_inplace(RemainderBackward1, self, other)
    return apply_inplace(RemainderBackward0, self, other=other)


def _positive_divisor(rng: np.random.Generator, *shape: int) -> np.ndarray:
    return positive(rng, *shape) + 0.5


def _division_samples(rng: np.random.Generator, grad: bool) -> list[Sample]:
    """Values away from the jumps of floor/trunc (finite differences stay valid)."""
    return [
        Sample((3 * randn(rng, 3, 4), _positive_divisor(rng, 3, 4)), grad=grad),
        Sample((3 * randn(rng, 2, 3), -_positive_divisor(rng, 3)), grad=grad),
        Sample((3 * randn(rng, 4), 0.75), grad=grad),
        Sample((np.arange(-6, 6).reshape(3, 4), np.array([4, -3, 5, 2])), grad=False),
        Sample((3 * randn(rng, 4, 3).T, NoGrad(_positive_divisor(rng, 3, 4))), grad=grad),
        Sample((3 * randn(rng, 0, 3), _positive_divisor(rng, 3)), grad=grad),
    ]


register(
    "true_divide",
    true_divide,
    nodes=(DivBackward0,),
    samples=lambda rng: [
        Sample((randn(rng, 3, 4), _positive_divisor(rng, 3, 4))),
        Sample((randn(rng, 2, 3), 2.0)),
        Sample((np.array([1, -7, 4]), np.array([2, 2, -3])), grad=False),
    ],
)
register(
    "floor_divide",
    floor_divide,
    nodes=(FloorDivideNotImplemented,),
    differentiable=False,
    samples=lambda rng: [
        *_division_samples(rng, grad=False),
        Sample((np.array([7, -7, 0]), 2), grad=False),
        Sample((2.5, _positive_divisor(rng, 3)), grad=False),
    ],
)
register(
    "remainder",
    remainder,
    nodes=(RemainderBackward0, RemainderBackward1),
    methods=("remainder", "__mod__"),
    samples=lambda rng: [
        *_division_samples(rng, grad=True),
        Sample((np.array([7, -7, 0]), -3), grad=False),
    ],
)
register(
    "_div_rounded",
    lambda input, other, rounding_mode: div_rounded(input, other, rounding_mode),
    nodes=(DivBackward2,),
    methods=(),
    torch=lambda torch, a, b, mode: torch.div(a, b, rounding_mode=mode),
    samples=lambda rng: [
        Sample((3 * randn(rng, 3, 4), _positive_divisor(rng, 3, 4), "floor")),
        Sample((3 * randn(rng, 3, 4), -_positive_divisor(rng, 4), "trunc")),
        Sample((3 * randn(rng, 5), 0.75, "trunc")),
        Sample((np.arange(-6, 6), np.array(4), "trunc"), grad=False),
        Sample((np.arange(-6, 6), np.array(-4), "floor"), grad=False),
    ],
)


# --- exponentials, logarithms, roots -------------------------------------------------------


class Exp2Backward0(Op):
    saves_output = True

    def forward(self, x):
        return np.exp2(default_float(x))

    def backward(self, F, grad):
        (out,) = self.saved
        return grad * out * _LN2


class Expm1Backward0(Op):
    saves_output = True

    def forward(self, x):
        return np.expm1(default_float(x))

    def backward(self, F, grad):
        (out,) = self.saved
        return grad * (out + 1.0)


class Log2Backward0(Op):
    saved_inputs = (0,)

    def forward(self, x):
        return np.log2(default_float(x))

    def backward(self, F, grad):
        (x,) = self.saved
        return grad / (x * _LN2)


class Log10Backward0(Op):
    saved_inputs = (0,)

    def forward(self, x):
        return np.log10(default_float(x))

    def backward(self, F, grad):
        (x,) = self.saved
        return grad / (x * _LN10)


class Log1PBackward0(Op):
    saved_inputs = (0,)

    def forward(self, x):
        return np.log1p(default_float(x))

    def backward(self, F, grad):
        (x,) = self.saved
        return grad / (x + 1.0)


class RsqrtBackward0(Op):
    saves_output = True

    def forward(self, x):
        with np.errstate(divide="ignore", invalid="ignore"):
            return 1.0 / np.sqrt(default_float(x))

    def backward(self, F, grad):
        (out,) = self.saved
        return -0.5 * grad * out * out * out


# --- trigonometric and hyperbolic ----------------------------------------------------------


class TanBackward0(Op):
    saves_output = True

    def forward(self, x):
        return np.tan(default_float(x))

    def backward(self, F, grad):
        (out,) = self.saved
        return grad * (1.0 + out * out)


class AsinBackward0(Op):
    saved_inputs = (0,)

    def forward(self, x):
        return np.arcsin(default_float(x))

    def backward(self, F, grad):
        (x,) = self.saved
        return grad / F.sqrt(1.0 - x * x)


class AcosBackward0(Op):
    saved_inputs = (0,)

    def forward(self, x):
        return np.arccos(default_float(x))

    def backward(self, F, grad):
        (x,) = self.saved
        return -grad / F.sqrt(1.0 - x * x)


class AtanBackward0(Op):
    saved_inputs = (0,)

    def forward(self, x):
        return np.arctan(default_float(x))

    def backward(self, F, grad):
        (x,) = self.saved
        return grad / (x * x + 1.0)


class Atan2Backward0(Op):
    """out = atan2(a, b), the angle of the point (b, a)"""

    saved_inputs = (0, 1)

    def forward(self, a, b):
        a, b = floating_operands(a, b)
        return _binary("atan2", a, b, np.arctan2)

    def backward(self, F, grad):
        # PyTorch's atan2_backward: 1 / (a^2 + b^2), zero where it is infinite (a = b = 0:
        # the gradient there is 0, not NaN; its own derivative stays NaN, as PyTorch's)
        a, b = self.saved
        needs = self.needs_input_grad
        recip = 1 / (a * a + b * b)
        recip = F.where(np.isinf(array_of(recip)), 0.0, recip)
        return grad * b * recip if needs[0] else None, grad * -a * recip if needs[1] else None


class SinhBackward0(Op):
    saved_inputs = (0,)

    def forward(self, x):
        return np.sinh(default_float(x))

    def backward(self, F, grad):
        (x,) = self.saved
        return grad * CoshBackward0.call(x)


class CoshBackward0(Op):
    saved_inputs = (0,)

    def forward(self, x):
        return np.cosh(default_float(x))

    def backward(self, F, grad):
        (x,) = self.saved
        return grad * SinhBackward0.call(x)


class AsinhBackward0(Op):
    saved_inputs = (0,)

    def forward(self, x):
        return np.arcsinh(default_float(x))

    def backward(self, F, grad):
        (x,) = self.saved
        return grad / F.sqrt(x * x + 1.0)


class AcoshBackward0(Op):
    saved_inputs = (0,)

    def forward(self, x):
        return np.arccosh(default_float(x))

    def backward(self, F, grad):
        (x,) = self.saved
        return grad / F.sqrt(x * x - 1.0)


class AtanhBackward0(Op):
    saved_inputs = (0,)

    def forward(self, x):
        return np.arctanh(default_float(x))

    def backward(self, F, grad):
        (x,) = self.saved
        return grad / (1.0 - x * x)


class ErfBackward0(Op):
    """d erf(x)/dx = 2/sqrt(pi) * exp(-x^2)"""

    saved_inputs = (0,)

    def forward(self, x):
        return _erf.erf(default_float(x))

    def backward(self, F, grad):
        (x,) = self.saved
        return grad * _TWO_OVER_SQRT_PI * F.exp(-(x * x))


class ErfinvBackward0(Op):
    """d erfinv(x)/dx = sqrt(pi)/2 * exp(erfinv(x)^2)"""

    saved_inputs = (0,)  # PyTorch saves the input and recomputes erfinv in backward

    def forward(self, x):
        return _erf.erfinv(default_float(x))

    def backward(self, F, grad):
        (x,) = self.saved
        out = ErfinvBackward0.call(x)
        return grad * _HALF_SQRT_PI * F.exp(out * out)


# --- rounding -----------------------------------------------------------------------------


class _Rounding(Op):
    """A piecewise-constant op: integers pass through unchanged, the gradient is zero."""

    kernel = ""
    ufunc: Any = None

    def forward(self, x):
        if x.dtype == np.bool_:
            raise _not_implemented_for(self.kernel, x.dtype)
        if x.dtype.kind != "f":
            return x.copy()
        return self.ufunc(x)

    def backward(self, F, grad):
        return zeros_like_grad(F, grad)


class FloorBackward0(_Rounding):
    kernel = "floor_vml_cpu"
    ufunc = staticmethod(np.floor)


class CeilBackward0(_Rounding):
    kernel = "ceil_vml_cpu"
    ufunc = staticmethod(np.ceil)


class TruncBackward0(_Rounding):
    kernel = "trunc_vml_cpu"
    ufunc = staticmethod(np.trunc)


class RoundBackward0(_Rounding):
    """Round half to even, as PyTorch (and NumPy's rint)."""

    kernel = "round_cpu"
    ufunc = staticmethod(np.rint)


class RoundBackward1(Op):
    """Round to ``decimals`` digits, computed as PyTorch does (scale, rint, unscale)."""

    __slots__ = ("decimals",)

    def forward(self, x, decimals=0):
        if x.dtype.kind != "f":
            raise _not_implemented_for("round_cpu", x.dtype)
        self.decimals = decimals
        scale = x.dtype.type(10.0 ** abs(decimals))
        if decimals >= 0:
            return np.rint(x * scale) / scale
        return np.rint(x / scale) * scale

    def backward(self, F, grad):
        return zeros_like_grad(F, grad)


class FracBackward0(Op):
    """out = x - trunc(x); the gradient passes unchanged."""

    def forward(self, x):
        if x.dtype.kind != "f":
            raise _not_implemented_for("frac_cpu", x.dtype)
        return x - np.trunc(x)

    def backward(self, F, grad):
        return grad


def _unary(node_cls: type, name: str, doc: str, example: str) -> Any:
    def op(input: Tensor) -> Tensor:
        return node_cls.apply(check_tensor(input, name))

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"{doc}\n\nExample::\n\n    >>> {example}\n"
    return op


exp2 = _unary(
    Exp2Backward0,
    "exp2",
    "Elementwise ``2 ** input``.",
    "glassgrad.exp2(glassgrad.tensor([3.0]))\n    tensor([8.])",
)
expm1 = _unary(
    Expm1Backward0,
    "expm1",
    "Elementwise ``exp(input) - 1``, accurate near 0.",
    "glassgrad.expm1(glassgrad.tensor([0.0]))\n    tensor([0.])",
)
log2 = _unary(
    Log2Backward0,
    "log2",
    "Elementwise base-2 logarithm.",
    "glassgrad.log2(glassgrad.tensor([8.0]))\n    tensor([3.])",
)
log10 = _unary(
    Log10Backward0,
    "log10",
    "Elementwise base-10 logarithm.",
    "glassgrad.log10(glassgrad.tensor([100.0]))\n    tensor([2.])",
)
log1p = _unary(
    Log1PBackward0,
    "log1p",
    "Elementwise ``log(1 + input)``, accurate near 0.",
    "glassgrad.log1p(glassgrad.tensor([0.0]))\n    tensor([0.])",
)
rsqrt = _unary(
    RsqrtBackward0,
    "rsqrt",
    "Elementwise ``1 / sqrt(input)``.",
    "glassgrad.rsqrt(glassgrad.tensor([4.0]))\n    tensor([0.5000])",
)
tan = _unary(
    TanBackward0,
    "tan",
    "Elementwise tangent.",
    "glassgrad.tan(glassgrad.tensor([0.0]))\n    tensor([0.])",
)
asin = _unary(
    AsinBackward0,
    "asin",
    "Elementwise arcsine (NaN outside [-1, 1]).",
    "glassgrad.asin(glassgrad.tensor([1.0]))\n    tensor([1.5708])",
)
acos = _unary(
    AcosBackward0,
    "acos",
    "Elementwise arccosine (NaN outside [-1, 1]).",
    "glassgrad.acos(glassgrad.tensor([1.0]))\n    tensor([0.])",
)
atan = _unary(
    AtanBackward0,
    "atan",
    "Elementwise arctangent.",
    "glassgrad.atan(glassgrad.tensor([1.0]))\n    tensor([0.7854])",
)
sinh = _unary(
    SinhBackward0,
    "sinh",
    "Elementwise hyperbolic sine.",
    "glassgrad.sinh(glassgrad.tensor([0.0]))\n    tensor([0.])",
)
cosh = _unary(
    CoshBackward0,
    "cosh",
    "Elementwise hyperbolic cosine.",
    "glassgrad.cosh(glassgrad.tensor([0.0]))\n    tensor([1.])",
)
asinh = _unary(
    AsinhBackward0,
    "asinh",
    "Elementwise inverse hyperbolic sine.",
    "glassgrad.asinh(glassgrad.tensor([0.0]))\n    tensor([0.])",
)
acosh = _unary(
    AcoshBackward0,
    "acosh",
    "Elementwise inverse hyperbolic cosine (NaN below 1).",
    "glassgrad.acosh(glassgrad.tensor([1.0]))\n    tensor([0.])",
)
atanh = _unary(
    AtanhBackward0,
    "atanh",
    "Elementwise inverse hyperbolic tangent (NaN outside [-1, 1]).",
    "glassgrad.atanh(glassgrad.tensor([0.0]))\n    tensor([0.])",
)
erf = _unary(
    ErfBackward0,
    "erf",
    "The error function ``2/sqrt(pi) * integral_0^x exp(-t^2) dt``.",
    "glassgrad.erf(glassgrad.tensor([0.0]))\n    tensor([0.])",
)
erfinv = _unary(
    ErfinvBackward0,
    "erfinv",
    "The inverse error function on [-1, 1] (+-inf at +-1).",
    "glassgrad.erfinv(glassgrad.tensor([0.0]))\n    tensor([0.])",
)
floor = _unary(
    FloorBackward0,
    "floor",
    "Largest integer <= input (zero gradient).",
    "glassgrad.floor(glassgrad.tensor([-1.5]))\n    tensor([-2.])",
)
ceil = _unary(
    CeilBackward0,
    "ceil",
    "Smallest integer >= input (zero gradient).",
    "glassgrad.ceil(glassgrad.tensor([-1.5]))\n    tensor([-1.])",
)
trunc = _unary(
    TruncBackward0,
    "trunc",
    "Integer part, rounded toward zero (zero gradient).",
    "glassgrad.trunc(glassgrad.tensor([-1.5]))\n    tensor([-1.])",
)
frac = _unary(
    FracBackward0,
    "frac",
    "Fractional part ``input - trunc(input)``.",
    "glassgrad.frac(glassgrad.tensor([-1.5]))\n    tensor([-0.5000])",
)


def round(input: Tensor, *, decimals: int = 0) -> Tensor:
    """Round half to even, to ``decimals`` digits (negative: left of the point); zero gradient.

    Example::

        >>> glassgrad.round(glassgrad.tensor([0.5, 1.5, 2.345]), decimals=0)
        tensor([0., 2., 2.])
    """
    check_tensor(input, "round")
    if not isinstance(decimals, (int, np.integer)) or isinstance(decimals, bool):
        raise TypeError(f"round(): argument 'decimals' must be int, not {type(decimals).__name__}")
    if decimals == 0:
        return RoundBackward0.apply(input)
    return RoundBackward1.apply(input, decimals=int(decimals))


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


def _round_inplace(self: Tensor, *, decimals: int = 0) -> Tensor:
    if decimals == 0:
        return apply_inplace(RoundBackward0, self)
    return apply_inplace(RoundBackward1, self, decimals=decimals)


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


def _rounding_samples(rng: np.random.Generator) -> list[Sample]:
    return [
        *unary_samples(rng),
        Sample((np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5]),), grad=False, note="halves"),
        Sample((np.array([3, -7, 0]),), grad=False, note="integers pass through"),
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
    (floor, FloorBackward0, _rounding_samples),
    (ceil, CeilBackward0, _rounding_samples),
    (trunc, TruncBackward0, _rounding_samples),
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
    "frac",
    frac,
    nodes=(FracBackward0,),
    samples=lambda rng: [Sample((3 * randn(rng, 3, 4),)), Sample((3 * randn(rng, 4, 3).T,))],
)
register(
    "round",
    round,
    nodes=(RoundBackward0, RoundBackward1),
    samples=lambda rng: [
        *_rounding_samples(rng),
        Sample((10 * randn(rng, 3, 4),), {"decimals": 2}),
        Sample((1000 * randn(rng, 3, 4),), {"decimals": -2}),
        Sample((np.array([1.25, 2.5, -0.5, 0.125]),), {"decimals": 1}, grad=False),
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


# --- clamp variants, maximum and minimum ---------------------------------------------------


def _clamp_operand(x: np.ndarray, bound: Any) -> np.ndarray:
    """``x`` in the result dtype of clamping it by a Python number (ints by a float: float)."""
    a, b = binary_operands(x, bound)
    if isinstance(b, np.ndarray):  # a NumPy scalar bound
        return a.astype(np.result_type(a, b), copy=False)
    return a


class ClampMinBackward0(Op):
    """out = max(x, min) for a Python-number ``min``; gradient where x >= min"""

    saved_inputs = (0,)
    __slots__ = ("min",)

    def forward(self, x, min=0.0):
        self.min = min
        return np.maximum(_clamp_operand(x, min), min)

    def backward(self, F, grad):
        (x,) = self.saved
        return F.where(array_of(x) >= self.min, grad, 0.0)


class ClampMaxBackward0(Op):
    """out = min(x, max) for a Python-number ``max``; gradient where x <= max"""

    saved_inputs = (0,)
    __slots__ = ("max",)

    def forward(self, x, max=0.0):
        self.max = max
        return np.minimum(_clamp_operand(x, max), max)

    def backward(self, F, grad):
        (x,) = self.saved
        return F.where(array_of(x) <= self.max, grad, 0.0)


def _first_mismatch(arrays: list) -> tuple:
    """The first operand and the first later one it does not broadcast with."""
    for i, a in enumerate(arrays):
        for b in arrays[i + 1 :]:
            try:
                np.broadcast_shapes(np.shape(a), np.shape(b))
            except ValueError:
                return a, b
    return arrays[0], arrays[-1]


def _promoted(op: str, *arrays: Any) -> list:
    """Arrays cast to their common PyTorch result dtype, checked to broadcast together."""
    from .._dtype import result_numpy_dtype

    present = [a for a in arrays if a is not None]
    dtype = result_numpy_dtype(present)
    shapes = [np.shape(a) for a in present]
    try:
        np.broadcast_shapes(*shapes)
    except ValueError:
        a, b = _first_mismatch(present)
        raise broadcast_error(op, a, b) from None
    return [None if a is None else np.asarray(a).astype(dtype, copy=False) for a in arrays]


class ClampMinBackward1(Op):
    """out = max(x, min) for a tensor ``min``"""

    saved_inputs = (0, 1)

    def forward(self, x, min):
        x, min = _promoted("clamp_min", x, min)
        return np.maximum(x, min)

    def backward(self, F, grad):
        x, low = self.saved
        needs = self.needs_input_grad
        xv, lv = array_of(x), array_of(low)
        return (
            F.where(xv >= lv, grad, 0.0) if needs[0] else None,
            F.where(xv < lv, grad, 0.0) if needs[1] else None,
        )


class ClampMaxBackward1(Op):
    """out = min(x, max) for a tensor ``max``"""

    saved_inputs = (0, 1)

    def forward(self, x, max):
        x, max = _promoted("clamp_max", x, max)
        return np.minimum(x, max)

    def backward(self, F, grad):
        x, high = self.saved
        needs = self.needs_input_grad
        xv, hv = array_of(x), array_of(high)
        return (
            F.where(xv <= hv, grad, 0.0) if needs[0] else None,
            F.where(xv > hv, grad, 0.0) if needs[1] else None,
        )


class ClampBackward0(Op):
    """out = min(max(x, min), max) with tensor bounds (either may be None).

    PyTorch's subgradients: x gets the gradient where min <= x <= max; ``min`` where
    x < min < max; ``max`` where x > max or max < min (then max wins the forward).
    """

    saved_inputs = (0, 1, 2)

    def forward(self, x, min, max):
        x, min, max = _promoted("clamp", x, min, max)
        out = x
        if min is not None:
            out = np.maximum(out, min)
        if max is not None:
            out = np.minimum(out, max)
        return out if out is not x else x.copy()

    def backward(self, F, grad):
        x, low, high = self.saved
        needs = self.needs_input_grad
        xv, lv, hv = array_of(x), array_of(low), array_of(high)
        grad_x = grad_min = grad_max = None
        if lv is not None and hv is not None:
            if needs[0]:
                grad_x = F.where((xv >= lv) & (xv <= hv), grad, 0.0)
            if needs[1]:
                grad_min = F.where((xv < lv) & (lv < hv), grad, 0.0)
            if needs[2]:
                grad_max = F.where((xv > hv) | (hv < lv), grad, 0.0)
        elif lv is not None:
            if needs[0]:
                grad_x = F.where(xv >= lv, grad, 0.0)
            if needs[1]:
                grad_min = F.where(xv < lv, grad, 0.0)
        else:
            if needs[0]:
                grad_x = F.where(xv <= hv, grad, 0.0)
            if needs[2]:
                grad_max = F.where(xv > hv, grad, 0.0)
        return grad_x, grad_min, grad_max


def clamp_tensor_bounds(input: Tensor, min: Any = None, max: Any = None) -> Tensor:
    """``clamp`` with tensor bounds (broadcast against ``input``; either may be None).

    Example::

        >>> x = glassgrad.tensor([-2.0, 0.5, 3.0])
        >>> glassgrad.clamp(x, min=glassgrad.tensor([0.0, 1.0, 0.0]))
        tensor([0., 1., 3.])
    """
    check_tensor(input, "clamp")
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    for bound in (min, max):
        if bound is not None and not isinstance(bound, Tensor):
            got = ", ".join(type(v).__name__ for v in (input, min, max))
            raise TypeError(
                f"clamp() received an invalid combination of arguments - got ({got}): the "
                "bounds must be both Tensors (or None) or both numbers"
            )
    return ClampBackward0.apply(input, min, max)


def clamp_min(input: Tensor, min: Any) -> Tensor:
    """``max(input, min)`` elementwise; ``min`` a number or a tensor.

    Example::

        >>> glassgrad.clamp_min(glassgrad.tensor([-1.0, 2.0]), 0.0)
        tensor([0., 2.])
    """
    check_tensor(input, "clamp_min")
    if isinstance(min, Tensor):
        return ClampMinBackward1.apply(input, min)
    _check_bound("clamp_min", "min", min)
    return ClampMinBackward0.apply(input, min=min)


def clamp_max(input: Tensor, max: Any) -> Tensor:
    """``min(input, max)`` elementwise; ``max`` a number or a tensor.

    Example::

        >>> glassgrad.clamp_max(glassgrad.tensor([-1.0, 2.0]), 0.0)
        tensor([-1.,  0.])
    """
    check_tensor(input, "clamp_max")
    if isinstance(max, Tensor):
        return ClampMaxBackward1.apply(input, max)
    _check_bound("clamp_max", "max", max)
    return ClampMaxBackward0.apply(input, max=max)


def _check_bound(op: str, name: str, value: Any) -> None:
    if not is_scalar(value):
        raise TypeError(
            f"{op}(): argument '{name}' (position 2) must be Number or Tensor, not "
            f"{type(value).__name__}"
        )


def _clamp_inplace(self: Tensor, min: Any = None, max: Any = None) -> Tensor:
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        clamp_tensor_bounds(self, min, max)  # argument checks
        return apply_inplace(ClampBackward0, self, min, max)
    return apply_inplace(ClampBackward1, self, min=min, max=max)


def _clamp_min_inplace(self: Tensor, min: Any) -> Tensor:
    if isinstance(min, Tensor):
        return apply_inplace(ClampMinBackward1, self, min)
    _check_bound("clamp_min_", "min", min)
    return apply_inplace(ClampMinBackward0, self, min=min)


def _clamp_max_inplace(self: Tensor, max: Any) -> Tensor:
    if isinstance(max, Tensor):
        return apply_inplace(ClampMaxBackward1, self, max)
    _check_bound("clamp_max_", "max", max)
    return apply_inplace(ClampMaxBackward0, self, max=max)


class _Extremum(Op):
    """Elementwise maximum/minimum; NaN propagates; on ties each input gets half."""

    saved_inputs = (0, 1)
    ufunc: Any = None
    op = ""

    def forward(self, a, b):
        a, b = binary_operands(a, b)
        return _binary(self.op, a, b, self.ufunc)

    def backward(self, F, grad):
        a, b = self.saved
        needs = self.needs_input_grad
        av, bv = array_of(a), array_of(b)
        wins_a, wins_b = self.winners(av, bv)
        tie = av == bv
        half = grad * 0.5
        grad_a = F.where(tie, half, F.where(wins_b, 0.0, grad)) if needs[0] else None
        grad_b = F.where(tie, half, F.where(wins_a, 0.0, grad)) if needs[1] else None
        return grad_a, grad_b


class MaximumBackward0(_Extremum):
    ufunc = staticmethod(np.maximum)
    op = "maximum"

    @staticmethod
    def winners(a, b):
        return a > b, a < b


class MinimumBackward0(_Extremum):
    ufunc = staticmethod(np.minimum)
    op = "minimum"

    @staticmethod
    def winners(a, b):
        return a < b, a > b


def _bool_extremum(ufunc: Any, input: Tensor, other: Tensor) -> Tensor | None:
    if input._data.dtype == np.bool_ and other._data.dtype == np.bool_:
        return Tensor._from_array(_binary("maximum", input._data, other._data, ufunc))
    return None


def maximum(input: Tensor, other: Tensor) -> Tensor:
    """Elementwise maximum of two tensors (NaN propagates; ties split the gradient evenly).

    Example::

        >>> glassgrad.maximum(glassgrad.tensor([1.0, 5.0]), glassgrad.tensor([3.0, 2.0]))
        tensor([3., 5.])
    """
    check_tensor(input, "maximum")
    _check_tensor_other(other, "maximum")
    result = _bool_extremum(np.maximum, input, other)
    return result if result is not None else MaximumBackward0.apply(input, other)


def minimum(input: Tensor, other: Tensor) -> Tensor:
    """Elementwise minimum of two tensors (NaN propagates; ties split the gradient evenly).

    Example::

        >>> glassgrad.minimum(glassgrad.tensor([1.0, 5.0]), glassgrad.tensor([3.0, 2.0]))
        tensor([1., 2.])
    """
    check_tensor(input, "minimum")
    _check_tensor_other(other, "minimum")
    result = _bool_extremum(np.minimum, input, other)
    return result if result is not None else MinimumBackward0.apply(input, other)


def _ties(rng: np.random.Generator) -> tuple:
    a = np.array([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]])
    b = np.array([[1.0, 0.0, 4.0], [0.5, -1.0, 1.0]])
    return a, b


register(
    "clamp_min",
    clamp_min,
    nodes=(ClampMinBackward0, ClampMinBackward1),
    samples=lambda rng: [
        Sample((randn(rng, 3, 4), 0.1)),
        Sample((randn(rng, 3, 4), randn(rng, 3, 4))),
        Sample((randn(rng, 3, 4), randn(rng, 4))),
        Sample((randn(rng, 3), NoGrad(randn(rng, 2, 1)))),
        Sample((np.array([1, -2, 3]), 0), grad=False),
        Sample((np.array([1, -2, 3]), 0.5), grad=False),
    ],
)
register(
    "clamp_max",
    clamp_max,
    nodes=(ClampMaxBackward0, ClampMaxBackward1),
    samples=lambda rng: [
        Sample((randn(rng, 3, 4), -0.1)),
        Sample((randn(rng, 3, 4), randn(rng, 3, 4))),
        Sample((randn(rng, 4, 3).T, randn(rng, 3, 1))),
        Sample((np.array([1, -2, 3]), 2), grad=False),
    ],
)
register(
    "_clamp_tensor_bounds",
    clamp_tensor_bounds,
    nodes=(ClampBackward0,),
    methods=(),
    torch="torch.clamp",
    samples=lambda rng: [
        Sample((randn(rng, 3, 4), randn(rng, 3, 4) - 0.5, randn(rng, 3, 4) + 0.5)),
        Sample((randn(rng, 3, 4), randn(rng, 4) - 0.5, NoGrad(randn(rng, 3, 1) + 0.5))),
        Sample((randn(rng, 3, 4), randn(rng, 3, 4), None)),
        Sample((randn(rng, 3, 4), None, randn(rng, 4))),
        Sample((randn(rng, 3, 4), randn(rng, 3, 4) + 0.5, randn(rng, 3, 4) - 0.5), note="min>max"),
        Sample(
            (np.array([0.0, 1.0, 2.0, 1.5]), np.ones(4), np.full(4, 1.5)),
            fd=False,
            note="x on a bound: x gets the gradient, the bound does not",
        ),
        Sample((np.array([0.0, 1.0, 2.0]), np.ones(3), np.ones(3)), fd=False, note="min == max"),
        Sample((np.array([1, 5, -3]), np.array([0.5]), None), grad=False),
    ],
)
register(
    "maximum",
    maximum,
    nodes=(MaximumBackward0,),
    samples=lambda rng: [
        Sample((randn(rng, 3, 4), randn(rng, 3, 4))),
        Sample((randn(rng, 3, 1), randn(rng, 1, 4))),
        Sample((randn(rng, 4, 3).T, NoGrad(randn(rng, 4)))),
        Sample((randn(rng), randn(rng, 2, 3))),
        Sample(_ties(rng), note="ties split the gradient", fd=False),
        Sample((np.array([1, 5]), np.array([3, 2])), grad=False),
        Sample((np.array([True, False]), np.array([False, False])), grad=False),
    ],
)
register(
    "minimum",
    minimum,
    nodes=(MinimumBackward0,),
    samples=lambda rng: [
        Sample((randn(rng, 3, 4), randn(rng, 3, 4))),
        Sample((randn(rng, 2, 3, 4), randn(rng, 4))),
        Sample((randn(rng, 3), NoGrad(randn(rng, 3)))),
        Sample(_ties(rng), note="ties split the gradient", fd=False),
        Sample((np.array([1, 5]), np.array([3.0, 2.0])), grad=False),
    ],
)


# --- lerp, addcmul, addcdiv, nan_to_num ----------------------------------------------------


def _lerp_arrays(start: np.ndarray, end: np.ndarray, weight: Any) -> np.ndarray:
    """PyTorch's two-sided formula: exact at weight 0 and 1."""
    small = np.abs(weight) < 0.5
    difference = end - start
    return np.where(small, start + weight * difference, end - difference * (1 - weight))


def _check_lerp(start: np.ndarray, end: np.ndarray, weight: Any) -> None:
    # PyTorch's order: the operands' dtypes first, then the kernel's.
    if end.dtype != start.dtype:
        raise RuntimeError(
            f"expected dtype {c_type_name(start.dtype)} for `end` but got dtype "
            f"{c_type_name(end.dtype)}"
        )
    if isinstance(weight, np.ndarray) and weight.ndim and weight.dtype != start.dtype:
        raise RuntimeError(
            f"expected dtype {c_type_name(start.dtype)} for `weight` but got dtype "
            f"{c_type_name(weight.dtype)}"
        )
    if start.dtype.kind != "f":
        raise _not_implemented_for("lerp_kernel_scalar", start.dtype)


class LerpBackward0(Op):
    """out = start + weight * (end - start), ``weight`` a Python number"""

    __slots__ = ("weight",)

    def forward(self, start, end, weight=0.5):
        _check_lerp(start, end, weight)
        self.weight = weight
        try:
            np.broadcast_shapes(start.shape, end.shape)
        except ValueError:
            raise broadcast_error("lerp", start, end) from None
        return _lerp_arrays(start, end, weight).astype(start.dtype, copy=False)

    def backward(self, F, grad):
        needs = self.needs_input_grad
        w = self.weight
        return grad * (1.0 - w) if needs[0] else None, grad * w if needs[1] else None


class LerpBackward1(Op):
    """out = start + weight * (end - start), ``weight`` a tensor"""

    saved_inputs = (0, 1, 2)
    saved_for = ((2,), (2,), (0, 1, 2))  # PyTorch keeps the weight whatever needs a gradient

    def forward(self, start, end, weight):
        _check_lerp(start, end, weight)
        try:
            np.broadcast_shapes(start.shape, end.shape, weight.shape)
        except ValueError:
            raise broadcast_error("lerp", start, end if end.ndim else weight) from None
        return _lerp_arrays(start, end, weight.astype(start.dtype)).astype(start.dtype, copy=False)

    def backward(self, F, grad):
        start, end, weight = self.saved
        needs = self.needs_input_grad
        return (
            grad * (1.0 - weight) if needs[0] else None,
            grad * weight if needs[1] else None,
            grad * (end - start) if needs[2] else None,
        )


def lerp(input: Tensor, end: Tensor, weight: Any) -> Tensor:
    """Linear interpolation ``input + weight * (end - input)``; ``weight`` a number or tensor.

    Example::

        >>> glassgrad.lerp(glassgrad.tensor([0.0, 10.0]), glassgrad.tensor([10.0, 20.0]), 0.5)
        tensor([ 5., 15.])
    """
    check_tensor(input, "lerp")
    check_tensor(end, "lerp", "end", 2)
    if isinstance(weight, Tensor):
        return LerpBackward1.apply(input, end, weight)
    return LerpBackward0.apply(input, end, weight=weight)


def _lerp_inplace(self: Tensor, end: Tensor, weight: Any) -> Tensor:
    check_tensor(end, "lerp_", "end", 2)
    if isinstance(weight, Tensor):
        return apply_inplace(LerpBackward1, self, end, weight)
    return apply_inplace(LerpBackward0, self, end, weight=weight)


def _three_operands(op: str, x: np.ndarray, t1: np.ndarray, t2: np.ndarray) -> list:
    return _promoted(op, x, t1, t2)


class AddcmulBackward0(Op):
    """out = input + value * tensor1 * tensor2"""

    saved_inputs = (1, 2)
    saved_for = ((2,), (1,))
    __slots__ = ("value",)

    def forward(self, x, t1, t2, value=1):
        x, t1, t2 = _three_operands("addcmul", x, t1, t2)
        if x.dtype.kind in "iub" and isinstance(value, float):
            value = int(value)  # PyTorch casts the scalar to the integer type
        self.value = value
        return x + value * (t1 * t2) if value != 1 else x + t1 * t2

    def backward(self, F, grad):
        t1, t2 = self.saved
        needs = self.needs_input_grad
        v = self.value
        return (
            grad if needs[0] else None,
            grad * t2 * v if needs[1] else None,
            grad * t1 * v if needs[2] else None,
        )


class AddcdivBackward0(Op):
    """out = input + value * tensor1 / tensor2"""

    saved_inputs = (1, 2)
    saved_for = ((2,), (1, 2))
    __slots__ = ("value",)

    def forward(self, x, t1, t2, value=1):
        if t1.dtype.kind in "iub" and t2.dtype.kind in "iub":
            raise RuntimeError(
                "Integer division with addcdiv is no longer supported, and in a future release "
                "addcdiv will perform a true division of tensor1 and tensor2. The historic "
                "addcdiv behavior can be implemented as (input + value * torch.trunc(tensor1 / "
                "tensor2)).to(input.dtype) for integer inputs and as (input + value * tensor1 "
                "/ tensor2) for float inputs. The future addcdiv behavior is just the latter "
                "implementation: (input + value * tensor1 / tensor2), for all dtypes."
            )
        x, t1, t2 = _three_operands("addcdiv", x, t1, t2)
        self.value = value
        with np.errstate(divide="ignore", invalid="ignore"):
            return x + value * (t1 / t2)

    def backward(self, F, grad):
        t1, t2 = self.saved
        needs = self.needs_input_grad
        v = self.value
        return (
            grad if needs[0] else None,
            grad * v / t2 if needs[1] else None,
            -grad * v * t1 / (t2 * t2) if needs[2] else None,
        )


def addcmul(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: float = 1) -> Tensor:
    """``input + value * tensor1 * tensor2``, broadcasting all three.

    Example::

        >>> one = glassgrad.ones(2)
        >>> glassgrad.addcmul(one, glassgrad.tensor([2.0, 3.0]), glassgrad.tensor([4.0, 5.0]))
        tensor([ 9., 16.])
    """
    check_tensor(input, "addcmul")
    check_tensor(tensor1, "addcmul", "tensor1", 2)
    check_tensor(tensor2, "addcmul", "tensor2", 3)
    return AddcmulBackward0.apply(input, tensor1, tensor2, value=value)


def addcdiv(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: float = 1) -> Tensor:
    """``input + value * tensor1 / tensor2``, broadcasting all three (floats only).

    Example::

        >>> one = glassgrad.ones(2)
        >>> glassgrad.addcdiv(one, glassgrad.tensor([2.0, 3.0]), glassgrad.tensor([4.0, 6.0]))
        tensor([1.5000, 1.5000])
    """
    check_tensor(input, "addcdiv")
    check_tensor(tensor1, "addcdiv", "tensor1", 2)
    check_tensor(tensor2, "addcdiv", "tensor2", 3)
    return AddcdivBackward0.apply(input, tensor1, tensor2, value=value)


class NanToNumBackward0(Op):
    """NaN, +inf, -inf replaced by numbers; the gradient passes where the input is finite."""

    saved_inputs = (0,)

    def forward(self, x, nan=0.0, posinf=None, neginf=None):
        if x.dtype.kind != "f":
            return x.copy()
        info = np.finfo(x.dtype)
        out = np.where(np.isnan(x), x.dtype.type(0.0 if nan is None else nan), x)
        out = np.where(out == np.inf, info.max if posinf is None else x.dtype.type(posinf), out)
        out = np.where(out == -np.inf, info.min if neginf is None else x.dtype.type(neginf), out)
        return out.astype(x.dtype, copy=False)

    def backward(self, F, grad):
        (x,) = self.saved
        return F.where(np.isfinite(array_of(x)), grad, 0.0)


def nan_to_num(
    input: Tensor,
    nan: float = 0.0,
    posinf: float | None = None,
    neginf: float | None = None,
) -> Tensor:
    """Replace NaN by ``nan``, +inf by ``posinf`` and -inf by ``neginf`` (default: the dtype's
    largest and smallest finite values).

    Example::

        >>> glassgrad.nan_to_num(glassgrad.tensor([float("nan"), 1.0]), nan=-1.0)
        tensor([-1.,  1.])
    """
    check_tensor(input, "nan_to_num")
    return NanToNumBackward0.apply(input, nan=nan, posinf=posinf, neginf=neginf)


def _with_nans(rng: np.random.Generator) -> np.ndarray:
    x = randn(rng, 2, 3)
    x[0, 1] = x[1, 0] = np.nan
    return x


def _with_specials(rng: np.random.Generator) -> np.ndarray:
    x = randn(rng, 3, 4)
    x[0, 1], x[1, 2], x[2, 3] = np.nan, np.inf, -np.inf
    return x


register(
    "lerp",
    lerp,
    nodes=(LerpBackward0, LerpBackward1),
    samples=lambda rng: [
        Sample((randn(rng, 3, 4), randn(rng, 3, 4), 0.3)),
        Sample((randn(rng, 3, 4), randn(rng, 4), 0.8)),
        Sample((randn(rng, 3, 4), randn(rng, 3, 4), rng.random((3, 4)))),
        Sample((randn(rng, 3, 1), randn(rng, 1, 4), NoGrad(rng.random(4)))),
        Sample((randn(rng, 4, 3).T, randn(rng, 3, 4), np.asarray(rng.random()))),
    ],
)
register(
    "addcmul",
    addcmul,
    nodes=(AddcmulBackward0,),
    samples=lambda rng: [
        Sample((randn(rng, 3, 4), randn(rng, 3, 4), randn(rng, 3, 4))),
        Sample((randn(rng, 3, 4), randn(rng, 3, 1), randn(rng, 4)), {"value": 0.5}),
        Sample((randn(rng, 4), NoGrad(randn(rng, 2, 4)), randn(rng, 4, 3).T[:1])),
        Sample((np.array([1, 2]), np.array([3, 4]), np.array([5, 6])), {"value": 2}, grad=False),
    ],
)
register(
    "addcdiv",
    addcdiv,
    nodes=(AddcdivBackward0,),
    samples=lambda rng: [
        Sample((randn(rng, 3, 4), randn(rng, 3, 4), _positive_divisor(rng, 3, 4))),
        Sample((randn(rng, 3, 4), randn(rng, 3, 1), -_positive_divisor(rng, 4)), {"value": 2}),
        Sample((randn(rng), randn(rng, 2, 3), NoGrad(_positive_divisor(rng, 3)))),
    ],
)
register(
    "nan_to_num",
    nan_to_num,
    nodes=(NanToNumBackward0,),
    samples=lambda rng: [
        Sample((_with_specials(rng),), fd=False, note="default posinf overflows the FD check"),
        Sample((_with_nans(rng),)),
        Sample((_with_specials(rng),), {"nan": 1.5, "posinf": 9.0, "neginf": -9.0}),
        Sample((_with_specials(rng).T,), {"posinf": 2.0, "neginf": -1.0}),
        Sample((np.array([1, 2]),), grad=False),
    ],
)


def _inplace_unary(node: type, name: str) -> Any:
    def method(self: Tensor) -> Tensor:
        return apply_inplace(node, self)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"In-place version of ``{name[:-1]}``."
    return method


def _floor_divide_inplace(self: Tensor, other: Any) -> Tensor:
    if isinstance(other, Tensor):
        return apply_inplace(FloorDivideNotImplemented, self, other)
    return apply_inplace(FloorDivideNotImplemented, self, after=other)


def _atan2_inplace(self: Tensor, other: Tensor) -> Tensor:
    return apply_inplace(Atan2Backward0, self, _check_tensor_other(other, "atan2_"))


def _square_inplace(self: Tensor) -> Tensor:
    return apply_inplace(PowBackward0, self, exponent=2)


def _addcmul_inplace(self: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: float = 1):
    return apply_inplace(AddcmulBackward0, self, tensor1, tensor2, value=value)


def _addcdiv_inplace(self: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: float = 1):
    return apply_inplace(AddcdivBackward0, self, tensor1, tensor2, value=value)


def _nan_to_num_inplace(self: Tensor, nan: float = 0.0, posinf: Any = None, neginf: Any = None):
    return apply_inplace(NanToNumBackward0, self, nan=nan, posinf=posinf, neginf=neginf)


TENSOR_METHODS = {
    "true_divide_": _div_inplace,
    "div_": _div_inplace,
    "divide_": _div_inplace,
    "__itruediv__": _div_inplace,
    "floor_divide_": _floor_divide_inplace,
    "__floordiv__": floor_divide,
    "__rfloordiv__": lambda self, other: floor_divide(other, self),
    "__ifloordiv__": _floor_divide_inplace,
    "remainder_": _remainder_inplace,
    "__imod__": _remainder_inplace,
    "__rmod__": lambda self, other: remainder(other, self),
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
    "floor_": _inplace_unary(FloorBackward0, "floor_"),
    "ceil_": _inplace_unary(CeilBackward0, "ceil_"),
    "trunc_": _inplace_unary(TruncBackward0, "trunc_"),
    "frac_": _inplace_unary(FracBackward0, "frac_"),
    "round_": _round_inplace,
    "clamp_": _clamp_inplace,
    "clip_": _clamp_inplace,
    "clamp_min_": _clamp_min_inplace,
    "clamp_max_": _clamp_max_inplace,
    "lerp_": _lerp_inplace,
    "addcmul_": _addcmul_inplace,
    "addcdiv_": _addcdiv_inplace,
    "nan_to_num_": _nan_to_num_inplace,
}
