"""View ops in place: ``t_ squeeze_ unsqueeze_ transpose_ swapaxes_ swapdims_`` change the
tensor's own shape (its storage and values stay), and the deprecated out-of-place ``resize``
and ``resize_as``, which only reshape.

The in-place view ops extend the tensor's history by the view op's node under PyTorch's
in-place names (``TBackward1``, ``SqueezeBackward3/4/5``, ``UnsqueezeBackward1``,
``TransposeBackward1``); see ``autograd.views.apply_inplace_view`` for the rules.
"""

from __future__ import annotations

import functools
import operator
import warnings
from typing import Any

import numpy as np

from .._tensor import Tensor
from ..autograd.function import Function
from ..autograd.views import apply_inplace_view
from ._common import check_tensor, wrap_dim
from ._registry import Sample, register
from ._samples import randn, register_on_copy
from .shape import (
    SqueezeBackward0,
    TBackward0,
    TransposeBackward0,
    UnsqueezeBackward0,
    ViewBackward0,
)


# Each node gives the view step from the geometry it made back to the one before
# (``inverse_step``), with which views made earlier of the tensor still find their elements.
class TBackward1(TBackward0):
    """``t_``: the transpose of a tensor of at most 2 dimensions, in place."""

    def inverse_step(self, shape: tuple[int, ...]) -> tuple[Any, ...]:
        return (TBackward0, (), {}, None)


class TransposeBackward1(TransposeBackward0):
    """``transpose_`` (and its aliases ``swapaxes_``, ``swapdims_``)."""

    def inverse_step(self, shape: tuple[int, ...]) -> tuple[Any, ...]:
        return (TransposeBackward0, (), {"dim0": self.dim0, "dim1": self.dim1}, None)


def _back_to(shape: tuple[int, ...]) -> tuple[Any, ...]:
    # Adding or removing dimensions of size 1 is always a view.
    return (ViewBackward0, (), {"shape": shape}, None)


class UnsqueezeBackward1(UnsqueezeBackward0):
    """``unsqueeze_``."""

    def inverse_step(self, shape: tuple[int, ...]) -> tuple[Any, ...]:
        return _back_to(shape)


class SqueezeBackward3(SqueezeBackward0):
    """``squeeze_()``: every dimension of size 1."""

    def inverse_step(self, shape: tuple[int, ...]) -> tuple[Any, ...]:
        return _back_to(shape)


class SqueezeBackward4(SqueezeBackward0):
    """``squeeze_(dim)``: one dimension."""

    def inverse_step(self, shape: tuple[int, ...]) -> tuple[Any, ...]:
        return _back_to(shape)


class SqueezeBackward5(SqueezeBackward0):
    """``squeeze_(dims)``: several dimensions."""

    def inverse_step(self, shape: tuple[int, ...]) -> tuple[Any, ...]:
        return _back_to(shape)


def t_(input: Tensor) -> Tensor:
    """In-place ``t``: a tensor of at most 2 dimensions takes its transpose's shape.

    Example::

        >>> glassgrad.zeros(2, 3).t_().shape
        glassgrad.Size([3, 2])
    """
    n = check_tensor(input, "t_")._data.ndim
    if n > 2:
        raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is {n}D")
    return apply_inplace_view(TBackward1, input)


def transpose_(input: Tensor, dim0: int, dim1: int) -> Tensor:
    """In-place ``transpose``: dimensions ``dim0`` and ``dim1`` swap.

    Example::

        >>> glassgrad.zeros(2, 3, 4).transpose_(0, 2).shape
        glassgrad.Size([4, 3, 2])
    """
    n = check_tensor(input, "transpose_")._data.ndim
    return apply_inplace_view(
        TransposeBackward1,
        input,
        dim0=wrap_dim(dim0, n, "transpose_"),
        dim1=wrap_dim(dim1, n, "transpose_"),
    )


def swapaxes_(input: Tensor, axis0: int, axis1: int) -> Tensor:
    """In-place ``swapaxes`` (``transpose_``).

    Example::

        >>> glassgrad.zeros(2, 3).swapaxes_(0, 1).shape
        glassgrad.Size([3, 2])
    """
    return transpose_(input, axis0, axis1)


def swapdims_(input: Tensor, dim0: int, dim1: int) -> Tensor:
    """In-place ``swapdims`` (``transpose_``).

    Example::

        >>> glassgrad.zeros(2, 3).swapdims_(0, 1).shape
        glassgrad.Size([3, 2])
    """
    return transpose_(input, dim0, dim1)


def unsqueeze_(input: Tensor, dim: int) -> Tensor:
    """In-place ``unsqueeze``: a dimension of size 1 inserted at ``dim``.

    Example::

        >>> glassgrad.zeros(3).unsqueeze_(0).shape
        glassgrad.Size([1, 3])
    """
    n = check_tensor(input, "unsqueeze_")._data.ndim
    return apply_inplace_view(UnsqueezeBackward1, input, dim=wrap_dim(dim, n + 1, "unsqueeze_"))


def squeeze_(input: Tensor, *args: Any, dim: Any = None) -> Tensor:
    """In-place ``squeeze``: dimensions of size 1 removed (all, or those in ``dim``).

    Example::

        >>> glassgrad.zeros(2, 1, 3).squeeze_().shape
        glassgrad.Size([2, 3])
    """
    n = check_tensor(input, "squeeze_")._data.ndim
    if args:
        if dim is not None:
            raise TypeError("squeeze_() got multiple values for argument 'dim'")
        dim = args[0] if len(args) == 1 else args
    if dim is None:
        return apply_inplace_view(SqueezeBackward3, input)
    if isinstance(dim, (int, np.integer)):
        return apply_inplace_view(SqueezeBackward4, input, dim=(wrap_dim(dim, n, "squeeze_"),))
    dims = tuple(wrap_dim(d, n, "squeeze_") for d in dim)
    return apply_inplace_view(SqueezeBackward5, input, dim=dims)


class Resize(Function):
    """The deprecated out-of-place ``Tensor.resize``: a reshape keeping the element count
    (PyTorch's ``torch.autograd._functions.Resize``, whose node is ``ResizeBackward``)."""

    @staticmethod
    def forward(ctx: Any, tensor: Tensor, sizes: tuple[int, ...]) -> Tensor:
        # PyTorch's product: sizes given as one tuple are refused by the check below.
        count = functools.reduce(operator.mul, sizes, 1)
        if tensor.numel() != count:
            raise RuntimeError(
                f"requested resize to {'x'.join(map(str, sizes))} ({count} elements in total), "
                f"but the given tensor has a size of {'x'.join(map(str, tensor.shape))} "
                f"({tensor.numel()} elements). autograd's resize can only change the shape of "
                "a given tensor, while preserving the number of elements. "
            )
        ctx.input_sizes = tensor.shape
        # As PyTorch's: a contiguous input is viewed (its result is a view made inside a
        # custom Function, which may not see its base changed in place), another copied.
        return tensor.view(*sizes) if tensor.is_contiguous() else tensor.contiguous().view(*sizes)

    @staticmethod
    def backward(ctx: Any, grad_output: Tensor) -> tuple[Tensor | None, ...]:
        return grad_output.contiguous().view(ctx.input_sizes), None


def resize(input: Tensor, *sizes: Any) -> Tensor:
    """A reshaped copy with the same number of elements (deprecated in PyTorch, which warns).

    Example::

        >>> glassgrad.arange(6.0).resize(2, 3).shape  # doctest: +SKIP
        glassgrad.Size([2, 3])
    """
    warnings.warn("non-inplace resize is deprecated", stacklevel=2)
    return Resize.apply(input, sizes)


def resize_as(input: Tensor, tensor: Tensor) -> Tensor:
    """``resize`` to ``tensor``'s shape (deprecated in PyTorch, which warns).

    Example::

        >>> glassgrad.arange(6.0).resize_as(glassgrad.zeros(3, 2)).shape  # doctest: +SKIP
        glassgrad.Size([3, 2])
    """
    warnings.warn("non-inplace resize_as is deprecated", stacklevel=2)
    return Resize.apply(input, tuple(tensor.shape))


TENSOR_METHODS: dict[str, Any] = {
    "t_": t_,
    "transpose_": transpose_,
    "swapaxes_": swapaxes_,
    "swapdims_": swapdims_,
    "unsqueeze_": unsqueeze_,
    "squeeze_": squeeze_,
    "resize": resize,
    "resize_as": resize_as,
}


register_on_copy("t_", lambda rng: [Sample((randn(rng, 2, 3),)), Sample((randn(rng, 3),))])
register_on_copy(
    "transpose_",
    lambda rng: [Sample((randn(rng, 2, 3, 4), 0, -1)), Sample((randn(rng, 2, 3), 1, 1))],
)
register_on_copy("swapaxes_", lambda rng: [Sample((randn(rng, 2, 3), 0, 1))])
register_on_copy("swapdims_", lambda rng: [Sample((randn(rng, 2, 3), -1, 0))])
register_on_copy(
    "unsqueeze_", lambda rng: [Sample((randn(rng, 2, 3), 1)), Sample((randn(rng), -1))]
)
register_on_copy(
    "squeeze_",
    lambda rng: [
        Sample((randn(rng, 1, 2, 1, 3),)),
        Sample((randn(rng, 1, 2, 1, 3), 2)),
        Sample((randn(rng, 1, 2, 1, 3), (0, 1, -2))),
        Sample((randn(rng, 1, 2, 1),), {"dim": 0}),
    ],
)
register(
    "resize",
    resize,
    nodes=(),
    methods=(),
    samples=lambda rng: [Sample((randn(rng, 2, 3), 3, 2)), Sample((randn(rng, 4, 3).T, 6, 2))],
    torch=lambda torch, x, *sizes: x.resize(*sizes),
)
