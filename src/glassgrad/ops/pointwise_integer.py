"""Elementwise ops on integers: gcd, lcm and the bit shifts ``bitwise_left_shift`` /
``bitwise_right_shift`` (with their in-place forms); integer results, no gradient.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .._dtype import scalar_type_name
from .._tensor import Tensor
from ._common import binary_operands, check_tensor, is_scalar
from ._not_implemented import _binary
from ._registry import Sample, register
from .pointwise_binary import _write_back


def _integer_op(name: str, ufunc: Any, kernel: str, doc: str, numbers: bool = False) -> Any:
    """An op of PyTorch's integral kernels: its operands promoted together, then refused
    unless the common dtype is an integer one (bool included: ``"lshift_cpu" not
    implemented for 'Bool'``). ``numbers``: a Python number is taken for either operand
    (the shifts' Scalar overloads; gcd and lcm take tensors only)."""

    def op(input: Any, other: Any) -> Tensor:
        if not (numbers and is_scalar(input) and isinstance(other, Tensor)):
            check_tensor(input, name)
        if not (numbers and is_scalar(other)):
            check_tensor(other, name, "other", 2)
        a = input._data if isinstance(input, Tensor) else input
        b = other._data if isinstance(other, Tensor) else other
        a, b = binary_operands(a, b)
        dtype = (a if isinstance(a, np.ndarray) else b).dtype
        if dtype.kind not in "iu":
            raise NotImplementedError(
                f"\"{kernel}_cpu\" not implemented for '{scalar_type_name(dtype)}'"
            )
        return Tensor._from_array(_binary(name, a, b, ufunc))

    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc
    return op


gcd: Callable[..., Any] = _integer_op(
    "gcd",
    np.gcd,
    "gcd",
    """The greatest common divisor, elementwise (integers).

Example::

    >>> glassgrad.gcd(glassgrad.tensor([4, 6]), glassgrad.tensor([6, 9]))
    tensor([2, 3])
""",
)


lcm: Callable[..., Any] = _integer_op(
    "lcm",
    np.lcm,
    "lcm",
    """The least common multiple, elementwise (integers).

Example::

    >>> glassgrad.lcm(glassgrad.tensor([4, 6]), glassgrad.tensor([6, 9]))
    tensor([12, 18])
""",
)


bitwise_left_shift: Callable[..., Any] = _integer_op(
    "bitwise_left_shift",
    np.left_shift,
    "lshift",
    """``input << other``, elementwise (integers).

Example::

    >>> glassgrad.bitwise_left_shift(glassgrad.tensor([1, 2]), 2)
    tensor([4, 8])
""",
    numbers=True,
)


bitwise_right_shift: Callable[..., Any] = _integer_op(
    "bitwise_right_shift",
    np.right_shift,
    "rshift",
    """``input >> other``, elementwise (integers; arithmetic shift for signed ones).

Example::

    >>> glassgrad.bitwise_right_shift(glassgrad.tensor([8, -8]), 2)
    tensor([ 2, -2])
""",
    numbers=True,
)


def _integer_inplace(fn: Any) -> Any:
    def method(self: Tensor, other: Any) -> Tensor:
        return _write_back(self, fn, other)

    method.__name__ = method.__qualname__ = f"{fn.__name__}_"
    method.__doc__ = f"In-place ``{fn.__name__}``."
    return method


for _fn in (gcd, lcm):
    register(
        _fn.__name__,
        _fn,
        differentiable=False,
        samples=lambda rng: [
            Sample((np.array([4, 6, -8, 0]), np.array([6, 9, 12, 5]))),
            Sample((np.array([[4], [6]]), np.array([6, 9]))),
        ],
    )


for _fn in (bitwise_left_shift, bitwise_right_shift):
    register(
        _fn.__name__,
        _fn,
        differentiable=False,
        samples=lambda rng: [
            Sample((np.array([1, 2, -8]), np.array([2, 1, 1]))),
            Sample((np.array([1, 2, -8]), 2)),
            Sample((np.array([1, 2], dtype=np.uint8), np.array([3, 1], dtype=np.uint8))),
        ],
    )


def _reflected(fn: Any, name: str) -> Any:
    def method(self: Tensor, other: Any) -> Tensor:
        return fn(other, self)

    method.__name__ = method.__qualname__ = name
    return method


TENSOR_METHODS: dict[str, Any] = {
    "gcd_": _integer_inplace(gcd),
    "lcm_": _integer_inplace(lcm),
    "bitwise_left_shift_": _integer_inplace(bitwise_left_shift),
    "bitwise_right_shift_": _integer_inplace(bitwise_right_shift),
    # The operators (PyTorch's ``__lshift__`` ... run the same kernels).
    "__lshift__": bitwise_left_shift,
    "__rlshift__": _reflected(bitwise_left_shift, "__rlshift__"),
    "__ilshift__": _integer_inplace(bitwise_left_shift),
    "__rshift__": bitwise_right_shift,
    "__rrshift__": _reflected(bitwise_right_shift, "__rrshift__"),
    "__irshift__": _integer_inplace(bitwise_right_shift),
}
