"""The Bessel family: the modified Bessel functions of the first kind i0, i1 and their
exponentially scaled forms i0e, i1e (differentiable, with PyTorch's formulas), and the Bessel,
modified Bessel, spherical Bessel and Airy functions of ``torch.special`` that PyTorch does not
differentiate (their results never require grad, as in PyTorch).

Values come from ``scipy.special`` (imported on first use), except ``spherical_bessel_j0``
(``sin(x) / x``). One deviation, where PyTorch's own values are inaccurate (checked against
mpmath in tests/ops/test_special.py): its ``bessel_j0``/``j1``/``y0``/``y1`` are off by up to
1e-6 for 2.5 < |x| < 15.3, and its ``airy_ai`` by up to 3e-6 for x < -2.09; SciPy's values,
exact to double precision, are returned there.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .._tensor import Tensor
from ..autograd.op import Op, apply_inplace
from ._common import array_of, check_tensor, float_kernel
from ._out import out_result, unary_kernel
from ._registry import Sample, register
from ._samples import randn, unary_samples
from ._scipy import scipy_special
from .special import SPECIAL


def _scipy(name: str, op: str) -> Any:
    """A kernel calling ``scipy.special.<name>`` on the values."""
    return lambda values: getattr(scipy_special(op), name)(values)


class I0Backward0(Op):
    """d i0(x)/dx = i1(x)"""

    pointwise = True

    saved_inputs: tuple[int, ...] = (0,)

    def forward(self, x: Any) -> Any:
        return float_kernel(x, _scipy("i0", "i0"), "i0_vml_cpu")

    def backward(self, F: Any, grad: Any) -> Any:
        (x,) = self.saved
        return grad * SpecialI1Backward0.call(x)


class SpecialI0EBackward0(Op):
    """d i0e(x)/dx = i1e(x) - sgn(x) i0e(x)"""

    # A TensorIterator kernel in PyTorch (256-bit vectors, measured with an overlapping out=)
    pointwise, vector_bits = True, 256

    saved_inputs: tuple[int, ...] = (0,)
    saves_output = True

    def forward(self, x: Any) -> Any:
        return float_kernel(x, _scipy("i0e", "special.i0e"), "i0e_cpu")

    def backward(self, F: Any, grad: Any) -> Any:
        x, out = self.saved
        return grad * (SpecialI1EBackward0.call(x) - F.sign(x) * out)


def _not_tiny(F: Any, x: Any) -> tuple:
    """PyTorch's guard at 0, where the formulas below divide by x: the mask |x| > eps and
    x with eps in place of the tiny values."""
    values = array_of(x)
    mask = np.abs(values) > np.finfo(values.dtype).eps
    return mask, F.where(mask, x, float(np.finfo(values.dtype).eps))


class SpecialI1Backward0(Op):
    """d i1(x)/dx = i0(x) - i1(x) / x, 1/2 at 0"""

    # A TensorIterator kernel in PyTorch (no vectorized loop, measured with an overlapping out=)
    pointwise, vector_bits = True, 0

    saved_inputs: tuple[int, ...] = (0,)
    saves_output = True

    def forward(self, x: Any) -> Any:
        return float_kernel(x, _scipy("i1", "special.i1"), "i1_cpu")

    def backward(self, F: Any, grad: Any) -> Any:
        x, out = self.saved
        mask, safe = _not_tiny(F, x)
        slope = I0Backward0.call(safe) - out * (1.0 / safe)
        return grad * F.where(mask, slope, 0.5)


class SpecialI1EBackward0(Op):
    """d i1e(x)/dx = i0e(x) - i1e(x) (sgn(x) + 1/x), 1/2 at 0"""

    # A TensorIterator kernel in PyTorch (no vectorized loop, measured with an overlapping out=)
    pointwise, vector_bits = True, 0

    saved_inputs: tuple[int, ...] = (0,)
    saves_output = True

    def forward(self, x: Any) -> Any:
        return float_kernel(x, _scipy("i1e", "special.i1e"), "i1e_cpu")

    def backward(self, F: Any, grad: Any) -> Any:
        x, out = self.saved
        mask, safe = _not_tiny(F, x)
        slope = SpecialI0EBackward0.call(safe) - out * (F.sign(safe) + 1.0 / safe)
        return grad * F.where(mask, slope, 0.5)


def i0(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The modified Bessel function of the first kind of order 0.

    Example::

        >>> glassgrad.i0(glassgrad.tensor([0.0, 1.0]))
        tensor([1.0000, 1.2661])
    """
    return unary_kernel("i0", I0Backward0, i0, input, out)


def i0e(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """``exp(-|x|) * i0(x)``: i0 scaled so it neither overflows nor loses digits.

    Example::

        >>> glassgrad.special.i0e(glassgrad.tensor([0.0, 1.0]))
        tensor([1.0000, 0.4658])
    """
    return unary_kernel("special_i0e", SpecialI0EBackward0, i0e, input, out)


def i1(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The modified Bessel function of the first kind of order 1.

    Example::

        >>> glassgrad.special.i1(glassgrad.tensor([0.0, 1.0]))
        tensor([0.0000, 0.5652])
    """
    return unary_kernel("special_i1", SpecialI1Backward0, i1, input, out)


def i1e(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """``exp(-|x|) * i1(x)``.

    Example::

        >>> glassgrad.special.i1e(glassgrad.tensor([0.0, 1.0]))
        tensor([0.0000, 0.2079])
    """
    return unary_kernel("special_i1e", SpecialI1EBackward0, i1e, input, out)


def _i0_inplace(self: Tensor) -> Tensor:
    return apply_inplace(I0Backward0, self)


TENSOR_METHODS: dict[str, Any] = {"i0_": _i0_inplace}


# --- without derivatives ------------------------------------------------------------------------


def _non_differentiable(name: str, kernel: Any, doc: str, example: str) -> Any:
    """A ``torch.special`` function PyTorch does not differentiate: the result never requires
    grad and records no history."""

    def op(input: Tensor, *, out: Tensor | None = None) -> Tensor:
        check_tensor(input, f"special_{name}")
        result = Tensor._from_array(float_kernel(input._data, kernel, f"{name}_cpu"))
        return out_result(f"special_{name}", out, result, differentiable=False)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"{doc} PyTorch defines no derivative.\n\nExample::\n\n    >>> {example}\n"
    return op


def _spherical_j0(x: np.ndarray) -> np.ndarray:
    # sin(x) / x, 1 at 0 and 0 at +-inf, as PyTorch's kernel (whose Taylor series below 0.5
    # agrees with the ratio to rounding); NaN stays NaN. SciPy's spherical_jn is much slower.
    regular = np.isfinite(x) & (x != 0)
    if regular.all():
        return np.sin(x) / x
    safe = np.where(regular, x, 1.0)
    ends = np.where(x == 0, 1.0, np.where(np.isinf(x), 0.0, x))
    return np.where(regular, np.sin(safe) / safe, ends)


def _airy_ai(values: np.ndarray) -> np.ndarray:
    return scipy_special("special.airy_ai").airy(values)[0]


bessel_j0: Callable[..., Any] = _non_differentiable(
    "bessel_j0",
    _scipy("j0", "special.bessel_j0"),
    "The Bessel function of the first kind of order 0.",
    "glassgrad.special.bessel_j0(glassgrad.tensor([0.0, 1.0]))\n    tensor([1.0000, 0.7652])",
)
bessel_j1: Callable[..., Any] = _non_differentiable(
    "bessel_j1",
    _scipy("j1", "special.bessel_j1"),
    "The Bessel function of the first kind of order 1.",
    "glassgrad.special.bessel_j1(glassgrad.tensor([0.0, 1.0]))\n    tensor([0.0000, 0.4401])",
)
bessel_y0: Callable[..., Any] = _non_differentiable(
    "bessel_y0",
    _scipy("y0", "special.bessel_y0"),
    "The Bessel function of the second kind of order 0 (-inf at 0, NaN below).",
    "glassgrad.special.bessel_y0(glassgrad.tensor([1.0]))\n    tensor([0.0883])",
)
bessel_y1: Callable[..., Any] = _non_differentiable(
    "bessel_y1",
    _scipy("y1", "special.bessel_y1"),
    "The Bessel function of the second kind of order 1 (-inf at 0, NaN below).",
    "glassgrad.special.bessel_y1(glassgrad.tensor([1.0]))\n    tensor([-0.7812])",
)
modified_bessel_i0: Callable[..., Any] = _non_differentiable(
    "modified_bessel_i0",
    _scipy("i0", "special.modified_bessel_i0"),
    "The modified Bessel function of the first kind of order 0 (as ``i0``).",
    "glassgrad.special.modified_bessel_i0(glassgrad.tensor([1.0]))\n    tensor([1.2661])",
)
modified_bessel_i1: Callable[..., Any] = _non_differentiable(
    "modified_bessel_i1",
    _scipy("i1", "special.modified_bessel_i1"),
    "The modified Bessel function of the first kind of order 1 (as ``i1``).",
    "glassgrad.special.modified_bessel_i1(glassgrad.tensor([1.0]))\n    tensor([0.5652])",
)
modified_bessel_k0: Callable[..., Any] = _non_differentiable(
    "modified_bessel_k0",
    _scipy("k0", "special.modified_bessel_k0"),
    "The modified Bessel function of the second kind of order 0.",
    "glassgrad.special.modified_bessel_k0(glassgrad.tensor([1.0]))\n    tensor([0.4210])",
)
modified_bessel_k1: Callable[..., Any] = _non_differentiable(
    "modified_bessel_k1",
    _scipy("k1", "special.modified_bessel_k1"),
    "The modified Bessel function of the second kind of order 1.",
    "glassgrad.special.modified_bessel_k1(glassgrad.tensor([1.0]))\n    tensor([0.6019])",
)
scaled_modified_bessel_k0: Callable[..., Any] = _non_differentiable(
    "scaled_modified_bessel_k0",
    _scipy("k0e", "special.scaled_modified_bessel_k0"),
    "``exp(x) * modified_bessel_k0(x)``.",
    "glassgrad.special.scaled_modified_bessel_k0(glassgrad.tensor([1.0]))\n    tensor([1.1445])",
)
scaled_modified_bessel_k1: Callable[..., Any] = _non_differentiable(
    "scaled_modified_bessel_k1",
    _scipy("k1e", "special.scaled_modified_bessel_k1"),
    "``exp(x) * modified_bessel_k1(x)``.",
    "glassgrad.special.scaled_modified_bessel_k1(glassgrad.tensor([1.0]))\n    tensor([1.6362])",
)
spherical_bessel_j0: Callable[..., Any] = _non_differentiable(
    "spherical_bessel_j0",
    _spherical_j0,
    "The spherical Bessel function of the first kind of order 0, ``sin(x) / x``.",
    "glassgrad.special.spherical_bessel_j0(glassgrad.tensor([0.0, 1.0]))\n"
    "    tensor([1.0000, 0.8415])",
)
airy_ai: Callable[..., Any] = _non_differentiable(
    "airy_ai",
    _airy_ai,
    "The Airy function Ai.",
    "glassgrad.special.airy_ai(glassgrad.tensor([0.0]))\n    tensor([0.3550])",
)


# --- registry rows -----------------------------------------------------------------------------


def _bessel_samples(rng: np.random.Generator) -> list[Sample]:
    return [
        *unary_samples(rng),
        Sample((5 * randn(rng, 6),)),
        Sample(
            (np.array([0.0, 1e-300, -0.0, 30.0, -30.0]),),
            fd=False,
            note="0: the guards of i1/i1e; the kink of i0e, i1e",
        ),
    ]


register("i0", i0, nodes=(I0Backward0,), samples=_bessel_samples)
for _name, _fn, _node in (
    ("i0e", i0e, SpecialI0EBackward0),
    ("i1", i1, SpecialI1Backward0),
    ("i1e", i1e, SpecialI1EBackward0),
):
    register(_name, _fn, nodes=(_node,), namespace=SPECIAL, samples=_bessel_samples)


def _positive_axis_samples(rng: np.random.Generator) -> list[Sample]:
    """Special points (0, negative, infinite, NaN) are compared in tests/ops/test_special.py:
    the float32 comparison here scales its tolerance by the largest value, which must be finite."""
    return [
        Sample((2.4 * rng.random((3, 4)) + 0.05,)),
        Sample((2.4 * rng.random((4, 3)).T + 0.05,)),
        Sample((np.array([1e-300, 30.0, 700.0]),)),
    ]


def _real_axis_samples(rng: np.random.Generator) -> list[Sample]:
    return [
        Sample((5 * randn(rng, 3, 4),)),
        Sample((5 * randn(rng, 4, 3).T,)),
        Sample((np.array([0.0, -0.0, 30.0, -30.0]),)),
        Sample((randn(rng, 0, 2),)),
    ]


def _bessel_axis_samples(rng: np.random.Generator) -> list[Sample]:
    """Outside 2.5 < |x| < 15.3, where PyTorch's values are off (see the module docstring)."""
    return [
        Sample((2.5 * (2 * rng.random((3, 4)) - 1),)),
        Sample((2.5 * (2 * rng.random((4, 3)) - 1).T,)),
        Sample((np.array([16.0, -17.5, 30.0, -40.0, 1e-300]),)),
    ]


def _airy_samples(rng: np.random.Generator) -> list[Sample]:
    """Above -2.09 only: below, PyTorch's values are off (see the module docstring)."""
    return [
        Sample((4 * rng.random((3, 4)) - 2.0,)),
        Sample((np.array([0.0, 5.0, 30.0, 100.0]),)),
    ]


for _fn, _samples in (
    (bessel_j0, _bessel_axis_samples),
    (bessel_j1, _bessel_axis_samples),
    (bessel_y0, _positive_axis_samples),
    (bessel_y1, _positive_axis_samples),
    (modified_bessel_i0, _real_axis_samples),
    (modified_bessel_i1, _real_axis_samples),
    (modified_bessel_k0, _positive_axis_samples),
    (modified_bessel_k1, _positive_axis_samples),
    (scaled_modified_bessel_k0, _positive_axis_samples),
    (scaled_modified_bessel_k1, _positive_axis_samples),
    (spherical_bessel_j0, _real_axis_samples),
    (airy_ai, _airy_samples),
):
    register(_fn.__name__, _fn, namespace=SPECIAL, differentiable=False, samples=_samples)
