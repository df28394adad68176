"""``xlogy`` and ``special.xlog1py``: x * log(y) and x * log1p(y), 0 where x is 0 (unless y is
NaN), each with three Node classes as PyTorch's overloads (two tensors, a number and a tensor,
a tensor and a number) and PyTorch's choice of gradient off the domain.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._strides import like_operands
from .._tensor import Tensor
from ..autograd.op import Op, apply_inplace
from ._common import (
    array_of,
    broadcast_error,
    floating_operands,
    is_scalar,
)
from ._not_implemented import refuse_complex
from ._out import kernel_result
from ._registry import NoGrad, Sample, register
from ._samples import positive, randn
from .masking import masked_zero
from .special import SPECIAL, binary_special

# --- xlogy and xlog1py -------------------------------------------------------------------------


def _x_times(op: str, log: Any, x: Any, y: Any) -> np.ndarray:
    """x * log(y) (log: np.log or np.log1p), 0 where x is 0 unless y is NaN."""
    refuse_complex(f"{op.removeprefix('special_')}_cpu", x, y)
    x, y = floating_operands(x, y)
    dtype = (x if isinstance(x, np.ndarray) else y).dtype
    try:
        product = x * log(y)
    except ValueError:
        raise broadcast_error(op, x, y) from None
    out = np.where(np.isnan(y), y, np.where(x == 0, 0.0, product))
    return like_operands(out.astype(dtype, copy=False), (x, y))


def _xlogy(x: Any, y: Any) -> np.ndarray:
    return _x_times("xlogy", np.log, x, y)


def _xlog1py(x: Any, y: Any) -> np.ndarray:
    return _x_times("special_xlog1py", np.log1p, x, y)


class _XLogFamily(Op):
    """x * log(y + shift) for two tensors: d/dx = log(y + shift) (0 where x = 0 and y + shift
    <= 0, PyTorch's choice off the domain), d/dy = x / (y + shift)."""

    pointwise = True
    vector_bits = 0  # PyTorch's xlogy/xlog1py kernels have no vectorized loop

    shift: float = 0.0
    saved_inputs: tuple[int, ...] = (0, 1)

    def backward(self, F: Any, grad: Any) -> Any:
        x, y = self.saved
        needs = self.needs_input_grad
        grad_x = grad_y = None
        if needs[0]:
            off_domain = (array_of(x) == 0) & (array_of(y) <= -self.shift)
            grad_x = masked_zero(type(self).call(grad, y), off_domain)
        if needs[1]:
            grad_y = grad * x / (y + self.shift) if self.shift else grad * x / y
        return grad_x, grad_y


class _XLogScalarX(Op):
    """x * log(y + shift) for a Python number x: d/dy = x / (y + shift)."""

    __slots__ = ("x",)
    shift: float = 0.0
    saved_inputs: tuple[int, ...] = (0,)

    def backward(self, F: Any, grad: Any) -> Any:
        (y,) = self.saved
        return grad * self.x / (y + self.shift) if self.shift else grad * self.x / y


class _XLogScalarY(Op):
    """x * log(y + shift) for a Python number y: d/dx = log(y + shift), 0 where x = 0 if
    y + shift <= 0."""

    pointwise = True  # the same kernel, the number wrapped as a 0-d tensor
    vector_bits = 0
    __slots__ = ("y",)
    shift: float = 0.0
    saved_inputs: tuple[int, ...] = (0,)

    def backward(self, F: Any, grad: Any) -> Any:
        (x,) = self.saved
        value = type(self).call(grad, y=self.y)
        if self.y > -self.shift:
            return value
        return masked_zero(value, array_of(x) == 0)


class XlogyBackward0(_XLogFamily):
    def forward(self, x: Any, y: Any) -> Any:
        return _xlogy(x, y)


class XlogyBackward1(_XLogScalarX):
    def forward(self, y: Any, x: Any) -> Any:
        self.x = x
        return _xlogy(x, y)


class XlogyBackward2(_XLogScalarY):
    def forward(self, x: Any, y: Any) -> Any:
        self.y = y
        return _xlogy(x, y)


class SpecialXlog1PyBackward0(_XLogFamily):
    shift: float = 1.0

    def forward(self, x: Any, y: Any) -> Any:
        return _xlog1py(x, y)


class SpecialXlog1PyBackward1(_XLogScalarX):
    shift: float = 1.0

    def forward(self, y: Any, x: Any) -> Any:
        self.x = x
        return _xlog1py(x, y)


class SpecialXlog1PyBackward2(_XLogScalarY):
    shift: float = 1.0

    def forward(self, x: Any, y: Any) -> Any:
        self.y = y
        return _xlog1py(x, y)


def xlogy(input: Tensor | float, other: Tensor | float, *, out: Tensor | None = None) -> Tensor:
    """``input * log(other)``, 0 where ``input`` is 0 (unless ``other`` is NaN).

    Example::

        >>> glassgrad.xlogy(glassgrad.tensor([0.0, 2.0]), glassgrad.tensor([0.0, 3.0]))
        tensor([0.0000, 2.1972])
    """
    result = binary_special("xlogy", _XLOGY_NODES, input, other)
    return kernel_result("xlogy", XlogyBackward0, xlogy, out, result, input, other)


def xlog1py(input: Tensor | float, other: Tensor | float, *, out: Tensor | None = None) -> Tensor:
    """``input * log1p(other)``, 0 where ``input`` is 0 (unless ``other`` is NaN).

    Example::

        >>> glassgrad.special.xlog1py(glassgrad.tensor([0.0, 2.0]), glassgrad.tensor([-1.0, 1.0]))
        tensor([0.0000, 1.3863])
    """
    result = binary_special("special_xlog1py", _XLOG1PY_NODES, input, other)
    return kernel_result(
        "special_xlog1py", SpecialXlog1PyBackward0, xlog1py, out, result, input, other
    )


_XLOGY_NODES = (XlogyBackward0, XlogyBackward1, XlogyBackward2)


_XLOG1PY_NODES = (SpecialXlog1PyBackward0, SpecialXlog1PyBackward1, SpecialXlog1PyBackward2)


def _xlogy_inplace(self: Tensor, other: Tensor | float) -> Tensor:
    if isinstance(other, Tensor):
        return apply_inplace(XlogyBackward0, self, other)
    if not is_scalar(other):
        binary_special("xlogy_", _XLOGY_NODES, self, other)  # PyTorch's TypeError
    return apply_inplace(XlogyBackward2, self, y=other)


def _xlog_samples(shift: float) -> Any:
    def samples(rng: np.random.Generator) -> list[Sample]:
        def domain(*shape: int) -> np.ndarray:
            return positive(rng, *shape) + 0.1 - shift

        zeros = np.array([0.0, 0.0, 1.5, 0.0])
        return [
            Sample((randn(rng, 3, 4), domain(3, 4))),
            Sample((randn(rng, 3, 1), domain(1, 4))),
            Sample((randn(rng, 4, 3).T, NoGrad(domain(3, 4)))),
            Sample((NoGrad(randn(rng, 3)), domain(2, 3))),
            Sample((zeros, np.array([-2.0, 0.5, 2.0, np.nan]) - shift), fd=False, note="x = 0"),
            Sample((randn(rng, 3, 4), 2.5)),
            Sample((zeros, -1.0 - shift), fd=False),
            Sample((1.5, domain(3, 4))),
            Sample((np.array([0, 2, 3]), np.array([1, 2, 0])), grad=False),
            Sample((np.array([1, 2]), 3), grad=False),
        ]

    return samples


register("xlogy", xlogy, nodes=_XLOGY_NODES, samples=_xlog_samples(0.0))


register("xlog1py", xlog1py, nodes=_XLOG1PY_NODES, namespace=SPECIAL, samples=_xlog_samples(1.0))


TENSOR_METHODS: dict[str, Any] = {
    "xlogy_": _xlogy_inplace,
}
