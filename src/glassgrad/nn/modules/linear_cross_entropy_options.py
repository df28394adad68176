"""``LinearCrossEntropyOptions``: the settings of PyTorch's chunked ``linear_cross_entropy``.

glassgrad computes ``linear_cross_entropy`` the reference way (``linear`` then
``cross_entropy``), so ``F.linear_cross_entropy`` refuses an ``options`` object rather than
ignore it; the class exists, with PyTorch's fields and checks, so that code building one
imports and fails clearly at the call.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..._dtype import float16, float32, float64

__all__ = ["LinearCrossEntropyOptions"]


@dataclasses.dataclass(slots=True, frozen=True)
class LinearCrossEntropyOptions:
    """Chunking and accumulation settings of PyTorch's chunked ``linear_cross_entropy``.

    Example::

        >>> nn.LinearCrossEntropyOptions(batch_chunk_size=128).batch_chunk_size
        128
    """

    allow_retain_graph: bool = False
    batch_chunk_size: int | None = None
    chunking_method: str | None = "auto"
    acc_policy: str = "auto"
    acc_dtype: Any = None

    def __post_init__(self) -> None:
        if self.acc_policy not in {"auto", "accurate", "balanced", "compact"}:
            raise ValueError(f"invalid acc_policy: {self.acc_policy!r}")
        if self.chunking_method is not None and self.chunking_method != "auto":
            name, sep, factor = self.chunking_method.partition(":")
            if not sep:
                factor = "1"
            if not (name == "aspect_ratio" and factor.isdigit() and int(factor) > 0):
                raise ValueError(f"invalid chunking_method: {self.chunking_method!r}")
        if not (
            self.batch_chunk_size is None
            or (isinstance(self.batch_chunk_size, int) and self.batch_chunk_size > 0)
        ):
            raise ValueError(
                f"batch_chunk_size must be positive int or None, got {self.batch_chunk_size!r}"
            )
        supported = {float16, float32, float64}
        if self.acc_dtype is not None and self.acc_dtype not in supported:
            raise ValueError(
                "acc_dtype must be one of {None, torch.float16, torch.bfloat16, torch.float32, "
                f"torch.float64}}, got {self.acc_dtype!r}. Pass acc_dtype=None to let the op "
                "pick automatically."
            )
