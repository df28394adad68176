"""``nn.utils.skip_init``: build a module without running its parameter initialisation."""

from __future__ import annotations

import inspect
from typing import Any

from ..modules.module import Module

__all__ = ["skip_init"]


def skip_init(module_cls: type, *args: Any, **kwargs: Any) -> Module:
    """``module_cls(*args, **kwargs)`` whose parameters are left uninitialised (their values
    are unspecified, as in PyTorch, and must be set by the caller). The class must take a
    ``device`` argument, as PyTorch requires.

    glassgrad has no "meta" device to build on, so the module is built on the CPU and its
    parameters and buffers are then replaced by uninitialised (``empty``) storage.

    Example::

        >>> layer = nn.utils.skip_init(nn.Linear, 3, 2)
        >>> layer.weight.shape
        glassgrad.Size([2, 3])
    """
    if not (isinstance(module_cls, type) and issubclass(module_cls, Module)):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    device = kwargs.pop("device", "cpu")
    return module_cls(*args, **kwargs).to_empty(device=device)
