"""Fused elementwise arithmetic: lerp, addcmul and addcdiv, with their in-place forms."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._dtype import c_type_name
from .._strides import keeps_operand_layout, like_operands
from .._tensor import Tensor
from ..autograd.op import Op, apply_inplace
from ._common import (
    broadcast_error,
    check_tensor,
)
from ._not_implemented import _not_implemented_for
from ._registry import NoGrad, Sample, register
from ._samples import randn
from .clamping import _promoted
from .division import _positive_divisor

# --- lerp, addcmul, addcdiv, nan_to_num ----------------------------------------------------


def _lerp_arrays(start: np.ndarray, end: np.ndarray, weight: Any) -> np.ndarray:
    """PyTorch's two-sided formula: exact at weight 0 and 1."""
    small = np.abs(weight) < 0.5
    difference = end - start
    out = np.where(small, start + weight * difference, end - difference * (1 - weight))
    return like_operands(out, (start, end, weight))


def _check_lerp(start: np.ndarray, end: np.ndarray, weight: Any) -> None:
    # PyTorch's order: the operands' dtypes first, then the kernel's.
    if end.dtype != start.dtype:
        raise RuntimeError(
            f"expected dtype {c_type_name(start.dtype)} for `end` but got dtype "
            f"{c_type_name(end.dtype)}"
        )
    if isinstance(weight, np.ndarray) and weight.ndim and weight.dtype != start.dtype:
        raise RuntimeError(
            f"expected dtype {c_type_name(start.dtype)} for `weight` but got dtype "
            f"{c_type_name(weight.dtype)}"
        )
    if start.dtype.kind not in "fc":
        raise _not_implemented_for("lerp_kernel_scalar", start.dtype)


class LerpBackward0(Op):
    """out = start + weight * (end - start), ``weight`` a Python number"""

    pointwise = True

    weight: Any

    holomorphic = True

    __slots__ = ("weight",)

    def forward(self, start: Any, end: Any, weight: Any = 0.5) -> Any:
        _check_lerp(start, end, weight)
        self.weight = weight
        try:
            np.broadcast_shapes(start.shape, end.shape)
        except ValueError:
            raise broadcast_error("lerp", start, end) from None
        return _lerp_arrays(start, end, weight).astype(start.dtype, copy=False)

    def backward(self, F: Any, grad: Any) -> Any:
        needs = self.needs_input_grad
        w = self.weight
        return grad * (1.0 - w) if needs[0] else None, grad * w if needs[1] else None


class LerpBackward1(Op):
    """out = start + weight * (end - start), ``weight`` a tensor"""

    pointwise = True

    holomorphic = True

    saved_inputs: tuple[int, ...] = (0, 1, 2)
    saved_for: tuple[tuple[int, ...], ...] = (
        (2,),
        (2,),
        (0, 1, 2),
    )  # PyTorch keeps the weight whatever needs a gradient

    def forward(self, start: Any, end: Any, weight: Any) -> Any:
        _check_lerp(start, end, weight)
        try:
            np.broadcast_shapes(start.shape, end.shape, weight.shape)
        except ValueError:
            raise broadcast_error("lerp", start, end if end.ndim else weight) from None
        return _lerp_arrays(start, end, weight.astype(start.dtype)).astype(start.dtype, copy=False)

    def backward(self, F: Any, grad: Any) -> Any:
        start, end, weight = self.saved
        needs = self.needs_input_grad
        return (
            grad * (1.0 - weight) if needs[0] else None,
            grad * weight if needs[1] else None,
            grad * (end - start) if needs[2] else None,
        )


def lerp(input: Tensor, end: Tensor, weight: Any) -> Tensor:
    """Linear interpolation ``input + weight * (end - input)``; ``weight`` a number or tensor.

    Example::

        >>> glassgrad.lerp(glassgrad.tensor([0.0, 10.0]), glassgrad.tensor([10.0, 20.0]), 0.5)
        tensor([ 5., 15.])
    """
    check_tensor(input, "lerp")
    check_tensor(end, "lerp", "end", 2)
    if isinstance(weight, Tensor):
        return LerpBackward1.apply(input, end, weight)
    return LerpBackward0.apply(input, end, weight=weight)


def _lerp_inplace(self: Tensor, end: Tensor, weight: Any) -> Tensor:
    check_tensor(end, "lerp_", "end", 2)
    if isinstance(weight, Tensor):
        return apply_inplace(LerpBackward1, self, end, weight)
    return apply_inplace(LerpBackward0, self, end, weight=weight)


def _three_operands(op: str, x: np.ndarray, t1: np.ndarray, t2: np.ndarray) -> list:
    return _promoted(op, x, t1, t2)


class AddcmulBackward0(Op):
    """out = input + value * tensor1 * tensor2"""

    pointwise = True

    value: Any

    holomorphic = True

    saved_inputs: tuple[int, ...] = (1, 2)
    saved_for: tuple[tuple[int, ...], ...] = ((2,), (1,))
    __slots__ = ("value",)

    @keeps_operand_layout
    def forward(self, x: Any, t1: Any, t2: Any, value: Any = 1) -> Any:
        x, t1, t2 = _three_operands("addcmul", x, t1, t2)
        if x.dtype == np.bool_:  # the kernel has no Bool case
            raise NotImplementedError("\"addcmul_cpu_out\" not implemented for 'Bool'")
        if x.dtype.kind in "iub" and isinstance(value, float):
            value = int(value)  # PyTorch casts the scalar to the integer type
        self.value = value
        # PyTorch's kernel: self + value * t1 * t2, left to right. For complex operands the
        # value is a complex number even when it is 1, and a non-finite part of t1 spreads
        # a NaN to the other part of the product (1 * (inf + 0j) is inf + nanj).
        return x + value * t1 * t2

    def backward(self, F: Any, grad: Any) -> Any:
        # derivatives.yaml: grad * (tensor2 * value).conj() (conj by holomorphic)
        t1, t2 = self.saved
        needs = self.needs_input_grad
        v = self.value
        return (
            grad if needs[0] else None,
            grad * (t2 * v) if needs[1] else None,
            grad * (t1 * v) if needs[2] else None,
        )


class AddcdivBackward0(Op):
    """out = input + value * tensor1 / tensor2"""

    pointwise = True

    value: Any

    holomorphic = True

    saved_inputs: tuple[int, ...] = (1, 2)
    # tensor2 is read by two gradients' formulas: PyTorch's codegen then saves it whatever
    # needs a gradient (it guards only a tensor that one formula reads)
    saved_for: tuple[tuple[int, ...], ...] = ((2,), (0, 1, 2))
    __slots__ = ("value",)

    @keeps_operand_layout
    def forward(self, x: Any, t1: Any, t2: Any, value: Any = 1) -> Any:
        if t1.dtype.kind in "iub" and t2.dtype.kind in "iub":
            raise RuntimeError(
                "Integer division with addcdiv is no longer supported, and in a future release "
                "addcdiv will perform a true division of tensor1 and tensor2. The historic "
                "addcdiv behavior can be implemented as (input + value * torch.trunc(tensor1 / "
                "tensor2)).to(input.dtype) for integer inputs and as (input + value * tensor1 "
                "/ tensor2) for float inputs. The future addcdiv behavior is just the latter "
                "implementation: (input + value * tensor1 / tensor2), for all dtypes."
            )
        x, t1, t2 = _three_operands("addcdiv", x, t1, t2)
        self.value = value
        with np.errstate(divide="ignore", invalid="ignore"):
            return x + value * t1 / t2  # PyTorch's kernel, left to right (see addcmul)

    def backward(self, F: Any, grad: Any) -> Any:
        # derivatives.yaml: grad * (value / tensor2).conj() and
        # -grad * (value * tensor1 / (tensor2 * tensor2)).conj() (conj by holomorphic)
        t1, t2 = self.saved
        needs = self.needs_input_grad
        v = self.value
        return (
            grad if needs[0] else None,
            grad * (v / t2) if needs[1] else None,
            -grad * (t1 * v / (t2 * t2)) if needs[2] else None,
        )


def addcmul(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: float = 1) -> Tensor:
    """``input + value * tensor1 * tensor2``, broadcasting all three.

    Example::

        >>> one = glassgrad.ones(2)
        >>> glassgrad.addcmul(one, glassgrad.tensor([2.0, 3.0]), glassgrad.tensor([4.0, 5.0]))
        tensor([ 9., 16.])
    """
    check_tensor(input, "addcmul")
    check_tensor(tensor1, "addcmul", "tensor1", 2)
    check_tensor(tensor2, "addcmul", "tensor2", 3)
    return AddcmulBackward0.apply(input, tensor1, tensor2, value=value)


def addcdiv(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: float = 1) -> Tensor:
    """``input + value * tensor1 / tensor2``, broadcasting all three (floats only).

    Example::

        >>> one = glassgrad.ones(2)
        >>> glassgrad.addcdiv(one, glassgrad.tensor([2.0, 3.0]), glassgrad.tensor([4.0, 6.0]))
        tensor([1.5000, 1.5000])
    """
    check_tensor(input, "addcdiv")
    check_tensor(tensor1, "addcdiv", "tensor1", 2)
    check_tensor(tensor2, "addcdiv", "tensor2", 3)
    return AddcdivBackward0.apply(input, tensor1, tensor2, value=value)


register(
    "lerp",
    lerp,
    nodes=(LerpBackward0, LerpBackward1),
    samples=lambda rng: [
        Sample((randn(rng, 3, 4), randn(rng, 3, 4), 0.3)),
        Sample((randn(rng, 3, 4), randn(rng, 4), 0.8)),
        Sample((randn(rng, 3, 4), randn(rng, 3, 4), rng.random((3, 4)))),
        Sample((randn(rng, 3, 1), randn(rng, 1, 4), NoGrad(rng.random(4)))),
        Sample((randn(rng, 4, 3).T, randn(rng, 3, 4), np.asarray(rng.random()))),
    ],
)


register(
    "addcmul",
    addcmul,
    nodes=(AddcmulBackward0,),
    samples=lambda rng: [
        Sample((randn(rng, 3, 4), randn(rng, 3, 4), randn(rng, 3, 4))),
        Sample((randn(rng, 3, 4), randn(rng, 3, 1), randn(rng, 4)), {"value": 0.5}),
        Sample((randn(rng, 4), NoGrad(randn(rng, 2, 4)), randn(rng, 4, 3).T[:1])),
        Sample((np.array([1, 2]), np.array([3, 4]), np.array([5, 6])), {"value": 2}, grad=False),
    ],
)


register(
    "addcdiv",
    addcdiv,
    nodes=(AddcdivBackward0,),
    samples=lambda rng: [
        Sample((randn(rng, 3, 4), randn(rng, 3, 4), _positive_divisor(rng, 3, 4))),
        Sample((randn(rng, 3, 4), randn(rng, 3, 1), -_positive_divisor(rng, 4)), {"value": 2}),
        Sample((randn(rng), randn(rng, 2, 3), NoGrad(_positive_divisor(rng, 3)))),
    ],
)


def _addcmul_inplace(self: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: float = 1):
    return apply_inplace(AddcmulBackward0, self, tensor1, tensor2, value=value)


def _addcdiv_inplace(self: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: float = 1):
    return apply_inplace(AddcdivBackward0, self, tensor1, tensor2, value=value)


TENSOR_METHODS: dict[str, Any] = {
    "lerp_": _lerp_inplace,
    "addcmul_": _addcmul_inplace,
    "addcdiv_": _addcdiv_inplace,
}
