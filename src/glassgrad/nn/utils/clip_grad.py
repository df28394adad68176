"""Gradient clipping: scale all gradients to a maximum total norm, or clamp each value."""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable
from typing import Any

import numpy as np

from ..._dtype import get_default_dtype
from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ...linalg import vector_norm
from ...ops.shape import stack

__all__ = [
    "clip_grad_norm_",
    "clip_grad_norm",
    "clip_grad_value_",
    "clip_grads_with_norm_",
    "get_total_norm",
]


def _as_list(parameters: Tensor | Iterable[Tensor]) -> list[Tensor]:
    return [parameters] if isinstance(parameters, Tensor) else list(parameters)


def _vector_norm(values: np.ndarray, order: float) -> np.ndarray:
    flat = np.abs(values.reshape(-1))
    if order == math.inf:
        return flat.max(initial=0.0)
    if order == -math.inf:
        return flat.min() if flat.size else np.asarray(math.inf, dtype=flat.dtype)
    if order == 0:
        return np.asarray(np.count_nonzero(flat), dtype=flat.dtype)
    if order == 2:
        return np.sqrt(np.sum(flat * flat))
    return np.sum(flat**order) ** (1.0 / order)


def clip_grad_norm_(
    parameters: Tensor | Iterable[Tensor],
    max_norm: float,
    norm_type: float | str = 2.0,
    error_if_nonfinite: bool = False,
    foreach: bool | None = None,
) -> Tensor:
    """Scale the gradients of ``parameters`` in place so that their total norm (the norm of
    the vector of every gradient's norm) is at most ``max_norm``; returns the total norm
    before clipping.

    The scale is ``min(1, max_norm / (total_norm + 1e-6))``, as in PyTorch.

    Parameters
    ----------
    parameters : Tensor or iterable of Tensors
        Tensors whose ``.grad`` is clipped (those without a gradient are skipped).
    max_norm : float
        The largest total norm allowed.
    norm_type : float or "inf"
        The p of the p-norm.
    error_if_nonfinite : bool
        Raise a RuntimeError if the total norm is nan or infinite.

    Example::

        >>> total = nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
    """
    params = _as_list(parameters)
    order = float(norm_type)
    grads = [p.grad for p in params if p.grad is not None]
    if not grads:
        return Tensor._from_array(np.asarray(0.0, dtype=get_default_dtype().numpy))
    norms = [_vector_norm(g._data, order) for g in grads]
    dtype = np.result_type(*[g._data.dtype for g in grads])
    total = np.asarray(_vector_norm(np.asarray(norms, dtype=dtype), order), dtype=dtype)
    if error_if_nonfinite and not np.isfinite(total):
        raise RuntimeError(
            f"The total norm of order {order} for gradients from `parameters` is non-finite, "
            "so it cannot be clipped. To disable this error and scale the gradients by the "
            "non-finite norm anyway, set `error_if_nonfinite=False`"
        )
    coefficient = min(float(max_norm) / (float(total) + 1e-6), 1.0)
    with no_grad():
        for g in grads:
            g.mul_(coefficient)
    return Tensor._from_array(total)


def clip_grad_norm(
    parameters: Tensor | Iterable[Tensor],
    max_norm: float,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach: bool | None = None,
) -> Tensor:
    """Deprecated alias of ``clip_grad_norm_``."""
    warnings.warn(
        "`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
        "`torch.nn.utils.clip_grad_norm_`.",
        FutureWarning,
        stacklevel=2,
    )
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(
    parameters: Tensor | Iterable[Tensor], clip_value: float, foreach: Any = None
) -> None:
    """Clamp every gradient value of ``parameters`` into ``[-clip_value, clip_value]`` in
    place.

    Example::

        >>> nn.utils.clip_grad_value_(model.parameters(), clip_value=0.5)
    """
    bound = float(clip_value)
    with no_grad():
        for p in _as_list(parameters):
            if p.grad is not None:
                p.grad.clamp_(min=-bound, max=bound)


def get_total_norm(
    tensors: Tensor | Iterable[Tensor],
    norm_type: float | str = 2.0,
    error_if_nonfinite: bool = False,
    foreach: bool | None = None,
) -> Tensor:
    """The ``norm_type``-norm of the norms of ``tensors`` (usually gradients): the norm of
    all of them as one vector (computed without recording a graph, as PyTorch's).

    Example::

        >>> nn.utils.get_total_norm([glassgrad.tensor([3.0]), glassgrad.tensor([4.0])])
        tensor(5.)
    """
    tensors = _as_list(tensors)
    order = float(norm_type)
    if not tensors:
        return Tensor._from_array(np.asarray(0.0, dtype=get_default_dtype().numpy))
    with no_grad():
        total = vector_norm(stack([vector_norm(t, order) for t in tensors]), order)
    if error_if_nonfinite and not np.isfinite(total._data):
        raise RuntimeError(
            f"The total norm of order {order} for gradients from `parameters` is non-finite, "
            "so it cannot be clipped. To disable this error and scale the gradients by the "
            "non-finite norm anyway, set `error_if_nonfinite=False`"
        )
    return total


def clip_grads_with_norm_(
    parameters: Tensor | Iterable[Tensor],
    max_norm: float,
    total_norm: Tensor,
    foreach: bool | None = None,
) -> None:
    """Scale the gradients of ``parameters`` in place by ``min(1, max_norm / (total_norm +
    1e-6))``, ``total_norm`` given (e.g. by ``get_total_norm``).

    Example::

        >>> p = nn.Parameter(glassgrad.ones(2))
        >>> p.grad = glassgrad.tensor([3.0, 4.0])
        >>> nn.utils.clip_grads_with_norm_([p], 1.0, glassgrad.tensor(5.0))
        >>> p.grad
        tensor([0.6000, 0.8000])
    """
    grads = [p.grad for p in _as_list(parameters) if p.grad is not None]
    if not grads:
        return
    coefficient = (float(max_norm) / (total_norm + 1e-6)).clamp(max=1.0)
    with no_grad():
        for g in grads:
            g.mul_(coefficient)
