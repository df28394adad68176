"""Variance and standard deviation: var, std, var_mean and std_mean, with ``correction`` (and
the legacy ``unbiased``), as PyTorch's VarBackward0 / StdBackward0 / VarMeanBackward0 /
StdMeanBackward0.
"""

from __future__ import annotations

import builtins
import warnings
from typing import Any

import numpy as np

from .._tensor import Tensor
from ..autograd.op import Op
from ._common import array_of, check_tensor, sum_defined, wrap_dims
from ._registry import Sample, register
from ._samples import randn
from .reduction import _reduced_count, _restore, mean_array

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


def _variance_forward(
    x: np.ndarray, dims: tuple | None, correction: float, keepdim: bool, op: str
) -> tuple[np.ndarray, np.ndarray]:
    """(variance, mean) as PyTorch's CPU kernels compute them; a complex input's variance is
    the sum of its real and imaginary parts' (real, of the matching real dtype). ``std`` and
    ``var`` reducing to one element take PyTorch's all-reduce path (``std_var_all_cpu``: the
    mean in the input's dtype, the squared deviations summed in double); every other case
    its Welford reduction, accumulated in double, whose deviations and variance are exactly
    0 along a constant slice (all values equal and finite)."""
    if x.dtype.kind not in "fc":
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
    take_sqrt = op in ("std", "std_mean")
    if x.dtype.kind == "c":
        var_real, mean_real = _real_variance(x.real, dims, count, dof, keepdim, op, False)
        var_imag, mean_imag = _real_variance(x.imag, dims, count, dof, keepdim, op, False)
        mean = np.asarray(mean_real + 1j * mean_imag, dtype=x.dtype)
        variance = var_real + var_imag
        return (np.sqrt(variance) if take_sqrt else variance), mean
    return _real_variance(x, dims, count, dof, keepdim, op, take_sqrt)


def _real_variance(x, dims, count, dof, keepdim, op, take_sqrt) -> tuple[np.ndarray, ...]:
    """(variance or its square root, mean) of a real ``x``, rounded to its dtype once, at
    the end (the square root is taken in double, as PyTorch's kernels do)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        if not x.size:
            mean = np.sum(x, axis=dims, keepdims=True) / x.dtype.type(count)
            centered = x
        elif op in ("std", "var") and x.size == count:
            mean = np.asarray(mean_array(x, None, True), dtype=np.float64)
            centered = x.astype(np.float64) - mean
        else:
            mean = mean_array(x.astype(np.float64), dims, True)
            high, low = np.max(x, dims, keepdims=True), np.min(x, dims, keepdims=True)
            constant = (high == low) & np.isfinite(high)
            mean = np.where(constant, high, mean)
            centered = np.where(constant, 0.0, x - mean)
        variance = np.sum(centered * centered, axis=dims, keepdims=keepdim) / np.float64(dof)
    if take_sqrt:
        variance = np.sqrt(variance)
    if not keepdim:
        mean = np.squeeze(mean, axis=dims)
    return np.asarray(variance, dtype=x.dtype), np.asarray(mean, dtype=x.dtype)


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
    """d std = d var / (2 std), zero where std is zero. As PyTorch's std_backward, the mask
    comes after the division, so a zero std gives a zero gradient but NaN second
    derivatives (0 / 0 in the division's backward)."""
    std = _restore(F, std, dims, keepdim)
    zero = array_of(std) == 0
    with np.errstate(divide="ignore", invalid="ignore"):
        grad = F.where(zero, 0.0, _restore(F, grad, dims, keepdim) / (2.0 * std))
    return _var_backward(F, grad, x, dims, correction, True)


def _mean_backward(F, grad, x, dims, keepdim) -> Any:
    xv = array_of(x)
    count = _reduced_count(xv.shape, dims)
    return F.expand(_restore(F, grad, dims, keepdim) / builtins.max(count, 1), xv.shape)


class VarBackward0(Op):
    correction: Any
    dim: Any
    keepdim: Any
    saved_inputs: tuple[int, ...] = (0,)
    __slots__ = ("dim", "correction", "keepdim")

    def forward(self, x: Any, dim: Any = None, correction: Any = 1, keepdim: Any = False) -> Any:
        self.dim, self.correction, self.keepdim = dim, correction, keepdim
        return _variance_forward(x, dim, correction, keepdim, "var")[0]

    def backward(self, F: Any, grad: Any) -> Any:
        (x,) = self.saved
        return _var_backward(F, grad, x, self.dim, self.correction, self.keepdim)


class StdBackward0(Op):
    correction: Any
    dim: Any
    keepdim: Any
    saved_inputs: tuple[int, ...] = (0,)
    saves_output = True
    __slots__ = ("dim", "correction", "keepdim")

    def forward(self, x: Any, dim: Any = None, correction: Any = 1, keepdim: Any = False) -> Any:
        self.dim, self.correction, self.keepdim = dim, correction, keepdim
        return _variance_forward(x, dim, correction, keepdim, "std")[0]

    def backward(self, F: Any, grad: Any) -> Any:
        x, std = self.saved
        return _std_backward(F, grad, x, std, self.dim, self.correction, self.keepdim)


class VarMeanBackward0(Op):
    """(var, mean) in one node; both outputs are differentiable"""

    correction: Any
    dim: Any
    keepdim: Any

    saved_inputs: tuple[int, ...] = (0,)
    __slots__ = ("dim", "correction", "keepdim")

    def forward(self, x: Any, dim: Any = None, correction: Any = 1, keepdim: Any = False) -> Any:
        self.dim, self.correction, self.keepdim = dim, correction, keepdim
        return _variance_forward(x, dim, correction, keepdim, "var_mean")

    takes_undefined_grads = True

    def backward(self, F: Any, grads: Any) -> Any:
        (x,) = self.saved
        grad_var, grad_mean = grads
        dims, keepdim = self.dim, self.keepdim
        var_term = (
            None
            if grad_var is None
            else _var_backward(F, grad_var, x, dims, self.correction, keepdim)
        )
        mean_term = None if grad_mean is None else _mean_backward(F, grad_mean, x, dims, keepdim)
        return sum_defined(var_term, mean_term)


class StdMeanBackward0(Op):
    """(std, mean) in one node; both outputs are differentiable"""

    correction: Any
    dim: Any
    keepdim: Any

    saved_inputs: tuple[int, ...] = (0,)
    saved_outputs: tuple[int, ...] = (0,)  # the std, as PyTorch saves it
    __slots__ = ("dim", "correction", "keepdim")

    def forward(self, x: Any, dim: Any = None, correction: Any = 1, keepdim: Any = False) -> Any:
        self.dim, self.correction, self.keepdim = dim, correction, keepdim
        return _variance_forward(x, dim, correction, keepdim, "std_mean")

    takes_undefined_grads = True

    def backward(self, F: Any, grads: Any) -> Any:
        x, std = self.saved
        grad_std, grad_mean = grads
        dims, keepdim = self.dim, self.keepdim
        std_term = (
            None
            if grad_std is None
            else _std_backward(F, grad_std, x, std, dims, self.correction, keepdim)
        )
        mean_term = None if grad_mean is None else _mean_backward(F, grad_mean, x, dims, keepdim)
        return sum_defined(std_term, mean_term)


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
) -> tuple[Tensor, ...]:
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
) -> tuple[Tensor, ...]:
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
