"""``DistributedDataParallel`` on 2 and 3 ranks under ``mpiexec`` (the checks themselves are
in ``ddp_checks``): exactness against one process on the whole batch, buckets, no_sync,
unused parameters, BatchNorm buffers, errors, overlap of communication with backward."""

from __future__ import annotations

import pytest

from . import ddp_checks
from .conftest import assert_check_passed


@pytest.mark.parametrize("n", [2, 3])
@pytest.mark.parametrize("name", list(ddp_checks.CHECKS))
def test_ddp(mpi_results, name, n):
    assert_check_passed(mpi_results("ddp_checks", n), name)
