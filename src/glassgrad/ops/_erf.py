"""The error function and its inverse on NumPy arrays, to float64 accuracy, without SciPy.

``erf`` is a table of Taylor polynomials: around each multiple c of 1/8 in [0, 6], erf is expanded
to degree 12 (used within 1/16 of c) with the exact derivatives

    erf^(k)(c) = 2/sqrt(pi) * (-1)^(k-1) * H_(k-1)(c) * exp(-c^2)     (H: Hermite polynomials)

so one evaluation is a table look-up and a Horner loop (truncation error below 1e-17; beyond 6,
erf rounds to +-1). ``erfc`` for x >= 2 comes from its continued fraction, evaluated bottom-up at
a fixed depth (~1e-15 relative).

``ndtri`` (the inverse of the normal distribution function) is Cephes' rational approximation, as
PyTorch's ``calc_ndtri``: in p - 1/2 on the central range, in 1/sqrt(-2 log p) on the tails (peak
relative error ~7e-16); ``erfinv(y) = -ndtri((1 - |y|)/2) / sqrt(2)``, with p - 1/2 = -|y|/2 exact.

The scaled complement ``erfcx(x) = exp(x^2) erfc(x)`` is the continued fraction without its
Gaussian factor for x >= 2, so it neither underflows nor loses digits; ``log_ndtr`` (the log of
the normal distribution function) is built on it.
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
_SQRT_HALF = math.sqrt(0.5)
_SQRT_TWO_PI = 2.50662827463100050242

# Cephes' ndtri coefficients (3-clause BSD; PyTorch's calc_ndtri uses them), highest degree first.
# The central range exp(-2) < p < 1 - exp(-2): x = (c + c * c^2 P0(c^2) / Q0(c^2)) sqrt(2 pi), with
# c = p - 1/2.
_EXP_MINUS_TWO = 0.13533528323661269189
_CENTRAL_P = (
    -5.99633501014107895267e1,
    9.80010754185999661536e1,
    -5.66762857469070293439e1,
    1.39312609387279679503e1,
    -1.23916583867381258016e0,
)
_CENTRAL_Q = (
    1.0,
    1.95448858338141759834e0,
    4.67627912898881538453e0,
    8.63602421390890590575e1,
    -2.25462687854119370527e2,
    2.00260212380060660359e2,
    -8.20372256168333339912e1,
    1.59056225126211695515e1,
    -1.18331621121330003142e0,
)
# The tails p <= exp(-2), with t = sqrt(-2 log p) and z = 1/t: -x = t - log(t)/t - z P(z) / Q(z),
# one pair for t < 8 (p > exp(-32)), one beyond.
_TAIL_NEAR_P = (
    4.05544892305962419923e0,
    3.15251094599893866154e1,
    5.71628192246421288162e1,
    4.40805073893200834700e1,
    1.46849561928858024014e1,
    2.18663306850790267539e0,
    -1.40256079171354495875e-1,
    -3.50424626827848203418e-2,
    -8.57456785154685413611e-4,
)
_TAIL_NEAR_Q = (
    1.0,
    1.57799883256466749731e1,
    4.53907635128879210584e1,
    4.13172038254672030440e1,
    1.50425385692907503408e1,
    2.50464946208309415979e0,
    -1.42182922854787788574e-1,
    -3.80806407691578277194e-2,
    -9.33259480895457427372e-4,
)
_TAIL_FAR_P = (
    3.23774891776946035970e0,
    6.91522889068984211695e0,
    3.93881025292474443415e0,
    1.33303460815807542389e0,
    2.01485389549179081538e-1,
    1.23716634817820021358e-2,
    3.01581553508235416007e-4,
    2.65806974686737550832e-6,
    6.23974539184983293730e-9,
)
_TAIL_FAR_Q = (
    1.0,
    6.02427039364742014255e0,
    3.67983563856160859403e0,
    1.37702099489081330271e0,
    2.16236993594496635890e-1,
    1.34204006088543189037e-2,
    3.28014464682127739104e-4,
    2.89247864745380683936e-6,
    6.79019408009981274425e-9,
)


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


# One row per degree: a gather of the columns of the values' grid points gives each Horner
# step a contiguous row.
_TABLE_BY_DEGREE = np.ascontiguousarray(_taylor_table().T)
# The same table as Python floats, a row per grid point, for one value (``_erf_one``).
_TABLE_ROWS = _taylor_table().tolist()


# Constants as 0-d arrays: NumPy 2 takes ~1 us longer per call for a Python-number operand
# (promotion of a weak scalar) than for an array, which is most of a call on a few elements.
_GRID_END_ARRAY = np.array(_GRID_END)
_ONE = np.array(1.0)
_TWO = np.array(2.0)
_ONE_OVER_STEP = np.array(1.0 / _STEP)  # a power of two: x * 8 is x / (1/8) exactly
_STEP_ARRAY = np.array(_STEP)
_HALF_K = [np.array(0.5 * k) for k in range(_CONTINUED_FRACTION_DEPTH + 1)]
_SQRT_PI_ARRAY = np.array(_SQRT_PI)


def _erf_one(m: float) -> float:
    """``_erf_nonnegative`` of one value m >= 0 in Python floats: the same IEEE double
    operations in the same order, so the same bits, at ~30 ns a step where a NumPy call on
    one element costs ~0.5 us (erf of one number: 24 of them)."""
    if not m < _GRID_END:
        return m if m != m else 1.0  # past the grid erf rounds to 1; NaN stays
    nearest = float(round(m * 8.0))  # np.rint: halves to even, as round()
    offset = m - nearest * _STEP
    coefficients = _TABLE_ROWS[int(nearest)]
    result = coefficients[_DEGREE] * offset
    for k in range(_DEGREE - 1, 0, -1):
        result = (result + coefficients[k]) * offset
    return result + coefficients[0]


def _erf_nonnegative(m: np.ndarray) -> np.ndarray:
    """erf(m) for m >= 0 (NaN gives NaN)."""
    inside = m < _GRID_END_ARRAY
    # NaN and values past the grid read its last point (a valid index; replaced below).
    clipped = np.fmin(m, _GRID_END_ARRAY)
    nearest = np.rint(clipped * _ONE_OVER_STEP)  # a small integer, exact as a float
    offset = clipped - nearest * _STEP_ARRAY
    coefficients = _TABLE_BY_DEGREE.take(nearest.astype(np.intp), axis=1)  # a row per degree
    # Horner's rule; the result laid out as the values are (the gather's rows are row-major).
    result = np.multiply(coefficients[_DEGREE], offset, out=np.empty_like(offset))
    if result.size == 1:
        # The same steps out of place: NumPy's in-place ops cost ~3x more on one element.
        for k in range(_DEGREE - 1, 0, -1):
            result = (result + coefficients[k]) * offset
        result = result + coefficients[0]
    else:
        for k in range(_DEGREE - 1, 0, -1):
            result += coefficients[k]
            result *= offset
        result += coefficients[0]
    # Past the grid erf rounds to 1; NaN stays (np.minimum returns the NaN operand).
    return np.where(inside, result, np.minimum(m, _ONE))


def _exp_neg_square(x: np.ndarray) -> np.ndarray:
    """exp(-x*x) with x*x split so that its rounding error does not grow with x."""
    high = np.trunc(x * 16.0) / 16.0  # high*high is exact
    return np.exp(-high * high) * np.exp(-(x - high) * (x + high))


def _erfcx_continued_fraction(x: np.ndarray) -> np.ndarray:
    """erfcx for finite x >= 2: 1/sqrt(pi) / (x + (1/2)/(x + 1/(x + (3/2)/(x + ...))))."""
    denominator = x.copy()
    for k in range(_CONTINUED_FRACTION_DEPTH, 0, -1):
        denominator = x + _HALF_K[k] / denominator
    return _ONE / (_SQRT_PI_ARRAY * denominator)


def _erfc_continued_fraction(x: np.ndarray) -> np.ndarray:
    """erfc for finite x >= 2."""
    return _exp_neg_square(x) * _erfcx_continued_fraction(x)


def _erfc_nonnegative(m: np.ndarray) -> np.ndarray:
    """erfc(m) for finite m >= 0."""
    far = m >= _CONTINUED_FRACTION_START
    if not far.any():
        return _ONE - _erf_nonnegative(m)
    out = np.asarray(1.0 - _erf_nonnegative(np.where(far, 0.0, m)))  # 0-d stays an array
    out[far] = _erfc_continued_fraction(m[far])
    return out


def erf(x: np.ndarray) -> np.ndarray:
    """erf(x) = 2/sqrt(pi) * integral_0^x exp(-t^2) dt, elementwise, in x's float dtype.

    Example::

        >>> erf(np.array([0.0, 1.0]))
        array([0.        , 0.84270079])
    """
    x = np.asarray(x)
    if x.size == 1 and x.dtype.kind == "f":
        value = float(x.reshape(-1)[0])
        return np.array(math.copysign(_erf_one(abs(value)), value), x.dtype).reshape(x.shape)
    wide = x.astype(np.float64)
    out = np.copysign(_erf_nonnegative(np.abs(wide)), wide)
    return out.astype(x.dtype if x.dtype.kind == "f" else np.float64, copy=False)


def erfc(x: np.ndarray) -> np.ndarray:
    """1 - erf(x), keeping relative accuracy where it is tiny (x >= 2)."""
    if x.size == 1:
        value = float(x.reshape(-1)[0])
        if abs(value) < _CONTINUED_FRACTION_START:  # erf's table, in Python floats
            positive = 1.0 - _erf_one(abs(value))
            return np.array(2.0 - positive if value < 0 else positive).reshape(x.shape)
    wide = np.asarray(x, dtype=np.float64)
    magnitude = np.abs(wide)
    finite = np.isfinite(magnitude)
    if finite.all():  # the selections below would change nothing
        positive = _erfc_nonnegative(magnitude)
    else:
        positive = np.where(finite, _erfc_nonnegative(np.where(finite, magnitude, 0.0)), 0.0)
        positive = np.where(np.isnan(wide), wide, positive)
    return np.where(wide < 0, _TWO - positive, positive)


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


def _log_ndtr_steps(x: np.ndarray) -> np.ndarray:
    """log of the standard normal distribution function, float32 or float64 as ``x``, split at
    -1 as PyTorch's kernel and each step rounded to ``x``'s dtype as that kernel takes them.
    In float32 the result is then PyTorch's bit for bit where erfcx and erfc are, and its
    derivative exp(-(log_ndtr(x) + x^2/2)), which cancels about 770 against 770 at x = -39,
    amplifies the same rounding (fuzz seed 851598: a correctly rounded log_ndtr gave a second
    derivative 20% away from PyTorch's, and from float64's)."""
    real = x.dtype.type
    t = x * real(_SQRT_HALF)
    left = x < -1.0
    # Left tail: log(erfcx(-t) / 2) - t^2 keeps digits where ndtr itself underflows.
    scaled = _erfcx_wide(-np.where(left, t, -1.0).astype(np.float64)).astype(x.dtype)
    tail = np.log(scaled / real(2.0)) - np.where(left, t * t, real(0.0))
    complement = erfc(np.where(left, real(0.0), t)).astype(x.dtype)
    body = np.log1p(-complement / real(2.0))
    return np.where(left, np.where(x == -np.inf, -np.inf, tail), body).astype(x.dtype)


def log_ndtr(x: np.ndarray) -> np.ndarray:
    """log(ndtr(x)), accurate in both tails, in x's float dtype.

    Example::

        >>> log_ndtr(np.array([0.0]))
        array([-0.69314718])
    """
    x = np.asarray(x)
    if x.dtype == np.float32:
        return _log_ndtr_steps(x)
    return _float_result(x, _log_ndtr_steps(x.astype(np.float64)))


def _horner(x: np.ndarray, coefficients: tuple[float, ...]) -> np.ndarray:
    """The polynomial with these coefficients (highest degree first) at x."""
    result = np.full_like(x, coefficients[0])
    for c in coefficients[1:]:
        result *= x
        result += c
    return result


def _quantile_central(c: np.ndarray) -> np.ndarray:
    """ndtri(1/2 + c) / sqrt(2 pi), for |c| < 1/2 - exp(-2)."""
    square = c * c
    return c + c * (square * _horner(square, _CENTRAL_P) / _horner(square, _CENTRAL_Q))


def _quantile_tail(p: np.ndarray) -> np.ndarray:
    """-ndtri(p), for 0 < p <= exp(-2)."""
    t = np.sqrt(-2.0 * np.log(p))
    z = 1.0 / t
    near = t < 8.0
    if near.all():
        correction = _horner(z, _TAIL_NEAR_P) / _horner(z, _TAIL_NEAR_Q)
    else:
        correction = np.where(
            near,
            _horner(z, _TAIL_NEAR_P) / _horner(z, _TAIL_NEAR_Q),
            _horner(z, _TAIL_FAR_P) / _horner(z, _TAIL_FAR_Q),
        )
    return (t - np.log(t) / t) - z * correction


def ndtri(p: np.ndarray) -> np.ndarray:
    """The inverse of the standard normal distribution function (-inf at 0, inf at 1, NaN
    outside [0, 1]), in p's float dtype.

    Example::

        >>> ndtri(np.array([0.5, 0.975]))
        array([0.       , 1.95996398])
    """
    p = np.asarray(p)
    wide = p.astype(np.float64)
    # Above 1 - exp(-2) the tail is read at 1 - p (exact there) and its sign flipped.
    upper = wide > 1.0 - _EXP_MINUS_TWO
    low = np.where(upper, 1.0 - wide, wide)
    central = low > _EXP_MINUS_TWO
    if central.all():
        out = _quantile_central(low - 0.5) * _SQRT_TWO_PI
    else:
        out = np.full(wide.shape, np.nan)
        out[central] = _quantile_central(low[central] - 0.5) * _SQRT_TWO_PI
        tail = (low > 0.0) & ~central  # NaN and p outside [0, 1] stay NaN
        magnitude = _quantile_tail(low[tail])
        out[tail] = np.where(upper[tail], magnitude, -magnitude)
        out[wide == 0.0] = -np.inf
        out[wide == 1.0] = np.inf
    return _float_result(p, out)


def erfinv(x: np.ndarray) -> np.ndarray:
    """The inverse of erf on [-1, 1] (+-inf at +-1, NaN outside), in x's float dtype.

    Example::

        >>> erfinv(np.array([0.0, 0.5]))
        array([0.        , 0.47693628])
    """
    x = np.asarray(x)
    wide = x.astype(np.float64)
    # erfinv(y) = -ndtri(p) / sqrt(2) with p = (1 - |y|) / 2: p - 1/2 = -|y|/2 is exact, and so is
    # 1 - |y| on the tails (|y| > 1/2).
    half = 0.5 * np.abs(wide)
    central = half < 0.5 - _EXP_MINUS_TWO
    if central.all():
        out = _quantile_central(half) * _SQRT_TWO_PI
    else:
        out = np.full(wide.shape, np.nan)
        out[central] = _quantile_central(half[central]) * _SQRT_TWO_PI
        tail = (half < 0.5) & ~central
        out[tail] = _quantile_tail(0.5 - half[tail])
        out[half == 0.5] = np.inf
    out = np.copysign(out * _SQRT_HALF, wide)
    return _float_result(x, np.where(np.isnan(wide), wide, out))
