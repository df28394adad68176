"""Reductions: sum, mean, max, min, amax, amin, argmax, argmin, all and any (prod, logsumexp
and norm are in ``reduction_math.py``, var and std in ``variance.py``, the cumulative ones in
``scan.py``)."""

from __future__ import annotations

import builtins
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import return_types
from .._dtype import scalar_type_name, to_numpy_dtype
from .._strides import row_major
from .._tensor import Tensor
from ..autograd.op import Op
from ._common import array_of, check_tensor, take_along_axis, wrap_dim, wrap_dims
from ._not_implemented import refuse_complex
from ._out import out_result
from ._registry import NoGrad, Sample, register
from ._samples import randn


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


def _empty_dims_error(op: str, dims: tuple | None, shape: tuple) -> Exception | None:
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
    """The input in the dtype the reduction runs in: ``dtype`` if given (cast as PyTorch
    casts, NaN into integers included), int64 for integers."""
    if dtype is not None:
        target = to_numpy_dtype(dtype)
        if x.dtype.kind == "c" and target.kind in "iuf":
            # what NumPy's cast keeps (the real part), without its ComplexWarning: a
            # ``catch_warnings`` per call would cost ~3 us and reset Python's warning registry
            x = x.real
        with np.errstate(invalid="ignore"):
            return x.astype(target, copy=False)
    return x.astype(np.int64) if x.dtype.kind in "biu" else x


# --- amax, amin, argmax, argmin --------------------------------------------------------------


class _AExtremum(Op):
    """Max or min over ``dim`` (all dims if empty); ties share the gradient evenly."""

    dim: Any | None
    keepdim: Any

    saved_inputs: tuple[int, ...] = (0,)
    saves_output = True
    __slots__ = ("dim", "keepdim")
    reduce: Any = None
    op = ""

    def forward(self, x: Any, dim: Any = (), keepdim: Any = False) -> Any:
        refuse_complex(f"{self.op[1:]}_values_cpu", x)
        dims = dim or None
        error = _empty_dims_error(self.op, dims, x.shape)
        if error is not None:
            raise error
        self.dim, self.keepdim = dims, keepdim
        return np.asarray(self.reduce(x, axis=dims, keepdims=keepdim))

    def backward(self, F: Any, grad: Any) -> Any:
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
    reduce: Any = staticmethod(np.max)
    op = "amax"


class AminBackward0(_AExtremum):
    reduce: Any = staticmethod(np.min)
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


amax: Callable[..., Any] = _a_extremum("amax", AmaxBackward0)


amin: Callable[..., Any] = _a_extremum("amin", AminBackward0)


def _arg_extremum(name: str, arg: Any) -> Any:
    def op(input: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:
        values = check_tensor(input, name)._data
        if values.dtype == np.bool_ or values.dtype.kind == "c":
            kind = "bool" if values.dtype == np.bool_ else "complex"
            raise RuntimeError(f"{name}(): does not support {kind} input")
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


argmax: Callable[..., Any] = _arg_extremum("argmax", np.argmax)


argmin: Callable[..., Any] = _arg_extremum("argmin", np.argmin)


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


all: Callable[..., Any] = _truth_reduction("all", np.all)


any: Callable[..., Any] = _truth_reduction("any", np.any)


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


# np.sum and np.mean are Python wrappers around np.add.reduce (1.5-5 us on small arrays);
# the ops call the ufunc directly, with the same arguments and so the same results.
_add_reduce = np.add.reduce
# Means computed here as add.reduce / count; other dtypes (float16 accumulates in float32 in
# np.mean) and empty inputs (np.mean's warning) keep np.mean.
_DIRECT_MEAN_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def mean_array(
    x: np.ndarray, dims: tuple[int, ...] | None, keepdims: bool, dtype: np.dtype | None = None
) -> np.ndarray:
    """``np.mean(x, axis=dims, dtype=dtype, keepdims=keepdims)`` (``dims`` None: all), the
    same values; float32 and float64 results without np.mean's Python layers."""
    if (dtype or x.dtype) in _DIRECT_MEAN_DTYPES and x.size:
        count = x.size if dims is None else math.prod([x.shape[d] for d in dims])
        return _add_reduce(x, dims, dtype, keepdims=keepdims) / count
    return np.mean(x, axis=dims, dtype=dtype, keepdims=keepdims)


def mean_and_biased_var(x: np.ndarray, dims: tuple[int, ...]) -> tuple[Any, ...]:
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

    shape: Any

    __slots__ = ("shape",)

    def forward(self, x: Any, dtype: Any = None) -> Any:
        self.shape = x.shape
        return np.asarray(_add_reduce(x, None, _sum_dtype(x, dtype)))

    def backward(self, F: Any, grad: Any) -> Any:
        return F.expand(grad, self.shape)


class SumBackward1(Op):
    """out = sum over ``dim``"""

    dim: Any
    keepdim: Any
    shape: Any

    __slots__ = ("shape", "dim", "keepdim")

    @row_major
    def forward(self, x: Any, dim: Any, keepdim: Any = False, dtype: Any = None) -> Any:
        self.shape, self.dim, self.keepdim = x.shape, dim, keepdim
        return np.asarray(_add_reduce(x, dim, _sum_dtype(x, dtype), keepdims=keepdim))

    def backward(self, F: Any, grad: Any) -> Any:
        if not self.keepdim:
            grad = F.unsqueeze_dims(grad, self.dim)
        return F.expand(grad, self.shape)


def check_mean_dtype(op: str, x: np.ndarray, dtype: Any) -> None:
    """PyTorch's refusal of a mean that would not be floating or complex (``op``: "mean",
    "nanmean")."""
    computed = x.dtype if dtype is None else to_numpy_dtype(dtype)
    if computed.kind not in "fc":
        what = "Input" if dtype is None else "Optional"
        raise RuntimeError(
            f"{op}(): could not infer output dtype. {what} dtype must be either a floating "
            f"point or complex dtype. Got: {scalar_type_name(computed)}"
        )


class MeanBackward0(Op):
    shape: Any
    __slots__ = ("shape",)

    def forward(self, x: Any, dtype: Any = None) -> Any:
        check_mean_dtype("mean", x, dtype)
        self.shape = x.shape
        x = _integer_accumulator(x, dtype)  # PyTorch casts the input first
        return np.asarray(mean_array(x, None, False, x.dtype), dtype=x.dtype)

    def backward(self, F: Any, grad: Any) -> Any:
        count = math.prod(self.shape)
        return F.expand(grad / builtins.max(count, 1), self.shape)


class MeanBackward1(Op):
    dim: Any
    keepdim: Any
    shape: Any
    __slots__ = ("shape", "dim", "keepdim")

    @row_major
    def forward(self, x: Any, dim: Any, keepdim: Any = False, dtype: Any = None) -> Any:
        check_mean_dtype("mean", x, dtype)
        self.shape, self.dim, self.keepdim = x.shape, dim, keepdim
        x = _integer_accumulator(x, dtype)
        return np.asarray(mean_array(x, dim, keepdim), dtype=x.dtype)

    def backward(self, F: Any, grad: Any) -> Any:
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

    saved_inputs: tuple[int, ...] = (0,)
    saves_output = True
    reduce: Any = None

    def forward(self, x: Any) -> Any:
        refuse_complex(f"{type(self).__name__[:3].lower()}_all", x)
        if x.size == 0:
            raise _empty_reduction_error(type(self).__name__[:3].lower())
        return np.asarray(self.reduce(x))

    def backward(self, F: Any, grad: Any) -> Any:
        x, out = self.saved
        xv = x._data if isinstance(x, Tensor) else x
        ov = out._data if isinstance(out, Tensor) else out
        mask = (xv == ov) | (np.isnan(xv) & np.isnan(ov))
        # PyTorch's evenly_distribute_backward: zeros, filled with grad / count at the ties
        # (so an infinite gradient does not put NaN elsewhere).
        return F.where(mask, F.expand(grad / float(mask.sum()), xv.shape), 0.0)


class MaxBackward1(_FullExtremum):
    reduce: Any = staticmethod(np.max)


class MinBackward1(_FullExtremum):
    reduce: Any = staticmethod(np.min)


class _DimExtremum(Op):
    """(values, indices) over ``dim``; the gradient goes to the selected index only."""

    indices: np.ndarray

    dim: Any
    keepdim: Any
    shape: Any

    __slots__ = ("shape", "dim", "keepdim", "indices")
    nondiff_outputs: tuple[int, ...] = (1,)
    saved_outputs: tuple[int, ...] = (
        1,
    )  # the indices, as PyTorch saves them: changing them is an error
    arg: Any = None

    def forward(self, x: Any, dim: Any, keepdim: Any = False) -> Any:
        if x.dtype.kind == "c":
            raise RuntimeError(
                f"{type(self).__name__[:3].lower()}(): does not support complex input"
            )
        if x.ndim and x.shape[dim] == 0:
            raise _empty_reduction_error(type(self).__name__[:3].lower(), dim)
        self.shape, self.dim, self.keepdim = x.shape, dim, keepdim
        if x.ndim == 0:
            self.indices = np.zeros((), dtype=np.int64)
            return x.copy(), self.indices
        index = np.expand_dims(self.arg(x, axis=dim), dim)
        values = take_along_axis(x, index, axis=dim)
        self.indices = index
        if not keepdim:
            values, index = values.squeeze(dim), index.squeeze(dim)
        return values, index.astype(np.int64)

    def backward(self, F: Any, grads: Any) -> Any:
        grad = grads[0]
        if not self.shape:
            return grad
        if not self.keepdim:
            grad = F.unsqueeze(grad, self.dim)
        return F.scatter_zeros(self.shape, self.dim, self.indices, grad)


class MaxBackward0(_DimExtremum):
    arg: Any = staticmethod(lambda x, axis: _nan_aware_arg(np.argmax, x, axis))


class MinBackward0(_DimExtremum):
    arg: Any = staticmethod(lambda x, axis: _nan_aware_arg(np.argmin, x, axis))


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


max: Callable[..., Any] = _extremum("max", MaxBackward1, MaxBackward0, return_types.max)
min: Callable[..., Any] = _extremum("min", MinBackward1, MinBackward0, return_types.min)


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
