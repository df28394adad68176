"""The LU family: ``linalg.lu_factor`` / ``lu_factor_ex`` (packed LU and 1-based int32
pivots, as LAPACK's getrf), ``linalg.lu`` (P, L, U), ``torch.lu_unpack`` and the older
``torch.lu``; solving with the factors (``linalg.lu_solve``) is in ``lu_solve.py``.

NumPy has no LU: it is computed here by partial pivoting, batched over leading dims (LAPACK's
choice of pivot: the first largest magnitude in the column; a NaN is chosen as PyTorch's MKL
getrf chooses it, see ``_nan_pivots``). Gradients are PyTorch's
``linalg_lu_backward``, ``lu_factor_ex_backward`` and ``lu_unpack_backward``, written with
triangular solves so that they are differentiable again.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from .. import return_types
from .._strides import row_major
from .._tensor import Tensor
from ..autograd.op import Op
from ._common import array_of, check_tensor
from ._linalg_common import (
    LinAlgError,
    adjoint,
    all_finite,
    batch_prefix,
    check_kernel_dtype,
    column_major,
    constant_like,
    invertible,
)
from ._out import out_result
from ._registry import Sample, register
from ._samples import randn
from .solvers import LinalgSolveTriangularBackward0

__all__ = ["lu_factor", "lu_factor_ex", "lu", "lu_unpack", "lu_top"]


# --- arrays --------------------------------------------------------------------------------


def lu_arrays(a: np.ndarray) -> tuple[Any, ...]:
    """``(LU, pivots, info)`` of getrf: L (unit lower, below the diagonal) and U packed in one
    matrix, 1-based int32 row swaps, and per matrix the 1-based index of the first zero pivot
    (0 when none)."""
    m, n = a.shape[-2:]
    k = min(m, n)
    batch = a.shape[:-2]
    lu = np.array(a, dtype=a.dtype).reshape(-1, m, n)
    pivots = np.zeros((lu.shape[0], k), np.int32)
    info = np.zeros(lu.shape[0], np.int32)
    if lu.shape[0] == 1:
        _lu_one(lu[0], pivots[0], info)
    elif not _lu_batch(lu, pivots, info, careful=not all_finite(lu)):
        lu = np.array(a, dtype=a.dtype).reshape(-1, m, n)
        info[:] = 0
        _lu_batch(lu, pivots, info, careful=True)
    return lu.reshape(a.shape), pivots.reshape(*batch, k), info.reshape(batch)


def _lu_batch(lu: np.ndarray, pivots: np.ndarray, info: np.ndarray, careful: bool) -> bool:
    """``lu_arrays``' steps on a batch, in place. Unless ``careful``, NaN pivots and pivots
    below the smallest normal number are not looked for; False then if one occurred (the
    caller starts again, carefully)."""
    m, n = lu.shape[-2:]
    rows = np.arange(lu.shape[0])
    tiny = np.finfo(lu.real.dtype).tiny
    for j in range(min(m, n)):
        column = lu[:, j:, j]
        # LAPACK's pivot is the largest |x| (for complex x, |Re x| + |Im x|: i?amax)
        size = np.abs(column.real) + np.abs(column.imag) if lu.dtype.kind == "c" else np.abs(column)
        p = np.argmax(size, axis=1)
        p = j + (_nan_pivots(size, p, m, n) if careful else p)
        pivots[:, j] = p + 1
        swapped = lu[rows, p].copy()
        lu[rows, p] = lu[rows, j]
        lu[rows, j] = swapped
        pivot = lu[:, j, j]
        zero = pivot == 0
        info[(info == 0) & zero] = j + 1
        # getf2 scales the column by the pivot's reciprocal, or divides by a pivot below the
        # smallest normal number; a zero pivot leaves its column as it is (zeros below it).
        below = lu[:, j + 1 :, j]
        if lu.dtype.kind == "c":
            below /= np.where(zero, 1, pivot)[:, None]
        elif careful:
            small = ~(np.abs(pivot) >= tiny)
            scaled = below * (1 / np.where(small, 1, pivot))[:, None]
            lu[:, j + 1 :, j] = np.where(
                small[:, None], below / np.where(zero, 1, pivot)[:, None], scaled
            )
        else:
            below *= (1 / np.where(zero, 1, pivot))[:, None]
        lu[:, j + 1 :, j + 1 :] -= lu[:, j + 1 :, j : j + 1] * lu[:, j : j + 1, j + 1 :]
    if careful:
        return True
    diagonal = np.abs(np.diagonal(lu, axis1=-2, axis2=-1))
    return all_finite(lu) and not ((diagonal < tiny) & (diagonal > 0)).any()


# MKL's getrf (PyTorch's LAPACK) takes a matrix of more than 16 rows or columns through a
# blocked kernel whose pivot search, as NumPy's argmax, stops at the first NaN of the column;
# smaller ones go through the reference i?amax (``|x| > max so far``), which never picks a NaN
# unless the column starts with one. Measured on PyTorch 2.13's MKL 2024.2, float32/64.
_SMALL_GETRF = 16


def _nan_pivots(size: np.ndarray, first: np.ndarray, m: int, n: int) -> np.ndarray:
    """The pivot offsets of getrf in columns ``size`` (a batch of ``|x|``) given NumPy's
    ``argmax`` ``first``: unchanged unless a NaN was picked in a small matrix."""
    picked = size[np.arange(len(first)), first]
    if m > _SMALL_GETRF or n > _SMALL_GETRF or not np.isnan(picked).any():
        return first
    finite = np.argmax(np.where(np.isnan(size), -1.0, size), axis=1)
    return np.where(np.isnan(picked) & ~np.isnan(size[:, 0]), finite, first)


def _lu_one(lu: np.ndarray, pivots: np.ndarray, info: np.ndarray) -> None:
    """``lu_arrays``' steps on one matrix, in place: the same arithmetic, with plain indexing
    and Python branches where the batch needs gathers and masks (~3x fewer NumPy calls)."""
    m, n = lu.shape
    complex_kind = lu.dtype.kind == "c"
    tiny = np.finfo(lu.real.dtype).tiny
    for j in range(min(m, n)):
        column = lu[j:, j]
        size = np.abs(column.real) + np.abs(column.imag) if complex_kind else np.abs(column)
        p = int(size.argmax())
        if size[p] != size[p]:  # a NaN
            p = int(_nan_pivots(size[None], np.array([p]), m, n)[0])
        p += j
        pivots[j] = p + 1
        if p != j:
            lu[[j, p]] = lu[[p, j]]
        pivot = lu[j, j]
        if abs(pivot) >= tiny and not complex_kind:
            lu[j + 1 :, j] *= 1 / pivot
        elif pivot != 0:  # tiny, NaN, or complex (divided, in the batch's bits)
            lu[j + 1 :, j] /= pivot
        elif info[0] == 0:
            info[0] = j + 1
        lu[j + 1 :, j + 1 :] -= lu[j + 1 :, j : j + 1] * lu[j : j + 1, j + 1 :]


def row_order(pivots: np.ndarray, m: int) -> np.ndarray:
    """getrf's 1-based row swaps applied in turn to ``0..m-1``: row i of P^T B is row
    ``order[i]`` of B (for A = P L U), as LAPACK's laswp moves them, without arithmetic."""
    batch, k = pivots.shape[:-1], pivots.shape[-1]
    flat = pivots.reshape(-1, k) - 1
    order = np.tile(np.arange(m), (flat.shape[0], 1))
    rows = np.arange(flat.shape[0])
    for j in range(k):
        target = flat[:, j]
        moved = order[rows, target].copy()
        order[rows, target] = order[rows, j]
        order[rows, j] = moved
    return order.reshape(*batch, m)


def permutation_arrays(pivots: np.ndarray, m: int, dtype: np.dtype) -> np.ndarray:
    """The permutation matrices P (A = P L U) of getrf's 1-based row swaps."""
    order = row_order(pivots, m).reshape(-1, m)
    p = np.zeros((order.shape[0], m, m), dtype)
    p[np.arange(order.shape[0])[:, None], order, np.arange(m)] = 1
    return p.reshape(*pivots.shape[:-1], m, m)


def _unpacked(F: Any, lu: Any) -> tuple:
    """L (m x k, unit diagonal) and U (k x n) of a packed LU, in F's namespace."""
    m, n = lu.shape[-2:]
    k = min(m, n)
    lower = F.where(np.tril(np.ones((m, k), bool), -1), lu[..., :, :k], 0.0)
    lower = F.where(np.eye(m, k, dtype=bool), 1.0, lower)
    upper = F.where(np.triu(np.ones((k, n), bool)), lu[..., :k, :], 0.0)
    return lower, upper


def _tri(F: Any, x: Any, upper: bool, diagonal: int = 0) -> Any:
    rows, cols = x.shape[-2:]
    ones = np.ones((rows, cols), bool)
    return F.where(np.triu(ones, diagonal) if upper else np.tril(ones, diagonal), x, 0.0)


def _solve_tri(a: Any, b: Any, upper: bool, left: bool = True, unit: bool = False) -> Any:
    return LinalgSolveTriangularBackward0.call(a, b, upper=upper, left=left, unitriangular=unit)


def _lu_backward(F: Any, grad_l: Any, grad_u: Any, p: Any, lower: Any, upper: Any) -> Any:
    """PyTorch's ``linalg_lu_backward`` (pivoting): the gradient of A = P L U (^H for complex
    A where a real one has ^T)."""
    m, n = lower.shape[-2], upper.shape[-1]
    k = min(m, n)
    if m == n:
        grad = _tri(F, F.matmul(adjoint(F, lower), grad_l), False, -1)
        grad = grad + _tri(F, F.matmul(grad_u, adjoint(F, upper)), True)
        grad = _solve_tri(adjoint(F, upper), grad, False, left=False)
        return F.matmul(p, _solve_tri(adjoint(F, lower), grad, True, unit=True))
    if m < n:  # wide: A1 = P L U1, A2 = P L U2
        u1 = upper[..., :, :k]
        grad = F.matmul(adjoint(F, lower), grad_l) - F.matmul(
            _tri(F, grad_u, True), adjoint(F, upper)
        )
        grad = _solve_tri(adjoint(F, u1), _tri(F, grad, False, -1), False, left=False)
        # [grad + triu(gU1), gU2] (a concatenation: a NaN stays where it is)
        grad = F.cat([grad + _tri(F, grad_u[..., :, :k], True), grad_u[..., :, k:]], -1)
        return F.matmul(p, _solve_tri(adjoint(F, lower), grad, True, unit=True))
    # tall: A1 = P L1 U, A2 = P L2 U
    l1 = lower[..., :k, :]
    grad = F.matmul(grad_u, adjoint(F, upper)) - F.matmul(
        adjoint(F, lower), _tri(F, grad_l, False, -1)
    )
    grad = _solve_tri(adjoint(F, l1), _tri(F, grad, True), True, unit=True)
    grad = F.cat([grad + _tri(F, grad_l[..., :k, :], False, -1), grad_l[..., k:, :]], -2)
    return F.matmul(p, _solve_tri(adjoint(F, upper), grad, False, left=False))


def _zero_padded(F: Any, x: Any, rows: int, cols: int) -> Any:
    """``x`` in the top left corner of a rows x cols matrix of zeros (PyTorch's narrow and
    add_: a NaN of ``x`` stays in its place, where a product with an identity spreads it)."""
    shape = tuple(x.shape)
    dtype = np.asarray(array_of(x)).dtype
    if cols > shape[-1]:
        x = F.cat([x, F.zeros((*shape[:-1], cols - shape[-1]), dtype)], -1)
    if rows > shape[-2]:
        x = F.cat([x, F.zeros((*shape[:-2], rows - shape[-2], cols), dtype)], -2)
    return x


# --- lu_factor, lu ------------------------------------------------------------------------


class LinalgLuFactorExBackward0(Op):
    """(LU, pivots, info) = getrf(A); the gradient is PyTorch's ``lu_factor_ex_backward``"""

    saved_outputs: tuple[int, ...] = (0, 1)
    nondiff_outputs: tuple[int, ...] = (1, 2)
    __slots__ = ()

    def forward(self, a: Any) -> Any:
        lu, pivots, info = lu_arrays(a)
        return column_major(lu), pivots, info

    def backward(self, F: Any, grads: Any) -> Any:
        lu, pivots = self.saved
        grad = grads[0]
        m, n = lu.shape[-2:]
        k = min(m, n)
        lower, upper = _unpacked(F, lu)
        p = constant_like(grad, permutation_arrays(array_of(pivots), m, array_of(lu).dtype))
        return _lu_backward(F, grad[..., :, :k], grad[..., :k, :], p, lower, upper)


class LinalgLuBackward0(Op):
    """(P, L, U) = the pivoted LU of A; the gradient is PyTorch's ``linalg_lu_backward``"""

    saved_outputs: tuple[int, ...] = (0, 1, 2)
    nondiff_outputs: tuple[int, ...] = (0,)
    __slots__ = ()

    @row_major
    def forward(self, a: Any) -> Any:
        lu, pivots, _ = lu_arrays(a)
        m, n = a.shape[-2:]
        k = min(m, n)
        lower = np.tril(lu[..., :, :k], -1) + np.eye(m, k, dtype=a.dtype)
        return permutation_arrays(pivots, m, a.dtype), lower, np.triu(lu[..., :k, :])

    def backward(self, F: Any, grads: Any) -> Any:
        p, lower, upper = self.saved
        _, grad_l, grad_u = grads
        return _lu_backward(F, grad_l, grad_u, p, lower, upper)


def _check_lu_input(op: str, a: np.ndarray, pivot: bool) -> None:
    if a.ndim < 2:
        raise RuntimeError(
            f"{op}: Expected tensor with 2 or more dimensions. Got size: {list(a.shape)} instead"
        )
    check_kernel_dtype("lu_cpu", a, complex_ok=True)
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")


def _zero_pivot_error(op: str, info: np.ndarray) -> LinAlgError:
    _, prefix = batch_prefix(info[..., None, None], lambda i: i[0, 0] != 0)
    first = int(info.reshape(-1)[np.flatnonzero(info.reshape(-1))[0]])
    return LinAlgError(
        f"{op}: {prefix}U[{first},{first}] is zero and using it on lu_solve would result in a "
        "division by zero. If you still want to perform the factorization, consider calling "
        "linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)"
    )


def lu_factor_ex(
    A: Tensor, *, pivot: bool = True, check_errors: bool = False, out: Any = None
) -> tuple[Tensor, ...]:
    """``(LU, pivots, info)``: the LU factorization with partial pivoting of a (batch of)
    matrices, packed as LAPACK's getrf packs it; ``info`` is the 1-based index of the first
    zero on U's diagonal (0 when none), an error only with ``check_errors``.

    Example::

        >>> LU, pivots, info = glassgrad.linalg.lu_factor_ex(glassgrad.tensor([[0.0, 1.0], [2.0, 3.0]]))
        >>> pivots
        tensor([2, 2], dtype=glassgrad.int32)
    """
    data = check_tensor(A, "linalg.lu_factor_ex", "A")._data
    _check_lu_input("torch.lu_factor", data, pivot)
    result = return_types.linalg_lu_factor_ex(*LinalgLuFactorExBackward0.apply(A))
    if check_errors and result.info._data.any():
        raise _zero_pivot_error("torch.linalg.lu_factor_ex", result.info._data)
    return out_result(
        "linalg_lu_factor_ex", out, result, (A,), exact=True, autograd_op="linalg_lu_factor_ex"
    )


def lu_factor(A: Tensor, *, pivot: bool = True, out: Any = None) -> tuple[Tensor, ...]:
    """``(LU, pivots)``: the LU factorization with partial pivoting, packed (L below the
    diagonal, with an implicit unit diagonal, U on and above it) with LAPACK's 1-based int32
    row swaps. A zero pivot is an error (``lu_factor_ex`` reports it instead).

    Example::

        >>> LU, pivots = glassgrad.linalg.lu_factor(glassgrad.tensor([[0.0, 1.0], [2.0, 3.0]]))
        >>> LU
        tensor([[2., 3.],
                [0., 1.]])
    """
    data = check_tensor(A, "linalg.lu_factor", "A")._data
    _check_lu_input("torch.lu_factor", data, pivot)
    lu_data, pivots, info = LinalgLuFactorExBackward0.apply(A)
    if info._data.any():
        raise _zero_pivot_error("torch.linalg.lu_factor", info._data)
    result = return_types.linalg_lu_factor(lu_data, pivots)
    return out_result("linalg_lu_factor", out, result, (A,), exact=True)


def lu(A: Tensor, *, pivot: bool = True, out: Any = None) -> tuple[Tensor, ...]:
    """``(P, L, U)`` with ``A = P L U``: P a permutation matrix, L unit lower triangular
    (m x k), U upper triangular (k x n), k = min(m, n).

    Example::

        >>> P, L, U = glassgrad.linalg.lu(glassgrad.tensor([[0.0, 1.0], [2.0, 3.0]]))
        >>> P
        tensor([[0., 1.],
                [1., 0.]])
    """
    data = check_tensor(A, "linalg.lu", "A")._data
    _check_lu_input("linalg.lu", data, pivot)
    result = return_types.linalg_lu(*LinalgLuBackward0.apply(A))
    return out_result("linalg_lu", out, result, (A,), exact=True)


def lu_top(
    A: Tensor, pivot: bool = True, get_infos: bool = False, out: Any = None
) -> tuple[Tensor, ...]:
    """``torch.lu``: ``(A_LU, pivots)`` of ``linalg.lu_factor_ex``, with the infos too when
    ``get_infos``.

    Example::

        >>> A_LU, pivots = glassgrad.lu(glassgrad.tensor([[0.0, 1.0], [2.0, 3.0]]))
        >>> pivots
        tensor([2, 2], dtype=glassgrad.int32)
    """
    warnings.warn(
        "torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex "
        "and will be removed in a future PyTorch release.\nLU, pivots = torch.lu(A, "
        "compute_pivots)\nshould be replaced with\nLU, pivots = torch.linalg.lu_factor(A, "
        "compute_pivots)\nand\nLU, pivots, info = torch.lu(A, compute_pivots, get_infos=True)"
        "\nshould be replaced with\nLU, pivots, info = torch.linalg.lu_factor_ex(A, "
        "compute_pivots)",
        UserWarning,
        stacklevel=2,
    )
    data = check_tensor(A, "lu", "A")._data
    _check_lu_input("torch.lu_factor", data, pivot)
    lu_data, pivots, infos = LinalgLuFactorExBackward0.apply(A)
    result = (lu_data, pivots, infos) if get_infos else (lu_data, pivots)
    if out is None:
        return result
    # PyTorch's torch.lu is Python: each out is resized like its result (no warning) and takes
    # it by copy_, which casts to any dtype and is recorded (CopyBackwards)
    if len(out) - int(bool(get_infos)) != 2:
        raise TypeError(f"expected tuple of {2 + int(bool(get_infos))} elements but got {len(out)}")
    if not isinstance(out, (tuple, list)):
        raise TypeError(f"argument 'out' must be tuple of Tensors, not {type(out).__name__}")
    for target, value in zip(out, result):
        target.resize_as_(value).copy_(value)
    return out


# --- lu_unpack ---------------------------------------------------------------------------


class LuUnpackBackward0(Op):
    """(P, L, U) of a packed LU; gLU = tril(gL, -1) + triu(gU), laid out as LU"""

    nondiff_outputs: tuple[int, ...] = (0,)
    __slots__ = ()

    @row_major
    def forward(
        self, lu_data: Any, pivots: Any, unpack_data: Any = True, unpack_pivots: Any = True
    ) -> Any:
        m, n = lu_data.shape[-2:]
        k = min(m, n)
        empty = np.zeros((0,), lu_data.dtype)
        p = permutation_arrays(pivots, m, lu_data.dtype) if unpack_pivots else empty
        if not unpack_data:
            return p, empty, empty
        lower = np.tril(lu_data[..., :, :k], -1) + np.eye(m, k, dtype=lu_data.dtype)
        return p, lower, np.triu(lu_data[..., :k, :])

    def backward(self, F: Any, grads: Any) -> Any:
        _, grad_l, grad_u = grads
        if grad_l.shape[-1:] == (0,) and len(grad_l.shape) == 1:
            return None, None
        m, k = grad_l.shape[-2:]
        n = grad_u.shape[-1]
        lower = _zero_padded(F, _tri(F, grad_l, False, -1), m, n)
        return lower + _zero_padded(F, _tri(F, grad_u, True), m, n), None


def lu_unpack(
    LU_data: Tensor,
    LU_pivots: Tensor,
    unpack_data: bool = True,
    unpack_pivots: bool = True,
    *,
    out: Any = None,
) -> tuple[Tensor, ...]:
    """``(P, L, U)`` from the packed ``(LU, pivots)`` of ``linalg.lu_factor``; with
    ``unpack_data=False`` L and U, with ``unpack_pivots=False`` P, are empty tensors.

    Example::

        >>> LU, pivots = glassgrad.linalg.lu_factor(glassgrad.tensor([[0.0, 1.0], [2.0, 3.0]]))
        >>> glassgrad.lu_unpack(LU, pivots).U
        tensor([[2., 3.],
                [0., 1.]])
    """
    data = check_tensor(LU_data, "lu_unpack", "LU_data")._data
    pivots = check_tensor(LU_pivots, "lu_unpack", "LU_pivots", 2)._data
    if data.ndim < 2:
        raise RuntimeError(
            f"torch.lu_unpack: Expected tensor with 2 or more dimensions. Got size: "
            f"{list(data.shape)} instead"
        )
    if unpack_pivots:  # PyTorch reads the pivots only to build P
        if pivots.dtype != np.int32:
            raise RuntimeError(
                "torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 "
                "dtype.\nNote: this function is intended to be used with the output produced by "
                "torch.linalg.lu_factor"
            )
        m, n = data.shape[-2:]
        if pivots.shape != data.shape[:-2] + (min(m, n),) or (
            pivots.size and (pivots.min() < 1 or pivots.max() > m)
        ):
            raise RuntimeError(
                "pivots passed to lu_unpack must be between 1 and LU.size(-2) inclusive.Did you "
                "properly pass the result of lu_factor?"
            )
    result = return_types.lu_unpack(
        *LuUnpackBackward0.apply(
            LU_data, LU_pivots, unpack_data=bool(unpack_data), unpack_pivots=bool(unpack_pivots)
        )
    )
    return out_result("lu_unpack", out, result, (LU_data,), exact=True)


# --- registry ----------------------------------------------------------------------------


def _factored(rng: np.random.Generator, *shape: int) -> tuple:
    """``(LU, pivots)`` of a well-conditioned matrix: lu_solve's inputs."""
    lu_data, pivots, _ = lu_arrays(invertible(rng, *shape))
    return lu_data, pivots


_lu_inputs = lambda rng: [  # noqa: E731
    Sample((randn(rng, 3, 3),)),
    Sample((randn(rng, 2, 4, 4),), note="batched"),
    Sample((randn(rng, 4, 2),), note="tall"),
    Sample((randn(rng, 2, 4),), note="wide"),
    Sample((randn(rng, 3, 3).T,), note="non-contiguous"),
]


register(
    "lu_factor",
    lu_factor,
    nodes=(LinalgLuFactorExBackward0,),
    namespace="linalg",
    samples=_lu_inputs,
)


register(
    "lu_factor_ex",
    lu_factor_ex,
    nodes=(LinalgLuFactorExBackward0,),
    namespace="linalg",
    samples=lambda rng: [Sample((randn(rng, 3, 3),)), Sample((np.zeros((2, 2)),), grad=False)],
)


register("lu", lu, nodes=(LinalgLuBackward0,), namespace="linalg", samples=_lu_inputs)


register(
    "lu",
    lu_top,
    nodes=(LinalgLuFactorExBackward0,),
    samples=lambda rng: [Sample((randn(rng, 3, 3),)), Sample((randn(rng, 3, 2), True, True))],
)


register(
    "lu_unpack",
    lu_unpack,
    nodes=(LuUnpackBackward0,),
    methods=(),
    samples=lambda rng: [
        Sample(_factored(rng, 3, 3)),
        Sample(_factored(rng, 2, 3, 3), note="batched"),
        Sample((randn(rng, 4, 2), _factored(rng, 4, 4)[1][:2]), note="tall"),
        Sample((randn(rng, 2, 4), _factored(rng, 2, 2)[1]), note="wide"),
        Sample(_factored(rng, 3, 3) + (False,), grad=False, note="pivots only: torch errs"),
        Sample(_factored(rng, 3, 3) + (True, False), note="data only"),
    ],
)
