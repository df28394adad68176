"""Reductions of the core set: sum, mean, max, min."""

from __future__ import annotations

import builtins
import math
from typing import Any

import numpy as np

from .. import return_types
from .._dtype import to_numpy_dtype
from .._tensor import Tensor
from ..autograd.op import Op
from ._common import check_tensor, wrap_dim, wrap_dims
from ._out import out_result
from ._registry import Sample, register
from ._samples import randn

# np.sum and np.mean are Python wrappers around np.add.reduce (1.5-5 us on small arrays);
# the ops call the ufunc directly, with the same arguments and so the same results.
_add_reduce = np.add.reduce
# Means computed here as add.reduce / count; other dtypes (float16 accumulates in float32 in
# np.mean) and empty inputs (np.mean's warning) keep np.mean.
_DIRECT_MEAN_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def mean_array(
    x: np.ndarray, dims: tuple | None, keepdims: bool, dtype: np.dtype | None = None
) -> np.ndarray:
    """``np.mean(x, axis=dims, dtype=dtype, keepdims=keepdims)`` (``dims`` None: all), the
    same values; float32 and float64 results without np.mean's Python layers."""
    if (dtype or x.dtype) in _DIRECT_MEAN_DTYPES and x.size:
        count = x.size if dims is None else math.prod([x.shape[d] for d in dims])
        return _add_reduce(x, dims, dtype, keepdims=keepdims) / count
    return np.mean(x, axis=dims, dtype=dtype, keepdims=keepdims)


def mean_and_biased_var(x: np.ndarray, dims: tuple) -> tuple:
    """``(np.mean(x, axis=dims), np.var(x, axis=dims))``, the same values (np.var's own steps,
    reusing the mean); float32 and float64 without their Python layers."""
    if x.dtype in _DIRECT_MEAN_DTYPES and x.size:
        mean = mean_array(x, dims, True)
        centered = x - mean
        var = mean_array(np.multiply(centered, centered, out=centered), dims, False)
        return mean.reshape(var.shape), var
    return np.mean(x, axis=dims), np.var(x, axis=dims)


def _sum_dtype(x: np.ndarray, dtype: Any) -> np.dtype | None:
    # PyTorch sums integers and bools as int64.
    if dtype is not None:
        return to_numpy_dtype(dtype)
    return np.dtype(np.int64) if x.dtype.kind in "biu" else None


class SumBackward0(Op):
    """out = sum of all elements"""

    __slots__ = ("shape",)

    def forward(self, x, dtype=None):
        self.shape = x.shape
        return np.asarray(_add_reduce(x, None, _sum_dtype(x, dtype)))

    def backward(self, F, grad):
        return F.expand(grad, self.shape)


class SumBackward1(Op):
    """out = sum over ``dim``"""

    __slots__ = ("shape", "dim", "keepdim")

    def forward(self, x, dim, keepdim=False, dtype=None):
        self.shape, self.dim, self.keepdim = x.shape, dim, keepdim
        return np.asarray(_add_reduce(x, dim, _sum_dtype(x, dtype), keepdims=keepdim))

    def backward(self, F, grad):
        if not self.keepdim:
            grad = F.unsqueeze_dims(grad, self.dim)
        return F.expand(grad, self.shape)


def _check_mean_dtype(x: np.ndarray, dtype: Any) -> None:
    if dtype is None and x.dtype.kind != "f":
        name = {"i": "Long", "b": "Bool", "u": "Byte"}.get(x.dtype.kind, str(x.dtype))
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point "
            f"or complex dtype. Got: {name}"
        )


class MeanBackward0(Op):
    __slots__ = ("shape",)

    def forward(self, x, dtype=None):
        _check_mean_dtype(x, dtype)
        self.shape = x.shape
        out_dtype = to_numpy_dtype(dtype) or x.dtype
        return np.asarray(mean_array(x, None, False, out_dtype), dtype=out_dtype)

    def backward(self, F, grad):
        count = math.prod(self.shape)
        return F.expand(grad / builtins.max(count, 1), self.shape)


class MeanBackward1(Op):
    __slots__ = ("shape", "dim", "keepdim")

    def forward(self, x, dim, keepdim=False, dtype=None):
        _check_mean_dtype(x, dtype)
        self.shape, self.dim, self.keepdim = x.shape, dim, keepdim
        out_dtype = to_numpy_dtype(dtype) or x.dtype
        return np.asarray(mean_array(x, dim, keepdim), dtype=out_dtype)

    def backward(self, F, grad):
        count = math.prod([self.shape[d] for d in self.dim])
        if not self.keepdim:
            grad = F.unsqueeze_dims(grad, self.dim)
        return F.expand(grad / builtins.max(count, 1), self.shape)


def sum(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """Sum of all elements, or over ``dim`` (an int or a tuple of ints).

    Example::

        >>> glassgrad.sum(glassgrad.tensor([[1.0, 2.0], [3.0, 4.0]]), dim=1)
        tensor([3., 7.])
    """
    check_tensor(input, "sum")
    dims = wrap_dims(dim, input._data.ndim, "sum")
    if dims is None:
        return SumBackward0.apply(input, dtype=dtype)
    return SumBackward1.apply(input, dim=dims, keepdim=keepdim, dtype=dtype)


def mean(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """Mean of all elements, or over ``dim``.

    Example::

        >>> glassgrad.mean(glassgrad.tensor([1.0, 2.0, 6.0]))
        tensor(3.)
    """
    check_tensor(input, "mean")
    dims = wrap_dims(dim, input._data.ndim, "mean")
    if dims is None:
        return MeanBackward0.apply(input, dtype=dtype)
    return MeanBackward1.apply(input, dim=dims, keepdim=keepdim, dtype=dtype)


def _empty_reduction_error(op: str, dim: Any = None) -> IndexError | RuntimeError:
    if dim is None:
        return RuntimeError(
            f"{op}(): Expected reduction dim to be specified for input.numel() == 0. Specify "
            "the reduction dim with the 'dim' argument."
        )
    return IndexError(f"{op}(): Expected reduction dim {dim} to have non-zero size.")


class _FullExtremum(Op):
    """out = max or min of all elements; the gradient is shared evenly among ties."""

    saved_inputs = (0,)
    saves_output = True
    reduce: Any = None

    def forward(self, x):
        if x.size == 0:
            raise _empty_reduction_error(type(self).__name__[:3].lower())
        return np.asarray(self.reduce(x))

    def backward(self, F, grad):
        x, out = self.saved
        xv = x._data if isinstance(x, Tensor) else x
        ov = out._data if isinstance(out, Tensor) else out
        mask = (xv == ov) | (np.isnan(xv) & np.isnan(ov))
        # PyTorch's evenly_distribute_backward: zeros, filled with grad / count at the ties
        # (so an infinite gradient does not put NaN elsewhere).
        return F.where(mask, F.expand(grad / float(mask.sum()), xv.shape), 0.0)


class MaxBackward1(_FullExtremum):
    reduce = staticmethod(np.max)


class MinBackward1(_FullExtremum):
    reduce = staticmethod(np.min)


class _DimExtremum(Op):
    """(values, indices) over ``dim``; the gradient goes to the selected index only."""

    __slots__ = ("shape", "dim", "keepdim", "indices")
    nondiff_outputs = (1,)
    saved_outputs = (1,)  # the indices, as PyTorch saves them: changing them is an error
    arg: Any = None

    def forward(self, x, dim, keepdim=False):
        if x.ndim and x.shape[dim] == 0:
            raise _empty_reduction_error(type(self).__name__[:3].lower(), dim)
        self.shape, self.dim, self.keepdim = x.shape, dim, keepdim
        if x.ndim == 0:
            self.indices = np.zeros((), dtype=np.int64)
            return x.copy(), self.indices
        index = np.expand_dims(self.arg(x, axis=dim), dim)
        values = np.take_along_axis(x, index, axis=dim)
        self.indices = index
        if not keepdim:
            values, index = values.squeeze(dim), index.squeeze(dim)
        return values, index.astype(np.int64)

    def backward(self, F, grads):
        grad = grads[0]
        if not self.shape:
            return grad
        if not self.keepdim:
            grad = F.unsqueeze(grad, self.dim)
        return F.scatter_zeros(self.shape, self.dim, self.indices, grad)


class MaxBackward0(_DimExtremum):
    arg = staticmethod(lambda x, axis: _nan_aware_arg(np.argmax, x, axis))


class MinBackward0(_DimExtremum):
    arg = staticmethod(lambda x, axis: _nan_aware_arg(np.argmin, x, axis))


def _nan_aware_arg(arg: Any, x: np.ndarray, axis: int) -> np.ndarray:
    # NumPy's argmax already returns the first NaN, as PyTorch's max does.
    return arg(x, axis=axis)


def _extremum(name: str, full: type, by_dim: type, result: type) -> Any:
    def op(
        input: Tensor,
        dim: Any = None,
        keepdim: bool = False,
        *,
        other: Tensor | None = None,
        out: Any = None,
    ) -> Any:
        check_tensor(input, name)
        if other is not None or isinstance(dim, Tensor):
            if other is not None and dim is not None:
                raise TypeError(f"{name}() got multiple values for argument 'other'")
            from . import clamping

            elementwise = getattr(clamping, "maximum" if name == "max" else "minimum")
            other = dim if other is None else other
            return out_result(name, out, elementwise(input, other), (input, other))
        if dim is None:
            return out_result(name, out, full.apply(input), (input,))
        d = wrap_dim(dim, input._data.ndim, name)
        values, indices = by_dim.apply(input, dim=d, keepdim=keepdim)
        return out_result(name, out, result(values, indices), (input,), exact=True)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = (
        f"The {name}imum of all elements, or ``(values, indices)`` over ``dim``; with a tensor\n"
        f"as second argument, the elementwise {name}imum.\n\n"
        f"Example::\n\n    >>> x = glassgrad.tensor([[1.0, 5.0], [7.0, 2.0]])\n"
        f"    >>> glassgrad.{name}(x, dim=1).values\n"
    )
    return op


max = _extremum("max", MaxBackward1, MaxBackward0, return_types.max)
min = _extremum("min", MinBackward1, MinBackward0, return_types.min)


def _reduce_samples(rng: np.random.Generator) -> list[Sample]:
    return [
        Sample((randn(rng, 3, 4),)),
        Sample((randn(rng, 3, 4), 1)),
        Sample((randn(rng, 3, 4), 0), {"keepdim": True}),
        Sample((randn(rng, 2, 3, 4), (0, 2))),
        Sample((randn(rng, 2, 3, 4), -1)),
        Sample((randn(rng),)),
    ]


def _extremum_samples(rng: np.random.Generator) -> list[Sample]:
    return [
        Sample((randn(rng, 3, 4),)),
        Sample((randn(rng, 3, 4), 1)),
        Sample((randn(rng, 3, 4), 0), {"keepdim": True}),
        Sample((randn(rng, 2, 3, 4), -1)),
        Sample(
            (np.array([[1.0, 3.0, 3.0], [2.0, 2.0, 0.0]]),),
            fd=False,
            note="ties share the gradient",
        ),
        Sample(
            (np.array([[1.0, 3.0, 3.0], [2.0, 2.0, 0.0]]), 1), fd=False, note="ties: first index"
        ),
    ]


register("sum", sum, nodes=(SumBackward0, SumBackward1), samples=_reduce_samples)
register("mean", mean, nodes=(MeanBackward0, MeanBackward1), samples=_reduce_samples)
register("max", max, nodes=(MaxBackward1, MaxBackward0), samples=_extremum_samples)
register("min", min, nodes=(MinBackward1, MinBackward0), samples=_extremum_samples)
