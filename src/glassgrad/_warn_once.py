"""Warnings PyTorch gives once per process (its ``TORCH_WARN_ONCE``), and the switch that
makes them repeat: ``set_warn_always``."""

from __future__ import annotations

import warnings

__all__ = ["set_warn_always", "is_warn_always_enabled", "warn_once"]

_always = [False]
_given: set[str] = set()  # the once-per-process warnings already given


def set_warn_always(b: bool) -> None:
    """Give warnings that PyTorch gives once per process every time instead (``True``).

    Example::

        >>> glassgrad.set_warn_always(True); glassgrad.is_warn_always_enabled()
        True
        >>> glassgrad.set_warn_always(False)
    """
    _always[0] = bool(b)


def is_warn_always_enabled() -> bool:
    """Whether once-per-process warnings are given every time (``set_warn_always``).

    Example::

        >>> glassgrad.is_warn_always_enabled()
        False
    """
    return _always[0]


def warn_once(message: str, category: type[Warning], stacklevel: int) -> None:
    """``warnings.warn`` the first time this process reaches it (every time under
    ``set_warn_always(True)``). ``stacklevel`` counts as for a direct ``warnings.warn``."""
    if _always[0] or message not in _given:
        _given.add(message)
        warnings.warn(message, category, stacklevel=stacklevel + 1)
