"""Logical and bitwise ops, the predicates isnan/isinf/isfinite/isclose/allclose, and the operators
``& | ^ ~`` (with their reflected and in-place forms). None has a gradient: results are bool
(logical, predicates) or the operands' integer/bool type (bitwise), as in PyTorch.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .._dtype import scalar_type_name
from .._tensor import Tensor
from ..autograd.op import Op, apply_inplace
from ._common import array_of, binary_operands, check_tensor, infer_size, is_scalar
from ._not_implemented import _binary, _check_tensor_other, _not_implemented_for
from ._registry import NoGrad, Sample, register
from ._samples import randn
from .clamping import _with_specials


def _as_bool_result(values: np.ndarray) -> Tensor:
    return Tensor._from_array(np.asarray(values, dtype=np.bool_))


def _logical(name: str, ufunc: Any, symbol: str) -> Any:
    def op(input: Tensor, other: Tensor) -> Tensor:
        check_tensor(input, name)
        _check_tensor_other(other, name)
        return _as_bool_result(_binary(name, input._data, other._data, ufunc))

    op.__name__ = op.__qualname__ = name
    op.__doc__ = (
        f"Elementwise ``input {symbol} other`` on truth values (nonzero is True), as a bool "
        f"tensor.\n\nExample::\n\n    >>> a, b = glassgrad.tensor([0, 1]), glassgrad.tensor([1, 1])\n"
        f"    >>> glassgrad.{name}(a, b)\n"
    )
    return op


logical_and: Callable[..., Any] = _logical("logical_and", np.logical_and, "and")
logical_or: Callable[..., Any] = _logical("logical_or", np.logical_or, "or")
logical_xor: Callable[..., Any] = _logical("logical_xor", np.logical_xor, "xor")


def logical_not(input: Tensor) -> Tensor:
    """Elementwise ``not input`` (zero is False); a bool tensor.

    Example::

        >>> glassgrad.logical_not(glassgrad.tensor([0.0, 2.0]))
        tensor([ True, False])
    """
    return _as_bool_result(np.logical_not(check_tensor(input, "logical_not")._data))


def isnan(input: Tensor) -> Tensor:
    """Elementwise: is the value NaN? (a bool tensor; integers are never NaN)

    Example::

        >>> glassgrad.isnan(glassgrad.tensor([1.0, float("nan")]))
        tensor([False,  True])
    """
    return _as_bool_result(np.isnan(_float_view(check_tensor(input, "isnan")._data)))


def isinf(input: Tensor) -> Tensor:
    """Elementwise: is the value +inf or -inf? (a bool tensor)

    Example::

        >>> glassgrad.isinf(glassgrad.tensor([1.0, float("-inf")]))
        tensor([False,  True])
    """
    return _as_bool_result(np.isinf(_float_view(check_tensor(input, "isinf")._data)))


def isfinite(input: Tensor) -> Tensor:
    """Elementwise: is the value neither NaN nor infinite? (a bool tensor)

    Example::

        >>> glassgrad.isfinite(glassgrad.tensor([1.0, float("inf")]))
        tensor([ True, False])
    """
    return _as_bool_result(np.isfinite(_float_view(check_tensor(input, "isfinite")._data)))


def isclose(
    input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False
) -> Tensor:
    """Elementwise ``|input - other| <= atol + rtol * |other|`` (a bool tensor); infinities
    are close only to themselves, NaNs to each other only with ``equal_nan``.

    Example::

        >>> glassgrad.isclose(glassgrad.tensor([1.0, 2.0]), glassgrad.tensor([1.0, 2.1]))
        tensor([ True, False])
    """
    a = check_tensor(input, "isclose")._data
    b = check_tensor(other, "isclose")._data
    if a.dtype != b.dtype:
        raise RuntimeError(f"{scalar_type_name(a.dtype)} did not match {scalar_type_name(b.dtype)}")
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {rtol}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {atol}")
    shape = infer_size(a.shape, b.shape)
    if a.dtype.kind == "b":
        return _as_bool_result(np.broadcast_to(a == b, shape).copy())  # writable, as PyTorch's
    return _as_bool_result(np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))


def allclose(
    input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False
) -> bool:
    """True if every element of ``input`` is close to ``other`` (see ``isclose``).

    Example::

        >>> glassgrad.allclose(glassgrad.tensor([1.0]), glassgrad.tensor([1.0 + 1e-9]))
        True
    """
    return bool(isclose(input, other, rtol, atol, equal_nan)._data.all())


def _float_view(values: np.ndarray) -> np.ndarray:
    # Integers and bools have no NaN or infinity: test zeros of the same shape.
    return values if values.dtype.kind == "f" else np.zeros(values.shape)


def _bitwise_operands(kernel: str, a: Any, b: Any) -> tuple:
    a, b = binary_operands(a, b)
    dtype = np.result_type(a, b) if not (is_scalar(a) or is_scalar(b)) else _array_dtype(a, b)
    if dtype.kind not in "biu":
        raise _not_implemented_for(kernel, dtype)
    return a, b


def _array_dtype(a: Any, b: Any) -> np.dtype:
    ref = a if isinstance(a, np.ndarray) else b
    if isinstance(ref, np.ndarray):
        return ref.dtype
    return np.result_type(type(a), type(b))


def _bitwise(name: str, ufunc: Any, symbol: str) -> Any:
    kernel = f"{name}_cpu"

    def op(input: Any, other: Any) -> Tensor:
        if not isinstance(input, Tensor):
            if not is_scalar(input):  # a number is PyTorch's Scalar overload; nothing else
                check_tensor(input, name)
            _check_tensor_other(other, name)
        elif not isinstance(other, Tensor) and not is_scalar(other):
            _check_tensor_other(other, name)
        a, b = _bitwise_operands(kernel, array_of(input), array_of(other))
        return Tensor._from_array(_binary(name, a, b, ufunc))

    op.__name__ = op.__qualname__ = name
    op.__doc__ = (
        f"Elementwise bitwise ``input {symbol} other`` on integer or bool tensors (logical on "
        f"bools).\n\nExample::\n\n    >>> glassgrad.{name}(glassgrad.tensor([12]), 10)\n"
    )
    return op


bitwise_and: Callable[..., Any] = _bitwise("bitwise_and", np.bitwise_and, "&")
bitwise_or: Callable[..., Any] = _bitwise("bitwise_or", np.bitwise_or, "|")
bitwise_xor: Callable[..., Any] = _bitwise("bitwise_xor", np.bitwise_xor, "^")


def bitwise_not(input: Tensor) -> Tensor:
    """Elementwise bitwise NOT of an integer tensor (logical NOT of a bool tensor).

    Example::

        >>> glassgrad.bitwise_not(glassgrad.tensor([0, 5]))
        tensor([-1, -6])
    """
    values = check_tensor(input, "bitwise_not")._data
    if values.dtype.kind not in "biu":
        raise _not_implemented_for("bitwise_not_cpu", values.dtype)
    return Tensor._from_array(np.invert(values))


def _invert(self: Tensor) -> Tensor:
    if self._data.dtype.kind not in "biu":
        raise TypeError(
            "~ (operator.invert) is only implemented on integer and Boolean-type tensors"
        )
    return bitwise_not(self)


def _reflected(fn: Any) -> Any:
    def method(self: Tensor, other: Any) -> Tensor:
        return fn(other, self)

    method.__name__ = method.__qualname__ = f"__r{fn.__name__.split('_')[1]}__"
    return method


class _NoGradient(Op):
    """Base of the in-place logical/bitwise writers: their results carry no gradient. The
    logical ones are outside autograd altogether (PyTorch's DONT_REQUIRE_DERIVATIVE); the
    bitwise ones still refuse to write into a leaf that requires grad."""

    differentiable = False

    def backward(self, F: Any, grad: Any) -> Any:
        return tuple(None for _ in self.next_functions)


def _writer(
    name: str, compute: Any, binary: bool = True, checks_inplace: bool = False, vector_bits: int = 0
) -> Any:
    """The in-place method ``<name>_(self[, other])`` writing ``compute``'s result: a
    TensorIterator kernel in PyTorch (``vector_bits``: 0 for the logical ones, which have no
    vectorized loop; autograd/kernel_order.py)."""
    attributes = {
        "__slots__": (),
        "forward": compute,
        "checks_inplace": checks_inplace,
        "pointwise": True,
        "vector_bits": vector_bits,
    }
    node = type(name, (_NoGradient,), attributes)
    if binary:

        def method(self: Tensor, other: Any) -> Tensor:
            return apply_inplace(node, self, other)

    else:

        def method(self: Tensor) -> Tensor:
            return apply_inplace(node, self)

    method.__name__ = method.__qualname__ = f"{name}_"
    method.__doc__ = f"In-place version of ``{name}``."
    return method


def _logical_compute(fn: Any) -> Any:
    return lambda self, a, b: np.asarray(fn(Tensor._from_array(a), _tensor_of(b))._data)


def _tensor_of(value: Any) -> Tensor:
    return Tensor._from_array(np.asarray(value)) if not isinstance(value, Tensor) else value


def _bitwise_compute(fn: Any) -> Any:
    def compute(self: Any, a: np.ndarray, b: Any) -> np.ndarray:
        if not (is_scalar(b) or isinstance(b, np.ndarray)):  # a tensor's array, or a number
            check_tensor(b, f"{fn.__name__}_", "other", 2)
        return np.asarray(fn(Tensor._from_array(a), b if is_scalar(b) else _tensor_of(b))._data)

    return compute


def _binary_samples_of(make: Any) -> Any:
    return lambda rng: [
        Sample((make(rng, 3, 4), make(rng, 3, 4)), grad=False),
        Sample((make(rng, 3, 1), make(rng, 1, 4)), grad=False),
        Sample((make(rng, 0, 3), make(rng, 3)), grad=False),
    ]


def _bools(rng: np.random.Generator, *shape: int) -> np.ndarray:
    return rng.random(shape) < 0.5


def _small_ints(rng: np.random.Generator, *shape: int) -> np.ndarray:
    return rng.integers(-3, 4, size=shape)


def _logical_samples(rng: np.random.Generator) -> list[Sample]:
    return [
        *_binary_samples_of(_bools)(rng),
        Sample((_small_ints(rng, 3, 4), _bools(rng, 4)), grad=False),
        Sample((NoGrad(np.round(randn(rng, 3, 4))), _small_ints(rng, 3, 4)), grad=False),
    ]


def _bitwise_samples(rng: np.random.Generator) -> list[Sample]:
    return [
        *_binary_samples_of(_small_ints)(rng),
        *_binary_samples_of(_bools)(rng),
        Sample((_small_ints(rng, 3, 4), _bools(rng, 4)), grad=False),
        Sample((_small_ints(rng, 5), 6), grad=False),
        Sample((_bools(rng, 5), True), grad=False),
    ]


def _predicate_samples(rng: np.random.Generator) -> list[Sample]:
    return [
        Sample((NoGrad(_with_specials(rng)),), grad=False),
        Sample((_small_ints(rng, 4),), grad=False),
        Sample((_bools(rng, 4),), grad=False),
        Sample((NoGrad(randn(rng, 0, 2)),), grad=False),
    ]


for _fn in (logical_and, logical_or, logical_xor):
    register(_fn.__name__, _fn, differentiable=False, samples=_logical_samples)
register(
    "logical_not",
    logical_not,
    differentiable=False,
    samples=lambda rng: [
        Sample((_bools(rng, 3, 4),), grad=False),
        Sample((_small_ints(rng, 5),), grad=False),
        Sample((NoGrad(np.round(randn(rng, 4))),), grad=False),
    ],
)
for _fn in (isnan, isinf, isfinite):
    register(_fn.__name__, _fn, differentiable=False, samples=_predicate_samples)


def _isclose_samples(rng: np.random.Generator) -> list[Sample]:
    a = _with_specials(rng)
    near = a + 1e-6 * randn(rng, *a.shape)
    return [
        Sample((NoGrad(a), NoGrad(near)), grad=False),
        Sample((NoGrad(a), NoGrad(near)), {"rtol": 0.0, "atol": 1e-7}, grad=False),
        Sample((NoGrad(a), NoGrad(a)), {"equal_nan": True}, grad=False),
        Sample((NoGrad(randn(rng, 3, 1)), NoGrad(randn(rng, 4))), grad=False),
        Sample((_small_ints(rng, 5), _small_ints(rng, 5)), grad=False),
        Sample((_bools(rng, 4), _bools(rng, 4)), grad=False),
    ]


register("isclose", isclose, differentiable=False, samples=_isclose_samples)
# A Python bool, not a tensor: tests/ops/test_comparison.py compares it with PyTorch's.
register("allclose", allclose, differentiable=False)
register(
    "bitwise_and",
    bitwise_and,
    methods=("bitwise_and", "__and__"),
    differentiable=False,
    samples=_bitwise_samples,
)
register(
    "bitwise_or",
    bitwise_or,
    methods=("bitwise_or", "__or__"),
    differentiable=False,
    samples=_bitwise_samples,
)
register(
    "bitwise_xor",
    bitwise_xor,
    methods=("bitwise_xor", "__xor__"),
    differentiable=False,
    samples=_bitwise_samples,
)
register(
    "bitwise_not",
    bitwise_not,
    differentiable=False,
    samples=lambda rng: [
        Sample((_small_ints(rng, 3, 4),), grad=False),
        Sample((_bools(rng, 5),), grad=False),
    ],
)


def _bitwise_writers(name: str, fn: Any) -> tuple:
    """``bitwise_<op>_`` (which refuses a leaf that requires grad, as PyTorch checks it) and
    ``__i<op>__`` (outside autograd in PyTorch: no check)."""
    compute = _bitwise_compute(fn)
    checked = _writer(name, compute, checks_inplace=True, vector_bits=256)
    return checked, _writer(name, compute, vector_bits=256)


_bitwise_and_inplace, _iand = _bitwise_writers("bitwise_and", bitwise_and)
_bitwise_or_inplace, _ior = _bitwise_writers("bitwise_or", bitwise_or)
_bitwise_xor_inplace, _ixor = _bitwise_writers("bitwise_xor", bitwise_xor)

TENSOR_METHODS: dict[str, Any] = {
    "logical_and_": _writer("logical_and", _logical_compute(logical_and)),
    "logical_or_": _writer("logical_or", _logical_compute(logical_or)),
    "logical_xor_": _writer("logical_xor", _logical_compute(logical_xor)),
    "logical_not_": _writer(
        "logical_not",
        lambda self, a: np.asarray(logical_not(Tensor._from_array(a))._data),
        binary=False,
    ),
    "bitwise_and_": _bitwise_and_inplace,
    "bitwise_or_": _bitwise_or_inplace,
    "bitwise_xor_": _bitwise_xor_inplace,
    "bitwise_not_": _writer(
        "bitwise_not",
        lambda self, a: np.asarray(bitwise_not(Tensor._from_array(a))._data),
        binary=False,
        checks_inplace=True,
    ),
    "__iand__": _iand,
    "__ior__": _ior,
    "__ixor__": _ixor,
    "__rand__": _reflected(bitwise_and),
    "__ror__": _reflected(bitwise_or),
    "__rxor__": _reflected(bitwise_xor),
    "__invert__": _invert,
}
