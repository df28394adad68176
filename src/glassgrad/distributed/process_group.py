"""Process groups: which processes talk, as ``torch.distributed``'s names, on MPI communicators.

``init_process_group(backend="mpi")`` makes the default group of every process that
``mpiexec`` started (MPI tells each its rank and the world size: no address, no port);
``new_group(ranks)`` a group of some of them. Each group owns its own MPI communicator
(a duplicate), so glassgrad's messages never meet the user's own MPI traffic.

Example (run with ``mpiexec -n 2 python script.py``)::

    >>> import glassgrad.distributed as dist
    >>> dist.init_process_group(backend="mpi")
    >>> dist.get_rank(), dist.get_world_size()
    (0, 2)
"""

from __future__ import annotations

import datetime
import os
import sys
import time
import traceback
import warnings
from typing import Any

from ._mpi import mpi, mpi4py_installed

__all__ = [
    "Backend",
    "ProcessGroup",
    "GroupMember",
    "group",
    "is_available",
    "is_mpi_available",
    "is_initialized",
    "init_process_group",
    "destroy_process_group",
    "new_group",
    "get_rank",
    "get_world_size",
    "get_backend",
    "get_global_rank",
    "get_group_rank",
    "get_process_group_ranks",
]


class Backend(str):
    """The name of a backend. glassgrad has one: ``"mpi"``.

    Example::

        >>> Backend("MPI")
        'mpi'
    """

    MPI = "mpi"

    def __new__(cls, name: str) -> Backend:
        if not isinstance(name, str):
            raise ValueError(f"Backend name must be a string, but got: {name!r}")
        lowered = name.lower()
        if lowered != cls.MPI:
            raise ValueError(
                f"Invalid backend: '{name}': glassgrad.distributed runs on MPI only "
                "(backend='mpi', processes started by mpiexec)"
            )
        return str.__new__(cls, lowered)


class ProcessGroup:
    """A set of ranks and the MPI communicator they share.

    ``rank()`` and ``size()`` are this process's rank in the group and the group's size;
    ``ranks`` lists the members' global ranks (ranks in the default group).
    """

    comm: Any

    ranks: list[int]

    __slots__ = ("comm", "ranks", "_rank", "_size", "__weakref__")

    def __init__(self, comm: Any, ranks: list[int]) -> None:
        self.comm = comm
        self.ranks = ranks
        self._rank = comm.Get_rank()
        self._size = comm.Get_size()

    def rank(self) -> int:
        return self._rank

    def size(self) -> int:
        return self._size

    def name(self) -> str:
        return Backend.MPI

    def __repr__(self) -> str:
        return f"ProcessGroup(backend='mpi', ranks={self.ranks}, rank={self._rank})"


class GroupMember:
    """``WORLD``: the default group once initialised; ``NON_GROUP_MEMBER``: what
    ``new_group`` returns on ranks outside the new group."""

    WORLD: ProcessGroup | None = None
    NON_GROUP_MEMBER = -100


class group:  # noqa: N801 - PyTorch's name: ``dist.group.WORLD``
    """``group.WORLD``: the default process group (None before ``init_process_group``)."""

    WORLD: ProcessGroup | None = None


def _set_world(pg: ProcessGroup | None) -> None:
    GroupMember.WORLD = group.WORLD = pg


class _State:
    __slots__ = ("groups", "previous_excepthook")

    def __init__(self) -> None:
        self.groups: list[ProcessGroup] = []  # the default group first, then new_group's
        self.previous_excepthook: Any = None


_state = _State()


def is_available() -> bool:
    """True when the MPI backend can be used (mpi4py is installed; it is not imported)."""
    return mpi4py_installed()


def is_mpi_available() -> bool:
    """True when the MPI backend can be used; the same as ``is_available()`` here."""
    return mpi4py_installed()


def is_initialized() -> bool:
    """True between ``init_process_group`` and ``destroy_process_group``."""
    return GroupMember.WORLD is not None


def _world() -> ProcessGroup:
    world = GroupMember.WORLD
    if world is None:
        raise ValueError(
            "Default process group has not been initialized, "
            "please make sure to call init_process_group."
        )
    return world


def resolve_group(pg: Any) -> ProcessGroup | None:
    """The group a call works on: ``pg``, or the default group for None; None on a rank
    outside ``pg`` (the collectives then warn and do nothing, as PyTorch's)."""
    world = _world()
    if pg is None:
        return world
    if pg is GroupMember.NON_GROUP_MEMBER:
        return None
    if not isinstance(pg, ProcessGroup):
        raise TypeError(f"group must be a ProcessGroup or None, got {type(pg).__name__}")
    if pg not in _state.groups:
        raise ValueError(
            f"Group {pg} is not registered, please create group with "
            "glassgrad.distributed.new_group API"
        )
    return pg


def _env_rank(name: str, actual: int) -> None:
    value = os.environ.get(name)
    if value is not None and int(value) != actual:
        raise ValueError(
            f"init_process_group: the environment says {name}={value}, but MPI gives this "
            f"process {actual}; under mpiexec leave {name} unset or set it to MPI's value"
        )


def _install_abort_hook() -> None:
    """An uncaught exception on one rank prints its traceback and aborts the whole job,
    as mpi4py's ``python -m mpi4py`` runner does, instead of leaving the others hanging in
    their next collective."""
    previous = sys.excepthook
    _state.previous_excepthook = previous

    def abort_job(exc_type: Any, exc: Any, tb: Any) -> None:
        sys.stdout.flush()
        if previous is sys.__excepthook__:
            # One write of the whole traceback: mpiexec forwards it before Abort ends the job
            # (written line by line, its tail could be cut off).
            sys.stderr.write("".join(traceback.format_exception(exc_type, exc, tb)))
        else:
            previous(exc_type, exc, tb)
        sys.stderr.flush()
        time.sleep(0.2)  # let MPI's I/O forwarding deliver it
        mpi().COMM_WORLD.Abort(1)

    sys.excepthook = abort_job


def init_process_group(
    backend: str | None = None,
    init_method: str | None = None,
    timeout: datetime.timedelta | None = None,
    world_size: int = -1,
    rank: int = -1,
    store: Any = None,
    group_name: str = "",
    pg_options: Any = None,
    device_id: Any = None,
) -> None:
    """Join the default process group: every process that ``mpiexec`` started.

    MPI assigns ranks, so ``world_size`` and ``rank`` may be left at -1; given (or set in
    the ``RANK`` / ``WORLD_SIZE`` environment variables), they must equal MPI's.
    ``init_method`` may be None or ``"env://"``: MPI needs no address. From here on, an
    uncaught exception on any rank prints that rank's traceback and aborts the whole job
    (``MPI_Abort``), so a failing rank never leaves the others waiting.

    Example (``mpiexec -n 2 python train.py``)::

        >>> dist.init_process_group(backend="mpi")
        >>> dist.get_world_size()
        2
    """
    if is_initialized():
        raise ValueError("trying to initialize the default process group twice!")
    Backend(Backend.MPI if backend is None else backend)
    if init_method not in (None, "env://"):
        raise ValueError(
            f"init_process_group: init_method={init_method!r} is not used by the MPI backend: "
            "mpiexec starts the processes and MPI connects them (leave it None)"
        )
    for name, value in (("store", store), ("pg_options", pg_options), ("device_id", device_id)):
        if value is not None:
            raise ValueError(f"init_process_group: {name} is not supported by the MPI backend")
    if timeout is not None:
        raise ValueError(
            "init_process_group: the MPI backend has no timeout; a failing rank aborts the job"
        )
    MPI = mpi()
    comm = MPI.COMM_WORLD.Dup()
    actual_rank, actual_size = comm.Get_rank(), comm.Get_size()
    try:
        for name, given, actual in (("rank", rank, actual_rank), ("world_size", world_size, actual_size)):  # fmt: skip
            if given != -1 and given != actual:
                raise ValueError(
                    f"init_process_group: {name}={given} but MPI gives this process "
                    f"{actual}; with the MPI backend leave {name} at -1"
                )
        _env_rank("RANK", actual_rank)
        _env_rank("WORLD_SIZE", actual_size)
    except ValueError:
        comm.Free()
        raise
    world = ProcessGroup(comm, list(range(actual_size)))
    _state.groups = [world]
    _set_world(world)
    _install_abort_hook()


def destroy_process_group(group: ProcessGroup | None = None) -> None:
    """Free ``group``, or with None every group and the default one (the job can then
    call ``init_process_group`` again).

    Example::

        >>> dist.destroy_process_group()
        >>> dist.is_initialized()
        False
    """
    world = _world()
    if group is None or group is world:
        for pg in _state.groups:
            pg.comm.Free()
        _state.groups = []
        _set_world(None)
        if _state.previous_excepthook is not None:
            sys.excepthook = _state.previous_excepthook
            _state.previous_excepthook = None
        return
    if group is GroupMember.NON_GROUP_MEMBER:
        return
    pg = resolve_group(group)
    _state.groups.remove(pg)
    pg.comm.Free()


def new_group(
    ranks: list[int] | None = None,
    timeout: datetime.timedelta | None = None,
    backend: str | None = None,
    pg_options: Any = None,
    use_local_synchronization: bool = False,
    group_desc: str | None = None,
) -> ProcessGroup | int:
    """A group of some ranks of the default group (all of them for None).

    Every rank of the default group must call it, with the same ``ranks``; ranks outside
    the new group get ``GroupMember.NON_GROUP_MEMBER``. Ranks are global ranks; inside the
    group they are renumbered 0.. in sorted order.

    Example (4 processes)::

        >>> evens = dist.new_group([0, 2])
        >>> dist.get_rank(evens) if dist.get_rank() % 2 == 0 else "not a member"
    """
    world = _world()
    if backend is not None:
        Backend(backend)
    if timeout is not None or pg_options is not None:
        raise ValueError("new_group: timeout and pg_options are not supported by the MPI backend")
    if use_local_synchronization:
        raise ValueError("MPI backend doesn't support use_local_synchronization=True")
    size = world.size()
    members = list(range(size)) if ranks is None else sorted(int(r) for r in ranks)
    if len(set(members)) != len(members):
        raise ValueError(f"ranks list must not contain duplicate entries, got {ranks}")
    for r in members:
        if not 0 <= r < size:
            raise ValueError(
                f"Rank {r} is out of range. Valid ranks are 0 to {size - 1} (world_size={size})"
            )
    MPI = mpi()
    sub = world.comm.Get_group().Incl(members)
    comm = world.comm.Create(sub)  # collective over the default group
    sub.Free()
    if comm == MPI.COMM_NULL:
        return GroupMember.NON_GROUP_MEMBER
    pg = ProcessGroup(comm, members)
    _state.groups.append(pg)
    return pg


def get_rank(group: ProcessGroup | None = None) -> int:
    """This process's rank in ``group`` (the default group for None); -1 outside it.

    Example::

        >>> dist.get_rank()
        0
    """
    pg = resolve_group(group)
    return -1 if pg is None else pg.rank()


def get_world_size(group: ProcessGroup | None = None) -> int:
    """The number of processes in ``group`` (the default group for None); -1 outside it.

    Example::

        >>> dist.get_world_size()
        2
    """
    pg = resolve_group(group)
    return -1 if pg is None else pg.size()


def get_backend(group: ProcessGroup | None = None) -> str:
    """The backend of ``group``: always ``"mpi"``."""
    pg = resolve_group(group)
    if pg is None:
        raise ValueError("Invalid process group specified")
    return Backend(Backend.MPI)


def get_global_rank(group: ProcessGroup, group_rank: int) -> int:
    """The global rank of ``group``'s rank ``group_rank``."""
    pg = resolve_group(group)
    if pg is None or not 0 <= group_rank < pg.size():
        raise ValueError(f"Group rank {group_rank} is not part of group {group}")
    return pg.ranks[group_rank]


def get_group_rank(group: ProcessGroup, global_rank: int) -> int:
    """The rank in ``group`` of the process with global rank ``global_rank``."""
    pg = resolve_group(group)
    if pg is None or global_rank not in pg.ranks:
        raise ValueError(f"Global rank {global_rank} is not part of group {group}")
    return pg.ranks.index(global_rank)


def get_process_group_ranks(group: ProcessGroup | None) -> list[int]:
    """The global ranks of ``group``'s members, in group-rank order."""
    pg = resolve_group(group)
    if pg is None:
        raise ValueError(f"Group {group} is not registered")
    return list(pg.ranks)


def warn_not_in_group(op_name: str) -> None:
    """PyTorch's warning when a rank calls a collective of a group it is not in."""
    world = GroupMember.WORLD
    warnings.warn(
        f"Running {op_name} on global rank {-1 if world is None else world.rank()} which "
        "does not belong to the given group.",
        stacklevel=3,
    )
