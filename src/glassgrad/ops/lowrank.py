"""Randomized low-rank SVD and PCA (``torch.svd_lowrank``, ``torch.pca_lowrank``), composed
as PyTorch composes them (Halko, Martinsson and Tropp 2009, algorithms 4.4 and 5.1) from
``randn``, ``matmul``, ``linalg.qr`` and ``linalg.svd``: their gradients are those ops'.

The random test matrix is drawn from glassgrad's generator (``glassgrad.manual_seed``), not
PyTorch's stream: results agree with PyTorch's where they do not depend on it (``q`` at least
the rank of the matrix, up to the signs of singular vectors), and are otherwise another draw
of the same approximation.

Example::

    >>> a = glassgrad.randn(6, 2) @ glassgrad.randn(2, 5)
    >>> u, s, v = glassgrad.svd_lowrank(a, q=2)
    >>> bool(glassgrad.allclose(u @ glassgrad.diag(s) @ v.mT, a, atol=1e-4))
    True
"""

from __future__ import annotations

import numpy as np

from .._dtype import from_numpy_dtype
from .._factories import randn
from .._tensor import Tensor
from ._common import check_tensor
from ._registry import Sample, register
from ._samples import randn as sample_randn
from .decompositions import _svd_top_gauge, qr, svd


def _floating(t: Tensor) -> np.dtype:
    """PyTorch's ``_utils.get_floating_dtype``: a floating or complex dtype kept, else
    float32."""
    dtype = t._data.dtype
    return dtype if dtype.kind in "fc" else np.dtype(np.float32)


def _approximate_basis(A: Tensor, q: int, niter: int, M: Tensor | None) -> Tensor:
    """An orthonormal (m, q) basis ``Q`` with ``Q Q^H (A - M)`` close to ``A - M``: the range
    of ``(A - M)`` times a Gaussian matrix, refined by ``niter`` power iterations, each
    re-orthonormalised (algorithm 4.4)."""
    R = randn(A._data.shape[-1], q, dtype=from_numpy_dtype(_floating(A)))
    X = A @ R
    if M is not None:
        X = X - M @ R
    Q = qr(X)[0]
    for _ in range(niter):
        X = A.mH @ Q
        if M is not None:
            X = X - M.mH @ Q
        Q = qr(X)[0]
        X = A @ Q
        if M is not None:
            X = X - M @ Q
        Q = qr(X)[0]
    return Q


def svd_lowrank(
    A: Tensor, q: int | None = 6, niter: int | None = 2, M: Tensor | None = None
) -> tuple[Tensor, Tensor, Tensor]:
    """A rank-``q`` SVD ``U diag(S) V^H`` approximating ``A - M`` (``M`` broadcast to ``A``'s
    shape; none by default), of (..., m, n) matrices: ``U`` (..., m, q), ``S`` (..., q),
    ``V`` (..., n, q). Exact when ``q`` is at least the rank. ``niter`` power iterations
    sharpen the basis for slowly decaying spectra. Randomized: see the module docstring.

    Example::

        >>> a = glassgrad.randn(5, 2) @ glassgrad.randn(2, 4)
        >>> glassgrad.svd_lowrank(a, q=2)[1].shape
        glassgrad.Size([2])
    """
    check_tensor(A, "svd_lowrank", "A")
    q = 6 if q is None else int(q)
    niter = 2 if niter is None else int(niter)
    m, n = A._data.shape[-2:]
    if M is not None:
        M = check_tensor(M, "svd_lowrank", "M").broadcast_to(A._data.shape)
    if m < n:  # the algorithm takes a tall matrix: factor the adjoint, swap U and V
        A = A.mH
        M = None if M is None else M.mH
    Q = _approximate_basis(A, q, niter, M)
    B = Q.mH @ A
    if M is not None:
        B = B - Q.mH @ M
    U, S, Vh = svd(B, full_matrices=False)
    V, U = Vh.mH, Q @ U
    return (V, S, U) if m < n else (U, S, V)


def pca_lowrank(
    A: Tensor, q: int | None = None, center: bool = True, niter: int = 2
) -> tuple[Tensor, Tensor, Tensor]:
    """Principal components of the rows of (..., m, n) ``A``: ``svd_lowrank`` of ``A`` minus
    its column means (``center``), with ``q`` defaulting to ``min(6, m, n)``. ``V``'s
    columns are the principal directions, ``S ** 2 / (m - 1)`` the variances along them.
    Randomized: see the module docstring.

    Example::

        >>> a = glassgrad.randn(10, 3)
        >>> u, s, v = glassgrad.pca_lowrank(a, q=3)
        >>> v.shape
        glassgrad.Size([3, 3])
    """
    check_tensor(A, "pca_lowrank", "A")
    m, n = A._data.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not (q >= 0 and q <= min(m, n)):
        raise ValueError(
            f"q(={q}) must be non-negative integer and not greater than min(m, n)={min(m, n)}"
        )
    if not niter >= 0:
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if not center:
        return svd_lowrank(A, q, niter=niter)
    return svd_lowrank(A - A.mean(dim=(-2,), keepdim=True), q, niter=niter)


def _svd_samples(rng: np.random.Generator) -> list[Sample]:
    """``q`` equal to the rank: the result is then the SVD whatever the random draw, so it is
    compared with PyTorch's (up to signs)."""
    return [
        Sample((sample_randn(rng, 5, 3),), {"q": 3}),
        Sample((sample_randn(rng, 3, 5), 3, 1)),
        Sample((sample_randn(rng, 2, 4, 3), 3, 0), note="batched, no power iteration"),
        Sample((sample_randn(rng, 5, 3), 3), {"M": sample_randn(rng, 3)}),
    ]


def _pca_samples(rng: np.random.Generator) -> list[Sample]:
    """Tall matrices (centring keeps their rank) with ``q`` the number of columns."""
    return [
        Sample((sample_randn(rng, 6, 3),)),
        Sample((sample_randn(rng, 5, 3), 3, False, 1)),
        Sample((sample_randn(rng, 2, 5, 2),), {"niter": 0}),
    ]


register("svd_lowrank", svd_lowrank, methods=(), samples=_svd_samples, gauge=_svd_top_gauge)
register("pca_lowrank", pca_lowrank, methods=(), samples=_pca_samples, gauge=_svd_top_gauge)

__all__ = ["svd_lowrank", "pca_lowrank"]
