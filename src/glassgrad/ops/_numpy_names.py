"""NumPy's keyword names that PyTorch's argument parser also accepts: ``axis`` for ``dim``
and ``keepdims`` for ``keepdim`` (``x.sum(axis=1)``, ``torch.mean(x, axis=0, keepdims=True)``).

Only functions with a ``dim`` or ``keepdim`` parameter get the translation (one wrapper,
applied where the registry's functions are exported and bound as methods); the others are
left as they are, so hot paths such as ``x.add(y)`` pay nothing.
"""

from __future__ import annotations

import functools
import inspect
from typing import Any

from ._signed import signed_wrapper

__all__ = ["with_numpy_names"]

_ALIASES = (("axis", "dim"), ("keepdims", "keepdim"))


def with_numpy_names(fn: Any) -> Any:
    """``fn`` also taking ``axis=`` / ``keepdims=`` for its ``dim`` / ``keepdim``."""
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return fn
    aliases = {a: b for a, b in _ALIASES if b in params and a not in params}
    if not aliases:
        return fn

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if kwargs:
            for alias, name in aliases.items():
                if alias in kwargs:
                    if name in kwargs:
                        # Python's words, as where ``name`` came by position
                        raise TypeError(
                            f"{fn.__name__}() got multiple values for argument '{name}'"
                        )
                    kwargs[name] = kwargs.pop(alias)
        return fn(*args, **kwargs)

    # A call without NumPy's names goes straight to the function beneath ``fn``'s own signed
    # wrapper (``out=``), if any: one call, no packing.
    bare, takes_out, unset = getattr(fn, "_signed", (fn, False, frozenset()))
    return signed_wrapper(
        bare,
        wrapper,
        fn.__name__,
        takes_out=takes_out,
        takes_extra=True,
        unset=unset | frozenset(aliases.values()),
    )
