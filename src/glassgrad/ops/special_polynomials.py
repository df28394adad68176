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

from .._fma import float32_doubtful, fma, fms_float32, fms_float64, round_float32
from .._strides import like_operands
from .._tensor import Tensor
from ._common import check_tensor, floating_operands, is_scalar
from ._not_implemented import refuse_complex
from ._out import out_result
from ._registry import NoGrad, Sample, register
from ._samples import randn
from .special import SPECIAL

_HIGH_DEGREE = {"t": 6, "u": 8, "v": 8, "w": 8}  # above: the closed form inside (-1, 1)
_SHIFTED_HIGH_DEGREE = {"t": 6, "u": 6, "v": 6, "w": 4}  # the shifted kernels' own
_HERMITE_LIMIT = {np.dtype(np.float32): 128, np.dtype(np.float64): 512}  # above: NaN


def _libm(function: Any, v: np.ndarray) -> np.ndarray:
    """``function`` (arccos, sin, cos) of ``v`` in its dtype, as the C library PyTorch calls
    computes it. A float32 goes through double, rounded once: the correctly rounded value,
    which glibc 2.36's acosf gives for about 93% of arguments and its sinf and cosf for 99%
    (one ulp away otherwise; newer glibc's are correctly rounded). A double's arccos is
    Python's math.acos, glibc's own (NumPy's differs in the last bit for 1 argument in 10,
    which the remainder of a high degree's closed form near a root turns into its first
    digit); NumPy's sin and cos of a double are glibc's."""
    if v.dtype == np.float32:
        return function(v.astype(np.float64)).astype(np.float32)
    if function is np.arccos:
        return np.fromiter(map(math.acos, v.ravel().tolist()), np.float64, v.size).reshape(v.shape)
    return function(v)


def _as(dtype: np.dtype, v: Any) -> np.ndarray:
    """An integer (or integer array) converted to ``dtype``, as C++ converts an int64_t."""
    return np.asarray(v).astype(dtype)


# --- the three-term recurrences: p_(k+1) from q = p_k and p = p_(k-1) ------------------------
# PyTorch's kernels are compiled with fused multiply-add, so ``a * q - k * p`` is
# fma(a, q, -(k * p)): the product k * p rounded, a * q not (measured: bit for bit). Each path
# below gives those bits:
# - float32 values computed in double: the product of two float32 is exact in double, so
#   ``a * q - c`` has one rounding, to double, before the rounding to float32, and rounding it
#   to float32 gives the fused result unless that double lies halfway between two float32 or in
#   float32's subnormal range (``float32_doubtful``; the exact path for those elements). A
#   plain + - * / of float32 values computed in double and rounded to float32 is the float32
#   operation (53 >= 2 * 24 + 2).
# - one element: in Python floats, the same way (``fms_float32``, ``fms_float64``), without
#   NumPy's cost per call.
# - the exact path (float64 arrays, and float32 elements whose double was doubtful): NumPy in
#   the dtype, each fused step by error-free transforms (``fma``).


def _identity(v: Any) -> Any:
    return v


def _float32_in_double(v: np.ndarray) -> np.ndarray:
    """A double array rounded to float32 values (kept as doubles)."""
    return v.astype(np.float32).astype(np.float64)


def _recurrence_parts(name: str, x: Any, rnd: Callable, fms: Callable) -> tuple[Any, Any]:
    """p_1 and the step ``(k, q, p) -> p_(k+1)`` of polynomial ``name`` (a Chebyshev kind
    't', 'u', 'v', 'w' or a family name) at ``x``: ``rnd`` rounds a plain operation's result,
    ``fms(a, b, c)`` is ``a * b - c`` rounded once (one call per step, in order)."""
    twice = x + x  # exact (the callers keep |x| below 2**127 for float32)
    if name == "t":
        return x, lambda k, q, p: fms(twice, q, p)
    if name == "u":
        return twice, lambda k, q, p: fms(twice, q, p)
    if name in ("v", "w"):
        return rnd(twice - 1 if name == "v" else twice + 1), lambda k, q, p: fms(twice, q, p)
    if name == "hermite_polynomial_h":
        return twice, lambda k, q, p: fms(twice, q, rnd(p * (k + k)))
    if name == "hermite_polynomial_he":
        return x, lambda k, q, p: fms(x, q, rnd(p * k))
    if name == "laguerre_polynomial_l":
        rest = rnd(1 - x)
        return rest, lambda k, q, p: rnd(fms(rnd(rest + (k + k)), q, rnd(p * k)) / (k + 1))
    return x, lambda k, q, p: rnd(fms(rnd(x * (k + k + 1)), q, rnd(p * k)) / (k + 1))


def _exact_parts(name: str, x: np.ndarray) -> tuple[Any, Any]:
    """The recurrence in ``x``'s dtype, each fused step by error-free transforms."""
    dtype = x.dtype
    return _recurrence_parts(name, x, _identity, lambda a, b, c: fma(a, b, -c, dtype))


def _recurrence(x: np.ndarray, n: np.ndarray, name: str) -> np.ndarray:
    """p_n of ``name`` by its recurrence, elementwise for each degree in ``n`` (p_1 where
    n < 0: the callers put 0 there)."""
    first, step = _exact_parts(name, x)
    previous, current = np.ones_like(x), first
    out = np.where(n == 0, previous, current)
    for k in range(1, int(n.max(initial=1))):
        previous, current = current, step(k, current, previous)
        out = np.where(n == k + 1, current, out)
    return out


def _run(first: Any, step: Any, n: int, one: Any = 1.0) -> Any:
    previous, current = one, first
    for k in range(1, n):
        previous, current = current, step(k, current, previous)
    return current


def _value_at(x: float, n: int, name: str, single: bool) -> float:
    """The recurrence of degree n >= 1 at one value, in Python floats (float32 values rounded
    after each operation for ``single``)."""
    if single:
        return _run(*_recurrence_parts(name, x, round_float32, fms_float32), n)
    return _run(*_recurrence_parts(name, x, _identity, fms_float64), n)


def _float32_at(x: np.ndarray, n: int, name: str) -> np.ndarray:
    """The recurrence of degree n >= 1 at float32 values (|x| < 2**127, n <= 2**23: the
    degrees' integers are float32 values), computed in double. A step's double that lies
    halfway between two float32 or in float32's subnormal range and is not exact (its
    error-free sum) sends its element to the exact one-element path."""
    rows = min(n - 1, max(1, _CHECKED_DOUBLES // x.size))  # steps checked together
    products, doubles = np.empty((rows, x.size)), np.empty((rows, x.size))
    subtrahends: list[Any] = []  # this round's c
    redo: set[int] = set()
    steps = [0]

    def fms(a: np.ndarray, b: np.ndarray, c: Any) -> np.ndarray:
        i = len(subtrahends)
        np.multiply(a, b, out=products[i])  # exact
        np.subtract(products[i], c, out=doubles[i])
        subtrahends.append(c)
        steps[0] += 1
        if i == rows - 1 or steps[0] == n - 1:
            redo.update(_inexact_doubtful(doubles[: i + 1], products, subtrahends))
            subtrahends.clear()
        return _float32_in_double(doubles[i])

    first, step = _recurrence_parts(name, x.astype(np.float64), _float32_in_double, fms)
    out = _run(first, step, n, _ONE).astype(np.float32)
    for j in redo:
        out[j] = _value_at(float(x[j]), n, name, single=True)
    return out


_CHECKED_DOUBLES = 1 << 16  # the doubles of a few steps, checked at once


def _inexact_doubtful(
    doubles: np.ndarray, products: np.ndarray, subtrahends: list[Any]
) -> list[int]:
    """The elements where a double ``products - subtrahends`` is doubtful
    (``float32_doubtful``) and was rounded: a halfway double that is exact is a true tie,
    which rounding to float32 breaks as the fused operation does."""
    doubtful = float32_doubtful(doubles)
    if doubtful is None:
        return []
    redo = []
    rows, columns = doubtful.nonzero()
    for i, j in zip(rows.tolist(), columns.tolist()):
        c = subtrahends[i]
        p, s = float(products[i, j]), float(doubles[i, j])
        minus_c = -float(c[j] if type(c) is np.ndarray else c)
        v = s - p
        if (p - (s - v)) + (minus_c - v) != 0:  # Knuth's two-sum: the error of s
            redo.append(j)
    return redo


_ONE = np.float64(1.0)  # p_0, with the array methods of the rounding


def _recurrence_at(x: np.ndarray, n: int, name: str, largest: float) -> np.ndarray:
    """``_recurrence`` for one degree n >= 0 at ``x``, whose values other than NaN are at
    most ``largest`` in magnitude (float32 in double: below 2**127 for ``x + x``)."""
    if n == 0:
        return np.ones_like(x)
    if x.dtype == np.float32 and n <= 2**23 and largest < 2.0**127:
        return _float32_at(x, n, name)
    return _run(*_exact_parts(name, x), n)


# --- Chebyshev: a closed form for high degrees inside (-1, 1), special values at the ends ----


def _closed_form(kind: str, x: np.ndarray, n: Any, shifted: bool) -> np.ndarray:
    """The trigonometric form of kind ``kind`` at ``x`` (inside (-1, 1)), with the kernels'
    fallbacks where its divisor's test fails (``n`` an integer or an integer array)."""
    with np.errstate(divide="ignore", invalid="ignore"):  # the branch np.where leaves
        return _closed_form_values(kind, x, n, shifted)


def _closed_form_values(kind: str, x: np.ndarray, n: Any, shifted: bool) -> np.ndarray:
    angle = _libm(np.arccos, x)
    odd = np.asarray(n) % 2 == 1
    if kind == "t":
        return _libm(np.cos, _as(x.dtype, n) * angle)
    if kind == "u":
        degree = _as(x.dtype, np.asarray(n) + 1)
        sine = _libm(np.sin, angle)
        return np.where(
            sine != 0,
            _libm(np.sin, degree * angle) / sine,
            degree * _libm(np.cos, degree * angle) / x,
        )
    half = _as(x.dtype, n) + 0.5
    ends = _as(x.dtype, 2 * np.asarray(n) + 1)
    if kind == "v":
        return np.where(
            _libm(np.sin, angle / 2) != 1,
            _libm(np.cos, half * angle) / _libm(np.cos, angle / 2),
            np.where(odd, -ends, ends),
        )
    unit = np.where(odd, -1, 1).astype(x.dtype)
    return np.where(  # near x = 1; the shifted kernel returns +-1 there, not 2n + 1
        _libm(np.cos, angle / 2) != 1,
        _libm(np.sin, half * angle) / _libm(np.sin, angle / 2),
        unit if shifted else np.where(x > 0, ends, unit),
    )


def _ends(kind: str, x: np.ndarray, n: Any) -> np.ndarray:
    """The kernels' values at x = -1 and x = 1."""
    odd = np.asarray(n) % 2 == 1
    high = _as(x.dtype, (2 * np.asarray(n) + 1) if kind in "vw" else np.asarray(n) + 1)
    low = np.where(odd, -high, high)
    values = {
        "t": np.where((x > 0) | ~odd, 1, -1).astype(x.dtype),
        "u": np.where(x > 0, high, low),
        "v": np.where(x > 0, np.ones_like(x), low),
        "w": np.where(x > 0, high, np.where(odd, -1, 1).astype(x.dtype)),
    }
    return values[kind]


def _chebyshev(kind: str, x: np.ndarray, n: np.ndarray, shifted: bool = False) -> np.ndarray:
    """PyTorch's chebyshev_polynomial_{t,u,v,w}_forward at ``x``, or with ``shifted`` its
    shifted_chebyshev_polynomial_*_forward at (x + 1) / 2 (``x`` = 2x - 1 computed by the
    caller). The shifted kernels test x == 0 and x == 1 where these test |2x - 1| == 1; where
    2x - 1 rounds to -1 for a tiny x, their recurrence gives the same values."""
    high = (_SHIFTED_HIGH_DEGREE if shifted else _HIGH_DEGREE)[kind]
    out = _recurrence(x, n, kind)
    inside = np.abs(x) < 1
    closed = _closed_form(kind, np.where(inside, x, 0).astype(x.dtype), n, shifted)
    out = np.where((n > high) & inside, closed, out)
    out = np.where(np.abs(x) == 1, _ends(kind, x, n), out)
    return np.where(n < 0, 0, out).astype(x.dtype)


def _hermite(name: str) -> Any:
    def kernel(x: np.ndarray, n: np.ndarray) -> np.ndarray:
        out = np.where(n > _HERMITE_LIMIT[x.dtype], np.nan, _recurrence(x, n, name))
        return np.where(n < 0, 0, out).astype(x.dtype)

    return kernel


def _laguerre(x: np.ndarray, n: np.ndarray) -> np.ndarray:
    out = _recurrence(x, n, "laguerre_polynomial_l")
    return np.where(n < 0, 0, np.where(np.abs(x) == 0, 1, out)).astype(x.dtype)


def _legendre(x: np.ndarray, n: np.ndarray) -> np.ndarray:
    out = _recurrence(x, n, "legendre_polynomial_p")
    ends = np.where((x > 0) | (n % 2 == 0), 1, -1)
    return np.where(n < 0, 0, np.where(np.abs(x) == 1, ends, out)).astype(x.dtype)


def _shifted(kind: str) -> Any:
    return lambda x, n: _chebyshev(kind, x + x - 1, n, shifted=True)


# --- one degree for the whole tensor (a Python number n, the usual call) ---------------------
# The same arithmetic as the kernels above, element for element, with the degree's branches
# taken once in Python instead of selected per element. At the ends of [-1, 1] (and at 0 for
# Laguerre) the recurrences give the special values exactly (small integers), so they need no
# separate case here.


def _chebyshev_at(kind: str, x: np.ndarray, n: int, shifted: bool, largest: float) -> np.ndarray:
    if n <= (_SHIFTED_HIGH_DEGREE if shifted else _HIGH_DEGREE)[kind]:
        return _recurrence_at(x, n, kind, largest)
    inside = np.abs(x) < 1
    if inside.all():
        return _closed_form(kind, x, n, shifted)
    closed = _closed_form(kind, np.where(inside, x, 0).astype(x.dtype), n, shifted)
    return np.where(inside, closed, _recurrence_at(x, n, kind, largest))


def _at_degree(name: str, x: np.ndarray, n: int, largest: float) -> np.ndarray:
    """Polynomial ``name`` of degree ``n`` (any integer) at ``x``, as its kernel above
    (``largest``: the largest magnitude in ``x`` other than NaN)."""
    if n < 0:
        return np.zeros_like(x)
    if name.startswith("shifted_"):
        return _chebyshev_at(name[-1], x + x - 1, n, True, 2 * largest + 1)
    if name.startswith("chebyshev_"):
        return _chebyshev_at(name[-1], x, n, False, largest)
    if name.startswith("hermite_") and n > _HERMITE_LIMIT[x.dtype]:
        return np.full_like(x, np.nan)
    return _recurrence_at(x, n, name, largest)


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
    "hermite_polynomial_h": _hermite("hermite_polynomial_h"),
    "hermite_polynomial_he": _hermite("hermite_polynomial_he"),
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


def _one_value(name: str, v: float, n: int, dtype: np.dtype) -> float | None:
    """Polynomial ``name`` of degree n > 0 at one value ``v`` of ``dtype``, in Python floats
    (a float32's rounded after each operation); None where the array path computes it (a
    closed form, a float32 beyond the recurrence's exact range)."""
    kind, shifted, high = _ONE_VALUE[name]
    single = dtype == np.float32
    if shifted:
        v = v + v - 1
        if single:
            v = round_float32(v)
    if n > high and abs(v) < 1 or single and not (abs(v) < 2.0**127 and n <= 2**23):
        return None
    if kind.startswith("hermite_") and n > _HERMITE_LIMIT[dtype]:
        return math.nan
    return _value_at(v, n, kind, single)


_ONE_VALUE = {  # name: recurrence, shifted, the degree above which a closed form may apply
    name: (
        name[-1] if "chebyshev" in name else name,
        name.startswith("shifted_"),
        (_SHIFTED_HIGH_DEGREE if name.startswith("shifted_") else _HIGH_DEGREE)[name[-1]]
        if "chebyshev" in name
        else math.inf,
    )
    for name in _TITLES
}


def _one_degree(name: str, data: np.ndarray, n: int | float) -> Tensor:
    """Polynomial ``name`` of a float tensor's values at one Python-number degree."""
    n = int(n)  # truncated toward zero, as np.trunc
    if data.size == 1 and n > 0:
        value = _one_value(name, data.item(), n, data.dtype)
        if value is not None:
            values = np.empty(data.shape, data.dtype)
            values.fill(value)
            return Tensor._from_array(values)
    x = data.reshape(-1)
    largest = float(np.fmax.reduce(np.abs(x))) if x.size else 0.0  # NaN only if all are
    if n <= 0 or _overflow_free(largest, n, data.dtype):  # degree 0 and below: no arithmetic
        values = _at_degree(name, x, n, largest)
    else:
        with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
            values = _at_degree(name, x, n, largest)
    values = values.reshape(data.shape)
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
        work = dtype if dtype in _FLOATS else np.dtype(np.float64)  # the kernel's T
        with np.errstate(invalid="ignore", over="ignore"):  # inf and NaN silently, as PyTorch
            values = kernel(x.astype(work), np.trunc(degree).astype(np.int64)).astype(dtype)
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
