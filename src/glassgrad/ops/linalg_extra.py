"""Linear algebra beyond the matrix products of the core set: outer, tensordot,
addmm, baddbmm, and in ``glassgrad.linalg``: vector_norm, matrix_norm, norm, inv,
det, slogdet, solve, cholesky (with the top-level aliases inverse, det, slogdet, logdet,
cholesky).

Backward formulas are written with matmul / transpose and with the ops themselves (the
gradient of ``inv`` uses the saved inverse, those of ``det`` and ``slogdet`` call ``inv``,
those of ``solve`` and ``cholesky`` call ``solve``), so under ``create_graph=True`` they
record differentiable ops and second derivatives come for free.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import return_types
from .._dtype import scalar_type_name, to_numpy_dtype
from .._tensor import Tensor
from ..autograd.op import Op, apply_inplace
from ._common import array_of, check_tensor, wrap_dim, wrap_dims
from ._linalg_common import (
    LinAlgError,
    batch_prefix,
    check_floating,
    check_square,
    cholesky_with_info,
    invertible,
    is_singular,
    singular_error,
    spd,
    swap,
)
from ._out import composite_out, out_result
from ._registry import NoGrad, Sample, register
from ._samples import randn
from .arithmetic import mul
from .decompositions import svdvals
from .linalg import is_transposed_matrix, mat2_grad, mm
from .lu import lu_arrays, lu_solve_arrays
from .pointwise import where
from .reduction import max as reduce_max
from .reduction import min as reduce_min
from .reduction import sum as reduce_sum
from .shape import permute, reshape

__all__ = [
    "LinAlgError",
    "outer",
    "tensordot",
    "addmm",
    "baddbmm",
    "vector_norm",
    "matrix_norm",
    "norm",
    "inv",
    "det",
    "slogdet",
    "logdet",
    "solve",
    "cholesky",
]


linalg_slogdet = return_types.linalg_slogdet
slogdet_result = return_types.slogdet


# --- outer, tensordot ---------------------------------------------------------------------


def outer(input: Tensor, vec2: Tensor, *, out: Any = None) -> Tensor:
    """Outer product of two vectors: ``out[i, j] = input[i] * vec2[j]``.

    Example::

        >>> glassgrad.outer(glassgrad.tensor([1.0, 2.0]), glassgrad.tensor([1.0, 10.0]))
        tensor([[ 1., 10.],
                [ 2., 20.]])
    """
    for name, t, position in (("self", input, 1), ("vec2", vec2, 2)):
        check_tensor(t, "outer", "input" if position == 1 else "vec2", position)
        if t._data.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {t._data.ndim}-D")
    return out_result(
        "outer", out, mul(reshape(input, (-1, 1)), vec2), (input, vec2), autograd_op="mul"
    )


def _tensordot_dims(a: np.ndarray, b: np.ndarray, dims: Any) -> tuple:
    if isinstance(dims, Tensor):
        dims = dims._data.tolist()
    if isinstance(dims, (int, np.integer)):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > a.ndim or dims > b.ndim:
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        return tuple(range(a.ndim - dims, a.ndim)), tuple(range(dims))
    dims_a, dims_b = dims
    dims_a = (dims_a,) if isinstance(dims_a, (int, np.integer)) else tuple(dims_a)
    dims_b = (dims_b,) if isinstance(dims_b, (int, np.integer)) else tuple(dims_b)
    if len(dims_a) != len(dims_b):
        raise RuntimeError(
            f"tensordot: both dimension lists should have same length, got {len(dims_a)} and "
            f"{len(dims_b)}"
        )
    return (
        tuple(wrap_dim(d, a.ndim, "tensordot") for d in dims_a),
        tuple(wrap_dim(d, b.ndim, "tensordot") for d in dims_b),
    )


def tensordot(a: Tensor, b: Tensor, dims: Any = 2, out: Any = None) -> Tensor:
    """Sum of products over the dims ``dims`` of ``a`` and ``b``: an int n contracts the
    last n dims of ``a`` with the first n of ``b``; a pair of lists names them. Computed as
    PyTorch does: permute and reshape both to matrices, one ``mm``, reshape back.

    Example::

        >>> glassgrad.tensordot(glassgrad.ones(2, 3, 4), glassgrad.ones(3, 4, 5)).shape
        glassgrad.Size([2, 5])
    """
    x, y = check_tensor(a, "tensordot", "a")._data, check_tensor(b, "tensordot", "b", 2)._data
    dims_a, dims_b = _tensordot_dims(x, y, dims)
    for da, db in zip(dims_a, dims_b):
        if x.shape[da] != y.shape[db]:
            raise RuntimeError(
                f"tensordot: contracted dimensions need to match, but first has size "
                f"{x.shape[da]} in dim {da} and second has size {y.shape[db]} in dim {db}"
            )
    free_a = [d for d in range(x.ndim) if d not in dims_a]
    free_b = [d for d in range(y.ndim) if d not in dims_b]
    contracted = math.prod(x.shape[d] for d in dims_a)
    rows = math.prod(x.shape[d] for d in free_a)
    cols = math.prod(y.shape[d] for d in free_b)
    left = reshape(permute(a, (*free_a, *dims_a)), (rows, contracted))
    right = reshape(permute(b, (*dims_b, *free_b)), (contracted, cols))
    shape = tuple(x.shape[d] for d in free_a) + tuple(y.shape[d] for d in free_b)
    return reshape(mm(left, right), shape)


# --- addmm, baddbmm -------------------------------------------------------------------------


class AddmmBackward0(Op):
    """out = beta * input + alpha * (mat1 @ mat2); with beta == 0 input is ignored"""

    saved_inputs = (1, 2)
    saved_for = ((2,), (1,))
    __slots__ = ("beta", "alpha", "_m2_transposed")

    def forward(self, x, m1, m2, beta=1, alpha=1):
        self.beta, self.alpha = beta, alpha
        self._m2_transposed = is_transposed_matrix(m2)  # m2 itself is saved only for m1's gradient
        product = np.matmul(m1, m2)
        if alpha != 1:
            product = product * alpha
        if beta == 0:
            return np.array(np.broadcast_to(product, np.broadcast_shapes(x.shape, product.shape)))
        if beta == 1 and x.ndim <= product.ndim and product.dtype == x.dtype:
            product += x  # a fresh array: no second allocation
            return product
        return product + (x if beta == 1 else x * beta)

    def backward(self, F, grad):
        m1, m2 = self.saved
        needs = self.needs_input_grad
        grad_input = grad_m1 = grad_m2 = None
        if needs[0]:
            grad_input = grad if self.beta == 1 else grad * self.beta
        if needs[1]:
            grad_m1 = F.matmul(grad, F.mT(m2))
            grad_m1 = grad_m1 if self.alpha == 1 else grad_m1 * self.alpha
        if needs[2]:
            grad_m2 = mat2_grad(F, m1, grad, self._m2_transposed)
            grad_m2 = grad_m2 if self.alpha == 1 else grad_m2 * self.alpha
        return grad_input, grad_m1, grad_m2


class BaddbmmBackward0(AddmmBackward0):
    """out = beta * input + alpha * (batch1 @ batch2), batched over the first dim"""

    __slots__ = ()


def _check_add_product(op: str, x: Tensor, m1: Tensor, m2: Tensor, rank: int) -> None:
    names = ("mat1", "mat2") if rank == 2 else ("batch1", "batch2")
    a, b, c = x._data, m1._data, m2._data
    for name, array in zip(names, (b, c)):
        if array.ndim != rank:
            kind = "a matrix" if rank == 2 else "a 3D tensor"
            raise RuntimeError(f"{op}: {name} must be {kind}, got {array.ndim}-D tensor")
    for name, array in (("self", a), (names[0], b)):
        if array.dtype != c.dtype:
            raise RuntimeError(
                f"{op}: {name} and {names[1]} must have the same dtype, but got "
                f"{scalar_type_name(array.dtype)} and {scalar_type_name(c.dtype)}"
            )
    if rank == 2 and b.shape[1] != c.shape[0]:
        raise RuntimeError(
            f"{op}: mat1 and mat2 shapes cannot be multiplied ({b.shape[0]}x{b.shape[1]} and "
            f"{c.shape[0]}x{c.shape[1]})"
        )
    if rank == 3 and c.shape[:2] != (b.shape[0], b.shape[2]):
        raise RuntimeError(
            f"{op}: Expected size for first two dimensions of batch2 tensor to be: "
            f"[{b.shape[0]}, {b.shape[2]}] but got: [{c.shape[0]}, {c.shape[1]}]."
        )
    target = b.shape[:-1] + c.shape[-1:]
    try:
        if np.broadcast_shapes(a.shape, target) != target:
            raise ValueError
    except ValueError:
        lead = len(target) - a.ndim
        bad = next(
            (
                i
                for i in range(max(lead, 0), len(target))
                if a.shape[i - lead] not in (1, target[i])
            ),
            0,
        )
        raise RuntimeError(
            f"{op}: The expanded size of the tensor ({target[bad]}) must match the existing size "
            f"({a.shape[bad - lead] if bad >= lead else 0}) at non-singleton dimension {bad}.  "
            f"Target sizes: {list(target)}.  Tensor sizes: {list(a.shape)}"
        ) from None


def addmm(
    input: Tensor, mat1: Tensor, mat2: Tensor, *, beta: float = 1, alpha: float = 1
) -> Tensor:
    """``beta * input + alpha * (mat1 @ mat2)``; ``input`` broadcasts to the product's shape.

    Example::

        >>> glassgrad.addmm(glassgrad.ones(2), glassgrad.eye(2), glassgrad.eye(2), beta=0.5)
        tensor([[1.5000, 0.5000],
                [0.5000, 1.5000]])
    """
    check_tensor(input, "addmm")
    check_tensor(mat1, "addmm", "mat1", 2)
    check_tensor(mat2, "addmm", "mat2", 3)
    _check_add_product("addmm", input, mat1, mat2, 2)
    return AddmmBackward0.apply(input, mat1, mat2, beta=beta, alpha=alpha)


def addmm_(
    input: Tensor, mat1: Tensor, mat2: Tensor, *, beta: float = 1, alpha: float = 1
) -> Tensor:
    """In-place ``addmm``."""
    _check_add_product("addmm_", input, mat1, mat2, 2)
    return apply_inplace(AddmmBackward0, input, mat1, mat2, beta=beta, alpha=alpha)


def baddbmm(
    input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: float = 1, alpha: float = 1
) -> Tensor:
    """``beta * input + alpha * (batch1 @ batch2)`` for batches of matrices (3-D tensors).

    Example::

        >>> x = glassgrad.zeros(5, 2, 4)
        >>> glassgrad.baddbmm(x, glassgrad.ones(5, 2, 3), glassgrad.ones(5, 3, 4)).shape
        glassgrad.Size([5, 2, 4])
    """
    check_tensor(input, "baddbmm")
    check_tensor(batch1, "baddbmm", "batch1", 2)
    check_tensor(batch2, "baddbmm", "batch2", 3)
    _check_add_product("baddbmm", input, batch1, batch2, 3)
    return BaddbmmBackward0.apply(input, batch1, batch2, beta=beta, alpha=alpha)


def baddbmm_(
    input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: float = 1, alpha: float = 1
) -> Tensor:
    """In-place ``baddbmm``."""
    _check_add_product("baddbmm_", input, batch1, batch2, 3)
    return apply_inplace(BaddbmmBackward0, input, batch1, batch2, beta=beta, alpha=alpha)


# --- norms ----------------------------------------------------------------------------------


class LinalgVectorNormBackward0(Op):
    """out = (sum |x|^ord)^(1/ord) over ``dim`` (max |x| for inf, count of non-zeros for 0)"""

    saved_inputs = (0,)
    saves_output = True
    __slots__ = ("ord", "dim", "keepdim")

    def forward(self, x, ord, dim, keepdim, dtype=None):
        self.ord, self.dim, self.keepdim = ord, dim, keepdim
        if dtype is not None:
            x = x.astype(dtype)
        a = np.abs(x)
        if math.isinf(ord) and x.size == 0:
            raise RuntimeError(
                f"linalg.vector_norm cannot compute the {ord} norm on an empty tensor because "
                "the operation does not have an identity"
            )
        if ord == 2:
            out = np.sqrt(np.sum(a * a, axis=dim, keepdims=keepdim))
        elif ord == 1:
            out = np.sum(a, axis=dim, keepdims=keepdim)
        elif ord == math.inf:
            out = np.max(a, axis=dim, keepdims=keepdim)
        elif ord == -math.inf:
            out = np.min(a, axis=dim, keepdims=keepdim)
        elif ord == 0:
            out = np.sum(x != 0, axis=dim, keepdims=keepdim)
        else:
            with np.errstate(divide="ignore"):
                out = np.sum(a**ord, axis=dim, keepdims=keepdim) ** (1.0 / ord)
        return np.asarray(out, dtype=x.dtype)

    def backward(self, F, grad):
        x, norm = self.saved
        return vector_norm_backward(F, grad, x, norm, self.ord, self.dim, self.keepdim)


def vector_norm_backward(
    F: Any, grad: Any, x: Any, norm: Any, p: float, dim: tuple | None, keepdim: bool
) -> Any:
    """The gradient of ``vector_norm(x, p, dim, keepdim) = norm`` (PyTorch's norm_backward);
    shared by the ops whose result is such a norm (dist, cdist)."""
    xv = x._data if isinstance(x, Tensor) else x
    nv = norm._data if isinstance(norm, Tensor) else norm
    if not keepdim and dim is not None:
        grad = F.unsqueeze_dims(grad, dim)
        norm = F.unsqueeze_dims(norm, dim)
        nv = np.expand_dims(nv, dim)
    if p == 0:
        return F.zeros(xv.shape, xv.dtype)
    if p == 1:
        return F.sign(x) * grad
    if math.isinf(p):
        # The gradient is shared evenly among the entries that reach the extremum.
        hits = np.abs(xv) == nv
        share = hits / np.maximum(np.sum(hits, axis=dim, keepdims=True), 1)
        return F.sign(x) * grad * share.astype(xv.dtype)
    # PyTorch's norm_backward, operation for operation: its masks come after the
    # division, so a zero norm gives a zero gradient but a NaN second derivative.
    zero = nv == 0
    with np.errstate(divide="ignore", invalid="ignore"):
        if p == 2:
            return grad * F.where(zero, 0.0, x / norm)
        if p < 1:
            scaled = F.sign(x) * F.where(xv == 0, 0.0, F.abs(x) ** (p - 1))
            return scaled * grad * norm ** (1 - p)
        scale = F.where(zero, 0.0, grad / norm ** (p - 1))
        if p < 2:
            return F.sign(x) * F.abs(x) ** (p - 1) * scale
        return x * F.abs(x) ** (p - 2) * scale


def _norm_dtype(op: str, x: np.ndarray, dtype: Any) -> np.dtype | None:
    check_floating(op, x)
    if dtype is None:
        return None
    target = to_numpy_dtype(dtype)
    if target.kind != "f":
        raise RuntimeError(f"{op}: dtype should be floating point or complex, but got {dtype}")
    return target


def _check_ord(op: str, ord: Any) -> float:
    if isinstance(ord, str) or not isinstance(ord, (int, float, np.number)):
        raise TypeError(
            f"linalg_vector_norm(): argument 'ord' (position 2) must be Number, not "
            f"{type(ord).__name__}"
        )
    return float(ord)


def vector_norm(
    x: Tensor,
    ord: float = 2,
    dim: Any = None,
    keepdim: bool = False,
    *,
    dtype: Any = None,
    out: Any = None,
) -> Tensor:
    """``(sum |x|^ord)^(1/ord)`` over ``dim`` (all elements by default); ``ord=inf`` is
    ``max |x|``, ``-inf`` is ``min |x|``, 0 counts non-zeros.

    Example::

        >>> glassgrad.linalg.vector_norm(glassgrad.tensor([3.0, -4.0]))
        tensor(5.)
    """
    data = check_tensor(x, "linalg.vector_norm", "x")._data
    target = _norm_dtype("linalg.vector_norm", data, dtype)
    p = _check_ord("linalg.vector_norm", ord)
    if isinstance(dim, (list, tuple)) and len(dim) == 0:
        dim = None
    dims = wrap_dims(dim, data.ndim, "linalg.vector_norm")
    if math.isinf(p):
        reduced = data.shape if dims is None else [data.shape[d] for d in dims]
        if 0 in reduced:
            name = f"{'-' if p < 0 else ''}inf"
            where = (
                "an empty tensor because"
                if dims is None
                else (
                    f"the dimension {next(d for d in dims if data.shape[d] == 0)} because this "
                    "dimension is empty and"
                )
            )
            raise RuntimeError(
                f"linalg.vector_norm cannot compute the {name} norm on {where} the operation "
                "does not have an identity"
            )
    if data.ndim == 0:
        dims = None  # a 0-d tensor's only "dim" is the whole tensor
    result = LinalgVectorNormBackward0.apply(x, ord=p, dim=dims, keepdim=keepdim, dtype=target)
    return out_result("linalg_vector_norm", out, result, (x,), exact=True)


def _matrix_dims(op: str, ndim: int, dim: Any) -> tuple:
    dims = (dim,) if isinstance(dim, (int, np.integer)) else tuple(dim)
    if len(dims) != 2:
        raise RuntimeError(f"{op}: dim must be a 2-tuple. Got {' '.join(str(d) for d in dims)}")
    d0, d1 = (wrap_dim(d, ndim, op) for d in dims)
    if d0 == d1:
        raise RuntimeError(f"{op}: dims must be different. Got ({dims[0]}, {dims[1]})")
    return d0, d1


def _amax_or_max(x: Tensor, dim: int, largest: bool, keepdim: bool) -> Tensor:
    """``amax`` / ``amin`` over ``dim`` when registered, else ``max(dim).values`` (the same
    values; the gradient differs only at ties)."""
    from ._registry import REGISTRY

    info = REGISTRY.get("amax" if largest else "amin")
    if info is not None:
        return info.function(x, dim, keepdim)
    return (reduce_max if largest else reduce_min)(x, dim, keepdim).values


def matrix_norm(
    A: Tensor,
    ord: Any = "fro",
    dim: Any = (-2, -1),
    keepdim: bool = False,
    *,
    dtype: Any = None,
    out: Any = None,
) -> Tensor:
    """A matrix norm over the two dims ``dim``: ``"fro"`` (Frobenius), ``"nuc"`` (sum of
    singular values), 2 / -2 (largest / smallest singular value), 1 / -1 (max / min column
    abs-sum), inf / -inf (max / min row abs-sum).

    Example::

        >>> glassgrad.linalg.matrix_norm(glassgrad.tensor([[1.0, -2.0], [3.0, 4.0]]), 1)
        tensor(6.)
    """
    op = "linalg.matrix_norm"
    data = check_tensor(A, op, "A")._data
    if out is not None:
        return composite_out(op, out, lambda: matrix_norm(A, ord, dim, keepdim, dtype=dtype))
    _norm_dtype(op, data, dtype)
    if data.ndim < 2:
        raise RuntimeError(f"{op}: The input tensor A must have at least 2 dimensions.")
    d0, d1 = _matrix_dims(op, data.ndim, dim)
    if ord == "fro":
        return vector_norm(A, 2, (d0, d1), keepdim, dtype=dtype)
    if ord == "nuc" or ord in (2, -2):
        if dtype is not None:
            from .conversion import to

            A = to(A, dtype)
        moved = permute(A, [d for d in range(data.ndim) if d not in (d0, d1)] + [d0, d1])
        values = svdvals(moved)
        if ord == "nuc":
            out = reduce_sum(values, -1)
        else:
            out = _amax_or_max(values, -1, ord > 0, False)
        if keepdim:
            from .shape import unsqueeze

            for d in sorted((d0, d1)):
                out = unsqueeze(out, d)
        return out
    if isinstance(ord, str) or ord not in (1, -1, math.inf, -math.inf):
        raise RuntimeError(f"{op}: Order {ord} not supported.")
    if abs(ord) == math.inf:
        d0, d1 = d1, d0  # the inf-norm is the 1-norm of the transpose
    sums = vector_norm(A, 1, d0, keepdim, dtype=dtype)
    if not keepdim and d0 < d1:
        d1 -= 1  # the first reduction removed a dim in front of d1
    return _amax_or_max(sums, d1, ord > 0, keepdim)


def norm(
    input: Tensor,
    ord: Any = None,
    dim: Any = None,
    keepdim: bool = False,
    *,
    out: Any = None,
    dtype: Any = None,
) -> Tensor:
    """``vector_norm`` or ``matrix_norm`` as ``dim`` and ``ord`` select: a 1-element ``dim``
    (or a 1-D input) gives a vector norm, a 2-element ``dim`` (or a 2-D input with ``ord``)
    a matrix norm; with neither, the 2-norm of all elements.

    Example::

        >>> glassgrad.linalg.norm(glassgrad.tensor([[3.0, 4.0]]))
        tensor(5.)
    """
    data = check_tensor(input, "linalg.norm", "input")._data
    if out is not None:
        return composite_out(
            "linalg.norm", out, lambda: norm(input, ord, dim, keepdim, dtype=dtype)
        )
    if dim is not None:
        dims = (dim,) if isinstance(dim, (int, np.integer)) else tuple(dim)
        if len(dims) == 1:
            return vector_norm(input, 2 if ord is None else ord, dims, keepdim, dtype=dtype)
        if len(dims) == 2:
            return matrix_norm(input, "fro" if ord is None else ord, dims, keepdim, dtype=dtype)
        raise RuntimeError(
            f"linalg.norm: If dim is specified, it must be of length 1 or 2. Got {list(dims)}"
        )
    if ord is None:
        return vector_norm(input, 2, None, keepdim, dtype=dtype)
    if data.ndim not in (1, 2):
        raise RuntimeError(
            "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got "
            f"{data.ndim}D."
        )
    if data.ndim == 1 and not isinstance(ord, str):
        return vector_norm(input, ord, None, keepdim, dtype=dtype)
    return matrix_norm(input, ord, (-2, -1), keepdim, dtype=dtype)


# --- inv, det, slogdet, logdet ------------------------------------------------------------


class LinalgInvExBackward0(Op):
    """out = A^-1; gA = -A^-T grad A^-T"""

    saves_output = True

    def forward(self, a, check_errors=True):
        try:
            return np.linalg.inv(a)
        except np.linalg.LinAlgError:
            if not check_errors:  # inv_ex: LAPACK's inf/nan, the zero pivot in its info
                return lu_solve_arrays(
                    *lu_arrays(a)[:2],
                    np.broadcast_to(np.eye(a.shape[-1], dtype=a.dtype), a.shape),
                    True,
                    False,
                )
            raise singular_error("linalg.inv", a) from None

    def backward(self, F, grad):
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
    check_square("linalg.inv", check_tensor(A, "linalg.inv", "A")._data)
    result = LinalgInvExBackward0.apply(A)
    return out_result("linalg_inv", out, result, (A,), exact=True, autograd_op="linalg_inv_ex")


def _unsqueeze2(F: Any, x: Any) -> Any:
    return F.unsqueeze(F.unsqueeze(x, -1), -1)


def _cofactor(a: np.ndarray) -> np.ndarray:
    """The cofactor matrix adj(A)^T, from the SVD, defined for singular A too."""
    u, s, vh = np.linalg.svd(a)
    ones = np.ones(s.shape[:-1] + (1,), dtype=s.dtype)
    before = np.cumprod(np.concatenate([ones, s[..., :-1]], axis=-1), axis=-1)
    after = np.cumprod(np.concatenate([ones, s[..., :0:-1]], axis=-1), axis=-1)[..., ::-1]
    sign = np.linalg.det(u) * np.linalg.det(vh)
    return _unsqueeze_arr(sign) * np.matmul(u * np.expand_dims(before * after, -2), vh)


def _unsqueeze_arr(x: np.ndarray) -> np.ndarray:
    return np.expand_dims(np.asarray(x), (-1, -2))


class LinalgDetBackward0(Op):
    """out = det(A); gA = grad * det(A) * A^-T (the cofactor matrix if A is singular)"""

    saved_inputs = (0,)
    saves_output = True

    def forward(self, a):
        return np.asarray(np.linalg.det(a))

    def backward(self, F, grad):
        a, det_a = self.saved
        if a.shape[-1] <= 1:
            # det of a 1x1 matrix is its entry (a 0x0 one is 1): the gradient is grad itself,
            # as PyTorch's shortcut gives it (not tied to A under create_graph).
            if a.shape[-1]:
                return F.reshape(grad, (*grad.shape, 1, 1))
            return F.zeros(tuple(a.shape), array_of(a).dtype)
        if isinstance(a, Tensor):
            try:
                inverse = LinalgInvExBackward0.apply(a)
            except LinAlgError:
                raise RuntimeError(
                    "linalg.det: the derivative of the gradient (create_graph=True) at a "
                    "singular matrix is not supported"
                ) from None
            return _unsqueeze2(F, grad * det_a) * F.mT(inverse)
        try:
            inverse = np.linalg.inv(a)
        except np.linalg.LinAlgError:
            return _unsqueeze_arr(grad) * _cofactor(a)
        return _unsqueeze_arr(grad * det_a) * swap(inverse)


def det(A: Tensor, *, out: Any = None) -> Tensor:
    """The determinant of a square matrix (or of each in a batch).

    Example::

        >>> glassgrad.linalg.det(glassgrad.tensor([[2.0, 1.0], [1.0, 3.0]]))
        tensor(5.)
    """
    check_square("linalg.det", check_tensor(A, "linalg.det", "A")._data)
    result = LinalgDetBackward0.apply(A)
    return out_result("linalg_det", out, result, (A,), exact=True, autograd_op="_linalg_det")


class LinalgSlogdetBackward0(Op):
    """(sign, log|det A|); the gradient of log|det A| is A^-T (sign has none)"""

    saved_inputs = (0,)
    saved_outputs = (0,)  # the sign, as PyTorch saves it

    def forward(self, a):
        sign, logabsdet = np.linalg.slogdet(a)
        return np.asarray(sign, dtype=a.dtype), np.asarray(logabsdet, dtype=a.dtype)

    def backward(self, F, grads):
        a, _ = self.saved
        grad = grads[1]
        return _unsqueeze2(F, grad) * F.mT(LinalgInvExBackward0.call(a))


def _slogdet(A: Tensor, op: str) -> tuple:
    check_square(op, check_tensor(A, op, "A")._data)
    return LinalgSlogdetBackward0.apply(A)


def slogdet(A: Tensor, *, out: Any = None) -> tuple:
    """``(sign, logabsdet)`` with ``det(A) = sign * exp(logabsdet)``, stable for large or
    tiny determinants.

    Example::

        >>> glassgrad.linalg.slogdet(glassgrad.tensor([[-2.0, 0.0], [0.0, 3.0]])).logabsdet
        tensor(1.7918)
    """
    result = linalg_slogdet(*_slogdet(A, "linalg.slogdet"))
    return out_result(
        "linalg_slogdet", out, result, (A,), exact=True, autograd_op="_linalg_slogdet"
    )


def _slogdet_top(input: Tensor, *, out: Any = None) -> tuple:
    """``torch.slogdet``: as ``linalg.slogdet``, named ``slogdet``."""
    result = slogdet_result(*_slogdet(input, "linalg.slogdet"))
    return out_result("slogdet", out, result, (input,), exact=True, autograd_op="_linalg_slogdet")


def logdet(input: Tensor) -> Tensor:
    """``log(det(input))``: nan for a negative determinant, -inf for a zero one.

    Example::

        >>> glassgrad.logdet(glassgrad.tensor([[2.0, 0.0], [0.0, 3.0]]))
        tensor(1.7918)
    """
    sign, logabsdet = _slogdet(input, "logdet")
    return where(sign._data < 0, math.nan, logabsdet)


# --- solve ------------------------------------------------------------------------------


class LinalgSolveExBackward0(Op):
    """X with A X = B (or X A = B if not ``left``); gB = solve(A^T, grad), gA = -gB X^T"""

    saved_inputs = (0,)
    saves_output = True
    __slots__ = ("left", "vector")

    def forward(self, a, b, left=True, vector=False, check_errors=True):
        self.left, self.vector = left, vector
        try:
            if not left:
                return swap(np.linalg.solve(swap(a), swap(b)))
            if vector:
                return np.linalg.solve(a, b[..., None])[..., 0]
            return np.linalg.solve(a, b)
        except np.linalg.LinAlgError:
            if not check_errors:  # solve_ex: LAPACK's inf/nan, the zero pivot in its info
                lu_data, pivots, _ = lu_arrays(a)
                matrix_b = b[..., None] if vector else b
                x = lu_solve_arrays(lu_data, pivots, matrix_b, left, False)
                return x[..., 0] if vector else x
            _, prefix = batch_prefix(a, is_singular)
            raise LinAlgError(
                f"linalg.solve: {prefix}The solver failed because the input matrix is singular."
            ) from None

    def backward(self, F, grad):
        a, x = self.saved
        needs = self.needs_input_grad
        if self.left:
            grad_b = LinalgSolveExBackward0.call(F.mT(a), grad, left=True, vector=self.vector)
            if not needs[0]:
                return None, grad_b
            if self.vector:
                grad_a = -(F.unsqueeze(grad_b, -1) * F.unsqueeze(x, -2))
            else:
                grad_a = -F.matmul(grad_b, F.mT(x))
        else:
            grad_b = LinalgSolveExBackward0.call(F.mT(a), grad, left=False)
            if not needs[0]:
                return None, grad_b
            grad_a = -F.matmul(F.mT(x), grad_b)
        return grad_a, (grad_b if needs[1] else None)


def check_solve(op: str, A: Tensor, B: Tensor, left: bool) -> bool:
    """PyTorch's checks of ``linalg.solve``'s operands; whether B is a (batch of) vectors."""
    a = check_tensor(A, op, "A")._data
    b = check_tensor(B, op, "B", 2)._data
    check_square(op, a)
    check_floating(op, b)
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


# --- cholesky -------------------------------------------------------------------------------


def _first_bad_minor(m: np.ndarray) -> int:
    for order in range(1, m.shape[-1] + 1):
        try:
            np.linalg.cholesky(m[:order, :order])
        except np.linalg.LinAlgError:
            return order
    return m.shape[-1]


def _not_positive_definite(m: np.ndarray) -> bool:
    try:
        np.linalg.cholesky(m)
    except np.linalg.LinAlgError:
        return True
    return False


class LinalgCholeskyExBackward0(Op):
    """L with A = L L^T (U = L^T if ``upper``); the gradient is PyTorch's
    gA = L^-T Phi(L^T gL) L^-1, Phi taking the lower triangle and halving the diagonal,
    symmetrized."""

    saves_output = True
    __slots__ = ("upper",)
    op_name = "linalg.cholesky"

    def forward(self, a, upper=False, check_errors=True):
        self.upper = upper
        # A is symmetric by contract; reading its symmetric part makes the symmetric
        # gradient below the exact one (finite differences over single entries agree).
        symmetric = (a + swap(a)) * 0.5
        try:
            lower = np.linalg.cholesky(symmetric)
        except np.linalg.LinAlgError:
            if not check_errors:  # cholesky_ex: LAPACK's partial factor
                lower = cholesky_with_info(symmetric)[0]
                return np.ascontiguousarray(swap(lower)) if upper else lower
            matrix, prefix = batch_prefix(symmetric, _not_positive_definite)
            raise LinAlgError(
                f"{self.op_name}: {prefix}The factorization could not be completed because the "
                f"input is not positive-definite (the leading minor of order "
                f"{_first_bad_minor(matrix)} is not positive-definite)."
            ) from None
        return np.ascontiguousarray(swap(lower)) if upper else lower

    def backward(self, F, grad):
        (factor,) = self.saved
        lower, grad_lower = (F.mT(factor), F.mT(grad)) if self.upper else (factor, grad)
        n = grad.shape[-1]
        phi = F.where(np.tri(n, dtype=bool), F.matmul(F.mT(lower), grad_lower), 0.0)
        phi = (phi + F.mT(F.where(np.tri(n, k=-1, dtype=bool), phi, 0.0))) * 0.5
        left = LinalgSolveExBackward0.call(F.mT(lower), phi)  # L^-T phi
        return LinalgSolveExBackward0.call(lower, left, left=False)  # ... L^-1


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
    check_square("linalg.cholesky", check_tensor(A, "linalg.cholesky", "A")._data)
    result = LinalgCholeskyExBackward0.apply(A, upper=upper)
    return out_result(
        "linalg_cholesky", out, result, (A,), exact=True, autograd_op="linalg_cholesky_ex"
    )


def _cholesky_top(input: Tensor, upper: bool = False, *, out: Any = None) -> Tensor:
    """``torch.cholesky`` (deprecated in PyTorch for ``linalg.cholesky``)."""
    check_square("cholesky", check_tensor(input, "cholesky")._data)
    result = CholeskyBackward0.apply(input, upper=upper)
    return out_result("cholesky", out, result, (input,), exact=True)


def inverse(input: Tensor, *, out: Any = None) -> Tensor:
    """``torch.inverse``: the same as ``linalg.inv``."""
    return out_result("inverse", out, inv(input), (input,), exact=True, autograd_op="linalg_inv_ex")


def _det(input: Tensor) -> Tensor:
    """``torch.det``: the same as ``linalg.det``."""
    return det(input)


# --- registry ----------------------------------------------------------------------------


def _quietly(function: Any, *args: Any) -> Any:
    """Call ``function`` with its warnings silenced (PyTorch's deprecation of cholesky)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args)


register(
    "outer",
    outer,
    samples=lambda rng: [
        Sample((randn(rng, 3), randn(rng, 4))),
        Sample((randn(rng, 6)[::2], randn(rng, 2)), note="non-contiguous"),
        Sample((randn(rng, 0), randn(rng, 2))),
    ],
)
register(
    "ger",
    outer,
    samples=lambda rng: [Sample((randn(rng, 3), randn(rng, 2)))],
)
register(
    "tensordot",
    tensordot,
    methods=(),
    samples=lambda rng: [
        Sample((randn(rng, 2, 3, 4), randn(rng, 3, 4, 5))),
        Sample((randn(rng, 2, 3), randn(rng, 3, 2), 1)),
        Sample((randn(rng, 2, 3, 4), randn(rng, 4, 3, 2)), {"dims": ([1, 2], [1, 0])}),
        Sample((randn(rng, 2, 3), randn(rng, 4), 0)),
        Sample((randn(rng, 3, 2).T, randn(rng, 4, 3).T, ([1], [0])), note="non-contiguous"),
    ],
)
register(
    "addmm",
    addmm,
    samples=lambda rng: [
        Sample((randn(rng, 2, 4), randn(rng, 2, 3), randn(rng, 3, 4))),
        Sample((randn(rng, 4), randn(rng, 2, 3), randn(rng, 3, 4)), {"beta": 0.5, "alpha": 2}),
        Sample((randn(rng), randn(rng, 2, 3), randn(rng, 4, 3).T), note="0-d input, mT"),
        Sample((randn(rng, 2, 1), randn(rng, 2, 0), randn(rng, 0, 3)), {"beta": 0}),
    ],
)
register(
    "baddbmm",
    baddbmm,
    samples=lambda rng: [
        Sample((randn(rng, 2, 3, 4), randn(rng, 2, 3, 5), randn(rng, 2, 5, 4))),
        Sample((randn(rng, 4), randn(rng, 2, 3, 5), randn(rng, 2, 5, 4)), {"alpha": -1.5}),
        Sample(
            (randn(rng, 2, 3, 1), randn(rng, 2, 5, 3).transpose(0, 2, 1), randn(rng, 2, 5, 2)),
            {"beta": 2, "alpha": 0.5},
            note="non-contiguous",
        ),
    ],
)
register(
    "vector_norm",
    vector_norm,
    nodes=(LinalgVectorNormBackward0,),
    namespace="linalg",
    samples=lambda rng: [
        Sample((randn(rng, 3, 4),)),
        Sample((randn(rng, 3, 4), 1)),
        Sample((randn(rng, 3, 4), 3, 1)),
        Sample((randn(rng, 3, 4), 1.5, (0, 1)), {"keepdim": True}),
        Sample((randn(rng, 3, 4), 0.5, -1)),
        Sample((randn(rng, 3, 4), math.inf, 0)),
        Sample((randn(rng, 3, 4), -math.inf)),
        Sample((randn(rng, 3, 4), -1.0, 1)),
        Sample((randn(rng, 3, 4), 0, 1)),
        Sample((randn(rng, 4, 3).T,), {"dim": 0}, note="non-contiguous"),
        Sample((randn(rng),)),
        Sample((randn(rng, 0, 3), 2, 0)),
        Sample((np.zeros((2, 3)), 2, 1), gradgrad=False, note="zero norm: zero gradient"),
    ],
)
register(
    "matrix_norm",
    matrix_norm,
    namespace="linalg",
    samples=lambda rng: [
        Sample((randn(rng, 3, 4),)),
        Sample((randn(rng, 2, 3, 4), 1)),
        Sample((randn(rng, 3, 4), -1), {"keepdim": True}),
        Sample((randn(rng, 3, 4), math.inf)),
        Sample((randn(rng, 2, 3, 4), -math.inf, (0, 2))),
        Sample((randn(rng, 3, 4), "nuc")),
        Sample((randn(rng, 2, 4, 3), 2)),
        Sample((randn(rng, 3, 3), -2), {"keepdim": True}),
        Sample((randn(rng, 4, 3).T, "fro"), note="non-contiguous"),
    ],
)
register(
    "norm",
    norm,
    namespace="linalg",
    samples=lambda rng: [
        Sample((randn(rng, 3, 4),)),
        Sample((randn(rng, 4), 3)),
        Sample((randn(rng, 3, 4), 1)),
        Sample((randn(rng, 3, 4), "fro")),
        Sample((randn(rng, 3, 4), "nuc")),
        Sample((randn(rng, 2, 3, 4), None, 1)),
        Sample((randn(rng, 2, 3, 4), math.inf, (0, 2))),
        Sample((randn(rng, 2, 3, 4), None, (1, 2)), {"keepdim": True}),
    ],
)
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
_det_samples = lambda rng: [  # noqa: E731
    Sample((invertible(rng, 3, 3),)),
    Sample((randn(rng, 2, 3, 3),), note="batched"),
    Sample((randn(rng, 4, 4).T,), note="non-contiguous"),
    Sample((randn(rng, 1, 1),)),
    Sample((np.zeros((0, 0)),)),
]
register("det", det, nodes=(LinalgDetBackward0,), namespace="linalg", samples=_det_samples)
register("det", _det, nodes=(LinalgDetBackward0,), samples=_det_samples)
_slogdet_samples = lambda rng: [  # noqa: E731
    Sample((invertible(rng, 3, 3),)),
    Sample((randn(rng, 2, 3, 3),), note="batched, signs"),
    Sample((randn(rng, 4, 4).T,), note="non-contiguous"),
]
register(
    "slogdet",
    slogdet,
    nodes=(LinalgSlogdetBackward0,),
    namespace="linalg",
    samples=_slogdet_samples,
)
register("slogdet", _slogdet_top, nodes=(LinalgSlogdetBackward0,), samples=_slogdet_samples)
register(
    "logdet",
    logdet,
    samples=lambda rng: [
        Sample((spd(rng, 3, 3),)),
        Sample((spd(rng, 2, 3, 3),)),
        Sample((np.diag([-1.0, 2.0, 3.0]),), grad=False, note="negative det: nan"),
    ],
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
register(
    "cholesky",
    cholesky,
    nodes=(LinalgCholeskyExBackward0,),
    namespace="linalg",
    samples=lambda rng: [
        Sample((spd(rng, 3, 3),)),
        Sample((spd(rng, 2, 4, 4),), note="batched"),
        Sample((spd(rng, 3, 3),), {"upper": True}),
        Sample((np.zeros((0, 0)),)),
    ],
)
register(
    "cholesky",
    _cholesky_top,
    nodes=(CholeskyBackward0,),
    torch=lambda torch, A, upper=False: _quietly(torch.cholesky, A, upper),
    samples=lambda rng: [Sample((spd(rng, 3, 3),)), Sample((spd(rng, 3, 3), True))],
)

for _alias, _public in ((_det, "det"), (_slogdet_top, "slogdet"), (_cholesky_top, "cholesky")):
    _alias.__name__ = _alias.__qualname__ = _public

TENSOR_METHODS = {
    "addmm_": addmm_,
    "baddbmm_": baddbmm_,
}
