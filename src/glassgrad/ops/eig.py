"""The general eigendecomposition: ``linalg.eig`` (complex eigenvalues and unit-norm
eigenvectors, LAPACK's geev as in PyTorch) and ``linalg.eigvals``, of real or complex square
matrices, with PyTorch's gradient (``linalg_eig_backward``, conjugate Wirtinger convention;
a real input takes the real part). Eigenvectors are unique up to a complex phase: a loss that
depends on the phase has no gradient, and PyTorch's error says so."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import return_types
from .._dtype import complex_of, scalar_type_name
from .._tensor import Tensor
from ..autograd.op import Op
from ._common import array_of, check_tensor
from ._linalg_common import column_major
from ._out import out_result, recorded_as_not_implemented
from ._registry import NoGrad, Sample, register
from ._samples import complex_randn, randn
from .linear_solve import LinalgSolveExBackward0


def _diagonal(F: Any, x: Any) -> Any:
    # selected, not multiplied by I: an inf off the diagonal would make it NaN
    return F.sum(F.where(np.eye(x.shape[-1], dtype=bool), x, 0.0), -1)


def _adjoint(F: Any, x: Any) -> Any:
    return F.conj(F.mT(x))


class LinalgEigBackward0(Op):
    """(L, V) with A V = V diag(L), the columns of V of norm 1;
    gA = V^-H (diag(gL) + (V^H gV - V^H V Re(diag(V^H gV))) / conj(E)) V^H,
    E[i, j] = L[j] - L[i] off the diagonal (PyTorch's linalg_eig_backward)."""

    saved_outputs: tuple[int, ...] = (0, 1)
    takes_undefined_grads = True
    __slots__ = ()

    def forward(self, a: Any) -> Any:
        dtype = complex_of(a.dtype) if a.dtype.kind == "f" else a.dtype
        if a.size == 0:
            return np.zeros(a.shape[:-1], dtype), column_major(np.zeros(a.shape, dtype))
        values, vectors = np.linalg.eig(a)
        # LAPACK's layout, which PyTorch keeps: each matrix of vectors column-major
        return values.astype(dtype, copy=False), column_major(vectors.astype(dtype, copy=False))

    def backward(self, F: Any, grads: Any) -> Any:
        values, vectors = self.saved
        grad_values, grad_vectors = grads
        vh = _adjoint(F, vectors)
        if grad_vectors is None:  # eigvals: V^-H diag(gL) V^H
            if grad_values is None:
                return None
            return LinalgSolveExBackward0.call(vh, F.unsqueeze(grad_values, -1) * vh)
        vhgv = F.matmul(vh, grad_vectors)
        diagonal = _diagonal(F, vhgv)
        if not np.allclose(np.imag(array_of(diagonal)), 0.0, rtol=1e-2, atol=1e-2):
            raise RuntimeError(
                "linalg_eig_backward: The eigenvectors in the complex case are specified up to "
                "multiplication by e^{i phi}. The specified loss function depends on this "
                "quantity, so it is ill-defined."
            )
        vhgv = vhgv - F.matmul(vh, vectors * F.unsqueeze(F.real(diagonal), -2))
        conj_values = F.conj(values)
        gap = F.unsqueeze(conj_values, -2) - F.unsqueeze(conj_values, -1)
        eye = np.eye(values.shape[-1], dtype=bool)
        # a zero gV still divides by E (0 / 0 is NaN at a repeated eigenvalue, as PyTorch's)
        inner = vhgv / F.where(eye, 1.0, gap)
        if grad_values is not None:  # PyTorch writes gL on the diagonal when given
            inner = F.where(~eye, inner, F.unsqueeze(grad_values, -2))
        return LinalgSolveExBackward0.call(vh, F.matmul(inner, vh))


def _check(op: str, A: Tensor) -> None:
    a = check_tensor(A, op, "A")._data
    if a.dtype.kind not in "fc":  # PyTorch's error: no complex type for the result
        raise RuntimeError(f"Unknown Complex ScalarType for {scalar_type_name(a.dtype)}")
    if a.ndim < 2:
        raise RuntimeError(f"{op}: The input tensor A must have at least 2 dimensions.")
    if a.shape[-1] != a.shape[-2]:
        raise RuntimeError(
            f"{op}: A must be batches of square matrices, but they are {a.shape[-2]} by "
            f"{a.shape[-1]} matrices"
        )
    if a.dtype == np.float16:  # the LAPACK kernel has no Half version
        raise NotImplementedError("\"linalg_eig_out_cpu\" not implemented for 'Half'")
    if not np.isfinite(a).all():
        # eigvals too: PyTorch checks in linalg.eig, which eigvals calls (see docs/fuzzing.md)
        raise RuntimeError("torch.linalg.eig: input tensor should not contain infs or NaNs.")


def eig(A: Tensor, *, out: Any = None) -> tuple[Tensor, ...]:
    """Eigenvalues and eigenvectors (columns, of norm 1) of a square matrix, or of each in a
    batch: complex tensors, for real input too. ``A = V diag(L) V^-1``.

    Example::

        >>> L, V = glassgrad.linalg.eig(glassgrad.tensor([[2.0, 0.0], [0.0, 3.0]]))
        >>> L
        tensor([2.+0.j, 3.+0.j])
    """
    _check("linalg.eig", A)
    if out is not None:
        return out_result("linalg_eig", out, eig(A), (A,), exact=True)
    return return_types.linalg_eig(*LinalgEigBackward0.apply(A))


def eigvals(A: Tensor, *, out: Any = None) -> Tensor:
    """The eigenvalues of a square matrix (or of each in a batch), complex.

    Example::

        >>> glassgrad.linalg.eigvals(glassgrad.tensor([[0.0, -1.0], [1.0, 0.0]]))
        tensor([0.+1.j, 0.-1.j])
    """
    _check("linalg.eigvals", A)
    if out is not None:
        # PyTorch's out= kernel records a NotImplemented node, which out takes.
        result = recorded_as_not_implemented("linalg_eigvals", eigvals(A), (A,))
        return out_result("linalg_eigvals", out, result, (A,), exact=True)
    return LinalgEigBackward0.apply(A)[0]


def _eig_gauge(result: Any) -> tuple:
    """Phase-free quantities: the eigenvalues, |V| and the projectors v v^H on each
    eigenvector v (a column of V)."""
    values, vectors = result
    columns = vectors.mT
    projectors = columns.unsqueeze(-1) * columns.conj().unsqueeze(-2)
    return values, vectors.abs(), projectors


def _samples(rng: np.random.Generator) -> list[Sample]:
    return [
        Sample((randn(rng, 3, 3),)),
        Sample((randn(rng, 2, 4, 4),), note="batched"),
        Sample((complex_randn(rng, 3, 3),)),
        Sample((NoGrad(randn(rng, 3, 3)),), note="no grad"),
    ]


register(
    "eig",
    eig,
    nodes=(LinalgEigBackward0,),
    namespace="linalg",
    gauge=_eig_gauge,
    samples=_samples,
    atol=1e-9,
    rtol=1e-7,
)
register(
    "eigvals",
    eigvals,
    nodes=(LinalgEigBackward0,),
    namespace="linalg",
    samples=_samples,
    atol=1e-9,
    rtol=1e-7,
)
