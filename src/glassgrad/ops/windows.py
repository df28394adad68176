"""Window functions for spectral analysis (``torch.hann_window`` ...): factories computed as
PyTorch's (TensorFactories.cpp), in the requested dtype; a periodic window of length L is the
symmetric one of length L + 1 without its last value.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._dtype import default_numpy_float
from .._factories import _finish
from .._tensor import Tensor


def _window(
    name: str, length: Any, periodic: bool, dtype: Any, layout: Any, values: Any
) -> np.ndarray:
    """The window ``values(n, m)`` over ``n = arange(m)`` (m = length, + 1 if periodic)."""
    if isinstance(length, bool) or not isinstance(length, (int, np.integer)):
        raise TypeError(
            f"{name}(): argument 'window_length' must be int, not {type(length).__name__}"
        )
    np_dtype = default_numpy_float() if dtype is None else dtype.numpy
    if np_dtype.kind != "f":
        raise RuntimeError(f"{name} expects floating point dtypes, got: {dtype!r}")
    if layout is not None:
        raise RuntimeError(f"{name}: only dense (strided) tensors are supported, got {layout!r}")
    if length < 0:
        raise RuntimeError(
            f"{name} requires non-negative window_length, got window_length={length}"
        )
    if length <= 1:
        return np.ones(length, np_dtype)
    m = length + 1 if periodic else length
    window = np.asarray(values(np.arange(m, dtype=np_dtype), m), dtype=np_dtype)
    return window[:length]


def hamming_window(
    window_length: int,
    periodic: bool = True,
    alpha: float = 0.54,
    beta: float = 0.46,
    *,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    pin_memory: bool = False,
    requires_grad: bool = False,
) -> Tensor:
    """The generalised Hamming window ``alpha - beta cos(2 pi n / (M - 1))``.

    Example::

        >>> glassgrad.hamming_window(4)
        tensor([0.0800, 0.5400, 1.0000, 0.5400])
    """

    def values(n: np.ndarray, m: int) -> np.ndarray:
        return np.cos(n * (math.pi * 2.0 / (m - 1))) * -beta + alpha

    window = _window("hamming_window", window_length, periodic, dtype, layout, values)
    return _finish(window, requires_grad, device)


def hann_window(
    window_length: int,
    periodic: bool = True,
    *,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    pin_memory: bool = False,
    requires_grad: bool = False,
) -> Tensor:
    """The Hann window ``(1 - cos(2 pi n / (M - 1))) / 2``.

    Example::

        >>> glassgrad.hann_window(4)
        tensor([0.0000, 0.5000, 1.0000, 0.5000])
    """

    def values(n: np.ndarray, m: int) -> np.ndarray:
        return np.cos(n * (math.pi * 2.0 / (m - 1))) * -0.5 + 0.5

    window = _window("hann_window", window_length, periodic, dtype, layout, values)
    return _finish(window, requires_grad, device)


def bartlett_window(
    window_length: int,
    periodic: bool = True,
    *,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    pin_memory: bool = False,
    requires_grad: bool = False,
) -> Tensor:
    """The triangular Bartlett window ``1 - |2n / (M - 1) - 1|``.

    Example::

        >>> glassgrad.bartlett_window(4)
        tensor([0.0000, 0.5000, 1.0000, 0.5000])
    """

    def values(n: np.ndarray, m: int) -> np.ndarray:
        window = n * (2.0 / (m - 1))
        half = ((m - 1) >> 1) + 1
        window[half:] = 2 - window[half:]
        return window

    window = _window("bartlett_window", window_length, periodic, dtype, layout, values)
    return _finish(window, requires_grad, device)


def blackman_window(
    window_length: int,
    periodic: bool = True,
    *,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    pin_memory: bool = False,
    requires_grad: bool = False,
) -> Tensor:
    """The Blackman window ``0.42 - 0.5 cos(2 pi n / (M - 1)) + 0.08 cos(4 pi n / (M - 1))``.

    Example::

        >>> glassgrad.blackman_window(4)
        tensor([-1.4901e-08,  3.4000e-01,  1.0000e+00,  3.4000e-01])
    """

    def values(n: np.ndarray, m: int) -> np.ndarray:
        angle = n * (math.pi / (m - 1))
        return np.cos(angle * 4) * 0.08 - np.cos(angle * 2) * 0.5 + 0.42

    window = _window("blackman_window", window_length, periodic, dtype, layout, values)
    return _finish(window, requires_grad, device)


def kaiser_window(
    window_length: int,
    periodic: bool = True,
    beta: float = 12.0,
    *,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    pin_memory: bool = False,
    requires_grad: bool = False,
) -> Tensor:
    """The Kaiser window ``i0(beta sqrt(1 - ((n - a) / a)^2)) / i0(beta)``, a = (M - 1) / 2.

    Example::

        >>> glassgrad.kaiser_window(4, beta=5.0).shape
        glassgrad.Size([4])
    """

    def values(n: np.ndarray, m: int) -> np.ndarray:
        alpha = (m - 1) / 2.0
        wide = n.astype(np.float64)
        return np.i0(beta * np.sqrt(1 - ((wide - alpha) / alpha) ** 2)) / np.i0(beta)

    window = _window("kaiser_window", window_length, periodic, dtype, layout, values)
    return _finish(window, requires_grad, device)
