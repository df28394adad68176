"""``glassgrad.nn.parallel``: ``DistributedDataParallel`` over ``glassgrad.distributed``, and
``DataParallel`` as PyTorch's runs without accelerators (the module itself).

Importing it imports neither mpi4py nor MPI; wrapping a model needs
``glassgrad.distributed.init_process_group`` first.
"""

from .data_parallel import DataParallel, data_parallel
from .distributed import DistributedDataParallel

__all__ = ["DataParallel", "DistributedDataParallel", "data_parallel"]
