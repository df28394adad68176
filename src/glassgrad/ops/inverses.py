"""Inverses and least squares: ``linalg.inv`` (and ``torch.inverse``), ``linalg.inv_ex`` and ``solve_ex`` (results with LAPACK's
info instead of errors), the pseudo-inverse ``linalg.pinv`` (``torch.pinverse``),
``linalg.matrix_rank``, ``linalg.lstsq`` and the tensor forms ``linalg.tensorinv`` /
``tensorsolve``.

``pinv`` and ``lstsq`` compute from the SVD with PyTorch's default tolerances; their gradients
are PyTorch's ``pinv_backward`` and ``linalg_lstsq_backward``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import return_types
from .._dtype import scalar_type_name
from .._tensor import Tensor
from ..autograd.op import Op
from ._common import check_tensor, wrap_dim
from ._linalg_common import (
    adjoint,
    check_floating,
    check_full_precision,
    check_square,
    column_major,
    invertible,
    singular_error,
    swap,
)
from ._out import composite_out, out_result
from ._registry import NoGrad, Sample, register
from ._samples import randn
from .linear_solve import LinalgSolveExBackward0, check_solve, solve
from .lu import lu_arrays
from .lu_solve import lu_solve_arrays
from .shape import permute, reshape

# --- inv, det, slogdet, logdet ------------------------------------------------------------


class LinalgInvExBackward0(Op):
    """out = A^-1; gA = -A^-T grad A^-T (-A^-H grad A^-H for complex A: holomorphic)"""

    saves_output = True
    holomorphic = True

    def forward(self, a: Any, check_errors: Any = True) -> Any:
        try:
            return column_major(np.linalg.inv(a))
        except np.linalg.LinAlgError:
            if not check_errors:  # inv_ex: LAPACK's inf/nan, the zero pivot in its info
                eye = np.broadcast_to(np.eye(a.shape[-1], dtype=a.dtype), a.shape)
                return column_major(lu_solve_arrays(*lu_arrays(a)[:2], eye, True, False))
            raise singular_error("linalg.inv", a) from None

    def backward(self, F: Any, grad: Any) -> Any:
        (inverse,) = self.saved
        inverse_t = F.mT(inverse)
        return -F.matmul(inverse_t, F.matmul(grad, inverse_t))


def inv(A: Tensor, *, out: Any = None) -> Tensor:
    """The inverse of a square matrix (or of each in a batch).

    Example::

        >>> glassgrad.linalg.inv(glassgrad.tensor([[2.0, 0.0], [0.0, 4.0]]))
        tensor([[0.5000, 0.0000],
                [0.0000, 0.2500]])
    """
    data = check_tensor(A, "linalg.inv", "A")._data
    check_square("linalg.inv", data, complex_ok=True)
    check_full_precision("linalg.inv", data)
    result = LinalgInvExBackward0.apply(A)
    return out_result("linalg_inv", out, result, (A,), exact=True, autograd_op="linalg_inv_ex")


def inverse(input: Tensor, *, out: Any = None) -> Tensor:
    """``torch.inverse``: the same as ``linalg.inv``."""
    return out_result("inverse", out, inv(input), (input,), exact=True, autograd_op="linalg_inv_ex")


register(
    "inv",
    inv,
    namespace="linalg",
    samples=lambda rng: [
        Sample((invertible(rng, 3, 3),)),
        Sample((invertible(rng, 2, 3, 3),), note="batched"),
        Sample((invertible(rng, 3, 3).T,), note="non-contiguous"),
        Sample((np.zeros((0, 0)),)),
        Sample((np.zeros((2, 0, 0)),)),
    ],
)


register(
    "inverse",
    inverse,
    nodes=(LinalgInvExBackward0,),
    samples=lambda rng: [Sample((invertible(rng, 3, 3),))],
)


__all__ = [
    "inv",
    "inv_ex",
    "solve_ex",
    "pinv",
    "pinverse",
    "matrix_rank",
    "lstsq",
    "tensorinv",
]


def _info(a: np.ndarray, result: np.ndarray) -> np.ndarray:
    """getrf's info for each matrix: where the result is not finite, the first zero pivot."""
    if np.all(np.isfinite(result)):
        return np.zeros(a.shape[:-2], np.int32)
    return lu_arrays(a)[2]


def inv_ex(A: Tensor, *, check_errors: bool = False, out: Any = None) -> tuple[Tensor, ...]:
    """``(inverse, info)``: ``linalg.inv`` without its error: ``info`` is the 1-based index of
    the first zero pivot of A's LU (0 when A is invertible), the inverse then LAPACK's inf/nan.

    Example::

        >>> glassgrad.linalg.inv_ex(glassgrad.eye(2)).info
        tensor(0, dtype=glassgrad.int32)
    """
    data = check_tensor(A, "linalg.inv_ex", "A")._data
    check_square("linalg.inv_ex", data, complex_ok=True)
    check_full_precision("linalg.inv", data)
    inverse = LinalgInvExBackward0.apply(A, check_errors=False)
    info = _info(data, inverse._data)
    if check_errors and info.any():
        raise singular_error("linalg.inv_ex", data)
    result = return_types.linalg_inv_ex(inverse, Tensor._from_array(info))
    return out_result("linalg_inv_ex", out, result, (A,), exact=True)


def solve_ex(
    A: Tensor, B: Tensor, *, left: bool = True, check_errors: bool = False, out: Any = None
) -> tuple[Tensor, ...]:
    """``(result, info)``: ``linalg.solve`` without its error for singular A (``info``: the
    1-based index of the first zero pivot of A's LU, 0 when none).

    Example::

        >>> glassgrad.linalg.solve_ex(glassgrad.eye(2), glassgrad.ones(2)).result
        tensor([1., 1.])
    """
    vector = check_solve("linalg.solve_ex", A, B, left)
    x = LinalgSolveExBackward0.apply(A, B, left=left, vector=vector, check_errors=False)
    info = _info(A._data, x._data)
    if check_errors and info.any():
        from ._linalg_common import LinAlgError, batch_prefix, is_singular

        _, prefix = batch_prefix(A._data, is_singular)
        raise LinAlgError(
            f"linalg.solve_ex: {prefix}The solver failed because the input matrix is singular."
        )
    result = return_types.linalg_solve_ex(x, Tensor._from_array(info))
    return out_result(
        "linalg_solve_ex", out, result, (A, B), exact=True, autograd_op="_linalg_solve_ex"
    )


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
    u, s, vh = np.linalg.svd(a, full_matrices=False)
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
        if a.size:
            x = np.matmul(swap(vh) * inverse[..., None, :], np.matmul(swap(u), matrix_b))
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
        if m > n and driver != "gelsy" and full:
            residuals = np.sum((np.matmul(a, x) - matrix_b) ** 2, axis=-2).astype(a.dtype)
        else:
            residuals = np.zeros((0,), a.dtype)
        if vector:
            x = x[..., 0]
            residuals = residuals[..., 0] if residuals.size else residuals
        rank_out = np.zeros((0,), np.int64) if driver == "gels" else rank
        values = s.astype(a.dtype) if driver in ("gelsd", "gelss") else np.zeros((0,), a.dtype)
        return x, residuals, rank_out, values

    def backward(self, F: Any, grads: Any) -> Any:
        a, b, x = self.saved
        grad_x, grad_residuals = grads[0], grads[1]
        needs = self.needs_input_grad
        vector = self.vector
        matrix_b = F.unsqueeze(b, -1) if vector else b
        grad_a = grad_b = None
        if np.any(_array(grad_x)):
            gx = F.unsqueeze(grad_x, -1) if vector else grad_x
            pinv_a = LinalgPinvBackward0.call(a)
            if needs[0]:
                pinv_grad = F.matmul(gx, F.mT(matrix_b))
                grad_a = pinv_backward(F, pinv_grad, pinv_a, a)
            if needs[1]:
                grad_b = F.matmul(F.mT(pinv_a), gx)
                grad_b = grad_b[..., 0] if vector else grad_b
        if (
            grad_residuals.shape
            and grad_residuals.shape[-1:] != (0,)
            and np.any(_array(grad_residuals))
        ):
            matrix_x = F.unsqueeze(x, -1) if vector else x
            r = F.matmul(a, matrix_x) - matrix_b
            g = (
                F.unsqueeze(F.unsqueeze(grad_residuals, -1), -1)
                if vector
                else F.unsqueeze(grad_residuals, -2)
            )
            if needs[0]:
                term = F.matmul(g * r * 2.0, F.mT(matrix_x))
                grad_a = term if grad_a is None else grad_a + term
            if needs[1]:
                term = g * r * -2.0
                term = term[..., 0] if vector else term
                grad_b = term if grad_b is None else grad_b + term
        return grad_a, grad_b


def _array(x: Any) -> Any:
    return x._data if isinstance(x, Tensor) else x


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
    check_floating("torch.linalg.lstsq", a)
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


# --- tensorinv, tensorsolve ------------------------------------------------------------------


def tensorinv(A: Tensor, ind: int = 2, *, out: Any = None) -> Tensor:
    """The inverse of A read as a matrix whose rows are the first ``ind`` dims: the result
    has shape ``A.shape[ind:] + A.shape[:ind]`` and ``tensordot(tensorinv(A), A, ind)`` is
    the identity.

    Example::

        >>> glassgrad.linalg.tensorinv(glassgrad.eye(4).reshape(4, 2, 2), ind=1).shape
        glassgrad.Size([2, 2, 4])
    """
    data = check_tensor(A, "linalg.tensorinv", "A")._data
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    rows, cols = math.prod(data.shape[:ind]), math.prod(data.shape[ind:])
    if rows != cols:
        raise RuntimeError(
            f"Expected self to satisfy the requirement prod(self.shape[ind:]) == "
            f"prod(self.shape[:ind]), but got {cols} != {rows}"
        )
    if out is not None:
        return composite_out("linalg.tensorinv", out, lambda: tensorinv(A, ind))
    return reshape(inv(reshape(A, (rows, cols))), data.shape[ind:] + data.shape[:ind])


def tensorsolve(A: Tensor, B: Tensor, dims: Any = None, *, out: Any = None) -> Tensor:
    """The X with ``tensordot(A, X, X.ndim) = B``; ``dims`` names dims of A moved to the end
    first. X has shape ``A.shape[B.ndim:]``.

    Example::

        >>> A = glassgrad.eye(6).reshape(6, 2, 3)
        >>> glassgrad.linalg.tensorsolve(A, glassgrad.ones(6)).shape
        glassgrad.Size([2, 3])
    """
    data = check_tensor(A, "linalg.tensorsolve", "A")._data
    b = check_tensor(B, "linalg.tensorsolve", "B", 2)._data
    if out is not None:
        return composite_out("linalg.tensorsolve", out, lambda: tensorsolve(A, B, dims))
    if dims is not None:
        moved = [wrap_dim(d, data.ndim, "linalg.tensorsolve") for d in dims]
        order = [d for d in range(data.ndim) if d not in moved] + moved
        A, data = permute(A, order), np.transpose(data, order)
    result_shape = data.shape[b.ndim :]
    rows, cols = b.size, math.prod(result_shape)
    if rows != cols:
        raise RuntimeError(
            f"Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
            f"prod(self.shape[:other.ndim]), but got {cols} != {rows}"
        )
    x = solve(reshape(A, (rows, cols)), reshape(B, (rows,)))
    return reshape(x, result_shape)


# --- registry ----------------------------------------------------------------------------

register(
    "inv_ex",
    inv_ex,
    nodes=(LinalgInvExBackward0,),
    namespace="linalg",
    samples=lambda rng: [
        Sample((invertible(rng, 3, 3),)),
        Sample((invertible(rng, 2, 3, 3),)),
        Sample((np.zeros((2, 2)),), grad=False, note="singular: info"),
    ],
)
register(
    "solve_ex",
    solve_ex,
    nodes=(LinalgSolveExBackward0,),
    namespace="linalg",
    samples=lambda rng: [
        Sample((invertible(rng, 3, 3), randn(rng, 3, 2))),
        Sample((invertible(rng, 3, 3), randn(rng, 3)), note="vector"),
        Sample((invertible(rng, 3, 3), randn(rng, 2, 3)), {"left": False}),
        Sample((np.diag([1.0, 0.0]), randn(rng, 2)), grad=False, note="singular: info"),
    ],
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
    ],
)
register(
    "tensorinv",
    tensorinv,
    namespace="linalg",
    samples=lambda rng: [
        Sample((invertible(rng, 4, 4).reshape(4, 2, 2), 1)),
        Sample((invertible(rng, 6, 6).reshape(2, 3, 6),)),
    ],
)
register(
    "tensorsolve",
    tensorsolve,
    namespace="linalg",
    samples=lambda rng: [
        Sample((invertible(rng, 6, 6).reshape(6, 2, 3), randn(rng, 6))),
        Sample((invertible(rng, 6, 6).reshape(2, 3, 6), randn(rng, 2, 3))),
        Sample((invertible(rng, 6, 6).reshape(6, 2, 3), randn(rng, 2, 3)), {"dims": (0,)}),
    ],
)
