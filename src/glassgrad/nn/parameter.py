"""``nn.Parameter``: a leaf tensor that a Module registers as one of its parameters, and
``nn.Buffer``: a tensor that a Module registers as a buffer on attribute assignment; the
placeholders of lazy modules, ``UninitializedParameter`` and ``UninitializedBuffer``."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._dtype import from_numpy_dtype, get_default_dtype, to_numpy_dtype
from .._tensor import Tensor

__all__ = [
    "Parameter",
    "Buffer",
    "UninitializedTensorMixin",
    "UninitializedParameter",
    "UninitializedBuffer",
    "is_lazy",
]


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
    t._node = None
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

    def __deepcopy__(self, memo: dict[int, Any]) -> Parameter:
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


class UninitializedTensorMixin:
    """A placeholder of no shape yet; ``materialize(shape)`` gives it one (uninitialized
    values) and turns it into ``cls_to_become`` (``Parameter``, or ``Tensor`` for a buffer)."""

    cls_to_become: type = Tensor

    def materialize(self, shape: Any, device: Any = None, dtype: Any = None) -> None:
        """Give the placeholder ``shape`` (and ``dtype``, default its own), in place.

        Example::

            >>> p = nn.UninitializedParameter()
            >>> p.materialize((2, 3))
            >>> type(p).__name__, tuple(p.shape)
            ('Parameter', (2, 3))
        """
        if isinstance(shape, int):
            shape = (shape,)
        array_dtype = self._data.dtype if dtype is None else to_numpy_dtype(dtype)
        self._data = np.empty(tuple(shape), array_dtype)
        self._vc[0] += 1
        self.__class__ = self.cls_to_become

    @property
    def shape(self) -> Any:
        raise RuntimeError(
            "Can't access the shape of an uninitialized parameter or buffer. This error usually "
            "happens in `load_state_dict` when trying to load an uninitialized parameter into "
            "an initialized one. Call `forward` to initialize the parameters before accessing "
            "their attributes."
        )

    def share_memory_(self) -> Any:
        raise RuntimeError(
            "Can't share memory on an uninitialized parameter or buffer. Call `forward` to "
            "initialize the parameters before calling `module.share_memory()`."
        )

    def __repr__(self) -> str:
        return f"<{self.__class__.__name__}>"

    def __reduce_ex__(self, proto: Any) -> Any:
        return (self.__class__, (self.requires_grad,))


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A ``Parameter`` whose shape is not known yet (the weights of lazy modules).

    Example::

        >>> nn.UninitializedParameter()
        <UninitializedParameter>
    """

    cls_to_become = Parameter

    def __new__(
        cls, requires_grad: bool = True, device: Any = None, dtype: Any = None
    ) -> UninitializedParameter:
        return _share(cls, _empty(dtype), requires_grad, "UninitializedParameter")

    def __init__(self, requires_grad: bool = True, device: Any = None, dtype: Any = None):
        pass

    def __deepcopy__(self, memo: dict[int, Any]) -> UninitializedParameter:
        if id(self) not in memo:
            memo[id(self)] = type(self)(self._requires_grad, dtype=_dtype_of(self))
        return memo[id(self)]


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer whose shape is not known yet (running statistics of lazy norms).

    Example::

        >>> nn.UninitializedBuffer()
        <UninitializedBuffer>
    """

    cls_to_become = Tensor

    def __new__(
        cls,
        requires_grad: bool = False,
        device: Any = None,
        dtype: Any = None,
        persistent: bool = True,
    ) -> UninitializedBuffer:
        buffer = _share(cls, _empty(dtype), requires_grad, "UninitializedBuffer")
        buffer.persistent = persistent
        return buffer

    def __init__(
        self,
        requires_grad: bool = False,
        device: Any = None,
        dtype: Any = None,
        persistent: bool = True,
    ) -> None:
        pass


def _empty(dtype: Any) -> Tensor:
    array_dtype = get_default_dtype().numpy if dtype is None else to_numpy_dtype(dtype)
    return Tensor._from_array(np.empty((0,), array_dtype))


def _dtype_of(tensor: Tensor) -> Any:
    return from_numpy_dtype(tensor._data.dtype)


def is_lazy(value: Any) -> bool:
    """Whether ``value`` is an uninitialized parameter or buffer (a placeholder)."""
    return isinstance(value, UninitializedTensorMixin)
