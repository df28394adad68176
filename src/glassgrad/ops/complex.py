"""Ops on complex tensors (the results of ``glassgrad.fft``): the conjugate, the angle, and ``complex(real, imag)``; ``abs`` and the arithmetic operators
take complex operands in ``pointwise.py``.

Gradients follow PyTorch's convention (conjugate Wirtinger calculus): for a real loss L of a
complex z = x + iy the gradient is dL/dx + i dL/dy, so a real loss's gradients through complex
intermediates equal PyTorch's. ``real`` and ``imag`` are views, in ``complex_views.py``.
``conj`` computes the conjugate: PyTorch's is a lazy view (the conj bit), glassgrad's a new
tensor.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._dtype import complex_of, scalar_type_name
from .._strides import as_row_major, like_operands
from .._tensor import Tensor
from ..autograd.op import Op, apply_inplace
from ._common import array_of, broadcast_error, check_tensor, sgn_array
from ._out import kernel_out, out_result
from ._registry import NoGrad, Sample, register
from ._samples import complex_samples, randn


class ConjBackward0(Op):
    """out = conj(z); the gradient of z is conj(grad)."""

    def forward(self, z: Any) -> Any:
        return np.conj(z)

    def backward(self, F: Any, grad: Any) -> Any:
        return F.conj(grad)


class ConjPhysicalBackward0(Op):
    """out = conj(z) computed into a new tensor (``conj`` in PyTorch is a lazy view); the
    gradient of z is conj(grad)."""

    def forward(self, z: Any) -> Any:
        return np.conj(z) if z.dtype.kind == "c" else z  # np.conj of bool gives int8

    def backward(self, F: Any, grad: Any) -> Any:
        return F.conj(grad)


class ConjPhysicalBackward1(ConjPhysicalBackward0):
    """``conj_physical_``: z conjugated in place (recorded for real tensors too, as PyTorch)."""

    identity_for_kinds = "biuf"
    pointwise = True


class AngleBackward0(Op):
    """out = atan2(Im z, Re z) (0 or pi for real values); the gradient of a complex z is
    i z grad / |z|^2 (0 at 0), of a real one 0."""

    # A TensorIterator kernel in PyTorch (256-bit vectors, measured with an overlapping out=)
    pointwise, vector_bits = True, 256

    saved_inputs: tuple[int, ...] = (0,)

    def forward(self, z: Any) -> Any:
        if z.dtype.kind == "c":
            # PyTorch's complex-to-real kernels allocate a row-major result.
            return as_row_major(np.angle(z))
        if z.dtype.kind != "f":
            z = z.astype(np.float32)
        out = np.where(z < 0, z.dtype.type(math.pi), np.where(np.isnan(z), z, 0)).astype(z.dtype)
        return like_operands(out, (z,))

    def backward(self, F: Any, grad: Any) -> Any:
        (z,) = self.saved
        values = array_of(z)
        if values.dtype.kind != "c":
            return F.zeros(np.shape(values), values.dtype)
        slope = grad * z / (F.abs(z) ** 2) * 1j
        return F.where(values == 0, 0.0, slope)


class SgnBackward0(Op):
    """out = z / |z| (0 at 0; the sign of real values); for complex z the gradient is
    (grad - s Re(grad conj(s))) / |z| with s = sgn(z), 0 at 0; for real values 0."""

    # A TensorIterator kernel in PyTorch (512-bit vectors, measured with an overlapping out=)
    pointwise, vector_bits = True, 512

    saved_inputs: tuple[int, ...] = (0,)
    saves_output = True

    def forward(self, z: Any) -> Any:
        if z.dtype.kind != "c":
            self._mark_zero_grads()  # PyTorch's efficient zero tensor (see ZeroGradient)
        return sgn_array(z)

    def backward(self, F: Any, grad: Any) -> Any:
        z, s = self.saved
        values = array_of(z)
        if values.dtype.kind != "c":
            return F.zeros(np.shape(values), values.dtype)
        radial = F.real(grad * F.conj(s))
        return F.where(values == 0, 0.0, (grad - s * radial) / F.abs(z))


class ComplexBackward0(Op):
    """out = real + i imag; the gradients are the real and imaginary parts of grad."""

    # Unread, but PyTorch keeps each input whose gradient is asked for (its dtype), so
    # in-place changes of those raise as there.
    saved_inputs: tuple[int, ...] = (0, 1)
    saved_for: tuple[tuple[int, ...], ...] = ((0,), (1,))

    def forward(self, real: Any, imag: Any) -> Any:
        # Part by part, as PyTorch's kernel: real + 1j * imag would turn an infinite imaginary
        # part into a NaN real part (1j * inf = nan + inf j).
        try:
            real, imag = np.broadcast_arrays(real, imag)
        except ValueError:
            raise broadcast_error("complex", real, imag) from None
        out = np.empty_like(real, complex_of(real.dtype))  # the operands' layout
        out.real, out.imag = real, imag
        return out

    def backward(self, F: Any, grad: Any) -> Any:
        needs = self.needs_input_grad
        return (
            F.real(grad) if needs[0] else None,
            F.imag(grad) if needs[1] else None,
        )


class PolarBackward0(Op):
    """out = abs cos(angle) + i abs sin(angle), part by part as PyTorch's kernel; the
    gradients are PyTorch's ``polar_backward``: ``real(conj(grad) sgn(out))`` for ``abs`` and
    ``real(conj(grad) out i)`` for ``angle``. (With ``sgn(out)``, not ``e^(i angle)``, the
    gradient of ``abs`` is 0 where ``abs`` is 0, and of the other sign for a negative
    ``abs``, where PyTorch's documentation leaves polar undefined.)"""

    pointwise = True
    saves_output = True

    def forward(self, abs: Any, angle: Any) -> Any:
        if abs.shape != angle.shape:
            try:
                np.broadcast_shapes(abs.shape, angle.shape)
            except ValueError:
                raise broadcast_error("polar", abs, angle) from None
        return ComplexBackward0.call(abs * np.cos(angle), abs * np.sin(angle))

    def backward(self, F: Any, grad: Any) -> Any:
        (out,) = self.saved
        needs = self.needs_input_grad
        grad_conj = F.conj(grad)
        grad_abs = F.real(grad_conj * F.sgn(out)) if needs[0] else None
        grad_angle = F.real(grad_conj * (out * 1j)) if needs[1] else None
        return grad_abs, grad_angle


def conj(input: Tensor) -> Tensor:
    """The complex conjugate (a real tensor is returned as it is).

    Example::

        >>> glassgrad.conj(glassgrad.tensor([1 + 2j]))
        tensor([1.-2.j])
    """
    check_tensor(input, "conj")
    return ConjBackward0.apply(input) if input._data.dtype.kind == "c" else input


def conj_physical(input: Tensor) -> Tensor:
    """The complex conjugate as a new tensor; a real tensor is returned as it is.

    Example::

        >>> glassgrad.conj_physical(glassgrad.tensor([1 + 2j]))
        tensor([1.-2.j])
    """
    check_tensor(input, "conj_physical")
    return ConjPhysicalBackward0.apply(input) if input._data.dtype.kind == "c" else input


def _conj_physical_inplace(self: Tensor) -> Tensor:
    return apply_inplace(ConjPhysicalBackward1, self)


def angle(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The argument of each element, in (-pi, pi] (0 or pi for real values).

    Example::

        >>> glassgrad.angle(glassgrad.tensor([1j, -1.0 + 0j]))
        tensor([1.5708, 3.1416])
    """
    result = AngleBackward0.apply(check_tensor(input, "angle"))
    return out_result(
        "angle", out, result, (input,), pointwise=kernel_out(AngleBackward0, angle, input)
    )


def sgn(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """``input / |input|`` for complex values (0 at 0), the sign of real ones.

    Example::

        >>> glassgrad.sgn(glassgrad.tensor([3 + 4j, 0j]))
        tensor([0.6000+0.8000j, 0.0000+0.0000j])
    """
    result = SgnBackward0.apply(check_tensor(input, "sgn"))
    return out_result("sgn", out, result, (input,), pointwise=kernel_out(SgnBackward0, sgn, input))


def complex(real: Tensor, imag: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The complex tensor ``real + i imag`` (both float32 or both float64).

    Example::

        >>> glassgrad.complex(glassgrad.tensor([1.0]), glassgrad.tensor([2.0]))
        tensor([1.+2.j])
    """
    _check_parts("complex", real, imag, ("real", "imag"))
    result = ComplexBackward0.apply(real, imag)
    return out_result(
        "complex",
        out,
        result,
        (
            real,
            imag,
        ),
    )


def _check_parts(op: str, first: Tensor, second: Tensor, names: tuple) -> None:
    """PyTorch's ``complex_check_dtype``: both parts float32 or both float64."""
    check_tensor(first, op, names[0])
    check_tensor(second, op, names[1], 2)
    a, b = first._data.dtype, second._data.dtype
    if a != b:
        raise RuntimeError(
            f"Expected object of scalar type {scalar_type_name(a)} but got scalar type "
            f"{scalar_type_name(b)} for second argument"
        )
    if a not in (np.float32, np.float64):
        raise RuntimeError(
            f"Expected both inputs to be Half, Float or Double tensors but got "
            f"{scalar_type_name(a)} and {scalar_type_name(b)}"
        )


def polar(abs: Tensor, angle: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The complex tensor with absolute value ``abs`` and angle ``angle``:
    ``abs cos(angle) + i abs sin(angle)`` (both float32 or both float64; as in PyTorch, the
    result is unspecified for a negative or NaN ``abs`` or an infinite ``angle``).

    Example::

        >>> glassgrad.polar(glassgrad.tensor([2.0]), glassgrad.tensor([0.0]))
        tensor([2.+0.j])
    """
    _check_parts("polar", abs, angle, ("abs", "angle"))
    return out_result("polar", out, PolarBackward0.apply(abs, angle), (abs, angle))


TENSOR_METHODS: dict[str, Any] = {
    "conj": conj,
    "resolve_conj": lambda self: self,  # conjugates are computed at once: nothing is lazy
    "is_conj": lambda self: False,
    "conj_physical_": _conj_physical_inplace,
    "sgn_": lambda self: apply_inplace(SgnBackward0, self),
}


register("conj", conj, nodes=(ConjBackward0,), methods=(), samples=complex_samples)
register(
    "conj_physical",
    conj_physical,
    nodes=(ConjPhysicalBackward0,),
    samples=lambda rng: [*complex_samples(rng), Sample((randn(rng, 3),), note="real: itself")],
)
register(
    "angle",
    angle,
    nodes=(AngleBackward0,),
    samples=lambda rng: [
        *complex_samples(rng),
        Sample(
            (np.array([1.5, -2.0, 0.0, np.nan]),), fd=False, note="real: 0 or pi, zero gradient"
        ),
        Sample((np.array([1, -2, 0]),), grad=False),
    ],
)
register(
    "sgn",
    sgn,
    nodes=(SgnBackward0,),
    samples=lambda rng: [
        *complex_samples(rng),
        Sample((np.array([0j, 1 + 1j, -2j]),), fd=False, note="0: a zero gradient"),
        Sample((randn(rng, 3, 4),), note="real: the sign, zero gradient"),
    ],
)
register(
    "complex",
    complex,
    nodes=(ComplexBackward0,),
    methods=(),
    samples=lambda rng: [
        Sample((randn(rng, 3, 4), randn(rng, 3, 4))),
        Sample((randn(rng, 3, 1), NoGrad(randn(rng, 4)))),
    ],
)
register(
    "polar",
    polar,
    nodes=(PolarBackward0,),
    methods=(),
    samples=lambda rng: [
        Sample((np.abs(randn(rng, 3, 4)) + 0.1, 2.0 * randn(rng, 3, 4))),
        Sample((np.abs(randn(rng, 3, 1)) + 0.1, 3.0 * randn(rng, 4))),
        Sample((np.abs(randn(rng, 4, 3)).T + 0.1, NoGrad(randn(rng, 3, 4)))),
        Sample((np.array([0.0, 1.0]), np.array([0.5, -1.0])), fd=False, note="abs 0: sgn 0"),
    ],
)
