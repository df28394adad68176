"""PyTorch's alias names (``arccos`` for ``acos``, ``clip`` for ``clamp`` ...): each a registry
row of its own, sharing its target's function and samples, so the parity tests call it by
the alias name in both libraries. In-place aliases (``arccos_``) call the target's in-place
method."""

from __future__ import annotations

from typing import Any

from .._tensor import Tensor
from . import (
    arithmetic,
    clamping,
    comparison,
    division,
    logical,
    pointwise,
    rounding,
    shape,
    unary_math,
)
from ._registry import REGISTRY, register

# The modules whose rows the aliases copy, imported (and named) so that those rows exist.
_TARGET_MODULES = (
    arithmetic,
    clamping,
    comparison,
    division,
    logical,
    pointwise,
    rounding,
    shape,
    unary_math,
)

# alias -> (target, whether PyTorch has it as a Tensor method too)
ALIASES = {
    "absolute": ("abs", True),
    "arccos": ("acos", True),
    "arccosh": ("acosh", True),
    "arcsin": ("asin", True),
    "arcsinh": ("asinh", True),
    "arctan": ("atan", True),
    "arctan2": ("atan2", True),
    "arctanh": ("atanh", True),
    "clip": ("clamp", True),
    "concat": ("cat", False),
    "concatenate": ("cat", False),
    "divide": ("div", True),
    "multiply": ("mul", True),
    "negative": ("neg", True),
    "greater": ("gt", True),
    "greater_equal": ("ge", True),
    "less": ("lt", True),
    "less_equal": ("le", True),
    "not_equal": ("ne", True),
    "fix": ("trunc", True),
}

for _alias, (_target, _method) in ALIASES.items():
    _row = REGISTRY[_target]
    register(
        _alias,
        _row.function,
        nodes=_row.nodes,
        methods=(_alias,) if _method else (),
        samples=_row.samples,
        differentiable=_row.differentiable,
        second_order=_row.second_order,
        atol=_row.atol,
        rtol=_row.rtol,
    )


def subtract(input: Tensor, other: Any, alpha: float = 1) -> Tensor:
    """``sub`` under NumPy's name; PyTorch also takes ``alpha`` by position here.

    Example::

        >>> glassgrad.subtract(glassgrad.tensor([3.0]), 1, 2)
        tensor([1.])
    """
    return arithmetic.sub(input, other, alpha=alpha)


register(
    "subtract",
    subtract,
    nodes=REGISTRY["sub"].nodes,
    samples=REGISTRY["sub"].samples,
)


def _inplace_alias(target: str) -> Any:
    def method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        return getattr(self, target)(*args, **kwargs)

    method.__name__ = method.__qualname__ = target
    return method


TENSOR_METHODS: dict[str, Any] = {
    f"{alias}_": _inplace_alias(f"{target}_")
    for alias, (target, method) in ALIASES.items()
    if method
}


def subtract_(input: Tensor, other: Any, alpha: float = 1) -> Tensor:
    """In-place ``subtract``; as there, PyTorch takes ``alpha`` by position too.

    Example::

        >>> glassgrad.tensor([3.0]).subtract_(1, 2)
        tensor([1.])
    """
    return input.sub_(other, alpha=alpha)


TENSOR_METHODS["subtract_"] = subtract_
