"""Helpers shared by the layer modules: argument tuples and new parameters."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ... import _factories
from ..parameter import Parameter


def ntuple(value: Any, n: int) -> tuple[Any, ...]:
    """``value`` repeated ``n`` times, or ``tuple(value)`` if it is already a sequence."""
    if isinstance(value, Iterable) and not isinstance(value, str):
        return tuple(value)
    return (value,) * n


def single(value: Any) -> tuple[Any, ...]:
    return ntuple(value, 1)


def pair(value: Any) -> tuple[Any, ...]:
    return ntuple(value, 2)


def triple(value: Any) -> tuple[Any, ...]:
    return ntuple(value, 3)


def new_parameter(*shape: int, dtype: Any = None, device: Any = None) -> Parameter:
    """An (uninitialised: zero) Parameter of ``shape``; the layer's reset_parameters fills it."""
    return Parameter(_factories.empty(*shape, dtype=dtype, device=device))
