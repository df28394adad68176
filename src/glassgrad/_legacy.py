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


def set_default_tensor_type(t: Any, /) -> None:
    """Deprecated in PyTorch for ``set_default_dtype``: the default floating dtype becomes
    that of the legacy type ``t`` (``glassgrad.DoubleTensor`` or its name
    ``"torch.DoubleTensor"``); only floating types are accepted.

    Example::

        >>> glassgrad.set_default_tensor_type(glassgrad.DoubleTensor)
        >>> glassgrad.get_default_dtype()
        glassgrad.float64
        >>> glassgrad.set_default_tensor_type("torch.FloatTensor")
    """
    warnings.warn(
        "torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
        "torch.set_default_dtype() and torch.set_default_device() as alternatives.",
        UserWarning,
        stacklevel=2,
    )
    if isinstance(t, str):
        module, _, name = t.rpartition(".")
        if module not in ("torch", "glassgrad"):
            raise ModuleNotFoundError(f"No module named '{module}'")
        if name not in _LEGACY_TYPES:
            raise AttributeError(f"module 'torch' has no attribute '{name}'")
        t = _LEGACY_TYPES[name]
        if not t.dtype.is_floating_point:
            raise TypeError("only floating-point types are supported as the default type")
    if not isinstance(t, _LegacyTensorType):
        raise TypeError(
            "invalid type object: only floating-point types are supported as the default type"
        )
    if not t.dtype.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _dtype.set_default_dtype(t.dtype)


_LEGACY_TYPES = {
    t.__name__: t
    for t in (
        FloatTensor,
        DoubleTensor,
        HalfTensor,
        LongTensor,
        IntTensor,
        ByteTensor,
        BoolTensor,
        CharTensor,
        ShortTensor,
    )
}
