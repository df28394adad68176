"""Views between complex tensors and real ones: ``view_as_real`` (a complex tensor as pairs
of reals, a last dimension of size 2), ``view_as_complex`` (the reverse), and ``real`` and
``imag`` (a select of ``view_as_real``, as PyTorch's: writing into ``z.real`` changes z). Both share
memory with their input, as PyTorch's; each one's gradient is the other view of the
gradient."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._dtype import complex_of, scalar_type_name
from .._tensor import Tensor
from ..autograd.op import Op
from ._common import check_tensor
from ._registry import Sample, register
from ._samples import complex_randn, complex_samples, randn
from .shape_views import select


class _Strided:
    """An array interface over existing memory (NumPy keeps this object, and so the
    array it points into, alive as the new array's base)."""

    def __init__(self, owner: np.ndarray, shape: tuple, strides: tuple, dtype: np.dtype):
        self.owner = owner
        self.__array_interface__ = {
            "data": (owner.__array_interface__["data"][0], not owner.flags.writeable),
            "shape": shape,
            "strides": strides,
            "typestr": dtype.str,
            "version": 3,
        }


def _as_real(z: np.ndarray) -> np.ndarray:
    half = z.dtype.itemsize // 2
    real = np.float32 if z.dtype == np.complex64 else np.float64
    return np.asarray(_Strided(z, (*z.shape, 2), (*z.strides, half), np.dtype(real)))


def _as_complex(x: np.ndarray) -> np.ndarray:
    dtype = np.dtype(complex_of(x.dtype))
    return np.asarray(_Strided(x, x.shape[:-1], x.strides[:-1], dtype))


class ViewAsRealBackward0(Op):
    """out = z as (real, imag) pairs; the gradient is the pairs' gradient as complex values."""

    is_view = True
    replays_in_graph = True  # no strided view of z's elements: replayed after in-place changes

    def forward(self, z: Any) -> Any:
        return _as_real(z)

    def backward(self, F: Any, grad: Any) -> Any:
        if isinstance(grad, Tensor):
            return ViewAsComplexBackward0.apply(grad.contiguous())
        return _as_complex(np.ascontiguousarray(grad))


class ViewAsComplexBackward0(Op):
    """out = (real, imag) pairs as complex values; the gradient is the complex gradient's
    pairs."""

    is_view = True
    replays_in_graph = True

    def forward(self, x: Any) -> Any:
        return _as_complex(x)

    def backward(self, F: Any, grad: Any) -> Any:
        if isinstance(grad, Tensor):
            return ViewAsRealBackward0.apply(grad)
        return _as_real(np.asarray(grad))


def view_as_real(input: Tensor) -> Tensor:
    """A complex tensor as a real one with a last dimension of size 2 (real, imaginary
    parts), sharing its memory.

    Example::

        >>> glassgrad.view_as_real(glassgrad.tensor([1 + 2j]))
        tensor([[1., 2.]])
    """
    if check_tensor(input, "view_as_real")._data.dtype.kind != "c":
        raise RuntimeError("view_as_real is only supported for complex tensors")
    return ViewAsRealBackward0.apply(input)


def view_as_complex(input: Tensor) -> Tensor:
    """A real tensor whose last dimension is (real, imaginary) pairs as a complex tensor,
    sharing its memory (the pairs must be adjacent in memory).

    Example::

        >>> glassgrad.view_as_complex(glassgrad.tensor([[1.0, 2.0]]))
        tensor([1.+2.j])
    """
    x = check_tensor(input, "view_as_complex")._data
    if x.dtype not in (np.float32, np.float64):
        raise RuntimeError(
            "view_as_complex is only supported for half, float and double tensors, but got a "
            f"tensor of scalar type: {scalar_type_name(x.dtype)}"
        )
    if x.ndim == 0 or x.shape[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    if x.size and x.strides[-1] != x.itemsize:  # NumPy's strides of empty arrays are arbitrary
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    if x.size and any(s % (2 * x.itemsize) for s in x.strides[:-1]):
        raise RuntimeError("Tensor must have a stride divisible by 2 for all but last dimension")
    return ViewAsComplexBackward0.apply(input)


def real(input: Tensor) -> Tensor:
    """The real part of a complex tensor (a real tensor is returned as it is).

    Example::

        >>> glassgrad.real(glassgrad.tensor([1 + 2j]))
        tensor([1.])
    """
    check_tensor(input, "real")
    if input._data.dtype.kind != "c":
        return input
    return select(view_as_real(input), -1, 0)


def imag(input: Tensor) -> Tensor:
    """The imaginary part of a complex tensor.

    Example::

        >>> glassgrad.imag(glassgrad.tensor([1 + 2j]))
        tensor([2.])
    """
    check_tensor(input, "imag")
    if input._data.dtype.kind != "c":
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return select(view_as_real(input), -1, 1)


def _imag_property(self: Tensor) -> Tensor:
    return imag(self)


TENSOR_METHODS: dict[str, Any] = {"real": property(real), "imag": property(_imag_property)}


def _pairs(rng: np.random.Generator, *shape: int) -> np.ndarray:
    return randn(rng, *shape, 2)


register(
    "view_as_real",
    view_as_real,
    nodes=(ViewAsRealBackward0,),
    methods=(),
    samples=lambda rng: [
        Sample((complex_randn(rng, 3, 4),)),
        Sample((complex_randn(rng, 4, 3).T,), note="non-contiguous"),
        Sample((complex_randn(rng),)),
    ],
)
register(
    "view_as_complex",
    view_as_complex,
    nodes=(ViewAsComplexBackward0,),
    methods=(),
    samples=lambda rng: [
        Sample((_pairs(rng, 3, 4),)),
        Sample((_pairs(rng),)),
    ],
)
register("real", real, nodes=(), methods=(), samples=complex_samples)
register("imag", imag, nodes=(), methods=(), samples=complex_samples)
