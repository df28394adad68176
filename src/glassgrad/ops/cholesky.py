"""Cholesky factors and what is built on them: ``linalg.cholesky`` (and the deprecated
``torch.cholesky``), ``linalg.cholesky_ex`` (the factor and LAPACK's info),
``torch.cholesky_solve`` (A X = B given A's factor) and ``torch.cholesky_inverse`` (A^-1
given its factor), with PyTorch's gradients (``cholesky_solve_backward``,
``cholesky_inverse_backward``): like PyTorch's, the factor's gradient is a full matrix,
although only its triangle is read.
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
    LinAlgError,
    adjoint,
    all_finite,
    batch_prefix,
    check_kernel_dtype,
    check_square,
    cholesky_with_info,
    column_major,
    singular_error,
    spd,
    swap,
)
from ._out import out_result
from ._registry import NoGrad, Sample, register
from ._samples import randn
from .solvers import LinalgSolveTriangularBackward0, triangular_solve_arrays

# --- cholesky -------------------------------------------------------------------------------


def _potrf(m: np.ndarray) -> np.ndarray:
    """NumPy's Cholesky factor, refusing as LAPACK's potrf does (``ajj <= 0 or isnan(ajj)``)
    a pivot that is NaN, which NumPy lets through (NaN in A was a factor full of NaN)."""
    lower = np.linalg.cholesky(m)
    if np.isnan(np.diagonal(lower, axis1=-2, axis2=-1)).any():
        raise np.linalg.LinAlgError("a NaN pivot")
    return lower


def _first_bad_minor(m: np.ndarray) -> int:
    return int(cholesky_with_info(m)[1])


def _lower_source(a: np.ndarray, upper: bool) -> np.ndarray:
    """The matrix whose lower triangle LAPACK reads: A is Hermitian by contract and, as
    PyTorch's, only its lower triangle (its upper one when ``upper``) is read."""
    return np.conj(swap(a)) if upper else a


def _from_lower(lower: np.ndarray, upper: bool) -> np.ndarray:
    """The factor of ``_lower_source``'s matrix as the op returns it: U = L^H when ``upper``,
    a batch of column-major matrices as PyTorch's."""
    return column_major(np.conj(swap(lower)) if upper else lower)


def _not_positive_definite(m: np.ndarray) -> bool:
    try:
        _potrf(m)
    except np.linalg.LinAlgError:
        return True
    return False


class LinalgCholeskyExBackward0(Op):
    """L with A = L L^H (U = L^H if ``upper``); the gradient is PyTorch's
    gA = L^-H Phi(L^H gL) L^-1, Phi(X) = (tril(X) + tril(X, -1)^H) / 2, Hermitian
    (^H is ^T for real A)."""

    upper: Any

    saves_output = True
    __slots__ = ("upper",)
    op_name = "linalg.cholesky"

    def forward(self, a: Any, upper: Any = False, check_errors: Any = True) -> Any:
        self.upper = upper
        source = _lower_source(a, upper)
        try:
            lower = _potrf(source)
        except np.linalg.LinAlgError:
            if not check_errors:  # cholesky_ex: LAPACK's partial factor
                return _from_lower(cholesky_with_info(source)[0], upper)
            matrix, prefix = batch_prefix(source, _not_positive_definite)
            raise LinAlgError(
                f"{self.op_name}: {prefix}The factorization could not be completed because the "
                f"input is not positive-definite (the leading minor of order "
                f"{_first_bad_minor(matrix)} is not positive-definite)."
            ) from None
        return _from_lower(lower, upper)

    def backward(self, F: Any, grad: Any) -> Any:
        (factor,) = self.saved
        if self.upper:
            lower, grad_lower = adjoint(F, factor), adjoint(F, grad)
        else:
            lower, grad_lower = factor, grad
        # PyTorch's cholesky_backward step by step, in its order (its second derivative, the
        # gradient a hook on L sees there, and where an inf or NaN goes follow these ops):
        # gA = L^-H pi*(tril(L^H gL)) L^-1, pi*(X) = (X + tril(X, -1)^H) / 2, by two solves.
        n = grad.shape[-1]
        grad_a = F.where(np.tri(n, dtype=bool), F.matmul(adjoint(F, lower), grad_lower), 0.0)
        grad_a = (grad_a + adjoint(F, F.where(np.tri(n, k=-1, dtype=bool), grad_a, 0.0))) * 0.5
        grad_a = LinalgSolveTriangularBackward0.call(adjoint(F, lower), grad_a, upper=True)
        return LinalgSolveTriangularBackward0.call(lower, grad_a, upper=False, left=False)


class CholeskyBackward0(LinalgCholeskyExBackward0):
    """``torch.cholesky`` (deprecated name) of the same factorization"""

    __slots__ = ()
    op_name = "cholesky"


def cholesky(A: Tensor, *, upper: bool = False, out: Any = None) -> Tensor:
    """The Cholesky factor L (lower triangular, ``A = L L^T``) of a symmetric
    positive-definite matrix; ``upper=True`` gives ``U = L^T``.

    Example::

        >>> glassgrad.linalg.cholesky(glassgrad.tensor([[4.0, 2.0], [2.0, 5.0]]))
        tensor([[2., 0.],
                [1., 2.]])
    """
    check_square(
        "linalg.cholesky",
        check_tensor(A, "linalg.cholesky", "A")._data,
        kernel="cholesky_cpu",
        complex_ok=True,
    )
    result = LinalgCholeskyExBackward0.apply(A, upper=upper)
    return out_result(
        "linalg_cholesky", out, result, (A,), exact=True, autograd_op="linalg_cholesky_ex"
    )


def _cholesky_top(input: Tensor, upper: bool = False, *, out: Any = None) -> Tensor:
    """``torch.cholesky`` (deprecated in PyTorch for ``linalg.cholesky``)."""
    data = check_tensor(input, "cholesky")._data
    check_square("cholesky", data, kernel="cholesky_cpu", floating=False, complex_ok=True)
    result = CholeskyBackward0.apply(input, upper=upper)
    return out_result("cholesky", out, result, (input,), exact=True)


# --- registry ----------------------------------------------------------------------------


def _unread_triangle_noise(rng: np.random.Generator, a: np.ndarray, upper: bool) -> np.ndarray:
    """``a`` with noise in the triangle cholesky does not read (the lower one when ``upper``)."""
    noise = np.tril(randn(rng, *a.shape), -1)
    return a + (noise if upper else swap(noise))


register(
    "cholesky",
    cholesky,
    nodes=(LinalgCholeskyExBackward0,),
    namespace="linalg",
    samples=lambda rng: [
        # cholesky reads one triangle while finite differences move both: fd=False here, and
        # tests/ops/test_inverses.py checks gradients of symmetric inputs instead.
        Sample((spd(rng, 3, 3),), fd=False),
        Sample((spd(rng, 2, 4, 4),), fd=False, note="batched"),
        Sample((spd(rng, 3, 3),), {"upper": True}, fd=False),
        Sample((_unread_triangle_noise(rng, spd(rng, 3, 3), upper=False),), fd=False),
        Sample(
            (_unread_triangle_noise(rng, spd(rng, 3, 3), upper=True),), {"upper": True}, fd=False
        ),
        Sample((np.zeros((0, 0)),)),
    ],
)


register(
    "cholesky",
    _cholesky_top,
    nodes=(CholeskyBackward0,),
    torch=lambda torch, A, upper=False: torch.cholesky(A, upper),
    samples=lambda rng: [
        Sample((spd(rng, 3, 3),), fd=False),
        Sample((_unread_triangle_noise(rng, spd(rng, 3, 3), upper=True), True), fd=False),
    ],
)


_cholesky_top.__name__ = _cholesky_top.__qualname__ = "cholesky"


__all__ = [
    "cholesky",
    "cholesky_ex",
    "cholesky_solve",
    "cholesky_inverse",
]


def cholesky_ex(
    A: Tensor, *, upper: bool = False, check_errors: bool = False, out: Any = None
) -> tuple[Tensor, ...]:
    """``(L, info)``: the Cholesky factor of ``linalg.cholesky`` without its error: ``info``
    is the order of the first leading minor that is not positive-definite (0 when none),
    and L is then LAPACK's partial factor. ``check_errors=True`` raises instead.

    Example::

        >>> glassgrad.linalg.cholesky_ex(-glassgrad.eye(2)).info
        tensor(1, dtype=glassgrad.int32)
    """
    data = check_tensor(A, "linalg.cholesky_ex", "A")._data
    check_square("linalg.cholesky", data, kernel="cholesky_cpu", complex_ok=True)
    source = _lower_source(data, upper)
    try:
        _potrf(source)
        info = np.zeros(data.shape[:-2], np.int32)
    except np.linalg.LinAlgError:
        info = cholesky_with_info(source)[1]
    if check_errors and info.any():
        first = int(info.reshape(-1)[np.flatnonzero(info.reshape(-1))[0]])
        batch = np.flatnonzero(info.reshape(-1))[0]
        prefix = f"(Batch element {batch}): " if data.ndim > 2 else ""
        raise LinAlgError(
            f"linalg.cholesky_ex: {prefix}The factorization could not be completed because the "
            f"input is not positive-definite (the leading minor of order {first} is not "
            "positive-definite)."
        )
    factor = LinalgCholeskyExBackward0.apply(A, upper=bool(upper), check_errors=False)
    result = return_types.linalg_cholesky_ex(factor, Tensor._from_array(info))
    return out_result(
        "linalg_cholesky_ex", out, result, (A,), exact=True, autograd_op="linalg_cholesky_ex"
    )


def _cholesky_solve_arrays(b: np.ndarray, factor: np.ndarray, upper: bool) -> np.ndarray:
    """X with L L^H X = B (U^H U X = B when ``upper``; ^H is ^T for real factors), reading
    the factor's triangle."""
    factor_h = np.conj(swap(factor)) if factor.dtype.kind == "c" else swap(factor)
    if upper:
        y = triangular_solve_arrays(factor_h, b, False)
        return triangular_solve_arrays(factor, y, True)
    y = triangular_solve_arrays(factor, b, False)
    return triangular_solve_arrays(factor_h, y, True)


class CholeskySolveBackward0(Op):
    """X = (L L^H)^-1 B; gB = cholesky_solve(grad, L), gL = -(gB X^H + X gB^H) L
    (-L (...) when ``upper``; ^H is ^T for real factors)"""

    upper: Any

    saved_inputs: tuple[int, ...] = (0, 1)
    saves_output = True
    __slots__ = ("upper",)

    def forward(self, b: Any, factor: Any, upper: Any = False) -> Any:
        self.upper = upper
        return column_major(_cholesky_solve_arrays(b, factor, upper))

    def backward(self, F: Any, grad: Any) -> Any:
        _, factor, x = self.saved
        needs = self.needs_input_grad
        grad_b = CholeskySolveBackward0.call(grad, factor, upper=self.upper)
        grad_factor = None
        if needs[1]:
            common = F.matmul(grad_b, adjoint(F, x))
            common = common + adjoint(F, common)
            grad_factor = -(F.matmul(factor, common) if self.upper else F.matmul(common, factor))
        return (grad_b if needs[0] else None), grad_factor


def cholesky_solve(
    input: Tensor, input2: Tensor, upper: bool = False, *, out: Any = None
) -> Tensor:
    """The solution X of ``A X = B`` (``B`` is ``input``) given the Cholesky factor of A
    (``input2``): ``A = L L^T``, or ``A = U^T U`` with ``upper=True``; batches broadcast.

    Example::

        >>> L = glassgrad.tensor([[2.0, 0.0], [1.0, 1.0]])
        >>> glassgrad.cholesky_solve(glassgrad.tensor([[6.0], [4.0]]), L)
        tensor([[1.],
                [1.]])
    """
    b = check_tensor(input, "cholesky_solve")._data
    factor = check_tensor(input2, "cholesky_solve", "input2", 2)._data
    for name, array in (("b", b), ("A", factor)):
        if array.ndim < 2:
            raise RuntimeError(
                f"b should have at least 2 dimensions, but has {b.ndim} dimensions instead"
                if name == "b"
                else f"u should have at least 2 dimensions, but has {array.ndim} dimensions instead"
            )
    if b.dtype != factor.dtype:
        raise RuntimeError(
            f"Expected b and A to have the same dtype, but found b of type "
            f"{scalar_type_name(b.dtype)} and A of type {scalar_type_name(factor.dtype)} instead."
        )
    check_square("cholesky_solve", factor, complex_ok=True)
    check_kernel_dtype("cholesky_solve_cpu", factor, complex_ok=True)
    if factor.shape[-1] != b.shape[-2]:
        raise RuntimeError(
            f"Incompatible matrix sizes for cholesky_solve: each A matrix is "
            f"{factor.shape[-1]} by {factor.shape[-1]} but each b matrix is {b.shape[-2]} by "
            f"{b.shape[-1]}"
        )
    result = CholeskySolveBackward0.apply(input, input2, upper=bool(upper))
    return out_result("cholesky_solve", out, result, (input, input2), exact=True)


def _potri(lower: np.ndarray) -> np.ndarray:
    """(L L^H)^-1 as LAPACK's potri forms it, for a factor holding a NaN or inf: trtri's
    L^-1 (each column solved from its diagonal down; the zeros above are never touched),
    then lauum's L^-H L^-1 summing only the terms inside the triangle, so that a NaN or inf
    reaches the entries it reaches there (two full products spread it everywhere)."""
    n = lower.shape[-1]
    inverse = np.zeros(lower.shape, lower.dtype)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for i in range(n):
            # row i of column j < i: -sum over j <= k < i of L[i, k] L^-1[k, j], / L[i, i]
            terms = lower[..., i, :i, None] * inverse[..., :i, :i]
            rest = -np.where(np.tri(i, dtype=bool), terms, 0).sum(axis=-2)
            inverse[..., i, :i] = rest / lower[..., i : i + 1, i]
            inverse[..., i, i] = 1 / lower[..., i, i]
        inside = np.arange(n)[:, None, None] >= np.maximum.outer(np.arange(n), np.arange(n))
        terms = np.conj(inverse)[..., :, :, None] * inverse[..., :, None, :]
        return np.where(inside, terms, 0).sum(axis=-3)


def _reflect_lower(x: np.ndarray) -> np.ndarray:
    """``x``'s lower triangle mirrored (conjugated) onto its upper one, the diagonal real:
    potri computes one triangle and PyTorch reflects it, so the inverse is exactly Hermitian
    (the solve's two triangles round apart: an exact zero on one side, 1e-19 on the other)."""
    rows, cols = np.indices(x.shape[-2:])
    diagonal = x.real.astype(x.dtype) if x.dtype.kind == "c" else x
    return np.where(rows > cols, x, np.where(rows < cols, np.conj(swap(x)), diagonal))


class CholeskyInverseBackward0(Op):
    """out = (L L^H)^-1; gL = -out (grad + grad^H) out L (-L (...) when ``upper``; ^H is ^T
    for real factors)"""

    upper: Any

    saved_inputs: tuple[int, ...] = (0,)
    saves_output = True
    __slots__ = ("upper",)

    def forward(self, factor: Any, upper: Any = False) -> Any:
        self.upper = upper
        # potri's trtri refuses the first exact zero on the diagonal (1-based info)
        zero = np.diagonal(factor, axis1=-2, axis2=-1) == 0
        if zero.any():
            raise singular_error("cholesky_inverse", np.where(zero.any(-1), zero.argmax(-1) + 1, 0))
        if factor.size and factor.dtype.kind == "f" and not all_finite(factor):
            return column_major(_potri(_lower_source(factor, upper)))
        eye = np.broadcast_to(np.eye(factor.shape[-1], dtype=factor.dtype), factor.shape)
        return column_major(_reflect_lower(_cholesky_solve_arrays(eye, factor, upper)))

    def backward(self, F: Any, grad: Any) -> Any:
        factor, inverse = self.saved
        common = F.matmul(inverse, F.matmul(grad + adjoint(F, grad), inverse))
        return -(F.matmul(factor, common) if self.upper else F.matmul(common, factor))


def cholesky_inverse(input: Tensor, upper: bool = False, *, out: Any = None) -> Tensor:
    """The inverse of ``A = L L^T`` (``U^T U`` with ``upper=True``) given its Cholesky factor
    (``input``).

    Example::

        >>> glassgrad.cholesky_inverse(glassgrad.tensor([[2.0, 0.0], [0.0, 1.0]]))
        tensor([[0.2500, 0.0000],
                [0.0000, 1.0000]])
    """
    factor = check_tensor(input, "cholesky_inverse")._data
    check_square(
        "cholesky_inverse",
        factor,
        "input",
        "cholesky_inverse_out_cpu",
        floating=False,
        complex_ok=True,
    )
    result = CholeskyInverseBackward0.apply(input, upper=bool(upper))
    return out_result("cholesky_inverse", out, result, (input,), exact=True)


# --- registry ----------------------------------------------------------------------------


def _factor(rng: np.random.Generator, *shape: int, upper: bool = False) -> np.ndarray:
    lower = np.linalg.cholesky(spd(rng, *shape))
    return swap(lower).copy() if upper else lower


register(
    "cholesky_ex",
    cholesky_ex,
    nodes=(LinalgCholeskyExBackward0,),
    namespace="linalg",
    samples=lambda rng: [
        Sample((spd(rng, 3, 3),), fd=False),
        Sample((spd(rng, 2, 3, 3),), {"upper": True}, fd=False),
        Sample((-np.eye(3),), grad=False, note="not positive-definite: info"),
    ],
)
# Only the factor's triangle is read while its gradient is a full matrix (PyTorch's), so
# finite differences, which move every entry, do not apply (fd=False).
register(
    "cholesky_solve",
    cholesky_solve,
    nodes=(CholeskySolveBackward0,),
    samples=lambda rng: [
        Sample((randn(rng, 3, 2), _factor(rng, 3, 3)), fd=False),
        Sample((randn(rng, 3, 2), _factor(rng, 3, 3, upper=True), True), fd=False),
        Sample((randn(rng, 2, 3, 1), _factor(rng, 3, 3)), fd=False, note="batch B"),
        Sample((NoGrad(randn(rng, 3, 2)), _factor(rng, 2, 3, 3)), fd=False, note="batch L"),
        Sample((randn(rng, 3, 2), NoGrad(_factor(rng, 3, 3)))),
    ],
)
register(
    "cholesky_inverse",
    cholesky_inverse,
    nodes=(CholeskyInverseBackward0,),
    samples=lambda rng: [
        Sample((_factor(rng, 3, 3),), fd=False),
        Sample((_factor(rng, 3, 3, upper=True), True), fd=False),
        Sample((_factor(rng, 2, 3, 3),), fd=False, note="batched"),
    ],
)
