"""``torch.lobpcg``: a few extreme eigenpairs of a symmetric positive definite (generalized)
eigenproblem ``A X = B X diag(E)`` by the Locally Optimal Block Preconditioned Conjugate
Gradient method, PyTorch's ``torch/_lobpcg.py`` step for step on glassgrad ops: the "basic"
method (Knyazev 2001) and the default "ortho" method (Stathopoulos and Wu 2002; Duersch et
al. 2018's Rayleigh-Ritz and SVQB orthonormalisation). ``iK`` is a preconditioner, ``tracker``
sees the worker (its ``iparams``, ``ivars``, ``tvars``, ``E``, ``X``, ``S``, ``R`` ...) after
each step. When ``A`` requires grad, ``A`` is symmetrised and the result comes from
``LOBPCGAutogradFunction`` (its node ``LOBPCGAutogradFunctionBackward``), whose backward is
PyTorch's (``lobpcg_backward.py``). The starting block ``X``, when not given, is drawn from
glassgrad's generator.

Example::

    >>> A = glassgrad.diag(glassgrad.arange(1.0, 10.0, dtype=glassgrad.float64))
    >>> E, X = glassgrad.lobpcg(A, k=2, X=glassgrad.ones(9, 2, dtype=glassgrad.float64))
    >>> E
    tensor([9., 8.], dtype=glassgrad.float64)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .._dtype import float16, float32, float64
from .._factories import empty, eye, randn, zeros
from .._tensor import Tensor
from ..autograd.function import Function
from ._registry import NoGrad, Sample, register
from ._samples import randn as sample_randn
from .cholesky import cholesky
from .decompositions import eigh, qr
from .lobpcg_backward import symeig_backward
from .pointwise import where
from .reduction_math import norm
from .solvers import solve_triangular

__all__ = ["lobpcg", "LOBPCG"]


def _matmul(A: Tensor | None, B: Tensor) -> Tensor:
    """``A @ B``, with None standing for the identity (no ``B`` matrix, no preconditioner)."""
    return B if A is None else A @ B


def _qform(A: Tensor | None, S: Tensor) -> Tensor:
    return S.mT @ _matmul(A, S)


def _symeig(A: Tensor, largest: bool | None = False) -> tuple[Tensor, Tensor]:
    """Eigenpairs of symmetric ``A`` (its upper triangle), ascending or, with ``largest``,
    descending."""
    E, Z = eigh(A, UPLO="U")
    if largest:
        E, Z = E.flip(dims=(-1,)), Z.flip(dims=(-1,))
    return E, Z


def _floating_dtype(A: Tensor) -> Any:
    """PyTorch's ``_linalg_utils.get_floating_dtype``: half, float and double kept, any
    other dtype (integers, complex) float32."""
    return A.dtype if A.dtype in (float16, float32, float64) else float32


class LOBPCGAutogradFunction(Function):
    """``_lobpcg`` as one node; its backward is the symmetric eigenproblem's (B = I)."""

    @staticmethod
    def forward(  # type: ignore[override]
        ctx: Any,
        A: Tensor,
        k: int | None = None,
        B: Tensor | None = None,
        X: Tensor | None = None,
        n: int | None = None,
        iK: Tensor | None = None,
        niter: int | None = None,
        tol: float | None = None,
        largest: bool | None = None,
        method: str | None = None,
        tracker: Callable | None = None,
        ortho_iparams: dict | None = None,
        ortho_fparams: dict | None = None,
        ortho_bparams: dict | None = None,
    ) -> tuple[Tensor, Tensor]:
        A = A.contiguous()
        B = None if B is None else B.contiguous()
        D, U = _lobpcg(
            A, k, B, X, n, iK, niter, tol, largest, method, tracker,
            ortho_iparams, ortho_fparams, ortho_bparams,
        )  # fmt: skip
        ctx.save_for_backward(A, B, D, U)
        ctx.largest = largest
        return D, U

    @staticmethod
    def backward(ctx: Any, D_grad: Tensor, U_grad: Tensor) -> tuple:
        A, B, D, U = ctx.saved_tensors
        if A.is_complex() or (B is not None and B.is_complex()):
            raise ValueError(
                "lobpcg.backward does not support complex input yet. "
                "Note that lobpcg.forward does though."
            )
        if B is not None:
            raise ValueError("lobpcg.backward does not support backward with B != I yet.")
        largest = True if ctx.largest is None else ctx.largest
        return (symeig_backward(D_grad, U_grad, A, D, U, largest),) + (None,) * 13


def lobpcg(
    A: Tensor,
    k: int | None = None,
    B: Tensor | None = None,
    X: Tensor | None = None,
    n: int | None = None,
    iK: Tensor | None = None,
    niter: int | None = None,
    tol: float | None = None,
    largest: bool | None = None,
    method: str | None = None,
    tracker: Callable | None = None,
    ortho_iparams: dict | None = None,
    ortho_fparams: dict | None = None,
    ortho_bparams: dict | None = None,
) -> tuple[Tensor, Tensor]:
    """The ``k`` largest (``largest=False``: smallest) eigenvalues ``E`` (..., k) and
    eigenvectors ``X`` (..., m, k) of ``A X = B X diag(E)`` for symmetric positive definite
    (batches of) m x m ``A`` and ``B`` (the identity when omitted), by LOBPCG.

    ``X`` (..., m, n), ``k <= n``, starts the iteration (random n = ``n`` or ``k`` columns when
    omitted); ``m`` must be at least ``3 n``. ``niter`` bounds the steps (1000; -1: until
    convergence), ``tol`` the relative residual (``sqrt(eps)`` of the dtype). ``method`` is
    "ortho" (default, robust) or "basic"; ``ortho_iparams``/``fparams``/``bparams`` tune the
    former (``ortho_i_max``, ``ortho_j_max``, ``ortho_tol``, ``ortho_tol_drop``,
    ``ortho_tol_replace``, ``ortho_use_drop``). ``iK`` preconditions the residuals;
    ``tracker(worker)`` is called after every step and may set
    ``worker.bvars["force_stop"] = True``. The gradient (A only, B omitted) treats ``A`` as
    symmetric: ``A`` is replaced by ``(A + A^T) / 2`` when it requires grad.

    Example::

        >>> A = glassgrad.diag(glassgrad.arange(1.0, 10.0, dtype=glassgrad.float64))
        >>> E, X = glassgrad.lobpcg(A, k=1, largest=False, X=glassgrad.ones(9, 1).double())
        >>> E
        tensor([1.], dtype=glassgrad.float64)
    """
    if A.requires_grad or (B is not None and B.requires_grad):
        # A's gradient is made symmetric, so that a step A - t * A.grad stays symmetric.
        A_sym = (A + A.mT) / 2
        B_sym = (B + B.mT) / 2 if B is not None else None
        return LOBPCGAutogradFunction.apply(
            A_sym, k, B_sym, X, n, iK, niter, tol, largest, method, tracker,
            ortho_iparams, ortho_fparams, ortho_bparams,
        )  # fmt: skip
    return _lobpcg(
        A, k, B, X, n, iK, niter, tol, largest, method, tracker,
        ortho_iparams, ortho_fparams, ortho_bparams,
    )  # fmt: skip


def _lobpcg(
    A: Tensor,
    k: int | None,
    B: Tensor | None,
    X: Tensor | None,
    n: int | None,
    iK: Tensor | None,
    niter: int | None,
    tol: float | None,
    largest: bool | None,
    method: str | None,
    tracker: Callable | None,
    ortho_iparams: dict | None,
    ortho_fparams: dict | None,
    ortho_bparams: dict | None,
) -> tuple[Tensor, Tensor]:
    # PyTorch's checks are assertions, and its errors their types.
    if A.shape[-2] != A.shape[-1]:
        raise AssertionError(f"A must be square, got shape {A.shape}")
    if B is not None and A.shape != B.shape:
        raise AssertionError(f"A and B must have same shape, got {A.shape} vs {B.shape}")
    dtype = _floating_dtype(A)
    if tol is None:
        feps = {float32: 1.2e-07, float64: 2.23e-16}[dtype]
        tol = feps**0.5
    m = A.shape[-1]
    k = (1 if X is None else X.shape[-1]) if k is None else k
    n = (k if n is None else n) if X is None else X.shape[-1]
    if m < 3 * n:
        raise ValueError(
            f"LOBPCG algorithm is not applicable when the number of A rows (={m})"
            f" is smaller than 3 x the number of requested eigenpairs (={n})"
        )
    method = "ortho" if method is None else method
    iparams = {"m": m, "n": n, "k": k, "niter": 1000 if niter is None else niter}
    fparams = {"tol": tol}
    bparams = {"largest": True if largest is None else largest}
    if method == "ortho":
        iparams.update(ortho_iparams or {})
        fparams.update(ortho_fparams or {})
        bparams.update(ortho_bparams or {})
        iparams.setdefault("ortho_i_max", 3)
        iparams.setdefault("ortho_j_max", 3)
        fparams.setdefault("ortho_tol", tol)
        fparams.setdefault("ortho_tol_drop", tol)
        fparams.setdefault("ortho_tol_replace", tol)
        bparams.setdefault("ortho_use_drop", False)

    if A.dim() > 2:  # one problem at a time
        N = int(np.prod(A.shape[:-2]))
        bA = A.reshape((N, *A.shape[-2:]))
        bB = B.reshape((N, *A.shape[-2:])) if B is not None else None
        bX = X.reshape((N, *X.shape[-2:])) if X is not None else None
        bE = empty((N, k), dtype=dtype)
        bXret = empty((N, m, k), dtype=dtype)
        for i in range(N):
            X_ = randn((m, n), dtype=dtype) if bX is None else bX[i]
            if not (X_.dim() == 2 and tuple(X_.shape) == (m, n)):
                raise AssertionError(f"X_ shape mismatch: got {X_.shape}, expected {(m, n)}")
            iparams["batch_index"] = i
            B_ = bB[i] if bB is not None else None
            worker = LOBPCG(bA[i], B_, X_, iK, iparams, fparams, bparams, method, tracker)
            worker.run()
            bE[i] = worker.E[:k]
            bXret[i] = worker.X[:, :k]
        return bE.reshape((*A.shape[:-2], k)), bXret.reshape((*A.shape[:-2], m, k))

    X = randn((m, n), dtype=dtype) if X is None else X
    if not (X.dim() == 2 and tuple(X.shape) == (m, n)):
        raise AssertionError(f"X shape mismatch: got {X.shape}, expected {(m, n)}")
    worker = LOBPCG(A, B, X, iK, iparams, fparams, bparams, method, tracker)
    worker.run()
    return worker.E[:k], worker.X[:, :k]


class LOBPCG:
    """The iteration's state, as PyTorch's worker class (a ``tracker`` reads it): constant
    ``A``, ``B``, ``iK``, ``iparams``/``fparams``/``bparams``; variables ``X`` (eigenvector
    approximations), ``E`` (eigenvalues), ``R`` (residuals), ``S`` (the search basis
    ``[X, P, W]``), and ``ivars``/``fvars``/``bvars``/``tvars`` (``istep``,
    ``converged_count``, ``rerr`` ...)."""

    A: Tensor | None
    B: Tensor | None
    iK: Tensor | None
    iparams: dict[str, int]
    fparams: dict[str, float]
    bparams: dict[str, bool]
    method: str
    tracker: Callable | None
    X: Tensor
    E: Tensor
    R: Tensor
    S: Tensor

    def __init__(
        self,
        A: Tensor | None,
        B: Tensor | None,
        X: Tensor,
        iK: Tensor | None,
        iparams: dict,
        fparams: dict,
        bparams: dict,
        method: str,
        tracker: Callable | None,
    ) -> None:
        self.A, self.B, self.iK = A, B, iK
        self.iparams, self.fparams, self.bparams = iparams, fparams, bparams
        self.method, self.tracker = method, tracker
        m, n = iparams["m"], iparams["n"]
        self.X = X
        self.E = zeros((n,), dtype=X.dtype)
        self.R = zeros((m, n), dtype=X.dtype)
        self.S = zeros((m, 3 * n), dtype=X.dtype)
        self.tvars: dict[str, Tensor] = {}
        self.ivars: dict[str, int] = {"istep": 0}
        self.fvars: dict[str, float] = {"_": 0.0}
        self.bvars: dict[str, bool] = {"_": False}

    def __str__(self) -> str:
        names = ("iparams", "fparams", "bparams", "ivars", "fvars", "bvars", "tvars")
        lines = ["LOBPCG:"] + [f"  {name}={getattr(self, name)}" for name in names]
        lines += [f"  {name}={getattr(self, name)}" for name in ("A", "B", "iK", "X", "E")]
        return "".join(line + "\n" for line in lines)

    def update(self) -> None:
        """One step (the first sets the norms the convergence test scales by)."""
        if self.ivars["istep"] == 0:
            X_norm = float(norm(self.X))
            iX_norm = X_norm**-1
            self.fvars["X_norm"] = X_norm
            self.fvars["A_norm"] = float(norm(_matmul(self.A, self.X))) * iX_norm
            self.fvars["B_norm"] = float(norm(_matmul(self.B, self.X))) * iX_norm
            self.ivars["iterations_left"] = self.iparams["niter"]
            self.ivars["converged_count"] = 0
            self.ivars["converged_end"] = 0
        if self.method == "ortho":
            self._update_ortho()
        else:
            self._update_basic()
        self.ivars["iterations_left"] = self.ivars["iterations_left"] - 1
        self.ivars["istep"] = self.ivars["istep"] + 1

    def update_residual(self) -> None:
        """``R = A X - B X diag(E)``."""
        self.R = _matmul(self.A, self.X) - _matmul(self.B, self.X) * self.E

    def update_converged_count(self) -> int:
        """The leading eigenpairs whose backward-stable relative residual is below ``tol``
        (Duersch et al. 2018, 4.3); a later pair counts only after every earlier one."""
        prev_count = self.ivars["converged_count"]
        E, X, R = self.E, self.X, self.R
        scale = self.fvars["A_norm"] + E[: X.shape[-1]].abs() * self.fvars["B_norm"]
        rerr = norm(R, 2, (0,)) / (norm(X, 2, (0,)) * scale)
        count = 0
        for converged in (rerr < self.fparams["tol"]).tolist():
            if not converged:
                break
            count += 1
        if count < prev_count:
            raise AssertionError(
                f"the number of converged eigenpairs (was {prev_count}, got {count}) cannot "
                "decrease"
            )
        self.ivars["converged_count"] = count
        self.tvars["rerr"] = rerr
        return count

    def stop_iteration(self) -> bool:
        """Converged, out of steps, or stopped by the tracker (``bvars["force_stop"]``)."""
        return (
            self.bvars.get("force_stop", False)
            or self.ivars["iterations_left"] == 0
            or self.ivars["converged_count"] >= self.iparams["k"]
        )

    def run(self) -> None:
        """Step until ``stop_iteration``, calling the tracker after each step."""
        self.update()
        self.call_tracker()
        while not self.stop_iteration():
            self.update()
            self.call_tracker()

    def call_tracker(self) -> None:
        if self.tracker is not None:
            self.tracker(self)

    def _update_basic(self) -> None:
        ns, nc = self.ivars["converged_end"], self.ivars["converged_count"]
        n, largest = self.iparams["n"], self.bparams["largest"]
        if self.ivars["istep"] == 0:
            Ri = self._get_rayleigh_ritz_transform(self.X)
            E, Z = _symeig(_qform(_qform(self.A, self.X), Ri), largest)
            self.X[:] = self.X @ (Ri @ Z)
            self.E[:] = E
            np_ = 0
            self.update_residual()
            nc = self.update_converged_count()
            self.S[..., :n] = self.X
            W = _matmul(self.iK, self.R)
        else:
            S_ = self.S[:, nc:ns]
            Ri = self._get_rayleigh_ritz_transform(S_)
            E_, Z = _symeig(_qform(_qform(self.A, S_), Ri), largest)
            self.X[:, nc:] = S_ @ (Ri @ Z[:, : n - nc])
            self.E[nc:] = E_[: n - nc]
            P = S_ @ (Ri @ Z[:, n : 2 * n - nc])
            np_ = P.shape[-1]
            self.update_residual()
            nc = self.update_converged_count()
            self.S[..., :n] = self.X
            self.S[:, n : n + np_] = P
            W = _matmul(self.iK, self.R[:, nc:])
        self.ivars["converged_end"] = ns = n + np_ + W.shape[-1]
        self.S[:, n + np_ : ns] = W

    def _update_ortho(self) -> None:
        ns, nc = self.ivars["converged_end"], self.ivars["converged_count"]
        n, largest = self.iparams["n"], self.bparams["largest"]
        if self.ivars["istep"] == 0:
            Ri = self._get_rayleigh_ritz_transform(self.X)
            _, Z = _symeig(_qform(_qform(self.A, self.X), Ri), largest)
            self.X = self.X @ (Ri @ Z)
            self.update_residual()
            np_ = 0
            nc = self.update_converged_count()
            self.S[:, :n] = self.X
            W = self._get_ortho(self.R, self.X)
        else:
            S_ = self.S[:, nc:ns]
            E_, Z = _symeig(_qform(self.A, S_), largest)  # Rayleigh-Ritz
            self.X[:, nc:] = S_ @ Z[:, : n - nc]
            self.E[nc:] = E_[: n - nc]
            P = S_ @ (Z[:, n - nc :] @ qr(Z[: n - nc, n - nc :].mT)[0])
            np_ = P.shape[-1]
            self.update_residual()
            nc = self.update_converged_count()
            self.S[:, :n] = self.X
            self.S[:, n : n + np_] = P
            W = self._get_ortho(self.R[:, nc:], self.S[:, : n + np_])
        ns = self.ivars["converged_end"] = n + np_ + W.shape[-1]
        self.S[:, n + np_ : ns] = W

    def _get_rayleigh_ritz_transform(self, S: Tensor) -> Tensor:
        """Upper triangular ``Ri`` with ``Ri^T S^T B S Ri = I``: the standard problem
        ``Ri^T S^T A S Ri Z = Z E`` then gives ``C = Ri Z`` (Duersch et al., with the
        diagonal scaling ``d = diag(S^T B S)^-1/2`` applied elementwise)."""
        SBS = _qform(self.B, S)
        d_row = SBS.diagonal(0, -2, -1) ** -0.5
        d_col = d_row.reshape(d_row.shape[0], 1)
        R = cholesky((SBS * d_row) * d_col, upper=True)
        return solve_triangular(R, d_row.diag_embed(), upper=True, left=False)

    def _get_svqb(self, U: Tensor, drop: bool, tau: float) -> Tensor:
        """B-orthonormal columns spanning ``U`` (Duersch's algorithm 4; with ``drop``, the
        columns whose contribution falls below ``tau`` are dropped, else lifted to it)."""
        if U.numel() == 0:
            return U
        UBU = _qform(self.B, U)
        d = UBU.diagonal(0, -2, -1)
        # Exact zero columns (possible for constructed inputs) would divide by zero below.
        nz = where(d.abs() != 0.0)
        if len(nz[0]) < len(d):
            U = U[:, nz[0]]
            if U.numel() == 0:
                return U
            UBU = _qform(self.B, U)
            d = UBU.diagonal(0, -2, -1)
        d_col = (d**-0.5).reshape(d.shape[0], 1)
        E, Z = _symeig((UBU * d_col) * d_col.mT)
        t = tau * E.abs().max()
        if drop:
            keep = where(E > t)[0]
            E, Z, d_col = E[keep], Z[:, keep], d_col[keep]
        else:
            E[where(E < t)[0]] = t
        return (U * d_col.mT) @ (Z * E**-0.5)

    def _get_ortho(self, U: Tensor, V: Tensor) -> Tensor:
        """B-orthonormal columns spanning ``U`` and B-orthogonal to ``V`` (Duersch's
        algorithm 3, or 6 with ``ortho_use_drop``); empty when ``U`` lies in ``V``'s span."""
        m = self.iparams["m"]
        tau_ortho = self.fparams["ortho_tol"]
        tau_drop = self.fparams["ortho_tol_drop"]
        tau_replace = self.fparams["ortho_tol_replace"]
        i_max, j_max = self.iparams["ortho_i_max"], self.iparams["ortho_j_max"]
        use_drop = self.bparams["ortho_use_drop"]
        for key in [k for k in self.fvars if k.startswith("ortho_") and k.endswith("_rerr")]:
            del self.fvars[key]
        self.ivars.pop("ortho_i", 0)
        self.ivars.pop("ortho_j", 0)

        BV_norm = norm(_matmul(self.B, V))
        BU = _matmul(self.B, U)
        VBU = V.mT @ BU
        i = j = 0
        for i in range(i_max):
            U = U - V @ VBU
            drop, tau_svqb = False, tau_drop
            for j in range(j_max):
                if use_drop:
                    U = self._get_svqb(U, drop, tau_svqb)
                    drop, tau_svqb = True, tau_replace
                else:
                    U = self._get_svqb(U, False, tau_replace)
                if U.numel() == 0:  # every column of U was B-collinear to V
                    self.ivars["ortho_i"], self.ivars["ortho_j"] = i, j
                    return U
                BU = _matmul(self.B, U)
                UBU = U.mT @ BU
                R = UBU - eye(UBU.shape[-1], dtype=UBU.dtype)
                rerr = float(norm(R)) * float(norm(BU) * norm(U)) ** -1
                self.fvars[f"ortho_UBUmI_rerr[{i}, {j}]"] = rerr
                if rerr < tau_ortho:
                    break
            VBU = V.mT @ BU
            rerr = float(norm(VBU)) * float(BV_norm * norm(U)) ** -1
            self.fvars[f"ortho_VBU_rerr[{i}]"] = rerr
            if rerr < tau_ortho:
                break
            if m < U.shape[-1] + V.shape[-1]:
                if self.B is None:  # PyTorch's (TorchScript's) check comes first
                    raise AssertionError("B must not be None")
                raise ValueError(
                    "Overdetermined shape of U:"
                    f" #B-cols(={self.B.shape[-1]}) >= #U-cols(={U.shape[-1]}) + "
                    f"#V-cols(={V.shape[-1]}) must hold"
                )
        self.ivars["ortho_i"], self.ivars["ortho_j"] = i, j
        return U


def _spd(rng: np.random.Generator, *shape: int) -> np.ndarray:
    """Symmetric positive definite matrices with well separated eigenvalues 1..m (scaled)."""
    m = shape[-1]
    q = np.linalg.qr(rng.standard_normal(shape))[0]
    return (q * np.arange(1.0, m + 1)[..., None, :]) @ q.swapaxes(-1, -2)


def _samples(rng: np.random.Generator) -> list[Sample]:
    """Given starting blocks ``X`` of n = m / 3 columns: the search basis ``[X, P, W]`` then
    spans the whole space from the third step, the eigenpairs are exact to rounding, and
    the two libraries agree to it (float32 included) whatever the tolerance."""
    start = NoGrad(sample_randn(rng, 6, 2))
    return [
        Sample((_spd(rng, 6, 6),), {"k": 2, "X": start}),
        Sample((_spd(rng, 9, 9), 1), {"X": NoGrad(sample_randn(rng, 9, 3)), "largest": False}),
        Sample((_spd(rng, 2, 6, 6), 2), {"X": NoGrad(sample_randn(rng, 2, 6, 2))}, note="batched"),
        Sample((_spd(rng, 6, 6), 2), {"X": start, "method": "basic"}),
        Sample((NoGrad(_spd(rng, 6, 6)), 2), {"X": start, "B": NoGrad(_spd(rng, 6, 6))}),
    ]


def _gauge(result: Any) -> tuple:
    """Eigenvalues, and eigenvector projectors ``x x^T`` (free of the vectors' signs)."""
    values, vectors = result
    columns = vectors.mT
    return values, columns.unsqueeze(-1) * columns.unsqueeze(-2)


register("lobpcg", lobpcg, methods=(), samples=_samples, gauge=_gauge, atol=1e-7, rtol=1e-6)
