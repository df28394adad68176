"""Padding layers: ``ConstantPad1d/2d/3d``, ``ZeroPad1d/2d/3d``, ``ReflectionPad1d/2d/3d``,
``ReplicationPad1d/2d/3d``, ``CircularPad1d/2d/3d`` (``F.pad`` with a fixed padding).

``padding`` is an int (every side) or a tuple (left, right[, top, bottom[, front, back]]).

Example::

    >>> nn.ZeroPad2d((1, 1, 2, 0))(glassgrad.ones(1, 1, 2, 2))
    tensor([[[[0., 0., 0., 0.],
              [0., 0., 0., 0.],
              [0., 1., 1., 0.],
              [0., 1., 1., 0.]]]])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..._tensor import Tensor
from .. import functional as F
from .module import Module

__all__ = [
    f"{kind}Pad{n}d"
    for kind in ("Constant", "Zero", "Reflection", "Replication", "Circular")
    for n in (1, 2, 3)
]


def _sides(padding: Any, n: int) -> tuple:
    """An int as ``2 * n`` equal sides; a sequence as given."""
    if isinstance(padding, Sequence):
        return tuple(padding)
    return (padding,) * (2 * n)


class _PadNd(Module):
    """Shared: a padding of ``2 * dims`` sides applied with ``mode``."""

    dims = 1
    mode = "constant"

    def __init__(self, padding: Any) -> None:
        super().__init__()
        self.padding = _sides(padding, self.dims)

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, self.mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    def __init__(self, padding: Any, value: float) -> None:
        super().__init__(padding)
        self.value = value

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class _ZeroPadNd(_ConstantPadNd):
    def __init__(self, padding: Any) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _CircularPadNd(_PadNd):
    mode = "circular"

    def forward(self, input: Tensor) -> Tensor:
        dims = self.dims
        if input.dim() not in (dims + 1, dims + 2):
            raise ValueError(
                f"expected {dims + 1}D or {dims + 2}D input (got {input.dim()}D input)"
            )
        return super().forward(input)


def _layer(base: type, n: int, what: str) -> type:
    doc = f"{what} of the last {n} dimension{'s' if n > 1 else ''} (see the module doc)."
    return type(f"{base.__name__[1:-2]}{n}d", (base,), {"dims": n, "__doc__": doc})


class _ReflectionPadNd(_PadNd):
    mode = "reflect"


class _ReplicationPadNd(_PadNd):
    mode = "replicate"


_WHAT = {
    _ConstantPadNd: "Pad with a constant ``value``",
    _ZeroPadNd: "Pad with zeros",
    _ReflectionPadNd: "Pad with the reflection of the input (edge not repeated)",
    _ReplicationPadNd: "Pad by repeating the edge values",
    _CircularPadNd: "Pad by wrapping the input around",
}
for _base, _what in _WHAT.items():
    for _n in (1, 2, 3):
        _cls = _layer(_base, _n, _what)
        _cls.__module__ = __name__
        globals()[_cls.__name__] = _cls
