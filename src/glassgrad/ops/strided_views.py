"""``as_strided``: a view of a tensor's storage with any sizes, strides and offset (in
elements), as PyTorch's; ``Tensor.as_strided_``, the same geometry given to the tensor itself
in place; and ``as_strided_scatter``, the out-of-place write.

The storage is the contiguous allocation the tensor's values lie in (a view shares its
base's); strides and offsets count elements of it, whatever the tensor's own layout.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._tensor import Tensor
from ..autograd.op import Op
from ..autograd.storage import as_strided_backward, check_geometry, strided
from ..autograd.views import apply_inplace_view
from ._common import check_tensor
from ._registry import NoGrad, Sample, register
from ._samples import randn, register_on_copy
from .conversion import clone


def _storage(a: np.ndarray) -> tuple[np.ndarray, int]:
    """The flat storage ``a`` lies in and ``a``'s offset in it, in elements of ``a``."""
    root = a
    while True:
        owner = root.base
        if isinstance(owner, np.ndarray):
            root = owner
        elif isinstance(getattr(owner, "base", None), np.ndarray):  # NumPy's as_strided wrapper
            root = owner.base
        else:
            break
    if not root.flags.forc:
        raise RuntimeError("as_strided: the tensor's storage is not one contiguous allocation")
    flat = root.ravel(order="K").view(np.uint8).view(a.dtype)  # memory order, no copy
    start = flat.__array_interface__["data"][0]
    return flat, (a.__array_interface__["data"][0] - start) // a.itemsize


def _elements(strides: tuple[int, ...], itemsize: int) -> tuple[int, ...]:
    return tuple(s // itemsize for s in strides)


class AsStridedBackward0(Op):
    """out = the storage viewed with (size, stride, offset); its gradient is summed into the
    storage where output elements share a location, and read back with the input's geometry
    (shared between the input elements that share a location, as PyTorch's
    as_strided_backward)"""

    size: tuple[int, ...]
    stride: tuple[int, ...]
    offset: int
    input_geometry: tuple[tuple[int, ...], tuple[int, ...], int]

    is_view = True
    __slots__ = ("size", "stride", "offset", "input_geometry")

    def forward(self, a: Any, size: Any, stride: Any, offset: Any) -> Any:
        flat, own_offset = _storage(a)
        offset = own_offset if offset is None else offset
        check_geometry(size, stride, offset, flat.size, a.itemsize)
        self.size, self.stride, self.offset = size, stride, offset
        self.input_geometry = (a.shape, _elements(a.strides, a.itemsize), own_offset)
        return strided(flat, size, stride, offset)

    def backward(self, F: Any, grad: Any) -> Any:
        return as_strided_backward(grad, self.input_geometry, (self.size, self.stride, self.offset))


class AsStridedBackward1(AsStridedBackward0):
    """``as_strided_``: the tensor itself takes the geometry (its storage, values and version
    counter stay; a view stays a view of its base)."""

    def inverse_step(self, shape: tuple[int, ...]) -> tuple[Any, ...]:
        # Views made earlier of the tensor find their elements from its old geometry.
        size, stride, offset = self.input_geometry
        return (AsStridedBackward0, (), {"size": size, "stride": stride, "offset": offset}, None)


def _geometry(size: Any, stride: Any, storage_offset: Any) -> tuple:
    return (
        tuple(int(n) for n in size),
        tuple(int(s) for s in stride),
        None if storage_offset is None else int(storage_offset),
    )


def as_strided(input: Tensor, size: Any, stride: Any, storage_offset: int | None = None) -> Tensor:
    """A view of ``input``'s storage with the given ``size``, ``stride`` and
    ``storage_offset`` (in elements; ``input``'s own offset by default). Elements may
    overlap; writing through such a view is refused as PyTorch refuses it.

    Example::

        >>> x = glassgrad.arange(6.0)
        >>> x.as_strided((2, 3), (1, 2))
        tensor([[0., 2., 4.],
                [1., 3., 5.]])
    """
    check_tensor(input, "as_strided")
    size, stride, offset = _geometry(size, stride, storage_offset)
    return AsStridedBackward0.apply(input, size=size, stride=stride, offset=offset)


def as_strided_(input: Tensor, size: Any, stride: Any, storage_offset: int | None = None) -> Tensor:
    """In-place ``as_strided``: ``input`` itself becomes the view of its storage with the
    given ``size``, ``stride`` and ``storage_offset`` (its own offset by default).

    Example::

        >>> x = glassgrad.arange(6.0)
        >>> x.as_strided_((2, 2), (1, 2), 1)
        tensor([[1., 3.],
                [2., 4.]])
    """
    check_tensor(input, "as_strided_")
    size, stride, offset = _geometry(size, stride, storage_offset)
    return apply_inplace_view(AsStridedBackward1, input, size=size, stride=stride, offset=offset)


def as_strided_scatter(
    input: Tensor, src: Tensor, size: Any, stride: Any, storage_offset: int | None = None
) -> Tensor:
    """A copy of ``input`` with ``src`` written into the elements that
    ``input.as_strided(size, stride, storage_offset)`` views.

    Example::

        >>> glassgrad.as_strided_scatter(glassgrad.zeros(4), glassgrad.ones(2), (2,), (2,))
        tensor([1., 0., 1., 0.])
    """
    check_tensor(input, "as_strided_scatter")
    check_tensor(src, "as_strided_scatter", "src", 2)
    result = clone(input)  # keeps input's layout, so the storage offsets mean the same
    as_strided(result, size, stride, storage_offset).copy_(src)
    return result


register(
    "as_strided",
    as_strided,
    nodes=(AsStridedBackward0,),
    samples=lambda rng: [
        Sample((randn(rng, 6), (2, 2), (1, 2))),
        Sample((randn(rng, 3, 4), (3, 3), (4, 1), 1), note="a window into the storage"),
        Sample((randn(rng, 6), (2, 3), (1, 1)), note="overlapping output elements"),
        Sample((randn(rng, 3, 4).T, (2, 2), (1, 4)), note="a transposed input: storage strides"),
        Sample((randn(rng, 6), (0, 2), (1, 1))),
    ],
)


register_on_copy(
    "as_strided_",
    lambda rng: [
        Sample((randn(rng, 6), (2, 2), (1, 2), 1)),
        Sample((randn(rng, 3, 4), (3, 3), (4, 1)), note="the input's own offset"),
        Sample((randn(rng, 6), (2, 3), (1, 1)), note="overlapping elements"),
        Sample((randn(rng, 2, 3), (0,), (1,))),
    ],
)


def _as_strided_scatter_reference(
    torch: Any, input: Any, src: Any, size: Any, stride: Any, storage_offset: Any = None
) -> Any:
    """PyTorch's clone + as_strided + copy_, the same values: PyTorch 2.13's own
    as_strided_scatter gives the input the gradient of the written elements instead of the
    others (its gradcheck fails), so the oracle is this composite."""
    result = input.clone()
    result.as_strided(size, stride, storage_offset).copy_(src)
    return result


register(
    "as_strided_scatter",
    as_strided_scatter,
    torch=_as_strided_scatter_reference,
    samples=lambda rng: [
        Sample((randn(rng, 6), randn(rng, 2, 2), (2, 2), (1, 3))),
        Sample((randn(rng, 3, 4), randn(rng, 3), (3,), (5,), 0), note="the diagonal"),
        Sample((randn(rng, 3, 4), NoGrad(randn(rng, 2)), (2,), (1,), 2)),
    ],
)

TENSOR_METHODS: dict[str, Any] = {"as_strided_": as_strided_}

__all__ = ["as_strided", "as_strided_scatter"]
