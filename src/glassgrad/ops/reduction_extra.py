"""Reductions beyond the core set: prod, amax/amin, argmax/argmin, var/std (and with the
mean), norm, logsumexp, cumsum/cumprod, all/any.

Each op is one Node class named as PyTorch names its grad_fn, one public function and one
registry row. Backward formulas that need a reduction of their own call it through
``Op.call`` so that they stay differentiable under ``create_graph``.
"""

from __future__ import annotations

import builtins
import math
import warnings
from typing import Any

import numpy as np

from .._dtype import default_numpy_float, to_numpy_dtype
from .._tensor import Tensor
from ..autograd.op import Op, apply_inplace
from ._common import array_of, check_tensor, wrap_dim, wrap_dims
from ._registry import NoGrad, Sample, register
from ._samples import randn
from .linalg_extra import LinalgVectorNormBackward0


def _restore(F: Any, value: Any, dims: tuple | None, keepdim: bool) -> Any:
    """A reduced result with its reduced dims put back as size 1 (for broadcasting)."""
    if keepdim or dims is None:
        return value
    return F.unsqueeze_dims(value, dims)


def _reduced_count(shape: tuple, dims: tuple | None) -> int:
    if dims is None:
        return int(math.prod(shape))
    return int(math.prod(shape[d] for d in dims))


def _axis(dims: tuple | None) -> tuple | None:
    return None if dims is None else dims


def _empty_reduction_error(op: str, dims: tuple | None, shape: tuple) -> Exception | None:
    """PyTorch's error for max-like reductions over zero elements, or None if fine."""
    if dims is None or dims == ():
        if math.prod(shape) == 0:
            return RuntimeError(
                f"{op}(): Expected reduction dim to be specified for input.numel() == 0. "
                "Specify the reduction dim with the 'dim' argument."
            )
        return None
    for d in dims:
        if shape and shape[d] == 0:
            return IndexError(f"{op}(): Expected reduction dim {d} to have non-zero size.")
    return None


def _integer_accumulator(x: np.ndarray, dtype: Any) -> np.ndarray:
    """The input in the dtype the reduction runs in: ``dtype`` if given, int64 for integers."""
    if dtype is not None:
        return x.astype(to_numpy_dtype(dtype), copy=False)
    return x.astype(np.int64) if x.dtype.kind in "biu" else x


# --- prod ----------------------------------------------------------------------------------


def _prod_keepdim(x: Any, dims: tuple) -> Any:
    """Product over ``dims`` keeping them as size 1: arrays directly, Tensors as an op."""
    if not isinstance(x, Tensor):
        return np.prod(x, axis=dims, keepdims=True)
    if len(dims) == 1:
        return ProdBackward1.apply(x, dim=dims[0], keepdim=True)
    out = ProdBackward0.apply(x)
    return out.reshape((1,) * x.dim())


def _prod_backward(F: Any, grad: Any, x: Any, out: Any, dims: tuple) -> Any:
    """d prod / dx_i = product of the other elements, exact with zeros and twice differentiable.

    Without zeros it is out / x. Where a slice holds zeros, the product of its nonzero elements
    ``p`` gives the rest: with one zero, the zero's gradient is ``p`` and the others' is
    ``out / x`` (0, but with the right derivative through ``out``); with two zeros z1, z2 the
    gradient at z1 is ``p * x_z2`` (written ``p * (sum of the zeros - x_z1)`` so that it stays
    differentiable); with more, all are zero to second order.
    """
    values = array_of(x)
    zero = values == 0
    if not zero.any():
        return grad * out / x
    count = zero.sum(axis=dims, keepdims=True)
    x_safe = F.where(zero, 1.0, x)
    nonzero_product = _prod_keepdim(x_safe, dims)
    zeros_sum = F.sum(F.where(zero, x, 0.0), dims, True)
    at_zero = F.where(
        count == 1,
        nonzero_product,
        F.where(count == 2, nonzero_product * (zeros_sum - x), 0.0),
    )
    return grad * F.where(zero, at_zero, out / x_safe)


class ProdBackward0(Op):
    """out = product of all elements"""

    saved_inputs = (0,)
    saves_output = True

    def forward(self, x, dtype=None):
        return np.asarray(np.prod(_integer_accumulator(x, dtype)))

    def backward(self, F, grad):
        x, out = self.saved
        if not array_of(x).ndim:
            return grad
        dims = tuple(range(array_of(x).ndim))
        return _prod_backward(F, grad, x, out, dims)


class ProdBackward1(Op):
    """out = product over ``dim``"""

    saved_inputs = (0,)
    saves_output = True
    __slots__ = ("dim", "keepdim")

    def forward(self, x, dim, keepdim=False, dtype=None):
        self.dim, self.keepdim = dim, keepdim
        axis = dim if x.ndim else None
        return np.asarray(np.prod(_integer_accumulator(x, dtype), axis=axis, keepdims=keepdim))

    def backward(self, F, grad):
        x, out = self.saved
        if not array_of(x).ndim:
            return grad
        dims = (self.dim,)
        grad = _restore(F, grad, dims, self.keepdim)
        out = _restore(F, out, dims, self.keepdim)
        return _prod_backward(F, grad, x, out, dims)


def prod(input: Tensor, dim: int | None = None, keepdim: bool = False, *, dtype: Any = None):
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


# --- amax, amin, argmax, argmin --------------------------------------------------------------


class _AExtremum(Op):
    """Max or min over ``dim`` (all dims if empty); ties share the gradient evenly."""

    saved_inputs = (0,)
    saves_output = True
    __slots__ = ("dim", "keepdim")
    reduce: Any = None
    op = ""

    def forward(self, x, dim=(), keepdim=False):
        dims = dim or None
        error = _empty_reduction_error(self.op, dims, x.shape)
        if error is not None:
            raise error
        self.dim, self.keepdim = dims, keepdim
        return np.asarray(self.reduce(x, axis=dims, keepdims=keepdim))

    def backward(self, F, grad):
        x, out = self.saved
        xv = array_of(x)
        dims = self.dim
        out_values = array_of(out)
        if not self.keepdim and dims is not None:
            out_values = np.expand_dims(out_values, dims)
        mask = xv == out_values
        count = mask.sum(axis=dims, keepdims=True).astype(xv.dtype)
        # PyTorch's scale_grad_by_count: (grad / count) * mask.
        return _restore(F, grad, dims, self.keepdim) / count * mask.astype(xv.dtype)


class AmaxBackward0(_AExtremum):
    reduce = staticmethod(np.max)
    op = "amax"


class AminBackward0(_AExtremum):
    reduce = staticmethod(np.min)
    op = "amin"


def _a_extremum(name: str, node: type) -> Any:
    def op(input: Tensor, dim: Any = (), keepdim: bool = False) -> Tensor:
        check_tensor(input, name)
        dims = wrap_dims(dim, input._data.ndim, name) if dim != () else ()
        return node.apply(input, dim=dims or (), keepdim=keepdim)

    word = "maximum" if name == "amax" else "minimum"
    op.__name__ = op.__qualname__ = name
    op.__doc__ = (
        f"The {word} over ``dim`` (an int or tuple; all dims by default), values only.\n\n"
        f"Unlike ``{name[1:]}(dim)``, tied elements share the gradient evenly.\n\n"
        f"Example::\n\n    >>> glassgrad.{name}(glassgrad.tensor([[1.0, 5.0], [7.0, 2.0]]), dim=1)\n"
    )
    return op


amax = _a_extremum("amax", AmaxBackward0)
amin = _a_extremum("amin", AminBackward0)


def _arg_extremum(name: str, arg: Any) -> Any:
    def op(input: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:
        values = check_tensor(input, name)._data
        if values.dtype == np.bool_:
            raise RuntimeError(f"{name}(): does not support bool input")
        if dim is None:
            if values.size == 0:
                raise IndexError(
                    f"{name}(): Expected reduction dim to be specified for input.numel() == 0."
                )
            index = np.asarray(arg(values.reshape(-1)), dtype=np.int64)
            if keepdim:
                index = index.reshape((1,) * values.ndim)
            return Tensor._from_array(index)
        d = wrap_dim(dim, values.ndim, name)
        if not values.ndim:
            return Tensor._from_array(np.zeros((), dtype=np.int64))
        if values.shape[d] == 0:
            raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
        index = np.asarray(arg(values, axis=d), dtype=np.int64)
        return Tensor._from_array(np.expand_dims(index, d) if keepdim else index)

    word = "largest" if name == "argmax" else "smallest"
    op.__name__ = op.__qualname__ = name
    op.__doc__ = (
        f"Index of the {word} element (first one on ties; NaN counts as {word}), of the\n"
        f"flattened tensor or along ``dim``; an int64 tensor without gradient.\n\n"
        f"Example::\n\n    >>> glassgrad.{name}(glassgrad.tensor([[1.0, 5.0], [7.0, 2.0]]), dim=1)\n"
    )
    return op


argmax = _arg_extremum("argmax", np.argmax)
argmin = _arg_extremum("argmin", np.argmin)


def _ties(rng: np.random.Generator) -> np.ndarray:
    return np.array([[1.0, 3.0, 3.0], [2.0, 2.0, 0.0], [-1.0, -1.0, -1.0]])


def _a_extremum_samples(rng: np.random.Generator) -> list[Sample]:
    return [
        Sample((randn(rng, 3, 4),)),
        Sample((randn(rng, 3, 4), 1)),
        Sample((randn(rng, 3, 4), 0, True)),
        Sample((randn(rng, 2, 3, 4), (0, 2))),
        Sample((randn(rng, 4, 3).T,), {"dim": -1, "keepdim": True}),
        Sample((randn(rng),)),
        Sample((randn(rng, 0, 3), 1)),
        Sample((_ties(rng),), fd=False, note="ties share the gradient evenly"),
        Sample((_ties(rng), 1), fd=False, note="ties in rows"),
        Sample((np.array([[3, 1], [2, 5]]), 0), grad=False),
    ]


def _arg_samples(rng: np.random.Generator) -> list[Sample]:
    nan = np.array([[1.0, np.nan, 3.0], [2.0, 2.0, np.nan]])
    return [
        Sample((randn(rng, 3, 4),), grad=False),
        Sample((randn(rng, 3, 4), 1), grad=False),
        Sample((randn(rng, 3, 4), 0, True), grad=False),
        Sample((randn(rng, 3, 4),), {"keepdim": True}, grad=False),
        Sample((randn(rng),), grad=False),
        Sample((_ties(rng), 1), grad=False, note="first index on ties"),
        Sample((NoGrad(nan), 1), grad=False, note="NaN wins"),
        Sample((np.array([[3, 1], [2, 5]]), 0), grad=False),
    ]


register("amax", amax, nodes=(AmaxBackward0,), samples=_a_extremum_samples)
register("amin", amin, nodes=(AminBackward0,), samples=_a_extremum_samples)
register("argmax", argmax, differentiable=False, samples=_arg_samples)
register("argmin", argmin, differentiable=False, samples=_arg_samples)


# --- var, std, var_mean, std_mean ------------------------------------------------------------


def _variance_dims(input: Tensor, dim: Any, op: str) -> tuple | None:
    return wrap_dims(dim, input._data.ndim, op)


def _resolve_correction(op: str, unbiased: Any, correction: Any) -> float:
    if unbiased is not None and correction is not None:
        raise TypeError(
            f"{op}() received an invalid combination of arguments: give either 'unbiased' or "
            "'correction', not both"
        )
    if unbiased is not None:
        return 1 if unbiased else 0
    return 1 if correction is None else correction


def _variance_forward(x: np.ndarray, dims: tuple | None, correction: float, keepdim: bool, op):
    if x.dtype.kind != "f":
        raise RuntimeError("std and var only support floating point and complex dtypes")
    count = _reduced_count(x.shape, dims)
    dof = builtins.max(0, count - correction)
    if dof <= 0:
        warnings.warn(
            f"{op}(): degrees of freedom is <= 0. Correction should be strictly less than the "
            "reduction factor (input numel divided by output numel).",
            UserWarning,
            stacklevel=4,
        )
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = np.sum(x, axis=dims, keepdims=True) / x.dtype.type(count)
        centered = x - mean
        squares = np.sum(centered * centered, axis=dims, keepdims=keepdim)
        variance = np.asarray(squares / x.dtype.type(dof))
    if not keepdim:
        mean = np.squeeze(mean, axis=dims)
    return variance.astype(x.dtype, copy=False), np.asarray(mean, dtype=x.dtype)


def _var_backward(F, grad, x, dims, correction, keepdim) -> Any:
    """d var / dx = 2 / (N - correction) * (x - mean(x)), broadcast back over ``dims``."""
    xv = array_of(x)
    count = _reduced_count(xv.shape, dims)
    grad = _restore(F, grad, dims, keepdim)
    axes = tuple(range(xv.ndim)) if dims is None else dims
    mean = F.sum(x, axes, True) / builtins.max(count, 1)
    dof = count - correction
    if dof <= 0:
        mean_values = np.mean(xv, axis=axes, keepdims=True) if count else xv
        blowup = np.where(xv == mean_values, np.nan, np.inf).astype(xv.dtype)
        return grad * blowup
    return (2.0 / dof) * grad * (x - mean)


def _std_backward(F, grad, x, std, dims, correction, keepdim) -> Any:
    """d std = d var / (2 std), zero where std is zero (as PyTorch)."""
    std = _restore(F, std, dims, keepdim)
    zero = array_of(std) == 0
    std_safe = F.where(zero, 1.0, std)
    grad = F.where(zero, 0.0, _restore(F, grad, dims, keepdim) / (2.0 * std_safe))
    return _var_backward(F, grad, x, dims, correction, True)


def _mean_backward(F, grad, x, dims, keepdim) -> Any:
    xv = array_of(x)
    count = _reduced_count(xv.shape, dims)
    return F.expand(_restore(F, grad, dims, keepdim) / builtins.max(count, 1), xv.shape)


class VarBackward0(Op):
    saved_inputs = (0,)
    __slots__ = ("dim", "correction", "keepdim")

    def forward(self, x, dim=None, correction=1, keepdim=False):
        self.dim, self.correction, self.keepdim = dim, correction, keepdim
        return _variance_forward(x, dim, correction, keepdim, "var")[0]

    def backward(self, F, grad):
        (x,) = self.saved
        return _var_backward(F, grad, x, self.dim, self.correction, self.keepdim)


class StdBackward0(Op):
    saved_inputs = (0,)
    saves_output = True
    __slots__ = ("dim", "correction", "keepdim")

    def forward(self, x, dim=None, correction=1, keepdim=False):
        self.dim, self.correction, self.keepdim = dim, correction, keepdim
        return np.sqrt(_variance_forward(x, dim, correction, keepdim, "std")[0])

    def backward(self, F, grad):
        x, std = self.saved
        return _std_backward(F, grad, x, std, self.dim, self.correction, self.keepdim)


class VarMeanBackward0(Op):
    """(var, mean) in one node; both outputs are differentiable"""

    saved_inputs = (0,)
    __slots__ = ("dim", "correction", "keepdim")

    def forward(self, x, dim=None, correction=1, keepdim=False):
        self.dim, self.correction, self.keepdim = dim, correction, keepdim
        return _variance_forward(x, dim, correction, keepdim, "var_mean")

    def backward(self, F, grads):
        (x,) = self.saved
        grad_var, grad_mean = grads
        dims, keepdim = self.dim, self.keepdim
        return _var_backward(F, grad_var, x, dims, self.correction, keepdim) + _mean_backward(
            F, grad_mean, x, dims, keepdim
        )


class StdMeanBackward0(Op):
    """(std, mean) in one node; both outputs are differentiable"""

    saved_inputs = (0,)
    saved_outputs = (0,)  # the std, as PyTorch saves it
    __slots__ = ("dim", "correction", "keepdim")

    def forward(self, x, dim=None, correction=1, keepdim=False):
        self.dim, self.correction, self.keepdim = dim, correction, keepdim
        variance, mean = _variance_forward(x, dim, correction, keepdim, "std_mean")
        return np.sqrt(variance), mean

    def backward(self, F, grads):
        x, std = self.saved
        grad_std, grad_mean = grads
        dims, keepdim = self.dim, self.keepdim
        return _std_backward(F, grad_std, x, std, dims, self.correction, keepdim) + _mean_backward(
            F, grad_mean, x, dims, keepdim
        )


def _variance_arguments(op: str, input: Tensor, dim: Any, unbiased: Any, correction: Any):
    check_tensor(input, op)
    if isinstance(dim, bool):  # legacy var(input, unbiased)
        if unbiased is not None:
            raise TypeError(f"{op}(): got 'unbiased' twice (positionally and by keyword)")
        dim, unbiased = None, dim
    dims = _variance_dims(input, dim, op)
    return dims, _resolve_correction(op, unbiased, correction)


def var(
    input: Tensor,
    dim: Any = None,
    unbiased: bool | None = None,
    keepdim: bool = False,
    *,
    correction: float | None = None,
) -> Tensor:
    """Variance ``sum((x - mean)^2) / (N - correction)`` over ``dim`` (all by default).

    ``correction=1`` (default, Bessel's) or ``unbiased=False`` for ``correction=0``; the legacy
    forms ``var(x, unbiased)`` and ``var(x, dim, unbiased, keepdim)`` work as in PyTorch.

    Example::

        >>> glassgrad.var(glassgrad.tensor([1.0, 2.0, 3.0, 4.0]))
        tensor(1.6667)
    """
    dims, corr = _variance_arguments("var", input, dim, unbiased, correction)
    return VarBackward0.apply(input, dim=dims, correction=corr, keepdim=keepdim)


def std(
    input: Tensor,
    dim: Any = None,
    unbiased: bool | None = None,
    keepdim: bool = False,
    *,
    correction: float | None = None,
) -> Tensor:
    """Standard deviation, the square root of ``var`` (same arguments).

    Example::

        >>> glassgrad.std(glassgrad.tensor([1.0, 3.0]))
        tensor(1.4142)
    """
    dims, corr = _variance_arguments("std", input, dim, unbiased, correction)
    return StdBackward0.apply(input, dim=dims, correction=corr, keepdim=keepdim)


def var_mean(
    input: Tensor,
    dim: Any = None,
    unbiased: bool | None = None,
    keepdim: bool = False,
    *,
    correction: float | None = None,
) -> tuple:
    """``(var, mean)`` over the same dims, in one pass (same arguments as ``var``).

    Example::

        >>> glassgrad.var_mean(glassgrad.tensor([1.0, 3.0]))
        (tensor(2.), tensor(2.))
    """
    dims, corr = _variance_arguments("var_mean", input, dim, unbiased, correction)
    return VarMeanBackward0.apply(input, dim=dims, correction=corr, keepdim=keepdim)


def std_mean(
    input: Tensor,
    dim: Any = None,
    unbiased: bool | None = None,
    keepdim: bool = False,
    *,
    correction: float | None = None,
) -> tuple:
    """``(std, mean)`` over the same dims, in one pass (same arguments as ``std``).

    Example::

        >>> glassgrad.std_mean(glassgrad.tensor([1.0, 3.0]))
        (tensor(1.4142), tensor(2.))
    """
    dims, corr = _variance_arguments("std_mean", input, dim, unbiased, correction)
    return StdMeanBackward0.apply(input, dim=dims, correction=corr, keepdim=keepdim)


def _variance_samples(rng: np.random.Generator) -> list[Sample]:
    return [
        Sample((randn(rng, 3, 4),)),
        Sample((randn(rng, 3, 4), 1)),
        Sample((randn(rng, 3, 4), 0, False)),
        Sample((randn(rng, 3, 4), False)),
        Sample((randn(rng, 3, 4), 1, True, True)),
        Sample((randn(rng, 2, 3, 4), (0, 2)), {"correction": 0, "keepdim": True}),
        Sample((randn(rng, 4, 3).T,), {"dim": -1, "unbiased": False}),
        Sample((randn(rng, 3, 5), 1), {"correction": 2.5}),
        Sample((randn(rng, 5),), {"dim": 0}),
    ]


register("var", var, nodes=(VarBackward0,), samples=_variance_samples)
register("std", std, nodes=(StdBackward0,), samples=_variance_samples)
register("var_mean", var_mean, nodes=(VarMeanBackward0,), methods=(), samples=_variance_samples)
register("std_mean", std_mean, nodes=(StdMeanBackward0,), methods=(), samples=_variance_samples)


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
        from .linalg_extra import matrix_norm, vector_norm

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
    if dtype is not None:
        input = input.to(dtype)
        values = input._data
    if values.dtype.kind != "f":
        kind = {"i": "Long", "b": "Bool", "u": "Byte"}.get(values.dtype.kind, str(values.dtype))
        raise RuntimeError(
            f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got {kind}"
        )
    dims = wrap_dims(dim, values.ndim, "norm")
    return LinalgVectorNormBackward0.apply(input, ord=float(p), dim=dims, keepdim=keepdim)


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
    """out = log(sum(exp(x))) over ``dim``, shifted by the max so that 1e4 stays finite"""

    saved_inputs = (0,)
    saves_output = True
    __slots__ = ("dim", "keepdim")

    def forward(self, x, dim, keepdim=False):
        self.dim, self.keepdim = dim, keepdim
        x = x if x.dtype.kind == "f" else x.astype(default_numpy_float())
        if x.size == 0:
            total = np.sum(np.exp(x), axis=dim, keepdims=keepdim)
            with np.errstate(divide="ignore"):
                return np.log(total)
        shift = np.max(x, axis=dim, keepdims=True)
        shift = np.where(np.isinf(shift), 0.0, shift).astype(x.dtype)
        total = np.sum(np.exp(x - shift), axis=dim, keepdims=True)
        with np.errstate(divide="ignore"):
            out = np.log(total) + shift
        return out if keepdim else np.squeeze(out, axis=dim)

    def backward(self, F, grad):
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


# --- cumsum, cumprod -------------------------------------------------------------------------


class CumsumBackward0(Op):
    """out_k = sum_{j <= k} x_j along ``dim``; the gradient is the reversed cumulative sum"""

    __slots__ = ("dim",)

    def forward(self, x, dim, dtype=None):
        self.dim = dim
        x = _integer_accumulator(x, dtype)
        return np.cumsum(x, axis=dim) if x.ndim else x.copy()

    def backward(self, F, grad):
        if not array_of(grad).ndim:
            return grad
        return ReversedCumsumBackward0.call(grad, dim=self.dim)


class ReversedCumsumBackward0(Op):
    """out_k = sum_{j >= k} x_j along ``dim`` (the adjoint of cumsum; used by its backward)"""

    __slots__ = ("dim",)

    def forward(self, x, dim):
        self.dim = dim
        return np.flip(np.cumsum(np.flip(x, axis=dim), axis=dim), axis=dim)

    def backward(self, F, grad):
        return CumsumBackward0.call(grad, dim=self.dim)


class CumprodBackward0(Op):
    """out_k = prod_{j <= k} x_j along ``dim``

    The gradient is ``reversed_cumsum(grad * out) / x`` without zeros. With zeros, on arrays
    an O(n) formula from the first zero of each slice; under create_graph (Tensors), the
    O(n^2) sum over "products with x_i left out", which is differentiable again (as PyTorch).
    """

    saved_inputs = (0,)
    saves_output = True
    __slots__ = ("dim",)

    def forward(self, x, dim, dtype=None):
        self.dim = dim
        x = _integer_accumulator(x, dtype)
        return np.cumprod(x, axis=dim) if x.ndim else x.copy()

    def backward(self, F, grad):
        x, out = self.saved
        xv = array_of(x)
        if xv.size <= 1 or xv.shape[self.dim] <= 1:  # PyTorch's shortcut, empty included
            return grad
        dim = self.dim
        if not (xv == 0).any():
            return ReversedCumsumBackward0.call(grad * out, dim=dim) / x
        if not isinstance(grad, Tensor):
            return _cumprod_grad_with_zeros(grad, xv, out, dim)
        return _cumprod_grad_left_out(F, grad, x, dim)


def _cumprod_grad_with_zeros(grad: np.ndarray, x: np.ndarray, out: np.ndarray, dim: int):
    """O(n): before the first zero z, reversed_cumsum(grad*out)/x; at z, the product before z
    times sum_{k>=z} grad_k prod_{z<j<=k} x_j; after z, zero."""
    zeros_seen = np.cumsum(x == 0, axis=dim)
    before = zeros_seen == 0
    first_zero = (x == 0) & (zeros_seen == 1)
    reversed_total = np.flip(np.cumsum(np.flip(grad * out, axis=dim), axis=dim), axis=dim)
    result = np.where(before, reversed_total / np.where(before, x, 1.0), 0.0)
    prefix = np.prod(np.where(before, x, 1.0), axis=dim, keepdims=True)
    after_first = np.cumprod(np.where(before | first_zero, 1.0, x), axis=dim)
    tail = np.sum(np.where(zeros_seen >= 1, grad * after_first, 0.0), axis=dim, keepdims=True)
    return np.where(first_zero, prefix * tail, result).astype(x.dtype, copy=False)


def _cumprod_grad_left_out(F: Any, grad: Any, x: Any, dim: int) -> Any:
    """grad_i = sum_{k >= i} grad_k * prod_{j <= k, j != i} x_j, built from an n x n tensor."""
    n = array_of(x).shape[dim]
    moved = F.transpose(x, dim, -1)
    moved_grad = F.transpose(grad, dim, -1)
    eye = np.eye(n, dtype=bool)
    left_out = F.where(eye, 1.0, F.unsqueeze(moved, -2))  # [..., i, j]: x_j, or 1 at j == i
    products = CumprodBackward0.apply(left_out, dim=left_out.dim() - 1)
    upper = np.triu(np.ones((n, n), dtype=bool))  # k >= i
    terms = F.where(upper, F.unsqueeze(moved_grad, -2) * products, 0.0)
    return F.transpose(F.sum(terms, -1), dim, -1)


def _cumulative(name: str, node: type) -> Any:
    def op(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
        check_tensor(input, name)
        d = wrap_dim(dim, input._data.ndim, name)
        return node.apply(input, dim=d, dtype=dtype)

    word = "sum" if name == "cumsum" else "product"
    op.__name__ = op.__qualname__ = name
    op.__doc__ = (
        f"Cumulative {word} along ``dim``: ``out[k]`` combines ``input[0..k]``; integers and\n"
        f"bools accumulate as int64 unless ``dtype`` is given.\n\n"
        f"Example::\n\n    >>> glassgrad.{name}(glassgrad.tensor([1.0, 2.0, 3.0]), dim=0)\n"
    )
    return op


cumsum = _cumulative("cumsum", CumsumBackward0)
cumprod = _cumulative("cumprod", CumprodBackward0)


def _cumulative_samples(rng: np.random.Generator) -> list[Sample]:
    return [
        Sample((randn(rng, 3, 4), 1)),
        Sample((randn(rng, 3, 4), 0)),
        Sample((randn(rng, 4, 3).T, -1)),
        Sample((randn(rng, 2, 3, 4),), {"dim": 1}),
        Sample((randn(rng), 0)),
        Sample((randn(rng, 0, 3), 1)),
        Sample((np.array([[1, 2], [3, 4]]), 1), grad=False),
        Sample((np.array([True, False, True]), 0), grad=False),
    ]


def _cumprod_zero_samples(rng: np.random.Generator) -> list[Sample]:
    one = randn(rng, 3, 5)
    one[1, 2] = 0.0
    two = randn(rng, 2, 5)
    two[0, 1] = two[0, 3] = 0.0
    first = randn(rng, 4, 3)
    first[0, 1] = 0.0
    return [
        Sample((one, 1), note="one zero"),
        Sample((two, 1), note="two zeros"),
        Sample((first, 0), note="zero in the first position"),
    ]


register("cumsum", cumsum, nodes=(CumsumBackward0,), samples=_cumulative_samples)
register(
    "cumprod",
    cumprod,
    nodes=(CumprodBackward0,),
    samples=lambda rng: [*_cumulative_samples(rng), *_cumprod_zero_samples(rng)],
)


# --- all, any --------------------------------------------------------------------------------


def _truth_reduction(name: str, reduce: Any) -> Any:
    def op(input: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
        values = check_tensor(input, name)._data
        dims = wrap_dims(dim, values.ndim, name)
        result = np.asarray(reduce(values, axis=dims, keepdims=keepdim))
        # PyTorch keeps uint8 for uint8 input (legacy); everything else gives bool.
        return Tensor._from_array(result.astype(np.uint8 if values.dtype == np.uint8 else bool))

    word = "every" if name == "all" else "any"
    op.__name__ = op.__qualname__ = name
    op.__doc__ = (
        f"Whether {word} element is nonzero (NaN counts as nonzero), overall or over ``dim``\n"
        f"(an int or tuple); a bool tensor.\n\n"
        f"Example::\n\n    >>> glassgrad.{name}(glassgrad.tensor([[1, 0], [2, 3]]), dim=1)\n"
    )
    return op


all = _truth_reduction("all", np.all)
any = _truth_reduction("any", np.any)


def _truth_samples(rng: np.random.Generator) -> list[Sample]:
    mixed = np.where(rng.random((3, 4)) < 0.3, 0.0, randn(rng, 3, 4))
    mixed[0] = 1.0
    return [
        Sample((rng.random((3, 4)) < 0.7,), grad=False),
        Sample((rng.random((3, 4)) < 0.7, 1), grad=False),
        Sample((rng.random((3, 4)) < 0.7, 0, True), grad=False),
        Sample((NoGrad(mixed), 1), grad=False),
        Sample((rng.integers(0, 2, size=(2, 3, 4)), (0, 2)), grad=False),
        Sample((np.zeros((0, 3), dtype=bool), 0), grad=False),
        Sample((rng.integers(0, 3, size=(3, 4)).astype(np.uint8), 1), grad=False),
    ]


register("all", all, differentiable=False, samples=_truth_samples)
register("any", any, differentiable=False, samples=_truth_samples)


def _cumsum_inplace(self: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    return apply_inplace(
        CumsumBackward0, self, dim=wrap_dim(dim, self.dim(), "cumsum_"), dtype=dtype
    )


def _cumprod_inplace(self: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    return apply_inplace(
        CumprodBackward0, self, dim=wrap_dim(dim, self.dim(), "cumprod_"), dtype=dtype
    )


TENSOR_METHODS = {"cumsum_": _cumsum_inplace, "cumprod_": _cumprod_inplace}
