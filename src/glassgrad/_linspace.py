"""PyTorch's CPU linspace kernel (aten/src/ATen/native/cpu/RangeFactoriesKernel.cpp), bit for
bit: the values are computed in the result's dtype, the first half as ``start + step * i``
and the second as ``end - step * (steps - 1 - i)`` (so both ends are exact), with
``step = (end - start) / (steps - 1)``. PyTorch's kernels are compiled with fused
multiply-add on x86-64 (AVX2 and newer): each of those expressions is rounded once, which
``_fma`` reproduces. Half precision computes each operation in float and rounds it (no
fusion); integer results take a double step and truncate.
"""

from __future__ import annotations

import numpy as np

__all__ = ["linspace_values"]


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


def _fma(a: np.ndarray, b: np.ndarray, c: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """``a * b + c`` rounded once to ``dtype`` (float32 or float64)."""
    a, b, c = (np.asarray(x, np.float64) for x in (a, b, c))
    if dtype == np.float32:  # the product of two floats is exact in double
        return _round_to_float32(*_two_sum(a * b, c))
    p, pe = _two_product(a, b)
    s, se = _two_sum(p, c)
    error = pe + se
    return np.where(error == 0, s, s + error)  # adding +0 would turn a -0 sum into +0


def _halves(steps: int) -> tuple[np.ndarray, np.ndarray]:
    """The indices counted from the start (first half) and from the end (second half)."""
    halfway = steps // 2
    return np.arange(halfway), steps - 1 - np.arange(halfway, steps)


def _real(start: float, end: float, steps: int, dtype: np.dtype) -> np.ndarray:
    if dtype.kind in "iu":
        lo, hi = int(start), int(end)  # PyTorch converts the ends to the dtype first
        step = (float(hi) - float(lo)) / (steps - 1)
        ahead, behind = _halves(steps)
        values = np.concatenate(
            (_fma(step, ahead, lo, np.float64), _fma(-step, behind, hi, np.float64))
        )
        return np.trunc(values).astype(dtype)
    first, last = dtype.type(start), dtype.type(end)
    ahead, behind = _halves(steps)
    if dtype.itemsize < 4:  # Half: each operation in float, rounded to half (no fusion)
        step = (last - first) / dtype.type(steps - 1)
        return np.concatenate(
            (first + step * ahead.astype(dtype), last - step * behind.astype(dtype))
        ).astype(dtype)
    step = (last - first) / dtype.type(steps - 1)
    ahead_values = _fma(step, ahead.astype(dtype), first, dtype)
    behind_values = _fma(-step, behind.astype(dtype), last, dtype)
    return np.concatenate((ahead_values, behind_values)).astype(dtype)


def linspace_values(start: complex, end: complex, steps: int, dtype: np.dtype) -> np.ndarray:
    """``steps`` values from ``start`` to ``end`` in ``dtype``, as PyTorch's CPU kernel."""
    dtype = np.dtype(dtype)
    if steps == 0:
        return np.empty(0, dtype)
    if steps == 1:  # PyTorch fills with start
        return np.array([start]).astype(dtype)
    if dtype.kind == "c":  # complex by a real count: each part on its own
        part = np.dtype(np.float32 if dtype == np.complex64 else np.float64)
        start, end = complex(start), complex(end)
        values = np.empty(steps, dtype)
        values.real = _real(start.real, end.real, steps, part)
        values.imag = _real(start.imag, end.imag, steps, part)
        return values
    return _real(start, end, steps, dtype)
