"""Helpers shared by op modules: argument checks, PyTorch's type promotion, dims."""

from __future__ import annotations

import inspect
import numbers
from typing import Any

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from .._add_kernel import scaled  # noqa: F401 - re-exported for op modules
from .._dtype import (
    default_numpy_float,
    is_scalar_argument,
    result_numpy_dtype,
    scalar_type_name,
)
from .._strides import iterator_order, like_operands
from .._tensor import Tensor, wrap_dim  # noqa: F401 - re-exported for op modules
from ..autograd.kernel_order import stopped


def check_tensor(x: Any, op: str, arg: str = "input", position: int = 1) -> Tensor:
    """``x`` if it is a Tensor, else PyTorch's TypeError naming the op and the argument."""
    if not isinstance(x, Tensor):
        raise TypeError(
            f"{op}(): argument '{arg}' (position {position}) must be Tensor, not {type(x).__name__}"
        )
    return x


def number_or_tensor(input: Any, other: Any, op: str) -> Any:
    """``input`` of add, sub, mul, div, true_divide or floor_divide, where PyTorch also takes
    a Python number (its ``should_allow_numbers_as_tensors``): beside a tensor ``other`` the
    number stays a scalar operand (promoted as one); with two numbers it becomes a 0-d
    tensor of PyTorch's dtype for it (bool, int64 or the default float)."""
    if isinstance(input, Tensor) or not isinstance(input, (int, float)):
        return check_tensor(input, op)
    if isinstance(other, Tensor):
        return input
    if isinstance(input, bool):
        return Tensor._from_array(np.asarray(input))
    dtype = np.int64 if isinstance(input, int) else default_numpy_float()
    return Tensor._from_array(np.asarray(input, dtype=dtype))


def is_scalar(x: Any) -> bool:
    return isinstance(x, (int, float, bool, np.number, np.bool_))


def operand_array(value: Any, op: str, argument: str, position: int) -> np.ndarray:
    """A Tensor argument's array, or a number's 0-d array (an array as it is: glassgrad's
    own callers pass them): anything else (a list, tuple or str, which ``np.asarray`` would
    take) is the TypeError of PyTorch's parser."""
    if isinstance(value, Tensor):
        return value._data
    if isinstance(value, np.ndarray) or is_scalar(value) or isinstance(value, complex):
        return np.asarray(value)
    raise TypeError(
        f"{op}(): argument '{argument}' (position {position}) must be Tensor, not "
        f"{type(value).__name__}"
    )


def check_numbers(op: str, optional: bool = False, **arguments: Any) -> None:
    """PyTorch's parser for ``op``'s Number arguments (a number or a 0-d tensor that does not
    require grad; None too if ``optional``): anything else (a tuple, list or str, which NumPy
    would broadcast or refuse otherwise) is its TypeError, before the autograd checks and the
    kernel."""
    for name, value in arguments.items():
        if not (is_scalar_argument(value) or (optional and value is None)):
            raise TypeError(f"{op}(): argument '{name}' must be Number, not {type(value).__name__}")


def binary_operands(a: Any, b: Any) -> tuple[Any, ...]:
    """The two operands (arrays or Python scalars) cast to PyTorch's result dtype."""
    ta, tb = type(a), type(b)
    if ta is tb is np.ndarray and a.dtype is b.dtype:  # the common case first
        return a, b
    if ta is np.ndarray:
        if tb is np.ndarray:
            if a.dtype is b.dtype or a.dtype == b.dtype:
                return a, b
        elif tb is float:
            if a.dtype.kind == "f":
                return a, b
        elif tb is int and a.dtype.kind in "fi":
            return a, b
    elif tb is np.ndarray:
        if ta is float:
            if b.dtype.kind == "f":
                return a, b
        elif ta is int and b.dtype.kind in "fi":
            return a, b
    dtype = result_numpy_dtype((a, b))
    return cast_operand(a, dtype), cast_operand(b, dtype)


_FLOAT32, _FLOAT64 = np.dtype(np.float32), np.dtype(np.float64)


def float_array_and_number(a: Any, b: Any) -> bool:
    """``x * 1.0001``, ``x + 2``: a float32/float64 array and a Python float or int, which
    PyTorch's promotion leaves as they are (``binary_operands`` and ``floating_operands``
    return them unchanged); a cheaper test than either call, for the hot path."""
    return (
        (type(b) is float or type(b) is int)
        and type(a) is np.ndarray
        and (a.dtype is _FLOAT32 or a.dtype is _FLOAT64)
    )


def cast_operand(x: Any, dtype: np.dtype) -> Any:
    if isinstance(x, np.ndarray):
        return x if x.dtype == dtype else x.astype(dtype)
    if isinstance(x, (np.number, np.bool_)):
        return np.asarray(x, dtype=dtype)
    if dtype.kind == "f":
        return float(x)
    if dtype.kind in "iu":
        return int(x)
    return x


def floating_operands(a: Any, b: Any) -> tuple[Any, ...]:
    """Like ``binary_operands``, but integer results are computed in the default float type."""
    a, b = binary_operands(a, b)
    ref = a if isinstance(a, np.ndarray) else b
    if isinstance(ref, np.ndarray) and ref.dtype.kind not in "fc":
        dtype = default_numpy_float()
        return cast_operand(a, dtype), cast_operand(b, dtype)
    return a, b


def infer_size(a: tuple, b: tuple) -> tuple:
    """The broadcast of shapes ``a`` and ``b``, or PyTorch's ``infer_size`` error."""
    for i, (m, n) in enumerate(zip(reversed(a), reversed(b))):
        if m != n and m != 1 and n != 1:
            raise RuntimeError(
                f"The size of tensor a ({m}) must match the size of tensor b ({n}) at "
                f"non-singleton dimension {max(len(a), len(b)) - 1 - i}"
            )
    return np.broadcast_shapes(a, b)


def broadcast_error(op: str, a: Any, b: Any) -> RuntimeError:
    """PyTorch's message for operands that do not broadcast, with the op and both shapes."""
    sa, sb = np.shape(a), np.shape(b)
    message = f"{op}: shapes {list(sa)} and {list(sb)} cannot be broadcast together"
    for i in range(1, min(len(sa), len(sb)) + 1):
        if sa[-i] != sb[-i] and sa[-i] != 1 and sb[-i] != 1:
            message = (
                f"{op}: The size of tensor a ({sa[-i]}) must match the size of tensor b "
                f"({sb[-i]}) at non-singleton dimension {max(len(sa), len(sb)) - i} "
                f"(shapes {list(sa)} and {list(sb)})"
            )
            break
    return RuntimeError(message)


def wrap_dims(dim: Any, ndim: int, op: str) -> tuple | None:
    """A dim or sequence of dims (None: all) as a sorted tuple of non-negative indices."""
    if dim is None:
        return None
    dims = (dim,) if isinstance(dim, (int, np.integer)) else tuple(dim)
    wrapped = tuple(sorted(wrap_dim(d, ndim, op) if ndim else 0 for d in dims))
    if len(set(wrapped)) != len(wrapped):
        raise RuntimeError(f"{op}: dim {wrapped} appears multiple times in the list of dims")
    return wrapped if ndim else ()


def array_of(x: Any) -> Any:
    """The NumPy values behind a Tensor (for masks and shapes in backward formulas, which
    get arrays or Tensors); arrays and numbers as they are."""
    return x._data if isinstance(x, Tensor) else x


def sum_defined(a: Any, b: Any) -> Any:
    """``a + b`` of two gradient terms, either of which may be undefined (None): the terms of
    an undefined output gradient are left out, as PyTorch's formulas leave them."""
    return b if a is None else a if b is None else a + b


def input_zeros(F: Any, node: Any, k: int) -> Any:
    """PyTorch's ``zeros_like(self)`` for input ``k`` of a recorded ``node`` (a pooling or
    padding backward's input, which it takes only for its shape): constant zeros."""
    meta = node._meta
    return F.zeros(meta[2 * k], meta[2 * k + 1])


def zeros_like_grad(F: Any, grad: Any) -> Any:
    """A zero gradient that is constant (no graph, no NaN from an infinite ``grad``), as
    PyTorch's ``zeros_like(grad)`` in a derivative formula."""
    data = array_of(grad)
    return F.zeros(np.shape(data), np.asarray(data).dtype)


def float_kernel(x: np.ndarray, fn: Any, kernel: str) -> np.ndarray:
    """``fn`` of ``x``'s values in x's float dtype (integers and bools in the default float):
    the forward of a real pointwise op computed by a NumPy or SciPy kernel, in x's memory
    layout as PyTorch's TensorIterator gives it. A complex ``x`` raises the
    NotImplementedError of PyTorch's ``kernel``, which has no complex case."""
    if x.dtype.kind == "c":
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{scalar_type_name(x.dtype)}'")
    if x.dtype.kind != "f":
        x = x.astype(default_numpy_float())
    return like_operands(np.asarray(fn(x)).astype(x.dtype, copy=False), (x,))


def varargs_or_keyword(op: str, args: tuple, value: Any, name: str) -> tuple[Any, ...]:
    """Values given as varargs (``repeat(2, 2)``) or by the keyword PyTorch's other overload
    names them by (``repeats=(2, 2)``), as a tuple of the positional form."""
    if value is None:
        return args
    if args:
        raise TypeError(f"{op}() got multiple values for argument '{name}'")
    return (value,)


def remember(cache: dict, key: Any, value: Any, limit: int) -> Any:
    """``value``, stored in ``cache`` under ``key``; the oldest entries beyond ``limit`` are
    dropped (a bounded cache of per-geometry constants: a dict keeps insertion order)."""
    cache[key] = value
    while len(cache) > limit:
        cache.pop(next(iter(cache)))
    return value


_ALONG: dict = {}  # (shape, axis) -> the other dims' broadcast aranges (oldest first)


def moveaxis(a: np.ndarray, source: int, destination: int) -> np.ndarray:
    """``np.moveaxis`` of one axis (the same view, the same AxisError) without its Python
    argument handling, which costs more than the gathers and scans of a small array."""
    source = normalize_axis_index(source, a.ndim, "source")
    order = [n for n in range(a.ndim) if n != source]
    order.insert(normalize_axis_index(destination, a.ndim, "destination"), source)
    return a.transpose(order)


def take_along_axis(arr: np.ndarray, indices: np.ndarray, axis: int) -> np.ndarray:
    """``np.take_along_axis(arr, indices, axis)``: the same fancy index, its aranges for the
    other dims cached per shape (NumPy builds them in Python on every call, several
    microseconds, more than the gather itself on small arrays).

    Example::

        >>> take_along_axis(np.array([[3, 1], [2, 4]]), np.array([[1], [0]]), 1)
        array([[1],
               [2]])
    """
    ndim = arr.ndim
    if ndim == 0 or indices.ndim != ndim or indices.dtype.kind not in "iu":
        return np.take_along_axis(arr, indices, axis)  # NumPy's errors
    axis = axis % ndim
    if ndim == 1:
        return arr[(indices,)]
    key = (arr.shape, axis)
    aranges = _ALONG.get(key)
    if aranges is None:
        aranges = tuple(
            np.arange(n).reshape((1,) * d + (-1,) + (1,) * (ndim - d - 1))
            for d, n in enumerate(arr.shape)
        )
        remember(_ALONG, key, aranges, 64)
    return arr[(*aranges[:axis], indices, *aranges[axis + 1 :])]


def sgn_array(z: np.ndarray) -> np.ndarray:
    """PyTorch's ``sgn`` (``sign`` for real values): NumPy's sign, but 0 for a real NaN as
    ATen's ``(0 < x) - (x < 0)`` gives (abs's gradient at NaN is then 0); bools are their
    own sign. A complex z is ATen's scalar loop, the complex division ``z / (|z| + 0j)`` (0 at
    0): NaN + NaNj at an infinite part, where NumPy's sign gives the unit direction."""
    if z.dtype == np.bool_:
        return z.copy()
    if z.dtype.kind == "c":
        with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
            quotient = z / np.abs(z).astype(z.dtype)
        return np.where(z == 0, z.dtype.type(0), quotient)
    out = np.sign(z)
    if out.dtype.kind == "f" and np.isnan(out).any():
        out = np.where(np.isnan(out), out.dtype.type(0), out)
    return out


# PyTorch's binary operators (TypeError_to_NotImplemented_, and _tensor.py's
# _handle_torch_function_and_wrap_type_error_to_not_implemented) return NotImplemented where
# the op raises a TypeError, as for an operand its parser does not take (None, a str, a list):
# Python then asks the other operand, and falls back to its own rule (``t == None`` is False,
# ``t + "a"`` "unsupported operand type(s)"). What that parser takes as the other operand:
# any error for these is the op's own.
OPERANDS = (Tensor, np.ndarray, np.generic, numbers.Number)


def operator_refusal(error: TypeError | ValueError, other: Any) -> Any:
    """What a binary operator returns when its op raised ``error`` on ``other``:
    NotImplemented, or the error again where it is the op's own (a ValueError, NumPy's
    refusal to convert a str, about an operand PyTorch's parser takes)."""
    if isinstance(error, ValueError) and isinstance(other, OPERANDS):
        raise error
    return NotImplemented


def binary_operator(node: Any, name: str) -> Any:
    """The operator ``self <op> other`` of ``node`` (``Tensor.__mul__``: ``MulBackward0``),
    straight to the node, which returns NotImplemented itself where the op refuses the operand
    (:func:`operator_refusal`), as it does for any extra argument (only a direct call such as
    ``t.__add__(u, 2)`` passes one): no wrapper frame (~0.2 us) on the hottest operators."""

    def operator(self: Tensor, other: Any, *args: Any, **kwargs: Any) -> Tensor:
        try:
            return node.apply(self, other) if not args and not kwargs else NotImplemented
        except (TypeError, ValueError) as error:
            return operator_refusal(error, other)

    operator.__name__ = operator.__qualname__ = name
    operator.refuses_by_itself = True  # type: ignore[attr-defined]
    # signed as the wrapped operators: ``(self, other)``, the arguments Python passes
    signature = inspect.signature(operator)
    named = [p for p in signature.parameters.values() if p.kind is p.POSITIONAL_OR_KEYWORD]
    operator.__signature__ = signature.replace(parameters=named)  # type: ignore[attr-defined]
    return operator


def check_integer_divisor(a: Any, b: Any, compute: Any) -> None:
    """PyTorch's integer division kernels (fmod, remainder, floor and trunc division) check
    each divisor as they reach it and raise "ZeroDivisionError" at the first zero: the
    elements before it, in TensorIterator's order, are written (an in-place target keeps
    them: ``kernel_order.stopped``). ``compute(a, b)``: the op's values where b is not 0."""
    a_values, b_values = np.asarray(a), np.asarray(b)
    if a_values.dtype.kind not in "iub" or b_values.dtype.kind not in "iub":
        return
    zero = b_values == 0
    if not zero.any():
        return
    shape = np.broadcast_shapes(a_values.shape, b_values.shape)

    def write(data: np.ndarray) -> Any:
        values = np.broadcast_to(compute(a, np.where(zero, 1, b_values)), shape)
        order = iterator_order(shape, [data, a_values, b_values])
        visits = np.arange(values.size).reshape(shape).transpose(order[::-1]).reshape(-1)
        first = int(np.argmax(np.broadcast_to(zero, shape).reshape(-1)[visits]))
        before = np.unravel_index(visits[:first], shape)
        data[before] = values[before]

    raise stopped(RuntimeError("ZeroDivisionError"), write)
