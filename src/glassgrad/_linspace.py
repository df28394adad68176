"""PyTorch's CPU linspace kernel (aten/src/ATen/native/cpu/RangeFactoriesKernel.cpp), bit for
bit: the values are computed in the result's dtype, the first half as ``start + step * i``
and the second as ``end - step * (steps - 1 - i)`` (so both ends are exact), with
``step = (end - start) / (steps - 1)``. PyTorch's kernels are compiled with fused
multiply-add on x86-64 (AVX2 and newer): each of those expressions is rounded once, which
``fma`` reproduces. Half precision computes each operation in float and rounds it (no
fusion); integer results take a double step and truncate.
"""

from __future__ import annotations

import numpy as np

from ._fma import fma

__all__ = ["linspace_values"]


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
            (fma(step, ahead, lo, np.float64), fma(-step, behind, hi, np.float64))
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
    ahead_values = fma(step, ahead.astype(dtype), first, dtype)
    behind_values = fma(-step, behind.astype(dtype), last, dtype)
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
