"""Matrix decompositions: the singular value decomposition (``linalg.svd``, ``svdvals``,
``torch.svd``), QR (``linalg.qr``, ``torch.qr``) and the symmetric eigendecomposition
(``linalg.eigh``, ``eigvalsh``), for real (batches of) matrices.

Gradients are PyTorch's (``svd_backward``, ``linalg_qr_backward``, ``linalg_eig_backward`` in
FunctionsManual.cpp), written with matmul and masks so that they record differentiable ops
under ``create_graph=True``. Singular and eigen vectors are defined up to sign: PyTorch and
glassgrad both return LAPACK's choice, and the registry compares sign-free quantities.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from .. import return_types
from .._tensor import Tensor
from ..autograd.op import Op
from ._common import array_of, check_tensor
from ._linalg_common import (
    LinAlgError,
    adjoint,
    all_finite,
    check_floating,
    check_kernel_dtype,
    check_square,
    column_major,
    nonfinite_svd,
    spd,
    swap,
)
from ._out import out_result
from ._qr_replay import qr_of_reflectors
from ._registry import NoGrad, Sample, register
from ._samples import randn
from .solvers import LinalgSolveTriangularBackward0

__all__ = ["svd", "svdvals", "svd_top", "qr", "qr_top", "eigh", "eigvalsh"]


def diag_embed(F: Any, v: Any) -> Any:
    """Batched diagonal matrices with ``v`` (..., k) on the diagonal (zeros off it, also
    where ``v`` holds an inf or NaN: a select, not a product with I)."""
    k = v.shape[-1]
    return F.where(np.eye(k, dtype=bool), F.unsqueeze(v, -1), 0.0)


def _at_least_matrix(op: str, a: np.ndarray, kernel: str, complex_ok: bool = False) -> None:
    check_floating(op, a, complex_ok)
    if a.ndim < 2:
        raise RuntimeError(f"{op}: The input tensor A must have at least 2 dimensions.")
    check_kernel_dtype(kernel, a, complex_ok)


def _refuse_driver(op: str, driver: Any) -> None:
    if driver is not None:
        raise RuntimeError(
            f"torch.{op}: keyword argument `driver=` is only supported on CUDA inputs with "
            "cuSOLVER backend."
        )


# --- singular value decomposition ----------------------------------------------------------


def _svd_arrays(a: np.ndarray, full_matrices: bool) -> tuple:
    m, n = a.shape[-2:]
    if a.size == 0:  # LAPACK is not called: identity factors where they are square
        batch, k = a.shape[:-2], min(m, n)
        cols, rows = (m, n) if full_matrices else (k, k)
        u = np.broadcast_to(np.eye(m, cols, dtype=a.dtype), (*batch, m, cols))
        vh = np.broadcast_to(np.eye(rows, n, dtype=a.dtype), (*batch, rows, n))
        return np.array(u), np.zeros((*batch, k), a.real.dtype), np.array(vh)
    nonfinite = nonfinite_svd(a, full_matrices)
    if nonfinite is not None:
        u, s, vh = nonfinite
        return column_major(u), s, column_major(vh)
    try:
        u, s, vh = np.linalg.svd(a, full_matrices=full_matrices)
    except np.linalg.LinAlgError:
        raise LinAlgError(
            "linalg.svd: The algorithm failed to converge because the input matrix is "
            "ill-conditioned or has too many repeated singular values (error code: "
            f"{min(m, n) - 1})."
        ) from None
    return column_major(u), s.astype(a.real.dtype, copy=False), column_major(vh)


class LinalgSvdBackward0(Op):
    """(U, S, Vh) = SVD of A; the gradient is PyTorch's ``svd_backward`` of the reduced
    factors (the extra columns of full U, Vh get none)"""

    full_matrices: Any

    # The factors are saved, not the input, as PyTorch saves them: under create_graph they
    # are this node's own outputs, so the gradient's graph reaches the input through them.
    saved_outputs: tuple[int, ...] = (0, 1, 2)
    takes_undefined_grads = True
    __slots__ = ("full_matrices",)

    def forward(self, a: Any, full_matrices: Any = False) -> Any:
        self.full_matrices = full_matrices
        return _svd_arrays(a, full_matrices)

    def backward(self, F: Any, grads: Any) -> Any:
        u, s, vh = self.saved
        grad_u, grad_s, grad_vh = grads
        if self.full_matrices:
            k = s.shape[-1]
            u, vh = u[..., :k], vh[..., :k, :]
            grad_u = None if grad_u is None else grad_u[..., :k]
            grad_vh = None if grad_vh is None else grad_vh[..., :k, :]
        return _svd_backward(F, u, s, vh, grad_u, grad_s, grad_vh)


def _svd_backward(F: Any, u: Any, s: Any, vh: Any, gu: Any, gs: Any, gvh: Any) -> Any:
    """Gradient of A from those of U, S, Vh of A = U diag(S) Vh (reduced SVD), PyTorch's
    ``svd_backward`` term by term and in its order (an undefined gradient, None, has no term;
    a zero one does: at repeated singular values its 0 / 0 is NaN, as PyTorch's). With
    E[j, k] = S[k]^2 - S[j]^2 (1 on the diagonal), skew(X) = X - X^H (^H: ^T for real A):
    gA = U [(skew(U^H gU) S_row + S_col skew(V^H gV)) / E + diag(gS)] Vh, plus the parts
    of gU, gV outside the spans of U, V when the matrix is not square; for complex A with both
    gU and gV also diag(skew(U^H gU)) / (2 S) (the phases of the singular vectors).
    """
    m, n = u.shape[-2], vh.shape[-1]
    if gu is None and gvh is None:  # svdvals: U diag(gS) Vh
        if gs is None or m >= n:
            return None if gs is None else F.matmul(u, F.unsqueeze(gs, -1) * vh)
        return F.matmul(u * F.unsqueeze(gs, -2), vh)
    s_row, s_col, s2 = F.unsqueeze(s, -2), F.unsqueeze(s, -1), s * s
    eye = np.eye(s.shape[-1], dtype=bool)
    gap = F.where(eye, 1.0, F.unsqueeze(s2, -2) - F.unsqueeze(s2, -1))
    uhgu = None if gu is None else F.matmul(adjoint(F, u), gu)
    vhgv = None if gvh is None else F.matmul(vh, adjoint(F, gvh))
    uhgu = None if uhgu is None else uhgu - adjoint(F, uhgu)
    vhgv = None if vhgv is None else vhgv - adjoint(F, vhgv)
    _check_svd_phases(uhgu, vhgv)
    if uhgu is None:
        core = s_col * (vhgv / gap)
    elif vhgv is None:
        core = (uhgu / gap) * s_row
    else:
        core = (uhgu * s_row + s_col * vhgv) / gap
    if gs is not None:
        core = core + diag_embed(F, gs)
    if uhgu is not None and vhgv is not None and array_of(uhgu).dtype.kind == "c":
        core = core + diag_embed(F, F.where(eye, uhgu, 0.0).sum(-1) / (2.0 * s))
    if m > n and gu is not None:
        grad = F.matmul(u, core)
        gu_sinv = gu / s_row
        grad = grad + gu_sinv - F.matmul(u, F.matmul(adjoint(F, u), gu_sinv))
        return F.matmul(grad, vh)
    if m < n and gvh is not None:
        grad = F.matmul(core, vh)
        sinv_gvh = gvh / s_col
        grad = grad + sinv_gvh - F.matmul(F.matmul(sinv_gvh, adjoint(F, vh)), vh)
        return F.matmul(u, grad)
    return F.matmul(u, F.matmul(core, vh)) if m >= n else F.matmul(F.matmul(u, core), vh)


def _check_svd_phases(uhgu: Any, vhgv: Any) -> None:
    """PyTorch's check that the loss does not depend on the common phase of each pair of
    complex singular vectors: Im diag(skew(U^H gU)) = -Im diag(skew(V^H gV))."""
    known = uhgu if uhgu is not None else vhgv
    if array_of(known).dtype.kind != "c":
        return

    def imaginary_diagonal(x: Any) -> np.ndarray:
        if x is None:
            return np.zeros(array_of(known).shape[:-1])
        return np.diagonal(array_of(x), axis1=-2, axis2=-1).imag

    if not np.allclose(imaginary_diagonal(uhgu), -imaginary_diagonal(vhgv), rtol=1e-2, atol=1e-2):
        raise RuntimeError(
            "svd_backward: The singular vectors in the complex case are specified up to "
            "multiplication by e^{i phi}. The specified loss function depends on this phase "
            "term, making it ill-defined."
        )


def svd(
    A: Tensor, full_matrices: bool = True, *, driver: Any = None, out: Any = None
) -> tuple[Tensor, ...]:
    """The singular value decomposition ``A = U diag(S) Vh`` of a (batch of) matrices, S in
    descending order; ``full_matrices=False`` gives the reduced factors (U: m x k, Vh: k x n).

    Singular vectors are unique up to sign; gradients are defined for losses that do not
    depend on the sign (as in PyTorch).

    Example::

        >>> U, S, Vh = glassgrad.linalg.svd(glassgrad.tensor([[3.0, 0.0], [0.0, -4.0]]))
        >>> S
        tensor([4., 3.])
    """
    data = check_tensor(A, "linalg.svd", "A")._data
    _at_least_matrix("linalg.svd", data, "linalg_svd_cpu", complex_ok=True)
    _refuse_driver("linalg.svd", driver)
    if out is not None:
        return out_result(
            "linalg_svd", out, svd(A, full_matrices), (A,), exact=True, autograd_op="_linalg_svd"
        )
    return return_types.linalg_svd(*LinalgSvdBackward0.apply(A, full_matrices=full_matrices))


def svdvals(A: Tensor, *, driver: Any = None, out: Any = None) -> Tensor:
    """The singular values of ``A`` (batched over leading dims), in descending order.

    Example::

        >>> glassgrad.linalg.svdvals(glassgrad.tensor([[3.0, 0.0], [0.0, -4.0]]))
        tensor([4., 3.])
    """
    data = check_tensor(A, "linalg.svdvals", "A")._data
    _at_least_matrix("linalg.svd", data, "linalg_svd_cpu", complex_ok=True)
    _refuse_driver("linalg.svdvals", driver)
    if out is not None:
        return out_result(
            "linalg_svdvals", out, svdvals(A), (A,), exact=True, autograd_op="_linalg_svd"
        )
    return LinalgSvdBackward0.apply(A)[1]


def svd_top(
    input: Tensor, some: bool = True, compute_uv: bool = True, *, out: Any = None
) -> tuple[Tensor, ...]:
    """``torch.svd``: ``(U, S, V)`` with ``input = U diag(S) V^T`` (V, not its transpose);
    ``some=False`` gives the full square factors. With ``compute_uv=False``, U and V are
    zero-filled (m x m and n x n) and only S is computed.

    Example::

        >>> U, S, V = glassgrad.svd(glassgrad.tensor([[0.0, 2.0], [1.0, 0.0]]))
        >>> S
        tensor([2., 1.])
    """
    data = check_tensor(input, "svd")._data
    if data.ndim < 2:
        raise RuntimeError(
            f"linalg.svd: input should have at least 2 dimensions, but has {data.ndim} "
            "dimensions instead"
        )
    check_floating("linalg.svd", data, complex_ok=True)
    check_kernel_dtype("linalg_svd_cpu", data, complex_ok=True)
    if out is not None:
        return out_result(
            "svd",
            out,
            svd_top(input, some, compute_uv),
            (input,),
            exact=True,
            autograd_op="_linalg_svd",
        )
    if not compute_uv:
        m, n = data.shape[-2:]
        batch = data.shape[:-2]
        s = LinalgSvdBackward0.apply(input)[1]
        u = Tensor._from_array(np.zeros((*batch, m, m), data.dtype))
        # V is PyTorch's zero Vh viewed transposed (conjugating zeros changes nothing)
        v = Tensor._from_array(np.zeros((*batch, n, n), data.dtype)).mT
        return return_types.svd(u, s, v)
    u, s, vh = LinalgSvdBackward0.apply(input, full_matrices=not some)
    return return_types.svd(u, s, vh.mH)  # V = Vh^H (its transpose if real)


# --- QR -----------------------------------------------------------------------------------


def _parse_qr_mode(mode: Any) -> str:
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(
            f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), "
            "'r', or 'complete'"
        )
    return mode


class LinalgQrBackward0(Op):
    """(Q, R) = QR of A; the gradient is PyTorch's ``linalg_qr_backward``"""

    mode: Any

    saved_outputs: tuple[int, ...] = (0, 1)
    takes_undefined_grads = True
    __slots__ = ("mode",)

    def forward(self, a: Any, mode: Any = "reduced") -> Any:
        self.mode = mode
        m, n = a.shape[-2:]
        if a.size and a.dtype.kind != "c" and not all_finite(a):
            return tuple(column_major(x) if x.ndim > 1 else x for x in qr_of_reflectors(a, mode))
        if mode == "r":
            r = (
                np.triu(np.linalg.qr(a, mode="r"))
                if a.size
                else np.zeros(a.shape[:-2] + (min(m, n), n), a.dtype)
            )
            return np.zeros((0,), a.dtype), column_major(r.astype(a.dtype, copy=False))
        if a.size == 0:
            rows = m if mode == "complete" else min(m, n)
            q = np.broadcast_to(np.eye(m, rows, dtype=a.dtype), (*a.shape[:-2], m, rows))
            return np.array(q), np.zeros((*a.shape[:-2], rows, n), a.dtype)
        q, r = np.linalg.qr(a, mode=mode)
        return column_major(q.astype(a.dtype, copy=False)), column_major(
            r.astype(a.dtype, copy=False)
        )

    def backward(self, F: Any, grads: Any) -> Any:
        q, r = self.saved
        if self.mode == "r":
            raise RuntimeError(
                "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. "
                "Please use linalg.qr(A, mode='reduced') if you are going to differentiate "
                "through linalg.qr."
            )
        m, n = q.shape[-2], r.shape[-1]
        if self.mode == "complete" and m > n:
            raise RuntimeError(
                "The QR decomposition is not differentiable when mode='complete' and nrows > ncols."
            )
        grad_q, grad_r = grads
        if grad_q is None and grad_r is None:
            return None
        # PyTorch's order of products and solves (an undefined gradient's term left out), so
        # an inf or NaN reaches the same entries: X = gR R^H - Q^H gQ; (m >= n) gA = (Q
        # sym(triu(X)) + gQ) R^-H, sym(Y) = Y + Y^H, diagonal halved; (m < n) gA = [Q
        # tril(Y - Y^H) R_1^-H, 0] + Q gR, Y = -X (complex: its diagonal halved).
        if grad_q is None:
            grad = F.matmul(grad_r, adjoint(F, r))
        else:
            grad = -F.matmul(adjoint(F, q), grad_q)
            if grad_r is not None:
                grad = F.matmul(grad_r, adjoint(F, r)) + grad
        k = grad.shape[-1]
        diagonal = np.eye(k, dtype=bool)
        if m >= n:
            upper = F.where(np.triu(np.ones((k, k), bool)), grad, 0.0)
            grad = upper + adjoint(F, upper)
            grad = F.matmul(q, F.where(diagonal, grad * 0.5, grad))
            if grad_q is not None:
                grad = grad + grad_q
            return LinalgSolveTriangularBackward0.call(
                adjoint(F, r), grad, upper=False, left=False, unitriangular=False
            )
        grad = -grad
        skew = F.where(np.tril(np.ones((m, m), bool)), grad - adjoint(F, grad), 0.0)
        if array_of(skew).dtype.kind == "c":
            skew = F.where(diagonal, skew * 0.5, skew)
        grad = LinalgSolveTriangularBackward0.call(
            adjoint(F, r[..., :m]), F.matmul(q, skew), upper=False, left=False, unitriangular=False
        )
        # PyTorch concatenates zero columns (a product with [I, 0] spread an inf or NaN there)
        grad = F.cat([grad, F.zeros((*grad.shape[:-1], n - m), array_of(grad).dtype)], -1)
        return grad if grad_r is None else grad + F.matmul(q, grad_r)


def qr(A: Tensor, mode: str = "reduced", *, out: Any = None) -> tuple[Tensor, ...]:
    """The QR decomposition ``A = Q R`` (Q orthonormal columns, R upper triangular) of a
    (batch of) matrices. ``mode``: ``"reduced"`` (Q: m x k, R: k x n), ``"complete"``
    (Q: m x m, R: m x n) or ``"r"`` (R only; Q is an empty tensor).

    Example::

        >>> Q, R = glassgrad.linalg.qr(glassgrad.tensor([[3.0, 1.0], [4.0, 2.0]]))
        >>> R.shape
        glassgrad.Size([2, 2])
    """
    data = check_tensor(A, "linalg.qr", "A")._data
    mode = _parse_qr_mode(mode)
    _at_least_matrix("linalg.qr", data, "geqrf_cpu", complex_ok=True)
    if out is not None:
        return out_result("linalg_qr", out, qr(A, mode), (A,), exact=True)
    return return_types.linalg_qr(*LinalgQrBackward0.apply(A, mode=mode))


def qr_top(input: Tensor, some: bool = True, *, out: Any = None) -> tuple[Tensor, ...]:
    """``torch.qr``: ``linalg.qr`` with ``some=True`` for mode ``"reduced"`` and ``False``
    for ``"complete"``.

    Example::

        >>> Q, R = glassgrad.qr(glassgrad.eye(3)[:, :2])
        >>> Q.shape
        glassgrad.Size([3, 2])
    """
    warnings.warn(
        "torch.qr is deprecated in favor of torch.linalg.qr and will be removed in a future "
        "PyTorch release.\nThe boolean parameter 'some' has been replaced with a string "
        "parameter 'mode'.\nQ, R = torch.qr(A, some)\nshould be replaced with\nQ, R = "
        "torch.linalg.qr(A, 'reduced' if some else 'complete')",
        UserWarning,
        stacklevel=2,
    )
    data = check_tensor(input, "qr")._data
    _at_least_matrix("linalg.qr", data, "geqrf_cpu", complex_ok=True)
    if out is not None:
        return out_result(
            "qr", out, qr_top(input, some), (input,), exact=True, autograd_op="linalg_qr"
        )
    mode = "reduced" if some else "complete"
    return return_types.qr(*LinalgQrBackward0.apply(input, mode=mode))


# --- symmetric eigendecomposition ----------------------------------------------------------


class LinalgEighBackward0(Op):
    """(L, V) = eigendecomposition of the symmetric (Hermitian) A, read from its ``UPLO``
    triangle; gA = V (skew(V^H gV) / 2 / E + diag(gL)) V^H with E[i, j] = L[j] - L[i]
    (^H: ^T for real A; L is real)"""

    saved_outputs: tuple[int, ...] = (0, 1)
    takes_undefined_grads = True
    __slots__ = ()

    def forward(self, a: Any, UPLO: Any = "L") -> Any:
        if a.size == 0:
            return np.zeros(a.shape[:-1], a.real.dtype), np.zeros(a.shape, a.dtype)
        values, vectors = np.linalg.eigh(a, UPLO=UPLO)
        values = values.astype(a.real.dtype, copy=False)
        return values, column_major(vectors.astype(a.dtype, copy=False))

    def backward(self, F: Any, grads: Any) -> Any:
        values, vectors = self.saved
        grad_values, grad_vectors = grads
        if grad_vectors is None:  # eigvalsh: V diag(gL) V^H
            if grad_values is None:
                return None
            return F.matmul(vectors * F.unsqueeze(grad_values, -2), adjoint(F, vectors))
        # PyTorch's linalg_eig_backward for Hermitian A, in its order: a zero gV still divides
        # by E (0 / 0: NaN at a repeated eigenvalue); a defined gL replaces the diagonal.
        vhgv = F.matmul(adjoint(F, vectors), grad_vectors)
        check_phase_invariance("linalg_eigh_backward", "eigenvectors", vhgv)
        eye = np.eye(values.shape[-1], dtype=bool)
        vhgv = (vhgv - adjoint(F, vhgv)) * 0.5
        gap = F.where(eye, 1.0, F.unsqueeze(values, -2) - F.unsqueeze(values, -1))
        inner = vhgv / gap
        if grad_values is not None:  # (inner first: where takes its first operand's dtype)
            inner = F.where(~eye, inner, F.unsqueeze(grad_values, -2))
        return F.matmul(vectors, F.matmul(inner, adjoint(F, vectors)))


def check_phase_invariance(op: str, vectors: str, vhgv: Any) -> None:
    """PyTorch's check that a loss does not depend on the phase of complex singular or eigen
    vectors (each is unique up to e^(i phi)): the imaginary diagonal of V^H gV is zero."""
    data = array_of(vhgv)
    if data.dtype.kind != "c":
        return
    imaginary = np.diagonal(data, axis1=-2, axis2=-1).imag
    if not np.allclose(imaginary, 0.0, rtol=1e-2, atol=1e-2):
        raise RuntimeError(
            f"{op}: The {vectors} in the complex case are specified up to multiplication by "
            "e^{i phi}. The specified loss function depends on this quantity, so it is "
            "ill-defined."
        )


def _check_uplo(uplo: Any) -> str:
    if not isinstance(uplo, str) or uplo.upper() not in ("L", "U") or len(uplo) != 1:
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {uplo}")
    return uplo.upper()


def eigh(A: Tensor, UPLO: str = "L", *, out: Any = None) -> tuple[Tensor, ...]:
    """Eigenvalues (ascending) and orthonormal eigenvectors of a symmetric matrix (or of each
    in a batch), read from its lower (``UPLO="L"``) or upper triangle. Eigenvectors are
    unique up to sign.

    Example::

        >>> L, V = glassgrad.linalg.eigh(glassgrad.tensor([[2.0, 1.0], [1.0, 2.0]]))
        >>> L
        tensor([1., 3.])
    """
    data = check_tensor(A, "linalg.eigh", "A")._data
    check_square("linalg.eigh", data, kernel="linalg_eigh_cpu", floating=False, complex_ok=True)
    uplo = _check_uplo(UPLO)
    if out is not None:
        return out_result(
            "linalg_eigh", out, eigh(A, uplo), (A,), exact=True, autograd_op="_linalg_eigh"
        )
    return return_types.linalg_eigh(*LinalgEighBackward0.apply(A, UPLO=uplo))


def eigvalsh(A: Tensor, UPLO: str = "L", *, out: Any = None) -> Tensor:
    """The eigenvalues (ascending) of a symmetric matrix (or of each in a batch).

    Example::

        >>> glassgrad.linalg.eigvalsh(glassgrad.tensor([[2.0, 1.0], [1.0, 2.0]]))
        tensor([1., 3.])
    """
    data = check_tensor(A, "linalg.eigvalsh", "A")._data
    check_square("linalg.eigvalsh", data, kernel="linalg_eigh_cpu", floating=False, complex_ok=True)
    uplo = _check_uplo(UPLO)
    if out is not None:
        return out_result(
            "linalg_eigvalsh", out, eigvalsh(A, uplo), (A,), exact=True, autograd_op="_linalg_eigh"
        )
    return LinalgEighBackward0.apply(A, UPLO=uplo)[0]


# --- registry ----------------------------------------------------------------------------


def _svd_gauge(result: Any) -> tuple:
    """Sign-free quantities of an SVD: |U|, S, |Vh| and U Vh over the k singular pairs (the
    further columns of full factors are any basis of the complement)."""
    u, s, vh = result
    k = s.shape[-1]
    u, vh = u[..., :k], vh[..., :k, :]
    return u.abs(), s, vh.abs(), u @ vh


def _svd_top_gauge(result: Any) -> tuple:
    u, s, v = result
    k = s.shape[-1]
    u, v = u[..., :k], v[..., :k]
    return u.abs(), s, v.abs(), u @ v.mT


def _eigh_gauge(result: Any) -> tuple:
    values, vectors = result
    return values, vectors.abs()


def _symmetric(rng: np.random.Generator, *shape: int) -> np.ndarray:
    m = randn(rng, *shape)
    return m + swap(m)


register(
    "svd",
    svd,
    nodes=(LinalgSvdBackward0,),
    namespace="linalg",
    gauge=_svd_gauge,
    samples=lambda rng: [
        Sample((randn(rng, 3, 3),)),
        Sample((randn(rng, 4, 2),), {"full_matrices": False}),
        Sample((randn(rng, 2, 4),), {"full_matrices": False}),
        Sample((randn(rng, 2, 3, 3),), note="batched"),
        Sample((randn(rng, 4, 3),), note="full U"),
        Sample((randn(rng, 2, 4).T,), note="non-contiguous"),
    ],
)
register(
    "svdvals",
    svdvals,
    nodes=(LinalgSvdBackward0,),
    namespace="linalg",
    samples=lambda rng: [
        Sample((randn(rng, 3, 3),)),
        Sample((randn(rng, 4, 2),)),
        Sample((randn(rng, 2, 2, 3),)),
    ],
)
register(
    "svd",
    svd_top,
    nodes=(LinalgSvdBackward0,),
    gauge=_svd_top_gauge,
    samples=lambda rng: [
        Sample((randn(rng, 3, 3),)),
        Sample((randn(rng, 4, 2),)),
        Sample((randn(rng, 2, 4), False)),
        Sample((randn(rng, 2, 3, 2),), note="batched"),
        Sample((randn(rng, 3, 2), True, False), note="values only"),
    ],
)
register(
    "qr",
    qr,
    nodes=(LinalgQrBackward0,),
    namespace="linalg",
    samples=lambda rng: [
        Sample((randn(rng, 3, 3),)),
        Sample((randn(rng, 4, 2),)),
        Sample((randn(rng, 2, 4),)),
        Sample((randn(rng, 2, 3, 2),), note="batched"),
        Sample((randn(rng, 2, 4), "complete")),
        Sample((randn(rng, 3, 3), "complete")),
        Sample((randn(rng, 4, 2), "complete"), grad=False, note="not differentiable"),
        Sample((randn(rng, 4, 3), "r"), grad=False, note="R only: not differentiable"),
        Sample((randn(rng, 3, 4).T,), note="non-contiguous"),
    ],
)
register(
    "qr",
    qr_top,
    nodes=(LinalgQrBackward0,),
    samples=lambda rng: [Sample((randn(rng, 4, 3),)), Sample((randn(rng, 2, 3), False))],
)
register(
    "eigh",
    eigh,
    nodes=(LinalgEighBackward0,),
    namespace="linalg",
    gauge=_eigh_gauge,
    samples=lambda rng: [
        # eigh reads one triangle while finite differences move both: fd=False here, and
        # tests/ops/test_decompositions.py checks gradients of symmetric inputs instead.
        Sample((_symmetric(rng, 3, 3),), fd=False),
        Sample((_symmetric(rng, 2, 4, 4),), fd=False, note="batched"),
        Sample((randn(rng, 3, 3), "U"), fd=False, note="upper triangle of a general matrix"),
        Sample((NoGrad(_symmetric(rng, 3, 3)),), note="no grad"),
    ],
)
register(
    "eigvalsh",
    eigvalsh,
    nodes=(LinalgEighBackward0,),
    namespace="linalg",
    samples=lambda rng: [
        Sample((_symmetric(rng, 3, 3),), fd=False),
        Sample((spd(rng, 2, 3, 3), "U"), fd=False),
    ],
)
