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

__all__ = ["COMPLEX64", "COMPLEX128", "as_add_kernel", "scaled"]

# NumPy's built-in dtypes are singletons: identity tests are the cheapest check on the real
# hot path (a dtype's ``kind`` builds a string each time).
COMPLEX64, COMPLEX128 = np.dtype(np.complex64), np.dtype(np.complex128)


def scaled(b: Any, alpha: Any, dtype: np.dtype) -> Any:
    """``alpha * b`` as PyTorch's kernels with an ``alpha`` (add, sub, index_add, the
    engine's and AccumulateGrad's sums with alpha 1) compute it in the result's ``dtype``: for
    a complex result the product is taken even when alpha is 1, and a non-finite part of
    ``b`` spreads a NaN to the other part (``1 * (nan + 0j)`` is ``nan + nanj``); for real
    ones 1 changes nothing."""
    if dtype.kind == "c":
        return np.asarray(b, dtype) * alpha
    return b if alpha == 1 else b * alpha


def as_add_kernel(out: Any, a: Any, b: Any) -> Any:
    """``out``, NumPy's ``a + b``, as PyTorch's add kernel gives it: recomputed with the
    complex product ``1 * b`` (``scaled``) when it is complex, as it is otherwise (a Tensor
    too: its add is the kernel's already)."""
    dtype = getattr(out, "dtype", None)
    if dtype is COMPLEX64 or dtype is COMPLEX128:
        return a + scaled(b, 1, dtype)
    return out
