"""Pre-0.4 typed constructors: ``FloatTensor``, ``DoubleTensor``, ``LongTensor`` ..."""

from __future__ import annotations

import warnings
from typing import Any

from . import _dtype
from ._tensor import Tensor, _legacy_new


class _LegacyTensorType(type):
    """``isinstance(t, glassgrad.FloatTensor)`` checks the dtype, as it did in PyTorch."""

    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, Tensor) and obj._data.dtype == cls.dtype.numpy


def _legacy_type(name: str, dt: _dtype.dtype) -> type:
    def __new__(cls: type, *args: Any) -> Tensor:
        warnings.warn(
            f"glassgrad.{name}(...) is deprecated; use glassgrad.tensor(data, dtype=glassgrad."
            f"{dt.name}) or glassgrad.empty(*sizes, dtype=glassgrad.{dt.name})",
            DeprecationWarning,
            stacklevel=2,
        )
        return _legacy_new(dt, args, {})

    doc = f"Legacy constructor of {dt.name} tensors: ``{name}(data)`` or ``{name}(*sizes)``."
    return _LegacyTensorType(name, (), {"__new__": __new__, "dtype": dt, "__doc__": doc})


FloatTensor: type = _legacy_type("FloatTensor", _dtype.float32)
DoubleTensor: type = _legacy_type("DoubleTensor", _dtype.float64)
HalfTensor: type = _legacy_type("HalfTensor", _dtype.float16)
LongTensor: type = _legacy_type("LongTensor", _dtype.int64)
IntTensor: type = _legacy_type("IntTensor", _dtype.int32)
ByteTensor: type = _legacy_type("ByteTensor", _dtype.uint8)
BoolTensor: type = _legacy_type("BoolTensor", _dtype.bool_)
CharTensor: type = _legacy_type("CharTensor", _dtype.int8)
ShortTensor: type = _legacy_type("ShortTensor", _dtype.int16)
