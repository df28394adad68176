"""Comparisons: the elementwise eq, ne, lt, le, gt, ge (bool results, no gradient), equal (a
Python bool, as in PyTorch), isin, and the in-place comparisons ``eq_``, ``lt_`` ... (isclose
and allclose are in ``logical``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .._dtype import result_numpy_dtype, scalar_type_name
from .._strides import like_operands
from .._tensor import Tensor
from ..autograd.op import Op, apply_inplace
from ._common import (
    binary_operands,
    broadcast_error,
    check_tensor,
    operand_array,
)
from ._not_implemented import any_complex, refuse_complex
from ._registry import NoGrad, Sample, register
from ._samples import (
    randn,
)

# --- comparisons (no gradient) -------------------------------------------------------------


# PyTorch orders real numbers only: its lt/le/gt/ge kernels have no complex case.
_ORDERED = ("lt", "le", "gt", "ge")


def _compare(name: str, ufunc: Any, symbol: str) -> Any:
    def op(input: Tensor, other: Any) -> Tensor:
        a, b = check_tensor(input, name)._data, _raw(other)
        if name in _ORDERED:
            refuse_complex(f"{name}_cpu", a, b)
        a, b = binary_operands(a, b)
        try:
            result = ufunc(a, b)
        except ValueError:
            raise broadcast_error(name, a, b) from None
        # TensorIterator's layout: the ufunc's is row-major for operands in conflicting ones
        return Tensor._from_array(like_operands(np.asarray(result), (a, b)))

    op.__name__ = op.__qualname__ = name
    op.__doc__ = (
        f"Elementwise ``input {symbol} other`` as a bool tensor (no gradient).\n\n"
        f"Example::\n\n    >>> glassgrad.{name}(glassgrad.tensor([1, 2]), 2)\n"
    )
    return op


def _raw(x: Any) -> Any:
    return x._data if isinstance(x, Tensor) else x


eq: Callable[..., Any] = _compare("eq", np.equal, "==")


ne: Callable[..., Any] = _compare("ne", np.not_equal, "!=")


lt: Callable[..., Any] = _compare("lt", np.less, "<")


le: Callable[..., Any] = _compare("le", np.less_equal, "<=")


gt: Callable[..., Any] = _compare("gt", np.greater, ">")


ge: Callable[..., Any] = _compare("ge", np.greater_equal, ">=")


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


def equal(input: Tensor, other: Tensor) -> bool:
    """True if both tensors have the same shape and the same values (compared after type
    promotion; NaN never equals NaN).

    Example::

        >>> glassgrad.equal(glassgrad.tensor([1, 2]), glassgrad.tensor([1.0, 2.0]))
        True
    """
    check_tensor(input, "equal")
    check_tensor(other, "equal", "other", 2)
    a, b = input._data, other._data
    if a.shape != b.shape:
        return False
    dtype = result_numpy_dtype((a, b))
    return bool(np.array_equal(a.astype(dtype, copy=False), b.astype(dtype, copy=False)))


def isin(
    elements: Any = None,
    test_elements: Any = None,
    *,
    assume_unique: bool = False,
    invert: bool = False,
    element: Any = None,
    test_element: Any = None,
) -> Tensor:
    """Elementwise: is the element among ``test_elements``? (either may be a number, named
    ``element`` / ``test_element`` as in PyTorch's overloads for numbers)

    Example::

        >>> glassgrad.isin(glassgrad.tensor([1, 2, 3]), glassgrad.tensor([2, 5]))
        tensor([False,  True, False])
    """
    if element is not None:
        elements = element
    if test_element is not None:
        test_elements = test_element
    if elements is None or test_elements is None:
        raise TypeError("isin() missing required arguments 'elements' and 'test_elements'")
    if not isinstance(elements, Tensor) and not isinstance(test_elements, Tensor):
        raise TypeError("isin() received an invalid combination of arguments: no Tensor given")
    a = operand_array(elements, "isin", "elements", 1)
    b = operand_array(test_elements, "isin", "test_elements", 2)
    if any_complex(a, b):
        raise RuntimeError(
            "Unsupported input type encountered for isin(): "
            + scalar_type_name(result_numpy_dtype((_raw(elements), _raw(test_elements))))
        )
    return Tensor._from_array(np.asarray(np.isin(a, b, invert=invert)))


class _CompareInplace(Op):
    """x.gt_(other) and friends: the comparison written into ``x`` as 0/1 of its dtype; the
    gradient is zero (PyTorch records the op with ``zeros_like`` derivatives)."""

    ufunc: Any = None
    comparison = ""  # lt, le ... (name() is the node's)
    promotes_result = False
    pointwise = True  # a TensorIterator kernel in PyTorch (autograd/kernel_order.py)

    def forward(self, x: Any, other: Any) -> Any:
        if type(self).comparison in _ORDERED:
            refuse_complex(f"{type(self).comparison}_cpu", x, other)
        a, b = binary_operands(x, other)
        return np.asarray(type(self).ufunc(a, b)).astype(x.dtype)

    def backward(self, F: Any, grad: Any) -> Any:
        meta = self._meta
        zeros = [
            F.zeros(meta[2 * k], meta[2 * k + 1]) if meta[2 * k] is not None else None
            for k in range(len(self._next_nodes))
        ]
        return tuple(zeros)


def _compare_inplace(name: str, ufunc: Any) -> Any:
    # PyTorch's nodes: ...Backward0 with a number, ...Backward1 with a tensor.
    nodes = [
        type(
            f"{name.capitalize()}Backward{k}",
            (_CompareInplace,),
            {"ufunc": staticmethod(ufunc), "comparison": name},
        )
        for k in (0, 1)
    ]

    def method(self: Tensor, other: Any) -> Tensor:
        return apply_inplace(nodes[isinstance(other, Tensor)], self, other)

    method.__name__ = method.__qualname__ = f"{name}_"
    method.__doc__ = f"In-place ``{name}``: ``self`` becomes 1 where it holds, else 0."
    return method


TENSOR_METHODS: dict[str, Any] = {"equal": equal}
TENSOR_METHODS |= {
    f"{name}_": _compare_inplace(name, ufunc)
    for name, ufunc in (
        ("eq", np.equal),
        ("ne", np.not_equal),
        ("lt", np.less),
        ("le", np.less_equal),
        ("gt", np.greater),
        ("ge", np.greater_equal),
    )
}


register(
    "isin",
    isin,
    differentiable=False,
    methods=(),
    samples=lambda rng: [
        Sample((np.array([[1, 2, 3], [4, 5, 2]]), np.array([2, 5]))),
        Sample((np.array([1, 2, 3]), np.array([2, 5])), {"invert": True}),
        Sample((np.array([1, 2, 3]), 2)),
        Sample((2, np.array([2, 5]))),
        Sample((NoGrad(np.array([1.0, 2.5, np.nan])), NoGrad(np.array([2.5, np.nan])))),
        Sample((NoGrad(np.array([1.0, 2.0, 3.0])), np.array([2, 5]))),
    ],
)
