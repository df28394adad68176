"""Norms: ``linalg.vector_norm``, ``linalg.matrix_norm`` and ``linalg.norm`` (PyTorch's
LinalgVectorNormBackward0; the matrix norms are composites of it, of amax and of svdvals), and
``vector_norm_backward``, which cdist, dist and renorm share.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._dtype import scalar_type_name, to_numpy_dtype
from .._tensor import Tensor
from ..autograd.op import Op
from ._common import check_tensor, wrap_dim, wrap_dims
from ._linalg_common import (
    check_floating,
    check_full_precision,
)
from ._out import composite_out, out_result
from ._registry import Sample, register
from ._samples import randn
from .decompositions import svdvals
from .masking import masked_zero
from .reduction import max as reduce_max
from .reduction import min as reduce_min
from .reduction import sum as reduce_sum
from .shape import permute

__all__ = ["vector_norm", "matrix_norm", "norm"]


# --- norms ----------------------------------------------------------------------------------


class LinalgVectorNormBackward0(Op):
    """out = (sum |x|^ord)^(1/ord) over ``dim`` (max |x| for inf, count of non-zeros for 0);
    real, also for complex x (|x| its modulus)"""

    dim: Any
    keepdim: Any
    ord: Any

    saved_inputs: tuple[int, ...] = (0,)
    saves_output = True
    __slots__ = ("ord", "dim", "keepdim")

    def forward(self, x: Any, ord: Any, dim: Any, keepdim: Any, dtype: Any = None) -> Any:
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
        return np.asarray(out, dtype=x.real.dtype)

    def backward(self, F: Any, grad: Any) -> Any:
        x, norm = self.saved
        return vector_norm_backward(F, grad, x, norm, self.ord, self.dim, self.keepdim)


def vector_norm_backward(
    F: Any, grad: Any, x: Any, norm: Any, p: float, dim: tuple[int, ...] | None, keepdim: bool
) -> Any:
    """The gradient of ``vector_norm(x, p, dim, keepdim) = norm`` (PyTorch's norm_backward);
    shared by the ops whose result is such a norm (dist, cdist). Written with sgn(x) = x/|x|,
    it is also the conjugate-Wirtinger gradient for complex x. None for p = 0 (a count):
    PyTorch's undefined gradient, so the input gets none (not zeros)."""
    xv = x._data if isinstance(x, Tensor) else x
    nv = norm._data if isinstance(norm, Tensor) else norm
    if not keepdim and dim is not None:
        grad = F.unsqueeze_dims(grad, dim)
        norm = F.unsqueeze_dims(norm, dim)
        nv = np.expand_dims(nv, dim)
    if p == 0:
        return None
    if p == 1:
        return F.sgn(x) * grad
    if math.isinf(p):
        # The gradient is shared evenly among the entries that reach the extremum.
        hits = np.abs(xv) == nv
        share = hits / np.maximum(np.sum(hits, axis=dim, keepdims=True), 1)
        return F.sgn(x) * grad * share.astype(nv.dtype)
    # PyTorch's norm_backward, operation for operation: its masks come after the
    # division, so a zero norm gives a zero gradient but a NaN second derivative.
    zero = nv == 0
    with np.errstate(divide="ignore", invalid="ignore"):
        if p == 2:
            return grad * masked_zero(x / norm, zero)
        if p < 1:
            scaled = F.sgn(x) * masked_zero(F.abs(x) ** (p - 1), xv == 0)
            return scaled * grad * norm ** (1 - p)
        scale = masked_zero(grad / norm ** (p - 1), zero)
        if p < 2:
            return F.sgn(x) * F.abs(x) ** (p - 1) * scale
        return x * F.abs(x) ** (p - 2) * scale


def norm_dtype(op: str, x: np.ndarray, dtype: Any) -> np.dtype | None:
    check_floating(op, x, complex_ok=True)
    if dtype is None:
        return None
    target = to_numpy_dtype(dtype)
    if target.kind not in "fc":
        raise RuntimeError(
            f"{op}: dtype should be floating point or complex, but got {scalar_type_name(target)}"
        )
    if x.dtype.kind == "c" and target.kind != "c":
        raise RuntimeError(
            f"{op}: dtype should be complex for complex inputs, but got {scalar_type_name(target)}"
        )
    if x.dtype.kind == "f" and target.kind != "f":
        raise RuntimeError(
            f"{op}: dtype should be real for real inputs, but got {scalar_type_name(target)}"
        )
    if np.promote_types(x.dtype, target) != target:
        raise RuntimeError(
            f"{op}: the dtype of the input ({scalar_type_name(x.dtype)}) should be convertible "
            f"without narrowing to the specified dtype ({scalar_type_name(target)})"
        )
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
    target = norm_dtype("linalg.vector_norm", data, dtype)
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
    norm_dtype(op, data, dtype)
    if data.ndim < 2:
        raise RuntimeError(f"{op}: The input tensor A must have at least 2 dimensions.")
    d0, d1 = _matrix_dims(op, data.ndim, dim)
    if ord == "fro":
        return vector_norm(A, 2, (d0, d1), keepdim, dtype=dtype)
    if ord == "nuc" or ord in (2, -2):
        check_full_precision(op, data)
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
