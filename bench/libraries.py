"""The libraries a benchmark run measures, and how to load each one in a worker process.

* ``glassgrad`` (the candidate; ``--candidate MODULE`` swaps in another module with PyTorch's API)
  and ``torch`` (the reference) run the workloads of :mod:`bench.workloads` unchanged.
* Peers (``micrograd``, ``autograd``, ``mygrad``, ``tinygrad``) have their own implementations in
  :mod:`bench.peers`, for the workloads they can do.
* ``numpy-floor`` is not a library: it times only the matrix products of the wide MLP in NumPy.
"""

from __future__ import annotations

import importlib
import os
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from bench.workloads import WORKLOADS, WorkloadFn

CANDIDATE = "glassgrad"
REFERENCE = "torch"
FLOOR = "numpy-floor"
PEERS = ("micrograd", "autograd", "mygrad", "tinygrad")

# Peer name -> module in bench.peers holding its implementations.
_PEER_MODULES = {
    "micrograd": "bench.peers.micrograd_impl",
    "autograd": "bench.peers.autograd_impl",
    "mygrad": "bench.peers.mygrad_impl",
    "tinygrad": "bench.peers.tinygrad_impl",
    FLOOR: "bench.peers.numpy_floor",
}


REPO_ROOT = Path(__file__).resolve().parent.parent
# Set by ``python -m bench --threads N`` for every library (OpenMP: PyTorch; BLAS: NumPy).
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def child_env(library: str = "") -> dict[str, str]:
    """Environment of a worker or probe process: glassgrad's ``src`` and ``bench`` first.

    ``src`` is this checkout's, or the directory in the environment variable ``BENCH_SRC``
    (``python -m bench --src DIR`` sets it), e.g. a snapshot of a commit made with ``git archive``.
    ``BENCH_THREADS`` (``--threads N``) caps every library's thread pools.
    """
    env = dict(os.environ)
    source = env.get("BENCH_SRC") or str(REPO_ROOT / "src")
    paths = [source, str(REPO_ROOT), env.get("PYTHONPATH", "")]
    env["PYTHONPATH"] = os.pathsep.join(p for p in paths if p)
    if library == "tinygrad":
        env.setdefault("DEV", "CPU")
    threads = env.get("BENCH_THREADS")
    if threads:
        for variable in THREAD_VARIABLES:
            env[variable] = threads
    return env


class NotInstalled(Exception):
    """The library cannot be imported in this environment."""


@dataclass
class LoadedLibrary:
    """A library imported in a worker: its module, its workload functions and facts about it."""

    name: str
    module: ModuleType
    implementations: dict[str, WorkloadFn]
    facts: dict[str, Any]


def load(name: str, candidate_module: str = CANDIDATE) -> LoadedLibrary:
    """Import the library ``name`` and return its workload implementations.

    Raises
    ------
    NotInstalled
        If the library (not the harness) cannot be imported.
    """
    if name in (CANDIDATE, REFERENCE):
        import_name = candidate_module if name == CANDIDATE else REFERENCE
        try:
            module = importlib.import_module(import_name)
        except ImportError as error:
            raise NotInstalled(f"{type(error).__name__}: {error}") from error
        implementations = {w.name: w.torch_api for w in WORKLOADS.values()}
        return LoadedLibrary(name, module, implementations, describe(name, module))
    if name not in _PEER_MODULES:
        known = ", ".join((CANDIDATE, REFERENCE, FLOOR, *PEERS))
        raise ValueError(f"load: unknown library {name!r}; known: {known}")
    adapter = importlib.import_module(_PEER_MODULES[name])
    try:
        module = adapter.load()
    except ImportError as error:
        raise NotInstalled(f"{type(error).__name__}: {error}") from error
    return LoadedLibrary(name, module, dict(adapter.IMPLEMENTATIONS), describe(name, module))


def supported_workloads(name: str) -> set[str]:
    """Workloads a library has an implementation for, known without importing the library."""
    if name in (CANDIDATE, REFERENCE):
        return set(WORKLOADS)
    return set(importlib.import_module(_PEER_MODULES[name]).IMPLEMENTATIONS)


def blas_threads() -> list[dict[str, Any]]:
    """BLAS/OpenMP pools loaded in this process, with their thread counts (threadpoolctl)."""
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return []
    keys = ("internal_api", "version", "num_threads", "threading_layer", "filepath")
    return [{k: pool.get(k) for k in keys} for pool in threadpool_info()]


def describe(name: str, module: ModuleType) -> dict[str, Any]:
    """Version and threading facts of a loaded library."""
    facts: dict[str, Any] = {"module": module.__name__}
    version = getattr(module, "__version__", None)
    if version is None:
        try:
            from importlib.metadata import version as dist_version

            version = dist_version(name if name != FLOOR else "numpy")
        except Exception:
            version = "unknown"
    facts["version"] = str(version)
    if module.__name__ == "torch":
        facts["threads"] = module.get_num_threads()
        facts["interop_threads"] = module.get_num_interop_threads()
        settings = module.__config__.show().replace(",", " ").split()
        facts["blas"] = next(
            (part.split("=")[1] for part in settings if part.startswith("BLAS_INFO=")), "unknown"
        )
        facts["parallel_backend"] = next(
            (
                line.split(":", 1)[1].strip()
                for line in module.__config__.parallel_info().splitlines()
                if "parallel backend" in line
            ),
            "unknown",
        )
    elif module.__name__ == "micrograd":
        facts["threads"] = 1
        facts["note"] = "pure Python scalars"
    elif module.__name__ == "tinygrad":
        from tinygrad import Device

        facts["device"] = str(Device.DEFAULT)
        facts["note"] = "lazy; kernels compiled with clang; steps, LSTM and HVP under TinyJit"
    return facts
