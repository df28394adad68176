"""The SVD-based family: the pseudo-inverse ``linalg.pinv`` (``torch.pinverse``),
``linalg.matrix_rank`` and the least-squares solution ``linalg.lstsq``.

All three read the singular values (eigenvalues when ``hermitian``) with PyTorch's default
tolerances; the gradients are PyTorch's ``pinv_backward`` and ``linalg_lstsq_backward``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import return_types
from .._dtype import scalar_type_name
from .._tensor import Tensor
from ..autograd.op import Op
from ._common import check_tensor
from ._linalg_common import (
    adjoint,
    check_floating,
    check_square,
    column_major,
    invertible,
    nonfinite_svd,
    swap,
)
from ._out import out_result
from ._registry import NoGrad, Sample, register
from ._samples import complex_randn, randn

__all__ = ["pinv", "pinverse", "matrix_rank", "lstsq"]


# --- pseudo-inverse and rank ---------------------------------------------------------------


def _tolerances(a: np.ndarray, atol: Any, rtol: Any) -> tuple:
    """PyTorch's defaults: rtol = eps * max(m, n) when no atol is given (or it is 0), else 0."""
    atol_value = 0.0 if atol is None else (atol._data if isinstance(atol, Tensor) else atol)
    if rtol is None:
        positive = atol is not None and np.any(np.asarray(atol_value) > 0)
        rtol_value = 0.0 if positive else np.finfo(a.dtype).eps * max(a.shape[-2:])
    else:
        rtol_value = rtol._data if isinstance(rtol, Tensor) else rtol
    return np.asarray(atol_value), np.asarray(rtol_value)


def _spectrum(a: np.ndarray, hermitian: bool) -> tuple:
    """(values, left, right) with A = left diag(values) right: the SVD, or for a symmetric
    (Hermitian) A its eigendecomposition (values may be negative)."""
    if hermitian:
        values, vectors = np.linalg.eigh(a)
        return values, vectors, np.conj(swap(vectors))
    u, s, vh = nonfinite_svd(a, False) or np.linalg.svd(a, full_matrices=False)
    return s, u, vh


def _kept(values: np.ndarray, atol: np.ndarray, rtol: np.ndarray) -> np.ndarray:
    magnitude = np.abs(values)
    largest = magnitude.max(axis=-1, keepdims=True) if values.shape[-1] else magnitude
    tolerance = np.maximum(np.asarray(atol)[..., None], np.asarray(rtol)[..., None] * largest)
    return magnitude > tolerance


class LinalgPinvBackward0(Op):
    """out = A^+ (from the SVD, singular values under the tolerance dropped); the gradient is
    PyTorch's ``pinv_backward``"""

    saved_inputs: tuple[int, ...] = (0,)
    saves_output = True
    __slots__ = ()

    def forward(self, a: Any, atol: Any = None, rtol: Any = None, hermitian: Any = False) -> Any:
        if a.size == 0:
            return np.zeros(a.shape[:-2] + a.shape[-2:][::-1], a.dtype)
        values, left, right = _spectrum(a, hermitian)
        keep = _kept(values, *_tolerances(a, atol, rtol))
        inverse = np.where(keep, 1 / np.where(keep, values, 1), 0).astype(a.dtype)
        if a.dtype.kind == "c":  # A^+ = right^H diag(1 / values) left^H
            right, left = np.conj(right), np.conj(left)
        return np.matmul(swap(right) * inverse[..., None, :], swap(left))

    def backward(self, F: Any, grad: Any) -> Any:
        a, pinv_a = self.saved
        return pinv_backward(F, grad, pinv_a, a)


def pinv_backward(F: Any, grad: Any, pinv_a: Any, a: Any) -> Any:
    """PyTorch's ``pinv_backward``: the gradient of A from that of A^+ (the transposes
    conjugated for complex A)."""
    m, n = a.shape[-2:]
    pinv_t, grad_t = adjoint(F, pinv_a), adjoint(F, grad)
    if m <= n:
        k = F.matmul(grad_t, pinv_a)
        k_pinv_t = F.matmul(k, pinv_t)
        return (
            -adjoint(F, F.matmul(pinv_a, k))
            + k_pinv_t
            - F.matmul(F.matmul(a, pinv_a), k_pinv_t)
            + F.matmul(F.matmul(pinv_t, pinv_a), grad_t - F.matmul(k, a))
        )
    k = F.matmul(pinv_a, grad_t)
    pinv_t_k = F.matmul(pinv_t, k)
    return (
        -adjoint(F, F.matmul(k, pinv_a))
        + F.matmul(F.matmul(grad_t - F.matmul(a, k), pinv_a), pinv_t)
        + pinv_t_k
        - F.matmul(F.matmul(pinv_t_k, pinv_a), a)
    )


def pinv(
    A: Tensor,
    rcond: Any = None,
    hermitian: bool = False,
    *,
    atol: Any = None,
    rtol: Any = None,
    out: Any = None,
) -> Tensor:
    """The Moore-Penrose pseudo-inverse of a (batch of) matrices: singular values at most
    ``max(atol, rtol * largest)`` are treated as zero (``rcond`` is the older name of
    ``rtol``); ``hermitian=True`` uses the eigendecomposition of a symmetric A.

    Example::

        >>> glassgrad.linalg.pinv(glassgrad.tensor([[1.0, 0.0], [0.0, 0.0]]))
        tensor([[1., 0.],
                [0., 0.]])
    """
    data = check_tensor(A, "linalg.pinv", "A")._data
    if data.ndim < 2 or data.dtype.kind not in "fc" or data.dtype == np.float16:
        raise RuntimeError(
            f"linalg.pinv({scalar_type_name(data.dtype)}{{{list(data.shape)}}}): expected a "
            "tensor with 2 or more dimensions of float, double, cfloat or cdouble types"
        )
    if rcond is not None:
        if atol is not None or rtol is not None:
            raise TypeError("linalg.pinv(): rcond cannot be given together with atol or rtol")
        atol, rtol = 0.0, rcond
    if hermitian:
        check_square("linalg.pinv(hermitian=True)", data, complex_ok=True)
    result = LinalgPinvBackward0.apply(A, atol=atol, rtol=rtol, hermitian=bool(hermitian))
    return out_result("linalg_pinv", out, result, (A,), exact=True)


def pinverse(input: Tensor, rcond: float = 1e-15) -> Tensor:
    """``torch.pinverse``: ``linalg.pinv(input, rcond)``.

    Example::

        >>> glassgrad.pinverse(glassgrad.tensor([[2.0, 0.0], [0.0, 4.0]]))
        tensor([[0.5000, 0.0000],
                [0.0000, 0.2500]])
    """
    return pinv(input, rcond)


def _check_epsilon_dtype(a: np.ndarray) -> None:
    """float16 has no LAPACK epsilon in PyTorch's default tolerances (its ``_get_epsilon``)."""
    if a.dtype == np.float16:
        raise RuntimeError("This function doesn't handle types other than float and double")


def matrix_rank(
    A: Tensor,
    tol: Any = None,
    hermitian: bool = False,
    *,
    atol: Any = None,
    rtol: Any = None,
    out: Any = None,
) -> Tensor:
    """The numerical rank of a (batch of) matrices: the count of singular values above
    ``max(atol, rtol * largest)`` (``tol`` is the older name of ``atol``).

    Example::

        >>> glassgrad.linalg.matrix_rank(glassgrad.tensor([[1.0, 2.0], [2.0, 4.0]]))
        tensor(1)
    """
    data = check_tensor(A, "linalg.matrix_rank", "A")._data
    check_floating("linalg.matrix_rank", data, complex_ok=True)
    if data.ndim < 2:
        raise RuntimeError(
            "linalg.matrix_rank: The input tensor input must have at least 2 dimensions."
        )
    _check_epsilon_dtype(data)
    if tol is not None:
        atol, rtol = tol, 0.0
    if data.size == 0:
        rank = np.zeros(data.shape[:-2], np.int64)
    else:
        values = _spectrum(data, hermitian)[0]
        rank = _kept(values, *_tolerances(data, atol, rtol)).sum(-1).astype(np.int64)
    result = Tensor._from_array(np.asarray(rank))
    return out_result("linalg_matrix_rank", out, result, (), exact=True)


# --- least squares -------------------------------------------------------------------------

_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


class LinalgLstsqBackward0(Op):
    """(X, residuals, rank, singular values) of min |A X - B|; the gradient is PyTorch's
    ``linalg_lstsq_backward``: X = pinv(A) B, residuals |A X - B|^2"""

    driver: Any
    vector: Any

    saved_inputs: tuple[int, ...] = (0, 1)
    saved_outputs: tuple[int, ...] = (0,)
    nondiff_outputs: tuple[int, ...] = (2, 3)
    # PyTorch's formula tests which gradients are defined, not their values: a gradient of
    # zeros (written over by ``residuals[:] = v``) still gives terms that depend on A and B
    # under create_graph, and NaN in pinv(A) still reaches them.
    takes_undefined_grads = True
    __slots__ = ("vector", "driver")

    def forward(
        self, a: Any, b: Any, rcond: Any = None, driver: Any = "gelsy", vector: Any = False
    ) -> Any:
        self.vector, self.driver = vector, driver
        matrix_b = b[..., None] if vector else b
        m, n = a.shape[-2:]
        s, u, vh = _spectrum(a, False) if a.size else (np.zeros(a.shape[:-2] + (0,)),) * 3
        cutoff = np.finfo(a.dtype).eps * max(m, n) if rcond is None else rcond
        keep = _kept(s, np.zeros(()), np.asarray(cutoff)) if s.size else s.astype(bool)
        inverse = np.where(keep, 1 / np.where(keep, s, 1), 0)
        if a.size:  # X = V diag(1/s) U^H B
            x = np.matmul(
                np.conj(swap(vh)) * inverse[..., None, :], np.matmul(np.conj(swap(u)), matrix_b)
            )
        else:
            x = np.zeros(
                np.broadcast_shapes(a.shape[:-2], matrix_b.shape[:-2]) + (n, matrix_b.shape[-1])
            )
        # LAPACK's gels* write X over B's column-major buffer of max(m, n) rows; PyTorch
        # returns the first n rows of that buffer, with its strides.
        buffer = column_major(np.zeros((*x.shape[:-2], max(m, n), x.shape[-1]), a.dtype))
        buffer[..., :n, :] = x
        x = buffer[..., :n, :]
        rank = keep.sum(-1).astype(np.int64)
        full = driver == "gels" or bool(np.all(rank == n))
        real = np.finfo(a.dtype).dtype  # residuals and singular values are real
        if m > n and driver != "gelsy" and full:
            residuals = np.sum(np.abs(np.matmul(a, x) - matrix_b) ** 2, axis=-2).astype(real)
            if driver == "gels":  # its quick return for a zero A sets all of B to 0
                residuals = np.where(np.all(a == 0, axis=(-2, -1))[..., None], 0, residuals)
        else:
            residuals = np.zeros((0,), real)
        if vector:  # PyTorch's residuals keep B's added column: shape (..., 1)
            x = x[..., 0]
        rank_out = np.zeros((0,), np.int64) if driver == "gels" else rank
        values = s.astype(real) if driver in ("gelsd", "gelss") else np.zeros((0,), real)
        return x, residuals, rank_out, values

    def backward(self, F: Any, grads: Any) -> Any:
        a, b, x = self.saved
        grad_x, grad_residuals = grads[0], grads[1]
        needs = self.needs_input_grad
        vector = self.vector
        matrix_b = F.unsqueeze(b, -1) if vector else b
        grad_a = grad_b = None
        if grad_x is not None:
            gx = F.unsqueeze(grad_x, -1) if vector else grad_x
            pinv_a = LinalgPinvBackward0.call(a)
            if needs[0]:
                pinv_grad = F.matmul(gx, adjoint(F, matrix_b))
                grad_a = pinv_backward(F, pinv_grad, pinv_a, a)
            if needs[1]:
                grad_b = F.matmul(adjoint(F, pinv_a), gx)
                grad_b = grad_b[..., 0] if vector else grad_b
        if grad_residuals is not None and 0 not in tuple(grad_residuals.shape):
            matrix_x = F.unsqueeze(x, -1) if vector else x
            r = F.matmul(a, matrix_x) - matrix_b
            g = F.unsqueeze(grad_residuals, -2)
            if needs[0]:
                term = F.matmul(g * r * 2.0, adjoint(F, matrix_x))
                grad_a = term if grad_a is None else grad_a + term
            if needs[1]:
                term = g * r * -2.0
                term = term[..., 0] if vector else term
                grad_b = term if grad_b is None else grad_b + term
        return grad_a, grad_b


def lstsq(A: Tensor, B: Tensor, rcond: Any = None, *, driver: Any = None) -> tuple[Tensor, ...]:
    """``(solution, residuals, rank, singular_values)`` of the least-squares problem
    ``min |A X - B|``: the minimum-norm solution (singular values at most ``rcond`` times the
    largest dropped); ``residuals`` (squared, per column) when m > n and A has full rank;
    ``rank`` and ``singular_values`` as PyTorch's CPU ``driver`` computes them.

    Example::

        >>> A = glassgrad.tensor([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]])
        >>> glassgrad.linalg.lstsq(A, glassgrad.tensor([[1.0], [2.0], [3.0]])).solution
        tensor([[1.],
                [2.]])
    """
    a = check_tensor(A, "linalg.lstsq", "A")._data
    b = check_tensor(B, "linalg.lstsq", "B", 2)._data
    check_floating("torch.linalg.lstsq", a, complex_ok=True)
    if a.ndim < 2:
        raise RuntimeError("torch.linalg.lstsq: input must have at least 2 dimensions.")
    if a.dtype != b.dtype:
        raise RuntimeError(
            f"torch.linalg.lstsq: Expected input and other to have the same dtype, but got "
            f"input's dtype {scalar_type_name(a.dtype)} and other's dtype "
            f"{scalar_type_name(b.dtype)}"
        )
    _check_epsilon_dtype(a)
    driver = "gelsy" if driver is None else driver
    if driver not in _DRIVERS:
        raise RuntimeError(
            "torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)"
        )
    vector = b.ndim == a.ndim - 1
    rows = b.shape[-1] if vector else b.shape[-2]
    if rows != a.shape[-2]:
        raise RuntimeError(
            f"torch.linalg.lstsq: input.size(-2) should match other.size(-{1 if vector else 2})"
        )
    return return_types.linalg_lstsq(
        *LinalgLstsqBackward0.apply(A, B, rcond=rcond, driver=driver, vector=vector)
    )


_pinv_samples = lambda rng: [  # noqa: E731
    Sample((randn(rng, 3, 3),)),
    Sample((randn(rng, 4, 2),)),
    Sample((randn(rng, 2, 4),)),
    Sample((randn(rng, 2, 3, 2),), note="batched"),
]


register(
    "pinv",
    pinv,
    nodes=(LinalgPinvBackward0,),
    namespace="linalg",
    samples=lambda rng: [
        *_pinv_samples(rng),
        Sample((randn(rng, 3, 4),), {"rtol": 0.01}),
        Sample((randn(rng, 3, 4),), {"atol": 0.1}),
        Sample((randn(rng, 3, 4), 1e-3)),
        Sample((invertible(rng, 3, 3) + invertible(rng, 3, 3).T,), {"hermitian": True}, fd=False),
        Sample((np.diag([1.0, 2.0, 1e-20]),), grad=False, note="a dropped singular value"),
    ],
)


register("pinverse", pinverse, nodes=(LinalgPinvBackward0,), samples=_pinv_samples)


register(
    "matrix_rank",
    matrix_rank,
    namespace="linalg",
    differentiable=False,
    samples=lambda rng: [
        Sample((randn(rng, 3, 4),)),
        Sample((randn(rng, 4, 2) @ randn(rng, 2, 4),), note="rank 2"),
        Sample((np.diag([1.0, 0.5, 1e-3]),), {"atol": 0.01}),
        Sample((np.diag([1.0, 0.5, 1e-3]),), {"rtol": 0.1}),
        Sample((np.diag([1.0, -0.5, 0.0]),), {"hermitian": True}),
        Sample((randn(rng, 2, 3, 3),)),
    ],
)


register(
    "lstsq",
    lstsq,
    nodes=(LinalgLstsqBackward0,),
    namespace="linalg",
    samples=lambda rng: [
        Sample((randn(rng, 4, 3), randn(rng, 4, 2))),
        Sample((randn(rng, 4, 3), randn(rng, 4, 2)), {"driver": "gelsd"}),
        Sample((randn(rng, 4, 3), randn(rng, 4, 2)), {"driver": "gels"}),
        Sample((randn(rng, 4, 3), randn(rng, 4, 2)), {"driver": "gelss"}),
        Sample((randn(rng, 3, 4), randn(rng, 3, 2)), note="wide"),
        Sample((randn(rng, 2, 4, 3), randn(rng, 2, 4, 1)), {"driver": "gelsd"}, note="batched"),
        Sample((randn(rng, 4, 3), randn(rng, 4))),
        Sample((randn(rng, 4, 3), NoGrad(randn(rng, 4, 2))), {"driver": "gelsd"}),
        Sample((randn(rng, 4, 3), randn(rng, 4)), {"driver": "gelsd"}, note="vector residuals"),
        Sample((complex_randn(rng, 4, 3), complex_randn(rng, 4, 2)), {"driver": "gelsd"}),
        Sample((complex_randn(rng, 3, 4), complex_randn(rng, 3, 2)), note="complex, wide"),
        Sample((complex_randn(rng, 2, 4, 3), complex_randn(rng, 2, 4)), {"driver": "gels"}),
    ],
)
