"""``nn.init``: fill a tensor in place with values from a distribution (no graph recorded).

Every function writes under ``no_grad`` and returns the tensor. Random draws come from
glassgrad's generator (``glassgrad.manual_seed`` or a ``generator=`` argument), so they are
reproducible but differ from PyTorch's for the same seed; the distributions are PyTorch's.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import _factories
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..ops._erf import erfinv

__all__ = [
    "calculate_gain",
    "uniform_",
    "normal_",
    "trunc_normal_",
    "constant_",
    "ones_",
    "zeros_",
    "eye_",
    "dirac_",
    "xavier_uniform_",
    "xavier_normal_",
    "kaiming_uniform_",
    "kaiming_normal_",
    "orthogonal_",
]

_LINEAR_FNS = (
    "linear",
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_transpose1d",
    "conv_transpose2d",
    "conv_transpose3d",
)


def _rng(generator: Any) -> np.random.Generator:
    if generator is None:
        return _factories.default_generator.rng
    if isinstance(generator, np.random.Generator):
        return generator
    return generator.rng


def _write(tensor: Tensor, values: Any) -> Tensor:
    """Copy ``values`` (array or scalar, cast to the tensor's dtype) into ``tensor``."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"nn.init: expected a Tensor, got {type(tensor).__name__}")
    with no_grad():
        tensor.copy_(Tensor._from_array(np.asarray(values, dtype=tensor._data.dtype)))
    return tensor


def calculate_gain(nonlinearity: str, param: float | None = None) -> float:
    """The recommended gain for a nonlinearity (scales the std of the init).

    ============ ==========================================
    nonlinearity gain
    ============ ==========================================
    linear/conv  1
    sigmoid      1
    tanh         5/3
    relu         sqrt(2)
    leaky_relu   sqrt(2 / (1 + negative_slope^2))
    selu         3/4
    ============ ==========================================

    Example::

        >>> nn.init.calculate_gain("tanh")
        1.6666666666666667
    """
    if nonlinearity in _LINEAR_FNS or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif (not isinstance(param, bool) and isinstance(param, int)) or isinstance(param, float):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0, generator: Any = None) -> Tensor:
    """Fill with draws from U(a, b).

    Example::

        >>> w = nn.init.uniform_(glassgrad.empty(3, 5), -0.1, 0.1)
    """
    return _write(tensor, _rng(generator).uniform(a, b, tensor.shape))


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator: Any = None) -> Tensor:
    """Fill with draws from N(mean, std^2).

    Example::

        >>> w = nn.init.normal_(glassgrad.empty(3, 5), std=0.02)
    """
    return _write(tensor, _rng(generator).normal(mean, std, tensor.shape))


def _norm_cdf(x: float) -> float:
    return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0


def trunc_normal_(
    tensor: Tensor,
    mean: float = 0.0,
    std: float = 1.0,
    a: float = -2.0,
    b: float = 2.0,
    generator: Any = None,
) -> Tensor:
    """Fill with draws from N(mean, std^2) truncated to [a, b] (redrawn, not clipped).

    Example::

        >>> w = nn.init.trunc_normal_(glassgrad.empty(3, 5), std=0.02, a=-0.04, b=0.04)
    """
    if (mean < a - 2 * std) or (mean > b + 2 * std):
        warnings.warn(
            "mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The distribution "
            "of values may be incorrect.",
            stacklevel=2,
        )
    rng = _rng(generator)
    n = tensor.numel()
    lo, hi = _norm_cdf((a - mean) / std), _norm_cdf((b - mean) / std)
    if hi - lo > 0.3:
        # Rejection sampling: exact, and cheap when the interval holds a fair share of mass.
        kept = np.empty(0)
        while kept.size < n:
            draws = rng.normal(mean, std, int((n - kept.size) / (hi - lo) * 1.2) + 16)
            kept = np.concatenate([kept, draws[(draws >= a) & (draws <= b)]])
        values = kept[:n]
    else:
        # Inverse CDF on uniform draws between the two CDF values (PyTorch's method).
        u = rng.uniform(2 * lo - 1, 2 * hi - 1, n)
        values = np.clip(erfinv(u) * std * math.sqrt(2.0) + mean, a, b)
    return _write(tensor, values.reshape(tensor.shape))


def constant_(tensor: Tensor, val: float) -> Tensor:
    """Fill with ``val``.

    Example::

        >>> nn.init.constant_(glassgrad.empty(2), 0.3)
        tensor([0.3000, 0.3000])
    """
    return _write(tensor, val)


def ones_(tensor: Tensor) -> Tensor:
    """Fill with ones."""
    return _write(tensor, 1.0)


def zeros_(tensor: Tensor) -> Tensor:
    """Fill with zeros."""
    return _write(tensor, 0.0)


def eye_(tensor: Tensor) -> Tensor:
    """Fill a 2-D tensor with the identity matrix (ones on the diagonal).

    Example::

        >>> nn.init.eye_(glassgrad.empty(2, 3))
        tensor([[1., 0., 0.],
                [0., 1., 0.]])
    """
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    return _write(tensor, np.eye(*tensor.shape))


def dirac_(tensor: Tensor, groups: int = 1) -> Tensor:
    """Fill a 3-, 4- or 5-D conv weight with the Dirac delta (identity convolution),
    per group."""
    if tensor.ndim not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tensor.shape
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    out_per_group = sizes[0] // groups
    values = np.zeros(sizes)
    centre = tuple(s // 2 for s in sizes[2:])
    for g in range(groups):
        for d in range(min(out_per_group, sizes[1])):
            values[(g * out_per_group + d, d, *centre)] = 1
    return _write(tensor, values)


def _calculate_fan_in_and_fan_out(tensor: Tensor) -> tuple[int, int]:
    if tensor.ndim < 2:
        raise ValueError(
            "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions"
        )
    receptive = int(np.prod(tensor.shape[2:])) if tensor.ndim > 2 else 1
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


def _calculate_correct_fan(tensor: Tensor, mode: str) -> int:
    mode = mode.lower()
    valid = ["fan_in", "fan_out"]
    if mode not in valid:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    """Glorot uniform: U(-a, a) with ``a = gain * sqrt(6 / (fan_in + fan_out))``.

    Example::

        >>> w = nn.init.xavier_uniform_(glassgrad.empty(3, 5), gain=nn.init.calculate_gain("relu"))
    """
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    """Glorot normal: N(0, std^2) with ``std = gain * sqrt(2 / (fan_in + fan_out))``.

    Example::

        >>> w = nn.init.xavier_normal_(glassgrad.empty(3, 5))
    """
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator)


def kaiming_uniform_(
    tensor: Tensor,
    a: float = 0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
    generator: Any = None,
) -> Tensor:
    """He uniform: U(-bound, bound) with ``bound = gain * sqrt(3 / fan)``, ``gain =
    calculate_gain(nonlinearity, a)`` and ``fan`` the fan-in or fan-out (``mode``).

    Example::

        >>> w = nn.init.kaiming_uniform_(glassgrad.empty(3, 5), mode="fan_in", nonlinearity="relu")
    """
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    std = calculate_gain(nonlinearity, a) / math.sqrt(fan)
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(
    tensor: Tensor,
    a: float = 0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
    generator: Any = None,
) -> Tensor:
    """He normal: N(0, std^2) with ``std = gain / sqrt(fan)``.

    Example::

        >>> w = nn.init.kaiming_normal_(glassgrad.empty(3, 5), mode="fan_out", nonlinearity="relu")
    """
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    std = calculate_gain(nonlinearity, a) / math.sqrt(fan)
    return normal_(tensor, 0.0, std, generator)


def orthogonal_(tensor: Tensor, gain: float = 1, generator: Any = None) -> Tensor:
    """A (semi-)orthogonal matrix, scaled by ``gain``; dims after the first are flattened.

    Example::

        >>> w = nn.init.orthogonal_(glassgrad.empty(3, 5))
    """
    if tensor.ndim < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    flattened = _rng(generator).standard_normal((rows, cols))
    if rows < cols:
        flattened = flattened.T
    q, r = np.linalg.qr(flattened)
    q = q * np.sign(np.diag(r))  # a uniform (Haar) draw, not biased by QR's sign choice
    if rows < cols:
        q = q.T
    return _write(tensor, (gain * q).reshape(tensor.shape))


def _deprecated(new: Any) -> Any:
    def old(*args: Any, **kwargs: Any) -> Any:
        warnings.warn(
            f"`nn.init.{new.__name__[:-1]}` is now deprecated in favor of "
            f"`nn.init.{new.__name__}`.",
            FutureWarning,
            stacklevel=2,
        )
        return new(*args, **kwargs)

    old.__name__ = new.__name__[:-1]
    old.__doc__ = f"Deprecated alias of ``{new.__name__}``."
    return old


uniform: Callable[..., Any] = _deprecated(uniform_)
normal: Callable[..., Any] = _deprecated(normal_)
constant: Callable[..., Any] = _deprecated(constant_)
xavier_uniform: Callable[..., Any] = _deprecated(xavier_uniform_)
xavier_normal: Callable[..., Any] = _deprecated(xavier_normal_)
kaiming_uniform: Callable[..., Any] = _deprecated(kaiming_uniform_)
kaiming_normal: Callable[..., Any] = _deprecated(kaiming_normal_)
orthogonal: Callable[..., Any] = _deprecated(orthogonal_)
