"""LAPACK's unblocked QR routines (geqr2, org2r) step by step, as PyTorch's MKL runs them on
a matrix holding a NaN or an inf.

NumPy's LAPACK (OpenBLAS) spreads a NaN or inf through a QR otherwise than MKL does, so
``geqrf``, ``householder_product`` and ``linalg.qr`` replay MKL's steps where their input
is not finite (finite input keeps NumPy's LAPACK). Measured against PyTorch 2.13 (MKL
2024.2) on random matrices with NaN, inf and zeros: MKL's geqr2 applies each reflector to
every column, even with tau = 0 (``-inf - 0 * x`` is NaN), while its org2r is the reference
one, whose dlarf skips tau = 0 and leaves out the reflector's trailing zeros and the columns
of zeros after them; the 2-norm is the reference dnrm2 before LAPACK 3.10 (scale and sum of
squares: one inf gives inf, two give NaN), dlapy2 has no NaN test (x86's max and min take
the second operand when unordered), and the sign of beta is that of ``alpha >= 0``.
Real matrices only (glassgrad's LAPACK QR paths refuse complex input).
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["geqr2", "org2r", "orm2r", "qr_of_reflectors"]


# Scalars are NumPy's float64 (IEEE division: x / 0 is inf or NaN, as in Fortran).


def _nrm2(x: np.ndarray) -> np.float64:
    """The reference dnrm2 before LAPACK 3.10."""
    scale, ssq = np.float64(0.0), np.float64(1.0)
    for value in x.astype(np.float64):
        if value != 0:
            size = abs(value)
            if scale < size:
                ssq = 1 + ssq * (scale / size) ** 2
                scale = size
            else:
                ssq += (size / scale) ** 2
    return scale * np.sqrt(ssq)


def _lapy2(x: np.float64, y: np.float64) -> np.float64:
    """sqrt(x^2 + y^2) as MKL's dlapy2: max and min as x86 takes them, no NaN test."""
    x, y = abs(x), abs(y)
    w = x if x > y else y
    z = x if x < y else y
    return w if z == 0 else w * np.sqrt(1 + (z / w) ** 2)


def _larfg(column: np.ndarray) -> np.float64:
    """dlarfg on ``column`` (alpha, then x), in place: beta and the scaled reflector; tau."""
    if column.shape[0] <= 1:
        return np.float64(0.0)
    alpha = np.float64(column[0])
    norm = _nrm2(column[1:])
    if norm == 0:
        return np.float64(0.0)
    size = abs(_lapy2(alpha, norm))
    beta = -size if alpha >= 0 else size
    column[1:] *= column.dtype.type(1 / (alpha - beta))
    column[0] = beta
    return (beta - alpha) / beta


def _reflect(
    v: np.ndarray, tau: float, c: np.ndarray, trim: bool, left: bool = True, skip: bool = False
) -> None:
    """``c -= tau v (v^T c)`` in place (``c -= tau (c v) v^T`` if not ``left``): dlarf; with
    ``trim``, the reference's (nothing for tau = 0; v's trailing zeros and the zero columns,
    or rows, of c after them left out); with ``skip``, nothing for tau = 0 only."""
    if not left:
        _reflect(v, tau, c.T, trim, skip=skip)
        return
    rows, cols = v.shape[0], c.shape[1]
    if (trim or skip) and tau == 0:
        return
    if trim:
        while rows and v[rows - 1] == 0:
            rows -= 1
        while cols and not c[:rows, cols - 1].any():
            cols -= 1
    if rows == 0 or cols == 0:
        return
    with np.errstate(all="ignore"):
        w = v[:rows] @ c[:rows, :cols]
        c[:rows, :cols] -= c.dtype.type(tau) * np.outer(v[:rows], w)


def _matrices(a: np.ndarray) -> Any:
    return a.reshape((-1,) + a.shape[-2:])


def geqr2(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(reflectors and R, tau)`` of geqr2, for each matrix of ``a``."""
    with np.errstate(all="ignore"):
        return _geqr2(a)


def _geqr2(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    m, n = a.shape[-2:]
    k = min(m, n)
    h = np.array(a)
    tau = np.zeros(a.shape[:-2] + (k,), a.dtype)
    for matrix, scales in zip(_matrices(h), tau.reshape(-1, k), strict=True):
        for i in range(k):
            scales[i] = _larfg(matrix[i:, i])
            if i < n - 1:
                v = np.concatenate([np.ones(1, a.dtype), matrix[i + 1 :, i]])
                _reflect(v, float(scales[i]), matrix[i:, i + 1 :], trim=False)
    return h, tau


def org2r(a: np.ndarray, tau: np.ndarray) -> np.ndarray:
    """The m x n Q of org2r from the reflectors in ``a`` and their scales ``tau``."""
    m, n = a.shape[-2:]
    k = tau.shape[-1]
    q = np.array(np.broadcast_to(a, np.broadcast_shapes(a.shape[:-2], tau.shape[:-1]) + (m, n)))
    scales = np.broadcast_to(tau, q.shape[:-2] + (k,)).reshape(-1, k)
    for matrix, t in zip(_matrices(q), scales, strict=True):
        matrix[:, k:] = np.eye(m, n, dtype=a.dtype)[:, k:]
        for i in range(k - 1, -1, -1):
            if i < n - 1:
                matrix[i, i] = 1
                _reflect(matrix[i:, i].copy(), float(t[i]), matrix[i:, i + 1 :], trim=True)
            with np.errstate(all="ignore"):
                matrix[i + 1 :, i] *= -t[i]
                matrix[i, i] = 1 - t[i]
            matrix[:i, i] = 0
    return q


def orm2r(a: np.ndarray, tau: np.ndarray, c: np.ndarray, left: bool, transpose: bool) -> Any:
    """op(Q) C (C op(Q) if not ``left``; op(Q) = Q^T with ``transpose``) by orm2r: the
    reflectors applied to C one by one, each to the rows (columns) from its own on, skipping
    tau = 0 but not trimming zeros. The closest of dlarf's variants to MKL's ormqr: about 1
    in 20 random matrices with a NaN or inf in the reflectors, tau or C still differs (MKL's
    order is not the unblocked one there; see docs/fuzzing.md)."""
    k = tau.shape[-1]
    out = np.array(c)
    forward = left == transpose  # H_1 first
    for reflectors, scales, matrix in zip(
        _matrices(np.broadcast_to(a, c.shape[:-2] + a.shape[-2:])),
        np.broadcast_to(tau, c.shape[:-2] + (k,)).reshape(-1, k),
        _matrices(out),
        strict=True,
    ):
        for i in range(k) if forward else range(k - 1, -1, -1):
            v = reflectors[i:, i].copy()
            v[0] = 1
            target = matrix[i:, :] if left else matrix[:, i:]
            _reflect(v, float(scales[i]), target, trim=False, left=left, skip=True)
    return out


def qr_of_reflectors(a: np.ndarray, mode: str) -> tuple[np.ndarray, np.ndarray]:
    """PyTorch's Q and R of ``linalg.qr`` by geqrf and orgqr, replayed (mode "r": Q empty)."""
    m, n = a.shape[-2:]
    h, tau = geqr2(a)
    r = np.triu(h[..., : m if mode == "complete" else min(m, n), :])
    if mode == "r":
        return np.zeros((0,), a.dtype), r
    if mode == "complete" and m > n:  # orgqr sets the columns past the reflectors to I's
        h = np.concatenate([h, np.zeros(h.shape[:-1] + (m - n,), a.dtype)], -1)
    return org2r(h[..., : min(m, h.shape[-1])], tau), r
