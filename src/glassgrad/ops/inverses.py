"""Inverses: ``linalg.inv`` (and ``torch.inverse``), ``linalg.inv_ex`` and ``solve_ex``
(results with LAPACK's info instead of errors) and the tensor forms ``linalg.tensorinv`` /
``tensorsolve``. The pseudo-inverse, rank and least squares are in ``pseudoinverse.py``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import return_types
from .._tensor import Tensor
from ..autograd.op import Op
from ._common import check_tensor, wrap_dim
from ._linalg_common import (
    LinAlgError,
    all_finite,
    check_full_precision,
    check_square,
    column_major,
    info_prefix,
    invertible,
    singular_error,
)
from ._out import composite_out, out_result
from ._registry import Sample, register
from ._samples import randn
from .linear_solve import LinalgSolveExBackward0, check_solve, solve
from .lu import lu_arrays
from .lu_solve import solve_arrays
from .shape import permute, reshape

__all__ = ["inv", "inv_ex", "solve_ex", "tensorinv"]


# --- inv, det, slogdet, logdet ------------------------------------------------------------


class LinalgInvExBackward0(Op):
    """out = A^-1; gA = -A^-T grad A^-T (-A^-H grad A^-H for complex A: holomorphic)"""

    saves_output = True
    holomorphic = True

    def forward(self, a: Any, check_errors: Any = True) -> Any:
        if all_finite(a):
            try:
                return column_major(np.linalg.inv(a))
            except np.linalg.LinAlgError:
                pass
        # PyTorch's inv is solve(A, I): for a singular A (inv_ex: LAPACK's inf/nan, the zero
        # pivot in its info) and for a NaN or inf, which NumPy's LAPACK build spreads otherwise
        inverse, info = solve_arrays(a, np.eye(a.shape[-1], dtype=a.dtype), True)
        if check_errors and info.any():
            raise singular_error("linalg.inv", info)
        return column_major(inverse)

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
        raise singular_error("linalg.inv_ex", info)
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
        raise LinAlgError(
            f"linalg.solve_ex: {info_prefix(info)}The solver failed because the input matrix "
            "is singular."
        )
    result = return_types.linalg_solve_ex(x, Tensor._from_array(info))
    return out_result(
        "linalg_solve_ex", out, result, (A, B), exact=True, autograd_op="_linalg_solve_ex"
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
