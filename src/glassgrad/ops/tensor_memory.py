"""Tensor methods about memory and layout: ``new_empty_strided``, ``as_subclass``,
``dim_order``, ``const_data_ptr``, ``is_set_to``, ``set_``; and the methods that run a Python callable
on each element, in place (``apply_``, ``map_``, ``map2_``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .._creation import empty_strided
from .._dtype import c_type_name
from .._layout import memory_format
from .._tensor import Tensor
from ..autograd.grad_mode import state as grad_state
from ..autograd.inplace_record import note_write
from ..autograd.mutation import before_write, write_hooks
from ..autograd.storage import check_geometry, strided
from ..autograd.views import check_inplace, refresh_view
from ._common import check_tensor
from ._not_implemented import _not_implemented_node
from .indexing import ViewBackward0Alias
from .strided_views import _storage


def new_empty_strided(
    input: Tensor,
    size: Any,
    stride: Any,
    *,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    pin_memory: bool | None = False,
    requires_grad: bool | None = False,
) -> Tensor:
    """An uninitialised tensor of ``size`` and ``stride``, with this tensor's dtype unless
    given.

    Example::

        >>> glassgrad.ones(2).new_empty_strided((2, 3), (1, 2)).stride()
        (1, 2)
    """
    return empty_strided(
        size,
        stride,
        dtype=input.dtype if dtype is None else dtype,
        layout=layout,
        device=device,
        pin_memory=bool(pin_memory),
        requires_grad=bool(requires_grad),
    )


def as_subclass(input: Tensor, cls: type) -> Tensor:
    """This tensor as an instance of ``cls`` (a subclass of Tensor): an alias sharing its
    memory and version, recorded as ``AliasBackward0`` when it requires grad.

    Example::

        >>> class Mine(glassgrad.Tensor): pass
        >>> type(glassgrad.ones(2).as_subclass(Mine)).__name__
        'Mine'
    """
    if not (isinstance(cls, type) and issubclass(cls, Tensor)):
        raise TypeError(
            "Creating a Tensor subclass from a class that does not inherit from Tensor is not "
            "possible. Make sure your class inherits from Tensor."
        )
    result = ViewBackward0Alias.apply(check_tensor(input, "as_subclass"))
    result.__class__ = cls
    return result


def _contiguous_in(shape: tuple, strides: tuple, order: tuple) -> bool:
    """Dense in the dimension order ``order`` (outermost first); size-1 dims are free."""
    expected = 1
    for d in reversed(order):
        if shape[d] != 1:
            if strides[d] != expected:
                return False
            expected *= shape[d]
    return True


def _order_against(shape: tuple, strides: tuple, a: int, b: int) -> int:
    """PyTorch's comparison of two dims for the layout order (1: swap, -1: keep, 0: tie)."""

    def at_least(x: int, y: int) -> bool:
        if y == 0:
            return True
        if x == 0:
            return False
        return x >= y or x % y == 0

    sa, sb = strides[a], strides[b]
    if sa == 0 or sb == 0:
        return 0
    if sa == sb:
        return 0 if at_least(shape[b], shape[a]) else 1
    if at_least(sb, sa):
        return -1
    return 1 if at_least(sa, sb) else 0


def _layout_order(input: Tensor, check: bool) -> list:
    """PyTorch's ``compute_elementwise_output_logical_to_physical_perm`` for one tensor: the
    dims from outermost to innermost in memory; ``check`` refuses an order the strides do not
    impose (where the layout is neither row-major nor channels-last)."""
    shape, strides = input.shape, input.stride()
    n = len(shape)
    if n <= 1:
        return list(range(n))
    contiguous = _contiguous_in(shape, strides, tuple(range(n)))
    channels_last = n == 4 and _contiguous_in(shape, strides, (0, 2, 3, 1))
    if contiguous and not channels_last:
        return list(range(n))
    if channels_last and not contiguous:
        return [0, 2, 3, 1]
    perm = list(reversed(range(n)))  # sorted innermost first, reversed on return
    for i in range(1, n):
        dim1 = i
        for dim0 in reversed(range(i)):
            comparison = _order_against(shape, strides, perm[dim0], perm[dim1])
            if comparison > 0:
                perm[dim0], perm[dim1] = perm[dim1], perm[dim0]
                dim1 = dim0
            elif comparison < 0:
                break
    if check and any(_order_against(shape, strides, a, b) != -1 for a, b in zip(perm, perm[1:])):
        raise RuntimeError("The tensor does not have unique dim order.")
    return list(reversed(perm))


def dim_order(input: Tensor, *, ambiguity_check: bool | list[Any] = False) -> tuple[int, ...]:
    """The dims from outermost to innermost in memory; ``ambiguity_check=True`` (or a list of
    memory formats, one of which must fit exactly) refuses layouts several orders describe.

    Example::

        >>> glassgrad.zeros(2, 3, 4).permute(2, 0, 1).dim_order()
        (1, 2, 0)
    """
    formats = ambiguity_check if isinstance(ambiguity_check, list) else []
    if not isinstance(ambiguity_check, (bool, list)) or not all(
        isinstance(f, memory_format) for f in formats
    ):
        raise TypeError("The ambiguity_check argument must be a bool or a list of memory formats.")
    if ambiguity_check is not False:
        shape, strides = input.shape, input.stride()
        ambiguous = any(s == 1 for s in shape) or any(a == b for a, b in zip(strides, strides[1:]))
        fitting = sum(1 for f in formats if input.is_contiguous(memory_format=f))
        if ambiguous and fitting != 1:
            raise RuntimeError(
                "The tensor does not have unique dim order, or cannot map to exact one of the "
                "given memory formats."
            )
    return tuple(_layout_order(input, bool(ambiguity_check)))


def const_data_ptr(input: Tensor) -> int:
    """The address of the first element (``data_ptr``, for reading only).

    Example::

        >>> t = glassgrad.ones(2); t.const_data_ptr() == t.data_ptr()
        True
    """
    return input.data_ptr()


def is_set_to(input: Tensor, tensor: Tensor) -> bool:
    """True if both tensors are the same memory: same storage, offset, sizes and strides.

    Example::

        >>> t = glassgrad.ones(3); t.is_set_to(t[:]), t.is_set_to(t.clone())
        (True, False)
    """
    a, b = input._data, tensor._data
    return (
        a.__array_interface__["data"][0] == b.__array_interface__["data"][0]
        and a.shape == b.shape
        and a.strides == b.strides
        and a.dtype == b.dtype
    )


# The node of a recorded set_: the values are replaced, the derivative is not implemented.
SetNotImplemented: Any = _not_implemented_node("set_", lambda *arrays: arrays[-1], aten=False)


def set_(
    input: Tensor,
    source: Tensor | None = None,
    storage_offset: int | None = None,
    size: Any = None,
    stride: Any = None,
) -> Tensor:
    """Make ``input`` the tensor ``source`` is: the same memory, sizes and strides (``set_()``:
    empty), or ``source``'s memory seen with ``size`` and ``stride`` (in elements; row-major
    by default) from ``storage_offset`` elements past ``source``'s own start. Writes through either then show in both.

    As PyTorch's: ``input`` keeps its own version counter (bumped); its AccumulateGrad is
    made anew (a graph built before no longer reaches it); recorded (``input`` or ``source``
    requires grad), its history is a ``NotImplemented`` node. Unlike PyTorch, a geometry
    that reaches past ``source``'s memory is refused instead of growing it.

    Example::

        >>> x = glassgrad.zeros(2); s = glassgrad.arange(6.0)
        >>> x.set_(s, 1, (2, 2))
        tensor([[1., 2.],
                [3., 4.]])
    """
    given = (storage_offset, size, stride)
    if (source is None and any(v is not None for v in given)) or (
        source is not None and storage_offset is not None and size is None
    ):
        raise TypeError("set_() received an invalid combination of arguments")
    if source is None:
        new = np.empty(0, input._data.dtype)
    else:
        check_tensor(source, "set_", "source")
        if source._data.dtype != input._data.dtype:
            raise RuntimeError(
                f"Could not set tensor of type {c_type_name(source._data.dtype)} to "
                f"a tensor of type {c_type_name(input._data.dtype)}"
            )
        new = source._data
        if size is not None:
            shape = tuple(int(n) for n in size)
            if stride is None or len(stride) == 0:
                strides = tuple(int(np.prod(shape[i + 1 :])) for i in range(len(shape)))
            else:
                strides = tuple(int(s) for s in stride)
            flat, own_offset = _storage(new)
            offset = own_offset + int(storage_offset)  # from source's own offset, as PyTorch
            check_geometry(shape, strides, offset, flat.size, flat.itemsize)
            new = strided(flat, shape, strides, offset)
    sources = () if source is None else (source,)
    # The flags as set (check_inplace reads them so), then the inputs' histories.
    recording = grad_state.enabled and (
        input.requires_grad or any(s.requires_grad for s in sources)
    )
    if recording:
        check_inplace(input)
        for t in (input, *sources):
            if t._base is not None and t._version_counter is not None:
                refresh_view(t)
    if write_hooks:
        before_write(input)
    if recording:
        before = Tensor._from_array(input._data)
        before._node, before._output_nr = input._node, input._output_nr
        before._requires_grad = input._requires_grad or input._node is not None
        node = SetNotImplemented.__new__(SetNotImplemented)
        node._record((before, *sources), [input._data, *(s._data for s in sources)], new)
        input._node, input._output_nr, input._requires_grad = node, 0, True
    input._data = new
    input._grad_acc = None  # PyTorch resets the grad accumulator of a tensor set_ anew
    input._vc[0] += 1
    note_write(input._vc, "set_")
    return input


# --- Python callables per element (CPU only in PyTorch, and slow there too) -------------
def _refuse_grad(input: Tensor, name: str) -> None:
    if input.requires_grad:
        raise RuntimeError(
            f"Can't call {name}() on Variable that requires grad. Use var.detach().{name}() "
            "instead."
        )


def _write_each(input: Tensor, fn: Callable, *others: Tensor) -> Tensor:
    """``input[i] = fn(input[i], *others[i])`` for every element (others broadcast to it),
    written without a version bump, as PyTorch's ``apply_`` family."""
    data = input._data
    sources = [np.broadcast_to(o._data, data.shape) for o in others]
    kind = data.dtype.type
    for index in np.ndindex(data.shape):
        data[index] = kind(fn(data[index].item(), *(s[index].item() for s in sources)))
    return input


def apply_(input: Tensor, callable: Callable) -> Tensor:
    """Replace each element ``x`` by ``callable(x)``, in place (slow: a Python call each).

    Example::

        >>> glassgrad.tensor([1, 2]).apply_(lambda x: x * 10)
        tensor([10, 20])
    """
    _refuse_grad(input, "apply_")
    return _write_each(input, callable)


def _check_broadcast(input: Tensor, others: tuple) -> None:
    from .broadcasting import expand

    for other in others:
        check_tensor(other, "map_")
        expand(other.detach(), input.shape)  # PyTorch's expand error when it does not fit


def map_(input: Tensor, other: Tensor, callable: Callable) -> Tensor:
    """Replace each element ``x`` by ``callable(x, y)`` with ``y`` from ``other`` (broadcast
    to this tensor's shape), in place.

    Example::

        >>> glassgrad.tensor([1, 2]).map_(glassgrad.tensor([10, 20]), lambda x, y: x + y)
        tensor([11, 22])
    """
    _refuse_grad(input, "map_")
    _check_broadcast(input, (other,))
    return _write_each(input, callable, other)


def map2_(input: Tensor, x: Tensor, y: Tensor, callable: Callable) -> Tensor:
    """Replace each element ``a`` by ``callable(a, b, c)`` with ``b``, ``c`` from ``x`` and
    ``y`` (broadcast to this tensor's shape), in place.

    Example::

        >>> t = glassgrad.tensor([1, 2])
        >>> t.map2_(glassgrad.tensor([1, 1]), glassgrad.tensor([2, 3]), lambda a, b, c: a + b * c)
        tensor([3, 5])
    """
    _refuse_grad(input, "map2_")
    _check_broadcast(input, (x, y))
    return _write_each(input, callable, x, y)


TENSOR_METHODS: dict[str, Any] = {
    "new_empty_strided": new_empty_strided,
    "as_subclass": as_subclass,
    "dim_order": dim_order,
    "const_data_ptr": const_data_ptr,
    "is_set_to": is_set_to,
    "set_": set_,
    "apply_": apply_,
    "map_": map_,
    "map2_": map2_,
}
