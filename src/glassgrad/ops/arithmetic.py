"""Elementwise arithmetic: add, sub, rsub, mul, neg and reciprocal, and the Tensor operators
``+ - *`` (division is in ``division.py``, powers in ``powers.py``).

Each op is one Node class (forward on arrays, backward formula for arrays or Tensors), one
public function, and one registry row with its samples.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from .._tensor import Tensor
from ..autograd.op import Op
from ._common import (
    binary_operands,
    binary_operator,
    broadcast_error,
    check_tensor,
    float_array_and_number,
    number_or_tensor,
    scaled,
)
from ._namespace import default_float
from ._out import out_result, pointwise_out
from ._registry import Sample, register
from ._samples import (
    binary_samples,
    positive,
    randn,
    unary_samples,
)

# --- arithmetic ------------------------------------------------------------------------

# NumPy's dtypes of built-in types are singletons: identity tests are the cheapest check on
# the real-valued hot path (a dtype's ``kind`` builds a string each time).
_COMPLEX64, _COMPLEX128 = np.dtype(np.complex64), np.dtype(np.complex128)


def _is_complex(out: Any) -> bool:
    """Whether a sum is complex: PyTorch's kernel then multiplies by alpha even when it is 1
    (``scaled``; fuzz seed 704508: ``z[i] += x``, z complex, x a real NaN)."""
    dtype = getattr(out, "dtype", None)
    return dtype is _COMPLEX64 or dtype is _COMPLEX128


class AddBackward0(Op):
    """out = a + alpha * b"""

    pointwise = True

    alpha: Any

    __slots__ = ("alpha",)
    elementwise_grads = True

    def forward(self, a: Any, b: Any, alpha: Any = 1) -> Any:
        if type(a) is not np.ndarray or type(b) is not np.ndarray or a.dtype is not b.dtype:
            if not float_array_and_number(a, b):  # the tests skip a call when nothing to do
                a, b = binary_operands(a, b)
        self.alpha = alpha
        try:
            out = a + b if alpha == 1 else a + alpha * b
        except ValueError:
            raise broadcast_error("add", a, b) from None
        if alpha == 1:  # _is_complex, inlined on the hottest op
            dtype = getattr(out, "dtype", None)
            if dtype is _COMPLEX64 or dtype is _COMPLEX128:
                out = a + scaled(b, alpha, dtype)
        return out

    def backward(self, F: Any, grad: Any) -> Any:
        return grad, grad if self.alpha == 1 else grad * self.alpha


def _is_bool(x: Any) -> bool:
    return x.dtype == np.bool_ if isinstance(x, np.ndarray) else isinstance(x, (bool, np.bool_))


def _refuse_bool_subtraction(a: Any, b: Any) -> None:
    """PyTorch's ``sub_check``: no subtraction with a bool operand (a Python bool counts)."""
    if _is_bool(a) and _is_bool(b):
        raise RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` "
            "or `logical_xor()` operator instead."
        )
    if _is_bool(a) or _is_bool(b):
        raise RuntimeError(
            "Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
            "trying to invert a mask, use the `~` or `logical_not()` operator instead."
        )


class SubBackward0(Op):
    """out = a - alpha * b"""

    pointwise = True

    alpha: Any

    __slots__ = ("alpha",)
    elementwise_grads = True

    def forward(self, a: Any, b: Any, alpha: Any = 1) -> Any:
        if type(a) is not np.ndarray or type(b) is not np.ndarray or a.dtype is not b.dtype:
            if not float_array_and_number(a, b):  # the tests skip calls when nothing to do
                _refuse_bool_subtraction(a, b)
                a, b = binary_operands(a, b)
        elif a.dtype == np.bool_:
            _refuse_bool_subtraction(a, b)
        self.alpha = alpha
        try:
            out = a - b if alpha == 1 else a - alpha * b
        except ValueError:
            raise broadcast_error("sub", a, b) from None
        if alpha == 1 and _is_complex(out):
            out = a - scaled(b, alpha, out.dtype)
        return out

    def backward(self, F: Any, grad: Any) -> Any:
        return grad, -grad if self.alpha == 1 else grad * -self.alpha


class RsubBackward1(Op):
    """out = other - alpha * a, for a Python scalar ``other`` (``2 - x``)."""

    alpha: Any

    __slots__ = ("alpha",)

    def forward(self, a: Any, other: Any, alpha: Any = 1) -> Any:
        _refuse_bool_subtraction(a, other)
        self.alpha = alpha
        a, other = binary_operands(a, other)
        out = other - a if alpha == 1 else other - alpha * a
        return other - scaled(a, alpha, out.dtype) if alpha == 1 and _is_complex(out) else out

    def backward(self, F: Any, grad: Any) -> Any:
        return -grad if self.alpha == 1 else grad * -self.alpha


def conj_of(F: Any, x: Any) -> Any:
    """The complex conjugate of a saved operand (a Tensor, an array or a Python number) in a
    backward formula; real values are returned as they are."""
    if isinstance(x, Tensor):
        return F.conj(x) if x._data.dtype.kind == "c" else x
    return np.conj(x) if np.iscomplexobj(x) else x


class MulBackward0(Op):
    """out = a * b"""

    pointwise = True

    saved_inputs: tuple[int, ...] = (0, 1)
    saved_for: tuple[tuple[int, ...], ...] = ((1,), (0,))
    elementwise_grads = True

    def forward(self, a: Any, b: Any) -> Any:
        if type(a) is not np.ndarray or type(b) is not np.ndarray or a.dtype is not b.dtype:
            if not float_array_and_number(a, b):  # the tests skip a call when nothing to do
                a, b = binary_operands(a, b)
        try:
            return a * b
        except ValueError:
            raise broadcast_error("mul", a, b) from None

    def backward(self, F: Any, grad: Any) -> Any:
        a, b = self.saved
        needs = self.needs_input_grad
        out_dtype = self._meta[-1]
        if out_dtype is _COMPLEX64 or out_dtype is _COMPLEX128:  # PyTorch's conjugate rule
            a, b = conj_of(F, a), conj_of(F, b)
        return grad * b if needs[0] else None, grad * a if needs[1] else None


class NegBackward0(Op):
    pointwise = True

    def forward(self, x: Any) -> Any:
        if x.dtype == np.bool_:
            raise RuntimeError(
                "Negation, the `-` operator, on a bool tensor is not supported. If you are "
                "trying to invert a mask, use the `~` or `logical_not()` operator instead."
            )
        return -x

    def backward(self, F: Any, grad: Any) -> Any:
        return -grad


class ReciprocalBackward0(Op):
    pointwise = True
    holomorphic = True
    saves_output = True

    def forward(self, x: Any) -> Any:
        return 1.0 / default_float(x)

    def backward(self, F: Any, grad: Any) -> Any:
        (out,) = self.saved
        return -grad * out * out


def add(input: Tensor, other: Any, *, alpha: float = 1) -> Tensor:
    """``input + alpha * other``, broadcasting.

    Example::

        >>> glassgrad.add(glassgrad.tensor([1.0, 2.0]), 10, alpha=2)
        tensor([21., 22.])
    """
    if alpha == 1:  # no keyword: the common case is measurably faster
        return AddBackward0.apply(number_or_tensor(input, other, "add"), other)
    return AddBackward0.apply(number_or_tensor(input, other, "add"), other, alpha=alpha)


def sub(input: Tensor, other: Any, *, alpha: float = 1) -> Tensor:
    """``input - alpha * other``, broadcasting.

    Example::

        >>> glassgrad.sub(glassgrad.tensor([1.0, 2.0]), 1)
        tensor([0., 1.])
    """
    return SubBackward0.apply(number_or_tensor(input, other, "sub"), other, alpha=alpha)


def rsub(input: Tensor, other: Any, alpha: float = 1) -> Tensor:
    """``other - alpha * input`` (``sub`` with the operands swapped; PyTorch takes ``alpha``
    by position when ``other`` is a number).

    Example::

        >>> glassgrad.rsub(glassgrad.tensor([1.0, 2.0]), 5)
        tensor([4., 3.])
    """
    if isinstance(other, Tensor):
        return SubBackward0.apply(other, input, alpha=alpha)
    return RsubBackward1.apply(check_tensor(input, "rsub"), other=other, alpha=alpha)


def mul(input: Tensor, other: Any, *, out: Tensor | None = None) -> Tensor:
    """``input * other``, broadcasting (written into ``out`` when given).

    Example::

        >>> glassgrad.mul(glassgrad.tensor([1.0, 2.0]), 3)
        tensor([3., 6.])
    """
    result = MulBackward0.apply(number_or_tensor(input, other, "mul"), other)
    if out is None:
        return result
    check = functools.partial(pointwise_out, MulBackward0, mul, (input, other), {})
    return out_result("mul", out, result, (input, other), pointwise=check)


def neg(input: Tensor) -> Tensor:
    """``-input``.

    Example::

        >>> glassgrad.neg(glassgrad.tensor([1.0, -2.0]))
        tensor([-1.,  2.])
    """
    return NegBackward0.apply(check_tensor(input, "neg"))


def reciprocal(input: Tensor) -> Tensor:
    """``1 / input``.

    Example::

        >>> glassgrad.reciprocal(glassgrad.tensor([2.0, 4.0]))
        tensor([0.5000, 0.2500])
    """
    return ReciprocalBackward0.apply(check_tensor(input, "reciprocal"))


# The operators: ``self`` is always a Tensor and alpha is 1, so they go straight to the node
# (a call and a check less on the hottest path of small-tensor code).
_add_operator = binary_operator(AddBackward0, "_add_operator")
_sub_operator = binary_operator(SubBackward0, "_sub_operator")
_mul_operator = binary_operator(MulBackward0, "_mul_operator")


register(
    "add",
    add,
    nodes=(AddBackward0,),
    methods=("add",),
    samples=lambda rng: [
        *binary_samples(rng),
        Sample((randn(rng, 3), randn(rng, 3)), {"alpha": 2}),
    ],
)


register(
    "sub",
    sub,
    nodes=(SubBackward0,),
    methods=("sub",),
    samples=lambda rng: [
        *binary_samples(rng),
        Sample((randn(rng, 3), 2.5), {"alpha": 3}),
    ],
)


register(
    "rsub",
    rsub,
    nodes=(RsubBackward1,),
    methods=("__rsub__",),
    samples=lambda rng: [Sample((randn(rng, 2, 3), 2.0))],
)


register(
    "mul",
    mul,
    nodes=(MulBackward0,),
    methods=("mul", "multiply"),
    samples=binary_samples,
)


register(
    "neg", neg, nodes=(NegBackward0,), methods=("neg", "negative", "__neg__"), samples=unary_samples
)


register(
    "reciprocal",
    reciprocal,
    nodes=(ReciprocalBackward0,),
    samples=lambda rng: [Sample((positive(rng, 3, 4) + 0.5,))],
)


TENSOR_METHODS: dict[str, Any] = {
    "__add__": _add_operator,
    "__radd__": _add_operator,
    "__sub__": _sub_operator,
    "__mul__": _mul_operator,
    "__rmul__": _mul_operator,
}
