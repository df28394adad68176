"""``finfo`` and ``iinfo``: the numerical limits of floating and integer dtypes, as PyTorch's."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _dtype

__all__ = ["finfo", "iinfo"]


def _resolve(dtype: Any, kind: str, name: str) -> np.dtype:
    if dtype is None:
        dtype = _dtype.get_default_dtype()
    if not isinstance(dtype, _dtype.dtype):
        raise TypeError(f"{name}(): argument 'type' must be glassgrad.dtype, not {type(dtype)}")
    if dtype.numpy.kind not in kind:
        other = "iinfo" if name == "finfo" else "finfo"
        wanted = "a floating point" if name == "finfo" else "an integer"
        raise TypeError(
            f"torch.{name}() requires {wanted} input type. Use torch.{other} to handle "
            f"'torch.{name}'"
        )
    return dtype.numpy


def _short(value: float) -> str:
    return f"{value:g}"


class finfo:
    """Limits of a floating dtype (the default dtype if none): ``bits``, ``eps``, ``max``,
    ``min``, ``tiny`` (= ``smallest_normal``), ``resolution``, ``dtype`` (its name).

    Example::

        >>> glassgrad.finfo(glassgrad.float32).eps
        1.1920928955078125e-07
    """

    bits: int
    dtype: str
    eps: float
    max: float
    min: float
    resolution: float
    smallest_normal: float
    tiny: float

    __slots__ = ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype")

    def __init__(self, type: Any = None) -> None:
        info = np.finfo(_resolve(type, "f", "finfo"))
        self.bits = int(info.bits)
        self.eps = float(info.eps)
        self.max = float(info.max)
        self.min = float(info.min)
        self.tiny = self.smallest_normal = float(info.smallest_normal)
        self.resolution = 10.0**-info.precision
        self.dtype = str(info.dtype)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, finfo) and other.dtype == self.dtype

    def __hash__(self) -> int:
        return hash(("finfo", self.dtype))

    def __repr__(self) -> str:
        return (
            f"finfo(resolution={_short(self.resolution)}, min={_short(self.min)}, "
            f"max={_short(self.max)}, eps={_short(self.eps)}, "
            f"smallest_normal={_short(self.smallest_normal)}, tiny={_short(self.tiny)}, "
            f"dtype={self.dtype})"
        )


class iinfo:
    """Limits of an integer dtype: ``bits``, ``max``, ``min``, ``dtype`` (its name).

    Example::

        >>> glassgrad.iinfo(glassgrad.int8).max
        127
    """

    bits: int
    dtype: str
    max: int
    min: int

    __slots__ = ("bits", "max", "min", "dtype")

    def __init__(self, type: Any) -> None:
        info = np.iinfo(_resolve(type, "iu", "iinfo"))
        self.bits, self.max, self.min = int(info.bits), int(info.max), int(info.min)
        self.dtype = str(info.dtype)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, iinfo) and other.dtype == self.dtype

    def __hash__(self) -> int:
        return hash(("iinfo", self.dtype))

    def __repr__(self) -> str:
        return f"iinfo(min={_short(self.min)}, max={_short(self.max)}, dtype={self.dtype})"
