"""``glassgrad.distributed``: ``torch.distributed``'s process groups and collectives, on MPI.

Processes are started by ``mpiexec`` (one machine, or several with a hostfile) and join with
``init_process_group(backend="mpi")``; tensors are then exchanged in place on their NumPy
arrays by MPI, through mpi4py. Importing this package imports neither: ``mpi4py`` (the
``glassgrad[distributed]`` extra) is loaded by ``init_process_group``.

Example (``mpiexec -n 2 python script.py``)::

    >>> import glassgrad
    >>> import glassgrad.distributed as dist
    >>> dist.init_process_group(backend="mpi")
    >>> t = glassgrad.ones(3) * (dist.get_rank() + 1)
    >>> dist.all_reduce(t)            # t is now 1 + 2 = 3 everywhere
    >>> dist.destroy_process_group()
"""

from .collectives import (
    all_gather,
    all_gather_into_tensor,
    all_reduce,
    barrier,
    broadcast,
    gather,
    reduce,
    reduce_scatter,
    reduce_scatter_tensor,
    scatter,
)
from .object_collectives import (
    all_gather_object,
    broadcast_object_list,
    gather_object,
    scatter_object_list,
)
from .point_to_point import irecv, isend, recv, send
from .process_group import (
    Backend,
    GroupMember,
    ProcessGroup,
    destroy_process_group,
    get_backend,
    get_global_rank,
    get_group_rank,
    get_process_group_ranks,
    get_rank,
    get_world_size,
    group,
    init_process_group,
    is_available,
    is_initialized,
    is_mpi_available,
    new_group,
)
from .reduce_op import ReduceOp
from .work import Work

__all__ = [
    "Backend",
    "GroupMember",
    "ProcessGroup",
    "ReduceOp",
    "Work",
    "all_gather",
    "all_gather_into_tensor",
    "all_gather_object",
    "all_reduce",
    "barrier",
    "broadcast",
    "broadcast_object_list",
    "destroy_process_group",
    "gather",
    "gather_object",
    "get_backend",
    "get_global_rank",
    "get_group_rank",
    "get_process_group_ranks",
    "get_rank",
    "get_world_size",
    "group",
    "init_process_group",
    "irecv",
    "is_available",
    "is_initialized",
    "is_mpi_available",
    "isend",
    "new_group",
    "recv",
    "reduce",
    "reduce_scatter",
    "reduce_scatter_tensor",
    "scatter",
    "scatter_object_list",
    "send",
]
