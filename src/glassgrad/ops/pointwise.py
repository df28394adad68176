"""The core elementwise functions: exp, log, sqrt, sin, cos, tanh, sigmoid, relu, abs, sign\nand where (the ones backward formulas are written with).\n\nArithmetic is in ``arithmetic.py``, division in ``division.py``, powers in ``powers.py``, the\nother exp/log/trigonometric functions in ``unary_math.py``, rounding in ``rounding.py``,\nclamp in ``clamping.py`` and the comparisons in ``comparison.py``. Each op is one Node class\n(forward on arrays, backward formula for arrays or Tensors), one public function, and one\nregistry row with its samples.\n"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .._tensor import Tensor
from ..autograd.op import Op
from ._common import (
    binary_operands,
    broadcast_error,
    check_tensor,
    operand_array,
    sgn_array,
    zeros_like_grad,
)
from ._masked_backward import ThresholdBackwardBackward0, masked_backward
from ._namespace import default_float
from ._registry import Sample, register
from ._samples import (
    complex_randn,
    positive,
    randn,
    unary_samples,
)
from .complex import SgnBackward0

# --- exp, log, roots, trigonometric ----------------------------------------------------------


class ExpBackward0(Op):
    pointwise = True
    holomorphic = True
    saves_output = True

    def forward(self, x: Any) -> Any:
        return np.exp(default_float(x))

    def backward(self, F: Any, grad: Any) -> Any:
        (out,) = self.saved
        return grad * out


class LogBackward0(Op):
    pointwise = True
    holomorphic = True
    saved_inputs: tuple[int, ...] = (0,)

    def forward(self, x: Any) -> Any:
        return np.log(default_float(x))

    def backward(self, F: Any, grad: Any) -> Any:
        (x,) = self.saved
        return grad / x


class SqrtBackward0(Op):
    pointwise = True
    holomorphic = True
    saves_output = True

    def forward(self, x: Any) -> Any:
        return np.sqrt(default_float(x))

    def backward(self, F: Any, grad: Any) -> Any:
        (out,) = self.saved
        return grad / (2.0 * out)


class SinBackward0(Op):
    pointwise = True
    holomorphic = True
    saved_inputs: tuple[int, ...] = (0,)

    def forward(self, x: Any) -> Any:
        return np.sin(default_float(x))

    def backward(self, F: Any, grad: Any) -> Any:
        (x,) = self.saved
        return grad * F.cos(x)


class CosBackward0(Op):
    pointwise = True
    holomorphic = True
    saved_inputs: tuple[int, ...] = (0,)

    def forward(self, x: Any) -> Any:
        return np.cos(default_float(x))

    def backward(self, F: Any, grad: Any) -> Any:
        (x,) = self.saved
        return -grad * F.sin(x)


class TanhBackward0(Op):
    pointwise = True
    holomorphic = True
    saves_output = True

    def forward(self, x: Any) -> Any:
        return np.tanh(default_float(x))

    def backward(self, F: Any, grad: Any) -> Any:
        (out,) = self.saved
        return tanh_backward(grad, out)


def tanh_backward(grad: Any, out: Any) -> Any:
    """PyTorch's tanh_backward, ``grad * (1 - out^2)``: on real Tensors (create_graph) a
    TanhBackwardBackward0 node with PyTorch's double-backward formula; on arrays (and complex
    Tensors, whose conjugates the Op machinery takes) computed at once."""
    if isinstance(out, Tensor) and out._data.dtype.kind != "c":
        return TanhBackwardBackward0.apply(grad, out)
    return grad * (1.0 - out * out)


class TanhBackwardBackward0(Op):
    """``grad * (1 - out^2)`` recorded with PyTorch's derivatives of tanh_backward:
    ``tanh_backward(gg, out)`` for ``grad`` and ``gg * (-2 out grad)`` for ``out``."""

    saved_inputs: tuple[int, ...] = (0, 1)
    saved_for: tuple[tuple[int, ...], ...] = ((1,), (0, 1))
    __slots__ = ()

    def forward(self, grad: Any, out: Any) -> Any:
        return grad * (1.0 - out * out)

    def backward(self, F: Any, gg: Any) -> Any:
        grad, out = self.saved
        needs = self.needs_input_grad
        grad_grad = tanh_backward(gg, out) if needs[0] else None
        grad_out = gg * (-2.0 * out * grad) if needs[1] else None
        return grad_grad, grad_out


def sigmoid_into(x: np.ndarray, out: np.ndarray) -> np.ndarray:
    """``out = 1 / (1 + exp(-x))`` in four passes (``out`` may be ``x``), as PyTorch computes
    it: below about -88 (float32) exp overflows to inf and the result is PyTorch's exact 0.
    The caller ignores the overflow warning (``np.errstate(over="ignore")``)."""
    np.negative(x, out=out)
    np.exp(out, out=out)
    out += 1.0
    return np.reciprocal(out, out=out)


class SigmoidBackward0(Op):
    pointwise = True
    holomorphic = True
    saves_output = True

    def forward(self, x: Any) -> Any:
        x = default_float(x)
        # Half precision computes in float32, as PyTorch does on the CPU.
        work = x.astype(np.float32) if x.dtype == np.float16 else x
        with np.errstate(over="ignore"):
            out = sigmoid_into(work, np.empty_like(work))  # x's layout, as PyTorch's
        return out.astype(x.dtype, copy=False)

    def backward(self, F: Any, grad: Any) -> Any:
        (out,) = self.saved
        return sigmoid_backward(grad, out)


def sigmoid_backward(grad: Any, out: Any) -> Any:
    """PyTorch's sigmoid_backward, ``grad * (1 - out) * out``: on real Tensors (create_graph)
    a SigmoidBackwardBackward0 node with PyTorch's own double-backward formula; on arrays (and
    complex Tensors, whose conjugates the Op machinery takes) computed at once."""
    if isinstance(out, Tensor) and out._data.dtype.kind != "c":
        return SigmoidBackwardBackward0.apply(grad, out)
    return grad * (1.0 - out) * out


class SigmoidBackwardBackward0(Op):
    """``grad * (1 - out) * out`` recorded with PyTorch's derivatives of sigmoid_backward:
    ``sigmoid_backward(gg, out)`` for ``grad`` and ``gg * grad * (1 - 2 out)`` for ``out``
    (not the derivative of the products, whose two terms make inf - inf of an infinite
    ``gg * grad``)."""

    saved_inputs: tuple[int, ...] = (0, 1)
    saved_for: tuple[tuple[int, ...], ...] = ((1,), (0, 1))
    __slots__ = ()

    def forward(self, grad: Any, out: Any) -> Any:
        return grad * (1.0 - out) * out

    def backward(self, F: Any, gg: Any) -> Any:
        grad, out = self.saved
        needs = self.needs_input_grad
        grad_grad = sigmoid_backward(gg, out) if needs[0] else None
        grad_out = gg * grad * (-2.0 * out + 1.0) if needs[1] else None
        return grad_grad, grad_out


_ZEROS: dict = {}  # dtype -> a 0-d zero of it (relu's other operand)


class ReluBackward0(Op):
    pointwise = True
    saves_output = True

    def forward(self, x: Any) -> Any:
        if x.dtype == np.bool_:
            raise RuntimeError("Boolean inputs not supported for relu")
        if x.dtype.kind == "c":  # PyTorch's relu is clamp_min(x, 0)
            raise NotImplementedError("clamp is not supported for complex types")
        # x second: NumPy's maximum returns its second operand on a tie, so relu(-0.0) is
        # -0.0 as PyTorch's. The zero is a 0-d array of x's dtype: NumPy resolves the loop
        # faster than for a Python 0 with dtype= (about 1 us of a 1-element relu).
        zero = _ZEROS.get(x.dtype)
        if zero is None:
            zero = _ZEROS[x.dtype] = np.zeros((), x.dtype)
        return np.maximum(zero, x)

    def backward(self, F: Any, grad: Any) -> Any:
        (out,) = self.saved
        return masked_backward(ThresholdBackwardBackward0, grad, out, threshold=0)


class AbsBackward0(Op):
    pointwise = True
    saved_inputs: tuple[int, ...] = (0,)

    def forward(self, x: Any) -> Any:
        if x.dtype == np.bool_:
            raise NotImplementedError("\"abs_cpu\" not implemented for 'Bool'")
        return np.abs(x)

    def backward(self, F: Any, grad: Any) -> Any:
        (x,) = self.saved
        if isinstance(x, Tensor):
            # PyTorch's grad * self.sgn(): sgn is a node of its own with an edge to x (its
            # gradient is 0 for real x), whatever else the product depends on.
            return grad * SgnBackward0.call(x)
        return grad * sgn_array(x)  # for complex x, NumPy's sign is z / |z|, PyTorch's sgn


def _unary(node_cls: type, name: str, doc: str, example: str) -> Any:
    def op(input: Tensor) -> Tensor:
        return node_cls.apply(check_tensor(input, name))

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"{doc}\n\nExample::\n\n    {example}\n"
    return op


exp: Callable[..., Any] = _unary(
    ExpBackward0,
    "exp",
    "Elementwise ``e ** input``.",
    ">>> glassgrad.exp(glassgrad.tensor([0.0]))\n    tensor([1.])",
)


log: Callable[..., Any] = _unary(
    LogBackward0,
    "log",
    "Elementwise natural logarithm.",
    ">>> glassgrad.log(glassgrad.tensor([1.0]))\n    tensor([0.])",
)


sqrt: Callable[..., Any] = _unary(
    SqrtBackward0,
    "sqrt",
    "Elementwise square root.",
    ">>> glassgrad.sqrt(glassgrad.tensor([4.0]))\n    tensor([2.])",
)


sin: Callable[..., Any] = _unary(
    SinBackward0,
    "sin",
    "Elementwise sine.",
    ">>> glassgrad.sin(glassgrad.tensor([0.0]))\n    tensor([0.])",
)


cos: Callable[..., Any] = _unary(
    CosBackward0,
    "cos",
    "Elementwise cosine.",
    ">>> glassgrad.cos(glassgrad.tensor([0.0]))\n    tensor([1.])",
)


tanh: Callable[..., Any] = _unary(
    TanhBackward0,
    "tanh",
    "Elementwise hyperbolic tangent.",
    ">>> glassgrad.tanh(glassgrad.tensor([0.0]))\n    tensor([0.])",
)


sigmoid: Callable[..., Any] = _unary(
    SigmoidBackward0,
    "sigmoid",
    "Elementwise ``1 / (1 + exp(-input))``.",
    ">>> glassgrad.sigmoid(glassgrad.tensor([0.0]))\n    tensor([0.5000])",
)


relu: Callable[..., Any] = _unary(
    ReluBackward0,
    "relu",
    "Elementwise ``max(input, 0)``.",
    ">>> glassgrad.relu(glassgrad.tensor([-1.0, 2.0]))\n    tensor([0., 2.])",
)


abs: Callable[..., Any] = _unary(
    AbsBackward0,
    "abs",
    "Elementwise absolute value.",
    ">>> glassgrad.abs(glassgrad.tensor([-1.0]))\n    tensor([1.])",
)


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


# --- selection and sign (used by backward formulas too) ------------------------------------


class WhereBackward0(Op):
    """out = a where condition else b (condition is a constant mask)"""

    # A TensorIterator kernel in PyTorch (cpu_kernel, no vectorized loop): out= reads an
    # input it cannot classify as the kernel does
    pointwise, vector_bits = True, 0

    condition: Any

    __slots__ = ("condition",)

    def forward(self, condition: Any, a: Any, b: Any) -> Any:
        self.condition = condition
        a, b = binary_operands(a, b)
        try:
            return np.asarray(np.where(condition, a, b))
        except ValueError:
            raise broadcast_error("where", a, b) from None

    def backward(self, F: Any, grad: Any) -> Any:
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
        # Through the Tensor method (attached by the registry): searching's ops, nonzero
        # among them, build on this module's.
        return check_tensor(condition, "where", "condition").nonzero(as_tuple=True)
    if input is None or other is None:
        missing = "input" if input is None else "other"
        raise TypeError(f"where() missing 1 required positional argument: '{missing}'")
    cond = operand_array(condition, "where", "condition", 1)
    if cond.dtype != np.bool_:
        raise RuntimeError(
            f"where expected condition to be a boolean tensor, but got a tensor "
            f"with dtype {cond.dtype}"
        )
    return WhereBackward0.apply(cond, input, other)


class SignBackward0(Op):
    pointwise = True

    def forward(self, x: Any) -> Any:
        if x.dtype.kind == "c":
            raise NotImplementedError(
                "Unlike NumPy, torch.sign is not intended to support complex numbers. Please "
                "use torch.sgn instead."
            )
        if x.dtype == np.bool_:
            return x.copy()  # PyTorch's sign of booleans is themselves (NumPy has no loop)
        return sgn_array(x)

    def backward(self, F: Any, grad: Any) -> Any:
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
