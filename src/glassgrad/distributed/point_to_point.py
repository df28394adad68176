"""Point-to-point messages: ``send``/``recv`` and their non-blocking ``isend``/``irecv``,
in place on the tensors' NumPy buffers. ``dst``/``src`` are global ranks, ``group_dst`` /
``group_src`` ranks inside ``group``.

Example (``mpiexec -n 2``)::

    >>> if dist.get_rank() == 0:
    ...     dist.send(glassgrad.ones(2), dst=1)
    ... else:
    ...     t = glassgrad.zeros(2)
    ...     dist.recv(t, src=0)
"""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from ._mpi import mpi
from ._tensors import check_tensor, contiguous, describe, root_rank, writable, written
from .process_group import ProcessGroup, resolve_group, warn_not_in_group
from .work import Work

__all__ = ["send", "recv", "isend", "irecv"]


def _peer(pg: ProcessGroup, global_rank: int | None, group_rank: int | None, kind: str) -> int:
    peer = root_rank(pg, global_rank, group_rank)
    if peer == pg.rank():
        raise ValueError(
            f"Invalid {kind} rank: {kind} rank should not be the same as the rank of the "
            "current process."
        )
    return peer


def _tag(tag: int) -> int:
    if not 0 <= tag <= mpi().COMM_WORLD.Get_attr(mpi().TAG_UB):
        raise ValueError(f"tag must be a non-negative int up to MPI's TAG_UB, got {tag}")
    return tag


def isend(
    tensor: Tensor,
    dst: int | None = None,
    group: ProcessGroup | None = None,
    tag: int = 0,
    group_dst: int | None = None,
) -> Work | None:
    """Start sending ``tensor`` to rank ``dst``; ``wait()`` on the result before changing
    ``tensor``.

    Example::

        >>> work = dist.isend(glassgrad.ones(2), dst=1)
        >>> work.wait()
        True
    """
    pg = resolve_group(group)
    if pg is None:
        warn_not_in_group("isend")
        return None
    data = check_tensor(tensor, "tensor")
    peer = _peer(pg, dst, group_dst, "destination")
    return Work([pg.comm.Isend(contiguous(data), dest=peer, tag=_tag(tag))], None, [tensor])


def send(
    tensor: Tensor,
    dst: int | None = None,
    group: ProcessGroup | None = None,
    tag: int = 0,
    group_dst: int | None = None,
) -> None:
    """Send ``tensor`` to rank ``dst``, which receives it with ``recv``; returns once the
    buffer may be reused.

    Example::

        >>> if dist.get_rank() == 0:
        ...     dist.send(glassgrad.ones(2), dst=1)
    """
    work = isend(tensor, dst, group, tag, group_dst)
    if work is not None:
        work.wait()


def irecv(
    tensor: Tensor,
    src: int | None = None,
    group: ProcessGroup | None = None,
    tag: int = 0,
    group_src: int | None = None,
) -> Work | None:
    """Start receiving into ``tensor`` from rank ``src`` (any rank for None); the data is
    there after ``wait()``. A message larger than ``tensor`` fails at ``wait()`` (MPI's
    truncation error); unlike ``recv``, a smaller one is not detected.

    Example::

        >>> work = dist.irecv(t, src=0)
        >>> work.wait()
        True
    """
    pg = resolve_group(group)
    if pg is None:
        warn_not_in_group("irecv")
        return None
    data = writable(tensor, "tensor", "irecv")
    MPI = mpi()
    source = MPI.ANY_SOURCE if src is None and group_src is None else _peer(pg, src, group_src, "source")  # fmt: skip
    buf = contiguous(data)
    written("irecv", tensor)

    def finish() -> None:
        if buf is not data:
            data[...] = buf

    return Work([pg.comm.Irecv(buf, source=source, tag=_tag(tag))], finish, [tensor])


def recv(
    tensor: Tensor,
    src: int | None = None,
    group: ProcessGroup | None = None,
    tag: int = 0,
    group_src: int | None = None,
) -> int:
    """Receive into ``tensor`` a message sent by rank ``src`` (any rank for None); returns
    the sender's global rank. A message of another byte size than ``tensor`` is consumed
    and raises a RuntimeError naming both sizes (dtypes are not sent, only bytes).

    Example::

        >>> if dist.get_rank() == 1:
        ...     t = glassgrad.zeros(2)
        ...     dist.recv(t, src=0)
        0
    """
    pg = resolve_group(group)
    if pg is None:
        warn_not_in_group("recv")
        return -1
    data = writable(tensor, "tensor", "recv")
    MPI = mpi()
    source = MPI.ANY_SOURCE if src is None and group_src is None else _peer(pg, src, group_src, "source")  # fmt: skip
    status = MPI.Status()
    pg.comm.Probe(source=source, tag=_tag(tag), status=status)
    sender = status.Get_source()
    nbytes = status.Get_count(MPI.BYTE)
    if nbytes != data.nbytes:
        pg.comm.Recv(np.empty(nbytes, dtype=np.uint8), source=sender, tag=tag)
        raise RuntimeError(
            f"recv: rank {pg.ranks[sender]} sent {nbytes} bytes, but the tensor "
            f"({describe(data)}) holds {data.nbytes}"
        )
    buf = contiguous(data)
    written("recv", tensor)
    pg.comm.Recv(buf, source=sender, tag=tag)
    if buf is not data:
        data[...] = buf
    return pg.ranks[sender]
