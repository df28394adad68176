"""Powers: ``pow`` (tensor or number base and exponent, PyTorch's integer and bool rules)
and the reflected ``number ** tensor``, with PyTorch's PowBackward0/1/2 nodes.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._dtype import result_numpy_dtype
from .._strides import row_major
from .._tensor import Tensor
from ..autograd.op import Op
from ._common import (
    array_of,
    binary_operands,
    broadcast_error,
    check_tensor,
    zeros_like_grad,
)
from ._namespace import default_float
from ._registry import NoGrad, Sample, register
from ._samples import (
    positive,
    randn,
)
from .arithmetic import _refuse_bool_subtraction

# --- powers ------------------------------------------------------------------------------


def _power(base: Any, exponent: Any) -> np.ndarray:
    """``base ** exponent`` with PyTorch's result dtype and integer semantics: bool ** bool is
    logical, and a negative integer exponent gives 1, +-1 or 0 (PyTorch's integer pow) where
    NumPy refuses it."""
    base, exponent = binary_operands(base, exponent)
    dtype = np.result_type(base, exponent)
    if dtype == np.bool_:
        return np.asarray(np.logical_or(base, np.logical_not(exponent)))
    if dtype.kind in "iu" and np.any(np.asarray(exponent) < 0):
        e = np.asarray(exponent)
        positive = np.power(base, np.where(e < 0, 0, e))
        odd = np.where(e % 2 == 0, 1, -1)
        negative = np.where(base == 1, 1, np.where(base == -1, odd, 0))
        return np.asarray(np.where(e < 0, negative, positive), dtype=dtype)
    if dtype.kind == "c":
        return _complex_power(np.asarray(base, dtype), exponent)
    return np.asarray(np.power(base, exponent))


def _complex_power(base: Any, exponent: Any) -> np.ndarray:
    """PyTorch's complex pow kernel, ``std::pow``: C's ``cpow``, ``exp(exponent *
    log(base))`` for every element. NumPy's power special-cases a zero base and integer
    exponents (0 ** -0.5 is NaN there, inf + NaN j in PyTorch; inf ** 3 NaN, inf + NaN j)."""
    with np.errstate(all="ignore"):
        return np.asarray(np.exp(_c99_product(np.asarray(exponent, base.dtype), np.log(base))))


def _c99_product(z: np.ndarray, w: np.ndarray) -> np.ndarray:
    """``z * w`` as C99's Annex G (GCC's ``__muldc3``, inside glibc's cpow): where the plain
    product is NaN + NaN j but an operand or a partial product is infinite, infinities are
    recovered (NaN parts taken as signed zeros, infinite parts as +-1, times infinity)."""
    a, b, c, d = z.real, z.imag, w.real, w.imag
    product = z * w
    lost = np.isnan(product.real) & np.isnan(product.imag)
    if not lost.any():
        return product
    a, b, c, d = np.broadcast_arrays(a, b, c, d)
    a, b, c, d = a.copy(), b.copy(), c.copy(), d.copy()
    z_inf, w_inf = np.isinf(a) | np.isinf(b), np.isinf(c) | np.isinf(d)
    overflow = (
        ~z_inf & ~w_inf & (np.isinf(a * c) | np.isinf(b * d) | np.isinf(a * d) | np.isinf(b * c))
    )
    for unit, zero, which in ((a, c, z_inf), (b, d, z_inf), (c, a, w_inf), (d, b, w_inf)):
        # the infinite operand's parts become +-1 or +-0, the other's NaN parts +-0
        unit[which] = np.copysign(np.isinf(unit[which]), unit[which])
        zero[which & np.isnan(zero)] = np.copysign(0.0, zero[which & np.isnan(zero)])
    for part in (a, b, c, d):
        part[overflow & np.isnan(part)] = np.copysign(0.0, part[overflow & np.isnan(part)])
    recalc = lost & (z_inf | w_inf | overflow)
    recovered = np.empty(recalc.shape, product.dtype)
    recovered.real, recovered.imag = np.inf * (a * c - b * d), np.inf * (a * d + b * c)
    return np.where(recalc, recovered, product)


# PyTorch's pow with a number exponent and a float32, float64 or complex base calls these
# kernels for these exponents (pow_tensor_scalar_kernel), std::pow for the others: the
# rounding of x * x * x, and the sign of 1 / sqrt(-0.0), are not pow's.
_POWER_KERNELS = {
    0.5: np.sqrt,
    -0.5: lambda x: 1.0 / np.sqrt(x),
    -1: lambda x: 1.0 / x,
    2: lambda x: x * x,
    3: lambda x: x * x * x,
    -2: lambda x: 1.0 / (x * x),
}


def _tensor_power(base: Any, exponent: Any) -> np.ndarray:
    """``_power`` for a tensor exponent: PyTorch's pow kernel has no Bool case (only a
    Python-number exponent takes the logical bool ** bool path)."""
    if np.result_type(*binary_operands(base, exponent)) == np.bool_:
        raise NotImplementedError("\"pow\" not implemented for 'Bool'")
    return _power(base, exponent)


def _number_power(x: np.ndarray, exponent: Any) -> np.ndarray:
    """``x ** exponent`` for a Python-number exponent, as PyTorch's pow_tensor_scalar kernels
    (also the backward's ``x ** (exponent - 1)``, which NumPy's power would round otherwise)."""
    if isinstance(exponent, float) and x.dtype.kind != "f":
        x = default_float(x)
    if x.dtype.kind in "iub" and type(exponent) is int and exponent < 0:
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    if x.dtype.kind == "f" and not isinstance(exponent, complex):
        kernel = _POWER_KERNELS.get(exponent) if x.dtype.itemsize >= 4 else None
        if kernel is not None:
            with np.errstate(all="ignore"):
                return kernel(x)
        if x.dtype == np.float32:
            # std::pow(float, double): computed in double, rounded once to float
            return (x.astype(np.float64) ** exponent).astype(np.float32)
        return x**exponent
    if x.dtype.kind == "c" or isinstance(exponent, complex):
        x = x.astype(result_numpy_dtype((x, exponent)), copy=False)
        # pow_Tensor_Scalar_out: a copy for exponent 1, ones for exponent 0.
        if exponent == 1:
            return x.copy()
        if exponent == 0:
            return np.ones_like(x)
        kernel = _POWER_KERNELS.get(exponent)
        with np.errstate(all="ignore"):
            return kernel(x) if kernel is not None else _complex_power(x, exponent)
    return _power(x, exponent)


class PowBackward0(Op):
    """out = x ** exponent, exponent a Python number"""

    pointwise = True

    exponent: Any

    holomorphic = True

    saved_inputs: tuple[int, ...] = (0,)
    __slots__ = ("exponent",)

    def forward(self, x: Any, exponent: Any) -> Any:
        self.exponent = exponent
        return _number_power(x, exponent)

    def backward(self, F: Any, grad: Any) -> Any:
        (x,) = self.saved
        e = self.exponent
        if e == 0:
            return zeros_like_grad(F, grad)
        if e == 2:
            return grad * (2.0 * x)  # x.pow(1) is a copy
        power = _number_power(x, e - 1) if isinstance(x, np.ndarray) else x ** (e - 1)
        return grad * (e * power)  # pow_backward's grouping


class PowBackward1(Op):
    """out = x ** exponent, both tensors"""

    pointwise = True
    # Registered for AVX512 too; integer powers have no vectorized loop
    vector_bits = 512
    unvectorized_kinds = "biu"

    holomorphic = True

    saved_inputs: tuple[int, ...] = (0, 1)
    saves_output = True

    def forward(self, x: Any, exponent: Any) -> Any:
        try:
            np.broadcast_shapes(np.shape(x), np.shape(exponent))
        except ValueError:
            raise broadcast_error("pow", x, exponent) from None
        return _tensor_power(x, exponent)

    def backward(self, F: Any, grad: Any) -> Any:
        x, e, out = self.saved
        needs = self.needs_input_grad
        grad_x = grad_e = None
        if needs[0]:
            e_const = e._data if isinstance(e, Tensor) else e
            # PyTorch's pow_backward_self computes exponent - 1: a bool exponent refuses it.
            _refuse_bool_subtraction(np.asarray(e_const), 1)
            grad_x = F.where(np.asarray(e_const) == 0, 0.0, grad * e * x ** (e - 1))
        if needs[1]:
            x_const = x._data if isinstance(x, Tensor) else x
            e_const = e._data if isinstance(e, Tensor) else e
            zero_base = (np.asarray(x_const) == 0) & (np.asarray(e_const) >= 0)
            out_dtype = array_of(out).dtype
            base = x if np.asarray(x_const).dtype == out_dtype else F.cast(x, out_dtype)
            # PyTorch's pow_backward_exponent: log(0) stays in the unselected branch, so a
            # second derivative there is NaN as in PyTorch.
            grad_e = grad * F.where(zero_base, 0.0, out * F.log(base))
        return grad_x, grad_e


class PowBackward2(Op):
    """out = base ** exponent, base a Python number"""

    base: Any

    holomorphic = True

    saved_inputs: tuple[int, ...] = (0,)  # unread, but saved as PyTorch saves it (in-place checks)
    saves_output = True
    __slots__ = ("base",)

    @row_major
    def forward(self, exponent: Any, base: Any) -> Any:
        self.base = base
        exponent = default_float(exponent) if isinstance(base, float) else exponent
        result = _tensor_power(base, exponent)
        if base == 1:  # pow_Scalar_out fills ones (cpow(1, NaN) would be NaN)
            result[...] = 1
        return result

    def backward(self, F: Any, grad: Any) -> Any:
        exponent, out = self.saved
        values = array_of(exponent)
        # PyTorch's pow_backward_exponent: the log of the base, a complex one when the
        # exponent is complex (so a negative base has one: log(-1) = i*pi).
        if values.dtype.kind == "c" or isinstance(self.base, complex):
            with np.errstate(divide="ignore"):
                log_base: complex | float = complex(np.log(complex(self.base)))
            nonnegative = (values.imag == 0) & (values.real >= 0)
        else:
            log_base = -np.inf if self.base == 0 else float(np.log(self.base))
            nonnegative = values >= 0
        if self.base == 0:
            # 0 where the exponent is >= 0, else result * log(0) (-inf at 0 ** -1: the
            # true slope).
            with np.errstate(divide="ignore", invalid="ignore"):
                return grad * F.where(nonnegative, 0.0, out * log_base)
        return grad * (out * log_base)


def pow(input: Any, exponent: Any) -> Tensor:
    """``input ** exponent``; either may be a Python number.

    Example::

        >>> glassgrad.pow(glassgrad.tensor([2.0, 3.0]), 2)
        tensor([4., 9.])
    """
    if not isinstance(input, Tensor):
        return PowBackward2.apply(check_tensor(exponent, "pow", "exponent", 2), base=input)
    if isinstance(exponent, Tensor):
        return PowBackward1.apply(input, exponent)
    check_exponent("pow", exponent, "Tensor, ")
    return PowBackward0.apply(input, exponent=exponent)


def check_exponent(name: str, exponent: Any, before: str = "") -> None:
    """PyTorch's parser: an exponent that is neither a Tensor nor a number is a TypeError,
    before the autograd checks and the kernel."""
    if not isinstance(exponent, (Tensor, int, float, complex, np.number, np.bool_)):
        raise TypeError(
            f"{name}() received an invalid combination of arguments - got "
            f"({before}{type(exponent).__name__}), but expected a Tensor or a number as the "
            "exponent"
        )


def _rpow(self: Tensor, base: Any) -> Tensor:
    return PowBackward2.apply(self, base=base)


register(
    "pow",
    pow,
    nodes=(PowBackward0, PowBackward1, PowBackward2),
    methods=("pow", "__pow__"),
    samples=lambda rng: [
        Sample((randn(rng, 3, 4), 2)),
        Sample((randn(rng, 3, 4), 3)),
        Sample((positive(rng, 3, 4) + 0.1, 0.5)),
        Sample((positive(rng, 3, 4) + 0.1, -1.5)),
        Sample((randn(rng, 2, 3), 0)),
        Sample((positive(rng, 2, 3) + 0.1, randn(rng, 2, 3))),
        Sample((positive(rng, 2, 3) + 0.1, randn(rng, 3))),
        Sample((positive(rng, 3) + 0.1, NoGrad(randn(rng, 3)))),
        Sample((2.0, randn(rng, 3, 2))),
    ],
)


register(
    "rpow",
    _rpow,
    methods=("__rpow__",),
    torch=lambda torch, x, b: b**x,
    samples=lambda rng: [Sample((randn(rng, 2, 3), 2.5))],
)
