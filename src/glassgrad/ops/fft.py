"""Discrete Fourier transforms: PyTorch's three primitives, with their backward formulas, and
the rules by which ``torch.fft``'s functions (``fft_functions.py``) are built from them, as
PyTorch builds them (SpectralOps.cpp), so values, gradients of every order, grad_fn names and
errors agree.

- ``_fft_r2c`` (FftR2CBackward0): the forward transform of a real signal, complete or one-sided
  (the last dim halved to n//2 + 1); its adjoint pads the missing half with zeros, takes the
  inverse complex transform and keeps the real part.
- ``_fft_c2r`` (FftC2RBackward0): the inverse transform of a one-sided Hermitian spectrum to a
  real signal; its adjoint is the one-sided r2c transform with the bins that stand for two
  (their mirror images are not stored) counted twice.
- ``_fft_c2c`` (FftC2CBackward0): the complex transform either way; its adjoint is the
  transform the other way with the same scaling.

Scaling is a mode, not a direction: 0 none, 1 by 1/sqrt(n), 2 by 1/n (``norm=`` "backward",
"ortho", "forward" choose it per direction). Longer or shorter signals (``n``, ``s``) are
zero-padded (ConstantPadNdBackward0) or cut (SliceBackward0) first, as in PyTorch.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._dtype import complex_of, default_numpy_float, from_numpy_dtype, scalar_type_name
from .._strides import in_order, restrided
from .._tensor import Tensor
from ..autograd.op import Op
from ._common import check_tensor, wrap_dim
from .complex import conj
from .conversion import to
from .padding import pad
from .shape_views import narrow

_NONE, _BY_ROOT_N, _BY_N = 0, 1, 2


def _by_stride(strides: tuple, dims: Any) -> list:
    """``dims`` by decreasing input stride (PyTorch's ``_sort_dims``; its std::sort is an
    insertion sort at these sizes, so ties keep their order, as here)."""
    return sorted(dims, key=lambda d: -strides[d])


def _mkl_strides(in_strides: tuple, out_shape: tuple, dim: Any, itemsize: int) -> tuple:
    """The byte strides of the result of PyTorch's MKL ``_exec_fft`` (its CPU FFT kernel):
    the batch dims outermost, by decreasing input stride, then the transformed ``dim`` in
    their order, the last fastest."""
    batch = _by_stride(in_strides, [d for d in range(len(out_shape)) if d not in dim])
    return in_order(out_shape, (batch + list(dim))[::-1], itemsize)


def _in_mkl_layout(out: np.ndarray, in_strides: tuple, dim: Any) -> np.ndarray:
    if out.ndim < 2:
        return out
    return restrided(out, _mkl_strides(in_strides, out.shape, dim, out.itemsize))


# The n-dimensional transforms as NumPy's fftn/rfftn/irfftn compute them, one 1-D transform per
# dim in their order, without their argument handling (most of the time of a short transform):
# each 1-D transform is the gufunc np.fft.fft/rfft/ifft/irfft end in (NumPy's _raw_fft), called
# with the scale factor and output array those functions would give it.

_POCKETFFT: Any = None  # numpy.fft's gufuncs, imported on first use (numpy.fft is not imported
# with NumPy, nor with glassgrad)


# The real and complex dtypes of a transform of each input dtype (NumPy's result_type of the
# input's real dtype with 1.0, and of its dtype with 1j).
_PRECISIONS = {
    np.dtype(t): (np.dtype(real), np.dtype(complex_))
    for t, real, complex_ in (
        (np.float32, np.float32, np.complex64),
        (np.complex64, np.float32, np.complex64),
        (np.float64, np.float64, np.complex128),
        (np.complex128, np.float64, np.complex128),
    )
}


def _transform(kind: str, a: np.ndarray, axis: int, normalization: int, n: int) -> np.ndarray:
    """The 1-D transform ``kind`` ("fft", "ifft", "rfft", "irfft") of length ``n`` along the
    non-negative ``axis``, scaled by the mode: NumPy's result, bit for bit."""
    global _POCKETFFT
    if _POCKETFFT is None:
        from numpy.fft import _pocketfft_umath

        _POCKETFFT = _pocketfft_umath
    real, complex_ = _PRECISIONS[a.dtype]
    if normalization == _NONE:
        # NumPy's int 1, which also picks its loop: the complex128 one, even for complex64
        scale: Any = 1
    elif normalization == _BY_ROOT_N:
        scale = np.reciprocal(np.sqrt(n, dtype=real))
    else:
        scale = np.reciprocal(n, dtype=real)
    if kind == "rfft":
        gufunc = _POCKETFFT.rfft_n_even if n % 2 == 0 else _POCKETFFT.rfft_n_odd
        size, dtype = n // 2 + 1, complex_
    elif kind == "irfft":
        gufunc, size, dtype = _POCKETFFT.irfft, n, real
    else:
        gufunc, size, dtype = getattr(_POCKETFFT, kind), n, complex_
    out = np.empty(a.shape[:axis] + (size,) + a.shape[axis + 1 :], dtype)
    return gufunc(a, scale, axes=[(axis,), (), (axis,)], out=out)


def _c2c(z: np.ndarray, dim: tuple, normalization: int, forward: bool) -> np.ndarray:
    kind = "fft" if forward else "ifft"
    out = z
    for axis in reversed(dim):
        out = _transform(kind, out, axis, normalization, out.shape[axis])
    return _in_mkl_layout(out.astype(z.dtype, copy=False), z.strides, _by_stride(z.strides, dim))


def _r2c(x: np.ndarray, dim: tuple, normalization: int, onesided: bool) -> np.ndarray:
    last = dim[-1]
    out = _transform("rfft", x, last, normalization, x.shape[last])
    for axis in reversed(dim[:-1]):
        out = _transform("fft", out, axis, normalization, out.shape[axis])
    if not onesided:
        out = _fill_with_conjugate_symmetry(out, dim, x.shape[last])
    order = _by_stride(x.strides, dim[:-1]) + [dim[-1]]  # the halved dim stays last
    return _in_mkl_layout(out.astype(complex_of(x.dtype), copy=False), x.strides, order)


def _fill_with_conjugate_symmetry(half: np.ndarray, dim: tuple, n: int) -> np.ndarray:
    """The full spectrum of a real signal from its one-sided one along ``dim[-1]``, as
    PyTorch's r2c transforms give it (``_fft_fill_with_conjugate_symmetry_``): entry k of
    the last dim beyond the half is the conjugate of entry n - k, the other dims of ``dim``
    mirrored (i to -i mod their size). Its exact zeros thus have PyTorch's signs: a
    complete transform's (NumPy's fft of a real input) need not be conjugate-symmetric in
    them (fuzz seed 803717: a pow at the branch cut of an ifft's -0j)."""
    last = dim[-1]
    mirrored = np.flip(np.take(half, np.arange(1, n - half.shape[last] + 1), axis=last), last)
    for axis in dim[:-1]:
        mirrored = np.roll(np.flip(mirrored, axis), 1, axis)
    return np.concatenate([half, np.conj(mirrored)], axis=last)


def _c2r(z: np.ndarray, dim: tuple, normalization: int, last_dim_size: int) -> np.ndarray:
    out = z
    for axis in dim[:-1]:
        out = _transform("ifft", out, axis, normalization, out.shape[axis])
    out = _transform("irfft", out, dim[-1], normalization, last_dim_size)
    out = out.astype(np.float32 if z.dtype == np.complex64 else np.float64, copy=False)
    strides = z.strides
    if len(dim) > 1:  # PyTorch transforms the other dims first (c2c), then the last one
        strides = _mkl_strides(strides, z.shape, _by_stride(strides, dim[:-1]), z.itemsize)
    return _in_mkl_layout(out, strides, dim[-1:])


class FftC2CBackward0(Op):
    """out = DFT of z over ``dim`` (inverse when not ``is_forward``), scaled by the mode;
    the gradient is the transform the other way with the same scaling."""

    dim: Any
    is_forward: Any
    normalization: Any

    __slots__ = ("dim", "normalization", "is_forward")

    def forward(self, z: Any, dim: Any, normalization: Any, is_forward: Any) -> Any:
        self.dim, self.normalization, self.is_forward = dim, normalization, is_forward
        return _c2c(z, dim, normalization, is_forward)

    def backward(self, F: Any, grad: Any) -> Any:
        return FftC2CBackward0.call(
            grad, dim=self.dim, normalization=self.normalization, is_forward=not self.is_forward
        )


class FftR2CBackward0(Op):
    """out = DFT of the real x over ``dim`` (the last of them halved when ``onesided``)."""

    dim: Any
    last_dim_size: Any
    normalization: Any
    onesided: Any

    __slots__ = ("dim", "normalization", "onesided", "last_dim_size")
    saved_inputs: tuple[int, ...] = (
        0,
    )  # unread (its size is kept), but PyTorch saves it: in-place checks

    def forward(self, x: Any, dim: Any, normalization: Any, onesided: Any) -> Any:
        self.dim, self.normalization, self.onesided = dim, normalization, onesided
        self.last_dim_size = x.shape[dim[-1]]
        return _r2c(x, dim, normalization, onesided)

    def backward(self, F: Any, grad: Any) -> Any:
        last = self.dim[-1]
        shape = np.shape(grad._data if isinstance(grad, Tensor) else grad)
        if self.onesided and shape[last] < self.last_dim_size:
            full = shape[:last] + (self.last_dim_size,) + shape[last + 1 :]
            key = (slice(None),) * last + (slice(0, shape[last]),)
            grad = F.index_zeros_add(full, key, grad, True)
        inverse = FftC2CBackward0.call(
            grad, dim=self.dim, normalization=self.normalization, is_forward=False
        )
        return F.real(inverse)


class FftC2RBackward0(Op):
    """out = the real signal of size ``last_dim_size`` along the last of ``dim`` whose
    one-sided spectrum is z (inverse DFT)."""

    dim: Any
    last_dim_size: Any
    normalization: Any

    __slots__ = ("dim", "normalization", "last_dim_size")

    def forward(self, z: Any, dim: Any, normalization: Any, last_dim_size: Any) -> Any:
        self.dim, self.normalization, self.last_dim_size = dim, normalization, last_dim_size
        return _c2r(z, dim, normalization, last_dim_size)

    def backward(self, F: Any, grad: Any) -> Any:
        half = FftR2CBackward0.call(
            grad, dim=self.dim, normalization=self.normalization, onesided=True
        )
        last = self.dim[-1]
        kept = self.last_dim_size // 2 + 1
        doubled = self.last_dim_size - kept  # bins 1 .. n - (n//2 + 1) stand for two
        if doubled <= 0:
            return half
        # Only those bins are multiplied (PyTorch's narrow().mul_(2)): a product by a weight
        # of 1 would be complex, and the NaN real part of bin 0 would make its exact zero
        # imaginary part NaN (fuzz seed 703873).
        ahead = (slice(None),) * last
        return F.cat(
            [
                half[(*ahead, slice(0, 1))],
                half[(*ahead, slice(1, 1 + doubled))] * 2.0,
                half[(*ahead, slice(1 + doubled, kept))],
            ],
            last,
        )


# --- argument handling, as PyTorch's SpectralOps.cpp ---------------------------------------


def _norm_mode(norm: str | None, forward: bool) -> int:
    if norm is None or norm == "backward":
        return _NONE if forward else _BY_N
    if norm == "forward":
        return _BY_N if forward else _NONE
    if norm == "ortho":
        return _BY_ROOT_N
    raise RuntimeError(f'Invalid normalization mode: "{norm}"')


def _promote(x: Tensor, require_complex: bool = False) -> Tensor:
    """Integers and bools as the default float; complex when required (ToCopyBackward0)."""
    kind = x._data.dtype.kind
    if kind in "iub":
        x = to(x, from_numpy_dtype(default_numpy_float()))
    elif x._data.dtype == np.float16:
        raise RuntimeError("Unsupported dtype Half")
    if require_complex and x._data.dtype.kind != "c":
        x = to(x, from_numpy_dtype(complex_of(x._data.dtype)))
    return x


def _check_size(n: Any, name: str, op: str) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"fft_{op}(): argument '{name}' must be int, not {type(n).__name__}")
    return int(n)


def _resize(x: Tensor, dims: tuple, sizes: tuple) -> Tensor:
    """Cut (narrow) or zero-pad (pad) each of ``dims`` to its size in ``sizes``."""
    padding = [0] * (2 * x._data.ndim)
    padded = False
    for d, n in zip(dims, sizes):
        current = x._data.shape[d]
        if current < n:
            padded = True
            padding[len(padding) - 2 * d - 1] = n - current
        elif current > n:
            x = narrow(x, d, 0, n)
    return pad(x, tuple(padding)) if padded else x


def _data_points(n: int) -> int:
    if n < 1:
        raise RuntimeError(f"Invalid number of data points ({n}) specified")
    return n


def _one_dim(op: str, input: Any, n: Any, dim: Any) -> tuple:
    check_tensor(input, f"fft_{op}")
    if n is not None:
        n = _check_size(n, "n", op)
    dim = _check_size(dim, "dim", op)
    if input._data.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    return n, wrap_dim(dim, input._data.ndim, op)


def r2c_1d(
    op: str, input: Any, n: Any, dim: Any, norm: Any, forward: bool, onesided: bool
) -> Tensor:
    n, d = _one_dim(op, input, n, dim)
    if input._data.dtype.kind == "c":
        raise RuntimeError(
            f"{op} expects a real input tensor, but got {scalar_type_name(input._data.dtype)}"
        )
    x = _promote(input)
    size = _data_points(x._data.shape[d] if n is None else n)
    if n is not None:
        x = _resize(x, (d,), (size,))
    mode = _norm_mode(norm, forward)
    out = FftR2CBackward0.apply(x, dim=(d,), normalization=mode, onesided=onesided)
    return out if forward else conj(out)


def c2c_1d(op: str, input: Any, n: Any, dim: Any, norm: Any, forward: bool) -> Tensor:
    n, d = _one_dim(op, input, n, dim)
    size = _data_points(input._data.shape[d] if n is None else n)
    x = input if n is None else _resize(input, (d,), (size,))
    mode = _norm_mode(norm, forward)
    return FftC2CBackward0.apply(x, dim=(d,), normalization=mode, is_forward=forward)


def c2r_1d(op: str, input: Any, n: Any, dim: Any, norm: Any, forward: bool) -> Tensor:
    n, d = _one_dim(op, input, n, dim)
    x = _promote(input, require_complex=True)
    size = _data_points(2 * (x._data.shape[d] - 1) if n is None else n)
    if n is not None:
        x = _resize(x, (d,), (size // 2 + 1,))
    mode = _norm_mode(norm, forward)
    if forward:
        x = conj(x)  # hfft: the inverse transform of the conjugate, scaled as a forward one
    return FftC2RBackward0.apply(x, dim=(d,), normalization=mode, last_dim_size=size)


def _shape_and_dims(op: str, input: Any, s: Any, dim: Any) -> tuple:
    """PyTorch's ``canonicalize_fft_shape_and_dim_args``: the sizes and the dims."""
    check_tensor(input, f"fft_{op}")
    ndim = input._data.ndim
    sizes = input._data.shape
    dims = None
    if dim is not None:
        dims = (dim,) if isinstance(dim, (int, np.integer)) else tuple(dim)
        if ndim == 0 and dims:
            raise IndexError(f"Dimension specified as {dims[0]} but tensor has no dimensions")
        dims = tuple(wrap_dim(_check_size(d, "dim", op), ndim, op) for d in dims)
        if len(set(dims)) != len(dims):
            raise RuntimeError("FFT dims must be unique")
    if s is not None:
        s = (s,) if isinstance(s, (int, np.integer)) else tuple(s)
        s = tuple(_check_size(n, "s", op) for n in s)
        if dims is not None and len(dims) != len(s):
            raise RuntimeError("When given, dim and shape arguments must have the same length")
        if len(s) > ndim:
            raise RuntimeError(
                f"Got shape with {len(s)} values but input tensor only has {ndim} dimensions."
            )
        if dims is None:
            dims = tuple(range(ndim - len(s), ndim))
        shape = tuple(sizes[d] if n == -1 else n for d, n in zip(dims, s))
    elif dims is None:
        dims, shape = tuple(range(ndim)), tuple(sizes)
    else:
        shape = tuple(sizes[d] for d in dims)
    for n in shape:
        _data_points(n)
    return shape, dims


def c2c_nd(op: str, input: Any, s: Any, dim: Any, norm: Any, forward: bool) -> Tensor:
    shape, dims = _shape_and_dims(op, input, s, dim)
    x = _resize(_promote(input, require_complex=True), dims, shape)
    if not dims:
        return x
    mode = _norm_mode(norm, forward)
    return FftC2CBackward0.apply(x, dim=dims, normalization=mode, is_forward=forward)


def r2c_nd(op: str, input: Any, s: Any, dim: Any, norm: Any, forward: bool) -> Tensor:
    check_tensor(input, f"fft_{op}")
    if input._data.dtype.kind == "c":
        raise RuntimeError(
            f"{op} expects a real-valued input tensor, but got "
            f"{scalar_type_name(input._data.dtype)}"
        )
    shape, dims = _shape_and_dims(op, input, s, dim)
    if not dims:
        raise RuntimeError(f"{op} must transform at least one axis")
    x = _resize(_promote(input), dims, shape)
    mode = _norm_mode(norm, forward)
    if forward:  # rfftn
        return FftR2CBackward0.apply(x, dim=dims, normalization=mode, onesided=True)
    # ihfftn: one-sided along the last dim, conjugated, then the others forward
    half = FftR2CBackward0.apply(x, dim=dims[-1:], normalization=mode, onesided=True)
    if len(dims) == 1:
        return conj(half)
    return FftC2CBackward0.apply(conj(half), dim=dims[:-1], normalization=mode, is_forward=False)


def c2r_nd(op: str, input: Any, s: Any, dim: Any, norm: Any, forward: bool) -> Tensor:
    shape, dims = _shape_and_dims(op, input, s, dim)
    if not dims:
        raise RuntimeError(f"{op} must transform at least one axis")
    if s is None or (not isinstance(s, (int, np.integer)) and tuple(s)[-1] == -1):
        last_dim_size = 2 * (input._data.shape[dims[-1]] - 1)
    else:
        last_dim_size = shape[-1]
    _data_points(last_dim_size)
    shape = shape[:-1] + (last_dim_size // 2 + 1,)
    x = _resize(_promote(input, require_complex=True), dims, shape)
    mode = _norm_mode(norm, forward)
    if forward:  # hfftn: the others forward, then the last one as hfft
        if len(dims) > 1:
            x = FftC2CBackward0.apply(x, dim=dims[:-1], normalization=mode, is_forward=True)
        x, dims = conj(x), dims[-1:]
    return FftC2RBackward0.apply(x, dim=dims, normalization=mode, last_dim_size=last_dim_size)


# --- frequencies -------------------------------------------------------------------------------


def sample_frequencies(
    op: str, n: Any, d: float, dtype: Any, layout: Any, onesided: bool
) -> np.ndarray:
    """The sample frequencies of a length-``n`` transform with spacing ``d``, in ``dtype``
    (the default float when None)."""
    n = _check_size(n, "n", op)
    if layout is not None:
        raise RuntimeError(f"{op}: only dense (strided) tensors are supported, got {layout!r}")
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    np_dtype = default_numpy_float() if dtype is None else dtype.numpy
    if np_dtype.kind not in "fc":
        raise RuntimeError(f"{op} requires a floating point or complex dtype")
    if np_dtype.kind == "c":  # PyTorch's arange has no complex kernel
        raise NotImplementedError(
            f"\"arange_cpu\" not implemented for '{scalar_type_name(np_dtype)}'"
        )
    if onesided:
        values = np.arange(n // 2 + 1)
    else:
        values = np.concatenate([np.arange((n + 1) // 2), np.arange(-(n // 2), 0)])
    return (values * (1.0 / (n * d))).astype(np_dtype) if n else values.astype(np_dtype)


def shift_amounts(input: Tensor, dim: Any, inverse: bool) -> tuple[Any, ...]:
    """The roll of ``fftshift`` (half of each size) or ``ifftshift`` (the other half)."""
    ndim = input._data.ndim
    if dim is None:
        dims = tuple(range(ndim))
    else:
        dims = (dim,) if isinstance(dim, (int, np.integer)) else tuple(dim)
        dims = tuple(wrap_dim(d, ndim, "fftshift") for d in dims)
    sizes = input._data.shape
    shifts = tuple((sizes[d] + 1) // 2 if inverse else sizes[d] // 2 for d in dims)
    return shifts, dims
