"""Triangular solvers: ``linalg.solve_triangular`` and the older ``torch.triangular_solve``.

Only the named triangle of A is read (with ones on the diagonal when ``unitriangular``), so
the gradient of A is PyTorch's ``-A^-T grad X^T`` projected onto that triangle. A zero on the
diagonal gives inf/nan as LAPACK's trsm does, not an error.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from .. import return_types
from .._dtype import scalar_type_name
from .._tensor import Tensor
from ..autograd.op import Op
from ._common import check_tensor, zeros_like_grad
from ._linalg_common import check_kernel_dtype, column_major, invertible, swap
from ._out import out_result
from ._registry import NoGrad, Sample, register
from ._samples import randn

__all__ = ["solve_triangular", "triangular_solve", "LinalgSolveTriangularBackward0"]


def _substitute(t: np.ndarray, b: np.ndarray, upper: bool) -> np.ndarray:
    """Row-by-row substitution for a triangular ``t`` with zeros on its diagonal, where a
    factorization fails, or with non-finite entries: the divisions by zero give inf/nan, and a
    NaN reaches the rows that depend on it, as LAPACK's trsm gives them."""
    n = t.shape[-1]
    batch = np.broadcast_shapes(t.shape[:-2], b.shape[:-2])
    x = np.zeros((*batch, n, b.shape[-1]), np.result_type(t, b))
    rows = range(n - 1, -1, -1) if upper else range(n)
    with np.errstate(divide="ignore", invalid="ignore"):
        for i in rows:
            done = slice(i + 1, n) if upper else slice(0, i)
            rest = b[..., i, :] - np.matmul(t[..., i : i + 1, done], x[..., done, :])[..., 0, :]
            x[..., i, :] = rest / t[..., i : i + 1, i]
    return x


def triangular_solve_arrays(
    a: np.ndarray, b: np.ndarray, upper: bool, left: bool = True, unitriangular: bool = False
) -> np.ndarray:
    """X with ``tri(A) X = B`` (``X tri(A) = B`` when not ``left``), ``tri`` the upper or
    lower triangle of A, with a unit diagonal when ``unitriangular``."""
    if not left:
        return swap(triangular_solve_arrays(swap(a), swap(b), not upper, True, unitriangular))
    t = np.triu(a) if upper else np.tril(a)
    n = a.shape[-1]
    if unitriangular:
        t = np.where(np.eye(n, dtype=bool), np.ones((), a.dtype), t)
    if a.size == 0 or b.size == 0:
        batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
        return np.zeros((*batch, n, b.shape[-1]), a.dtype)
    diagonal = np.diagonal(t, axis1=-2, axis2=-1)
    # LU with pivoting mixes the rows: a NaN or inf would reach rows that trsm's substitution
    # never combines it with, so non-finite operands are substituted row by row as trsm does.
    if np.all(diagonal != 0) and np.isfinite(t).all() and np.isfinite(b).all():
        return np.linalg.solve(t, b).astype(a.dtype, copy=False)
    return _substitute(t, b, upper).astype(a.dtype, copy=False)


def _project(F: Any, grad: Any, n: int, upper: bool, unitriangular: bool) -> Any:
    """The part of ``grad`` on the triangle a triangular solve reads."""
    k = int(unitriangular)
    mask = np.triu(np.ones((n, n), bool), k) if upper else np.tril(np.ones((n, n), bool), -k)
    return F.where(mask, grad, 0.0)


class LinalgSolveTriangularBackward0(Op):
    """X with tri(A) X = B (X tri(A) = B if not ``left``); gB = tri(A)^-T grad,
    gA = -gB X^T on A's triangle (PyTorch's ``linalg_solve_triangular_backward``);
    holomorphic, so complex A, B get the conjugate-transposed formula"""

    upper: bool
    left: bool
    unitriangular: bool

    holomorphic = True
    saved_inputs: tuple[int, ...] = (0,)
    saves_output = True
    __slots__ = ("upper", "left", "unitriangular")

    def forward(
        self, a: Any, b: Any, upper: Any, left: Any = True, unitriangular: Any = False
    ) -> Any:
        self.upper, self.left, self.unitriangular = upper, left, unitriangular
        # PyTorch solves in A's dtype, whatever B's is.
        x = triangular_solve_arrays(a, b.astype(a.dtype, copy=False), upper, left, unitriangular)
        return column_major(x)

    def backward(self, F: Any, grad: Any) -> Any:
        a, x = self.saved
        needs = self.needs_input_grad
        grad_b = LinalgSolveTriangularBackward0.call(
            F.mT(a), grad, upper=not self.upper, left=self.left, unitriangular=self.unitriangular
        )
        if not needs[0]:
            return None, grad_b
        grad_a = -(F.matmul(grad_b, F.mT(x)) if self.left else F.matmul(F.mT(x), grad_b))
        grad_a = _project(F, grad_a, a.shape[-1], self.upper, self.unitriangular)
        return grad_a, (grad_b if needs[1] else None)


def _check_matrices(op: str, a: np.ndarray, b: np.ndarray) -> None:
    """PyTorch's checks of the two operands of a linear solve: at least matrices, A square."""
    for name, x in (("A", a), ("B", b)):
        if x.ndim < 2:
            raise RuntimeError(f"{op}: The input tensor {name} must have at least 2 dimensions.")
    if a.shape[-1] != a.shape[-2]:
        raise RuntimeError(
            f"{op}: A must be batches of square matrices, but they are {a.shape[-2]} by "
            f"{a.shape[-1]} matrices"
        )


def _check_batches(op: str, a: np.ndarray, b: np.ndarray) -> None:
    try:
        np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    except ValueError:
        raise RuntimeError(
            f"{op}: the batch dimensions of A {list(a.shape[:-2])} and B {list(b.shape[:-2])} "
            "do not broadcast"
        ) from None


def solve_triangular(
    A: Tensor,
    B: Tensor,
    *,
    upper: bool,
    left: bool = True,
    unitriangular: bool = False,
    out: Any = None,
) -> Tensor:
    """The solution X of ``A X = B`` (``X A = B`` with ``left=False``) for a triangular A:
    only its upper (``upper=True``) or lower triangle is read, and with ``unitriangular``
    its diagonal is taken as ones.

    Example::

        >>> A = glassgrad.tensor([[2.0, 1.0], [0.0, 4.0]])
        >>> glassgrad.linalg.solve_triangular(A, glassgrad.tensor([[3.0], [4.0]]), upper=True)
        tensor([[1.],
                [1.]])
    """
    op = "linalg.solve_triangular"
    a = check_tensor(A, op, "A")._data
    b = check_tensor(B, op, "B", 2)._data
    _check_matrices(op, a, b)
    check_kernel_dtype("triangular_solve_cpu", a, complex_ok=True)
    n = a.shape[-1]
    rows = b.shape[-2] if left else b.shape[-1]
    if rows != n:
        equation = "AX = B" if left else "XA = B"
        raise RuntimeError(
            f"{op}: Incompatible shapes of A and B for the equation {equation} ({n}x{n} and "
            f"{b.shape[-2]}x{b.shape[-1]})"
        )
    _check_batches(op, a, b)
    if out is not None:
        result = solve_triangular(A, B, upper=upper, left=left, unitriangular=unitriangular)
        return out_result("linalg_solve_triangular", out, result, (A, B), exact=True)
    return LinalgSolveTriangularBackward0.apply(
        A, B, upper=bool(upper), left=bool(left), unitriangular=bool(unitriangular)
    )


class TriangularSolveBackward0(Op):
    """(X, A.clone()) with tri(A) X = b (tri(A)^T X = b if ``transpose``); PyTorch's
    ``triangular_solve_backward``: gb = tri(A)^-T gX, gA = -gb X^T on the triangle, plus the
    gradient of the clone"""

    transpose: Any
    unitriangular: Any
    upper: Any

    saved_inputs: tuple[int, ...] = (0, 1)
    saved_outputs: tuple[int, ...] = (0,)
    holomorphic = True  # complex: PyTorch's formula with conjugate transposes
    __slots__ = ("upper", "transpose", "unitriangular")

    def forward(
        self, b: Any, a: Any, upper: Any = True, transpose: Any = False, unitriangular: Any = False
    ) -> Any:
        self.upper, self.transpose, self.unitriangular = upper, transpose, unitriangular
        matrix = swap(a) if transpose else a
        x = triangular_solve_arrays(matrix, b, upper != transpose, True, unitriangular)
        batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
        return column_major(x), column_major(np.broadcast_to(a, (*batch, *a.shape[-2:])))

    takes_undefined_grads = True

    def backward(self, F: Any, grads: Any) -> Any:
        b, a, x = self.saved
        grad_x, grad_m = grads
        needs = self.needs_input_grad
        if grad_x is None:  # through the clone of A alone: PyTorch's zeros for b
            return (zeros_like_grad(F, b) if needs[0] else None), (grad_m if needs[1] else None)
        # tri(A)^-T grad (tri(A)^-1 grad when the forward solved with the transpose)
        matrix = a if self.transpose else F.mT(a)
        grad_b = LinalgSolveTriangularBackward0.call(
            matrix,
            grad_x,
            upper=self.upper == self.transpose,
            left=True,
            unitriangular=self.unitriangular,
        )
        grad_a = None
        if needs[1]:
            grad_a = -(F.matmul(x, F.mT(grad_b)) if self.transpose else F.matmul(grad_b, F.mT(x)))
            grad_a = _project(F, grad_a, a.shape[-1], self.upper, self.unitriangular)
            if grad_m is not None:
                grad_a = grad_a + grad_m
        return (grad_b if needs[0] else None), grad_a


def triangular_solve(
    input: Tensor,
    A: Tensor,
    upper: bool = True,
    transpose: bool = False,
    unitriangular: bool = False,
    *,
    out: Any = None,
) -> tuple[Tensor, ...]:
    """``(solution, cloned_coefficient)``: X with ``A X = b`` for a triangular A (``A^T X = b``
    with ``transpose``), and a copy of A. Deprecated in PyTorch for
    ``linalg.solve_triangular(A, b, upper=...)``.

    Example::

        >>> A = glassgrad.tensor([[2.0, 1.0], [0.0, 4.0]])
        >>> glassgrad.triangular_solve(glassgrad.tensor([[3.0], [4.0]]), A).solution
        tensor([[1.],
                [1.]])
    """
    warnings.warn(
        "torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangularand will "
        "be removed in a future PyTorch release.\ntorch.linalg.solve_triangular has its "
        "arguments reversed and does not return a copy of one of the inputs.\nX = "
        "torch.triangular_solve(B, A).solution\nshould be replaced with\nX = "
        "torch.linalg.solve_triangular(A, B).",
        UserWarning,
        stacklevel=2,
    )
    x = check_tensor(input, "triangular_solve")._data
    a = check_tensor(A, "triangular_solve", "A", 2)._data
    op = "torch.triangular_solve"
    if x.ndim < 2 or a.ndim < 2:
        name, array = ("b", x) if x.ndim < 2 else ("A", a)
        raise RuntimeError(
            f"{op}: Expected {name} to have at least 2 dimensions, but it has {array.ndim} "
            "dimensions instead"
        )
    if x.dtype != a.dtype:
        raise RuntimeError(
            f"Expected b and A to have the same dtype, but found b of type "
            f"{scalar_type_name(x.dtype)} and A of type {scalar_type_name(a.dtype)} instead."
        )
    check_kernel_dtype("triangular_solve_cpu", a, complex_ok=True)
    if a.shape[-1] != a.shape[-2]:
        raise RuntimeError(
            f"{op}: A must be batches of square matrices, but they are {a.shape[-2]} by "
            f"{a.shape[-1]} matrices"
        )
    if a.shape[-1] != x.shape[-2]:
        raise RuntimeError(
            f"{op}: Incompatible matrix sizes for triangular_solve: each A matrix is "
            f"{a.shape[-1]} by {a.shape[-1]} but each b matrix is {x.shape[-2]} by {x.shape[-1]}"
        )
    _check_batches(op, a, x)
    if out is not None:
        return out_result(
            "triangular_solve",
            out,
            triangular_solve(input, A, upper, transpose, unitriangular),
            (input, A),
            exact=True,
        )
    return return_types.triangular_solve(
        *TriangularSolveBackward0.apply(
            input,
            A,
            upper=bool(upper),
            transpose=bool(transpose),
            unitriangular=bool(unitriangular),
        )
    )


# --- registry ----------------------------------------------------------------------------


def _triangular(rng: np.random.Generator, *shape: int) -> np.ndarray:
    """Well-conditioned matrices whose triangles both make good triangular systems."""
    return invertible(rng, *shape)


register(
    "solve_triangular",
    solve_triangular,
    nodes=(LinalgSolveTriangularBackward0,),
    namespace="linalg",
    samples=lambda rng: [
        Sample((_triangular(rng, 3, 3), randn(rng, 3, 2)), {"upper": True}),
        Sample((_triangular(rng, 3, 3), randn(rng, 3, 2)), {"upper": False}),
        Sample((_triangular(rng, 3, 3), randn(rng, 2, 3)), {"upper": True, "left": False}),
        Sample((_triangular(rng, 3, 3), randn(rng, 4, 3)), {"upper": False, "left": False}),
        Sample((_triangular(rng, 3, 3), randn(rng, 3, 2)), {"upper": False, "unitriangular": True}),
        Sample(
            (_triangular(rng, 3, 3), randn(rng, 2, 3)),
            {"upper": True, "left": False, "unitriangular": True},
        ),
        Sample((_triangular(rng, 2, 3, 3), randn(rng, 3, 1)), {"upper": True}, note="batch A"),
        Sample((_triangular(rng, 3, 3), randn(rng, 2, 3, 2)), {"upper": False}, note="batch B"),
        Sample((_triangular(rng, 3, 3).T, randn(rng, 2, 3).T), {"upper": True}),
        Sample((NoGrad(_triangular(rng, 3, 3)), randn(rng, 3, 2)), {"upper": True}),
        Sample((_triangular(rng, 3, 3), NoGrad(randn(rng, 3, 2))), {"upper": False}),
    ],
)
register(
    "triangular_solve",
    triangular_solve,
    nodes=(TriangularSolveBackward0,),
    samples=lambda rng: [
        Sample((randn(rng, 3, 2), _triangular(rng, 3, 3))),
        Sample((randn(rng, 3, 2), _triangular(rng, 3, 3), False)),
        Sample((randn(rng, 3, 2), _triangular(rng, 3, 3), True, True)),
        Sample((randn(rng, 3, 2), _triangular(rng, 3, 3), False, True, True)),
        Sample((randn(rng, 2, 3, 2), _triangular(rng, 3, 3)), note="batch b"),
        Sample((randn(rng, 3, 1), _triangular(rng, 2, 3, 3), False), note="batch A"),
        Sample((NoGrad(randn(rng, 3, 2)), _triangular(rng, 3, 3))),
    ],
)
