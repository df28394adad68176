"""The two namespaces a backward formula is written against.

``ArrayNamespace`` works on NumPy arrays (the fast path, when no graph of the backward is
built); the Tensor namespace has the same names bound to differentiable glassgrad ops
(under ``create_graph=True``). A formula such as ``grad * F.cos(x)`` therefore serves both,
and the parity tests run both paths. Operators (``+ - * / ** @``, indexing) work on either.
"""

from __future__ import annotations

import math
from types import SimpleNamespace
from typing import Any

import numpy as np

from .. import _dtype
from ._common import sgn_array

_BLAS_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
# Small read-only arrays that hot paths would otherwise build on every call.
_constants: dict = {}


def _remember(key: tuple, array: np.ndarray) -> np.ndarray:
    if len(_constants) >= 256:
        _constants.clear()
    array.flags.writeable = False
    _constants[key] = array
    return array


def cached_constant(kind: str, size: int | tuple, dtype: Any, value: float = 0.0) -> np.ndarray:
    """A read-only array, cached: ``"ones"``, ``"arange"`` (dtype int64 whatever is passed)
    or ``"full"`` of ``value``."""
    key = (kind, size, dtype, value)
    array = _constants.get(key)
    if array is not None:
        return array
    if kind == "ones":
        return _remember(key, np.ones(size, dtype))
    if kind == "arange":
        return _remember(key, np.arange(size))
    return _remember(key, np.full(size, value, dtype))


def _ones_vector(shape: int | tuple, dtype: np.dtype) -> np.ndarray:
    """Ones: the other factor of row and column sums done as matrix-vector products (BLAS
    sums short rows faster than NumPy's reduction)."""
    return cached_constant("ones", shape, dtype)


def _sum_to_size(x: np.ndarray, shape: tuple) -> np.ndarray:
    """Sum ``x`` down to ``shape`` (the inverse of broadcasting ``shape`` to ``x.shape``)."""
    lead = x.ndim - len(shape)
    if lead and x.shape[lead:] == shape and x.size:
        # Only leading axes (a bias gradient): column sums of a matrix view.
        if lead == 1 and x.ndim == 2:  # (rows, n) to (n,): no reshape needed
            return ArrayNamespace.sum(x, 0)
        rows = x.size // max(1, math.prod(shape))
        return ArrayNamespace.sum(x.reshape(rows, -1), 0).reshape(shape)
    axes = tuple(range(lead)) + tuple(
        i + lead for i, s in enumerate(shape) if s == 1 and x.shape[i + lead] != 1
    )
    if axes:
        x = x.sum(axis=axes, keepdims=True)
    if lead:
        x = x.reshape(shape)
    return x


def _index_zeros_add(shape: tuple, key: Any, values: np.ndarray, basic: bool) -> np.ndarray:
    """Zeros of ``shape`` with ``values`` added at ``key`` (repeated indices accumulate)."""
    out = np.zeros(shape, dtype=values.dtype)
    if basic:
        out[key] = values
    else:
        np.add.at(out, key, values)
    return out


def _scatter_zeros(shape: tuple, dim: int, index: np.ndarray, src: np.ndarray) -> np.ndarray:
    out = np.zeros(shape, dtype=src.dtype)
    if len(shape) == 2 and dim == 1 and index.shape[1] == 1:  # one class per row (nll_loss)
        out[cached_constant("arange", shape[0], None), index[:, 0]] = src[:, 0]
        return out
    np.put_along_axis(out, index, src, axis=dim)
    return out


def _unsqueeze_dims(x: np.ndarray, dims: tuple) -> np.ndarray:
    return np.expand_dims(x, dims) if dims else x


class ArrayNamespace:
    """Backward-formula functions over NumPy arrays."""

    sum_to_size = staticmethod(_sum_to_size)
    index_zeros_add = staticmethod(_index_zeros_add)
    scatter_zeros = staticmethod(_scatter_zeros)
    unsqueeze_dims = staticmethod(_unsqueeze_dims)
    exp = staticmethod(np.exp)
    log = staticmethod(np.log)
    sqrt = staticmethod(np.sqrt)
    sin = staticmethod(np.sin)
    cos = staticmethod(np.cos)
    # PyTorch's sign and sgn: 0 at a real NaN (ATen's (0 < x) - (x < 0)); NumPy 2's sign of a
    # complex z is z / |z|, PyTorch's sgn
    sign = staticmethod(sgn_array)
    sgn = staticmethod(sgn_array)
    abs = staticmethod(np.abs)
    real = staticmethod(np.real)
    imag = staticmethod(np.imag)
    conj = staticmethod(np.conj)

    @staticmethod
    def clone(x: np.ndarray) -> np.ndarray:
        return x.copy(order="K")

    @staticmethod
    def cast(x: np.ndarray, dtype: np.dtype) -> np.ndarray:
        return np.asarray(x).astype(dtype, copy=False)

    @staticmethod
    def zeros(shape: tuple, dtype: np.dtype) -> np.ndarray:
        return np.zeros(shape, dtype=dtype)

    @staticmethod
    def where(condition: np.ndarray, a: Any, b: Any) -> np.ndarray:
        if (
            type(b) is float
            and b == 0.0
            and type(a) is np.ndarray
            and a.dtype.kind == "f"
            and condition.dtype == np.bool_
            and a.shape == condition.shape
        ):
            # Masking a gradient (relu, clamp, ...): a product is ~3x faster than np.where.
            # It differs only where a non-finite value meets the mask (inf * 0 = nan), which
            # the sum detects; np.where then gives the exact zeros.
            out = a * condition
            if not np.isnan(out.sum()):
                return out
        out = np.where(condition, a, b)
        ref = a if isinstance(a, np.ndarray) else b
        return out.astype(ref.dtype, copy=False) if isinstance(ref, np.ndarray) else out

    @staticmethod
    def sum(x: np.ndarray, dim: Any = None, keepdim: bool = False) -> np.ndarray:
        if type(x) is np.ndarray and x.ndim == 2 and x.dtype in _BLAS_FLOATS and x.size:
            # Row or column sums of a matrix as a matrix-vector product: 2-3x faster than
            # NumPy's reduction over short rows (softmax backward, bias gradients).
            if dim in (1, -1):
                return x @ _ones_vector((x.shape[1], 1) if keepdim else x.shape[1], x.dtype)
            if dim in (0, -2):
                ones = _ones_vector((1, x.shape[0]) if keepdim else x.shape[0], x.dtype)
                return ones @ x
        return np.asarray(np.sum(x, axis=dim, keepdims=keepdim))

    @staticmethod
    def expand(x: np.ndarray, shape: tuple) -> np.ndarray:
        if type(x) is not np.ndarray and isinstance(x, np.generic):
            x = np.asarray(x)  # 0-d math gives NumPy scalars
        if type(x) is np.ndarray and x.ndim == 0:
            # The gradient of a full reduction (sum, mean): the read-only view with zero
            # strides that np.broadcast_to gives, made directly (its Python layers cost ~3 us).
            view = np.ndarray(shape, x.dtype, x, 0, (0,) * len(shape))
            view.flags.writeable = False
            return view
        return np.broadcast_to(x, shape)

    @staticmethod
    def reshape(x: np.ndarray, shape: tuple) -> np.ndarray:
        return np.reshape(x, shape)

    matmul = staticmethod(np.matmul)

    @staticmethod
    def mT(x: np.ndarray) -> np.ndarray:
        return x.T if x.ndim == 2 else x.swapaxes(-1, -2)

    @staticmethod
    def t(x: np.ndarray) -> np.ndarray:
        # PyTorch's t(): a matrix's transpose (TBackward0 on Tensors), a vector as it is
        return x.T

    @staticmethod
    def permute(x: np.ndarray, dims: tuple) -> np.ndarray:
        return np.transpose(x, dims)

    @staticmethod
    def transpose(x: np.ndarray, dim0: int, dim1: int) -> np.ndarray:
        return np.swapaxes(x, dim0, dim1)

    @staticmethod
    def squeeze(x: np.ndarray, dim: Any) -> np.ndarray:
        return np.squeeze(x, axis=dim)

    @staticmethod
    def unsqueeze(x: np.ndarray, dim: int) -> np.ndarray:
        if type(x) is not np.ndarray:
            return np.expand_dims(x, dim)
        at = dim if dim >= 0 else dim + x.ndim + 1
        return x.reshape(x.shape[:at] + (1,) + x.shape[at:])

    @staticmethod
    def stack(arrays: list, dim: int) -> np.ndarray:
        return np.stack(arrays, axis=dim)

    @staticmethod
    def cat(arrays: list, dim: int) -> np.ndarray:
        return np.concatenate(arrays, axis=dim)


def build_tensor_namespace(functions: dict[str, Any]) -> SimpleNamespace:
    """The Tensor namespace: same names as ``ArrayNamespace``, bound to glassgrad ops."""
    wanted = {n for n in vars(ArrayNamespace) if not n.startswith("_")}
    missing = wanted - set(functions)
    if missing:
        raise RuntimeError(f"tensor namespace lacks backward functions: {sorted(missing)}")
    return SimpleNamespace(**{name: functions[name] for name in wanted})


def default_float(x: np.ndarray) -> np.ndarray:
    """Integer and bool inputs of floating ops compute in the default float dtype."""
    return x if x.dtype.kind in "fc" else x.astype(_dtype.default_numpy_float())
