"""Let freed NumPy buffers be reused by the next training step (Linux with glibc only).

glibc's ``malloc`` serves a large request with a fresh ``mmap`` (above ``M_MMAP_THRESHOLD``,
128 KiB to start with) and hands freed memory at the top of the heap back to the system (above
``M_TRIM_THRESHOLD``). A training step frees and re-allocates the same large activations and
gradients every time, so with the defaults every step pays one page fault per 4 KiB it touches
again: measured here, an LSTM step of 10 ms spent about 1.5 ms in page faults. Raising both
thresholds keeps such buffers in the process, as PyTorch users get from jemalloc or tcmalloc.
The cost: up to ``TRIM_THRESHOLD`` of freed memory can stay in the process instead of going
back to the system.

``import glassgrad`` calls :func:`tune_malloc` once. Set ``GLASSGRAD_MALLOC_TUNING=0`` to leave
``malloc`` alone; glibc's own ``MALLOC_MMAP_THRESHOLD_`` / ``MALLOC_TRIM_THRESHOLD_`` /
``GLIBC_TUNABLES`` variables, when set, also take precedence.
"""

from __future__ import annotations

import os
import sys

__all__ = ["tune_malloc", "MMAP_THRESHOLD", "TRIM_THRESHOLD"]

# glibc's mallopt() parameters (malloc.h) and the values set.
_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD = 32 * 1024 * 1024  # the largest glibc accepts on 64-bit systems
TRIM_THRESHOLD = 256 * 1024 * 1024
_USER_SETTINGS = ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "GLIBC_TUNABLES")


def tune_malloc() -> bool:
    """Raise glibc's mmap and trim thresholds; True if they were set.

    Does nothing (False) off Linux, without glibc, under ``GLASSGRAD_MALLOC_TUNING=0``, or
    when the user configured ``malloc`` through glibc's environment variables.

    Example::

        >>> from glassgrad._allocator import tune_malloc
        >>> tune_malloc() in (True, False)
        True
    """
    if os.environ.get("GLASSGRAD_MALLOC_TUNING", "1") == "0":
        return False
    if not sys.platform.startswith("linux") or any(v in os.environ for v in _USER_SETTINGS):
        return False
    import ctypes  # only here: most platforms never need it

    try:
        mallopt = ctypes.CDLL("libc.so.6").mallopt
    except (OSError, AttributeError):  # not glibc (musl, ...)
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    return bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(
        mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD)
    )
