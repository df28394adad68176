"""Rounding: floor, ceil, trunc, frac and round (to ``decimals``), with their in-place
forms; their gradients are zero (frac's is one).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .._tensor import Tensor
from ..autograd.op import Op, apply_inplace
from ._common import (
    check_tensor,
    zeros_like_grad,
)
from ._not_implemented import _not_implemented_for
from ._registry import Sample, register
from ._samples import randn, unary_samples
from .unary_math import _inplace_unary, _unary

# --- rounding -----------------------------------------------------------------------------


class _Rounding(Op):
    """A piecewise-constant op: integers pass through unchanged, the gradient is zero."""

    pointwise = True

    kernel = ""
    ufunc: Any = None
    complex_message = ""  # PyTorch's own refusal of complex inputs, where it has one

    def forward(self, x: Any) -> Any:
        if x.dtype.kind == "c" and self.complex_message:
            raise NotImplementedError(self.complex_message)
        if x.dtype == np.bool_ or x.dtype.kind == "c":
            raise _not_implemented_for(self.kernel, x.dtype)
        if x.dtype.kind != "f":
            return x.copy()
        return self.ufunc(x)

    def backward(self, F: Any, grad: Any) -> Any:
        return zeros_like_grad(F, grad)


class FloorBackward0(_Rounding):
    pointwise = True
    kernel = "floor_vml_cpu"
    complex_message = "floor is not supported for complex inputs"
    ufunc: Any = staticmethod(np.floor)


class CeilBackward0(_Rounding):
    pointwise = True
    kernel = "ceil_vml_cpu"
    complex_message = "ceil is not supported for complex inputs"
    ufunc: Any = staticmethod(np.ceil)


class TruncBackward0(_Rounding):
    pointwise = True
    kernel = "trunc_vml_cpu"
    complex_message = "trunc is not supported for complex inputs"
    ufunc: Any = staticmethod(np.trunc)


class RoundBackward0(_Rounding):
    """Round half to even, as PyTorch (and NumPy's rint)."""

    pointwise = True

    kernel = "round_vml_cpu"
    ufunc: Any = staticmethod(np.rint)


class RoundBackward1(Op):
    """Round to ``decimals`` digits, computed as PyTorch does (scale, rint, unscale)."""

    pointwise = True

    decimals: Any

    __slots__ = ("decimals",)

    def forward(self, x: Any, decimals: Any = 0) -> Any:
        if x.dtype.kind != "f":
            raise _not_implemented_for("round_cpu", x.dtype)
        self.decimals = decimals
        scale = x.dtype.type(10.0 ** abs(decimals))
        if decimals >= 0:
            return np.rint(x * scale) / scale
        return np.rint(x / scale) * scale

    def backward(self, F: Any, grad: Any) -> Any:
        return zeros_like_grad(F, grad)


class FracBackward0(Op):
    """out = x - trunc(x); the gradient passes unchanged."""

    pointwise = True

    def forward(self, x: Any) -> Any:
        if x.dtype.kind != "f":
            raise _not_implemented_for("frac_cpu", x.dtype)
        return x - np.trunc(x)

    def backward(self, F: Any, grad: Any) -> Any:
        return grad


floor: Callable[..., Any] = _unary(
    FloorBackward0,
    "floor",
    "Largest integer <= input (zero gradient).",
    "glassgrad.floor(glassgrad.tensor([-1.5]))\n    tensor([-2.])",
)


ceil: Callable[..., Any] = _unary(
    CeilBackward0,
    "ceil",
    "Smallest integer >= input (zero gradient).",
    "glassgrad.ceil(glassgrad.tensor([-1.5]))\n    tensor([-1.])",
)


trunc: Callable[..., Any] = _unary(
    TruncBackward0,
    "trunc",
    "Integer part, rounded toward zero (zero gradient).",
    "glassgrad.trunc(glassgrad.tensor([-1.5]))\n    tensor([-1.])",
)


frac: Callable[..., Any] = _unary(
    FracBackward0,
    "frac",
    "Fractional part ``input - trunc(input)``.",
    "glassgrad.frac(glassgrad.tensor([-1.5]))\n    tensor([-0.5000])",
)


def round(input: Tensor, *, decimals: int = 0) -> Tensor:
    """Round half to even, to ``decimals`` digits (negative: left of the point); zero gradient.

    Example::

        >>> glassgrad.round(glassgrad.tensor([0.5, 1.5, 2.345]), decimals=0)
        tensor([0., 2., 2.])
    """
    check_tensor(input, "round")
    if not isinstance(decimals, (int, np.integer)) or isinstance(decimals, bool):
        raise TypeError(f"round(): argument 'decimals' must be int, not {type(decimals).__name__}")
    if decimals == 0:
        return RoundBackward0.apply(input)
    return RoundBackward1.apply(input, decimals=int(decimals))


def _round_inplace(self: Tensor, *, decimals: int = 0) -> Tensor:
    if decimals == 0:
        return apply_inplace(RoundBackward0, self)
    return apply_inplace(RoundBackward1, self, decimals=decimals)


def _rounding_samples(rng: np.random.Generator) -> list[Sample]:
    return [
        *unary_samples(rng),
        Sample((np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5]),), grad=False, note="halves"),
        Sample((np.array([3, -7, 0]),), grad=False, note="integers pass through"),
    ]


for _fn, _node in ((floor, FloorBackward0), (ceil, CeilBackward0), (trunc, TruncBackward0)):
    register(_fn.__name__, _fn, nodes=(_node,), samples=_rounding_samples)


register(
    "frac",
    frac,
    nodes=(FracBackward0,),
    samples=lambda rng: [Sample((3 * randn(rng, 3, 4),)), Sample((3 * randn(rng, 4, 3).T,))],
)


register(
    "round",
    round,
    nodes=(RoundBackward0, RoundBackward1),
    samples=lambda rng: [
        *_rounding_samples(rng),
        Sample((10 * randn(rng, 3, 4),), {"decimals": 2}),
        Sample((1000 * randn(rng, 3, 4),), {"decimals": -2}),
        Sample((np.array([1.25, 2.5, -0.5, 0.125]),), {"decimals": 1}, grad=False),
    ],
)


TENSOR_METHODS: dict[str, Any] = {
    "floor_": _inplace_unary(FloorBackward0, "floor_"),
    "ceil_": _inplace_unary(CeilBackward0, "ceil_"),
    "trunc_": _inplace_unary(TruncBackward0, "trunc_"),
    "frac_": _inplace_unary(FracBackward0, "frac_"),
    "round_": _round_inplace,
}
