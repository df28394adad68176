"""``nn.Parameter``: a leaf tensor that a Module registers as one of its parameters, and
``nn.Buffer``: a tensor that a Module registers as a buffer on attribute assignment."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._dtype import get_default_dtype
from .._tensor import Tensor

__all__ = ["Parameter", "Buffer"]


def _share(cls: type, data: Any, requires_grad: bool, caller: str) -> Tensor:
    """A new leaf of class ``cls`` on the storage (and version counter) of ``data``."""
    if data is None:
        data = Tensor._from_array(np.empty((0,), dtype=get_default_dtype().numpy))
    if not isinstance(data, Tensor):
        raise TypeError(f"{caller}: data must be a Tensor, got {type(data).__name__}")
    t = object.__new__(cls)
    t._data = data._data
    t._requires_grad = False
    t._grad = None
    t._grad_fn = None
    t._vc = data._vc
    t.requires_grad = requires_grad  # the setter refuses integer tensors
    return t


class Parameter(Tensor):
    """A tensor that is a module parameter: assigned as a Module attribute, it is registered
    and appears in ``parameters()`` and in the ``state_dict``.

    ``Parameter(data)`` shares ``data``'s storage; it is always a leaf, and requires grad
    unless ``requires_grad=False``.

    Parameters
    ----------
    data : Tensor, optional
        The values (an empty float tensor if omitted).
    requires_grad : bool
        Whether the parameter requires gradient (default True).

    Example::

        >>> w = nn.Parameter(glassgrad.zeros(2))
        >>> w
        Parameter containing:
        tensor([0., 0.], requires_grad=True)
    """

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True) -> Parameter:
        return _share(cls, data, requires_grad, "Parameter")

    def __init__(self, data: Tensor | None = None, requires_grad: bool = True) -> None:
        pass

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    def __deepcopy__(self, memo: dict) -> Parameter:
        if id(self) in memo:
            return memo[id(self)]
        copied = type(self)(Tensor._from_array(self._data.copy()), self._requires_grad)
        for name, value in self.__dict__.items():
            if not name.startswith("_"):
                setattr(copied, name, value)
        memo[id(self)] = copied
        return copied

    def _rewrap(self, t: Tensor) -> Tensor:
        return type(self)(t, self._requires_grad)


class Buffer(Tensor):
    """A tensor that a Module registers as a buffer when assigned as an attribute
    (``self.running_mean = nn.Buffer(glassgrad.zeros(3))``). The module stores a plain
    Tensor on the same storage.

    Parameters
    ----------
    data : Tensor, optional
        The values (an empty float tensor if omitted).
    persistent : bool
        Whether the buffer is part of the module's ``state_dict`` (default True).

    Example::

        >>> class Counter(nn.Module):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.count = nn.Buffer(glassgrad.zeros(()))
        >>> list(Counter().state_dict())
        ['count']
    """

    def __new__(cls, data: Tensor | None = None, *, persistent: bool = True) -> Buffer:
        buffer = _share(cls, data, False, "Buffer")
        buffer.persistent = persistent
        return buffer

    def __init__(self, data: Tensor | None = None, *, persistent: bool = True) -> None:
        pass
