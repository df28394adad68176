"""``ReduceOp``: how ``all_reduce``, ``reduce`` and ``reduce_scatter`` combine the ranks'
values, and the MPI operation behind each for a given dtype."""

from __future__ import annotations

import enum
from typing import Any

import numpy as np

from ._mpi import mpi

__all__ = ["ReduceOp", "mpi_op"]


class ReduceOp(enum.IntEnum):
    """PyTorch's reduction names and numbers. ``AVG`` is a sum divided by the group size
    (floating-point and complex tensors); the bitwise ones take integer and bool tensors.

    Example::

        >>> dist.all_reduce(t, op=dist.ReduceOp.MAX)
    """

    SUM = 0
    AVG = 1
    PRODUCT = 2
    MIN = 3
    MAX = 4
    BAND = 5
    BOR = 6
    BXOR = 7


_MPI_NAMES = {
    ReduceOp.SUM: "SUM",
    ReduceOp.AVG: "SUM",  # then divided by the group size
    ReduceOp.PRODUCT: "PROD",
    ReduceOp.MIN: "MIN",
    ReduceOp.MAX: "MAX",
    ReduceOp.BAND: "BAND",
    ReduceOp.BOR: "BOR",
    ReduceOp.BXOR: "BXOR",
}
# On bools, sum and max are "any", product and min "all", as PyTorch computes them.
_BOOL_NAMES = {
    ReduceOp.SUM: "LOR",
    ReduceOp.PRODUCT: "LAND",
    ReduceOp.MIN: "LAND",
    ReduceOp.MAX: "LOR",
    ReduceOp.BAND: "LAND",
    ReduceOp.BOR: "LOR",
    ReduceOp.BXOR: "LXOR",
}


def mpi_op(op: Any, np_dtype: np.dtype, op_name: str) -> Any:
    """The MPI operation that computes ``op`` on ``np_dtype``; a clear error where the pair
    has no meaning."""
    if not isinstance(op, ReduceOp):
        try:
            op = ReduceOp(op)
        except ValueError:
            raise ValueError(f"{op_name}: op must be a ReduceOp, got {op!r}") from None
    kind = np_dtype.kind
    dtype_name = np_dtype.name
    if op is ReduceOp.AVG and kind not in "fc":
        raise ValueError(
            f"{op_name}: ReduceOp.AVG needs a floating-point or complex tensor, got {dtype_name}"
        )
    if op in (ReduceOp.BAND, ReduceOp.BOR, ReduceOp.BXOR) and kind not in "iub":
        raise ValueError(f"{op_name}: {op!r} needs an integer or bool tensor, got {dtype_name}")
    if op in (ReduceOp.MIN, ReduceOp.MAX) and kind == "c":
        raise ValueError(f"{op_name}: {op!r} is not defined for complex tensors ({dtype_name})")
    return getattr(mpi(), (_BOOL_NAMES if kind == "b" else _MPI_NAMES)[op])
