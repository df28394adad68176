"""Tensor collectives, as ``torch.distributed``'s, on MPI.

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
from ._tensors import (
    check_tensor,
    check_tensor_list,
    contiguous,
    describe,
    group_count,
    reduce_op_name,
    root_rank,
    same_layout,
    writable,
    written,
)
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
]


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
        data = check_tensor(tensor, "tensor")
        root = root_rank(pg, src, group_src)
        if pg.rank() != root:
            writable(tensor, "tensor", "broadcast")
        return f"{describe(data)} root {root}", root

    root = agree(pg, "broadcast", prepare)
    data = tensor._data
    buf = contiguous(data)
    if pg.rank() != root:
        written("broadcast", tensor)
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
        data = writable(tensor, "tensor", "all_reduce")
        return f"{describe(data)} {reduce_op_name(op)}", mpi_op(op, data.dtype, "all_reduce")

    mop = agree(pg, "all_reduce", prepare)
    return _all_reduce_array(pg, tensor._data, mop, op, async_op, tensor)


def _all_reduce_array(
    pg: ProcessGroup, data: np.ndarray, mop: Any, op: Any, async_op: bool, tensor: Tensor
) -> Work | None:
    buf = contiguous(data)
    written("all_reduce", tensor)
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
        data = check_tensor(tensor, "tensor")
        root = root_rank(pg, dst, group_dst)
        if pg.rank() == root:
            writable(tensor, "tensor", "reduce")
        return f"{describe(data)} {reduce_op_name(op)} root {root}", (
            root,
            mpi_op(op, data.dtype, "reduce"),
        )

    root, mop = agree(pg, "reduce", prepare)
    data = tensor._data
    buf = contiguous(data)
    if pg.rank() == root:
        written("reduce", tensor)
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
        outs = check_tensor_list(tensor_list, "tensor_list")
        data = check_tensor(tensor, "tensor")
        group_count(outs, pg, "tensor_list", "all_gather")
        same_layout(outs, data, "tensor_list", "all_gather")
        for t in tensor_list:
            writable(t, "tensor_list", "all_gather")
        return describe(data), None

    agree(pg, "all_gather", prepare)
    data = tensor._data
    recv = np.empty((pg.size(), *data.shape), dtype=data.dtype)
    written("all_gather", *tensor_list)
    request = pg.comm.Iallgather(contiguous(data), recv)

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
        out = writable(output_tensor, "output_tensor", "all_gather_into_tensor")
        data = check_tensor(input_tensor, "input_tensor")
        _same_total(out, data, pg.size(), "output_tensor", "all_gather_into_tensor")
        return describe(data), None

    agree(pg, "all_gather_into_tensor", prepare)
    out = output_tensor._data
    recv = contiguous(out)
    written("all_gather_into_tensor", output_tensor)
    request = pg.comm.Iallgather(contiguous(input_tensor._data), recv)

    def finish() -> None:
        if recv is not out:
            out[...] = recv

    return _finish([request], finish, [output_tensor], async_op)


def _same_total(big: np.ndarray, small: np.ndarray, size: int, name: str, op_name: str) -> None:
    if big.dtype != small.dtype or big.size != size * small.size:
        raise ValueError(
            f"{op_name}: {name} is {describe(big)} but must hold {size} x {describe(small)} "
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
        out = writable(output, "output", "reduce_scatter")
        ins = check_tensor_list(input_list, "input_list")
        group_count(ins, pg, "input_list", "reduce_scatter")
        same_layout(ins, out, "input_list", "reduce_scatter")
        return f"{describe(out)} {reduce_op_name(op)}", mpi_op(op, out.dtype, "reduce_scatter")

    mop = agree(pg, "reduce_scatter", prepare)
    send = np.ascontiguousarray(np.stack([t._data for t in input_list]))
    return _reduce_scatter_array(pg, send, output, mop, op, async_op, "reduce_scatter")


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
        out = writable(output, "output", "reduce_scatter_tensor")
        data = check_tensor(input, "input")
        _same_total(data, out, pg.size(), "input", "reduce_scatter_tensor")
        return f"{describe(out)} {reduce_op_name(op)}", mpi_op(
            op, out.dtype, "reduce_scatter_tensor"
        )

    mop = agree(pg, "reduce_scatter_tensor", prepare)
    return _reduce_scatter_array(
        pg, contiguous(input._data), output, mop, op, async_op, "reduce_scatter_tensor"
    )


def _reduce_scatter_array(
    pg: ProcessGroup,
    send: np.ndarray,
    output: Tensor,
    mop: Any,
    op: Any,
    async_op: bool,
    op_name: str,
) -> Work | None:
    out = output._data
    recv = contiguous(out)
    written(op_name, output)
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
        data = check_tensor(tensor, "tensor")
        root = root_rank(pg, dst, group_dst)
        if pg.rank() == root:
            if gather_list is None:
                raise ValueError("Argument ``gather_list`` must be specified on destination rank.")
            outs = check_tensor_list(gather_list, "gather_list")
            group_count(outs, pg, "gather_list", "gather")
            same_layout(outs, data, "gather_list", "gather")
            for t in gather_list:
                writable(t, "gather_list", "gather")
        elif gather_list:
            raise ValueError(
                "Argument ``gather_list`` must NOT be specified on non-destination ranks."
            )
        return f"{describe(data)} root {root}", root

    root = agree(pg, "gather", prepare)
    data = tensor._data
    recv = None
    if pg.rank() == root:
        recv = np.empty((pg.size(), *data.shape), dtype=data.dtype)
        written("gather", *gather_list)
    request = pg.comm.Igather(contiguous(data), recv, root=root)

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
        data = writable(tensor, "tensor", "scatter")
        root = root_rank(pg, src, group_src)
        if pg.rank() == root:
            if scatter_list is None:
                raise ValueError("Argument ``scatter_list`` must be specified on source rank.")
            ins = check_tensor_list(scatter_list, "scatter_list")
            group_count(ins, pg, "scatter_list", "scatter")
            same_layout(ins, data, "scatter_list", "scatter")
        elif scatter_list:
            raise ValueError("Argument ``scatter_list`` must NOT be specified on non-source ranks.")
        return f"{describe(data)} root {root}", root

    root = agree(pg, "scatter", prepare)
    data = tensor._data
    send = (
        np.ascontiguousarray(np.stack([t._data for t in scatter_list]))
        if pg.rank() == root
        else None
    )
    buf = contiguous(data)
    written("scatter", tensor)
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
