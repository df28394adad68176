"""Finite differences: ``torch.gradient``, the derivative of sampled values by central
differences inside and one-sided ones at the edges, as a composite of slicing and
arithmetic (so it is differentiable, to any order)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._tensor import Tensor
from ._common import check_tensor, wrap_dim
from ._registry import Sample, register
from ._samples import randn
from .shape import cat
from .shape_views import narrow


def _part(x: Tensor, dim: int, start: int, stop: int | None = None) -> Tensor:
    """``x`` sliced to ``start:stop`` along ``dim`` (negative bounds count from the end)."""
    n = x.shape[dim]
    begin = start + n if start < 0 else start
    end = n if stop is None else (stop + n if stop < 0 else stop)
    return narrow(x, dim, begin, end - begin)


def _uniform(x: Tensor, dim: int, step: Any, edge_order: int) -> Tensor:
    """PyTorch's gradient_helper_float: samples ``step`` apart."""
    center = (_part(x, dim, 2) - _part(x, dim, 0, -2)) / step
    if edge_order == 1:
        first = (_part(x, dim, 1, 2) - _part(x, dim, 0, 1)) / step
        last = (_part(x, dim, -1) - _part(x, dim, -2, -1)) / step
    else:
        first = _part(x, dim, 0, 1) * -1.5 + _part(x, dim, 1, 2) * 2 - _part(x, dim, 2, 3) * 0.5
        first = first / step
        last = _part(x, dim, -3, -2) * 0.5 + _part(x, dim, -2, -1) * -2 + _part(x, dim, -1) * 1.5
        last = last / step
    return cat([first, center / 2, last], dim)


def _coordinates(x: Tensor, dim: int, coordinates: Tensor, edge_order: int) -> Tensor:
    """PyTorch's gradient_helper: samples at the (1-D) ``coordinates`` along ``dim``."""
    if coordinates.ndim != 1:
        raise RuntimeError(
            "torch.gradient expected each element of spacing to have one dimension, but got an "
            f"element with {coordinates.ndim} dimensions!"
        )
    shape = [1] * x.ndim
    shape[dim] = -1
    dx = coordinates[1:] - coordinates[:-1]
    dx1, dx2 = dx[:-1], dx[1:]
    a = (-dx2 / (dx1 * (dx1 + dx2))).reshape(shape)
    b = ((dx2 - dx1) / (dx1 * dx2)).reshape(shape)
    c = (dx1 / (dx2 * (dx1 + dx2))).reshape(shape)
    center = a * _part(x, dim, 0, -2) + b * _part(x, dim, 1, -1) + c * _part(x, dim, 2)
    if edge_order == 1:
        first = (_part(x, dim, 1, 2) - _part(x, dim, 0, 1)) / dx[0]
        last = (_part(x, dim, -1) - _part(x, dim, -2, -1)) / dx[-1]
    else:
        d0, d1 = dx[0], dx[1]
        first = (
            _part(x, dim, 0, 1) * (-(2.0 * d0 + d1) / (d0 * (d0 + d1)))
            + _part(x, dim, 1, 2) * ((d0 + d1) / (d0 * d1))
            + _part(x, dim, 2, 3) * (-d0 / (d1 * (d0 + d1)))
        )
        d0, d1 = dx[-1], dx[-2]
        last = (
            _part(x, dim, -3, -2) * (d0 / (d1 * (d0 + d1)))
            + _part(x, dim, -2, -1) * (-(d0 + d1) / (d0 * d1))
            + _part(x, dim, -1) * ((2 * d0 + d1) / (d0 * (d0 + d1)))
        )
    return cat([first, center, last], dim)


def gradient(
    input: Tensor, *, spacing: Any = 1, dim: Any = None, edge_order: int = 1
) -> tuple[Tensor, ...]:
    """The gradient of the values ``input`` sampled on a grid, one tensor per dim: second-order
    central differences inside, one-sided differences of order ``edge_order`` (1 or 2) at
    the edges. ``spacing`` is the step (a number, or one per dim) or the sample coordinates
    (one 1-D tensor per dim); ``dim`` the dims to differentiate (all by default).

    Example::

        >>> glassgrad.gradient(glassgrad.tensor([1.0, 4.0, 9.0, 16.0]))
        (tensor([3., 4., 6., 7.]),)
    """
    x = check_tensor(input, "gradient")
    if x._data.dtype == np.uint8:
        raise RuntimeError("torch.gradient does not support uint8 input.")
    dims = (
        list(range(x.ndim))
        if dim is None
        else [wrap_dim(d, x.ndim) for d in ([dim] if isinstance(dim, int) else dim)]
    )
    listed = isinstance(spacing, (list, tuple))
    if listed and dim is None and len(spacing) != x.ndim:
        raise RuntimeError(
            "torch.gradient expected spacing to be unspecified, a scalar, or a list of length "
            f"equal to 'self.dim() = {x.ndim}', since dim argument was not given, but got a "
            f"list of length {len(spacing)}"
        )
    if listed and dim is not None and len(spacing) != len(dims):
        raise RuntimeError(
            "torch.gradient expected spacing to be unspecified, a scalar or it's spacing and "
            f"dim arguments to have the same length, but got a spacing argument of length "
            f"{len(spacing)} and a dim argument of length {len(dims)}."
        )
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    seen: set = set()
    for d in dims:
        if d in seen:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        seen.add(d)
        if x.shape[d] < edge_order + 1:
            raise RuntimeError(
                "torch.gradient expected each dimension size to be at least edge_order+1"
            )
    steps = list(spacing) if listed else [spacing] * len(dims)
    return tuple(
        _coordinates(x, d, step, edge_order)
        if isinstance(step, Tensor)
        else _uniform(x, d, step, edge_order)
        for d, step in zip(dims, steps)
    )


register(
    "gradient",
    gradient,
    methods=(),
    samples=lambda rng: [
        Sample((randn(rng, 5),)),
        Sample((randn(rng, 4, 5),), {"spacing": 0.5, "edge_order": 2}),
        Sample((randn(rng, 4, 5),), {"spacing": [2.0], "dim": 1}),
        Sample((randn(rng, 3, 4),), {"spacing": [0.5, 2.0], "dim": (1, 0)}),
        Sample((randn(rng, 4, 5),), {"spacing": [np.array([0.0, 0.5, 1.5, 2.0])], "dim": 0}),
        Sample(
            (randn(rng, 4, 5),),
            {"spacing": [np.array([0.0, 0.5, 1.5, 2.0])], "dim": 0, "edge_order": 2},
            note="coordinates, second-order edges",
        ),
    ],
)

__all__ = ["gradient"]
