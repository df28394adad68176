"""Division beyond true division: ``div`` with ``rounding_mode``, true_divide, floor_divide
and remainder (with PyTorch's integer semantics and its NotImplemented gradients), and their
in-place forms.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._tensor import Tensor
from ..autograd.op import Op, apply_inplace
from ._common import (
    array_of,
    binary_operands,
    binary_operator,
    broadcast_error,
    check_integer_divisor,
    check_tensor,
    float_array_and_number,
    floating_operands,
    number_or_tensor,
    zeros_like_grad,
)
from ._not_implemented import (
    _apply_not_implemented,
    _binary,
    _not_implemented_for,
    _not_implemented_node,
    in_place,
)
from ._registry import NoGrad, Sample, register
from ._samples import (
    complex_binary_samples,
    positive,
    randn,
)
from .arithmetic import (
    _COMPLEX64,
    _COMPLEX128,
    AddBackward0,
    MulBackward0,
    ReciprocalBackward0,
    SubBackward0,
    add,
    conj_of,
    mul,
    sub,
)


class DivBackward0(Op):
    """out = a / b (true division; integers divide as floats)"""

    pointwise = True

    saved_inputs: tuple[int, ...] = (0, 1)
    saved_for: tuple[tuple[int, ...], ...] = ((1,), (0, 1))
    elementwise_grads = True

    def forward(self, a: Any, b: Any) -> Any:
        if not float_array_and_number(a, b):
            a, b = floating_operands(a, b)
        try:
            return a / b
        except ValueError:
            raise broadcast_error("div", a, b) from None

    def backward(self, F: Any, grad: Any) -> Any:
        a, b = self.saved
        needs = self.needs_input_grad
        out_dtype = self._meta[-1]
        if out_dtype is _COMPLEX64 or out_dtype is _COMPLEX128:  # PyTorch's conjugate rule
            a, b = conj_of(F, a), conj_of(F, b)
        grad_a = grad / b if needs[0] else None
        # PyTorch's order, -grad * ((a / b) / b): b * b would overflow or underflow first
        # (a tiny b gave -inf where the quotients stay finite).
        grad_b = -grad * ((a / b) / b) if needs[1] else None
        return grad_a, grad_b


def div(input: Tensor, other: Any, *, rounding_mode: str | None = None) -> Tensor:
    """``input / other`` (true division; see ``floor_divide`` for rounding).

    Example::

        >>> glassgrad.div(glassgrad.tensor([1, 2]), 4)
        tensor([0.2500, 0.5000])
    """
    input = number_or_tensor(input, other, "div")
    if rounding_mode is not None:
        return div_rounded(input, other, rounding_mode)
    return DivBackward0.apply(input, other)


_truediv_operator = binary_operator(DivBackward0, "_truediv_operator")


def _rtruediv(self: Tensor, other: Any) -> Tensor:
    # PyTorch: scalar / x is reciprocal(x) * scalar.
    if isinstance(other, Tensor):
        return DivBackward0.apply(other, self)
    return MulBackward0.apply(ReciprocalBackward0.apply(self), other)


register(
    "div",
    div,
    nodes=(DivBackward0,),
    methods=("div", "divide", "true_divide"),
    samples=lambda rng: [
        Sample((randn(rng, 3, 4), positive(rng, 3, 4) + 0.5)),
        Sample((randn(rng, 2, 3), positive(rng, 3) + 0.5)),
        Sample((randn(rng, 4), 2.0)),
        Sample((randn(rng), positive(rng, 2, 2) + 0.5)),
    ],
)


# Complex operands (the results of glassgrad.fft), in rows of their own so that the rows above
# keep the samples (and random streams) the fuzzer's fixed programs were drawn with.
for _name, _fn, _node in (
    ("add", add, AddBackward0),
    ("sub", sub, SubBackward0),
    ("mul", mul, MulBackward0),
    ("div", div, DivBackward0),
):
    register(
        f"_complex_{_name}",
        _fn,
        nodes=(_node,),
        methods=(),
        torch=f"torch.{_name}",
        samples=complex_binary_samples,
    )


register(
    "rtruediv",
    _rtruediv,
    methods=("__rtruediv__",),
    torch=lambda torch, x, o: o / x,
    samples=lambda rng: [Sample((positive(rng, 2, 3) + 0.5, 2.0))],
)


# --- division with rounding, remainder ----------------------------------------------------


def _floor_divide_arrays(a: Any, b: Any) -> np.ndarray:
    a, b = binary_operands(a, b)
    dtype = np.result_type(a, b)
    if dtype == np.bool_ or dtype.kind == "c":
        raise _not_implemented_for("div_floor_cpu", dtype)
    check_integer_divisor(a, b, _floor_divide_arrays)
    with np.errstate(divide="ignore", invalid="ignore"):
        return _binary("floor_divide", a, b, np.floor_divide)


def _trunc_divide_arrays(a: Any, b: Any) -> np.ndarray:
    a, b = binary_operands(a, b)
    dtype = np.result_type(a, b)
    if dtype == np.bool_ or dtype.kind == "c":
        raise _not_implemented_for("div_trunc_cpu", dtype)
    check_integer_divisor(a, b, _trunc_divide_arrays)
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
    if dtype == np.bool_ or dtype.kind == "c":
        raise _not_implemented_for("remainder_cpu", dtype)
    check_integer_divisor(a, b, _remainder_arrays)
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

    pointwise = True

    rounding_mode: Any

    # Unread (the gradient is zero) but saved as PyTorch saves them: in-place checks.
    saved_inputs: tuple[int, ...] = (0, 1)
    saved_for: tuple[tuple[int, ...], ...] = ((1,), (0, 1))
    __slots__ = ("rounding_mode",)

    def forward(self, a: Any, b: Any, rounding_mode: Any = "floor") -> Any:
        self.rounding_mode = rounding_mode
        if rounding_mode == "floor":
            return _floor_divide_arrays(a, b)
        return _trunc_divide_arrays(a, b)

    def backward(self, F: Any, grad: Any) -> Any:
        needs = self.needs_input_grad
        zero = zeros_like_grad(F, grad)
        return zero if needs[0] else None, zero if needs[1] else None


FloorDivideNotImplemented: type[Op] = _not_implemented_node("floor_divide", _floor_divide_arrays)
# floor_divide_ is a TensorIterator kernel in PyTorch (autograd/kernel_order.py)
FloorDivideNotImplemented.pointwise = True
_FloorDivideInplaceNotImplemented: type[Op] = in_place(FloorDivideNotImplemented)


RemainderNotImplemented: type[Op] = _not_implemented_node("remainder", _remainder_arrays)


class RemainderBackward0(Op):
    """out = a mod b (sign of b), b a Python number"""

    pointwise = True

    def forward(self, a: Any, other: Any) -> Any:
        return _remainder_arrays(a, other)

    def backward(self, F: Any, grad: Any) -> Any:
        return grad


class RemainderBackward1(Op):
    """out = a - b * floor(a / b); d/da = 1, d/db = -floor(a / b) (a constant)"""

    pointwise = True

    saved_inputs: tuple[int, ...] = (0, 1)
    saved_for: tuple[tuple[int, ...], ...] = ((1,), (1,))  # only b's gradient reads them
    grad_reads_saved = True

    def forward(self, a: Any, b: Any) -> Any:
        return _remainder_arrays(a, b)

    def backward(self, F: Any, grad: Any) -> Any:
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


def _true_divide_inplace(self: Tensor, other: Any) -> Tensor:
    return _div_inplace(self, other)  # PyTorch's true_divide_ takes no rounding_mode


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


def _floor_divide_inplace(self: Tensor, other: Any) -> Tensor:
    if isinstance(other, Tensor):
        return apply_inplace(_FloorDivideInplaceNotImplemented, self, other)
    return apply_inplace(_FloorDivideInplaceNotImplemented, self, after=other)


TENSOR_METHODS: dict[str, Any] = {
    "__truediv__": _truediv_operator,
    "true_divide_": _true_divide_inplace,
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
}
