"""Memory layouts and formats, PyTorch's objects: glassgrad tensors are dense (``strided``)
and row-major (``contiguous_format``). Factories take these arguments and refuse the ones
glassgrad cannot honour, rather than ignore them."""

from __future__ import annotations

from typing import Any

__all__ = [
    "layout",
    "strided",
    "sparse_coo",
    "memory_format",
    "contiguous_format",
    "preserve_format",
    "channels_last",
    "channels_last_3d",
    "check_factory_options",
]


class layout:
    """A tensor layout (``glassgrad.strided``: dense; the sparse ones exist as names)."""

    name: str

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"glassgrad.{self.name}"

    def __reduce__(self) -> str:
        return self.name


class memory_format:
    """A memory format (``contiguous_format``, ``preserve_format``, ``channels_last`` ...)."""

    name: str

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"glassgrad.{self.name}"

    def __reduce__(self) -> str:
        return self.name


strided: layout = layout("strided")
sparse_coo: layout = layout("sparse_coo")
contiguous_format: memory_format = memory_format("contiguous_format")
preserve_format: memory_format = memory_format("preserve_format")
channels_last: memory_format = memory_format("channels_last")
channels_last_3d: memory_format = memory_format("channels_last_3d")


def check_factory_options(
    op: str, layout: Any = None, pin_memory: Any = False, memory_format: Any = None
) -> None:
    """Refuse what glassgrad cannot make: a layout other than strided, pinned memory (a CUDA
    host-transfer feature) or a channels-last format."""
    if layout is not None and layout is not strided:
        raise RuntimeError(
            f"{op}(): glassgrad tensors are dense: layout must be strided, got {layout}"
        )
    if pin_memory:
        raise RuntimeError(
            f"{op}(): pin_memory=True needs a CUDA device; glassgrad computes on the CPU"
        )
    if memory_format is not None and memory_format not in (contiguous_format, preserve_format):
        raise RuntimeError(
            f"{op}(): glassgrad tensors are row-major: memory_format {memory_format} is not "
            "supported"
        )
