"""Reductions with gradient formulas of their own: prod (with PyTorch's handling of zeros),
logsumexp, and the top-level ``norm``.

Backward formulas that need a reduction of their own call it through ``Op.call`` so that they
stay differentiable under ``create_graph``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._dtype import default_numpy_float
from .._tensor import Tensor
from ..autograd.op import Op
from ._common import array_of, check_tensor, wrap_dim, wrap_dims
from ._registry import Sample, register
from ._samples import randn
from .norms import LinalgVectorNormBackward0, norm_dtype
from .reduction import _integer_accumulator, _restore
from .scan import cumprod
from .shape import cat
from .shape_reorder import flip
from .shape_views import narrow

# --- prod ----------------------------------------------------------------------------------


def _exclusive_products(x: Any, dim: int) -> Any:
    """The product of every other element of ``x``'s slice along ``dim``, as PyTorch's
    ``prod_safe_zeros_backward`` forms it: the exclusive cumulative product from the front
    times the one from the back (``[b*c, a*c, a*b]`` for ``[a, b, c]``). No division, so exact
    with zeros; and a NaN reaches the other elements of its slice only, as in PyTorch."""
    n = x.shape[dim]
    if n == 1:  # nothing else in the slice: a constant one, whatever x holds
        ones = np.ones_like(array_of(x))
        return Tensor._from_array(ones) if isinstance(x, Tensor) else ones
    if not isinstance(x, Tensor):
        ones = np.ones_like(np.take(x, [0], axis=dim))
        front = np.cumprod(np.concatenate([ones, np.take(x, range(n - 1), axis=dim)], dim), dim)
        rest = np.flip(np.take(x, range(1, n), axis=dim), dim)
        back = np.flip(np.cumprod(np.concatenate([ones, rest], dim), dim), dim)
        return front * back
    ones = Tensor._from_array(np.ones_like(np.take(x._data, [0], axis=dim)))
    front = cumprod(cat([ones, narrow(x, dim, 0, n - 1)], dim), dim)
    back = flip(cumprod(cat([ones, flip(narrow(x, dim, 1, n - 1), (dim,))], dim), dim), (dim,))
    return front * back


def _prod_backward(F: Any, grad: Any, x: Any, out: Any, dim: int | None) -> Any:
    """PyTorch's ``prod_backward``: ``grad * (out / x)`` without zeros; with zeros, the
    exclusive products (along ``dim``, or over the flattened input when ``dim`` is None); and
    for the whole product with two zeros or more, without a graph, zeros."""
    values = array_of(x)
    zero = values == 0
    if not zero.any():
        return grad * (out / x)
    if dim is not None:
        return grad * _exclusive_products(x, dim)
    if not isinstance(grad, Tensor) and np.count_nonzero(zero) > 1:
        return np.zeros(values.shape, np.result_type(grad, values))
    flat = F.reshape(x, (-1,))
    return grad * F.reshape(_exclusive_products(flat, 0), values.shape)


class ProdBackward0(Op):
    """out = product of all elements"""

    holomorphic = True

    saved_inputs: tuple[int, ...] = (0,)
    saves_output = True

    def forward(self, x: Any, dtype: Any = None) -> Any:
        x = _integer_accumulator(x, dtype)
        return np.asarray(np.prod(x, dtype=x.dtype))  # int32, bool (and): not NumPy's int64

    def backward(self, F: Any, grad: Any) -> Any:
        x, out = self.saved
        if not array_of(x).ndim:
            return grad
        return _prod_backward(F, grad, x, out, None)


class ProdBackward1(Op):
    """out = product over ``dim``"""

    dim: Any
    keepdim: Any

    holomorphic = True

    saved_inputs: tuple[int, ...] = (0,)
    saves_output = True
    __slots__ = ("dim", "keepdim")

    def forward(self, x: Any, dim: Any, keepdim: Any = False, dtype: Any = None) -> Any:
        self.dim, self.keepdim = dim, keepdim
        axis = dim if x.ndim else None
        x = _integer_accumulator(x, dtype)
        return np.asarray(np.prod(x, axis=axis, dtype=x.dtype, keepdims=keepdim))

    def backward(self, F: Any, grad: Any) -> Any:
        x, out = self.saved
        if not array_of(x).ndim:
            return grad
        dims = (self.dim,)
        grad = _restore(F, grad, dims, self.keepdim)
        out = _restore(F, out, dims, self.keepdim)
        return _prod_backward(F, grad, x, out, self.dim)


def prod(
    input: Tensor, dim: int | None = None, keepdim: bool = False, *, dtype: Any = None
) -> Tensor:
    """Product of all elements, or over one ``dim``; integers and bools multiply as int64.

    The gradient is exact when elements are zero (one zero: only it gets a gradient; two or
    more: all zero), and differentiable again, as in PyTorch.

    Example::

        >>> glassgrad.prod(glassgrad.tensor([[1.0, 2.0], [3.0, 4.0]]), dim=1)
        tensor([ 2., 12.])
    """
    check_tensor(input, "prod")
    if dim is None:
        return ProdBackward0.apply(input, dtype=dtype)
    if not isinstance(dim, (int, np.integer)) or isinstance(dim, bool):
        raise TypeError(
            f"prod(): argument 'dim' must be int, not {type(dim).__name__} (PyTorch reduces "
            "one dim at a time)"
        )
    d = wrap_dim(dim, input._data.ndim, "prod")
    return ProdBackward1.apply(input, dim=d, keepdim=keepdim, dtype=dtype)


def _with_zeros(rng: np.random.Generator, count: int) -> np.ndarray:
    x = randn(rng, 3, 4)
    x[1, :count] = 0.0
    return x


register(
    "prod",
    prod,
    nodes=(ProdBackward0, ProdBackward1),
    samples=lambda rng: [
        Sample((randn(rng, 3, 4),)),
        Sample((randn(rng, 3, 4), 1)),
        Sample((randn(rng, 3, 4), 0), {"keepdim": True}),
        Sample((randn(rng, 4, 3).T, -1)),
        Sample((randn(rng),)),
        Sample((randn(rng), 0)),
        Sample((randn(rng, 0, 3), 1)),
        Sample((_with_zeros(rng, 1), 1), note="one zero in a row"),
        Sample((_with_zeros(rng, 2), 1), note="two zeros in a row"),
        Sample((_with_zeros(rng, 3), 1), note="three zeros in a row"),
        Sample((_with_zeros(rng, 1),), note="one zero overall"),
        Sample((_with_zeros(rng, 2),), note="two zeros overall"),
        Sample((np.array([[1, 2], [3, 4]]), 0), grad=False),
        Sample((np.array([True, False, True]),), grad=False),
    ],
)


# --- norm ------------------------------------------------------------------------------------


def norm(
    input: Tensor,
    p: Any = "fro",
    dim: Any = None,
    keepdim: bool = False,
    out: Any = None,
    dtype: Any = None,
) -> Tensor:
    """Vector p-norm over ``dim`` (all elements by default): ``(sum |x|^p)^(1/p)``.

    ``p`` is a number (``inf``/``-inf``: the largest/smallest magnitude, 0: the count of
    nonzeros), ``'fro'`` (the 2-norm) or ``'nuc'`` (the nuclear norm of a matrix). The
    gradient at 0 is 0, as in PyTorch.

    Example::

        >>> glassgrad.norm(glassgrad.tensor([3.0, 4.0]))
        tensor(5.)
    """
    check_tensor(input, "norm")
    if out is not None or p == "nuc" or (isinstance(p, str) and p != "fro"):
        # PyTorch's torch.norm: linalg's vector_norm, or matrix_norm over dim (all dims by
        # default) for the other string orders (an error unless 2 dims)
        from .norms import matrix_norm, vector_norm

        dims = [dim] if isinstance(dim, int) else dim
        if isinstance(p, str) and (p != "fro" or (dims is not None and len(dims) > 2)):
            dims = list(range(input._data.ndim)) if dims is None else dims
            return matrix_norm(input, p, dims, keepdim, dtype=dtype, out=out)
        order = 2.0 if p is None or p == "fro" else p
        return vector_norm(input, order, dims, keepdim, dtype=dtype, out=out)
    if isinstance(p, str):
        p = 2.0
    elif p is None:
        p = 2.0
    values = input._data
    target = norm_dtype("linalg.vector_norm", values, dtype)  # PyTorch's vector_norm's checks
    dims = wrap_dims(dim, values.ndim, "norm")
    return LinalgVectorNormBackward0.apply(
        input, ord=float(p), dim=dims, keepdim=keepdim, dtype=target
    )


register(
    "norm",
    norm,
    nodes=(LinalgVectorNormBackward0,),
    samples=lambda rng: [
        Sample((randn(rng, 3, 4),)),
        Sample((randn(rng, 3, 4), 2, 1)),
        Sample((randn(rng, 3, 4), 1, 0, True)),
        Sample((randn(rng, 3, 4), 3)),
        Sample((randn(rng, 3, 4), 1.5, 1)),
        Sample((randn(rng, 3, 4), 0.5, 1)),
        Sample((randn(rng, 3, 4), math.inf, 1)),
        Sample((randn(rng, 3, 4), -math.inf)),
        Sample((randn(rng, 3, 4), 0, 1)),
        Sample((randn(rng, 2, 3, 4), "fro", (1, 2))),
        Sample((randn(rng, 4, 3).T,), {"p": 4, "dim": -1, "keepdim": True}),
        Sample((randn(rng),)),
        Sample((randn(rng, 0, 3), 2, 0)),
        Sample((randn(rng, 3, 4), "nuc")),
        Sample((randn(rng, 2, 3, 4), "nuc", (0, 2), True)),
    ],
)


# --- logsumexp -------------------------------------------------------------------------------


class LogsumexpBackward0(Op):
    """out = log(sum(exp(x))) over ``dim``, shifted by the max (of the real parts, for complex
    inputs, as PyTorch) so that 1e4 stays finite"""

    dim: Any
    keepdim: Any

    saved_inputs: tuple[int, ...] = (0,)
    saves_output = True
    holomorphic = True
    __slots__ = ("dim", "keepdim")

    def forward(self, x: Any, dim: Any, keepdim: Any = False) -> Any:
        self.dim, self.keepdim = dim, keepdim
        x = x if x.dtype.kind in "fc" else x.astype(default_numpy_float())
        if x.size == 0:
            total = np.sum(np.exp(x), axis=dim, keepdims=keepdim)
            with np.errstate(divide="ignore"):
                return np.log(total)
        shift = np.max(x.real, axis=dim, keepdims=True)
        shift = np.where(np.isinf(shift), 0.0, shift).astype(x.real.dtype)
        total = np.sum(np.exp(x - shift), axis=dim, keepdims=True)
        with np.errstate(divide="ignore"):
            out = np.log(total) + shift
        return out if keepdim else np.squeeze(out, axis=dim)

    def backward(self, F: Any, grad: Any) -> Any:
        x, out = self.saved
        grad = _restore(F, grad, self.dim, self.keepdim)
        out = _restore(F, out, self.dim, self.keepdim)
        return grad * F.exp(x - out)


def logsumexp(input: Tensor, dim: Any, keepdim: bool = False) -> Tensor:
    """``log(sum(exp(input)))`` over ``dim``, computed stably (inputs of magnitude 1e4 and more
    give finite values and gradients).

    Example::

        >>> glassgrad.logsumexp(glassgrad.tensor([1e4, 1e4]), dim=0)
        tensor(10000.6934)
    """
    check_tensor(input, "logsumexp")
    dims = wrap_dims(dim, input._data.ndim, "logsumexp")
    if not dims and input._data.ndim:
        dims = tuple(range(input._data.ndim))
    return LogsumexpBackward0.apply(input, dim=dims or None, keepdim=keepdim)


register(
    "logsumexp",
    logsumexp,
    nodes=(LogsumexpBackward0,),
    samples=lambda rng: [
        Sample((randn(rng, 3, 4), 1)),
        Sample((randn(rng, 3, 4), 0, True)),
        Sample((randn(rng, 2, 3, 4), (0, 2))),
        Sample((randn(rng, 4, 3).T,), {"dim": -1}),
        Sample((1e4 * randn(rng, 3, 4), 1), note="large logits stay finite"),
        Sample((randn(rng), 0)),
        Sample((randn(rng, 0, 3), 0), fd=False, note="-inf: no finite differences"),
        Sample((np.array([[1, 2], [3, 4]]), 1), grad=False),
    ],
)
