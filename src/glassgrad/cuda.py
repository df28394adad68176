"""``glassgrad.cuda``: the CUDA namespace of a build without CUDA, so that device-agnostic
scripts run (``"cuda" if glassgrad.cuda.is_available() else "cpu"``). Seeding and
synchronising do nothing; asking for a device raises, as PyTorch built without CUDA does.

Example::

    >>> glassgrad.cuda.is_available(), glassgrad.cuda.device_count()
    (False, 0)
"""

from __future__ import annotations

from typing import Any

from ._tensor import check_device

__all__ = [
    "is_available",
    "device_count",
    "is_initialized",
    "manual_seed",
    "manual_seed_all",
    "seed",
    "seed_all",
    "synchronize",
    "empty_cache",
    "current_device",
    "set_device",
    "get_device_name",
    "memory_allocated",
    "max_memory_allocated",
    "memory_reserved",
]


def is_available() -> bool:
    """False: glassgrad computes on the CPU."""
    return False


def device_count() -> int:
    """0: no CUDA device."""
    return 0


def is_initialized() -> bool:
    return False


def manual_seed(seed: int) -> None:
    """Nothing to seed (PyTorch ignores it without CUDA too)."""


def manual_seed_all(seed: int) -> None:
    """Nothing to seed."""


def seed() -> None:
    """Nothing to seed."""


def seed_all() -> None:
    """Nothing to seed."""


def synchronize(device: Any = None) -> None:
    """Nothing runs asynchronously."""


def empty_cache() -> None:
    """No CUDA memory is cached."""


def memory_allocated(device: Any = None) -> int:
    """0 bytes: nothing lives on a CUDA device."""
    return 0


def max_memory_allocated(device: Any = None) -> int:
    return 0


def memory_reserved(device: Any = None) -> int:
    return 0


def current_device() -> int:
    """Raises: there is no CUDA device."""
    check_device("cuda")
    return 0


def set_device(device: Any) -> None:
    """Raises: there is no CUDA device."""
    check_device("cuda")


def get_device_name(device: Any = None) -> str:
    """Raises: there is no CUDA device."""
    check_device("cuda")
    return ""
