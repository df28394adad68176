"""Elementwise ops: arithmetic, powers, exp/log, trigonometric, activations, clamp, compare.

Each op is one Node class (forward on arrays, backward formula for arrays or Tensors), one
public function, and one registry row with its samples.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._tensor import Tensor
from ..autograd.op import Op
from ._common import (
    array_of,
    binary_operands,
    broadcast_error,
    check_tensor,
    floating_operands,
    number_or_tensor,
    zeros_like_grad,
)
from ._namespace import default_float
from ._out import out_result
from ._registry import NoGrad, Sample, register
from ._samples import (
    binary_samples,
    complex_binary_samples,
    complex_randn,
    positive,
    randn,
    unary_samples,
)
from .complex import SgnBackward0

# --- arithmetic ------------------------------------------------------------------------


class AddBackward0(Op):
    """out = a + alpha * b"""

    __slots__ = ("alpha",)
    elementwise_grads = True

    def forward(self, a, b, alpha=1):
        if type(a) is not np.ndarray or type(b) is not np.ndarray or a.dtype is not b.dtype:
            a, b = binary_operands(a, b)  # promotion; the test above skips a call when equal
        self.alpha = alpha
        try:
            return a + b if alpha == 1 else a + alpha * b
        except ValueError:
            raise broadcast_error("add", a, b) from None

    def backward(self, F, grad):
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

    __slots__ = ("alpha",)
    elementwise_grads = True

    def forward(self, a, b, alpha=1):
        if type(a) is not np.ndarray or type(b) is not np.ndarray or a.dtype is not b.dtype:
            _refuse_bool_subtraction(a, b)
            a, b = binary_operands(a, b)  # promotion; the test above skips a call when equal
        elif a.dtype == np.bool_:
            _refuse_bool_subtraction(a, b)
        self.alpha = alpha
        try:
            return a - b if alpha == 1 else a - alpha * b
        except ValueError:
            raise broadcast_error("sub", a, b) from None

    def backward(self, F, grad):
        return grad, -grad if self.alpha == 1 else grad * -self.alpha


class RsubBackward1(Op):
    """out = other - alpha * a, for a Python scalar ``other`` (``2 - x``)."""

    __slots__ = ("alpha",)

    def forward(self, a, other, alpha=1):
        _refuse_bool_subtraction(a, other)
        self.alpha = alpha
        a, other = binary_operands(a, other)
        return other - a if alpha == 1 else other - alpha * a

    def backward(self, F, grad):
        return -grad if self.alpha == 1 else grad * -self.alpha


# NumPy's dtypes of built-in types are singletons: identity tests are the cheapest check on
# the real-valued hot path (a dtype's ``kind`` builds a string each time).
_COMPLEX64, _COMPLEX128 = np.dtype(np.complex64), np.dtype(np.complex128)


def conj_of(F: Any, x: Any) -> Any:
    """The complex conjugate of a saved operand (a Tensor, an array or a Python number) in a
    backward formula; real values are returned as they are."""
    if isinstance(x, Tensor):
        return F.conj(x) if x._data.dtype.kind == "c" else x
    return np.conj(x) if np.iscomplexobj(x) else x


class MulBackward0(Op):
    """out = a * b"""

    saved_inputs = (0, 1)
    saved_for = ((1,), (0,))
    elementwise_grads = True

    def forward(self, a, b):
        if type(a) is not np.ndarray or type(b) is not np.ndarray or a.dtype is not b.dtype:
            a, b = binary_operands(a, b)  # promotion; the test above skips a call when equal
        try:
            return a * b
        except ValueError:
            raise broadcast_error("mul", a, b) from None

    def backward(self, F, grad):
        a, b = self.saved
        needs = self.needs_input_grad
        out_dtype = self._meta[-1]
        if out_dtype is _COMPLEX64 or out_dtype is _COMPLEX128:  # PyTorch's conjugate rule
            a, b = conj_of(F, a), conj_of(F, b)
        return grad * b if needs[0] else None, grad * a if needs[1] else None


class DivBackward0(Op):
    """out = a / b (true division; integers divide as floats)"""

    saved_inputs = (0, 1)
    saved_for = ((1,), (0, 1))
    elementwise_grads = True

    def forward(self, a, b):
        a, b = floating_operands(a, b)
        try:
            return a / b
        except ValueError:
            raise broadcast_error("div", a, b) from None

    def backward(self, F, grad):
        a, b = self.saved
        needs = self.needs_input_grad
        out_dtype = self._meta[-1]
        if out_dtype is _COMPLEX64 or out_dtype is _COMPLEX128:  # PyTorch's conjugate rule
            a, b = conj_of(F, a), conj_of(F, b)
        grad_a = grad / b if needs[0] else None
        grad_b = -grad * a / (b * b) if needs[1] else None
        return grad_a, grad_b


class NegBackward0(Op):
    def forward(self, x):
        if x.dtype == np.bool_:
            raise RuntimeError(
                "Negation, the `-` operator, on a bool tensor is not supported. If you are "
                "trying to invert a mask, use the `~` or `logical_not()` operator instead."
            )
        return -x

    def backward(self, F, grad):
        return -grad


class ReciprocalBackward0(Op):
    saves_output = True

    def forward(self, x):
        return 1.0 / default_float(x)

    def backward(self, F, grad):
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
    return result if out is None else out_result("mul", out, result, (input, other))


def div(input: Tensor, other: Any, *, rounding_mode: str | None = None) -> Tensor:
    """``input / other`` (true division; see ``floor_divide`` for rounding).

    Example::

        >>> glassgrad.div(glassgrad.tensor([1, 2]), 4)
        tensor([0.2500, 0.5000])
    """
    input = number_or_tensor(input, other, "div")
    if rounding_mode is not None:
        from .pointwise_extra import div_rounded  # defined with floor/trunc

        return div_rounded(input, other, rounding_mode)
    return DivBackward0.apply(input, other)


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
def _add_operator(self: Tensor, other: Any) -> Tensor:
    return AddBackward0.apply(self, other)


def _sub_operator(self: Tensor, other: Any) -> Tensor:
    return SubBackward0.apply(self, other)


def _mul_operator(self: Tensor, other: Any) -> Tensor:
    return MulBackward0.apply(self, other)


def _truediv_operator(self: Tensor, other: Any) -> Tensor:
    return DivBackward0.apply(self, other)


TENSOR_METHODS = {
    "__add__": _add_operator,
    "__radd__": _add_operator,
    "__sub__": _sub_operator,
    "__mul__": _mul_operator,
    "__rmul__": _mul_operator,
    "__truediv__": _truediv_operator,
}


def _rtruediv(self: Tensor, other: Any) -> Tensor:
    # PyTorch: scalar / x is reciprocal(x) * scalar.
    if isinstance(other, Tensor):
        return DivBackward0.apply(other, self)
    return MulBackward0.apply(ReciprocalBackward0.apply(self), other)


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
    "neg", neg, nodes=(NegBackward0,), methods=("neg", "negative", "__neg__"), samples=unary_samples
)
register(
    "reciprocal",
    reciprocal,
    nodes=(ReciprocalBackward0,),
    samples=lambda rng: [Sample((positive(rng, 3, 4) + 0.5,))],
)
register(
    "rtruediv",
    _rtruediv,
    methods=("__rtruediv__",),
    torch=lambda torch, x, o: o / x,
    samples=lambda rng: [Sample((positive(rng, 2, 3) + 0.5, 2.0))],
)


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
    return np.asarray(np.power(base, exponent))


class PowBackward0(Op):
    """out = x ** exponent, exponent a Python number"""

    saved_inputs = (0,)
    __slots__ = ("exponent",)

    def forward(self, x, exponent):
        self.exponent = exponent
        if isinstance(exponent, float) and x.dtype.kind != "f":
            x = default_float(x)
        if x.dtype.kind in "iub" and not isinstance(exponent, bool) and exponent < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        if x.dtype.kind == "f":
            return x**exponent
        return _power(x, exponent)

    def backward(self, F, grad):
        (x,) = self.saved
        e = self.exponent
        if e == 0:
            return zeros_like_grad(F, grad)
        if e == 2:
            return grad * 2.0 * x
        return grad * e * x ** (e - 1)


class PowBackward1(Op):
    """out = x ** exponent, both tensors"""

    saved_inputs = (0, 1)
    saves_output = True

    def forward(self, x, exponent):
        try:
            np.broadcast_shapes(np.shape(x), np.shape(exponent))
        except ValueError:
            raise broadcast_error("pow", x, exponent) from None
        return _power(x, exponent)

    def backward(self, F, grad):
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

    saved_inputs = (0,)  # unread, but saved as PyTorch saves it (in-place checks)
    saves_output = True
    __slots__ = ("base",)

    def forward(self, exponent, base):
        self.base = base
        exponent = default_float(exponent) if isinstance(base, float) else exponent
        return _power(base, exponent)

    def backward(self, F, grad):
        exponent, out = self.saved
        if self.base == 0:
            # PyTorch's pow_backward_exponent: 0 where the exponent is >= 0, else
            # result * log(0) (-inf at 0 ** -1: the true slope).
            with np.errstate(divide="ignore", invalid="ignore"):
                return grad * F.where(array_of(exponent) >= 0, 0.0, out * -np.inf)
        return grad * (out * float(np.log(self.base)))


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
    return PowBackward0.apply(input, exponent=exponent)


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


# --- exp, log, roots, trigonometric ----------------------------------------------------------


class ExpBackward0(Op):
    saves_output = True

    def forward(self, x):
        return np.exp(default_float(x))

    def backward(self, F, grad):
        (out,) = self.saved
        return grad * out


class LogBackward0(Op):
    saved_inputs = (0,)

    def forward(self, x):
        return np.log(default_float(x))

    def backward(self, F, grad):
        (x,) = self.saved
        return grad / x


class SqrtBackward0(Op):
    saves_output = True

    def forward(self, x):
        return np.sqrt(default_float(x))

    def backward(self, F, grad):
        (out,) = self.saved
        return grad / (2.0 * out)


class SinBackward0(Op):
    saved_inputs = (0,)

    def forward(self, x):
        return np.sin(default_float(x))

    def backward(self, F, grad):
        (x,) = self.saved
        return grad * F.cos(x)


class CosBackward0(Op):
    saved_inputs = (0,)

    def forward(self, x):
        return np.cos(default_float(x))

    def backward(self, F, grad):
        (x,) = self.saved
        return -grad * F.sin(x)


class TanhBackward0(Op):
    saves_output = True

    def forward(self, x):
        return np.tanh(default_float(x))

    def backward(self, F, grad):
        (out,) = self.saved
        return grad * (1.0 - out * out)


def sigmoid_into(x: np.ndarray, out: np.ndarray) -> np.ndarray:
    """``out = 1 / (1 + exp(-x))`` in four passes (``out`` may be ``x``), as PyTorch computes
    it: below about -88 (float32) exp overflows to inf and the result is PyTorch's exact 0.
    The caller ignores the overflow warning (``np.errstate(over="ignore")``)."""
    np.negative(x, out=out)
    np.exp(out, out=out)
    out += 1.0
    return np.reciprocal(out, out=out)


class SigmoidBackward0(Op):
    saves_output = True

    def forward(self, x):
        x = default_float(x)
        # Half precision computes in float32, as PyTorch does on the CPU.
        work = x.astype(np.float32) if x.dtype == np.float16 else x
        with np.errstate(over="ignore"):
            out = sigmoid_into(work, np.empty(work.shape, work.dtype))
        return out.astype(x.dtype, copy=False)

    def backward(self, F, grad):
        (out,) = self.saved
        return grad * out * (1.0 - out)


class ReluBackward0(Op):
    saves_output = True
    grad_reads_saved = True

    def forward(self, x):
        return np.maximum(x, 0, dtype=x.dtype) if x.dtype != np.bool_ else x.copy()

    def backward(self, F, grad):
        (out,) = self.saved
        mask = (out._data if isinstance(out, Tensor) else out) > 0
        return F.where(mask, grad, 0.0)  # selects, so an infinite gradient gives 0 where x <= 0


class AbsBackward0(Op):
    saved_inputs = (0,)
    grad_reads_saved = True

    def forward(self, x):
        if x.dtype == np.bool_:
            raise NotImplementedError("\"abs_cpu\" not implemented for 'Bool'")
        return np.abs(x)

    def backward(self, F, grad):
        (x,) = self.saved
        if isinstance(x, Tensor):
            if x._data.dtype.kind == "c":  # sgn(z) depends on z: its own differentiable op
                return grad * SgnBackward0.call(x)
            return grad * np.sign(x._data)
        return grad * np.sign(x)  # for complex x, NumPy's sign is z / |z|, PyTorch's sgn


class ClampBackward1(Op):
    """out = min(max(x, min), max) for Python-number bounds"""

    saved_inputs = (0,)
    __slots__ = ("min", "max")

    def forward(self, x, min=None, max=None):
        if min is None and max is None:
            raise RuntimeError("clamp: At least one of 'min' or 'max' must not be None")
        self.min, self.max = min, max
        if x.dtype.kind != "f" and (isinstance(min, float) or isinstance(max, float)):
            x = default_float(x)
        out = x
        if min is not None:
            out = np.maximum(out, np.asarray(min, dtype=x.dtype))
        if max is not None:
            out = np.minimum(out, np.asarray(max, dtype=x.dtype))
        return out if out is not x else x.copy()

    def backward(self, F, grad):
        (x,) = self.saved
        values = x._data if isinstance(x, Tensor) else x
        mask = np.ones(values.shape, dtype=bool)
        if self.min is not None:
            mask &= values >= self.min
        if self.max is not None:
            mask &= values <= self.max
        return grad * mask


def _unary(node_cls: type, name: str, doc: str, example: str) -> Any:
    def op(input: Tensor) -> Tensor:
        return node_cls.apply(check_tensor(input, name))

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"{doc}\n\nExample::\n\n    {example}\n"
    return op


exp = _unary(
    ExpBackward0,
    "exp",
    "Elementwise ``e ** input``.",
    ">>> glassgrad.exp(glassgrad.tensor([0.0]))\n    tensor([1.])",
)
log = _unary(
    LogBackward0,
    "log",
    "Elementwise natural logarithm.",
    ">>> glassgrad.log(glassgrad.tensor([1.0]))\n    tensor([0.])",
)
sqrt = _unary(
    SqrtBackward0,
    "sqrt",
    "Elementwise square root.",
    ">>> glassgrad.sqrt(glassgrad.tensor([4.0]))\n    tensor([2.])",
)
sin = _unary(
    SinBackward0,
    "sin",
    "Elementwise sine.",
    ">>> glassgrad.sin(glassgrad.tensor([0.0]))\n    tensor([0.])",
)
cos = _unary(
    CosBackward0,
    "cos",
    "Elementwise cosine.",
    ">>> glassgrad.cos(glassgrad.tensor([0.0]))\n    tensor([1.])",
)
tanh = _unary(
    TanhBackward0,
    "tanh",
    "Elementwise hyperbolic tangent.",
    ">>> glassgrad.tanh(glassgrad.tensor([0.0]))\n    tensor([0.])",
)
sigmoid = _unary(
    SigmoidBackward0,
    "sigmoid",
    "Elementwise ``1 / (1 + exp(-input))``.",
    ">>> glassgrad.sigmoid(glassgrad.tensor([0.0]))\n    tensor([0.5000])",
)
relu = _unary(
    ReluBackward0,
    "relu",
    "Elementwise ``max(input, 0)``.",
    ">>> glassgrad.relu(glassgrad.tensor([-1.0, 2.0]))\n    tensor([0., 2.])",
)
abs = _unary(
    AbsBackward0,
    "abs",
    "Elementwise absolute value.",
    ">>> glassgrad.abs(glassgrad.tensor([-1.0]))\n    tensor([1.])",
)


def clamp(input: Tensor, min: float | None = None, max: float | None = None) -> Tensor:
    """Limit each element to ``[min, max]`` (either bound may be None).

    The gradient passes where ``min <= input <= max`` (bounds included), as in PyTorch.

    Example::

        >>> glassgrad.clamp(glassgrad.tensor([-2.0, 0.5, 3.0]), min=0, max=1)
        tensor([0.0000, 0.5000, 1.0000])
    """
    check_tensor(input, "clamp")
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        from .pointwise_extra import clamp_tensor_bounds

        return clamp_tensor_bounds(input, min, max)
    return ClampBackward1.apply(input, min=min, max=max)


register("exp", exp, nodes=(ExpBackward0,), samples=unary_samples)
register(
    "log",
    log,
    nodes=(LogBackward0,),
    samples=lambda rng: [Sample((positive(rng, 3, 4) + 0.1,)), Sample((positive(rng) + 0.1,))],
)
register(
    "sqrt",
    sqrt,
    nodes=(SqrtBackward0,),
    samples=lambda rng: [Sample((positive(rng, 3, 4) + 0.1,)), Sample((positive(rng) + 0.1,))],
)
register("sin", sin, nodes=(SinBackward0,), samples=unary_samples)
register("cos", cos, nodes=(CosBackward0,), samples=unary_samples)
register("tanh", tanh, nodes=(TanhBackward0,), samples=unary_samples)
register("sigmoid", sigmoid, nodes=(SigmoidBackward0,), samples=unary_samples)
register("relu", relu, nodes=(ReluBackward0,), samples=unary_samples)
register(
    "abs",
    abs,
    nodes=(AbsBackward0,),
    methods=("abs", "absolute", "__abs__"),
    samples=unary_samples,
)
register(
    "clamp",
    clamp,
    nodes=(ClampBackward1,),
    methods=("clamp", "clip"),
    samples=lambda rng: [
        Sample((randn(rng, 3, 4),), {"min": -0.5, "max": 0.5}),
        Sample((randn(rng, 3, 4),), {"min": 0.0}),
        Sample((randn(rng, 3, 4),), {"max": 0.2}),
    ],
)


# --- comparisons (no gradient) -------------------------------------------------------------


def _compare(name: str, ufunc: Any, symbol: str) -> Any:
    def op(input: Tensor, other: Any) -> Tensor:
        a, b = binary_operands(check_tensor(input, name)._data, _raw(other))
        try:
            return Tensor._from_array(np.asarray(ufunc(a, b)))
        except ValueError:
            raise broadcast_error(name, a, b) from None

    op.__name__ = op.__qualname__ = name
    op.__doc__ = (
        f"Elementwise ``input {symbol} other`` as a bool tensor (no gradient).\n\n"
        f"Example::\n\n    >>> glassgrad.{name}(glassgrad.tensor([1, 2]), 2)\n"
    )
    return op


def _raw(x: Any) -> Any:
    return x._data if isinstance(x, Tensor) else x


eq = _compare("eq", np.equal, "==")
ne = _compare("ne", np.not_equal, "!=")
lt = _compare("lt", np.less, "<")
le = _compare("le", np.less_equal, "<=")
gt = _compare("gt", np.greater, ">")
ge = _compare("ge", np.greater_equal, ">=")

for _fn, _methods in (
    (eq, ("eq", "__eq__")),
    (ne, ("ne", "not_equal", "__ne__")),
    (lt, ("lt", "less", "__lt__")),
    (le, ("le", "less_equal", "__le__")),
    (gt, ("gt", "greater", "__gt__")),
    (ge, ("ge", "greater_equal", "__ge__")),
):
    register(
        _fn.__name__,
        _fn,
        methods=_methods,
        differentiable=False,
        samples=lambda rng: [
            Sample((randn(rng, 3, 4), randn(rng, 4)), grad=False),
            Sample((randn(rng, 3), 0.0), grad=False),
        ],
    )


# --- selection and sign (used by backward formulas too) ------------------------------------


class WhereBackward0(Op):
    """out = a where condition else b (condition is a constant mask)"""

    __slots__ = ("condition",)

    def forward(self, condition, a, b):
        self.condition = condition
        a, b = binary_operands(a, b)
        try:
            return np.asarray(np.where(condition, a, b))
        except ValueError:
            raise broadcast_error("where", a, b) from None

    def backward(self, F, grad):
        needs = self.needs_input_grad
        return (
            None,
            F.where(self.condition, grad, 0.0) if needs[1] else None,
            F.where(self.condition, 0.0, grad) if needs[2] else None,
        )


def where(condition: Any, input: Any = None, other: Any = None) -> Any:
    """Elementwise ``input if condition else other``, broadcasting all three; with the
    condition alone, ``nonzero(condition, as_tuple=True)``.

    Example::

        >>> x = glassgrad.tensor([-1.0, 2.0])
        >>> glassgrad.where(x > 0, x, 0.0)
        tensor([0., 2.])
    """
    if input is None and other is None:
        from .searching import nonzero  # searching's ops build on this module's

        return nonzero(check_tensor(condition, "where", "condition"), as_tuple=True)
    if input is None or other is None:
        missing = "input" if input is None else "other"
        raise TypeError(f"where() missing 1 required positional argument: '{missing}'")
    cond = condition._data if isinstance(condition, Tensor) else np.asarray(condition)
    if cond.dtype != np.bool_:
        raise RuntimeError(
            f"where expected condition to be a boolean tensor, but got a tensor "
            f"with dtype {cond.dtype}"
        )
    return WhereBackward0.apply(cond, input, other)


class SignBackward0(Op):
    def forward(self, x):
        out = np.sign(x)
        if out.dtype.kind == "f" and np.isnan(out).any():
            out = np.nan_to_num(out, nan=0.0)  # PyTorch's sign(nan) is 0
        return out

    def backward(self, F, grad):
        return zeros_like_grad(F, grad)


def sign(input: Tensor) -> Tensor:
    """Elementwise sign (-1, 0 or 1); its gradient is zero.

    Example::

        >>> glassgrad.sign(glassgrad.tensor([-2.0, 0.0, 3.0]))
        tensor([-1.,  0.,  1.])
    """
    return SignBackward0.apply(check_tensor(input, "sign"))


register(
    "where",
    where,
    nodes=(WhereBackward0,),
    methods=(),
    samples=lambda rng: [
        Sample((randn(rng, 3, 4) > 0, randn(rng, 3, 4), randn(rng, 3, 4))),
        Sample((randn(rng, 3, 4) > 0, randn(rng, 4), 0.5)),
    ],
)
register(
    "_complex_abs",
    abs,
    nodes=(AbsBackward0,),
    methods=(),
    torch="torch.abs",
    samples=lambda rng: [Sample((complex_randn(rng, 3, 4),)), Sample((complex_randn(rng, 2),))],
)
register("sign", sign, nodes=(SignBackward0,), samples=unary_samples)
