"""The orthogonal polynomials of ``torch.special``: Chebyshev (T, U, V, W and their shifted
forms on [0, 1]), Hermite (physicists' H, probabilists' He), Laguerre and Legendre, of degree
``n`` (truncated to an integer; 0 below 0) at ``input``. PyTorch defines no derivatives: the
results never require grad.

Each is PyTorch's kernel (ATen's Math.h), vectorised: the same special values at the ends of
[-1, 1], the same trigonometric closed forms for high degrees inside it, the same three-term
recurrences elsewhere, so the values agree to rounding.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from .._strides import like_operands
from .._tensor import Tensor
from ._common import check_tensor, floating_operands, is_scalar
from ._not_implemented import refuse_complex
from ._out import out_result
from ._registry import NoGrad, Sample, register
from ._samples import randn
from .special import SPECIAL


def _recurrence(x: np.ndarray, n: np.ndarray, first: Any, step: Any, start: int = 1) -> np.ndarray:
    """p_n for p_0 = 1, p_1 = ``first(x)``, p_(k+1) = ``step(k, x, p_k, p_(k-1))`` for k >=
    ``start``..., elementwise for each degree in ``n`` (0 where n < 0)."""
    previous = np.ones_like(x)
    current = first(x)
    out = np.where(n == 0, previous, np.where(n == 1, current, 0.0 * x))
    for k in range(start, int(n.max(initial=1))):
        previous, current = current, step(k, x, current, previous)
        out = np.where(n == k + 1, current, out)
    return out


def _chebyshev_step(k: int, x: np.ndarray, q: np.ndarray, p: np.ndarray) -> np.ndarray:
    return (x + x) * q - p


def _chebyshev(kind: str, x: np.ndarray, n: np.ndarray) -> np.ndarray:
    """PyTorch's chebyshev_polynomial_{t,u,v,w}_forward."""
    first = {
        "t": lambda v: v,
        "u": lambda v: v + v,
        "v": lambda v: v + v - 1,
        "w": lambda v: v + v + 1,
    }
    out = _recurrence(x, n, first[kind], _chebyshev_step)
    inside = np.abs(x) < 1
    with np.errstate(invalid="ignore", divide="ignore"):
        angle = np.arccos(np.where(inside, x, 0.0))
        if kind == "t":
            closed = np.cos(n * angle)
            high = n > 6
        elif kind == "u":
            sine = np.sin(angle)
            closed = np.where(
                sine != 0, np.sin((n + 1) * angle) / sine, (n + 1) * np.cos((n + 1) * angle) / x
            )
            high = n > 8
        elif kind == "v":
            closed = np.cos((n + 0.5) * angle) / np.cos(angle / 2)
            high = n > 8
        else:
            closed = np.sin((n + 0.5) * angle) / np.sin(angle / 2)
            high = n > 8
    out = np.where(high & inside, closed, out)
    odd = n % 2 == 1
    ends = {
        "t": np.where((x > 0) | ~odd, 1.0, -1.0),
        "u": np.where((x > 0) | ~odd, n + 1.0, -(n + 1.0)),
        "v": np.where(x > 0, 1.0, np.where(odd, -(2.0 * n + 1), 2.0 * n + 1)),
        "w": np.where(x > 0, 2.0 * n + 1, np.where(odd, -1.0, 1.0)),
    }[kind]
    out = np.where(np.abs(x) == 1, ends, out)
    return np.where(n < 0, 0.0, out)


def _hermite_h(x: np.ndarray, n: np.ndarray) -> np.ndarray:
    return np.where(
        n < 0, 0.0, _recurrence(x, n, lambda v: v + v, lambda k, v, q, p: (v + v) * q - 2 * k * p)
    )


def _hermite_he(x: np.ndarray, n: np.ndarray) -> np.ndarray:
    return np.where(n < 0, 0.0, _recurrence(x, n, lambda v: v, lambda k, v, q, p: v * q - k * p))


def _laguerre(x: np.ndarray, n: np.ndarray) -> np.ndarray:
    def step(k: int, v: np.ndarray, q: np.ndarray, p: np.ndarray) -> np.ndarray:
        return (((k + k) + (1.0 - v)) * q - k * p) / (k + 1)

    out = _recurrence(x, n, lambda v: 1.0 - v, step)
    return np.where(n < 0, 0.0, np.where(np.abs(x) == 0, 1.0, out))


def _legendre(x: np.ndarray, n: np.ndarray) -> np.ndarray:
    def step(k: int, v: np.ndarray, q: np.ndarray, p: np.ndarray) -> np.ndarray:
        return ((k + k + 1) * v * q - k * p) / (k + 1)

    out = _recurrence(x, n, lambda v: v, step)
    ends = np.where((x > 0) | (n % 2 == 0), 1.0, -1.0)
    return np.where(n < 0, 0.0, np.where(np.abs(x) == 1, ends, out))


def _shifted(kind: str) -> Any:
    return lambda x, n: _chebyshev(kind, x + x - 1, n)


# --- one degree for the whole tensor (a Python number n, the usual call) ---------------------
# The same arithmetic as the kernels above, element for element, with the degree's branches
# taken once in Python instead of selected per element: a handful of NumPy calls instead of
# dozens. ``x`` is a float64 array, or a float when the tensor holds one element (Python float
# arithmetic is NumPy's float64 arithmetic, without a call per operation). At the ends of
# [-1, 1] (and at 0 for Laguerre) the recurrences give the special values exactly (small
# integers), so they need no separate case here.


def _select(condition: Any, a: Any, b: Any) -> Any:
    """``np.where`` for an array, a plain choice for one value."""
    if type(condition) is np.ndarray:
        return np.where(condition, a, b)
    return a if condition else b


def _recurrence_at(x: Any, n: int, first: Any, step: Any) -> Any:
    """``_recurrence`` for one degree n >= 0."""
    if n == 0:
        return np.ones_like(x) if type(x) is np.ndarray else 1.0
    previous, current = 1.0, first(x)
    for k in range(1, n):
        previous, current = current, step(k, x, current, previous)
    return current


_HIGH_DEGREE = {"t": 6, "u": 8, "v": 8, "w": 8}  # above: the closed form inside (-1, 1)


def _chebyshev_at(kind: str, x: Any, n: int) -> Any:
    twice = x + x  # (x + x) of every step, computed once
    if kind == "t":
        first = x
    elif kind == "u":
        first = twice
    else:
        first = twice - 1 if kind == "v" else twice + 1

    def recurrence() -> Any:
        return _recurrence_at(x, n, lambda v: first, lambda k, v, q, p: twice * q - p)

    if n <= _HIGH_DEGREE[kind]:
        return recurrence()
    inside = abs(x) < 1
    every = inside.all() if type(inside) is np.ndarray else inside
    angle = np.arccos(_select(inside, x, 0.0))
    if kind == "t":
        closed = np.cos(n * angle)
    elif kind == "u":
        closed = np.sin((n + 1) * angle) / np.sin(angle)
    elif kind == "v":
        closed = np.cos((n + 0.5) * angle) / np.cos(angle / 2)
    else:
        closed = np.sin((n + 0.5) * angle) / np.sin(angle / 2)
    if every:
        return closed
    return _select(inside, closed, recurrence())


def _at_degree(name: str, x: Any, n: int) -> Any:
    """Polynomial ``name`` of degree ``n`` (any integer) at ``x``, as its kernel above."""
    if n < 0:
        return np.zeros_like(x) if type(x) is np.ndarray else 0.0
    if name.startswith("shifted_"):
        return _chebyshev_at(name[-1], x + x - 1, n)
    if name.startswith("chebyshev_"):
        return _chebyshev_at(name[-1], x, n)
    if name == "hermite_polynomial_h":
        twice = x + x
        return _recurrence_at(x, n, lambda v: twice, lambda k, v, q, p: twice * q - 2 * k * p)
    if name == "hermite_polynomial_he":
        return _recurrence_at(x, n, lambda v: v, lambda k, v, q, p: v * q - k * p)
    if name == "laguerre_polynomial_l":
        rest = 1.0 - x  # (1 - x) of every step, computed once
        return _recurrence_at(
            x, n, lambda v: rest, lambda k, v, q, p: (((k + k) + rest) * q - k * p) / (k + 1)
        )
    return _recurrence_at(
        x, n, lambda v: v, lambda k, v, q, p: ((k + k + 1) * v * q - k * p) / (k + 1)
    )


def _overflow_free(largest: float, n: int, dtype: np.dtype) -> bool:
    """Whether degree ``n`` > 0 at values of magnitude <= ``largest`` stays finite in ``dtype``
    (False for inf or NaN): each step of these recurrences multiplies by at most
    2 * largest + 2 * n + 2, so the values stay below that to the power n."""
    return n * math.log2(2 * largest + 2 * n + 2) < _MAX_EXPONENT[dtype]


_KERNELS = {
    "chebyshev_polynomial_t": lambda x, n: _chebyshev("t", x, n),
    "chebyshev_polynomial_u": lambda x, n: _chebyshev("u", x, n),
    "chebyshev_polynomial_v": lambda x, n: _chebyshev("v", x, n),
    "chebyshev_polynomial_w": lambda x, n: _chebyshev("w", x, n),
    "shifted_chebyshev_polynomial_t": _shifted("t"),
    "shifted_chebyshev_polynomial_u": _shifted("u"),
    "shifted_chebyshev_polynomial_v": _shifted("v"),
    "shifted_chebyshev_polynomial_w": _shifted("w"),
    "hermite_polynomial_h": _hermite_h,
    "hermite_polynomial_he": _hermite_he,
    "laguerre_polynomial_l": _laguerre,
    "legendre_polynomial_p": _legendre,
}
_TITLES = {
    "chebyshev_polynomial_t": "The Chebyshev polynomial of the first kind T_n.",
    "chebyshev_polynomial_u": "The Chebyshev polynomial of the second kind U_n.",
    "chebyshev_polynomial_v": "The Chebyshev polynomial of the third kind V_n.",
    "chebyshev_polynomial_w": "The Chebyshev polynomial of the fourth kind W_n.",
    "shifted_chebyshev_polynomial_t": "T_n(2x - 1), the Chebyshev T_n shifted to [0, 1].",
    "shifted_chebyshev_polynomial_u": "U_n(2x - 1), the Chebyshev U_n shifted to [0, 1].",
    "shifted_chebyshev_polynomial_v": "V_n(2x - 1), the Chebyshev V_n shifted to [0, 1].",
    "shifted_chebyshev_polynomial_w": "W_n(2x - 1), the Chebyshev W_n shifted to [0, 1].",
    "hermite_polynomial_h": "The physicists' Hermite polynomial H_n.",
    "hermite_polynomial_he": "The probabilists' Hermite polynomial He_n.",
    "laguerre_polynomial_l": "The Laguerre polynomial L_n.",
    "legendre_polynomial_p": "The Legendre polynomial P_n.",
}


_DEGREES = (int, float)
_LARGEST_DEGREE = 2.0**62
_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
_MAX_EXPONENT = {dtype: np.finfo(dtype).maxexp - 1 for dtype in _FLOATS}  # 2**e is finite


def _one_degree(name: str, data: np.ndarray, n: int | float) -> Tensor:
    """Polynomial ``name`` of a float tensor's values at one Python-number degree."""
    n = int(n)  # truncated toward zero, as np.trunc
    if data.size == 1:
        x: Any = float(data.reshape(-1)[0])
        largest = abs(x)
    else:
        x = data.astype(np.float64)
        largest = float(np.abs(x).max()) if x.size else 0.0
    if n <= 0 or _overflow_free(largest, n, data.dtype):  # degree 0 and below: no arithmetic
        values = _at_degree(name, x, n)
    else:
        with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
            values = np.asarray(_at_degree(name, x, n), dtype=data.dtype)
    values = np.asarray(values, dtype=data.dtype).reshape(data.shape)
    return Tensor._from_array(like_operands(values, (data,)))  # x's layout, as PyTorch's


def _polynomial(name: str) -> Any:
    kernel = _KERNELS[name]
    op = f"special_{name}"

    def function(input: Any, n: Any, *, out: Tensor | None = None) -> Tensor:
        if (
            type(n) in _DEGREES
            and -_LARGEST_DEGREE < n < _LARGEST_DEGREE  # not inf or NaN
            and isinstance(input, Tensor)
            and input._data.dtype in _FLOATS
        ):
            return out_result(op, out, _one_degree(name, input._data, n), differentiable=False)
        if not isinstance(input, Tensor) and not (is_scalar(input) and isinstance(n, Tensor)):
            check_tensor(n if is_scalar(input) else input, op, "x")
        if isinstance(input, Tensor) and not (isinstance(n, Tensor) or is_scalar(n)):
            check_tensor(n, op, "n", 2)
        refuse_complex(f"{name}_cpu", input, n)
        x, degree = floating_operands(
            input._data if isinstance(input, Tensor) else input,
            n._data if isinstance(n, Tensor) else n,
        )
        dtype = np.result_type(*[a for a in (x, degree) if isinstance(a, np.ndarray)])
        operands = (x, degree)
        x, degree = np.broadcast_arrays(np.asarray(x), np.asarray(degree))
        with np.errstate(invalid="ignore", over="ignore"):  # inf and NaN silently, as PyTorch
            values = kernel(x.astype(np.float64), np.trunc(degree).astype(np.int64))
            values = np.asarray(values).astype(dtype)
        return out_result(
            op, out, Tensor._from_array(like_operands(values, operands)), differentiable=False
        )

    function.__name__ = function.__qualname__ = name
    function.__doc__ = (
        f"{_TITLES[name]} ``n`` is truncated to an integer; PyTorch defines no derivative.\n\n"
        f"Example::\n\n    >>> glassgrad.special.{name}(glassgrad.tensor([0.5]), 2).shape\n"
        "    glassgrad.Size([1])\n"
    )
    return function


chebyshev_polynomial_t: Callable[..., Any] = _polynomial("chebyshev_polynomial_t")
chebyshev_polynomial_u: Callable[..., Any] = _polynomial("chebyshev_polynomial_u")
chebyshev_polynomial_v: Callable[..., Any] = _polynomial("chebyshev_polynomial_v")
chebyshev_polynomial_w: Callable[..., Any] = _polynomial("chebyshev_polynomial_w")
shifted_chebyshev_polynomial_t: Callable[..., Any] = _polynomial("shifted_chebyshev_polynomial_t")
shifted_chebyshev_polynomial_u: Callable[..., Any] = _polynomial("shifted_chebyshev_polynomial_u")
shifted_chebyshev_polynomial_v: Callable[..., Any] = _polynomial("shifted_chebyshev_polynomial_v")
shifted_chebyshev_polynomial_w: Callable[..., Any] = _polynomial("shifted_chebyshev_polynomial_w")
hermite_polynomial_h: Callable[..., Any] = _polynomial("hermite_polynomial_h")
hermite_polynomial_he: Callable[..., Any] = _polynomial("hermite_polynomial_he")
laguerre_polynomial_l: Callable[..., Any] = _polynomial("laguerre_polynomial_l")
legendre_polynomial_p: Callable[..., Any] = _polynomial("legendre_polynomial_p")


def _samples(shifted: bool) -> Any:
    def samples(rng: np.random.Generator) -> list[Sample]:
        inside = rng.random((3, 4)) if shifted else 2 * rng.random((3, 4)) - 1
        ends = np.array([0.0, 1.0, 0.5]) if shifted else np.array([-1.0, 1.0, 0.0])
        return [
            Sample((inside, 3)),
            Sample((inside, 12), note="high degree: the closed form inside [-1, 1]"),
            Sample((1.5 * randn(rng, 2, 3), np.array([0, 1, 5]))),
            Sample((NoGrad(ends), np.array([[2], [7], [10], [-1]]))),
            Sample((inside.T, 4.7), note="the degree truncated"),
        ]

    return samples


for _name in _KERNELS:
    register(
        _name,
        globals()[_name],
        namespace=SPECIAL,
        differentiable=False,
        samples=_samples(_name.startswith("shifted")),
    )
