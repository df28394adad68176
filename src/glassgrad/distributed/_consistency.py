"""Every rank of a collective must pass matching arguments: checked with one tiny
all-reduce first, so a mismatch raises a clear error on every rank instead of a wrong
result or a hang."""

from __future__ import annotations

import zlib
from collections.abc import Callable
from typing import Any

import numpy as np

from ._mpi import mpi
from .process_group import ProcessGroup

__all__ = ["agree"]


def agree(pg: ProcessGroup, op_name: str, prepare: Callable[[], tuple[str, Any]]) -> Any:
    """Run ``prepare`` (this rank's argument checks), which returns a description of what
    must match across ranks (shapes, dtypes, root, op) and a payload; return the payload
    once every rank's checks passed and descriptions agree, else raise on every rank.

    The rank whose arguments were wrong raises its own error; the others a RuntimeError
    naming it. Differing descriptions raise a RuntimeError listing each rank's.
    """
    error: Exception | None = None
    desc, payload = "", None
    try:
        desc, payload = prepare()
    except (TypeError, ValueError, RuntimeError, IndexError) as caught:
        error = caught
    MPI = mpi()
    sig = zlib.crc32(desc.encode())
    # max over [sig, -sig] gives the largest and (negated) the smallest: equal iff all agree.
    flags = np.array([sig, -sig, error is not None], dtype=np.int64)
    pg.comm.Allreduce(MPI.IN_PLACE, flags, op=MPI.MAX)
    if flags[0] == -flags[1] and not flags[2]:
        return payload
    reports = pg.comm.allgather(
        (desc, None if error is None else f"{type(error).__name__}: {error}")
    )
    if error is not None:
        raise error
    for r, (_, message) in enumerate(reports):
        if message is not None:
            raise RuntimeError(f"{op_name}: rank {pg.ranks[r]} failed: {message}")
    listing = "; ".join(f"rank {pg.ranks[r]}: {d}" for r, (d, _) in enumerate(reports))
    raise RuntimeError(
        f"{op_name}: the ranks passed different arguments ({listing}); every rank must pass "
        "tensors of the same shape and dtype, and the same op and root"
    )
