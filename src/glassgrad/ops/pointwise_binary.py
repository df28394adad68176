"""Binary pointwise math beyond the arithmetic operators: copysign, float_power, fmax, fmin,
fmod, hypot, ldexp, logaddexp and logaddexp2 (the step functions nextafter and heaviside:
``pointwise_binary_steps.py``; gcd, lcm and the shifts: ``pointwise_integer.py``).
Derivatives are PyTorch's (derivatives.yaml)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._dtype import from_numpy_dtype, result_numpy_dtype, scalar_type_name
from .._tensor import Tensor
from ..autograd.op import Op, apply_inplace
from ._common import (
    array_of,
    binary_operands,
    check_integer_divisor,
    check_tensor,
    floating_operands,
)
from ._not_implemented import _binary, _not_implemented_for, any_complex, refuse_complex
from ._registry import NoGrad, Sample, register
from ._samples import positive, randn
from .conversion import to
from .masking import masked_zero
from .powers import pow as power

_LN2 = math.log(2.0)


def _tensor_other(other: Any, op: str) -> Tensor:
    return check_tensor(other, op, "other", 2)


def _floats_only(op: str, *arrays: Any) -> None:
    """PyTorch dispatches the kernel on the operands' common dtype (an int operand is fine)."""
    common = result_numpy_dtype(arrays)
    if common.kind != "f":
        raise _not_implemented_for(f"{op}_cpu", common)


# --- copysign --------------------------------------------------------------------------------


class _Copysign(Op):
    """out = |a| with the sign of b; d/da = out / a (0 where a = 0); b gets zeros."""

    pointwise = True

    saved_inputs: tuple[int, ...] = (0,)
    saved_for: tuple[tuple[int, ...], ...] = ((0,),)  # b's gradient is zeros: reads nothing
    saves_output = True

    def forward(self, a: Any, b: Any) -> Any:
        refuse_complex("copysign_cpu", a, b)
        a, b = floating_operands(a, b)
        return _binary("copysign", a, b, np.copysign)

    def backward(self, F: Any, grad: Any) -> Any:
        a, out = self.saved
        grads: list = [None]
        if a is not None:  # not saved when only b needs a gradient
            # out / a where a = 0 is NaN, masked: as PyTorch's masked_fill, whose second
            # derivative is NaN there too.
            grads[0] = grad * masked_zero(out / a, array_of(a) == 0)
        if len(self._next_nodes) == 2:
            grads.append(
                F.zeros(self._meta[2], self._meta[3]) if self.needs_input_grad[1] else None
            )
        return tuple(grads) if len(grads) == 2 else grads[0]


class CopysignBackward0(_Copysign):
    """copysign(tensor, tensor)"""


class CopysignBackward1(_Copysign):
    """copysign(tensor, number)"""


def copysign(input: Tensor, other: Any) -> Tensor:
    """``|input|`` with the sign of ``other`` (elementwise; -0.0 counts as negative).

    Example::

        >>> glassgrad.copysign(glassgrad.tensor([1.0, -2.0]), -1.0)
        tensor([-1., -2.])
    """
    check_tensor(input, "copysign")
    if isinstance(other, Tensor):
        return CopysignBackward0.apply(input, other)
    return CopysignBackward1.apply(input, other)


# --- float_power, ldexp ------------------------------------------------------------------------


def float_power(input: Any, exponent: Any) -> Tensor:
    """``input ** exponent`` computed in float64, or complex128 if either is complex
    (PyTorch's composite: both cast to that dtype).

    Example::

        >>> glassgrad.float_power(glassgrad.tensor([2]), 3)
        tensor([8.], dtype=glassgrad.float64)
    """
    from .._dtype import complex128, float64

    if not isinstance(input, Tensor) and not isinstance(exponent, Tensor):
        raise TypeError("float_power(): argument 'input' must be Tensor")
    wide, number = (complex128, complex) if any_complex(input, exponent) else (float64, float)
    base = to(input, wide) if isinstance(input, Tensor) else number(input)
    exp = to(exponent, wide) if isinstance(exponent, Tensor) else number(exponent)
    return power(base, exp)


class LdexpBackward0(Op):
    """out = a * 2^b; d/da = 2^b (in b's dtype: an integer power, 0 for b < 0, as PyTorch's
    ``pow(2, other)``), d/db = out * ln 2"""

    saved_inputs: tuple[int, ...] = (1,)
    saved_for = ((0,),)  # b for a's gradient only: b may change in place when a needs none
    saves_output = True
    # PyTorch's ldexp_: mul's kernel by a fresh pow(2, other), whose memory is not checked
    pointwise, checks_source_overlap = True, False

    def forward(self, a: Any, b: Any) -> Any:
        a, b = floating_operands(a, b)
        return _binary("ldexp", a, b, lambda x, y: x * np.power(2.0, y).astype(x.dtype))

    def backward(self, F: Any, grad: Any) -> Any:
        b, out = self.saved
        needs = self.needs_input_grad
        scale = None
        if needs[0]:
            exponent = array_of(b)
            if exponent.dtype.kind == "f":
                scale = F.exp(b * _LN2)
            else:
                scale = np.where(exponent < 0, 0, 2 ** np.maximum(exponent, 0)).astype(
                    exponent.dtype
                )
        return (grad * scale if needs[0] else None), (grad * out * _LN2 if needs[1] else None)


def ldexp(input: Tensor, other: Tensor) -> Tensor:
    """``input * 2 ** other``.

    Example::

        >>> glassgrad.ldexp(glassgrad.tensor([1.0]), glassgrad.tensor([3]))
        tensor([8.])
    """
    check_tensor(input, "ldexp")
    return LdexpBackward0.apply(input, _tensor_other(other, "ldexp"))


# --- fmax, fmin ------------------------------------------------------------------------------


class _NanIgnoringExtremum(Op):
    """The larger (smaller) of a and b, the number when one is NaN; the gradient goes to the
    chosen operand (a on ties), as PyTorch's."""

    saved_inputs: tuple[int, ...] = (0, 1)
    ufunc: Any = None
    takes_first: Any = None

    def forward(self, a: Any, b: Any) -> Any:
        name = type(self).__name__[:4].lower()
        if any_complex(a, b):
            raise RuntimeError(f"{name} not implemented for complex tensors.")
        a, b = binary_operands(a, b)
        return _binary(name, a, b, type(self).ufunc)

    def backward(self, F: Any, grad: Any) -> Any:
        a, b = (array_of(x) for x in self.saved)
        first = type(self).takes_first(a, b) | np.isnan(b)
        needs = self.needs_input_grad
        return (
            F.where(first, grad, 0.0) if needs[0] else None,
            F.where(first, 0.0, grad) if needs[1] else None,
        )


class FmaxBackward0(_NanIgnoringExtremum):
    ufunc: Any = staticmethod(np.fmax)
    takes_first: Any = staticmethod(np.greater_equal)


class FminBackward0(_NanIgnoringExtremum):
    ufunc: Any = staticmethod(np.fmin)
    takes_first: Any = staticmethod(np.less_equal)


def fmax(input: Tensor, other: Tensor) -> Tensor:
    """Elementwise maximum that ignores NaN (NaN only where both are).

    Example::

        >>> glassgrad.fmax(glassgrad.tensor([1.0, float("nan")]), glassgrad.tensor([2.0, 0.0]))
        tensor([2., 0.])
    """
    check_tensor(input, "fmax")
    return FmaxBackward0.apply(input, _tensor_other(other, "fmax"))


def fmin(input: Tensor, other: Tensor) -> Tensor:
    """Elementwise minimum that ignores NaN (NaN only where both are).

    Example::

        >>> glassgrad.fmin(glassgrad.tensor([1.0, float("nan")]), glassgrad.tensor([2.0, 0.0]))
        tensor([1., 0.])
    """
    check_tensor(input, "fmin")
    return FminBackward0.apply(input, _tensor_other(other, "fmin"))


# --- fmod ------------------------------------------------------------------------------------


def _fmod_arrays(a: Any, b: Any) -> np.ndarray:
    refuse_complex("fmod_cpu", a, b)
    a, b = binary_operands(a, b)
    if np.asarray(a).dtype == np.bool_:  # PyTorch's kernel has no Bool case
        raise _not_implemented_for("fmod_cpu", np.asarray(a).dtype)
    check_integer_divisor(a, b, _fmod_arrays)
    return _binary("fmod", a, b, np.fmod)


class FmodBackward0(Op):
    """out = fmod(a, number); d/da = 1"""

    pointwise = True

    def forward(self, a: Any, b: Any) -> Any:
        return _fmod_arrays(a, b)

    def backward(self, F: Any, grad: Any) -> Any:
        return grad, None


class FmodBackward1(Op):
    """out = fmod(a, b) = a - trunc(a / b) * b; d/da = 1, d/db = -trunc(a / b)"""

    pointwise = True

    saved_inputs: tuple[int, ...] = (0, 1)
    saved_for: tuple[tuple[int, ...], ...] = ((1,), (1,))
    # PyTorch's gradient of b, -grad * a.div(b, rounding_mode="trunc"), is differentiable
    # (to zero) in a and b.
    grad_reads_saved = True

    def forward(self, a: Any, b: Any) -> Any:
        return _fmod_arrays(a, b)

    def backward(self, F: Any, grad: Any) -> Any:
        needs = self.needs_input_grad
        if not needs[1]:
            return grad, None
        a, b = self.saved
        quotient = np.trunc(array_of(a) / array_of(b))
        return (grad if needs[0] else None), -grad * quotient


def fmod(input: Tensor, other: Any) -> Tensor:
    """C's remainder: ``input - trunc(input / other) * other`` (the sign of ``input``).

    Example::

        >>> glassgrad.fmod(glassgrad.tensor([5, -5]), 3)
        tensor([ 2, -2])
    """
    check_tensor(input, "fmod")
    if isinstance(other, Tensor):
        return FmodBackward1.apply(input, other)
    return FmodBackward0.apply(input, other)


# --- hypot, logaddexp, logaddexp2 --------------------------------------------------------------


class HypotBackward0(Op):
    """out = sqrt(a^2 + b^2); d/da = a / out, d/db = b / out"""

    pointwise, vector_bits = True, 512  # a kernel registered for AVX512 too
    saved_inputs: tuple[int, ...] = (0, 1)
    saved_for: tuple[tuple[int, ...], ...] = ((0,), (1,))  # each read by its own gradient
    saves_output = True

    def forward(self, a: Any, b: Any) -> Any:
        _floats_only("hypot", a, b)
        a, b = binary_operands(a, b)
        return _binary("hypot", a, b, np.hypot)

    def backward(self, F: Any, grad: Any) -> Any:
        a, b, out = self.saved
        needs = self.needs_input_grad
        return (grad * a / out if needs[0] else None), (grad * b / out if needs[1] else None)


def hypot(input: Tensor, other: Tensor) -> Tensor:
    """``sqrt(input ** 2 + other ** 2)`` without overflow.

    Example::

        >>> glassgrad.hypot(glassgrad.tensor([3.0]), glassgrad.tensor([4.0]))
        tensor([5.])
    """
    check_tensor(input, "hypot")
    return HypotBackward0.apply(input, _tensor_other(other, "hypot"))


def log_add_exp_complex(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``log(e^a + e^b)`` of complex arrays as PyTorch's ``_log_add_exp_helper``: the operand
    of the smaller real part is the one exponentiated (a NaN wins), two equal infinite real
    parts are summed directly (or give the smaller operand when negative)."""
    a, b = np.broadcast_arrays(a, b)
    nan_a, nan_b = np.isnan(a.real) | np.isnan(a.imag), np.isnan(b.real) | np.isnan(b.imag)
    a_smaller = a.real < b.real
    low = np.where(nan_b, b, np.where(nan_a, a, np.where(a_smaller, a, b)))
    high = np.where(nan_b, b, np.where(nan_a, a, np.where(a_smaller, b, a)))
    with np.errstate(all="ignore"):
        out = np.log1p(np.exp(low - high)) + high
        same_infinity = ~np.isfinite(low.real) & (low.real == high.real)
        out = np.where(same_infinity & (low.real < 0), low, out)
        out = np.where(same_infinity & (low.real > 0), np.log(np.exp(low) + np.exp(high)), out)
    return np.where(nan_a | nan_b, np.asarray(complex(np.nan, np.nan), a.dtype), out)


class LogaddexpBackward0(Op):
    """out = log(e^a + e^b); d/da = 1 / (1 + e^(b - a))"""

    saved_inputs: tuple[int, ...] = (0, 1)
    base_log: float = 1.0
    holomorphic = True  # PyTorch's complex gradient: grad / (1 + e^(b - a)).conj()

    def forward(self, a: Any, b: Any) -> Any:
        if self.base_log == 1.0 and any_complex(a, b):
            a, b = binary_operands(a, b)
            return _binary(self.kernel, a, b, log_add_exp_complex)
        _floats_only(self.kernel, a, b)
        a, b = binary_operands(a, b)
        return _binary(self.kernel, a, b, np.logaddexp if self.base_log == 1.0 else np.logaddexp2)

    kernel = "logaddexp"

    def backward(self, F: Any, grad: Any) -> Any:
        a, b = self.saved
        needs = self.needs_input_grad
        scale = self.base_log
        return (
            grad / (1.0 + F.exp((b - a) * scale)) if needs[0] else None,
            grad / (1.0 + F.exp((a - b) * scale)) if needs[1] else None,
        )


class Logaddexp2Backward0(LogaddexpBackward0):
    """out = log2(2^a + 2^b); d/da = 1 / (1 + 2^(b - a))"""

    base_log = _LN2
    kernel = "logaddexp2"


def logaddexp(input: Tensor, other: Tensor) -> Tensor:
    """``log(exp(input) + exp(other))`` without overflow.

    Example::

        >>> glassgrad.logaddexp(glassgrad.tensor([0.0]), glassgrad.tensor([0.0]))
        tensor([0.6931])
    """
    check_tensor(input, "logaddexp")
    return LogaddexpBackward0.apply(input, _tensor_other(other, "logaddexp"))


def logaddexp2(input: Tensor, other: Tensor) -> Tensor:
    """``log2(2 ** input + 2 ** other)`` without overflow.

    Example::

        >>> glassgrad.logaddexp2(glassgrad.tensor([1.0]), glassgrad.tensor([1.0]))
        tensor([2.])
    """
    check_tensor(input, "logaddexp2")
    return Logaddexp2Backward0.apply(input, _tensor_other(other, "logaddexp2"))


def _float_power_inplace(self: Tensor, exponent: Any) -> Tensor:
    # PyTorch's: the base has the wide dtype already, the exponent cast to it goes to pow_
    check_tensor(self, "float_power_")
    complex_ = any_complex(self, exponent)
    wide = np.complex128 if complex_ else np.float64
    if self._data.dtype != wide:  # PyTorch's float_power_ never casts the result back
        raise RuntimeError(
            f"the base given to float_power_ has dtype {scalar_type_name(self._data.dtype)} "
            f"but the operation's result requires dtype {scalar_type_name(np.dtype(wide))}"
        )
    number = complex if complex_ else float
    wide_dtype = from_numpy_dtype(np.dtype(wide))
    return self.pow_(to(exponent, wide_dtype) if isinstance(exponent, Tensor) else number(exponent))


def _copysign_inplace(self: Tensor, other: Any) -> Tensor:
    if isinstance(other, Tensor):
        return apply_inplace(CopysignBackward0, self, other)
    return apply_inplace(CopysignBackward1, self, other)


def _fmod_inplace(self: Tensor, other: Any) -> Tensor:
    if isinstance(other, Tensor):
        return apply_inplace(FmodBackward1, self, other)
    return apply_inplace(FmodBackward0, self, other)


# --- registry ------------------------------------------------------------------------------


def _away_from_zero(rng: np.random.Generator, *shape: int) -> np.ndarray:
    values = randn(rng, *shape)
    return np.where(np.abs(values) < 0.1, 0.5, values)


def _pair_samples(rng):
    return [
        Sample((randn(rng, 3, 4), randn(rng, 3, 4))),
        Sample((randn(rng, 3, 1), randn(rng, 1, 4))),
        Sample((randn(rng, 2, 3), NoGrad(randn(rng, 3)))),
        Sample((randn(rng), randn(rng, 2, 2))),
        Sample((randn(rng, 0, 3), randn(rng, 3))),
    ]


register(
    "copysign",
    copysign,
    nodes=(CopysignBackward0, CopysignBackward1),
    samples=lambda rng: [
        Sample((_away_from_zero(rng, 3, 4), randn(rng, 3, 4))),
        Sample((_away_from_zero(rng, 3, 4), -2.0)),
        Sample((_away_from_zero(rng, 2, 3), NoGrad(randn(rng, 3)))),
        Sample((np.array([0.0, 1.0, -2.0]), np.array([-1.0, -1.0, 1.0])), fd=False),
        Sample((np.array([1, -2]), np.array([-1, 1])), grad=False),
    ],
)


register(
    "float_power",
    float_power,
    samples=lambda rng: [
        Sample((positive(rng, 3, 4), randn(rng, 3, 4))),
        Sample((positive(rng, 3, 4), 2.5)),
        Sample((randn(rng, 3), 2)),
        Sample((np.array([2, 3]), np.array([2, 3])), grad=False),
        Sample((2.0, randn(rng, 3))),
    ],
)


register(
    "ldexp",
    ldexp,
    nodes=(LdexpBackward0,),
    samples=lambda rng: [
        Sample((randn(rng, 3, 4), randn(rng, 3, 4))),
        Sample(
            (randn(rng, 3, 4), np.array([1, -2, 3, 0])),
            fd=False,
            note="PyTorch's d/da for an integer b < 0 is 2^b in integers: 0",
        ),
        Sample((np.array([1, 2]), np.array([3, 1])), grad=False),
    ],
)


register("fmax", fmax, nodes=(FmaxBackward0,), samples=lambda rng: _extremum_samples(rng))


register("fmin", fmin, nodes=(FminBackward0,), samples=lambda rng: _extremum_samples(rng))


def _extremum_samples(rng):
    with_nan = randn(rng, 4)
    with_nan[1] = np.nan
    return [
        *_pair_samples(rng),
        Sample((with_nan, randn(rng, 4)), fd=False),
        Sample((randn(rng, 4), with_nan), fd=False),
        Sample((np.array([1.0, 2.0]), np.array([1.0, 3.0])), fd=False, note="a tie"),
        Sample((np.array([1, 5]), np.array([3, 2])), grad=False),
    ]


register(
    "fmod",
    fmod,
    nodes=(FmodBackward0, FmodBackward1),
    samples=lambda rng: [
        Sample((3 * randn(rng, 3, 4), _away_from_zero(rng, 3, 4))),
        Sample((3 * randn(rng, 3, 4), 1.5)),
        Sample((3 * randn(rng, 2, 3), NoGrad(_away_from_zero(rng, 3)))),
        Sample((np.array([5, -5, 7]), 3)),
        Sample((np.array([5, -5, 7]), np.array([3, 3, -2]))),
    ],
)


register("hypot", hypot, nodes=(HypotBackward0,), samples=_pair_samples)


register("logaddexp", logaddexp, nodes=(LogaddexpBackward0,), samples=_pair_samples)


register("logaddexp2", logaddexp2, nodes=(Logaddexp2Backward0,), samples=_pair_samples)


TENSOR_METHODS: dict[str, Any] = {
    "copysign_": _copysign_inplace,
    "fmod_": _fmod_inplace,
    "hypot_": lambda self, other: apply_inplace(
        HypotBackward0, self, _tensor_other(other, "hypot_")
    ),
    "ldexp_": lambda self, other: apply_inplace(
        LdexpBackward0, self, _tensor_other(other, "ldexp_")
    ),
    "float_power_": _float_power_inplace,
}
