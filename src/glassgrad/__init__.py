"""glassgrad: define-by-run reverse-mode autodiff on NumPy, with PyTorch's API and a
computation graph you can see.

Example::

    >>> import glassgrad as torch
    >>> x = torch.tensor([2.0, 3.0], requires_grad=True)
    >>> ((x + 3) * (x + 3) * 3).mean().backward()
    >>> x.grad
    tensor([15., 18.])
"""

from __future__ import annotations

import importlib
import math
import warnings as _warnings
from typing import Any

from . import autograd, return_types
from ._allocator import tune_malloc as _tune_malloc
from ._creation import (
    asarray,
    empty_permuted,
    empty_strided,
    frombuffer,
    logspace,
    range,
    scalar_tensor,
    tril_indices,
    triu_indices,
    unravel_index,
)
from ._dtype import (
    bool_ as bool,  # noqa: A001 - PyTorch's name
)
from ._dtype import (
    complex64,
    complex128,
    dtype,
    float16,
    float32,
    float64,
    get_default_dtype,
    int8,
    int16,
    int32,
    int64,
    promote_types,
    set_default_dtype,
    uint8,
)
from ._factories import (
    Generator,
    arange,
    as_tensor,
    default_generator,
    empty,
    empty_like,
    eye,
    from_numpy,
    full,
    full_like,
    initial_seed,
    linspace,
    manual_seed,
    ones,
    ones_like,
    rand,
    rand_like,
    randint,
    randint_like,
    randn,
    randn_like,
    randperm,
    seed,
    tensor,
    zeros,
    zeros_like,
)
from ._layout import (
    channels_last,
    channels_last_3d,
    contiguous_format,
    layout,
    memory_format,
    preserve_format,
    sparse_coo,
    strided,
)
from ._legacy import (
    BoolTensor,
    ByteTensor,
    CharTensor,
    DoubleTensor,
    FloatTensor,
    HalfTensor,
    IntTensor,
    LongTensor,
    ShortTensor,
    set_default_tensor_type,
)
from ._runtime import (
    are_deterministic_algorithms_enabled,
    can_cast,
    detach,
    fill,
    get_deterministic_debug_mode,
    get_device,
    get_float32_matmul_precision,
    get_num_interop_threads,
    get_num_threads,
    get_rng_state,
    is_deterministic_algorithms_warn_only_enabled,
    is_nonzero,
    is_signed,
    result_type,
    set_deterministic_debug_mode,
    set_float32_matmul_precision,
    set_flush_denormal,
    set_num_interop_threads,
    set_num_threads,
    set_rng_state,
    typename,
    use_deterministic_algorithms,
)
from ._tensor import Size, Tensor, device, get_default_device, set_default_device
from ._tensor_str import get_printoptions, set_printoptions
from ._type_info import finfo, iinfo
from ._warn_once import is_warn_always_enabled, set_warn_always
from .autograd.grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from .ops import public_functions as _public_functions
from .ops.combining import broadcast_shapes
from .ops.comparison import equal
from .ops.windows import (
    bartlett_window,
    blackman_window,
    hamming_window,
    hann_window,
    kaiser_window,
)

__version__ = "0.1.0"

e, pi, inf, nan = math.e, math.pi, math.inf, math.nan
newaxis = None

half, float, double = float16, float32, float64  # noqa: A001 - PyTorch's names
short, int, long = int16, int32, int64  # noqa: A001
cfloat, cdouble = complex64, complex128

globals().update(_public_functions())
_tune_malloc()  # freed buffers stay for the next step: no page faults (see _allocator)
# NumPy's floating-point warnings raised in glassgrad's own code (log(0), 0/0, overflow):
# PyTorch returns inf and nan silently. The user's own NumPy code keeps its warnings.
_warnings.filterwarnings(
    "ignore",
    message=r"(divide by zero|invalid value|overflow|underflow) encountered",
    category=RuntimeWarning,
    module=r"glassgrad\.",
)

_LAZY_SUBMODULES = (
    "nn",
    "optim",
    "utils",
    "viz",
    "serialization",
    "linalg",
    "special",
    "distributed",
    "cuda",
    "backends",
    "functional",
    "profiler",
    "fft",
)


def __getattr__(name: str) -> Any:
    # Submodules load on first use, so `import glassgrad` stays fast.
    if name in _LAZY_SUBMODULES:
        return importlib.import_module(f".{name}", __name__)
    if name in ("save", "load"):
        return getattr(importlib.import_module(".serialization", __name__), name)
    raise AttributeError(f"module 'glassgrad' has no attribute {name!r}")


def is_tensor(obj: Any) -> Any:
    """True if ``obj`` is a glassgrad Tensor."""
    return isinstance(obj, Tensor)


def numel(input: Tensor) -> Any:
    """Number of elements of ``input``."""
    return input.numel()


def is_floating_point(input: Tensor) -> Any:
    """True if ``input`` has a floating dtype."""
    return input.is_floating_point()


def is_complex(input: Tensor) -> Any:
    """True if ``input`` has a complex dtype."""
    return input.is_complex()


def is_inference(input: Tensor) -> bool:
    """True if ``input`` is an inference tensor: made inside ``inference_mode()``, or a view
    of one.

    Example::

        >>> with glassgrad.inference_mode():
        ...     glassgrad.is_inference(glassgrad.zeros(1))
        True
    """
    if not isinstance(input, Tensor):
        raise TypeError(
            "is_inference(): argument 'input' (position 1) must be Tensor, not "
            f"{type(input).__name__}"
        )
    return input.is_inference()
