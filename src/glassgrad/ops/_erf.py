"""The error function and its inverse on NumPy arrays, to float64 accuracy, without SciPy.

``erf`` is a table of Taylor polynomials: around each multiple c of 1/8 in [0, 6], erf is expanded
to degree 12 (used within 1/16 of c) with the exact derivatives

    erf^(k)(c) = 2/sqrt(pi) * (-1)^(k-1) * H_(k-1)(c) * exp(-c^2)     (H: Hermite polynomials)

so one evaluation is a table look-up and a Horner loop (truncation error below 1e-17; beyond 6,
erf rounds to +-1). ``erfc`` for x >= 2 comes from its continued fraction, evaluated bottom-up at
a fixed depth (~1e-15 relative). ``erfinv`` refines a closed-form first guess (Winitzki's, ~2e-3
relative) by Halley steps on erf, using erfc near +-1 so the residual keeps its relative accuracy.

The scaled complement ``erfcx(x) = exp(x^2) erfc(x)`` is the continued fraction without its
Gaussian factor for x >= 2, so it neither underflows nor loses digits; ``log_ndtr`` and ``ndtri``
(the log and the inverse of the normal distribution function) are built on it.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["erf", "erfc", "erfcx", "erfinv", "log_ndtr", "ndtri"]

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_SQRT_PI = math.sqrt(math.pi)
_STEP = 0.125
_GRID_END = 6.0
_DEGREE = 12
_CONTINUED_FRACTION_START = 2.0
_CONTINUED_FRACTION_DEPTH = 50
_WINITZKI_A = 0.147
_SQRT_HALF = math.sqrt(0.5)
_SQRT_TWO = math.sqrt(2.0)
_SQRT_HALF_PI = math.sqrt(0.5 * math.pi)
_NDTRI_NEWTON_STEPS = 4


def _taylor_table() -> np.ndarray:
    """Row j: the Taylor coefficients of erf around j * step, lowest degree first."""
    count = int(_GRID_END / _STEP) + 1
    table = np.zeros((count, _DEGREE + 1))
    for j in range(count):
        c = j * _STEP
        hermite = [1.0, 2.0 * c]
        for n in range(1, _DEGREE):
            hermite.append(2.0 * c * hermite[n] - 2.0 * n * hermite[n - 1])
        gauss = _TWO_OVER_SQRT_PI * math.exp(-c * c)
        table[j, 0] = math.erf(c)
        for k in range(1, _DEGREE + 1):
            table[j, k] = gauss * (-1) ** (k - 1) * hermite[k - 1] / math.factorial(k)
    return table


# One contiguous row per degree, so each Horner step gathers from a small row.
_TABLE_BY_DEGREE = np.ascontiguousarray(_taylor_table().T)


def _erf_nonnegative(m: np.ndarray) -> np.ndarray:
    """erf(m) for m >= 0 (NaN gives NaN)."""
    inside = m < _GRID_END
    index = np.rint(np.where(inside, m / _STEP, 0.0)).astype(np.intp)
    offset = np.where(inside, m - index * _STEP, 0.0)
    result = _TABLE_BY_DEGREE[_DEGREE][index]
    for k in range(_DEGREE - 1, -1, -1):
        result *= offset
        result += _TABLE_BY_DEGREE[k][index]
    return np.where(inside, result, np.where(np.isnan(m), m, 1.0))


def _exp_neg_square(x: np.ndarray) -> np.ndarray:
    """exp(-x*x) with x*x split so that its rounding error does not grow with x."""
    high = np.trunc(x * 16.0) / 16.0  # high*high is exact
    return np.exp(-high * high) * np.exp(-(x - high) * (x + high))


def _erfcx_continued_fraction(x: np.ndarray) -> np.ndarray:
    """erfcx for finite x >= 2: 1/sqrt(pi) / (x + (1/2)/(x + 1/(x + (3/2)/(x + ...))))."""
    denominator = x.copy()
    for k in range(_CONTINUED_FRACTION_DEPTH, 0, -1):
        denominator = x + (0.5 * k) / denominator
    return 1.0 / (_SQRT_PI * denominator)


def _erfc_continued_fraction(x: np.ndarray) -> np.ndarray:
    """erfc for finite x >= 2."""
    return _exp_neg_square(x) * _erfcx_continued_fraction(x)


def _erfc_nonnegative(m: np.ndarray) -> np.ndarray:
    """erfc(m) for finite m >= 0."""
    far = m >= _CONTINUED_FRACTION_START
    if not far.any():
        return 1.0 - _erf_nonnegative(m)
    out = 1.0 - _erf_nonnegative(np.where(far, 0.0, m))
    out[far] = _erfc_continued_fraction(m[far])
    return out


def erf(x: np.ndarray) -> np.ndarray:
    """erf(x) = 2/sqrt(pi) * integral_0^x exp(-t^2) dt, elementwise, in x's float dtype.

    Example::

        >>> erf(np.array([0.0, 1.0]))
        array([0.        , 0.84270079])
    """
    x = np.asarray(x)
    wide = x.astype(np.float64)
    out = np.copysign(_erf_nonnegative(np.abs(wide)), wide)
    return out.astype(x.dtype if x.dtype.kind == "f" else np.float64, copy=False)


def erfc(x: np.ndarray) -> np.ndarray:
    """1 - erf(x), keeping relative accuracy where it is tiny (x >= 2)."""
    wide = np.asarray(x, dtype=np.float64)
    magnitude = np.abs(wide)
    finite = np.isfinite(magnitude)
    positive = np.where(finite, _erfc_nonnegative(np.where(finite, magnitude, 0.0)), 0.0)
    positive = np.where(np.isnan(wide), wide, positive)
    return np.where(wide < 0, 2.0 - positive, positive)


def _float_result(x: np.ndarray, out: np.ndarray) -> np.ndarray:
    """``out`` (float64) in ``x``'s float dtype."""
    return out.astype(x.dtype if x.dtype.kind == "f" else np.float64, copy=False)


def _erfcx_wide(wide: np.ndarray) -> np.ndarray:
    """erfcx of float64 values."""
    far = wide >= _CONTINUED_FRACTION_START
    near = np.where(far | np.isnan(wide), 0.0, wide)
    # exp(x^2) with x^2 split as in _exp_neg_square (inf below about -26.6, as erfcx is).
    high = np.trunc(near * 16.0) / 16.0
    scale = np.exp(high * high) * np.exp((near - high) * (near + high))
    out = np.array(scale * erfc(near), dtype=np.float64)
    if far.any():
        finite = far & np.isfinite(wide)
        out[finite] = _erfcx_continued_fraction(wide[finite])
    out = np.where(wide == np.inf, 0.0, np.where(wide == -np.inf, np.inf, out))
    return np.where(np.isnan(wide), wide, out)


def erfcx(x: np.ndarray) -> np.ndarray:
    """The scaled complementary error function exp(x^2) * erfc(x), in x's float dtype.

    Example::

        >>> erfcx(np.array([0.0, 30.0]))
        array([1.        , 0.01880071])
    """
    x = np.asarray(x)
    return _float_result(x, _erfcx_wide(x.astype(np.float64)))


def _log_ndtr_wide(wide: np.ndarray) -> np.ndarray:
    """log of the standard normal distribution function, float64 (PyTorch's split at -1)."""
    t = wide * _SQRT_HALF
    left = wide < -1.0
    # Left tail: log(erfcx(-t) / 2) - t^2 keeps digits where ndtr itself underflows.
    tail = np.log(0.5 * _erfcx_wide(-np.where(left, t, -1.0))) - np.where(left, t * t, 0.0)
    body = np.log1p(-0.5 * erfc(np.where(left, 0.0, t)))
    return np.where(left, np.where(wide == -np.inf, -np.inf, tail), body)


def log_ndtr(x: np.ndarray) -> np.ndarray:
    """log(ndtr(x)), accurate in both tails, in x's float dtype.

    Example::

        >>> log_ndtr(np.array([0.0]))
        array([-0.69314718])
    """
    x = np.asarray(x)
    return _float_result(x, _log_ndtr_wide(x.astype(np.float64)))


def ndtri(p: np.ndarray) -> np.ndarray:
    """The inverse of the standard normal distribution function (-inf at 0, inf at 1, NaN
    outside [0, 1]), in p's float dtype.

    The lower half q = min(p, 1 - p) (1 - p is exact for p >= 1/2) starts from
    sqrt(2) * erfinv(2q - 1), or from the tail's asymptote where 2q - 1 rounds to -1, and takes
    Newton steps on log(ndtr(x)) - log(q), whose slope ratio is sqrt(pi/2) * erfcx(-x/sqrt(2)).

    Example::

        >>> ndtri(np.array([0.5, 0.975]))
        array([0.       , 1.95996398])
    """
    p = np.asarray(p)
    wide = p.astype(np.float64)
    upper = wide > 0.5
    q = np.where(upper, 1.0 - wide, wide)
    inside = (q > 0.0) & (q <= 0.5)
    q_in = q[inside]
    x = _SQRT_TWO * erfinv(2.0 * q_in - 1.0)
    tiny = q_in < 1e-10
    if tiny.any():
        t = -2.0 * np.log(q_in[tiny])
        x[tiny] = -np.sqrt(t - np.log(2.0 * math.pi * t))
    log_q = np.log(q_in)
    for _ in range(_NDTRI_NEWTON_STEPS):
        x = x - (_log_ndtr_wide(x) - log_q) * (_SQRT_HALF_PI * _erfcx_wide(-x * _SQRT_HALF))
    out = np.full(wide.shape, np.nan)
    out[inside] = x
    out[q == 0.0] = -np.inf
    out = np.where(upper, -out, out)
    out = np.where((wide < 0.0) | (wide > 1.0) | np.isnan(wide), np.nan, out)
    return _float_result(p, out)


def erfinv(x: np.ndarray) -> np.ndarray:
    """The inverse of erf on [-1, 1] (+-inf at +-1, NaN outside), in x's float dtype.

    Example::

        >>> erfinv(np.array([0.0, 0.5]))
        array([0.        , 0.47693628])
    """
    x = np.asarray(x)
    wide = x.astype(np.float64)
    a = np.abs(wide)
    inside = a < 1.0
    target = a[inside]
    # Winitzki's approximation as the first guess; a*sqrt(pi)/2 where it underflows.
    w = -np.log1p(-target * target)
    inner = 2.0 / (math.pi * _WINITZKI_A) - 0.5 * w
    y = np.sqrt(np.sqrt(inner * inner + w / _WINITZKI_A) - inner)
    y = np.where(target < 1e-8, target * (_SQRT_PI / 2.0), y)
    complement = 1.0 - target  # exact where target is near 1
    near_one = target > 0.5
    for _ in range(3):
        # f(y) = erf(y) - a, computed as (1 - a) - erfc(y) near a = 1.
        residual = np.where(
            near_one, complement - _erfc_nonnegative(y), _erf_nonnegative(y) - target
        )
        slope = _TWO_OVER_SQRT_PI * _exp_neg_square(y)
        # Halley's step, with f'' = -2 y f'.
        y = y - residual / (slope + y * residual)
    out = np.full(wide.shape, np.nan)
    out[inside] = y
    out[a == 1.0] = np.inf
    out = np.where(np.isnan(wide), wide, np.copysign(out, wide))
    return out.astype(x.dtype if x.dtype.kind == "f" else np.float64, copy=False)
