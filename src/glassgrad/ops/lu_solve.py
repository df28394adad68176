"""Solving with an LU factorization: ``linalg.lu_solve`` (A X = B, X A = B, or with A^H, from
``lu_factor``'s packed LU and pivots) and the older ``torch.lu_solve``.

Forward by two triangular solves and the row permutation; the gradient with respect to B is a
second solve (adjoint flipped), the one with respect to LU is PyTorch's ``linalg_lu_solve_LU``,
written with triangular solves so that it is differentiable again.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from .._dtype import scalar_type_name
from .._tensor import Tensor
from ..autograd.op import Op
from ._common import array_of, check_tensor
from ._linalg_common import (
    adjoint,
    check_kernel_dtype,
    column_major,
    constant_like,
    swap,
)
from ._out import out_result
from ._registry import NoGrad, Sample, register
from ._samples import randn
from .lu import _factored, _solve_tri, _tri, _unpacked, lu_arrays, permutation_arrays, row_order
from .solvers import triangular_solve_arrays

__all__ = ["lu_solve", "lu_solve_top"]


# --- lu_solve ------------------------------------------------------------------------------


def lu_solve_arrays(
    lu_data: np.ndarray, pivots: np.ndarray, b: np.ndarray, left: bool, adjoint: bool
) -> np.ndarray:
    """X with op(A) X = B (X op(A) = B if not ``left``), A = P L U, op the conjugate
    transpose when ``adjoint``: getrs, rows moved by index (a NaN or inf in B stays in its
    row, as laswp leaves it) and the triangles substituted as trsm does."""
    if not left:  # X op(A) = B  <=>  op(A)^H X^H = B^H
        return _h(lu_solve_arrays(lu_data, pivots, _h(b), True, not adjoint))
    order = row_order(pivots, lu_data.shape[-1])
    if adjoint:  # A^H X = B: U^H L^H P^T X = B
        y = triangular_solve_arrays(_h(lu_data), b, False)
        y = triangular_solve_arrays(_h(lu_data), y, True, unitriangular=True)
        return _take_rows(y, np.argsort(order, axis=-1))
    y = triangular_solve_arrays(lu_data, _take_rows(b, order), False, unitriangular=True)
    return triangular_solve_arrays(lu_data, y, True)


def _take_rows(b: np.ndarray, order: np.ndarray) -> np.ndarray:
    """Rows ``order`` of each matrix of ``b``, the batch dims broadcast."""
    batch = np.broadcast_shapes(order.shape[:-1], b.shape[:-2])
    b = np.broadcast_to(b, batch + b.shape[-2:])
    return np.take_along_axis(b, np.broadcast_to(order, batch + order.shape[-1:])[..., None], -2)


def _h(x: np.ndarray) -> np.ndarray:
    """The conjugate transpose of (a batch of) matrices: the transpose if real."""
    return np.conj(swap(x)) if x.dtype.kind == "c" else swap(x)


def lu_of(a: np.ndarray) -> tuple[Any, ...]:
    """``(LU, pivots, info, transposed)``: the LU PyTorch's det and slogdet take, that of A^T
    when A is real and row-major (it spares LAPACK a copy; their gradients then solve with
    the adjoint), else that of A. Which one matters where A holds a NaN or inf: the two
    factorizations spread it differently."""
    transposed = a.dtype.kind != "c" and a.flags.c_contiguous
    return (*lu_arrays(swap(a) if transposed else a), transposed)


def solve_arrays(a: np.ndarray, b: np.ndarray, left: bool) -> tuple[Any, ...]:
    """``(X, info)`` with A X = B (X A = B if not ``left``) as PyTorch's linalg.solve_ex
    computes them, for every matrix, singular or not: getrf of A (PyTorch 2.13 factors A
    itself here, whatever its layout), then getrs."""
    lu_data, pivots, info = lu_arrays(a)
    return lu_solve_arrays(lu_data, pivots, b, left, False), info


class LinalgLuSolveBackward0(Op):
    """X with A X = B for A = P L U given packed; gB = lu_solve(grad, adjoint flipped), gLU
    is PyTorch's ``linalg_lu_solve_LU``"""

    adjoint: Any
    left: Any

    saved_inputs: tuple[int, ...] = (0, 1)
    saves_output = True
    __slots__ = ("left", "adjoint")

    def forward(
        self, lu_data: Any, pivots: Any, b: Any, left: Any = True, adjoint: Any = False
    ) -> Any:
        self.left, self.adjoint = left, adjoint
        x = lu_solve_arrays(lu_data, pivots, b, left, adjoint)
        # PyTorch solves X op(A) = B transposed: X is then row-major
        return column_major(x) if left else np.ascontiguousarray(x)

    def backward(self, F: Any, grad: Any) -> Any:
        lu_data, pivots, x = self.saved
        needs = self.needs_input_grad
        left, transposed = self.left, self.adjoint
        grad_b = None
        if needs[2]:
            grad_b = LinalgLuSolveBackward0.call(
                lu_data, pivots, grad, left=left, adjoint=not transposed
            )
        if not needs[0]:
            return None, None, grad_b
        lower, upper = _unpacked(F, lu_data)
        if left != transposed:
            product = F.matmul(grad, adjoint(F, x)) if left else F.matmul(adjoint(F, grad), x)
            grad_r = _solve_tri(adjoint(F, upper), -product, False)
            grad_l = _solve_tri(
                adjoint(F, lower), F.matmul(grad_r, adjoint(F, upper)), True, unit=True
            )
            grad_lu = _tri(F, grad_l, False, -1) + _tri(F, grad_r, True)
        else:
            p = constant_like(
                grad,
                permutation_arrays(array_of(pivots), lu_data.shape[-1], array_of(lu_data).dtype),
            )
            # -((P^T op(X)) op(gX)) P in PyTorch's order: P^T X first, so an inf or NaN in gX
            # reaches the entries it reaches there
            product = F.matmul(adjoint(F, p), x if left else adjoint(F, x))
            product = F.matmul(product, adjoint(F, grad) if left else grad)
            grad_r = -F.matmul(product, p)
            grad_r = _solve_tri(adjoint(F, lower), grad_r, True, left=False, unit=True)
            grad_u = _solve_tri(
                adjoint(F, upper), F.matmul(adjoint(F, lower), grad_r), False, left=False
            )
            grad_lu = _tri(F, grad_r, False, -1) + _tri(F, grad_u, True)
        return grad_lu, None, grad_b


def lu_solve(
    LU: Tensor,
    pivots: Tensor,
    B: Tensor,
    *,
    left: bool = True,
    adjoint: bool = False,
    out: Any = None,
) -> Tensor:
    """The solution X of ``A X = B`` given the LU factorization ``(LU, pivots)`` of A from
    ``linalg.lu_factor``; ``left=False`` solves ``X A = B``, ``adjoint=True`` uses A^H (A^T if real).

    Example::

        >>> A = glassgrad.tensor([[0.0, 1.0], [2.0, 3.0]])
        >>> LU, pivots = glassgrad.linalg.lu_factor(A)
        >>> glassgrad.linalg.lu_solve(LU, pivots, glassgrad.tensor([[1.0], [5.0]]))
        tensor([[1.],
                [1.]])
    """
    op = "linalg.lu_solve"
    lu_data = check_tensor(LU, op, "LU")._data
    piv = check_tensor(pivots, op, "pivots", 2)._data
    b = check_tensor(B, op, "B", 3)._data
    if b.ndim < 2:
        raise RuntimeError(f"{op}: The input tensor B must have at least 2 dimensions.")
    if lu_data.ndim < 2 or lu_data.shape[-1] != lu_data.shape[-2]:
        shape = lu_data.shape[-2:] if lu_data.ndim >= 2 else lu_data.shape * 2
        raise RuntimeError(
            f"torch.{op}: A must be batches of square matrices, but they are {shape[0]} by "
            f"{shape[1]} matrices"
        )
    n = lu_data.shape[-1]
    rows = b.shape[-2] if left else b.shape[-1]
    if rows != n:
        equation = "AX = B" if left else "XA = B"
        raise RuntimeError(
            f"{op}: Incompatible shapes of A and B for the equation {equation} ({n}x{n} and "
            f"{b.shape[-2]}x{b.shape[-1]})"
        )
    if piv.dtype != np.int32:
        raise RuntimeError(f"{op}: pivots should be a Tensor of scalar type torch.int32")
    if lu_data.dtype != b.dtype:
        raise RuntimeError(
            f"{op}: Expected LU and B to have the same dtype, but found LU of type "
            f"{scalar_type_name(lu_data.dtype)} and B of type {scalar_type_name(b.dtype)} "
            "instead"
        )
    # LAPACK would read out of range: PyTorch's kernel checks the pivots first.
    if not (piv > 0).all():
        raise RuntimeError(
            "Pivots given to lu_solve must all be greater or equal to 1. Did you properly pass "
            "the result of lu_factor?"
        )
    if not (piv <= n).all():
        raise RuntimeError(
            "Pivots given to lu_solve must all be smaller or equal to LU.size(-2). Did you "
            "properly pass the result of lu_factor?"
        )
    check_kernel_dtype("linalg.lu_solve_cpu", lu_data, complex_ok=True)
    result = LinalgLuSolveBackward0.apply(LU, pivots, B, left=bool(left), adjoint=bool(adjoint))
    return out_result("linalg_lu_solve", out, result, (LU, B), exact=True)


def lu_solve_top(input: Tensor, LU_data: Tensor, LU_pivots: Tensor, *, out: Any = None) -> Tensor:
    """``torch.lu_solve`` (deprecated in PyTorch): ``linalg.lu_solve(LU_data, LU_pivots, b)``.

    Example::

        >>> LU, pivots = glassgrad.linalg.lu_factor(glassgrad.tensor([[2.0, 0.0], [0.0, 4.0]]))
        >>> glassgrad.lu_solve(glassgrad.tensor([[2.0], [4.0]]), LU, pivots)
        tensor([[1.],
                [1.]])
    """
    warnings.warn(
        "torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be removed in a "
        "future PyTorch release.\nNote that torch.linalg.lu_solve has its arguments reversed."
        "\nX = torch.lu_solve(B, LU, pivots)\nshould be replaced with\nX = "
        "torch.linalg.lu_solve(LU, pivots, B)",
        UserWarning,
        stacklevel=2,
    )
    result = lu_solve(LU_data, LU_pivots, input)
    return out_result("lu_solve", out, result, (input, LU_data), exact=True)


def _lu_solve_sample(rng: np.random.Generator, shape: tuple, b: np.ndarray, **kw: Any) -> Sample:
    lu_data, pivots = _factored(rng, *shape)
    return Sample((lu_data, pivots, b), kw)


register(
    "lu_solve",
    lu_solve,
    nodes=(LinalgLuSolveBackward0,),
    namespace="linalg",
    samples=lambda rng: [
        _lu_solve_sample(rng, (3, 3), randn(rng, 3, 2)),
        _lu_solve_sample(rng, (3, 3), randn(rng, 3, 2), adjoint=True),
        _lu_solve_sample(rng, (3, 3), randn(rng, 2, 3), left=False),
        _lu_solve_sample(rng, (3, 3), randn(rng, 2, 3), left=False, adjoint=True),
        _lu_solve_sample(rng, (2, 3, 3), randn(rng, 3, 1)),
        Sample((*_factored(rng, 3, 3), NoGrad(randn(rng, 3, 2)))),
    ],
)


register(
    "lu_solve",
    lu_solve_top,
    nodes=(LinalgLuSolveBackward0,),
    samples=lambda rng: [Sample((randn(rng, 3, 2), *_factored(rng, 3, 3)))],
)
