"""Elementwise ops on integers: gcd, lcm and the bit shifts ``bitwise_left_shift`` /
``bitwise_right_shift`` (with their in-place forms); integer results, no gradient.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .._dtype import scalar_type_name
from .._tensor import Tensor
from ..autograd.op import Op, apply_inplace
from ._common import binary_operands, check_tensor, is_scalar
from ._not_implemented import _binary
from ._registry import Sample, register


class _IntegerKernel(Op):
    """One of PyTorch's integral TensorIterator kernels (no derivative): its operands
    promoted together, then refused unless the common dtype is an integer one (bool
    included: ``"lshift_cpu" not implemented for 'Bool'``). In place, a source in the
    target's memory is read as the kernel reads it (autograd/kernel_order.py)."""

    name: str
    kernel: str
    ufunc: Any

    pointwise = True
    differentiable = False

    def forward(self, a: Any, b: Any) -> Any:
        a, b = binary_operands(a, b)
        dtype = (a if isinstance(a, np.ndarray) else b).dtype
        if dtype.kind not in "iu":
            raise NotImplementedError(
                f"\"{self.kernel}_cpu\" not implemented for '{scalar_type_name(dtype)}'"
            )
        return _binary(self.name, a, b, self.ufunc)


def _integer_op(
    name: str, ufunc: Any, kernel: str, vector_bits: int, doc: str, numbers: bool = False
) -> Any:
    """The function of an integral kernel (``vector_bits``: its vectorized loop's width,
    0 for ``cpu_kernel`` without one). ``numbers``: a Python number is taken for either
    operand (the shifts' Scalar overloads; gcd and lcm take tensors only)."""
    node = type(
        f"_{kernel.capitalize()}Kernel",
        (_IntegerKernel,),
        {"name": name, "kernel": kernel, "ufunc": ufunc, "vector_bits": vector_bits},
    )

    def op(input: Any, other: Any) -> Tensor:
        if not (numbers and is_scalar(input) and isinstance(other, Tensor)):
            check_tensor(input, name)
        if not (numbers and is_scalar(other)):
            check_tensor(other, name, "other", 2)
        a = input._data if isinstance(input, Tensor) else input
        b = other._data if isinstance(other, Tensor) else other
        return Tensor._from_array(node.__new__(node).forward(a, b))

    def inplace(self: Tensor, other: Any) -> Tensor:
        check_tensor(self, f"{name}_")
        if not (numbers and is_scalar(other)):
            check_tensor(other, f"{name}_", "other", 2)
        return apply_inplace(node, self, other)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc
    inplace.__name__ = inplace.__qualname__ = f"{name}_"
    inplace.__doc__ = f"In-place ``{name}``."
    op.inplace = inplace  # type: ignore[attr-defined]
    return op


gcd: Callable[..., Any] = _integer_op(
    "gcd",
    np.gcd,
    "gcd",
    0,
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
    0,
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
    256,
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
    256,
    """``input >> other``, elementwise (integers; arithmetic shift for signed ones).

Example::

    >>> glassgrad.bitwise_right_shift(glassgrad.tensor([8, -8]), 2)
    tensor([ 2, -2])
""",
    numbers=True,
)


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
    "gcd_": gcd.inplace,
    "lcm_": lcm.inplace,
    "bitwise_left_shift_": bitwise_left_shift.inplace,
    "bitwise_right_shift_": bitwise_right_shift.inplace,
    # The operators (PyTorch's ``__lshift__`` ... run the same kernels).
    "__lshift__": bitwise_left_shift,
    "__rlshift__": _reflected(bitwise_left_shift, "__rlshift__"),
    "__ilshift__": bitwise_left_shift.inplace,
    "__rshift__": bitwise_right_shift,
    "__rrshift__": _reflected(bitwise_right_shift, "__rrshift__"),
    "__irshift__": bitwise_right_shift.inplace,
}
