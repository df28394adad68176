"""The one place that imports mpi4py, on first use: ``import glassgrad`` never does."""

from __future__ import annotations

import importlib.util
from typing import Any

__all__ = ["mpi", "mpi4py_installed", "INSTALL_HINT"]

INSTALL_HINT = (
    "glassgrad.distributed runs on MPI through mpi4py, which is not installed: "
    "pip install 'glassgrad[distributed]' (mpi4py and the mpich wheel, which ships mpiexec)"
)


def mpi4py_installed() -> bool:
    """True when mpi4py can be imported (it is not imported here)."""
    return importlib.util.find_spec("mpi4py") is not None


def mpi() -> Any:
    """The ``mpi4py.MPI`` module; importing it initialises MPI (once per process)."""
    try:
        from mpi4py import MPI
    except ImportError as error:
        raise RuntimeError(INSTALL_HINT) from error
    return MPI
