"""Collectives of picklable Python objects: ``all_gather_object``, ``broadcast_object_list``,
``gather_object``, ``scatter_object_list``, through mpi4py's pickle-based methods.

Pickle runs code of the sender's choosing when it loads: use these only between the ranks
of one job you started, never with data from elsewhere (as PyTorch warns for its own).
"""

from __future__ import annotations

from typing import Any

from ._consistency import agree
from ._tensors import root_rank
from .process_group import ProcessGroup, resolve_group, warn_not_in_group

__all__ = ["all_gather_object", "broadcast_object_list", "gather_object", "scatter_object_list"]


def _sized_list(objects: Any, size: int, name: str, op_name: str) -> None:
    if not isinstance(objects, list) or len(objects) != size:
        got = f"a list of {len(objects)}" if isinstance(objects, list) else type(objects).__name__
        raise ValueError(f"{op_name}: {name} must be a list of {size} (the group size), got {got}")


def all_gather_object(object_list: list[Any], obj: Any, group: ProcessGroup | None = None) -> None:
    """Every rank's ``obj`` into ``object_list`` (of the group's size) on every rank.

    Objects travel pickled: only between ranks of one job (pickle runs code when loading).

    Example::

        >>> out = [None] * dist.get_world_size()
        >>> dist.all_gather_object(out, {"rank": dist.get_rank()})
        >>> out
        [{'rank': 0}, {'rank': 1}]
    """
    pg = resolve_group(group)
    if pg is None:
        warn_not_in_group("all_gather_object")
        return

    def prepare() -> tuple[str, Any]:
        _sized_list(object_list, pg.size(), "object_list", "all_gather_object")
        return "", None

    agree(pg, "all_gather_object", prepare)
    object_list[:] = pg.comm.allgather(obj)


def broadcast_object_list(
    object_list: list[Any],
    src: int | None = None,
    group: ProcessGroup | None = None,
    device: Any = None,
    group_src: int | None = None,
) -> None:
    """Replace ``object_list``'s items on every rank by those of rank ``src`` (rank 0 by
    default); every rank passes a list of the same length.

    Objects travel pickled: only between ranks of one job (pickle runs code when loading).

    Example::

        >>> objs = [{"lr": 0.1}, 7] if dist.get_rank() == 0 else [None, None]
        >>> dist.broadcast_object_list(objs, src=0)
        >>> objs
        [{'lr': 0.1}, 7]
    """
    pg = resolve_group(group)
    if pg is None:
        warn_not_in_group("broadcast_object_list")
        return
    if src is None and group_src is None:
        src = 0
    if device is not None:
        raise ValueError("broadcast_object_list: device is for GPUs; glassgrad runs on the CPU")

    def prepare() -> tuple[str, Any]:
        if not isinstance(object_list, list):
            raise TypeError(
                f"broadcast_object_list: object_list must be a list, got {type(object_list).__name__}"
            )
        root = root_rank(pg, src, group_src)
        return f"{len(object_list)} objects root {root}", root

    root = agree(pg, "broadcast_object_list", prepare)
    object_list[:] = pg.comm.bcast(object_list if pg.rank() == root else None, root=root)


def gather_object(
    obj: Any,
    object_gather_list: list[Any] | None = None,
    dst: int | None = None,
    group: ProcessGroup | None = None,
    group_dst: int | None = None,
) -> None:
    """Every rank's ``obj`` into ``object_gather_list`` of rank ``dst`` (rank 0 by default;
    the list, of the group's size, is given there only).

    Objects travel pickled: only between ranks of one job (pickle runs code when loading).

    Example::

        >>> out = [None] * dist.get_world_size() if dist.get_rank() == 0 else None
        >>> dist.gather_object(dist.get_rank() * 10, out, dst=0)
    """
    pg = resolve_group(group)
    if pg is None:
        warn_not_in_group("gather_object")
        return
    if dst is None and group_dst is None:
        dst = 0

    def prepare() -> tuple[str, Any]:
        root = root_rank(pg, dst, group_dst)
        if pg.rank() == root:
            _sized_list(object_gather_list, pg.size(), "object_gather_list", "gather_object")
        elif object_gather_list is not None:
            raise ValueError(
                "Argument ``object_gather_list`` must NOT be specified on non-destination ranks."
            )
        return f"root {root}", root

    root = agree(pg, "gather_object", prepare)
    gathered = pg.comm.gather(obj, root=root)
    if pg.rank() == root:
        object_gather_list[:] = gathered


def scatter_object_list(
    scatter_object_output_list: list[Any],
    scatter_object_input_list: list[Any] | None = None,
    src: int | None = None,
    group: ProcessGroup | None = None,
    group_src: int | None = None,
) -> None:
    """Rank ``src`` (0 by default) sends ``scatter_object_input_list[i]`` to rank ``i``,
    which finds it in ``scatter_object_output_list[0]``.

    Objects travel pickled: only between ranks of one job (pickle runs code when loading).

    Example::

        >>> out = [None]
        >>> dist.scatter_object_list(out, ["a", "b"] if dist.get_rank() == 0 else None, src=0)
    """
    pg = resolve_group(group)
    if pg is None:
        warn_not_in_group("scatter_object_list")
        return
    if src is None and group_src is None:
        src = 0

    def prepare() -> tuple[str, Any]:
        if not isinstance(scatter_object_output_list, list) or not scatter_object_output_list:
            raise ValueError(
                "Expected argument scatter_object_output_list to be a list of size at least 1."
            )
        root = root_rank(pg, src, group_src)
        if pg.rank() == root:
            _sized_list(scatter_object_input_list, pg.size(), "scatter_object_input_list", "scatter_object_list")  # fmt: skip
        return f"root {root}", root

    root = agree(pg, "scatter_object_list", prepare)
    mine = scatter_object_input_list if pg.rank() == root else None
    scatter_object_output_list[0] = pg.comm.scatter(mine, root=root)
