"""What the linear-algebra op modules share: LinAlgError, PyTorch's input checks and error
messages for (batches of) matrices, and the matrices their test samples are made of."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._dtype import scalar_type_name
from .._tensor import Tensor
from ._samples import randn

__all__ = [
    "LinAlgError",
    "check_floating",
    "check_square",
    "check_kernel_dtype",
    "all_finite",
    "swap",
    "adjoint",
    "column_major",
    "batch_prefix",
    "info_prefix",
    "nonfinite_svd",
    "singular_error",
    "cholesky_with_info",
    "constant_like",
    "spd",
    "invertible",
]


class LinAlgError(RuntimeError):
    """A matrix the operation cannot handle (singular, not positive-definite), as
    ``torch.linalg.LinAlgError``."""


def check_floating(op: str, a: np.ndarray, complex_ok: bool = False) -> None:
    """A floating input (or complex, where the op supports it: ``complex_ok``). A complex
    input of an op that does not yet take one is refused by name, never computed wrongly."""
    if a.dtype.kind == "c" and not complex_ok:
        raise NotImplementedError(
            f"{op}: complex inputs are not supported by glassgrad yet (got "
            f"{scalar_type_name(a.dtype)})"
        )
    if a.dtype.kind not in "fc":
        raise RuntimeError(
            f"{op}: Expected a floating point or complex tensor as input. Got {scalar_type_name(a.dtype)}"
        )


def check_square(
    op: str,
    a: np.ndarray,
    name: str = "A",
    kernel: str | None = None,
    floating: bool = True,
    complex_ok: bool = False,
) -> None:
    """PyTorch's checks of a (batch of) square matrices: floating ones first (integers are
    refused by name; complex ones where the op has complex formulas, ``complex_ok``) unless
    not ``floating``; with ``kernel``, the dtype is also checked last, with PyTorch's
    NotImplementedError naming that LAPACK kernel (float16, and the integers that reach it)."""
    if floating:
        check_floating(op, a, complex_ok)
    if a.ndim < 2:
        raise RuntimeError(f"{op}: The input tensor {name} must have at least 2 dimensions.")
    if a.shape[-1] != a.shape[-2]:
        raise RuntimeError(
            f"{op}: {name} must be batches of square matrices, but they are {a.shape[-2]} by "
            f"{a.shape[-1]} matrices"
        )
    if kernel is not None:
        check_kernel_dtype(kernel, a, complex_ok)


def check_full_precision(op: str, a: np.ndarray) -> None:
    """PyTorch's refusal of float16 where a linear-algebra function checks the precision
    itself (``checkFloatingOrComplex`` with ``allow_low_precision_dtypes=false``)."""
    if a.dtype == np.float16:
        raise RuntimeError(f"{op}: Low precision dtypes not supported. Got Half")


def check_kernel_dtype(kernel: str, a: np.ndarray, complex_ok: bool = False) -> None:
    """LAPACK kernels run on float32 and float64 (and, where glassgrad has the complex
    formulas, complex64 and complex128) only: PyTorch's NotImplementedError."""
    if complex_ok and a.dtype in (np.complex64, np.complex128):
        return
    if a.dtype not in (np.float32, np.float64):
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{scalar_type_name(a.dtype)}'")


def all_finite(a: np.ndarray) -> bool:
    """Whether ``a`` holds no NaN or inf, by its sum (cheaper than ``isfinite(a).all()``; a
    sum of finite entries that overflows also answers False, which only sends a caller to
    the exact path that non-finite entries take)."""
    total = np.add.reduce(a, axis=None)
    return math.isfinite(total.real) and math.isfinite(total.imag)


def swap(a: np.ndarray) -> np.ndarray:
    return np.swapaxes(a, -1, -2)


def adjoint(F: Any, x: Any) -> Any:
    """``x^H`` in a backward formula (``x^T`` for real ``x``): complex formulas are the real
    ones with the transposes conjugated."""
    transposed = F.mT(x)
    data = x._data if isinstance(x, Tensor) else x
    return F.conj(transposed) if data.dtype.kind == "c" else transposed


def column_major(a: np.ndarray) -> np.ndarray:
    """``a`` laid out as LAPACK returns it and PyTorch keeps it: each matrix column-major
    (strides (1, m)), the batch of matrices row-major (stride m*n). A user's later ``.mT.view``
    or ``stride()`` then agrees with PyTorch's."""
    return swap(np.ascontiguousarray(swap(a)))


def batch_prefix(a: np.ndarray, failing: Any) -> tuple[Any, ...]:
    """The first matrix of the batch for which ``failing(matrix)`` is true, and PyTorch's
    "(Batch element k): " prefix for it (empty for a single matrix)."""
    matrices = a.reshape((-1,) + a.shape[-2:])
    for k, m in enumerate(matrices):
        if failing(m):
            return m, (f"(Batch element {k}): " if a.ndim > 2 else "")
    return matrices[0], ""


def info_prefix(info: np.ndarray) -> str:
    """PyTorch's "(Batch element k): " prefix for the first matrix whose LAPACK ``info`` is
    not 0 (empty for a single matrix)."""
    return f"(Batch element {int(np.flatnonzero(info)[0])}): " if info.ndim else ""


def nonfinite_svd(a: np.ndarray, full_matrices: bool) -> tuple[Any, ...] | None:
    """PyTorch's SVD (MKL's gesdd) of matrices holding a NaN or inf, where NumPy's LAPACK
    build cannot be asked (its gesdd never returns on an inf): a NaN is refused, with
    PyTorch's error; a matrix holding an inf gets NaN singular values, and U and Vh all NaN
    (MKL leaves some of their entries finite, in a pattern not reproduced: docs/fuzzing.md),
    the others their SVD. None when all are finite."""
    if all_finite(a):
        return None
    nan = np.isnan(a).reshape(-1, a.shape[-2] * a.shape[-1]).any(axis=1)
    if nan.any():
        raise LinAlgError(
            f"linalg.svd: {info_prefix(nan.reshape(a.shape[:-2]))}The algorithm failed to "
            "converge because the input matrix contained non-finite values."
        )
    infinite = ~np.isfinite(a).all(axis=(-2, -1))
    u, s, vh = np.linalg.svd(np.where(infinite[..., None, None], 0, a), full_matrices)
    u[infinite], s[infinite], vh[infinite] = np.nan, np.nan, np.nan
    return u, s, vh


def singular_error(op: str, info: np.ndarray) -> LinAlgError:
    """PyTorch's error for a matrix whose getrf ``info`` names a zero pivot."""
    first = int(info.reshape(-1)[np.flatnonzero(info)[0]])
    return LinAlgError(
        f"{op}: {info_prefix(info)}The diagonal element {first} is zero, the inversion "
        "could not be completed because the input matrix is singular."
    )


def cholesky_with_info(a: np.ndarray) -> tuple[Any, ...]:
    """``(L, info)`` of LAPACK's unblocked Cholesky (potf2), column by column: where a leading
    minor is not positive-definite (``info``, 1-based, 0 when none) the factor stops there and
    the rest of the lower triangle keeps A's entries, as LAPACK leaves them."""
    n = a.shape[-1]
    lower = np.tril(a).reshape(-1, n, n).copy()
    info = np.zeros(lower.shape[0], np.int32)
    for j in range(n):
        live = info == 0
        row = lower[:, j, :j]
        pivot = lower[:, j, j] - np.einsum("bk,bk->b", row, np.conj(row))
        failed = live & ~(pivot > 0)
        lower[failed, j, j] = pivot[failed]
        info[failed] = j + 1
        ok = live & ~failed
        root = np.sqrt(np.where(ok, pivot, 1.0))
        lower[ok, j, j] = root[ok]
        below = lower[:, j + 1 :, j] - np.einsum("bik,bk->bi", lower[:, j + 1 :, :j], np.conj(row))
        lower[ok, j + 1 :, j] = below[ok] / root[ok, None]
    return lower.reshape(a.shape), info.reshape(a.shape[:-2])


def constant_like(like: Any, array: np.ndarray) -> Any:
    """``array`` in the namespace of ``like`` inside a backward formula: a Tensor (requiring no
    grad) when the formula builds a graph, else the array itself."""
    return Tensor._from_array(array) if isinstance(like, Tensor) else array


def spd(rng: np.random.Generator, *shape: int) -> np.ndarray:
    """Symmetric positive-definite matrices of ``shape`` (..., n, n)."""
    m = randn(rng, *shape)
    n = shape[-1]
    return m @ swap(m) + n * np.eye(n)


def invertible(rng: np.random.Generator, *shape: int) -> np.ndarray:
    """Well-conditioned random matrices (a random matrix plus a multiple of I)."""
    return randn(rng, *shape) + 3 * np.eye(shape[-1])
