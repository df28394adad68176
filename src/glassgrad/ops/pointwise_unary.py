"""Unary pointwise ops beyond the math functions: deg2rad, rad2deg, positive, frexp and the
sign tests signbit, isposinf, isneginf."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import return_types
from .._tensor import Tensor
from ..autograd.op import Op, apply_inplace
from ._common import array_of, check_tensor
from ._namespace import default_float
from ._registry import NoGrad, Sample, register
from ._samples import randn, unary_samples
from .pointwise import SignBackward0


class _Scale(Op):
    """out = x * factor (integers first become the default float)"""

    factor: float = 1.0

    def forward(self, x: Any) -> Any:
        if x.dtype.kind == "c":
            raise RuntimeError(f"{self.op_name} is not supported for complex tensors.")
        return default_float(x) * self.factor

    def backward(self, F: Any, grad: Any) -> Any:
        return grad * self.factor


class Deg2RadBackward0(_Scale):
    pointwise = True
    factor: float = math.pi / 180.0
    op_name = "deg2rad"


class Rad2DegBackward0(_Scale):
    pointwise = True
    factor: float = 180.0 / math.pi
    op_name = "rad2deg"


def deg2rad(input: Tensor) -> Tensor:
    """Degrees to radians.

    Example::

        >>> glassgrad.deg2rad(glassgrad.tensor([180.0]))
        tensor([3.1416])
    """
    return Deg2RadBackward0.apply(check_tensor(input, "deg2rad"))


def rad2deg(input: Tensor) -> Tensor:
    """Radians to degrees.

    Example::

        >>> glassgrad.rad2deg(glassgrad.tensor([3.141592653589793]))
        tensor([180.])
    """
    return Rad2DegBackward0.apply(check_tensor(input, "rad2deg"))


def positive(input: Tensor) -> Tensor:
    """``+input``: the tensor itself (bools refused, as PyTorch).

    Example::

        >>> x = glassgrad.tensor([1.0]); glassgrad.positive(x) is x
        True
    """
    check_tensor(input, "positive")
    if input._data.dtype == np.bool_:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


class FrexpBackward0(Op):
    """(mantissa, exponent) with x = mantissa * 2^exponent; d mantissa / dx = 2^-exponent"""

    nondiff_outputs: tuple[int, ...] = (1,)
    saved_outputs: tuple[int, ...] = (1,)  # the exponent, as PyTorch saves it

    def forward(self, x: Any) -> Any:
        if x.dtype.kind != "f":
            raise RuntimeError("torch.frexp() only supports floating-point dtypes")
        mantissa, exponent = np.frexp(x)
        return mantissa.astype(x.dtype), exponent.astype(np.int32)

    def backward(self, F: Any, grads: Any) -> Any:
        grad = grads[0]
        (exponent,) = self.saved
        scale = np.exp2(-np.asarray(array_of(exponent), np.float64))
        return grad * scale.astype(np.asarray(array_of(grad)).dtype)


def frexp(input: Tensor) -> tuple[Tensor, ...]:
    """``(mantissa, exponent)`` with ``input = mantissa * 2 ** exponent``, the mantissa in
    ``[0.5, 1)`` in magnitude and the exponent int32.

    Example::

        >>> glassgrad.frexp(glassgrad.tensor([8.0])).exponent
        tensor([4], dtype=glassgrad.int32)
    """
    mantissa, exponent = FrexpBackward0.apply(check_tensor(input, "frexp"))
    return return_types.frexp(mantissa, exponent)


def _sign_test(
    name: str,
    test: Callable[[np.ndarray], np.ndarray],
    doc: str,
    complex_error: tuple[type[Exception], str],
) -> Callable[[Tensor], Tensor]:
    # complex_error: PyTorch's (exception type, message) for a complex input
    def op(input: Tensor) -> Tensor:
        data = check_tensor(input, name)._data
        if data.dtype.kind == "c":
            error, message = complex_error
            raise error(message)
        return Tensor._from_array(np.asarray(test(data)))

    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc
    return op


signbit: Callable[[Tensor], Tensor] = _sign_test(
    "signbit",
    lambda x: np.signbit(x) if x.dtype.kind != "b" else np.zeros(x.shape, bool),
    """Elementwise: is the sign bit set? (True for -0.0 too)

Example::

    >>> glassgrad.signbit(glassgrad.tensor([-0.0, 1.0]))
    tensor([ True, False])
""",
    (NotImplementedError, "signbit is not implemented for complex tensors."),
)
isposinf: Callable[[Tensor], Tensor] = _sign_test(
    "isposinf",
    lambda x: np.isposinf(x) if x.dtype.kind == "f" else np.zeros(x.shape, bool),
    """Elementwise: is the value +inf?

Example::

    >>> glassgrad.isposinf(glassgrad.tensor([float("inf"), 1.0]))
    tensor([ True, False])
""",
    (RuntimeError, "isposinf does not support complex inputs."),
)
isneginf: Callable[[Tensor], Tensor] = _sign_test(
    "isneginf",
    lambda x: np.isneginf(x) if x.dtype.kind == "f" else np.zeros(x.shape, bool),
    """Elementwise: is the value -inf?

Example::

    >>> glassgrad.isneginf(glassgrad.tensor([float("-inf"), 1.0]))
    tensor([ True, False])
""",
    (RuntimeError, "isneginf does not support complex inputs."),
)

TENSOR_METHODS: dict[str, Any] = {
    "deg2rad_": lambda self: apply_inplace(Deg2RadBackward0, self),
    "rad2deg_": lambda self: apply_inplace(Rad2DegBackward0, self),
    "sign_": lambda self: apply_inplace(SignBackward0, self),
}


register("deg2rad", deg2rad, nodes=(Deg2RadBackward0,), samples=unary_samples)
register("rad2deg", rad2deg, nodes=(Rad2DegBackward0,), samples=unary_samples)
register(
    "positive",
    positive,
    samples=lambda rng: [Sample((randn(rng, 3, 4),)), Sample((np.array([1, -2]),))],
)
register(
    "frexp",
    frexp,
    nodes=(FrexpBackward0,),
    samples=lambda rng: [
        Sample((4 * randn(rng, 3, 4),), fd=False, note="steps where the exponent changes"),
        Sample((np.array([8.0, 0.0, -3.0, np.inf]),), fd=False),
        Sample((randn(rng),), fd=False),
    ],
)
for _fn in (signbit, isposinf, isneginf):
    register(
        _fn.__name__,
        _fn,
        differentiable=False,
        samples=lambda rng: [
            Sample((NoGrad(np.array([-0.0, 0.0, -1.0, np.inf, -np.inf, np.nan])),)),
            Sample((np.array([-1, 0, 2]),)),
            Sample((np.array([True, False]),)),
        ],
    )
