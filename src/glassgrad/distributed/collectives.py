"""Tensor collectives and point-to-point messages, as ``torch.distributed``'s, on MPI.

Each works in place on the tensors' NumPy arrays through mpi4py's buffer interface (no
pickling, no Python lists); a non-contiguous tensor goes through one contiguous copy. The
collectives first check that every rank passed matching tensors (one tiny all-reduce; see
``_consistency.agree``), so a mismatch is an error on every rank, never a wrong sum. With
``async_op=True`` they return a ``Work`` to ``wait()`` on; otherwise None once done.
``src``/``dst`` are global ranks, ``group_src``/``group_dst`` ranks inside ``group``.

Example (``mpiexec -n 2``)::

    >>> t = glassgrad.tensor([1.0, 2.0]) * (dist.get_rank() + 1)
    >>> dist.all_reduce(t)
    >>> t
    tensor([3., 6.])
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .._tensor import Tensor
from ._consistency import agree
from ._mpi import mpi
from .process_group import ProcessGroup, resolve_group, warn_not_in_group
from .reduce_op import ReduceOp, mpi_op
from .work import Work

__all__ = [
    "broadcast",
    "all_reduce",
    "reduce",
    "all_gather",
    "all_gather_into_tensor",
    "reduce_scatter",
    "reduce_scatter_tensor",
    "gather",
    "scatter",
    "barrier",
    "send",
    "recv",
    "isend",
    "irecv",
]


def _check_tensor(t: Any, name: str) -> np.ndarray:
    if not isinstance(t, Tensor):
        raise TypeError(
            f"Invalid function argument. Expected parameter `{name}` of type Tensor "
            f"but got {type(t)} instead."
        )
    return t._data


def _check_tensor_list(ts: Any, name: str) -> list[np.ndarray]:
    if not isinstance(ts, list) or not all(isinstance(t, Tensor) for t in ts):
        raise TypeError(
            f"Invalid function argument. Expected parameter `{name}` of type List[Tensor] "
            f"but got {type(ts)} instead."
        )
    return [t._data for t in ts]


def _writable(t: Any, name: str, op_name: str) -> np.ndarray:
    """The array of output tensor ``t``, checked to be a tensor that can be written."""
    data = _check_tensor(t, name)
    if not data.flags.writeable:
        raise RuntimeError(
            f"{op_name}: {name} is read-only (made from a read-only NumPy array): the "
            "result cannot be written into it"
        )
    return data


def _describe(a: np.ndarray) -> str:
    return f"{a.dtype.name}{list(a.shape)}"


def _op_name(op: Any) -> str:
    return getattr(op, "name", repr(op))


def _contiguous(a: np.ndarray) -> np.ndarray:
    return a if a.flags.c_contiguous else np.ascontiguousarray(a)


def _written(*tensors: Tensor) -> None:
    # A collective writes in place: count it, as an in-place op would (saved tensors see it).
    for t in tensors:
        t._vc[0] += 1


def _same_layout(arrays: list[np.ndarray], like: np.ndarray, name: str, op_name: str) -> None:
    for i, a in enumerate(arrays):
        if a.dtype != like.dtype or a.shape != like.shape:
            raise ValueError(
                f"{op_name}: {name}[{i}] is {_describe(a)}, but the tensor is {_describe(like)}; "
                "they must have the same shape and dtype"
            )


def _group_count(arrays: list[np.ndarray], pg: ProcessGroup, name: str, op_name: str) -> None:
    if len(arrays) != pg.size():
        raise ValueError(
            f"{op_name}: {name} has {len(arrays)} tensors but the group has {pg.size()} ranks"
        )


def _root(pg: ProcessGroup, global_rank: int | None, group_rank: int | None) -> int:
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


def _finish(
    requests: list, finish: Callable[[], None] | None, outputs: list, async_op: bool
) -> Work | None:
    work = Work(requests, finish, outputs)
    if async_op:
        return work
    work.wait()
    return None


def _average(buf: np.ndarray, op: Any, size: int) -> None:
    if op == ReduceOp.AVG:
        np.divide(buf, size, out=buf)


def broadcast(
    tensor: Tensor,
    src: int | None = None,
    group: ProcessGroup | None = None,
    async_op: bool = False,
    group_src: int | None = None,
) -> Work | None:
    """Copy ``tensor`` of rank ``src`` into ``tensor`` on every rank of ``group``.

    Example::

        >>> t = glassgrad.full((2,), float(dist.get_rank()))
        >>> dist.broadcast(t, src=0)
        >>> t
        tensor([0., 0.])
    """
    pg = resolve_group(group)
    if pg is None:
        warn_not_in_group("broadcast")
        return None

    def prepare() -> tuple[str, Any]:
        data = _check_tensor(tensor, "tensor")
        root = _root(pg, src, group_src)
        if pg.rank() != root:
            _writable(tensor, "tensor", "broadcast")
        return f"{_describe(data)} root {root}", root

    root = agree(pg, "broadcast", prepare)
    data = tensor._data
    buf = _contiguous(data)
    if pg.rank() != root:
        _written(tensor)
    request = pg.comm.Ibcast(buf, root=root)

    def finish() -> None:
        if buf is not data:
            data[...] = buf

    return _finish([request], finish, [tensor], async_op)


def all_reduce(
    tensor: Tensor,
    op: ReduceOp = ReduceOp.SUM,
    group: ProcessGroup | None = None,
    async_op: bool = False,
) -> Work | None:
    """Combine ``tensor`` across the ranks with ``op`` and leave the result in ``tensor``
    on every rank (SUM: ``t = t_0 + t_1 + ...``; AVG divides that by the group size).

    Example::

        >>> t = glassgrad.tensor([1.0, 2.0]) * (dist.get_rank() + 1)
        >>> dist.all_reduce(t, op=dist.ReduceOp.SUM)
        >>> t
        tensor([3., 6.])
    """
    pg = resolve_group(group)
    if pg is None:
        warn_not_in_group("all_reduce")
        return None

    def prepare() -> tuple[str, Any]:
        data = _writable(tensor, "tensor", "all_reduce")
        return f"{_describe(data)} {_op_name(op)}", mpi_op(op, data.dtype, "all_reduce")

    mop = agree(pg, "all_reduce", prepare)
    return _all_reduce_array(pg, tensor._data, mop, op, async_op, tensor)


def _all_reduce_array(
    pg: ProcessGroup, data: np.ndarray, mop: Any, op: Any, async_op: bool, tensor: Tensor
) -> Work | None:
    buf = _contiguous(data)
    _written(tensor)
    request = pg.comm.Iallreduce(mpi().IN_PLACE, buf, op=mop)

    def finish() -> None:
        _average(buf, op, pg.size())
        if buf is not data:
            data[...] = buf

    return _finish([request], finish, [tensor], async_op)


def reduce(
    tensor: Tensor,
    dst: int | None = None,
    op: ReduceOp = ReduceOp.SUM,
    group: ProcessGroup | None = None,
    async_op: bool = False,
    group_dst: int | None = None,
) -> Work | None:
    """Combine ``tensor`` across the ranks with ``op``; only rank ``dst`` receives the
    result (the others' tensors are left as they were).

    Example::

        >>> dist.reduce(t, dst=0)
    """
    pg = resolve_group(group)
    if pg is None:
        warn_not_in_group("reduce")
        return None

    def prepare() -> tuple[str, Any]:
        data = _check_tensor(tensor, "tensor")
        root = _root(pg, dst, group_dst)
        if pg.rank() == root:
            _writable(tensor, "tensor", "reduce")
        return f"{_describe(data)} {_op_name(op)} root {root}", (
            root,
            mpi_op(op, data.dtype, "reduce"),
        )

    root, mop = agree(pg, "reduce", prepare)
    data = tensor._data
    buf = _contiguous(data)
    if pg.rank() == root:
        _written(tensor)
        request = pg.comm.Ireduce(mpi().IN_PLACE, buf, op=mop, root=root)
    else:
        request = pg.comm.Ireduce(buf, None, op=mop, root=root)

    def finish() -> None:
        if pg.rank() == root:
            _average(buf, op, pg.size())
            if buf is not data:
                data[...] = buf

    return _finish([request], finish, [tensor], async_op)


def all_gather(
    tensor_list: list[Tensor],
    tensor: Tensor,
    group: ProcessGroup | None = None,
    async_op: bool = False,
) -> Work | None:
    """Every rank's ``tensor``, into ``tensor_list`` on every rank (``tensor_list[i]`` gets
    rank ``i``'s; one tensor per rank, each of ``tensor``'s shape and dtype).

    Example::

        >>> out = [glassgrad.zeros(2) for _ in range(dist.get_world_size())]
        >>> dist.all_gather(out, glassgrad.full((2,), float(dist.get_rank())))
        >>> out
        [tensor([0., 0.]), tensor([1., 1.])]
    """
    pg = resolve_group(group)
    if pg is None:
        warn_not_in_group("all_gather")
        return None

    def prepare() -> tuple[str, Any]:
        outs = _check_tensor_list(tensor_list, "tensor_list")
        data = _check_tensor(tensor, "tensor")
        _group_count(outs, pg, "tensor_list", "all_gather")
        _same_layout(outs, data, "tensor_list", "all_gather")
        for t in tensor_list:
            _writable(t, "tensor_list", "all_gather")
        return _describe(data), None

    agree(pg, "all_gather", prepare)
    data = tensor._data
    recv = np.empty((pg.size(), *data.shape), dtype=data.dtype)
    _written(*tensor_list)
    request = pg.comm.Iallgather(_contiguous(data), recv)

    def finish() -> None:
        for t, part in zip(tensor_list, recv):
            t._data[...] = part

    return _finish([request], finish, list(tensor_list), async_op)


def all_gather_into_tensor(
    output_tensor: Tensor,
    input_tensor: Tensor,
    group: ProcessGroup | None = None,
    async_op: bool = False,
) -> Work | None:
    """Every rank's ``input_tensor``, concatenated in rank order into ``output_tensor``
    (of ``world_size`` times as many elements, the same dtype).

    Example::

        >>> out = glassgrad.zeros(2 * dist.get_world_size())
        >>> dist.all_gather_into_tensor(out, glassgrad.ones(2))
    """
    pg = resolve_group(group)
    if pg is None:
        warn_not_in_group("all_gather_into_tensor")
        return None

    def prepare() -> tuple[str, Any]:
        out = _writable(output_tensor, "output_tensor", "all_gather_into_tensor")
        data = _check_tensor(input_tensor, "input_tensor")
        _same_total(out, data, pg.size(), "output_tensor", "all_gather_into_tensor")
        return _describe(data), None

    agree(pg, "all_gather_into_tensor", prepare)
    out = output_tensor._data
    recv = _contiguous(out)
    _written(output_tensor)
    request = pg.comm.Iallgather(_contiguous(input_tensor._data), recv)

    def finish() -> None:
        if recv is not out:
            out[...] = recv

    return _finish([request], finish, [output_tensor], async_op)


def _same_total(big: np.ndarray, small: np.ndarray, size: int, name: str, op_name: str) -> None:
    if big.dtype != small.dtype or big.size != size * small.size:
        raise ValueError(
            f"{op_name}: {name} is {_describe(big)} but must hold {size} x {_describe(small)} "
            f"({size * small.size} elements of {small.dtype.name})"
        )


def reduce_scatter(
    output: Tensor,
    input_list: list[Tensor],
    op: ReduceOp = ReduceOp.SUM,
    group: ProcessGroup | None = None,
    async_op: bool = False,
) -> Work | None:
    """Reduce ``input_list[i]`` across the ranks with ``op`` into ``output`` of rank ``i``.

    Example::

        >>> ins = [glassgrad.ones(2) for _ in range(dist.get_world_size())]
        >>> out = glassgrad.zeros(2)
        >>> dist.reduce_scatter(out, ins)
    """
    pg = resolve_group(group)
    if pg is None:
        warn_not_in_group("reduce_scatter")
        return None

    def prepare() -> tuple[str, Any]:
        out = _writable(output, "output", "reduce_scatter")
        ins = _check_tensor_list(input_list, "input_list")
        _group_count(ins, pg, "input_list", "reduce_scatter")
        _same_layout(ins, out, "input_list", "reduce_scatter")
        return f"{_describe(out)} {_op_name(op)}", mpi_op(op, out.dtype, "reduce_scatter")

    mop = agree(pg, "reduce_scatter", prepare)
    send = np.ascontiguousarray(np.stack([t._data for t in input_list]))
    return _reduce_scatter_array(pg, send, output, mop, op, async_op)


def reduce_scatter_tensor(
    output: Tensor,
    input: Tensor,
    op: ReduceOp = ReduceOp.SUM,
    group: ProcessGroup | None = None,
    async_op: bool = False,
) -> Work | None:
    """Reduce ``input`` across the ranks with ``op``; rank ``i`` receives the ``i``-th of its
    ``world_size`` equal pieces into ``output``.

    Example::

        >>> out = glassgrad.zeros(2)
        >>> dist.reduce_scatter_tensor(out, glassgrad.ones(2 * dist.get_world_size()))
    """
    pg = resolve_group(group)
    if pg is None:
        warn_not_in_group("reduce_scatter_tensor")
        return None

    def prepare() -> tuple[str, Any]:
        out = _writable(output, "output", "reduce_scatter_tensor")
        data = _check_tensor(input, "input")
        _same_total(data, out, pg.size(), "input", "reduce_scatter_tensor")
        return f"{_describe(out)} {_op_name(op)}", mpi_op(op, out.dtype, "reduce_scatter_tensor")

    mop = agree(pg, "reduce_scatter_tensor", prepare)
    return _reduce_scatter_array(pg, _contiguous(input._data), output, mop, op, async_op)


def _reduce_scatter_array(
    pg: ProcessGroup, send: np.ndarray, output: Tensor, mop: Any, op: Any, async_op: bool
) -> Work | None:
    out = output._data
    recv = _contiguous(out)
    _written(output)
    request = pg.comm.Ireduce_scatter_block(send, recv, op=mop)

    def finish() -> None:
        _average(recv, op, pg.size())
        if recv is not out:
            out[...] = recv

    return _finish([request], finish, [output], async_op)


def gather(
    tensor: Tensor,
    gather_list: list[Tensor] | None = None,
    dst: int | None = None,
    group: ProcessGroup | None = None,
    async_op: bool = False,
    group_dst: int | None = None,
) -> Work | None:
    """Every rank's ``tensor`` into ``gather_list`` of rank ``dst`` (rank 0 by default; the
    list is given there only).

    Example::

        >>> out = [glassgrad.zeros(2) for _ in range(2)] if dist.get_rank() == 0 else None
        >>> dist.gather(glassgrad.ones(2), out, dst=0)
    """
    pg = resolve_group(group)
    if pg is None:
        warn_not_in_group("gather")
        return None
    if dst is None and group_dst is None:
        dst = 0

    def prepare() -> tuple[str, Any]:
        data = _check_tensor(tensor, "tensor")
        root = _root(pg, dst, group_dst)
        if pg.rank() == root:
            if gather_list is None:
                raise ValueError("Argument ``gather_list`` must be specified on destination rank.")
            outs = _check_tensor_list(gather_list, "gather_list")
            _group_count(outs, pg, "gather_list", "gather")
            _same_layout(outs, data, "gather_list", "gather")
            for t in gather_list:
                _writable(t, "gather_list", "gather")
        elif gather_list:
            raise ValueError(
                "Argument ``gather_list`` must NOT be specified on non-destination ranks."
            )
        return f"{_describe(data)} root {root}", root

    root = agree(pg, "gather", prepare)
    data = tensor._data
    recv = None
    if pg.rank() == root:
        recv = np.empty((pg.size(), *data.shape), dtype=data.dtype)
        _written(*gather_list)
    request = pg.comm.Igather(_contiguous(data), recv, root=root)

    def finish() -> None:
        if recv is not None:
            for t, part in zip(gather_list, recv):
                t._data[...] = part

    return _finish([request], finish, list(gather_list or []), async_op)


def scatter(
    tensor: Tensor,
    scatter_list: list[Tensor] | None = None,
    src: int | None = None,
    group: ProcessGroup | None = None,
    async_op: bool = False,
    group_src: int | None = None,
) -> Work | None:
    """Rank ``src`` sends ``scatter_list[i]`` to rank ``i``, into its ``tensor`` (rank 0 by
    default; the list is given there only).

    Example::

        >>> ins = [glassgrad.full((2,), float(i)) for i in range(2)] if dist.get_rank() == 0 else None
        >>> out = glassgrad.zeros(2)
        >>> dist.scatter(out, ins, src=0)
    """
    pg = resolve_group(group)
    if pg is None:
        warn_not_in_group("scatter")
        return None
    if src is None and group_src is None:
        src = 0

    def prepare() -> tuple[str, Any]:
        data = _writable(tensor, "tensor", "scatter")
        root = _root(pg, src, group_src)
        if pg.rank() == root:
            if scatter_list is None:
                raise ValueError("Argument ``scatter_list`` must be specified on source rank.")
            ins = _check_tensor_list(scatter_list, "scatter_list")
            _group_count(ins, pg, "scatter_list", "scatter")
            _same_layout(ins, data, "scatter_list", "scatter")
        elif scatter_list:
            raise ValueError("Argument ``scatter_list`` must NOT be specified on non-source ranks.")
        return f"{_describe(data)} root {root}", root

    root = agree(pg, "scatter", prepare)
    data = tensor._data
    send = (
        np.ascontiguousarray(np.stack([t._data for t in scatter_list]))
        if pg.rank() == root
        else None
    )
    buf = _contiguous(data)
    _written(tensor)
    request = pg.comm.Iscatter(send, buf, root=root)

    def finish() -> None:
        if buf is not data:
            data[...] = buf

    return _finish([request], finish, [tensor], async_op)


def barrier(
    group: ProcessGroup | None = None,
    async_op: bool = False,
    device_ids: list[int] | None = None,
) -> Work | None:
    """Wait until every rank of ``group`` has called ``barrier``.

    Example::

        >>> dist.barrier()
    """
    pg = resolve_group(group)
    if pg is None:
        warn_not_in_group("barrier")
        return None
    if device_ids is not None:
        raise ValueError("barrier: device_ids is for GPUs; glassgrad runs on the CPU")
    return _finish([pg.comm.Ibarrier()], None, [], async_op)


def _peer(pg: ProcessGroup, global_rank: int | None, group_rank: int | None, kind: str) -> int:
    peer = _root(pg, global_rank, group_rank)
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
    data = _check_tensor(tensor, "tensor")
    peer = _peer(pg, dst, group_dst, "destination")
    return Work([pg.comm.Isend(_contiguous(data), dest=peer, tag=_tag(tag))], None, [tensor])


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
    data = _writable(tensor, "tensor", "irecv")
    MPI = mpi()
    source = MPI.ANY_SOURCE if src is None and group_src is None else _peer(pg, src, group_src, "source")  # fmt: skip
    buf = _contiguous(data)
    _written(tensor)

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
    data = _writable(tensor, "tensor", "recv")
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
            f"({_describe(data)}) holds {data.nbytes}"
        )
    buf = _contiguous(data)
    _written(tensor)
    pg.comm.Recv(buf, source=sender, tag=tag)
    if buf is not data:
        data[...] = buf
    return pg.ranks[sender]
