"""``glassgrad.distributed``'s collectives on 2, 3 and 4 ranks under ``mpiexec``, each result
compared with NumPy (the checks themselves are in ``collective_checks``)."""

from __future__ import annotations

import pytest

from . import collective_checks
from .conftest import assert_check_passed


@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("name", list(collective_checks.CHECKS))
def test_collective(mpi_results, name, n):
    assert_check_passed(mpi_results("collective_checks", n), name)
