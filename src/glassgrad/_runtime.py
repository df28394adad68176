"""Process-wide settings and small queries with PyTorch's names: threads, determinism,
float32 matmul precision, denormals, the default generator's state, dtype queries
(result_type, can_cast, is_signed), is_nonzero, typename and the top-level detach/fill."""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from . import _dtype
from ._factories import default_generator
from ._tensor import Tensor

__all__ = [
    "get_num_threads",
    "set_num_threads",
    "get_num_interop_threads",
    "set_num_interop_threads",
    "use_deterministic_algorithms",
    "are_deterministic_algorithms_enabled",
    "is_deterministic_algorithms_warn_only_enabled",
    "get_float32_matmul_precision",
    "set_float32_matmul_precision",
    "set_flush_denormal",
    "get_rng_state",
    "set_rng_state",
    "result_type",
    "can_cast",
    "is_signed",
    "is_nonzero",
    "get_device",
    "typename",
    "detach",
    "fill",
]


class _Settings:
    threads: int | None = None
    interop_threads: int | None = None
    deterministic = False
    warn_only = False
    limiter: Any = None


_settings = _Settings()


def get_num_threads() -> int:
    """The threads NumPy's BLAS uses for matrix products (the CPU count when unknown)."""
    if _settings.threads is not None:
        return _settings.threads
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return os.cpu_count() or 1
    counts = [pool["num_threads"] for pool in threadpool_info()]
    return max(counts) if counts else 1


def set_num_threads(int: int, /) -> None:
    """Limit NumPy's BLAS to ``int`` threads (through threadpoolctl, which must be
    installed: ``pip install threadpoolctl``).

    Example::

        >>> glassgrad.set_num_threads(1); glassgrad.get_num_threads()
        1
    """
    count = int
    if count < 1:
        raise RuntimeError("set_num_threads expects a positive integer")
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        raise RuntimeError(
            "set_num_threads(): limiting NumPy's BLAS threads needs threadpoolctl "
            "(pip install threadpoolctl)"
        ) from None
    _settings.limiter = threadpool_limits(limits=count)
    _settings.threads = count


def get_num_interop_threads() -> int:
    """Inter-op threads: glassgrad runs one op at a time, so 1 unless set."""
    return _settings.interop_threads or 1


def set_num_interop_threads(int: int, /) -> None:
    """Recorded for ``get_num_interop_threads``; glassgrad runs one op at a time whatever
    the count (PyTorch's inter-op pool only schedules independent ops in parallel)."""
    if int < 1:
        raise RuntimeError("Number of threads must be positive")
    _settings.interop_threads = int


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """Ask for deterministic algorithms: every glassgrad op already is (NumPy on one
    thread of control), so this only records the mode for
    ``are_deterministic_algorithms_enabled``."""
    _settings.deterministic, _settings.warn_only = bool(mode), bool(warn_only)


def are_deterministic_algorithms_enabled() -> bool:
    return _settings.deterministic


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    return _settings.warn_only


def set_deterministic_debug_mode(debug_mode: int | str) -> None:
    """``use_deterministic_algorithms`` by level: 0 or ``"default"`` off, 1 or ``"warn"`` on
    with ``warn_only``, 2 or ``"error"`` on.

    Example::

        >>> glassgrad.set_deterministic_debug_mode("warn")
        >>> glassgrad.get_deterministic_debug_mode()
        1
        >>> glassgrad.set_deterministic_debug_mode(0)
    """
    if not isinstance(debug_mode, (int, str)):
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    if isinstance(debug_mode, str):
        if debug_mode not in _DEBUG_MODES:
            raise RuntimeError(
                "invalid value of debug_mode, expected one of `default`, `warn`, `error`, but "
                f"got {debug_mode}"
            )
        debug_mode = _DEBUG_MODES[debug_mode]
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(
            f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}"
        )
    use_deterministic_algorithms(debug_mode != 0, warn_only=debug_mode == 1)


_DEBUG_MODES = {"default": 0, "warn": 1, "error": 2}


def get_deterministic_debug_mode() -> int:
    """The level ``set_deterministic_debug_mode`` sets: 0 off, 1 warn only, 2 error."""
    if not _settings.deterministic:
        return 0
    return 1 if _settings.warn_only else 2


def get_float32_matmul_precision() -> str:
    """Always ``"highest"``: glassgrad's float32 products are full float32 (no TF32 or
    bfloat16 shortcuts)."""
    return "highest"


def set_float32_matmul_precision(precision: str) -> None:
    """PyTorch lets lower settings trade precision for speed on some hardware; glassgrad
    keeps full float32 precision, which every setting allows."""
    if precision not in ("highest", "high", "medium"):
        raise RuntimeError(f"Invalid precision {precision}: expected highest, high or medium")


def set_flush_denormal(mode: bool) -> bool:
    """False: flushing denormals to zero is not available with NumPy (as PyTorch answers
    on a CPU without the instruction); the denormals stay."""
    return False


def get_rng_state() -> Tensor:
    """The default generator's state, as a uint8 tensor (see ``set_rng_state``)."""
    return default_generator.get_state()


def set_rng_state(new_state: Tensor) -> None:
    """Restore the default generator's state from ``get_rng_state``."""
    default_generator.set_state(new_state)


def result_type(tensor: Any = None, other: Any = None, **names: Any) -> Any:
    """The dtype of an arithmetic result of the two (tensors or numbers; PyTorch's
    overloads also name them ``scalar``/``tensor`` and ``scalar1``/``scalar2``).

    Example::

        >>> glassgrad.result_type(glassgrad.tensor([1]), 1.0)
        glassgrad.float32
    """
    unknown = set(names) - {"scalar", "scalar1", "scalar2"}
    if unknown:
        raise TypeError(f"result_type() got an unexpected keyword argument '{unknown.pop()}'")
    if "scalar" in names:  # result_type(scalar=, tensor=)
        tensor, other = names["scalar"], tensor
    if "scalar1" in names or "scalar2" in names:
        tensor, other = names.get("scalar1"), names.get("scalar2")
    values = [x._data if isinstance(x, Tensor) else x for x in (tensor, other)]
    return _dtype.from_numpy_dtype(_dtype.result_numpy_dtype(tuple(values)))


def can_cast(from_: Any, to: Any) -> bool:
    """Whether PyTorch's type promotion allows ``from_`` into ``to`` (not float to
    integer, nor anything to bool but bool).

    Example::

        >>> glassgrad.can_cast(glassgrad.float64, glassgrad.int32)
        False
    """
    return _dtype.can_cast(from_.numpy, to.numpy)


def is_signed(input: Tensor) -> bool:
    """Whether the tensor's dtype is signed."""
    return input.is_signed()


def is_nonzero(input: Tensor) -> bool:
    """Whether the single element of ``input`` is nonzero.

    Example::

        >>> glassgrad.is_nonzero(glassgrad.tensor([1.5]))
        True
    """
    return input.is_nonzero()


def get_device(input: Tensor) -> int:
    """The index of ``input``'s device: -1 for the CPU, where glassgrad's tensors live.

    Example::

        >>> glassgrad.get_device(glassgrad.ones(1))
        -1
    """
    return input.get_device()


def typename(obj: Any) -> str:
    """The type name PyTorch prints: ``torch.FloatTensor`` for tensors, the qualified name
    of anything else.

    Example::

        >>> glassgrad.typename(glassgrad.ones(1))
        'torch.FloatTensor'
    """
    if isinstance(obj, Tensor):
        return obj.type()
    kind = obj if isinstance(obj, type) else type(obj)
    module = "" if kind.__module__ == "builtins" else kind.__module__ + "."
    return module + kind.__qualname__


def detach(input: Tensor) -> Tensor:
    """``input.detach()``."""
    return input.detach()


def fill(input: Tensor, value: Any) -> Tensor:
    """A copy of ``input`` filled with ``value`` (a number or 0-d tensor, which gets the
    gradient).

    Example::

        >>> glassgrad.fill(glassgrad.zeros(2), 3.0)
        tensor([3., 3.])
    """
    return input.clone().fill_(value)


def _is_signed(self: Tensor) -> bool:
    return self._data.dtype.kind in "fic"


def _is_nonzero(self: Tensor) -> bool:
    if self._data.size != 1:
        raise RuntimeError(
            "Boolean value of Tensor with more than one value is ambiguous"
            if self._data.size
            else "Boolean value of Tensor with no values is ambiguous"
        )
    return bool(np.asarray(self._data).reshape(()) != 0)


Tensor.is_signed = _is_signed
Tensor.is_nonzero = _is_nonzero
