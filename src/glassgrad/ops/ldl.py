"""The LDL factorization of symmetric matrices: ``linalg.ldl_factor`` / ``ldl_factor_ex``
(LAPACK's sytrf with Bunch-Kaufman pivoting: L unit lower triangular, D block diagonal with
1x1 and 2x2 blocks, packed in one matrix with LAPACK's pivots) and ``linalg.ldl_solve``.

NumPy has no sytrf: the unblocked algorithm (LAPACK's sytf2 / hetf2, which sytrf / hetrf run
for matrices smaller than their block size) is followed step by step, so the pivots are
LAPACK's. Complex matrices are factored as symmetric (A = L D L^T) or, with ``hermitian``, as
Hermitian (A = L D L^H, D real on its 1x1 blocks). Neither
op is differentiable in PyTorch, nor here.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import return_types
from .._dtype import scalar_type_name
from .._tensor import Tensor
from ..autograd.op import Op
from ._common import check_tensor
from ._linalg_common import LinAlgError, check_kernel_dtype, check_square, column_major, spd
from ._not_implemented import _not_implemented_node, computed_result
from ._out import out_result
from ._registry import Sample, register
from ._samples import complex_randn, randn

__all__ = ["ldl_factor", "ldl_factor_ex", "ldl_solve"]

_ALPHA = (1.0 + math.sqrt(17.0)) / 8.0  # Bunch-Kaufman's growth bound


def _abs1(x: Any) -> Any:
    """LAPACK's CABS1, |Re| + |Im|: the size that pivoting compares (|x| for real x)."""
    return np.abs(x.real) + np.abs(x.imag) if np.iscomplexobj(x) else np.abs(x)


def _swap_symmetric(a: np.ndarray, kk: int, kp: int, hermitian: bool) -> None:
    """Interchange rows and columns kk < kp of the lower trailing matrix (sytf2's swaps; the
    entries between them change triangle, so hetf2 conjugates them)."""
    a[kp + 1 :, [kk, kp]] = a[kp + 1 :, [kp, kk]]
    between = a[kk + 1 : kp, kk].copy()
    a[kk + 1 : kp, kk] = a[kp, kk + 1 : kp]
    a[kp, kk + 1 : kp] = between
    if hermitian:
        a[kk + 1 : kp, kk] = np.conj(a[kk + 1 : kp, kk])
        a[kp, kk + 1 : kp] = np.conj(a[kp, kk + 1 : kp])
        a[kp, kk] = np.conj(a[kp, kk])
    a[kk, kk], a[kp, kp] = a[kp, kp], a[kk, kk]


def _sytf2(a: np.ndarray, hermitian: bool) -> tuple:
    """``(LD, pivots, info)`` of one symmetric (``hermitian``: Hermitian, for complex input)
    matrix, read from its lower triangle: LAPACK's sytf2 / hetf2, lower."""
    a = np.tril(a).astype(a.dtype, copy=True)
    hermitian = hermitian and a.dtype.kind == "c"
    conj = np.conj if hermitian else (lambda x: x)
    diagonal = np.real if hermitian else (lambda x: x)  # hetf2 reads real diagonals only
    if hermitian:
        np.fill_diagonal(a, a.diagonal().real)
    n = a.shape[0]
    pivots = np.zeros(n, np.int32)
    info = 0
    k = 0
    while k < n:
        step = 1
        absakk = _abs1(diagonal(a[k, k]))
        if k < n - 1:
            imax = k + 1 + int(np.argmax(_abs1(a[k + 1 :, k])))
            colmax = _abs1(a[imax, k])
        else:
            imax, colmax = k, 0.0
        if max(absakk, colmax) == 0 or np.isnan(absakk):
            info = info or k + 1
            kp = k
        else:
            if absakk >= _ALPHA * colmax:
                kp = k
            else:
                jmax = k + int(np.argmax(_abs1(a[imax, k:imax])))
                rowmax = _abs1(a[imax, jmax])
                if imax < n - 1:
                    rowmax = max(rowmax, float(np.max(_abs1(a[imax + 1 :, imax]))))
                if absakk >= _ALPHA * colmax * (colmax / rowmax):
                    kp = k
                elif _abs1(diagonal(a[imax, imax])) >= _ALPHA * rowmax:
                    kp = imax
                else:
                    kp, step = imax, 2
            kk = k + step - 1
            if kp != kk:
                _swap_symmetric(a, kk, kp, hermitian)
                if step == 2:
                    a[k + 1, k], a[kp, k] = a[kp, k], a[k + 1, k]
            if step == 1:
                if k < n - 1:  # A -= w w^T / d (w^H for Hermitian), L's column w / d
                    r1 = 1.0 / diagonal(a[k, k])
                    column = a[k + 1 :, k].copy()
                    a[k + 1 :, k + 1 :] += np.tril(np.outer(column, -r1 * conj(column)))
                    a[k + 1 :, k] = column * r1
            elif k < n - 2:
                _block_update(a, k, hermitian)
            if hermitian:
                np.fill_diagonal(a, a.diagonal().real)
        if step == 1:
            pivots[k] = kp + 1
        else:
            pivots[k] = pivots[k + 1] = -(kp + 1)
        k += step
    return a, pivots, info


def _block_update(a: np.ndarray, k: int, hermitian: bool) -> None:
    """The rank-2 update of the trailing matrix by the 2x2 pivot block at k (sytf2 / hetf2),
    and L's two columns."""
    if hermitian:
        d = abs(a[k + 1, k])
        d11, d22 = a[k + 1, k + 1].real / d, a[k, k].real / d
        d21 = a[k + 1, k] / d
        d = 1.0 / (d11 * d22 - 1.0) / d
        wk = d * (d11 * a[k + 2 :, k] - d21 * a[k + 2 :, k + 1])
        wkp1 = d * (d22 * a[k + 2 :, k + 1] - np.conj(d21) * a[k + 2 :, k])
        update = np.outer(a[k + 2 :, k], np.conj(wk)) + np.outer(a[k + 2 :, k + 1], np.conj(wkp1))
    else:
        d21 = a[k + 1, k]
        d11, d22 = a[k + 1, k + 1] / d21, a[k, k] / d21
        d21 = 1.0 / (d11 * d22 - 1.0) / d21
        wk = d21 * (d11 * a[k + 2 :, k] - a[k + 2 :, k + 1])
        wkp1 = d21 * (d22 * a[k + 2 :, k + 1] - a[k + 2 :, k])
        update = np.outer(a[k + 2 :, k], wk) + np.outer(a[k + 2 :, k + 1], wkp1)
    a[k + 2 :, k + 2 :] -= np.tril(update)
    a[k + 2 :, k], a[k + 2 :, k + 1] = wk, wkp1


def ldl_arrays(a: np.ndarray, hermitian: bool = False) -> tuple[Any, ...]:
    """``_sytf2`` over a batch; LD column-major as LAPACK's sytrf leaves it."""
    flat = a.reshape(-1, *a.shape[-2:])
    results = [_sytf2(m, hermitian) for m in flat]
    n = a.shape[-1]
    ld = np.stack([r[0] for r in results]) if results else np.zeros(flat.shape, a.dtype)
    pivots = np.stack([r[1] for r in results]) if results else np.zeros((0, n), np.int32)
    info = np.array([r[2] for r in results], np.int32)
    return (
        column_major(ld.reshape(a.shape)),
        pivots.reshape(a.shape[:-1]),
        info.reshape(a.shape[:-2]),
    )


def _sytrs(ld: np.ndarray, pivots: np.ndarray, b: np.ndarray, hermitian: bool) -> np.ndarray:
    """X with A X = B for A = P L D L^T P^T (L^H: ``hermitian``, for complex input) packed by
    ``_sytf2``: LAPACK's sytrs / hetrs, lower."""
    x = np.array(b, dtype=np.result_type(ld, b))
    hermitian = hermitian and ld.dtype.kind == "c"
    conj = np.conj if hermitian else (lambda v: v)
    n = ld.shape[0]
    k = 0
    while k < n:  # solve L D y = P^T b
        if pivots[k] > 0:
            kp = pivots[k] - 1
            x[[k, kp]] = x[[kp, k]]
            x[k + 1 :] -= np.outer(ld[k + 1 :, k], x[k])
            x[k] *= 1.0 / (ld[k, k].real if hermitian else ld[k, k])
            k += 1
        else:
            kp = -pivots[k] - 1
            x[[k + 1, kp]] = x[[kp, k + 1]]
            x[k + 2 :] -= np.outer(ld[k + 2 :, k], x[k]) + np.outer(ld[k + 2 :, k + 1], x[k + 1])
            akm1k = ld[k + 1, k]
            akm1, ak = ld[k, k] / conj(akm1k), ld[k + 1, k + 1] / akm1k
            denom = akm1 * ak - 1.0
            bkm1, bk = x[k] / conj(akm1k), x[k + 1] / akm1k
            x[k], x[k + 1] = (ak * bkm1 - bk) / denom, (akm1 * bk - bkm1) / denom
            k += 2
    k = n - 1
    while k >= 0:  # solve L^T P^T x = y (L^H)
        if pivots[k] > 0:
            x[k] -= conj(ld[k + 1 :, k]) @ x[k + 1 :]
            kp = pivots[k] - 1
            x[[k, kp]] = x[[kp, k]]
            k -= 1
        else:
            x[k] -= conj(ld[k + 1 :, k]) @ x[k + 1 :]
            x[k - 1] -= conj(ld[k + 1 :, k - 1]) @ x[k + 1 :]
            kp = -pivots[k] - 1
            x[[k, kp]] = x[[kp, k]]
            k -= 2
    return x


def _check_hermitian(op: str, hermitian: bool) -> None:
    if not isinstance(hermitian, bool):
        raise TypeError(
            f"{op}(): argument 'hermitian' must be bool, not {type(hermitian).__name__}"
        )


# PyTorch records LDL with nodes whose backward raises: the results require grad.
LdlFactorNotImplemented: type[Op] = _not_implemented_node("linalg_ldl_factor_ex", computed_result)
LdlSolveNotImplemented: type[Op] = _not_implemented_node("linalg_ldl_solve", computed_result)


def ldl_factor_ex(
    A: Tensor, *, hermitian: bool = False, check_errors: bool = False, out: Any = None
) -> tuple[Tensor, ...]:
    """``(LD, pivots, info)``: the Bunch-Kaufman LDL factorization of a symmetric matrix (its
    lower triangle is read), packed as LAPACK's sytrf packs it (``hermitian``: A = L D L^H of
    a Hermitian complex matrix, as hetrf; no difference for real input); ``info`` is the 1-based index
    of the first zero pivot of D (0 when none). Not differentiable: as in PyTorch, ``LD``
    requires grad when ``A`` does and its backward raises.

    Example::

        >>> LD, pivots, info = glassgrad.linalg.ldl_factor_ex(glassgrad.tensor([[4.0, 2.0], [2.0, 3.0]]))
        >>> LD
        tensor([[4.0000, 0.0000],
                [0.5000, 2.0000]])
    """
    data = check_tensor(A, "linalg.ldl_factor_ex", "A")._data
    _check_hermitian("linalg_ldl_factor_ex", hermitian)
    check_square(
        "torch.linalg.ldl_factor_ex", data, kernel="ldl_factor_kernel_cpu", complex_ok=True
    )
    ld, pivots, info = ldl_arrays(data, hermitian)
    if check_errors and info.any():
        first = int(info.reshape(-1)[np.flatnonzero(info.reshape(-1))[0]])
        raise LinAlgError(
            f"torch.linalg.ldl_factor_ex: The factorization could not be completed because the "
            f"input is singular: D[{first},{first}] is zero."
        )
    result = return_types.linalg_ldl_factor_ex(
        LdlFactorNotImplemented.apply(A, after=ld),
        Tensor._from_array(pivots),
        Tensor._from_array(info),
    )
    return out_result("linalg_ldl_factor_ex", out, result, (A,), exact=True)


def ldl_factor(A: Tensor, *, hermitian: bool = False, out: Any = None) -> tuple[Tensor, ...]:
    """``(LD, pivots)``: ``ldl_factor_ex`` without the info (a zero pivot is an error).

    Example::

        >>> LD, pivots = glassgrad.linalg.ldl_factor(glassgrad.tensor([[0.0, 1.0], [1.0, 0.0]]))
        >>> pivots
        tensor([-2, -2], dtype=glassgrad.int32)
    """
    data = check_tensor(A, "linalg.ldl_factor", "A")._data
    _check_hermitian("linalg_ldl_factor", hermitian)
    check_square(
        "torch.linalg.ldl_factor_ex", data, kernel="ldl_factor_kernel_cpu", complex_ok=True
    )
    ld, pivots, info = ldl_arrays(data, hermitian)
    if info.any():
        first = int(info.reshape(-1)[np.flatnonzero(info.reshape(-1))[0]])
        raise LinAlgError(
            f"torch.linalg.ldl_factor: The factorization could not be completed because the "
            f"input is singular: D[{first},{first}] is zero."
        )
    result = return_types.linalg_ldl_factor(
        LdlFactorNotImplemented.apply(A, after=ld), Tensor._from_array(pivots)
    )
    return out_result("linalg_ldl_factor", out, result, (A,), exact=True)


def ldl_solve(
    LD: Tensor, pivots: Tensor, B: Tensor, *, hermitian: bool = False, out: Any = None
) -> Tensor:
    """The solution X of ``A X = B`` given the LDL factorization ``(LD, pivots)`` of the
    symmetric A from ``ldl_factor`` (``hermitian``: of the Hermitian A, for complex input,
    as factored with ``hermitian=True``). Not differentiable (the result requires grad, its
    backward raises, as PyTorch's).

    Example::

        >>> LD, pivots = glassgrad.linalg.ldl_factor(glassgrad.tensor([[4.0, 2.0], [2.0, 3.0]]))
        >>> glassgrad.linalg.ldl_solve(LD, pivots, glassgrad.tensor([[6.0], [5.0]]))
        tensor([[1.],
                [1.]])
    """
    op = "torch.linalg.ldl_solve"
    ld = check_tensor(LD, "linalg.ldl_solve", "LD")._data
    piv = check_tensor(pivots, "linalg.ldl_solve", "pivots", 2)._data
    b = check_tensor(B, "linalg.ldl_solve", "B", 3)._data
    _check_hermitian("linalg_ldl_solve", hermitian)
    check_square(op, ld, "LD", complex_ok=True)
    check_kernel_dtype("ldl_solve_kernel_cpu", ld, complex_ok=True)
    if b.ndim < 2:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-max(b.ndim, 1)}, "
            f"{max(b.ndim, 1) - 1}], but got -2)"
        )
    if piv.dtype.kind not in "iu":
        raise RuntimeError(
            f"{op}: Expected pivots to be integers. Got {scalar_type_name(piv.dtype)}"
        )
    if piv.shape != ld.shape[:-1]:
        raise RuntimeError(f"{op}: Expected LD.shape[:-1] and pivots.shape to be the same")
    if b.shape[-2] != ld.shape[-1]:
        raise RuntimeError(
            f"Incompatible matrix sizes for {op}: each A matrix is {ld.shape[-2]} by "
            f"{ld.shape[-1]} but each b matrix is {b.shape[-2]} by {b.shape[-1]}"
        )
    if ld.dtype != b.dtype:
        raise RuntimeError(
            f"Expected b and A to have the same dtype, but found b of type "
            f"{scalar_type_name(b.dtype)} and A of type {scalar_type_name(ld.dtype)} instead."
        )
    # LAPACK's sytrs would read outside the matrix: PyTorch's kernel checks the pivots
    for bad, bound in ((np.abs(piv) < 1, ">= 1"), (np.abs(piv) > ld.shape[-2], "<= LD.size(-2)")):
        if bad.any():
            raise RuntimeError(
                f"Pivots given to ldl_solve must all satisfy |pivot| {bound}. Did you properly "
                "pass the result of ldl_factor?"
            )
    batch = np.broadcast_shapes(ld.shape[:-2], b.shape[:-2])
    lds = np.broadcast_to(ld, (*batch, *ld.shape[-2:])).reshape(-1, *ld.shape[-2:])
    pivs = np.broadcast_to(piv, (*batch, piv.shape[-1])).reshape(-1, piv.shape[-1])
    bs = np.broadcast_to(b, (*batch, *b.shape[-2:])).reshape(-1, *b.shape[-2:])
    x = [_sytrs(m, p, r, hermitian) for m, p, r in zip(lds, pivs, bs)]
    x = np.stack(x) if bs.size else bs.copy()
    result = LdlSolveNotImplemented.apply(
        LD, B, after=column_major(x.reshape(*batch, *b.shape[-2:]).astype(b.dtype))
    )
    return out_result("linalg_ldl_solve", out, result, (LD, B), exact=True)


# --- registry ----------------------------------------------------------------------------


def _symmetric_indefinite(rng: np.random.Generator, *shape: int, kind: str = "real") -> np.ndarray:
    """A symmetric matrix; complex ones symmetric, or ``kind="hermitian"`` Hermitian."""
    m = randn(rng, *shape) if kind == "real" else complex_randn(rng, *shape)
    transposed = np.swapaxes(m, -1, -2)
    return m + (np.conj(transposed) if kind == "hermitian" else transposed)


def _factored(rng: np.random.Generator, *shape: int, kind: str = "real") -> tuple:
    ld, pivots, _ = ldl_arrays(_symmetric_indefinite(rng, *shape, kind=kind), kind == "hermitian")
    return ld, pivots


register(
    "ldl_factor",
    ldl_factor,
    namespace="linalg",
    differentiable=False,
    samples=lambda rng: [
        Sample((spd(rng, 3, 3),)),
        Sample((_symmetric_indefinite(rng, 5, 5),)),
        Sample((_symmetric_indefinite(rng, 2, 4, 4),)),
        Sample((np.array([[0.0, 1.0, 2.0], [1.0, 0.0, 3.0], [2.0, 3.0, 0.0]]),), note="2x2 blocks"),
        Sample((_symmetric_indefinite(rng, 4, 4, kind="complex"),), note="complex symmetric"),
        Sample(
            (_symmetric_indefinite(rng, 2, 4, 4, kind="hermitian"),),
            {"hermitian": True},
            note="complex Hermitian",
        ),
    ],
)
register(
    "ldl_factor_ex",
    ldl_factor_ex,
    namespace="linalg",
    differentiable=False,
    samples=lambda rng: [
        Sample((_symmetric_indefinite(rng, 4, 4),)),
        Sample((np.zeros((2, 2)),), note="singular: info"),
        Sample(
            (_symmetric_indefinite(rng, 5, 5, kind="hermitian"),),
            {"hermitian": True},
            note="complex Hermitian",
        ),
    ],
)
register(
    "ldl_solve",
    ldl_solve,
    namespace="linalg",
    differentiable=False,
    samples=lambda rng: [
        Sample((*_factored(rng, 4, 4), randn(rng, 4, 2))),
        Sample((*_factored(rng, 2, 3, 3), randn(rng, 3, 1))),
        Sample((*_factored(rng, 5, 5), randn(rng, 2, 5, 3)), note="broadcast B"),
        Sample((*_factored(rng, 4, 4, kind="complex"), complex_randn(rng, 4, 2)), note="complex"),
        Sample(
            (*_factored(rng, 2, 4, 4, kind="hermitian"), complex_randn(rng, 4, 3)),
            {"hermitian": True},
            note="complex Hermitian",
        ),
    ],
)
