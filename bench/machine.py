"""Facts about the machine a benchmark ran on: CPU, cores, NumPy's BLAS, Python."""

from __future__ import annotations

import os
import platform
from typing import Any

import numpy as np


def cpu_model() -> str:
    """The CPU's model name from /proc/cpuinfo, or the platform's processor string."""
    try:
        with open("/proc/cpuinfo") as handle:
            for line in handle:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def numpy_blas() -> str:
    """Name and version of the BLAS NumPy was built against (``numpy.show_config``)."""
    try:
        blas = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
        return f"{blas.get('name', 'unknown')} {blas.get('version', '')}".strip()
    except Exception:
        return "unknown"


def load_average() -> list[float]:
    """The 1, 5 and 15 minute load averages: other work on the machine makes times noisy."""
    try:
        return [round(value, 2) for value in os.getloadavg()]
    except OSError:
        return []


def machine_facts() -> dict[str, Any]:
    """Everything about the host that a reader needs to weigh the figures.

    Example
    -------
    >>> machine_facts()["logical_cores"] >= 1
    True
    """
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count() or 1
    try:
        with open("/proc/meminfo") as handle:
            memory_kib = int(handle.readline().split()[1])
    except (OSError, ValueError, IndexError):
        memory_kib = 0
    return {
        "cpu": cpu_model(),
        "logical_cores": os.cpu_count(),
        "usable_cores": usable,
        "memory_gib": round(memory_kib / 2**20, 1),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "numpy_blas": numpy_blas(),
        "load_average": load_average(),
        "thread_env": {
            key: os.environ[key]
            for key in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
            if key in os.environ
        },
    }
