"""PyTorch's add kernel on NumPy arrays, ``a + alpha * b``, in complex dtypes.

PyTorch adds (and subtracts, with ``-alpha``) as ``a + alpha * b`` whatever ``alpha`` is, and
in a complex dtype ``alpha * b`` is a complex product even for ``alpha`` 1: ``(1 + 0j) *
(inf + 0j)`` is ``inf + nanj`` (``1 * 0 + 0 * inf``). So ``x + y`` with an infinite or NaN part
in ``y`` has a NaN in the other part, where NumPy's sum keeps it; the autograd engine sums
gradients with the same kernel. Real dtypes are unaffected (``1 * b`` is ``b``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["add_operand", "as_add_kernel"]

# NumPy's built-in dtypes are singletons: identity tests are the cheapest check on the real
# hot path (a dtype's ``kind`` builds a string each time).
_COMPLEX64, _COMPLEX128 = np.dtype(np.complex64), np.dtype(np.complex128)


def as_add_kernel(out: Any, a: Any, b: Any, alpha: Any = 1) -> Any:
    """``out``, NumPy's ``a + alpha * b``, as PyTorch's add kernel gives it: recomputed with
    a complex product ``alpha * b`` when it is complex, as it is otherwise (a Tensor too:
    its add is the kernel's already)."""
    dtype = getattr(out, "dtype", None)
    if dtype is _COMPLEX64 or dtype is _COMPLEX128:
        return a + np.multiply(alpha, b, dtype=dtype)
    return out


def add_operand(b: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """``1 * b`` as PyTorch's add kernel adds it into a result of ``dtype`` (``a += b``)."""
    if dtype is _COMPLEX64 or dtype is _COMPLEX128:
        return np.multiply(1, b, dtype=dtype)
    return b
