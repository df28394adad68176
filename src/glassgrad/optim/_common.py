"""Small pieces the algorithms share: state tensors, the step counter, scalars, checks.

Float arithmetic note: PyTorch hands Python-number hyperparameters to its kernels, which cast
them to the tensor's dtype; NumPy 2 does the same with Python floats (NEP 50), so a Python
float may be passed to a ufunc as is. Where PyTorch computes a scalar in the tensor's dtype
(``1 - weight`` inside ``lerp``), the kernels build it with ``dtype.type``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._dtype import float64, get_default_dtype
from .._tensor import Tensor
from ..autograd.inplace_record import note_write

__all__ = [
    "as_float",
    "bump_version",
    "check_options",
    "fused_multiply_add",
    "grad_array",
    "increment_step",
    "lerp_",
    "multiply_add",
    "new_step",
    "reject_unsupported",
    "signed_decayed_grad",
    "state_tensor",
]


def as_float(value: Any) -> Any:
    """A hyperparameter (Python number or one-element tensor) as a Python number."""
    return value.item() if isinstance(value, Tensor) else value


def state_tensor(param: Tensor, fill: float = 0.0) -> Tensor:
    """A new state tensor of ``param``'s shape and dtype (C-contiguous), filled with ``fill``."""
    array = np.zeros(param._data.shape, param._data.dtype)
    if fill:
        array.fill(fill)
    return Tensor._from_array(array)


def new_step(value: float = 0.0) -> Tensor:
    """A fresh ``state["step"]``: a 0-d tensor of the default float dtype, as PyTorch's."""
    dtype = np.float64 if get_default_dtype() is float64 else np.float32
    return Tensor._from_array(np.array(value, dtype))


def increment_step(state: dict[str, Any]) -> float:
    """``state["step"] += 1`` in place (created at 0 if absent); returns the new count.

    A number from an old state dict is first turned into a tensor, as PyTorch does.
    """
    step = state.get("step")
    if not isinstance(step, Tensor):
        step = state["step"] = new_step(0.0 if step is None else float(step))
    step._data += 1
    step._vc[0] += 1
    return float(step._data)


def grad_array(param: Tensor) -> np.ndarray:
    """``param.grad``'s array, checked against the parameter. It may have any strides (a
    transposed weight gradient): ``for_each_chunk`` reads it chunk by chunk where it lies."""
    array = param._grad._data
    if array.shape != param._data.shape:
        raise RuntimeError(
            f"optimizer step: gradient of shape {list(array.shape)} does not match its "
            f"parameter's shape {list(param._data.shape)}"
        )
    if array.dtype != param._data.dtype:
        raise RuntimeError(
            f"optimizer step: gradient of dtype {array.dtype} does not match its parameter's "
            f"dtype {param._data.dtype}"
        )
    return array


def fused_multiply_add(
    out: np.ndarray, a: np.ndarray, b: Any, c: np.ndarray, wide: np.ndarray
) -> np.ndarray:
    """``out = a * b + c`` rounded once, as the fused multiply-add of PyTorch's CPU kernels.

    ``wide`` is float64 scratch of ``out``'s shape. For float32 arrays the product is exact in
    float64 and only the sum is rounded (then to float32: a true FMA differs only on the
    rare double-rounding tie). A scalar ``b`` is first cast to ``out``'s dtype, as PyTorch
    casts ``alpha``. ``out`` may be any of ``a``, ``b``, ``c``.
    """
    if not isinstance(b, np.ndarray):
        b = out.dtype.type(b)
    np.multiply(a, b, out=wide, dtype=np.float64)
    np.add(wide, c, out=wide)
    np.copyto(out, wide, casting="same_kind")
    return out


def multiply_add(
    out: np.ndarray,
    a: np.ndarray,
    b: Any,
    c: np.ndarray,
    wide: np.ndarray | None,
    scratch: np.ndarray,
) -> np.ndarray:
    """``out = a * b + c``: rounded once (``fused_multiply_add``) when given ``wide`` float64
    scratch, else rounded twice through ``scratch`` (which may be ``a`` but not ``c``)."""
    if wide is not None:
        return fused_multiply_add(out, a, b, c, wide)
    np.multiply(a, b, out=scratch)
    return np.add(c, scratch, out=out)


def lerp_(
    start: np.ndarray,
    end: np.ndarray,
    weight: Any,
    scratch: np.ndarray,
    wide: np.ndarray | None = None,
) -> None:
    """``start += weight * (end - start)`` in place, as PyTorch's ``lerp_`` computes it.

    PyTorch uses ``start + w * (end - start)`` for ``|w| < 0.5`` and
    ``end - (end - start) * (1 - w)`` otherwise, with ``w`` and ``1 - w`` in the array's
    dtype (``weight`` must already be a scalar of that dtype), as one fused multiply-add:
    given ``wide`` (float64 scratch) that single rounding is reproduced, else it rounds twice.
    """
    np.subtract(end, start, out=scratch)
    small = abs(weight) < 0.5
    coefficient = weight if small else weight - type(weight)(1)
    base = start if small else end
    if wide is not None:
        fused_multiply_add(start, scratch, coefficient, base, wide)
    elif small:
        scratch *= coefficient
        start += scratch
    else:
        scratch *= coefficient
        np.add(end, scratch, out=start)


def update_moments(
    exp_avg: np.ndarray,
    exp_avg_sq: np.ndarray,
    grad: np.ndarray,
    lerp_weight: Any,
    one_minus_beta2: Any,
    beta2: float,
    scratch: np.ndarray,
) -> None:
    """Adam's moment updates in place, operation for operation as PyTorch's:
    ``exp_avg.lerp_(grad, 1 - beta1)`` and
    ``exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)``; ``scratch`` is
    overwritten."""
    lerp_(exp_avg, grad, lerp_weight, scratch)
    exp_avg_sq *= beta2
    np.multiply(grad, one_minus_beta2, out=scratch)
    scratch *= grad
    exp_avg_sq += scratch


def reject_unsupported(name: str, differentiable: bool, capturable: bool = False) -> None:
    """Refuse options that have no meaning for in-place NumPy updates on the CPU."""
    if differentiable:
        raise NotImplementedError(
            f"{name}: differentiable=True is not supported; glassgrad optimizers update the "
            "parameters' arrays in place, outside the autograd graph"
        )
    if capturable:
        raise NotImplementedError(
            f"{name}: capturable=True is for CUDA graph capture; glassgrad runs on the CPU"
        )


def bump_version(param: Tensor) -> None:
    """Count an in-place update of ``param`` (as PyTorch's ``param.add_`` does)."""
    param._vc[0] += 1
    note_write(param._vc, "an optimizer step")


def check_options(
    lr: Any = None, eps: Any = None, betas: Any = None, weight_decay: Any = None
) -> None:
    """PyTorch's checks of the common hyperparameters given, in its order and words."""
    if lr is not None and not 0.0 <= as_float(lr):
        raise ValueError(f"Invalid learning rate: {lr}")
    if eps is not None and not 0.0 <= eps:
        raise ValueError(f"Invalid epsilon value: {eps}")
    for i, beta in enumerate(betas or ()):
        if not 0.0 <= as_float(beta) < 1.0:
            raise ValueError(f"Invalid beta parameter at index {i}: {beta}")
    if weight_decay is not None and not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")


def signed_decayed_grad(
    param: np.ndarray,
    grad: np.ndarray,
    weight_decay: float,
    maximize: bool,
    work: np.ndarray,
    tmp: np.ndarray,
) -> np.ndarray:
    """``-grad`` if ``maximize``, plus ``weight_decay * param`` (PyTorch's
    ``grad.add(param, alpha=weight_decay)``), written into ``work`` when it differs from
    ``grad``; ``tmp`` is overwritten."""
    if maximize:
        grad = np.negative(grad, out=work)
    if weight_decay != 0:
        np.multiply(param, weight_decay, out=tmp)
        grad = np.add(grad, tmp, out=work)
    return grad
