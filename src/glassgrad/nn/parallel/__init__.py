"""``glassgrad.nn.parallel``: ``DistributedDataParallel`` over ``glassgrad.distributed``.

Importing it imports neither mpi4py nor MPI; wrapping a model needs
``glassgrad.distributed.init_process_group`` first.
"""

from .distributed import DistributedDataParallel

__all__ = ["DistributedDataParallel"]
