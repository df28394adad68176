"""Products of vectors and chains of matrices: ``outer``, ``tensordot``, ``linalg.multi_dot`` (``torch.chain_matmul``),
``linalg.vecdot``, ``linalg.cross`` (and ``torch.cross``), ``linalg.matmul``, and
``torch.inner``, ``vdot``.

``multi_dot``, ``vecdot``, ``inner`` are PyTorch's composites (mm in the cheapest order, a sum
of products, tensordot); ``cross`` and ``vdot`` are nodes of their own.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from .._dtype import c_type_name, scalar_type_name
from .._fma import fma
from .._strides import row_major
from .._tensor import Tensor
from ..autograd.op import Op
from ._common import check_tensor, moveaxis, wrap_dim
from ._out import composite_out, out_result
from ._registry import Sample, register
from ._samples import randn
from .arithmetic import conj_of, mul
from .complex import conj
from .conversion import clone
from .linalg import matmul, mm
from .reduction import sum as reduce_sum
from .shape import permute, reshape, unsqueeze, view

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
    result = reshape(mm(left, right), shape)
    if out is None:
        return result
    if isinstance(out, Tensor) and out._data.dtype != result._data.dtype:
        raise RuntimeError(
            "tensordot: Expected the output tensor to have dtype "
            f"{scalar_type_name(result._data.dtype)}, but got an output tensor with dtype "
            f"{scalar_type_name(out._data.dtype)}"
        )
    return composite_out("tensordot", out, lambda: result)  # copied in, as PyTorch's


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


__all__ = [
    "outer",
    "tensordot",
    "multi_dot",
    "chain_matmul",
    "vecdot",
    "cross",
    "cross_top",
    "inner",
    "vdot",
]


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
    product = _multiply(matrices, split, 0, len(matrices) - 1)
    # PyTorch views the matrix product as the output shape, a vector end dropping its dim.
    rows = () if first_vector else product._data.shape[:1]
    result = view(product, (*rows, *(() if last_vector else product._data.shape[1:])))
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
    product = mul(conj(x), y)  # conj: a no-op, no node, for real x
    # PyTorch's out= kernel is sum's, whose autograd check names it.
    return out_result("sum", out, reduce_sum(product, dim), (product,))


class LinalgCrossBackward0(Op):
    """out = input x other along ``dim``; g_input = other x grad, g_other = grad x input"""

    dim: Any

    holomorphic = True

    saved_inputs: tuple[int, ...] = (0, 1)
    saved_for: tuple[tuple[int, ...], ...] = ((1,), (0,))
    __slots__ = ("dim",)

    @row_major
    def forward(self, a: Any, b: Any, dim: Any = -1) -> Any:
        self.dim = dim
        shape = np.broadcast_shapes(a.shape, b.shape)
        # PyTorch's kernel, a * b - c * d per component, compiled with fused multiply-add: for
        # floats fma(a, b, -(c * d)) (cross(v, v) is the products' rounding error, not 0);
        # without np.cross's argument handling (most of its time on small vectors).
        a, b = (
            moveaxis(np.broadcast_to(a, shape), dim, -1),
            moveaxis(np.broadcast_to(b, shape), dim, -1),
        )
        a0, a1, a2, b0, b1, b2 = a[..., 0], a[..., 1], a[..., 2], b[..., 0], b[..., 1], b[..., 2]
        out = np.empty(a.shape, np.promote_types(a.dtype, b.dtype))
        fused = out.dtype.kind == "f" and out.dtype.itemsize >= 4
        components = ((a1, b2, a2, b1), (a2, b0, a0, b2), (a0, b1, a1, b0))
        for i, (x, y, z, w) in enumerate(components):
            out[..., i] = (
                fma(x, y, -(z * w).astype(out.dtype), out.dtype) if fused else x * y - z * w
            )
        return moveaxis(out, -1, dim)

    def backward(self, F: Any, grad: Any) -> Any:
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


# --- inner, vdot, linalg.matmul -------------------------------------------------------


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


class VdotBackward0(Op):
    """out = sum(conj(a) * b) of two vectors; g_a = conj(grad) * b, g_b = grad * a (anti-linear
    in a: not a holomorphic op)."""

    saved_inputs: tuple[int, ...] = (0, 1)
    saved_for: tuple[tuple[int, ...], ...] = ((1,), (0,))

    def forward(self, a: Any, b: Any) -> Any:
        return np.asarray(np.vdot(a, b))

    def backward(self, F: Any, grad: Any) -> Any:
        a, b = self.saved
        needs = self.needs_input_grad
        return (conj_of(F, grad) * b if needs[0] else None, grad * a if needs[1] else None)


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


# --- registry ----------------------------------------------------------------------------

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
    "chain_matmul",
    chain_matmul,
    methods=(),
    samples=lambda rng: [
        Sample((randn(rng, 3, 4), randn(rng, 4, 2))),
        Sample((randn(rng, 2, 3), randn(rng, 3, 4), randn(rng, 4, 2))),
    ],
)
linalg_matmul.__name__ = linalg_matmul.__qualname__ = "matmul"
