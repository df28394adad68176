"""Functions of matrices and products of vectors: ``linalg.matrix_power``, ``matrix_exp``,
``cond``, ``multi_dot`` (``torch.chain_matmul``), ``vander`` (and ``torch.vander``), ``vecdot``,
``cross`` (and ``torch.cross``), ``diagonal``, ``matmul``, and ``torch.trace``, ``inner``,
``vdot``.

Most are PyTorch's composites of other ops (so their graphs are PyTorch's); ``matrix_exp``,
``cross``, ``trace`` and ``vdot`` are nodes of their own. ``matrix_exp`` is computed by
scaling and squaring with a degree-13 Pade approximant (Higham 2005); its gradient is
PyTorch's: the exponential of the block matrix [[A^T, G], [0, A^T]], upper right block.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from .._dtype import c_type_name, from_numpy_dtype, scalar_type_name
from .._tensor import Tensor
from ..autograd.op import Op
from ._common import array_of, check_tensor, wrap_dim
from ._linalg_common import check_square, constant_like, invertible
from ._out import composite_out, out_result
from ._registry import Sample, register
from ._samples import randn
from .conversion import clone, to
from .decompositions import svdvals
from .inverses import inv_ex
from .linalg import _Matmul, matmul, mm
from .linalg_extra import matrix_norm, tensordot
from .pointwise import mul, where
from .reduction import sum as reduce_sum
from .reduction_extra import cumprod
from .shape import cat, expand, squeeze, unsqueeze
from .shape_extra import diagonal as diagonal_view
from .shape_extra import flip

__all__ = [
    "matrix_power",
    "matrix_power_top",
    "matrix_exp",
    "cond",
    "multi_dot",
    "chain_matmul",
    "vander",
    "vecdot",
    "cross",
    "trace",
    "inner",
    "vdot",
]


# --- matrix_power ----------------------------------------------------------------------------


def matrix_power(A: Tensor, n: int, *, out: Any = None) -> Tensor:
    """``A`` multiplied by itself ``n`` times (the identity for 0, powers of the inverse for
    negative ``n``), by repeated squaring as PyTorch does.

    Example::

        >>> glassgrad.linalg.matrix_power(glassgrad.tensor([[1.0, 1.0], [0.0, 1.0]]), 3)
        tensor([[1., 3.],
                [0., 1.]])
    """
    data = check_tensor(A, "linalg.matrix_power", "A")._data
    check_square("linalg.matrix_power", data)
    if out is not None:
        return composite_out("linalg.matrix_power", out, lambda: matrix_power(A, n))
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool):
        raise TypeError(
            f"linalg_matrix_power(): argument 'n' (position 2) must be int, not {type(n).__name__}"
        )
    if n == 0:  # PyTorch's: a copy of A overwritten by the identity (CopyBackwards)
        eye = np.eye(data.shape[-1], dtype=data.dtype)
        return clone(A).copy_(Tensor._from_array(np.array(np.broadcast_to(eye, data.shape))))
    if n < 0:
        from .linalg_extra import inv

        A, n = inv(A), -n
    if n == 1:
        return clone(A)
    if n == 2:
        return matmul(A, A)
    if n == 3:
        return matmul(matmul(A, A), A)
    # Binary decomposition of n: z runs through A^(2^k), result collects the set bits.
    result = z = None
    while n > 0:
        z = A if z is None else matmul(z, z)
        if n % 2:
            result = z if result is None else matmul(result, z)
        n //= 2
    return result


def matrix_power_top(input: Tensor, n: int, *, out: Any = None) -> Tensor:
    """``torch.matrix_power``: ``linalg.matrix_power``.

    Example::

        >>> glassgrad.matrix_power(glassgrad.eye(2) * 2, 3)
        tensor([[8., 0.],
                [0., 8.]])
    """
    return matrix_power(input, n, out=out)


# --- matrix_exp ------------------------------------------------------------------------------

_PADE13 = (
    64764752532480000.0,
    32382376266240000.0,
    7771770303897600.0,
    1187353796428800.0,
    129060195264000.0,
    10559470521600.0,
    670442572800.0,
    33522128640.0,
    1323241920.0,
    40840800.0,
    960960.0,
    16380.0,
    182.0,
    1.0,
)
_THETA13 = 5.371920351148152


def matrix_exp_arrays(a: np.ndarray) -> np.ndarray:
    """exp(A) for a (batch of) square matrices: each matrix scaled by 2^-s so that its
    1-norm is at most theta_13, the [13/13] Pade approximant, then squared s times."""
    if a.size == 0:
        return np.array(a)
    work = a.astype(np.float64).reshape(-1, *a.shape[-2:])
    n = a.shape[-1]
    norms = np.abs(work).sum(axis=-2).max(axis=-1)
    with np.errstate(divide="ignore"):
        squarings = np.maximum(0, np.ceil(np.log2(norms / _THETA13))).astype(int)
    squarings[~np.isfinite(norms)] = 0
    work = work / (2.0**squarings)[:, None, None]
    b = _PADE13
    eye = np.eye(n)
    a2 = work @ work
    a4 = a2 @ a2
    a6 = a4 @ a2
    u = work @ (
        a6 @ (b[13] * a6 + b[11] * a4 + b[9] * a2) + b[7] * a6 + b[5] * a4 + b[3] * a2 + b[1] * eye
    )
    v = a6 @ (b[12] * a6 + b[10] * a4 + b[8] * a2) + b[6] * a6 + b[4] * a4 + b[2] * a2 + b[0] * eye
    result = np.linalg.solve(v - u, v + u)
    for step in range(int(squarings.max(initial=0))):
        more = squarings > step
        result[more] = result[more] @ result[more]
    return result.reshape(a.shape).astype(a.dtype)


class LinalgMatrixExpBackward0(Op):
    """out = exp(A); gA = the upper right block of exp([[A^T, grad], [0, A^T]])"""

    saved_inputs = (0,)
    __slots__ = ()

    def forward(self, a):
        return matrix_exp_arrays(a)

    def backward(self, F, grad):
        (a,) = self.saved
        n = a.shape[-1]
        dtype = array_of(grad).dtype
        top = constant_like(grad, np.eye(2 * n, n, dtype=dtype))  # embeds the upper blocks
        bottom = constant_like(grad, np.eye(2 * n, n, -n, dtype=dtype))  # and the lower ones
        a_t = F.mT(a)
        blocks = (
            F.matmul(F.matmul(top, a_t), F.mT(top))
            + F.matmul(F.matmul(top, grad), F.mT(bottom))
            + F.matmul(F.matmul(bottom, a_t), F.mT(bottom))
        )
        return LinalgMatrixExpBackward0.call(blocks)[..., :n, n:]


def matrix_exp(A: Tensor) -> Tensor:
    """The matrix exponential ``sum A^k / k!`` of a (batch of) square matrices.

    Example::

        >>> glassgrad.linalg.matrix_exp(glassgrad.zeros(2, 2))
        tensor([[1., 0.],
                [0., 1.]])
    """
    data = check_tensor(A, "linalg.matrix_exp", "A")._data
    check_square("linalg.matrix_exp", data)
    return LinalgMatrixExpBackward0.apply(A)


# --- cond --------------------------------------------------------------------------------------


def cond(A: Tensor, p: Any = None, *, out: Any = None) -> Tensor:
    """The condition number of a (batch of) matrices in the norm ``p``: the ratio of the
    largest to the smallest singular value for ``p`` None or 2 (-2: its inverse), else
    ``norm(A, p) * norm(A^-1, p)`` for square A (inf where A is singular).

    Example::

        >>> glassgrad.linalg.cond(glassgrad.tensor([[4.0, 0.0], [0.0, 2.0]]))
        tensor(2.)
    """
    data = check_tensor(A, "linalg.cond", "A")._data
    if out is not None:
        return composite_out("linalg.cond", out, lambda: cond(A, p))
    if data.ndim < 2:
        raise RuntimeError("linalg.cond: The input tensor must have at least 2 dimensions.")
    if p is None or p in (2, -2):
        values = svdvals(A)
        ratio = values[..., 0] / values[..., -1]
        return ratio if p != -2 else values[..., -1] / values[..., 0]
    if p not in ("fro", "nuc", 1, -1, math.inf, -math.inf):
        raise RuntimeError(f"linalg.cond got an invalid norm type: {p}")
    check_square(f"linalg.cond(ord={p})", data)
    inverse, info = inv_ex(A)
    value = matrix_norm(A, p) * matrix_norm(inverse, p)
    return where(info._data > 0, math.inf, value)


# --- multi_dot, chain_matmul -----------------------------------------------------------------


def _chain_order(shapes: list) -> list:
    """The cheapest parenthesization of a chain of matrices (the classic dynamic program):
    ``split[i][j]`` is where the product of matrices i..j is cut."""
    n = len(shapes)
    dims = [shapes[0][0]] + [s[1] for s in shapes]
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = math.inf
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k
    return split


def _multiply(tensors: list, split: list, i: int, j: int) -> Tensor:
    if i == j:
        return tensors[i]
    k = split[i][j]
    return mm(_multiply(tensors, split, i, k), _multiply(tensors, split, k + 1, j))


def multi_dot(tensors: Any, *, out: Any = None) -> Tensor:
    """The product of a chain of matrices in the cheapest order; the first may be a row
    vector and the last a column vector (1-D), as in ``numpy.linalg.multi_dot``.

    Example::

        >>> glassgrad.linalg.multi_dot([glassgrad.ones(3), glassgrad.ones(3, 2), glassgrad.ones(2)])
        tensor(6.)
    """
    tensors = list(tensors)
    if len(tensors) < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {len(tensors)}")
    for i, t in enumerate(tensors):
        check_tensor(t, "linalg.multi_dot", f"tensors[{i}]")
        ndim = t._data.ndim
        allowed = (1, 2) if i in (0, len(tensors) - 1) else (2,)
        if ndim not in allowed:
            where_ = "first" if i == 0 else "last" if i == len(tensors) - 1 else None
            raise RuntimeError(
                f"multi_dot(): the {where_} tensor must be 1D or 2D but got {ndim}D"
                if where_
                else f"multi_dot(): tensor {i} must be 2D but got {ndim}D"
            )
    dtype = tensors[0]._data.dtype
    for i, t in enumerate(tensors[1:], 1):
        if t._data.dtype != dtype:
            raise RuntimeError(
                f"multi_dot(): all tensors must have be the same dtype but tensor 0 is "
                f"{c_type_name(dtype)} and tensor {i} {c_type_name(t._data.dtype)}"
            )
    first_vector, last_vector = tensors[0]._data.ndim == 1, tensors[-1]._data.ndim == 1
    matrices = list(tensors)
    if first_vector:
        matrices[0] = unsqueeze(matrices[0], 0)
    if last_vector:
        matrices[-1] = unsqueeze(matrices[-1], 1)
    for i in range(len(matrices) - 1):
        left, right = matrices[i]._data.shape, matrices[i + 1]._data.shape
        if left[1] != right[0]:
            raise RuntimeError(
                f"multi_dot(): tensors {i} and {i + 1} with shapes {list(tensors[i]._data.shape)} "
                f"and {list(tensors[i + 1]._data.shape)} cannot be multiplied"
            )
    split = _chain_order([m._data.shape for m in matrices])
    result = _multiply(matrices, split, 0, len(matrices) - 1)
    if first_vector and last_vector:
        result = squeeze(squeeze(result, 1), 0)
    elif first_vector:
        result = squeeze(result, 0)
    elif last_vector:
        result = squeeze(result, 1)
    return out_result("linalg_multi_dot", out, result, tuple(tensors), exact=True, autograd_op="mm")


def chain_matmul(*matrices: Tensor, out: Any = None) -> Tensor:
    """``torch.chain_matmul`` (deprecated in PyTorch): ``linalg.multi_dot`` of 2-D tensors
    given as separate arguments.

    Example::

        >>> glassgrad.chain_matmul(glassgrad.eye(2), glassgrad.ones(2, 3)).shape
        glassgrad.Size([2, 3])
    """
    warnings.warn(
        "torch.chain_matmul is deprecated and will be removed in a future PyTorch release. Use "
        "torch.linalg.multi_dot instead, which accepts a list of two or more tensors rather "
        "than multiple parameters.",
        UserWarning,
        stacklevel=2,
    )
    for t in matrices:
        if check_tensor(t, "chain_matmul")._data.ndim != 2:
            raise RuntimeError(f"Tensor dimension is {t._data.ndim}, expected 2 instead.")
    if len(matrices) == 1:
        return out_result("chain_matmul", out, clone(matrices[0]), matrices, exact=True)
    return multi_dot(matrices, out=out)


# --- vander ----------------------------------------------------------------------------------


def _powers(x: Tensor, n: int) -> Tensor:
    """[1, x, x^2, ..., x^(n-1)] along a new last dim, by a cumulative product."""
    data = x._data
    ones = Tensor._from_array(np.ones(data.shape + (1,), data.dtype))
    if n == 1:
        return ones
    repeated = expand(unsqueeze(x, -1), (*data.shape, n - 1))
    return cat([ones, cumprod(repeated, -1)], -1)


def vander(x: Tensor, *, N: int | None = None) -> Tensor:
    """The Vandermonde matrix of ``x`` (batched over leading dims): column j is ``x ** j``,
    j = 0 .. N-1 (N defaults to x's last size).

    Example::

        >>> glassgrad.linalg.vander(glassgrad.tensor([1.0, 2.0, 3.0]))
        tensor([[1., 1., 1.],
                [1., 2., 4.],
                [1., 3., 9.]])
    """
    data = check_tensor(x, "linalg.vander", "x")._data
    n = data.shape[-1] if N is None and data.ndim else (1 if N is None else N)
    if n < 2:
        raise RuntimeError("N must be greater than 1.")
    if data.dtype == np.bool_:
        raise RuntimeError("linalg.vander: x must not be a boolean tensor")
    return _powers(x, n)


def vander_top(x: Tensor, N: int | None = None, increasing: bool = False) -> Tensor:
    """``torch.vander``: NumPy's Vandermonde matrix of a 1-D ``x``, powers decreasing from
    N-1 to 0 unless ``increasing``.

    Example::

        >>> glassgrad.vander(glassgrad.tensor([1, 2, 3]))
        tensor([[1, 1, 1],
                [4, 2, 1],
                [9, 3, 1]])
    """
    data = check_tensor(x, "vander", "x")._data
    if data.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = data.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    if n == 0:
        return Tensor._from_array(np.zeros((data.shape[0], 0), np.result_type(data, np.int64)))
    promoted = x if data.dtype.kind == "f" else to(x, from_numpy_dtype(np.dtype(np.int64)))
    result = _powers(promoted, n)
    return result if increasing else flip(result, -1)


# --- vecdot, cross -------------------------------------------------------------------------


def vecdot(x: Tensor, y: Tensor, *, dim: int = -1, out: Any = None) -> Tensor:
    """The dot product of vectors along ``dim`` (broadcast over the rest).

    Example::

        >>> glassgrad.linalg.vecdot(glassgrad.tensor([[1.0, 2.0]]), glassgrad.tensor([3.0, 4.0]))
        tensor([11.])
    """
    a = check_tensor(x, "linalg.vecdot", "x")._data
    b = check_tensor(y, "linalg.vecdot", "y", 2)._data
    if a.dtype != b.dtype:
        raise RuntimeError(
            f"linalg.vecdot: Expected x and y to have the same dtype, but found x of type "
            f"{scalar_type_name(a.dtype)} and y of type {scalar_type_name(b.dtype)} instead"
        )
    if out is not None:
        return composite_out("linalg.vecdot", out, lambda: vecdot(x, y, dim=dim))
    return reduce_sum(mul(x, y), dim)


class LinalgCrossBackward0(Op):
    """out = input x other along ``dim``; g_input = other x grad, g_other = grad x input"""

    saved_inputs = (0, 1)
    saved_for = ((1,), (0,))
    __slots__ = ("dim",)

    def forward(self, a, b, dim=-1):
        self.dim = dim
        shape = np.broadcast_shapes(a.shape, b.shape)
        return np.cross(np.broadcast_to(a, shape), np.broadcast_to(b, shape), axis=dim)

    def backward(self, F, grad):
        a, b = self.saved
        needs = self.needs_input_grad
        grad_a = LinalgCrossBackward0.call(b, grad, dim=self.dim) if needs[0] else None
        grad_b = LinalgCrossBackward0.call(grad, a, dim=self.dim) if needs[1] else None
        return grad_a, grad_b


def _cross(op: str, input: Tensor, other: Tensor, dim: int | None) -> Tensor:
    a = check_tensor(input, op)._data
    b = check_tensor(other, op, "other", 2)._data
    if a.ndim != b.ndim:
        raise RuntimeError(f"{op}: inputs must have the same number of dimensions.")
    try:
        shape = np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        raise RuntimeError(
            f"{op}: the shapes {list(a.shape)} and {list(b.shape)} do not broadcast"
        ) from None
    if dim is None:
        dim = next((d for d, size in enumerate(shape) if size == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    d = wrap_dim(dim, len(shape), op)
    if a.shape[d] != 3 or b.shape[d] != 3:
        raise RuntimeError(
            f"{op}: inputs dimension {dim} must have length 3. Got {a.shape[d]} and {b.shape[d]}"
        )
    if a.dtype != b.dtype:
        raise RuntimeError(
            f"expected scalar type {scalar_type_name(a.dtype)} but found "
            f"{scalar_type_name(b.dtype)}"
        )
    return LinalgCrossBackward0.apply(input, other, dim=d)


def cross(input: Tensor, other: Tensor, *, dim: int = -1, out: Any = None) -> Tensor:
    """The cross product of 3-vectors along ``dim`` (broadcast over the other dims).

    Example::

        >>> glassgrad.linalg.cross(glassgrad.tensor([1.0, 0.0, 0.0]), glassgrad.tensor([0.0, 1.0, 0.0]))
        tensor([0., 0., 1.])
    """
    result = _cross("linalg.cross", input, other, dim)
    return out_result("linalg_cross", out, result, (input, other), exact=True)


def cross_top(input: Tensor, other: Tensor, dim: int | None = None, *, out: Any = None) -> Tensor:
    """``torch.cross``: ``linalg.cross``, where a missing ``dim`` (deprecated) is the first
    dim of size 3.

    Example::

        >>> glassgrad.cross(glassgrad.eye(3), glassgrad.ones(3, 3), dim=1)[0]
        tensor([ 0., -1.,  1.])
    """
    if dim is None:
        warnings.warn(
            "Using torch.cross without specifying the dim arg is deprecated.\nPlease either "
            "pass the dim explicitly or simply use torch.linalg.cross.\nThe default value of "
            "dim will change to agree with that of linalg.cross in a future release.",
            UserWarning,
            stacklevel=2,
        )
    result = _cross("linalg.cross", input, other, dim)
    return out_result("cross", out, result, (input, other), exact=True, autograd_op="linalg_cross")


# --- trace, inner, vdot, linalg aliases ----------------------------------------------------------


class TraceBackward0(Op):
    """out = sum of the diagonal; grad flows to the diagonal"""

    __slots__ = ("shape",)

    def forward(self, a):
        self.shape = a.shape
        dtype = np.int64 if a.dtype.kind in "biu" else a.dtype
        return np.asarray(np.trace(a), dtype=dtype)

    def backward(self, F, grad):
        eye = np.eye(*self.shape, dtype=bool)
        return F.where(eye, F.expand(grad, self.shape), 0.0)


def trace(input: Tensor) -> Tensor:
    """The sum of the diagonal of a 2-D tensor.

    Example::

        >>> glassgrad.trace(glassgrad.tensor([[1.0, 2.0], [3.0, 4.0]]))
        tensor(5.)
    """
    data = check_tensor(input, "trace")._data
    if data.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {data.ndim}")
    return TraceBackward0.apply(input)


def inner(input: Tensor, other: Tensor, *, out: Any = None) -> Tensor:
    """The inner product over the last dims (a product when one side is a scalar).

    Example::

        >>> glassgrad.inner(glassgrad.tensor([1.0, 2.0]), glassgrad.tensor([3.0, 4.0]))
        tensor(11.)
    """
    a = check_tensor(input, "inner")._data
    b = check_tensor(other, "inner", "other", 2)._data
    if out is not None:
        return composite_out("inner", out, lambda: inner(input, other))
    if a.ndim == 0 or b.ndim == 0:
        return mul(input, other)
    if a.shape[-1] != b.shape[-1]:
        raise RuntimeError(
            f"inner() the last dimension must match on both input tensors but got shapes "
            f"{list(a.shape)} and {list(b.shape)}"
        )
    return tensordot(input, other, ([-1], [-1]))


class VdotBackward0(_Matmul):
    op_name = "vdot"


def vdot(input: Tensor, other: Tensor, *, out: Any = None) -> Tensor:
    """The dot product of two 1-D tensors (the first conjugated, a no-op for real ones).

    Example::

        >>> glassgrad.vdot(glassgrad.tensor([1.0, 2.0]), glassgrad.tensor([3.0, 4.0]))
        tensor(11.)
    """
    a = check_tensor(input, "vdot")._data
    b = check_tensor(other, "vdot", "other", 2)._data
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
    if a.shape != b.shape:
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{a.shape[0]}] and src [{b.shape[0]}] "
            f"to have the same number of elements, but got {a.shape[0]} and {b.shape[0]} "
            "elements respectively"
        )
    if a.dtype != b.dtype:
        raise RuntimeError(
            f"vdot : expected both vectors to have same dtype, but found "
            f"{scalar_type_name(a.dtype)} and {scalar_type_name(b.dtype)}"
        )
    return out_result("vdot", out, VdotBackward0.apply(input, other), (input, other), exact=True)


def linalg_matmul(input: Tensor, other: Tensor, *, out: Any = None) -> Tensor:
    """``linalg.matmul``: ``matmul``.

    Example::

        >>> glassgrad.linalg.matmul(glassgrad.eye(2), glassgrad.ones(2)).shape
        glassgrad.Size([2])
    """
    return out_result(
        "linalg_matmul", out, matmul(input, other), (input, other), autograd_op="matmul"
    )


def linalg_diagonal(A: Tensor, *, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """``linalg.diagonal``: ``torch.diagonal`` with the last two dims by default.

    Example::

        >>> glassgrad.linalg.diagonal(glassgrad.eye(3))
        tensor([1., 1., 1.])
    """
    return diagonal_view(A, offset, dim1, dim2)


# --- registry ----------------------------------------------------------------------------

register(
    "matrix_power",
    matrix_power,
    namespace="linalg",
    samples=lambda rng: [
        Sample((randn(rng, 3, 3), 0)),
        Sample((randn(rng, 3, 3), 1)),
        Sample((randn(rng, 3, 3), 2)),
        Sample((randn(rng, 2, 3, 3), 3)),
        Sample((randn(rng, 3, 3) / 2, 6)),
        Sample((invertible(rng, 3, 3), -2)),
    ],
)
register("matrix_power", matrix_power_top, samples=lambda rng: [Sample((randn(rng, 3, 3), 5))])
_exp_samples = lambda rng: [  # noqa: E731
    Sample((randn(rng, 3, 3),)),
    Sample((randn(rng, 2, 3, 3),), note="batched"),
    Sample((4 * randn(rng, 3, 3),), note="scaled and squared"),
    Sample((randn(rng, 4, 4).T,), note="non-contiguous"),
]
register(
    "matrix_exp",
    matrix_exp,
    nodes=(LinalgMatrixExpBackward0,),
    namespace="linalg",
    samples=_exp_samples,
)
register(
    "matrix_exp",
    matrix_exp,
    nodes=(LinalgMatrixExpBackward0,),
    samples=lambda rng: [Sample((randn(rng, 3, 3),))],
)
register(
    "cond",
    cond,
    namespace="linalg",
    samples=lambda rng: [
        Sample((randn(rng, 3, 3),)),
        Sample((randn(rng, 4, 3), -2)),
        Sample((randn(rng, 2, 3, 3), 2)),
        # PyTorch's backward fails for these norms (inv_ex's output changed in place): values
        Sample((invertible(rng, 3, 3), "fro"), grad=False),
        Sample((invertible(rng, 3, 3), "nuc"), grad=False),
        Sample((invertible(rng, 3, 3), 1), grad=False),
        Sample((invertible(rng, 3, 3), -math.inf), grad=False),
    ],
)
register(
    "multi_dot",
    multi_dot,
    namespace="linalg",
    samples=lambda rng: [
        Sample(([randn(rng, 3, 4), randn(rng, 4, 2)],)),
        Sample(([randn(rng, 4), randn(rng, 4, 5), randn(rng, 5, 2), randn(rng, 2)],)),
        Sample(([randn(rng, 5, 2), randn(rng, 2, 6), randn(rng, 6, 3), randn(rng, 3, 1)],)),
        Sample(([randn(rng, 2, 3), randn(rng, 3)],)),
    ],
)
register(
    "vander",
    vander,
    namespace="linalg",
    samples=lambda rng: [
        Sample((randn(rng, 4),)),
        Sample((randn(rng, 2, 3),), {"N": 5}),
        Sample((np.arange(4),), grad=False),
    ],
)
register(
    "vander",
    vander_top,
    methods=(),
    samples=lambda rng: [
        # PyTorch's own backward of torch.vander fails (its in-place cumprod): values only
        Sample((randn(rng, 4),), grad=False),
        Sample((randn(rng, 3), 4, True), grad=False),
        Sample((np.arange(4), 2), grad=False),
    ],
)
register(
    "vecdot",
    vecdot,
    namespace="linalg",
    samples=lambda rng: [
        Sample((randn(rng, 3, 4), randn(rng, 3, 4))),
        Sample((randn(rng, 3, 4), randn(rng, 4))),
        Sample((randn(rng, 3, 4), randn(rng, 3, 1)), {"dim": 0}),
    ],
)
_cross_samples = lambda rng: [  # noqa: E731
    Sample((randn(rng, 3), randn(rng, 3))),
    Sample((randn(rng, 4, 3), randn(rng, 1, 3))),
    Sample((randn(rng, 3, 2), randn(rng, 3, 2)), {"dim": 0}),
]
register("cross", cross, nodes=(LinalgCrossBackward0,), namespace="linalg", samples=_cross_samples)
register(
    "cross",
    cross_top,
    nodes=(LinalgCrossBackward0,),
    samples=lambda rng: [
        Sample((randn(rng, 3), randn(rng, 3)), {"dim": 0}),
        Sample((randn(rng, 2, 3, 4), randn(rng, 2, 3, 4)), {"dim": 1}),
    ],
)
register(
    "trace",
    trace,
    nodes=(TraceBackward0,),
    samples=lambda rng: [
        Sample((randn(rng, 3, 3),)),
        Sample((randn(rng, 2, 4),)),
        Sample((np.arange(9).reshape(3, 3),), grad=False),
    ],
)
register(
    "inner",
    inner,
    samples=lambda rng: [
        Sample((randn(rng, 3), randn(rng, 3))),
        Sample((randn(rng, 2, 3), randn(rng, 4, 3))),
        Sample((randn(rng), randn(rng, 2, 3))),
    ],
)
register(
    "vdot",
    vdot,
    nodes=(VdotBackward0,),
    samples=lambda rng: [Sample((randn(rng, 4), randn(rng, 4)))],
)
register(
    "matmul",
    linalg_matmul,
    namespace="linalg",
    samples=lambda rng: [
        Sample((randn(rng, 3, 4), randn(rng, 4, 2))),
        Sample((randn(rng, 2, 3, 4), randn(rng, 4))),
    ],
)
register(
    "diagonal",
    linalg_diagonal,
    namespace="linalg",
    samples=lambda rng: [
        Sample((randn(rng, 3, 4),)),
        Sample((randn(rng, 2, 3, 3),), {"offset": 1}),
        Sample((randn(rng, 3, 4, 2),), {"dim1": 0, "dim2": 2, "offset": -1}),
    ],
)
for _function, _public in ((linalg_matmul, "matmul"), (linalg_diagonal, "diagonal")):
    _function.__name__ = _function.__qualname__ = _public
register(
    "chain_matmul",
    chain_matmul,
    methods=(),
    samples=lambda rng: [
        Sample((randn(rng, 3, 4), randn(rng, 4, 2))),
        Sample((randn(rng, 2, 3), randn(rng, 3, 4), randn(rng, 4, 2))),
    ],
)
