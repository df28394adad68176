"""Rank 1 raises in its training step while the others wait in the gradient all-reduce: the
job must end at once with a non-zero exit code and rank 1's traceback."""

import glassgrad
import glassgrad.distributed as dist

dist.init_process_group(backend="mpi")
grad = glassgrad.ones(4)
if dist.get_rank() == 1:
    raise ValueError("rank 1 failed in its training step")
dist.all_reduce(grad)  # the others block here until MPI_Abort ends them
