"""``linalg.solve``: the solution of ``A X = B`` (or ``X A = B`` with ``left=False``), through
LU, with PyTorch's LinalgSolveExBackward0 (its backward is another solve, so second
derivatives come for free) and the argument checks that solve_ex shares.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._dtype import scalar_type_name
from .._tensor import Tensor
from ..autograd.grad_mode import is_grad_enabled
from ..autograd.op import Op
from ._common import check_tensor
from ._linalg_common import (
    LinAlgError,
    all_finite,
    check_floating,
    check_kernel_dtype,
    check_square,
    column_major,
    info_prefix,
    invertible,
    swap,
)
from ._out import out_result
from ._registry import NoGrad, Sample, register
from ._samples import randn
from .lu import lu_arrays
from .lu_solve import lu_solve_arrays

__all__ = ["solve"]


# --- solve ------------------------------------------------------------------------------


def _vector_layout(x: np.ndarray) -> np.ndarray:
    return column_major(x) if x.ndim > 1 else x


class LinalgSolveExBackward0(Op):
    """X with A X = B (or X A = B if not ``left``); gB = solve(A^T, grad), gA = -gB X^T"""

    left: Any
    vector: Any

    holomorphic = True

    saved_inputs: tuple[int, ...] = (0,)
    saves_output = True
    __slots__ = ("left", "vector", "factors")

    def forward(
        self, a: Any, b: Any, left: Any = True, vector: Any = False, check_errors: Any = True
    ) -> Any:
        self.left, self.vector, self.factors = left, vector, None
        if all_finite(a) and all_finite(b):
            try:
                if not left:  # PyTorch solves the transposed system: X is row-major
                    return np.ascontiguousarray(swap(np.linalg.solve(swap(a), swap(b))))
                if vector:  # PyTorch's batch of vectors is a column-major matrix
                    return _vector_layout(np.linalg.solve(a, b[..., None])[..., 0])
                return column_major(np.linalg.solve(a, b))
            except np.linalg.LinAlgError:
                pass
        # A singular A (solve_ex: LAPACK's inf/nan, the zero pivot in its info), or a NaN or
        # inf, which PyTorch's LU spreads otherwise than NumPy's LAPACK build
        lu_data, pivots, info = lu_arrays(a)
        if a.dtype.kind != "c":  # the backward solves with them too, as PyTorch's
            self.factors = lu_data, pivots
        x = lu_solve_arrays(lu_data, pivots, b[..., None] if vector else b, left, False)
        if check_errors and info.any():
            raise LinAlgError(
                f"linalg.solve: {info_prefix(info)}The solver failed because the input matrix "
                "is singular."
            )
        if vector:
            return _vector_layout(x[..., 0])
        return column_major(x) if left else np.ascontiguousarray(x)

    def backward(self, F: Any, grad: Any) -> Any:
        a, x = self.saved
        needs = self.needs_input_grad
        # PyTorch's linalg_solve_backward: without a graph, a solve with the forward's LU that
        # checks nothing (a singular A gives inf/NaN gradients); under create_graph, a new
        # linalg.solve, which refuses a singular A.
        checks = is_grad_enabled()
        if not checks and self.factors is not None:  # the forward's LU of a singular or
            # non-finite A: its NaN and inf are spread as PyTorch spreads them
            matrix = grad[..., None] if self.vector else grad
            grad_b = lu_solve_arrays(*self.factors, matrix, self.left, True)
            grad_b = grad_b[..., 0] if self.vector else grad_b
        else:
            grad_b = LinalgSolveExBackward0.call(
                F.mT(a), grad, left=self.left, vector=self.vector, check_errors=checks
            )
        if not needs[0]:
            return None, grad_b
        if not self.left:
            grad_a = -F.matmul(F.mT(x), grad_b)
        elif self.vector:
            grad_a = -(F.unsqueeze(grad_b, -1) * F.unsqueeze(x, -2))
        else:
            grad_a = -F.matmul(grad_b, F.mT(x))
        return grad_a, (grad_b if needs[1] else None)


def check_solve(op: str, A: Tensor, B: Tensor, left: bool) -> bool:
    """PyTorch's checks of ``linalg.solve``'s operands; whether B is a (batch of) vectors."""
    a = check_tensor(A, op, "A")._data
    b = check_tensor(B, op, "B", 2)._data
    check_square(op, a, complex_ok=True)
    check_floating(op, b, complex_ok=True)
    check_kernel_dtype("lu_cpu", a, complex_ok=True)
    if a.dtype != b.dtype:
        raise RuntimeError(
            f"{op}: Expected A and B to have the same dtype, but found A of type "
            f"{scalar_type_name(a.dtype)} and B of type {scalar_type_name(b.dtype)} instead"
        )
    n = a.shape[-1]
    vector = b.ndim == 1 or (b.ndim == a.ndim - 1 and b.shape == a.shape[:-1])
    if vector and not left:
        raise RuntimeError(
            f"{op}: Vector broadcasting of the left hand side is not supported for "
            "left=False. In this case linalg.solve is equivalent to B / A.squeeze(-1)"
        )
    rows = b.shape[-1] if vector or not left else b.shape[-2]
    if rows != n:
        shape_b = f"{b.shape[-1]}x1" if vector else f"{b.shape[-2]}x{b.shape[-1]}"
        equation = "AX = B" if left else "XA = B"
        raise RuntimeError(
            f"{op}: Incompatible shapes of A and B for the equation {equation} "
            f"({n}x{n} and {shape_b})"
        )
    batch_b = b.shape[:-1] if vector else b.shape[:-2]
    try:
        np.broadcast_shapes(a.shape[:-2], batch_b)
    except ValueError:
        raise RuntimeError(
            f"{op}: the batch dimensions of A {list(a.shape[:-2])} and B "
            f"{list(batch_b)} do not broadcast"
        ) from None
    return vector


def solve(A: Tensor, B: Tensor, *, left: bool = True, out: Any = None) -> Tensor:
    """The solution X of ``A X = B`` (``X A = B`` with ``left=False``); B is a batch of
    vectors when it has one dim less than A and matches A's leading dims.

    Example::

        >>> A = glassgrad.tensor([[2.0, 0.0], [0.0, 4.0]])
        >>> glassgrad.linalg.solve(A, glassgrad.tensor([2.0, 2.0]))
        tensor([1.0000, 0.5000])
    """
    vector = check_solve("linalg.solve", A, B, left)
    result = LinalgSolveExBackward0.apply(A, B, left=left, vector=vector)
    return out_result(
        "linalg_solve", out, result, (A, B), exact=True, autograd_op="_linalg_solve_ex"
    )


register(
    "solve",
    solve,
    nodes=(LinalgSolveExBackward0,),
    namespace="linalg",
    samples=lambda rng: [
        Sample((invertible(rng, 3, 3), randn(rng, 3, 2))),
        Sample((invertible(rng, 3, 3), randn(rng, 3)), note="vector"),
        Sample((invertible(rng, 2, 3, 3), randn(rng, 2, 3)), note="batch of vectors"),
        Sample((invertible(rng, 3, 3), randn(rng, 2, 3, 4)), note="broadcast A"),
        Sample((invertible(rng, 2, 1, 3, 3), randn(rng, 3, 3, 1)), note="broadcast both"),
        Sample((invertible(rng, 3, 3), randn(rng, 2, 3)), {"left": False}),
        Sample((invertible(rng, 3, 3).T, randn(rng, 2, 3).T), note="non-contiguous"),
        Sample((invertible(rng, 3, 3), NoGrad(randn(rng, 3, 2)))),
        Sample((NoGrad(invertible(rng, 3, 3)), randn(rng, 3, 2))),
        Sample((np.zeros((0, 0)), np.zeros((0, 2)))),
    ],
)
