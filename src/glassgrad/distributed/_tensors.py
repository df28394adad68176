"""What the collectives share: checking tensor arguments, and the NumPy buffers MPI reads
and writes (contiguous, writable, counted as in-place writes), and naming a root rank."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._tensor import Tensor
from ..autograd.inplace_record import note_write
from .process_group import ProcessGroup

__all__ = [
    "check_tensor",
    "check_tensor_list",
    "writable",
    "describe",
    "reduce_op_name",
    "contiguous",
    "written",
    "same_layout",
    "group_count",
    "root_rank",
]


def check_tensor(t: Any, name: str) -> np.ndarray:
    """The array of tensor argument ``name``; PyTorch's TypeError for anything else."""
    if not isinstance(t, Tensor):
        raise TypeError(
            f"Invalid function argument. Expected parameter `{name}` of type Tensor "
            f"but got {type(t)} instead."
        )
    return t._data


def check_tensor_list(ts: Any, name: str) -> list[np.ndarray]:
    """The arrays of the list of tensors ``name``."""
    if not isinstance(ts, list) or not all(isinstance(t, Tensor) for t in ts):
        raise TypeError(
            f"Invalid function argument. Expected parameter `{name}` of type List[Tensor] "
            f"but got {type(ts)} instead."
        )
    return [t._data for t in ts]


def writable(t: Any, name: str, op_name: str) -> np.ndarray:
    """The array of output tensor ``t``, checked to be a tensor that can be written."""
    data = check_tensor(t, name)
    if not data.flags.writeable:
        raise RuntimeError(
            f"{op_name}: {name} is read-only (made from a read-only NumPy array): the "
            "result cannot be written into it"
        )
    return data


def describe(a: np.ndarray) -> str:
    """``float32[2, 3]``: what must match across ranks."""
    return f"{a.dtype.name}{list(a.shape)}"


def reduce_op_name(op: Any) -> str:
    """``SUM``, ``MAX``...: how a description names the reduction."""
    return getattr(op, "name", repr(op))


def contiguous(a: np.ndarray) -> np.ndarray:
    """``a`` itself when MPI can use its buffer, else a C-contiguous copy."""
    return a if a.flags.c_contiguous else np.ascontiguousarray(a)


def written(op_name: str, *tensors: Tensor) -> None:
    # A collective writes in place: count it, as an in-place op would (saved tensors see it),
    # and name it, so the "modified by an inplace operation" error says which call it was.
    for t in tensors:
        t._vc[0] += 1
        note_write(t._vc, f"distributed.{op_name}")


def same_layout(arrays: list[np.ndarray], like: np.ndarray, name: str, op_name: str) -> None:
    for i, a in enumerate(arrays):
        if a.dtype != like.dtype or a.shape != like.shape:
            raise ValueError(
                f"{op_name}: {name}[{i}] is {describe(a)}, but the tensor is {describe(like)}; "
                "they must have the same shape and dtype"
            )


def group_count(arrays: list[np.ndarray], pg: ProcessGroup, name: str, op_name: str) -> None:
    if len(arrays) != pg.size():
        raise ValueError(
            f"{op_name}: {name} has {len(arrays)} tensors but the group has {pg.size()} ranks"
        )


def root_rank(pg: ProcessGroup, global_rank: int | None, group_rank: int | None) -> int:
    """The root's rank inside ``pg``, from exactly one of a global or a group rank."""
    if group_rank is not None:
        if global_rank is not None:
            raise ValueError("Can't specify both group_rank and global_rank")
        if not 0 <= group_rank < pg.size():
            raise ValueError(f"Group rank {group_rank} is not part of group {pg}")
        return group_rank
    if global_rank is None:
        raise ValueError("Must specify global_rank or group_rank")
    if global_rank not in pg.ranks:
        raise ValueError(f"Global rank {global_rank} is not part of group {pg}")
    return pg.ranks.index(global_rank)
