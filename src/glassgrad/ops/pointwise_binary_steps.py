"""Binary step functions: ``nextafter`` (PyTorch's derivative: 1 for its first operand where
it differs from the second, 0 for the second) and ``heaviside`` (no derivative: PyTorch's
NotImplemented node), with their in-place forms."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._tensor import Tensor
from ..autograd.op import Op, apply_inplace
from ._common import binary_operands, check_tensor
from ._not_implemented import _binary, _not_implemented_node, any_complex, in_place, refuse_complex
from ._registry import NoGrad, Sample, register
from ._samples import randn
from .pointwise_binary import _tensor_other


class NextafterBackward0(Op):
    """out = the next float after a towards b; PyTorch's derivative: 1 for a where a != b
    (0 where a == b, where out is a itself), 0 for b"""

    pointwise = True

    saved_inputs: tuple[int, ...] = (0, 1)  # as PyTorch's node
    # Only a's gradient reads them (b's is zeros): with only b requiring grad, PyTorch saves
    # neither, and a or b may change in place before the backward.
    saved_for: tuple[tuple[int, ...], ...] = ((0,), (0,))

    def forward(self, a: Any, b: Any) -> Any:
        refuse_complex("nextafter_cpu", a, b)
        a, b = binary_operands(a, b)
        return _binary("nextafter", a, b, np.nextafter)

    def backward(self, F: Any, grad: Any) -> Any:
        needs = self.needs_input_grad
        zero = F.zeros(self._meta[2], self._meta[3]) if needs[1] else None
        if not needs[0]:
            return None, zero
        a, b = self.saved
        return F.where(a != b, grad, 0.0), zero


def nextafter(input: Tensor, other: Tensor) -> Tensor:
    """The next representable value after ``input`` towards ``other``.

    Example::

        >>> glassgrad.nextafter(glassgrad.tensor([1.0]), glassgrad.tensor([2.0])) > 1
        tensor([True])
    """
    check_tensor(input, "nextafter")
    return NextafterBackward0.apply(input, _tensor_other(other, "nextafter"))


def _heaviside_arrays(x: np.ndarray, values: np.ndarray) -> np.ndarray:
    if any_complex(x, values):
        raise RuntimeError("heaviside is not yet implemented for complex tensors.")
    if x.dtype != values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    # PyTorch's kernel, x == 0 ? values : x > 0 (NumPy's heaviside gives NaN at a NaN)
    return _binary("heaviside", x, values, lambda a, v: np.where(a == 0, v, a > 0)).astype(x.dtype)


HeavisideNotImplemented: type[Op] = _not_implemented_node("heaviside", _heaviside_arrays)
_HeavisideInplaceNotImplemented: type[Op] = in_place(HeavisideNotImplemented)
HeavisideNotImplemented.pointwise, HeavisideNotImplemented.vector_bits = True, 0  # cpu_kernel


def heaviside(input: Tensor, values: Tensor) -> Tensor:
    """The step function: 0 where ``input < 0``, 1 where ``> 0``, ``values`` where 0.

    Example::

        >>> glassgrad.heaviside(glassgrad.tensor([-1.0, 0.0, 2.0]), glassgrad.tensor([0.5]))
        tensor([0.0000, 0.5000, 1.0000])
    """
    check_tensor(input, "heaviside")
    return HeavisideNotImplemented.apply(input, check_tensor(values, "heaviside", "values", 2))


# --- registry ------------------------------------------------------------------------------


register(
    "nextafter",
    nextafter,
    nodes=(NextafterBackward0,),
    samples=lambda rng: [
        Sample((randn(rng, 3), randn(rng, 3)), fd=False, note="a step function"),
        Sample((randn(rng, 2, 3), NoGrad(randn(rng, 3))), fd=False),
    ],
)


register(
    "heaviside",
    heaviside,
    nodes=(HeavisideNotImplemented,),
    differentiable=False,
    samples=lambda rng: [
        Sample((NoGrad(np.array([-1.0, 0.0, 2.0])), NoGrad(np.array([0.5])))),
        Sample((np.array([-1, 0, 2]), np.array([7, 8, 9]))),
    ],
)


TENSOR_METHODS: dict[str, Any] = {
    "nextafter_": lambda self, other: apply_inplace(NextafterBackward0, self, other),
    "heaviside_": lambda self, values: apply_inplace(
        _HeavisideInplaceNotImplemented,
        check_tensor(self, "heaviside_"),
        check_tensor(values, "heaviside_", "values", 2),
    ),
}
