"""Fused multiply-add on NumPy arrays: ``a * b + c`` rounded once, in float32 or float64.

PyTorch's CPU kernels are compiled with fused multiply-add on x86-64 (AVX2 and newer), and the
compiler contracts ``a * b - c`` into one: linspace (``start + step * i``) and the
three-term recurrences of the special polynomials (``(x + x) * q - p``) round once per step.
NumPy has no fused operation, so :func:`fma` builds one from exact transformations: the product
of two floats is exact in double (float32), Dekker's product and Knuth's sum carry the
rounding errors (float64).
"""

from __future__ import annotations

import ctypes
import math

import numpy as np

__all__ = ["float32_doubtful", "fma", "fms_float32", "fms_float64", "round_float32"]

_C_FLOAT = ctypes.c_float  # C's conversion of a double: round to nearest, inf past the largest
_FLOAT32_TINY = 2.0**-126  # the smallest normal float32
_VELTKAMP_25 = 268435457.0  # 2**28 + 1: Veltkamp's split of a double at 25 bits


def _two_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``s + e == a + b`` exactly, ``s`` the rounded sum (Knuth)."""
    s = a + b
    v = s - a
    return s, (a - (s - v)) + (b - v)


def _split(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Veltkamp's split of a double into two 26-bit halves."""
    c = 134217729.0 * a  # 2**27 + 1
    high = c - (c - a)
    return high, a - high


def _two_product(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``p + e == a * b`` exactly, ``p`` the rounded product (Dekker)."""
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _round_to_float32(s: np.ndarray, e: np.ndarray) -> np.ndarray:
    """``s + e`` (doubles, ``|e|`` below half an ulp of ``s``) rounded once to float32: ``s``
    rounds to the same float32 unless it lies exactly halfway between two, where the sign
    of ``e`` decides."""
    r = s.astype(np.float32)
    other = np.nextafter(r, np.where(s > r, np.float32(np.inf), np.float32(-np.inf)))
    tie = (r.astype(np.float64) + other.astype(np.float64)) / 2 == s
    toward_other = (other.astype(np.float64) - s) * e > 0
    return np.where(tie & toward_other, other, r)


def fma(a: np.ndarray, b: np.ndarray, c: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """``a * b + c`` rounded once to ``dtype`` (float32 or float64).

    Example::

        >>> a = np.float32(1 + 2**-12)  # a * a rounds off its last term, 2**-24
        >>> float(fma(a, a, np.float32(-1), np.float32) - (a * a - 1))
        5.960464477539063e-08
    """
    a, b, c = (np.asarray(x, np.float64) for x in (a, b, c))
    with np.errstate(invalid="ignore", over="ignore"):  # a product that overflows: inf
        if dtype == np.float32:  # the product of two floats is exact in double
            p = a * b
            s = np.asarray(p + c)
            # Rounding s again to float32 is the fused result unless s lies halfway between
            # two floats (its low 29 bits 1 then 28 zeros; any subnormal float is checked)
            halfway = (s.view(np.uint64) & 0x1FFFFFFF) == 0x10000000
            if (halfway | ((s != 0) & (np.abs(s) < 2.0**-126))).any():
                return _round_to_float32(*_two_sum(p, c))
            return s.astype(np.float32)
        p, pe = _two_product(a, b)
        s, se = _two_sum(p, c)
        error = pe + se
    # +0 would turn a -0 sum into +0; an error that is not finite (a product or sum that
    # overflows, an inf or NaN operand) leaves the rounded sum, as the fused operation gives
    return np.where((error == 0) | ~np.isfinite(error), s, s + error)


def round_float32(v: float) -> float:
    """The Python float ``v`` rounded to the nearest float32, as NumPy's cast (inf past the
    largest float32, without NumPy's overflow warning), at a third of its cost.

    Example::

        >>> round_float32(0.1)
        0.10000000149011612
    """
    return _C_FLOAT(v).value


def float32_doubtful(doubles: np.ndarray) -> np.ndarray | None:
    """Where rounding ``doubles`` to float32 may not round the exact values they were rounded
    from: a double exactly halfway between two normal float32 (the exact value may lie on either
    side), or one in float32's subnormal range (where the float32 step is coarser). ``None``
    where there is none (the usual case), else a boolean mask of ``doubles``' shape.

    Example::

        >>> float32_doubtful(np.array([0.1, 1 + 2.0**-24])).tolist()
        [False, True]
    """
    # halfway: the 29 low bits of the 52-bit fraction are 1 then 28 zeros (NaN and inf: 0)
    halfway = (doubles.view(np.uint64) << _LOW_29) == _HALFWAY_BITS
    magnitude = np.abs(doubles)
    if np.minimum.reduce(magnitude, axis=None) >= _FLOAT32_TINY:  # no zero or subnormal
        return halfway if np.count_nonzero(halfway) else None
    doubtful = halfway | ((magnitude < _FLOAT32_TINY) & (magnitude != 0))
    return doubtful if np.count_nonzero(doubtful) else None


_LOW_29 = np.uint64(35)
_HALFWAY_BITS = np.uint64(1 << 63)


def fms_float32(a: float, b: float, c: float) -> float:
    """``a * b - c`` of float32 values (as Python floats) rounded once to float32: :func:`fma`
    without NumPy's per-call cost. The product is exact in double; the difference, rounded to
    double, rounds to the same float32 unless it lies halfway between two (or in float32's
    subnormal range), where Knuth's two-sum gives the side.

    Example::

        >>> a = float(np.float32(1 + 2**-12))
        >>> fms_float32(a, a, 1.0)
        0.0004883408546447754
    """
    p = a * b
    s = p - c
    r = _C_FLOAT(s).value
    if r == s:
        return r
    t = _VELTKAMP_25 * s  # s rounded to 25 bits: s itself only if it may be halfway
    if t - (t - s) != s and not -_FLOAT32_TINY < s < _FLOAT32_TINY:
        return r
    if not _halfway_between_floats(s):
        return r
    v = s - p
    error = (p - (s - v)) + (-c - v)
    if error == 0 or (r > s) == (error > 0):  # a true tie, or r on the exact sum's side
        return r
    toward = np.float32(np.inf if error > 0 else -np.inf)
    return float(np.nextafter(np.float32(r), toward))


def fms_float64(a: float, b: float, c: float) -> float:
    """``a * b - c`` of Python floats rounded once (Dekker's product and Knuth's sum carry
    the rounding errors, as :func:`fma`).

    Example::

        >>> a = 1 + 2.0**-30
        >>> fms_float64(a, a, 1.0) - (a * a - 1)
        8.673617379884035e-19
    """
    p = a * b
    s = p - c
    if not math.isfinite(s):
        return s
    t = 134217729.0 * a  # Veltkamp's split and Dekker's product, as _two_product
    ah = t - (t - a)
    t = 134217729.0 * b
    bh = t - (t - b)
    al, bl = a - ah, b - bh
    v = s - p
    error = (((ah * bh - p) + ah * bl + al * bh) + al * bl) + ((p - (s - v)) + (-c - v))
    if error == 0 or not math.isfinite(error):
        return s
    return s + error


def _halfway_between_floats(s: float) -> bool:
    """Whether the double ``s`` lies exactly halfway between two float32 values."""
    if s == 0 or not math.isfinite(s):
        return False
    e = math.frexp(s)[1]
    if e > 128:  # from 2**128 on, no float32 either side (rounding gives inf)
        return False
    e = max(e, -125)  # a float32 keeps 24 bits; below 2**-126, steps of 2**-149
    t = math.ldexp(s, 25 - e)  # s in halves of the float32 step there
    return t == math.floor(t) and math.floor(t) % 2 == 1
