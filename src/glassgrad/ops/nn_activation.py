"""``nn.functional``'s ReLU family: relu, relu6, hardtanh, leaky_relu, elu, selu, celu and
their in-place forms, and what the other activation modules share (``call_op``, ``NN``, the
Scalar-overload nodes AddBackward1 / MulBackward1 / DivBackward1). The smooth activations are
in ``nn_activation_smooth.py``, softmax in ``nn_softmax.py``, normalize and the similarities
in ``nn_similarity.py``.

Each activation is one Node class named as PyTorch names its grad_fn (``EluBackward0`` ...), a
public function with PyTorch's signature (``inplace=True`` writes into the input through
``apply_inplace``), and a registry row in the ``nn.functional`` namespace.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _dtype
from .._dtype import scalar_type_name
from .._tensor import Tensor
from ..autograd.op import Op, apply_inplace
from . import pointwise
from ._common import binary_operands, check_numbers, check_tensor
from ._elu_backward import elu_backward
from ._masked_backward import (
    HardtanhBackwardBackward0,
    LeakyReluBackwardBackward0,
    masked_backward,
)
from ._namespace import ArrayNamespace
from ._registry import NoGrad, Sample, register
from ._samples import randn, unary_samples

__all__ = [
    "call_op",
    "relu",
    "relu_",
    "relu6",
    "leaky_relu",
    "leaky_relu_",
    "elu",
    "elu_",
    "selu",
    "selu_",
    "celu",
    "celu_",
    "hardtanh",
    "hardtanh_",
]


_SELU_ALPHA = 1.6732632423543772848170429916717


_SELU_SCALE = 1.0507009873554804934193349852946


def call_op(F: Any, node_cls: type, *inputs: Any, **params: Any) -> Any:
    """Run ``node_cls`` inside a backward formula: on arrays its forward, on Tensors the
    recorded op (so the formula stays differentiable under ``create_graph``)."""
    if F is ArrayNamespace:
        return node_cls.__new__(node_cls).forward(*inputs, **params)
    return node_cls.apply(*inputs, **params)


def _check_floating(x: np.ndarray, op: str) -> None:
    # PyTorch's kernels for these ops exist for floating types only.
    if x.dtype.kind != "f":
        raise NotImplementedError(
            f"{op}: not implemented for '{scalar_type_name(x.dtype)}' (expected a floating point "
            f"input, got dtype {x.dtype})"
        )


def _sigmoid(x: np.ndarray) -> np.ndarray:
    # 1 / (1 + e^-x) without overflow, and to full relative precision in both tails.
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def _softplus(x: np.ndarray) -> np.ndarray:
    # log(1 + e^x) without overflow: finite for |x| of 1e4 and beyond.
    return np.logaddexp(0.0, x)


# --- scalar-operand nodes ----------------------------------------------------------------------
# PyTorch's C++ composites (pairwise_distance, the label-smoothing and probability-target
# cross entropy) call the Scalar overloads of add/mul/div, recorded as AddBackward1,
# MulBackward1 and DivBackward1 with a single edge; these nodes keep those graphs the same.


class AddBackward1(Op):
    """out = x + alpha * other, ``other`` a Python number"""

    def forward(self, x: Any, other: Any, alpha: Any = 1) -> Any:
        x, other = binary_operands(x, other)
        return x + alpha * other

    def backward(self, F: Any, grad: Any) -> Any:
        return grad


class MulBackward1(Op):
    """out = x * other, ``other`` a Python number"""

    other: Any

    __slots__ = ("other",)

    def forward(self, x: Any, other: Any) -> Any:
        self.other = other
        x, other = binary_operands(x, other)
        return x * other

    def backward(self, F: Any, grad: Any) -> Any:
        return grad * self.other


class DivBackward1(Op):
    """out = x / other, ``other`` a Python number"""

    other: Any

    __slots__ = ("other",)

    def forward(self, x: Any, other: Any) -> Any:
        self.other = other
        x = x if x.dtype.kind == "f" else x.astype(_dtype.default_numpy_float())
        return x / other

    def backward(self, F: Any, grad: Any) -> Any:
        return grad / self.other


# --- rectifiers --------------------------------------------------------------------------------


class HardtanhBackward0(Op):
    """out = min(max(x, min_val), max_val); the gradient passes strictly inside the bounds.

    The input is saved, as PyTorch saves it (for the in-place variant, the values before the
    write: see apply_inplace).
    """

    pointwise = True

    max_val: Any
    min_val: Any

    saved_inputs: tuple[int, ...] = (0,)
    grad_reads_saved = True
    __slots__ = ("min_val", "max_val")

    def forward(self, x: Any, min_val: Any = -1.0, max_val: Any = 1.0) -> Any:
        if x.dtype == np.bool_:
            raise RuntimeError("Bool inputs not supported for hardtanh")
        if x.dtype.kind == "c":  # PyTorch's hardtanh is a clamp
            raise NotImplementedError("clamp is not supported for complex types")
        self.min_val, self.max_val = min_val, max_val
        return np.clip(x, min_val, max_val).astype(x.dtype, copy=False)

    def backward(self, F: Any, grad: Any) -> Any:
        (x,) = self.saved
        # The test is the one of PyTorch's scalar loop, ``x <= min || x >= max ? 0 : grad``,
        # so a NaN input passes its gradient (the vectorized loop, over whole SIMD vectors of
        # 8 or 16 elements by dtype and machine, gives 0: docs/fuzzing.md, "Known
        # differences").
        node = HardtanhBackwardBackward0
        return masked_backward(node, grad, x, min_val=self.min_val, max_val=self.max_val)


class LeakyReluBackward0(Op):
    """out = x if x > 0 else negative_slope * x"""

    pointwise = True

    negative_slope: Any

    saved_inputs: tuple[int, ...] = (0,)
    grad_reads_saved = True
    __slots__ = ("negative_slope",)

    def forward(self, x: Any, negative_slope: Any = 0.01) -> Any:
        _check_floating(x, "leaky_relu")
        self.negative_slope = negative_slope
        return np.where(x > 0, x, x * negative_slope)

    def backward(self, F: Any, grad: Any) -> Any:
        (x,) = self.saved
        return masked_backward(
            LeakyReluBackwardBackward0, grad, x, negative_slope=self.negative_slope
        )


class LeakyReluBackward1(LeakyReluBackward0):
    """In-place leaky_relu: the slope is read from the result (needs negative_slope >= 0)."""

    saved_inputs: tuple[int, ...] = ()
    saves_output = True

    def backward(self, F: Any, grad: Any) -> Any:
        if self.negative_slope < 0:
            raise RuntimeError(
                "In-place leakyReLu backward calculation is triggered with a negative slope "
                "which is not supported. This is caused by calling in-place forward function "
                "with a negative slope, please call out-of-place version instead."
            )
        (out,) = self.saved
        return masked_backward(
            LeakyReluBackwardBackward0, grad, out, negative_slope=self.negative_slope
        )


class EluBackward0(Op):
    """out = scale * x if x > 0 else alpha * scale * (exp(input_scale * x) - 1)

    ``elu`` has scale = input_scale = 1; ``selu`` uses its fixed alpha and scale.
    """

    pointwise = True

    alpha: Any
    input_scale: Any
    scale: Any

    saved_inputs: tuple[int, ...] = (0,)
    __slots__ = ("alpha", "scale", "input_scale")
    op_name = "elu"

    def forward(self, x: Any, alpha: Any = 1.0, scale: Any = 1.0, input_scale: Any = 1.0) -> Any:
        _check_floating(x, self.op_name)
        self.alpha, self.scale, self.input_scale = alpha, scale, input_scale
        negative = np.expm1(np.minimum(x, 0) * input_scale) * (alpha * scale)
        return np.where(x > 0, x * scale, negative)

    def backward(self, F: Any, grad: Any) -> Any:
        (x,) = self.saved
        return elu_backward(grad, x, (self.alpha, self.scale, self.input_scale), False)


class EluBackward1(EluBackward0):
    """In-place elu/selu: the slope is read from the result (needs alpha >= 0)."""

    saved_inputs: tuple[int, ...] = ()
    saves_output = True

    def backward(self, F: Any, grad: Any) -> Any:
        if self.alpha < 0:
            raise RuntimeError(
                f"In-place {self.op_name} backward calculation is triggered with a negative "
                "slope which is not supported. This is caused by calling in-place forward "
                "function with a negative slope, please call out-of-place version instead."
            )
        (out,) = self.saved
        return elu_backward(grad, out, (self.alpha, self.scale, self.input_scale), True)


class CeluBackward0(EluBackward0):
    """out = x if x > 0 else alpha * (exp(x / alpha) - 1)"""

    op_name = "celu"


class CeluBackward1(EluBackward1):
    op_name = "celu"


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """Rectified linear unit, ``max(input, 0)``; the gradient at 0 is 0, as in PyTorch.

    Example::

        >>> glassgrad.nn.functional.relu(glassgrad.tensor([-1.0, 2.0]))
        tensor([0., 2.])
    """
    check_tensor(input, "relu_" if inplace else "relu")
    if inplace:
        return apply_inplace(pointwise.ReluBackward0, input)
    return pointwise.ReluBackward0.apply(input)


def relu_(input: Tensor) -> Tensor:
    """In-place ``relu``.

    Example::

        >>> x = glassgrad.tensor([-1.0, 2.0])
        >>> glassgrad.nn.functional.relu_(x)
        tensor([0., 2.])
    """
    return relu(input, inplace=True)


def hardtanh(
    input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False
) -> Tensor:
    """``clamp(input, min_val, max_val)``; the gradient is 1 strictly inside the bounds.

    Example::

        >>> glassgrad.nn.functional.hardtanh(glassgrad.tensor([-3.0, 0.5, 2.0]))
        tensor([-1.0000,  0.5000,  1.0000])
    """
    check_tensor(input, "hardtanh_" if inplace else "hardtanh")
    if min_val > max_val:
        raise ValueError(
            f"hardtanh: min_val cannot be greater than max_val (got min_val={min_val}, "
            f"max_val={max_val})"
        )
    if inplace:
        return apply_inplace(HardtanhBackward0, input, min_val=min_val, max_val=max_val)
    return HardtanhBackward0.apply(input, min_val=min_val, max_val=max_val)


def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    """In-place ``hardtanh``.

    Example::

        >>> glassgrad.nn.functional.hardtanh_(glassgrad.tensor([-3.0, 0.5]))
        tensor([-1.0000,  0.5000])
    """
    return hardtanh(input, min_val, max_val, inplace=True)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    """``min(max(input, 0), 6)`` (``hardtanh(input, 0, 6)``, as PyTorch records it).

    Example::

        >>> glassgrad.nn.functional.relu6(glassgrad.tensor([-1.0, 3.0, 8.0]))
        tensor([0., 3., 6.])
    """
    check_tensor(input, "relu6_" if inplace else "relu6")
    return hardtanh(input, 0.0, 6.0, inplace)


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """``input`` where positive, else ``negative_slope * input`` (slope at 0: negative_slope).

    Example::

        >>> glassgrad.nn.functional.leaky_relu(glassgrad.tensor([-2.0, 3.0]), 0.1)
        tensor([-0.2000,  3.0000])
    """
    check_tensor(input, "leaky_relu_" if inplace else "leaky_relu")
    check_numbers("leaky_relu_" if inplace else "leaky_relu", negative_slope=negative_slope)
    if inplace:
        return apply_inplace(LeakyReluBackward1, input, negative_slope=negative_slope)
    return LeakyReluBackward0.apply(input, negative_slope=negative_slope)


def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    """In-place ``leaky_relu``.

    Example::

        >>> glassgrad.nn.functional.leaky_relu_(glassgrad.tensor([-2.0, 3.0]), 0.5)
        tensor([-1.,  3.])
    """
    return leaky_relu(input, negative_slope, inplace=True)


def _elu_like(
    input: Tensor, name: str, inplace: bool, alpha: float, scale: float, input_scale: float
) -> Tensor:
    check_tensor(input, name + "_" if inplace else name)
    _check_floating(input._data, name)
    celu_like = name == "celu"
    if inplace:
        node = CeluBackward1 if celu_like else EluBackward1
        return apply_inplace(node, input, alpha=alpha, scale=scale, input_scale=input_scale)
    node = CeluBackward0 if celu_like else EluBackward0
    return node.apply(input, alpha=alpha, scale=scale, input_scale=input_scale)


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """Exponential linear unit: ``x`` if ``x > 0`` else ``alpha * (exp(x) - 1)``.

    Example::

        >>> glassgrad.nn.functional.elu(glassgrad.tensor([-1.0, 2.0]))
        tensor([-0.6321,  2.0000])
    """
    return _elu_like(input, "elu", inplace, alpha, 1.0, 1.0)


def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """In-place ``elu``.

    Example::

        >>> glassgrad.nn.functional.elu_(glassgrad.tensor([-1.0, 2.0]))
        tensor([-0.6321,  2.0000])
    """
    return elu(input, alpha, inplace=True)


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    """Scaled ELU: ``scale * elu(x, alpha)`` with alpha ≈ 1.6733 and scale ≈ 1.0507.

    Example::

        >>> glassgrad.nn.functional.selu(glassgrad.tensor([-1.0, 1.0]))
        tensor([-1.1113,  1.0507])
    """
    return _elu_like(input, "selu", inplace, _SELU_ALPHA, _SELU_SCALE, 1.0)


def selu_(input: Tensor) -> Tensor:
    """In-place ``selu``.

    Example::

        >>> glassgrad.nn.functional.selu_(glassgrad.tensor([1.0]))
        tensor([1.0507])
    """
    return selu(input, inplace=True)


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """Continuously differentiable ELU: ``x`` if ``x > 0`` else ``alpha * (exp(x / alpha) - 1)``.

    Example::

        >>> glassgrad.nn.functional.celu(glassgrad.tensor([-1.0, 2.0]), alpha=2.0)
        tensor([-0.7869,  2.0000])
    """
    check_tensor(input, "celu_" if inplace else "celu")
    if alpha == 0:
        raise RuntimeError("celu: ZeroDivisionError: alpha cannot be 0 for CELU")
    return _elu_like(input, "celu", inplace, alpha, 1.0, 1.0 / alpha)


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """In-place ``celu``.

    Example::

        >>> glassgrad.nn.functional.celu_(glassgrad.tensor([2.0]))
        tensor([2.])
    """
    return celu(input, alpha, inplace=True)


# --- registry ----------------------------------------------------------------------------------

NN = "nn.functional"


def _activation_samples(rng: np.random.Generator) -> list[Sample]:
    """The unary samples, plus values spread wide enough to reach every branch."""
    return [*unary_samples(rng), Sample((3.0 * randn(rng, 5, 4),), note="wide values")]


def _inplace_samples(**kwargs: Any) -> Any:
    # In-place rows run on tensors without grad (a leaf that requires grad cannot be written).
    return lambda rng: [
        Sample((NoGrad(3.0 * randn(rng, 3, 4)),), kwargs, grad=False),
    ]


register("relu", relu, nodes=(pointwise.ReluBackward0,), namespace=NN, samples=_activation_samples)


register("relu_", relu_, nodes=(pointwise.ReluBackward0,), namespace=NN, samples=_inplace_samples())


register("relu6", relu6, nodes=(HardtanhBackward0,), namespace=NN, samples=_activation_samples)


register(
    "hardtanh",
    hardtanh,
    nodes=(HardtanhBackward0,),
    namespace=NN,
    samples=lambda rng: [
        *_activation_samples(rng),
        Sample((3.0 * randn(rng, 4, 5), -0.5, 2.0)),
        Sample((3.0 * randn(rng, 4, 5),), {"min_val": -2.0, "max_val": 0.5}),
    ],
)


register(
    "hardtanh_",
    hardtanh_,
    nodes=(HardtanhBackward0,),
    namespace=NN,
    samples=_inplace_samples(min_val=-0.5, max_val=2.0),
)


register(
    "leaky_relu",
    leaky_relu,
    nodes=(LeakyReluBackward0, LeakyReluBackward1),
    namespace=NN,
    samples=lambda rng: [
        *_activation_samples(rng),
        Sample((randn(rng, 3, 4), 0.2)),
        Sample((randn(rng, 3, 4),), {"negative_slope": -0.3}),
    ],
)


register(
    "leaky_relu_",
    leaky_relu_,
    nodes=(LeakyReluBackward1,),
    namespace=NN,
    samples=_inplace_samples(negative_slope=0.2),
)


register(
    "elu",
    elu,
    nodes=(EluBackward0, EluBackward1),
    namespace=NN,
    samples=lambda rng: [
        *_activation_samples(rng),
        Sample((randn(rng, 3, 4), 0.5)),
        Sample((randn(rng, 3, 4),), {"alpha": 2.0}),
    ],
)


register("elu_", elu_, nodes=(EluBackward1,), namespace=NN, samples=_inplace_samples(alpha=0.7))


register(
    "selu", selu, nodes=(EluBackward0, EluBackward1), namespace=NN, samples=_activation_samples
)


register("selu_", selu_, nodes=(EluBackward1,), namespace=NN, samples=_inplace_samples())


register(
    "celu",
    celu,
    nodes=(CeluBackward0, CeluBackward1),
    namespace=NN,
    samples=lambda rng: [
        *_activation_samples(rng),
        Sample((randn(rng, 3, 4), 0.5)),
        Sample((randn(rng, 3, 4),), {"alpha": 2.0}),
    ],
)


register("celu_", celu_, nodes=(CeluBackward1,), namespace=NN, samples=_inplace_samples(alpha=2.0))


register(
    "sigmoid",
    pointwise.sigmoid,
    nodes=(pointwise.SigmoidBackward0,),
    namespace=NN,
    samples=_activation_samples,
)


register(
    "tanh",
    pointwise.tanh,
    nodes=(pointwise.TanhBackward0,),
    namespace=NN,
    samples=_activation_samples,
)
