"""Piecewise, gated and random activations: ``hardshrink softshrink threshold threshold_ glu
prelu rrelu rrelu_ gumbel_softmax`` (public in ``glassgrad.nn.functional``), with PyTorch's
nodes (``gumbel_softmax`` is PyTorch's composite).

Each backward reads the saved input (or, in place, the result) through a mask and is itself
differentiable under ``create_graph`` (``grad_reads_saved`` ties it to the saved tensors as
PyTorch's backward nodes take them).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from .._dtype import scalar_type_name
from .._factories import Generator
from .._strides import row_major
from .._tensor import Tensor
from ..autograd.op import Op, apply_inplace
from . import shape
from ._common import array_of, check_numbers, check_tensor, input_zeros, zeros_like_grad
from ._masked_backward import (
    HardshrinkBackwardBackward0,
    SoftshrinkBackwardBackward0,
    ThresholdBackwardBackward0,
    masked_backward,
)
from ._not_implemented import refuse_complex
from ._registry import NoGrad, Sample, register
from ._samples import randn, unary_samples
from .nn_activation import _check_floating, call_op
from .pointwise import SigmoidBackward0
from .random_fills import _rng


class HardshrinkBackward0(Op):
    """out = x where |x| > lambd, else 0."""

    lambd: Any

    saved_inputs: tuple[int, ...] = (0,)
    grad_reads_saved = True
    __slots__ = ("lambd",)

    def forward(self, x: Any, lambd: Any = 0.5) -> Any:
        _check_floating(x, "hardshrink")
        self.lambd = lambd
        return np.where((x >= -lambd) & (x <= lambd), 0, x).astype(x.dtype, copy=False)

    def backward(self, F: Any, grad: Any) -> Any:
        (x,) = self.saved
        return masked_backward(HardshrinkBackwardBackward0, grad, x, lambd=self.lambd)


class SoftshrinkBackward0(Op):
    """out = x - lambd where x > lambd, x + lambd where x < -lambd, else 0."""

    lambd: Any

    saved_inputs: tuple[int, ...] = (0,)
    grad_reads_saved = True
    __slots__ = ("lambd",)

    def forward(self, x: Any, lambd: Any = 0.5) -> Any:
        _check_floating(x, "softshrink")
        self.lambd = lambd
        # x * 0 in the middle, as PyTorch's kernel: -0.0 for a negative x
        shrunk = np.where(x > lambd, x - lambd, np.where(x < -lambd, x + lambd, x * 0))
        return shrunk.astype(x.dtype, copy=False)

    def backward(self, F: Any, grad: Any) -> Any:
        (x,) = self.saved
        return masked_backward(SoftshrinkBackwardBackward0, grad, x, lambd=self.lambd)


class ThresholdBackward0(Op):
    """out = x where x > threshold, else value."""

    pointwise = True

    threshold: Any
    value: Any

    saved_inputs: tuple[int, ...] = (0,)
    __slots__ = ("threshold", "value")

    def forward(self, x: Any, threshold: Any, value: Any) -> Any:
        if x.dtype == np.bool_:
            raise RuntimeError("\"threshold_cpu\" not implemented for 'Bool'")
        refuse_complex("threshold_cpu", x)
        self.threshold, self.value = threshold, value
        return np.where(x <= threshold, value, x).astype(x.dtype, copy=False)

    def backward(self, F: Any, grad: Any) -> Any:
        (x,) = self.saved
        return masked_backward(ThresholdBackwardBackward0, grad, x, threshold=self.threshold)


class ThresholdBackward1(ThresholdBackward0):
    """In-place ``threshold``: the mask is read from the input as it was before the write, a
    copy saved as PyTorch saves ``self.clone()`` (the result cannot tell ``value`` from a
    kept element when ``value > threshold``)."""

    # PyTorch's threshold builds its TensorIterator without the overlap check ("threshold is
    # idempotent, so overlap is okay"): an expanded tensor is written (fuzz seed 905762)
    allows_internal_overlap = True


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """``input`` where ``|input| > lambd``, else 0.

    Example::

        >>> glassgrad.nn.functional.hardshrink(glassgrad.tensor([-1.0, 0.2, 0.7]))
        tensor([-1.0000,  0.0000,  0.7000])
    """
    check_tensor(input, "hardshrink")
    return HardshrinkBackward0.apply(input, lambd=lambd)


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """``input`` moved ``lambd`` towards 0, and 0 within ``[-lambd, lambd]``.

    Example::

        >>> glassgrad.nn.functional.softshrink(glassgrad.tensor([-1.0, 0.2, 0.7]))
        tensor([-0.5000,  0.0000,  0.2000])
    """
    check_tensor(input, "softshrink")
    if lambd < 0:
        raise RuntimeError(f"lambda must be greater or equal to 0, but found to be {lambd}.")
    return SoftshrinkBackward0.apply(input, lambd=lambd)


def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    """``input`` where ``input > threshold``, else ``value``.

    Example::

        >>> glassgrad.nn.functional.threshold(glassgrad.tensor([-1.0, 0.2, 0.7]), 0.5, 9.0)
        tensor([9.0000, 9.0000, 0.7000])
    """
    check_tensor(input, "threshold_" if inplace else "threshold")
    check_numbers("threshold_" if inplace else "threshold", threshold=threshold, value=value)
    if inplace:
        return apply_inplace(ThresholdBackward1, input, threshold=threshold, value=value)
    return ThresholdBackward0.apply(input, threshold=threshold, value=value)


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:
    """In-place ``threshold``.

    Example::

        >>> glassgrad.nn.functional.threshold_(glassgrad.tensor([-1.0, 0.7]), 0.5, 9.0)
        tensor([9.0000, 0.7000])
    """
    return globals()["threshold"](input, threshold, value, inplace=True)


# --- gated linear unit -----------------------------------------------------------------------


def _halves(x: Any, dim: int) -> tuple:
    half = x.shape[dim] // 2
    lead = (slice(None),) * (dim % len(x.shape))
    return x[(*lead, slice(0, half))], x[(*lead, slice(half, None))]


class GluBackward0(Op):
    """out = a * sigmoid(b), ``a`` and ``b`` the two halves of the input along ``dim``."""

    dim: Any

    saved_inputs: tuple[int, ...] = (0,)
    __slots__ = ("dim",)

    def forward(self, x: Any, dim: Any) -> Any:
        self.dim = dim
        a, b = _halves(x, dim)
        return a / (1 + np.exp(-b))

    def backward(self, F: Any, grad: Any) -> Any:
        (x,) = self.saved
        return GluBackwardBackward0.call(grad, x, dim=self.dim)


class GluBackwardBackward0(Op):
    """PyTorch's ``glu_backward(grad, x, dim)``: (grad sigmoid(b), grad sigmoid(b) a
    (1 - sigmoid(b))). Under ``create_graph`` one node with edges to (grad, x), whose
    gradients are FunctionsManual.cpp's ``glu_double_backward_grad_output`` and
    ``glu_double_backward``, in their order of operations."""

    dim: Any

    saved_inputs: tuple[int, ...] = (0, 1)
    saved_for: tuple[tuple[int, ...], ...] = ((1,), (0, 1))
    __slots__ = ("dim",)

    def forward(self, grad: Any, x: Any, dim: Any) -> Any:
        self.dim = dim
        a, b = _halves(x, dim)
        grad_a = grad * (1 / (np.exp(-b) + 1))
        return np.concatenate([grad_a, grad_a * a * (1 - 1 / (np.exp(-b) + 1))], dim)

    def backward(self, F: Any, gg: Any) -> Any:
        grad, x = self.saved
        needs, dim = self.needs_input_grad, self.dim
        d_grad = d_x = None
        if needs[0]:  # glu_double_backward_grad_output
            sizes = list(array_of(x).shape)
            sizes[dim] //= 2
            ones = np.ones(sizes, array_of(x).dtype)
            tmp_a, tmp_b = _halves(gg * GluBackwardBackward0.call(ones, x, dim=dim), dim)
            d_grad = tmp_a + tmp_b
        if needs[1]:  # glu_double_backward
            first, second = _halves(x, dim)
            gg_first, gg_second = _halves(gg, dim)
            sig = call_op(F, SigmoidBackward0, second)
            one_sub_sig = 1 - sig
            sig_one_sub_sig = sig * one_sub_sig
            gg_second_times_first = gg_second * first
            grad_first = gg_second * grad * sig_one_sub_sig
            second_order = sig_one_sub_sig * one_sub_sig - sig * sig_one_sub_sig
            grad_second = (
                gg_second_times_first * grad * second_order + gg_first * grad * sig_one_sub_sig
            )
            d_x = _cat(grad_first, grad_second, dim)
        return d_grad, d_x


def _cat(a: Any, b: Any, dim: int) -> Any:
    if isinstance(a, Tensor) or isinstance(b, Tensor):
        return shape.cat([a, b], dim)
    return np.concatenate([a, b], dim)


def glu(input: Tensor, dim: int = -1) -> Tensor:
    """Gated linear unit: ``a * sigmoid(b)``, ``a`` and ``b`` the halves of ``input`` along
    ``dim``.

    Example::

        >>> glassgrad.nn.functional.glu(glassgrad.tensor([1.0, 2.0, 0.0, 0.0]))
        tensor([0.5000, 1.0000])
    """
    check_tensor(input, "glu")
    x = input._data
    if x.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    if not -x.ndim <= dim < x.ndim:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-x.ndim}, {x.ndim - 1}], "
            f"but got {dim})"
        )
    _check_floating(x, "glu")
    if x.shape[dim] % 2:
        raise RuntimeError(
            f"Halving dimension must be even, but dimension {dim % x.ndim} is size {x.shape[dim]}"
        )
    return GluBackward0.apply(input, dim=dim % x.ndim)


# --- learned and randomised leaky rectifiers ---------------------------------------------------


class PreluKernelBackward0(Op):
    """out = x where x > 0, else weight * x (weight broadcast over the channels)."""

    saved_inputs: tuple[int, ...] = (0, 1)

    def forward(self, x: Any, w: Any) -> Any:
        refuse_complex("prelu_cpu", x)
        return np.where(x > 0, x, w * x).astype(x.dtype, copy=False)

    def backward(self, F: Any, grad: Any) -> Any:
        x, w = self.saved
        grad_x, grad_w = PreluKernelBackwardBackward0.call(grad, x, w)
        needs = self.needs_input_grad
        return (grad_x if needs[0] else None), (grad_w if needs[1] else None)


class PreluKernelBackwardBackward0(Op):
    """PyTorch's ``_prelu_kernel_backward``: (grad where x > 0 else weight * grad, 0 where
    x > 0 else x * grad), both of the input's shape (the engine sums the weight's to its
    shape). Under ``create_graph`` one node with edges to (grad, x, weight), whose gradients
    are derivatives.yaml's, masked by ``x >= 0`` (not the kernel's ``x > 0``)."""

    saved_inputs: tuple[int, ...] = (0, 1, 2)
    takes_undefined_grads = True  # an undefined gradient's terms are left out, as in PyTorch
    __slots__ = ()

    def forward(self, grad: Any, x: Any, w: Any) -> Any:
        positive = x > 0
        grad_x = np.where(positive, grad, w * grad).astype(x.dtype, copy=False)
        grad_w = np.where(positive, 0.0, x * grad).astype(x.dtype, copy=False)
        return grad_x, grad_w

    def backward(self, F: Any, grads: Any) -> Any:
        gg_x, gg_w = grads
        grad, x, w = self.saved
        at_least_zero = array_of(x) >= 0
        needs = self.needs_input_grad
        d_grad = d_x = d_w = None
        if needs[0]:
            if gg_x is None:
                d_grad = F.where(at_least_zero, 0.0, gg_w * x)
            elif gg_w is None:
                d_grad = F.where(at_least_zero, gg_x, gg_x * w)
            else:
                d_grad = F.where(at_least_zero, gg_x, gg_x * w + gg_w * x)
        if needs[1]:
            d_x = (
                zeros_like_grad(F, x) if gg_w is None else F.where(at_least_zero, 0.0, grad * gg_w)
            )
        if needs[2]:
            d_w = (
                zeros_like_grad(F, x) if gg_x is None else F.where(at_least_zero, 0.0, grad * gg_x)
            )
        return d_grad, d_x, d_w


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """``input`` where positive, else ``weight * input``; ``weight`` has one element or one per
    channel (dim 1).

    Example::

        >>> glassgrad.nn.functional.prelu(glassgrad.tensor([-2.0, 3.0]), glassgrad.tensor([0.25]))
        tensor([-0.5000,  3.0000])
    """
    check_tensor(input, "prelu")
    check_tensor(weight, "prelu", "weight", 2)
    x, w = input._data, weight._data
    if x.dtype != w.dtype:
        raise RuntimeError(
            f"prelu: Type promoting not supported. Got {scalar_type_name(x.dtype)} and "
            f"{scalar_type_name(w.dtype)}"
        )
    if w.size != 1:
        if x.ndim == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        channels = x.shape[1] if x.ndim > 1 else 1
        if channels != w.size:
            raise RuntimeError(
                f"Mismatch of parameter numbers and input channel size. Found parameter numbers "
                f"= {w.size} and channel size = {channels}."
            )
    if w.ndim > 1:
        raise RuntimeError(
            f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {w.ndim}"
        )
    if x.ndim >= 2:
        sizes = [1] * x.ndim
        sizes[1] = w.size
        weight = shape.view(weight, tuple(sizes))
    return PreluKernelBackward0.apply(input, weight)


class RreluWithNoiseBackward0(Op):
    """out = x where x >= 0, else noise * x: noise drawn from U(lower, upper) per element in
    training, (lower + upper) / 2 otherwise."""

    lower: Any
    training: Any
    upper: Any

    saved_inputs: tuple[int, ...] = (0,)
    grad_reads_saved = True
    __slots__ = ("lower", "upper", "training", "_noise")

    @row_major
    def forward(self, x: Any, lower: Any, upper: Any, training: Any, noise: Any) -> Any:
        _check_floating(x, "rrelu_with_noise")
        self.lower, self.upper, self.training, self._noise = lower, upper, training, noise
        return (x * noise).astype(x.dtype, copy=False)

    def backward(self, F: Any, grad: Any) -> Any:
        (x,) = self.saved
        slope = self._noise.astype(array_of(x).dtype)
        if not (self.training and self.upper - self.lower > 1e-6):
            slope = np.where(array_of(x) > 0, 1.0, (self.lower + self.upper) / 2).astype(
                slope.dtype
            )
        if isinstance(x, Tensor) and type(self) is RreluWithNoiseBackward0:
            # create_graph: PyTorch's rrelu_with_noise_backward node (the in-place form's
            # gradient reads the result, which PyTorch's graph does not reach: kept composite)
            return RreluWithNoiseBackwardBackward0.apply(grad, x, slope=slope)
        return grad * (Tensor._from_array(slope) if isinstance(grad, Tensor) else slope)


class RreluWithNoiseBackwardBackward0(Op):
    """``rrelu_with_noise_backward(grad, x)`` recorded under ``create_graph``: ``grad`` times
    the slope; derivatives.yaml's derivatives are the same backward of the incoming gradient
    and ``zeros_like(grad)`` for ``x``."""

    slope: np.ndarray

    saved_inputs: tuple[int, ...] = (1,)
    saved_for: tuple[tuple[int, ...], ...] = ((0,),)
    __slots__ = ("slope",)

    def forward(self, grad: Any, x: Any, slope: Any) -> Any:
        self.slope = slope
        return grad * slope

    def backward(self, F: Any, gg: Any) -> Any:
        (x,) = self.saved
        needs = self.needs_input_grad
        d_grad = None
        if needs[0]:
            d_grad = RreluWithNoiseBackwardBackward0.call(gg, x, slope=self.slope)
        return d_grad, input_zeros(F, self, 1) if needs[1] else None


class RreluWithNoiseBackward1(RreluWithNoiseBackward0):
    """In-place ``rrelu`` (PyTorch's node saves the result)."""

    saved_inputs: tuple[int, ...] = ()
    saves_output = True


def _rrelu_noise(
    x: np.ndarray, lower: float, upper: float, training: bool, generator: Any
) -> np.ndarray:
    if not training:
        return np.where(x >= 0, 1.0, (lower + upper) / 2).astype(x.dtype)
    draws = _rng(generator).uniform(lower, upper, x.shape)
    return np.where(x >= 0, 1.0, draws).astype(x.dtype)


def rrelu(
    input: Tensor,
    lower: float = 1.0 / 8,
    upper: float = 1.0 / 3,
    training: bool = False,
    inplace: bool = False,
) -> Tensor:
    """Randomised leaky ReLU: negative inputs times a slope drawn from U(lower, upper) per
    element in training, times ``(lower + upper) / 2`` otherwise.

    Example::

        >>> glassgrad.nn.functional.rrelu(glassgrad.tensor([-3.0, 2.0]), 0.1, 0.3)
        tensor([-0.6000,  2.0000])
    """
    return _rrelu(input, lower, upper, training, inplace, None)


def _rrelu(
    input: Tensor, lower: float, upper: float, training: bool, inplace: bool, generator: Any
) -> Tensor:
    check_tensor(input, "rrelu_" if inplace else "rrelu")
    if lower > upper:
        raise RuntimeError(
            f"Lower bound should be less than or equal to the upper bound, but got lower "
            f"bound: {lower} and upper bound: {upper}"
        )
    noise = _rrelu_noise(input._data, lower, upper, bool(training), generator)
    params = dict(lower=lower, upper=upper, training=bool(training), noise=noise)
    if inplace:
        return apply_inplace(RreluWithNoiseBackward1, input, **params)
    return RreluWithNoiseBackward0.apply(input, **params)


def rrelu_(
    input: Tensor,
    lower: float = 1.0 / 8,
    upper: float = 1.0 / 3,
    training: bool = False,
    generator: Generator | None = None,
) -> Tensor:
    """In-place ``rrelu``; its slopes drawn from ``generator`` (the default one if None), as
    ``torch.rrelu_``'s.

    Example::

        >>> glassgrad.nn.functional.rrelu_(glassgrad.tensor([-3.0, 2.0]), 0.1, 0.3)
        tensor([-0.6000,  2.0000])
    """
    return _rrelu(input, lower, upper, training, True, generator)


def gumbel_softmax(
    logits: Tensor, tau: float = 1, hard: bool = False, eps: float = 1e-10, dim: int = -1
) -> Tensor:
    """A sample from the Gumbel-softmax distribution: ``softmax((logits + g) / tau)``, ``g``
    drawn from Gumbel(0, 1); with ``hard``, the one-hot of its argmax in the forward pass and
    the soft sample's gradient in the backward pass (straight-through).

    Example::

        >>> y = glassgrad.nn.functional.gumbel_softmax(glassgrad.zeros(2, 3), hard=True)
        >>> y.sum(-1)
        tensor([1., 1.])
    """
    check_tensor(logits, "gumbel_softmax")
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    gumbels = -logits.new_empty(logits.shape).exponential_().log()
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = logits.new_zeros(logits.shape).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft


# --- registry ---------------------------------------------------------------------------


def _wide_samples(rng: np.random.Generator) -> list[Sample]:
    return [*unary_samples(rng), Sample((3.0 * randn(rng, 5, 4),), note="wide values")]


def _shrink_samples(rng: np.random.Generator) -> list[Sample]:
    return [*_wide_samples(rng), Sample((3.0 * randn(rng, 4, 3),), {"lambd": 1.5})]


def _threshold_samples(rng: np.random.Generator) -> list[Sample]:
    return [
        Sample((3.0 * randn(rng, 4, 5), 0.5, -2.0)),
        Sample((3.0 * randn(rng, 3), -1.0, 7.0)),
        Sample((NoGrad(3.0 * randn(rng, 3, 4)), 0.1, 2.0), {"inplace": True}, grad=False),
    ]


def _threshold_inplace_samples(rng: np.random.Generator) -> list[Sample]:
    return [Sample((NoGrad(3.0 * randn(rng, 3, 4)), 0.1, 2.0), grad=False)]


def _glu_samples(rng: np.random.Generator) -> list[Sample]:
    return [
        Sample((randn(rng, 3, 4),)),
        Sample((randn(rng, 4, 3), 0)),
        Sample((randn(rng, 2, 6, 3), 1)),
    ]


def _prelu_samples(rng: np.random.Generator) -> list[Sample]:
    return [
        Sample((3.0 * randn(rng, 2, 3, 4), randn(rng, 3))),
        Sample((3.0 * randn(rng, 4, 5), randn(rng, 1))),
        Sample((3.0 * randn(rng, 6), randn(rng, 1)), note="1-d input"),
        Sample((3.0 * randn(rng, 2, 3), randn(rng)), note="0-d weight"),
    ]


def _rrelu_samples(rng: np.random.Generator) -> list[Sample]:
    return [
        Sample((3.0 * randn(rng, 4, 5),)),
        Sample((3.0 * randn(rng, 3, 4), 0.2, 0.5)),
        Sample((NoGrad(3.0 * randn(rng, 3, 4)),), {"inplace": True}, grad=False),
    ]


_NF = "nn.functional"
register(
    "hardshrink",
    hardshrink,
    nodes=(HardshrinkBackward0,),
    samples=_shrink_samples,
    namespace=_NF,
)
register(
    "softshrink",
    softshrink,
    nodes=(SoftshrinkBackward0,),
    samples=_shrink_samples,
    namespace=_NF,
)
register(
    "threshold",
    threshold,
    nodes=(ThresholdBackward0, ThresholdBackward1, ThresholdBackwardBackward0),
    samples=_threshold_samples,
    namespace=_NF,
)
register(
    "threshold_",
    threshold_,
    nodes=(ThresholdBackward1, ThresholdBackwardBackward0),
    samples=_threshold_inplace_samples,
    namespace=_NF,
)
register("glu", glu, nodes=(GluBackward0,), samples=_glu_samples, namespace=_NF)
register("prelu", prelu, nodes=(PreluKernelBackward0,), samples=_prelu_samples, namespace=_NF)
register(
    "rrelu",
    rrelu,
    nodes=(RreluWithNoiseBackward0, RreluWithNoiseBackward1),
    samples=_rrelu_samples,
    namespace=_NF,
)
register("rrelu_", rrelu_, nodes=(RreluWithNoiseBackward1,), namespace=_NF)
register("gumbel_softmax", gumbel_softmax, namespace=_NF)

__all__ = [
    "hardshrink",
    "softshrink",
    "threshold",
    "threshold_",
    "glu",
    "prelu",
    "rrelu",
    "rrelu_",
    "gumbel_softmax",
]
