"""``Muon``: momentum SGD whose update is orthogonalised by a Newton-Schulz iteration."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from .._tensor import Tensor
from ._common import as_float, bump_version, grad_array, lerp_, state_tensor
from .optimizer import Optimizer

__all__ = ["Muon"]

EPS = 1e-7
DEFAULT_A = 3.4445
DEFAULT_B = -4.7750
DEFAULT_C = 2.0315
DEFAULT_NS_STEPS = 5


class Muon(Optimizer):
    r"""Muon, as ``torch.optim.Muon`` (2-d parameters only).

    With gradient :math:`g` and momentum buffer :math:`B`::

        B = lerp(B, g, 1 - momentum)
        U = lerp(g, B, momentum) if nesterov else B
        O = NS_k(U)            (k Newton-Schulz steps towards the orthogonal factor of U)
        theta = theta * (1 - lr * weight_decay) - adjusted_lr * O

    PyTorch runs the Newton-Schulz iteration in bfloat16. NumPy has no bfloat16, so glassgrad
    computes each of its products in float32 and rounds the result to bfloat16 (nearest,
    ties to even), as PyTorch's CPU kernels round their float32 accumulators: the update
    agrees with PyTorch's to bfloat16 precision.

    Parameters
    ----------
    params : iterable
        2-d parameters, ``(name, parameter)`` pairs, or parameter-group dicts.
    lr : float
        Learning rate (default 1e-3).
    weight_decay : float
        Decoupled weight decay (default 0.1).
    momentum : float
        Momentum factor (default 0.95).
    nesterov : bool
        Use Nesterov momentum (default True).
    ns_coefficients : tuple of float
        Coefficients ``(a, b, c)`` of the quintic iteration.
    eps : float
        Floor of the norm the update is first divided by (default 1e-7).
    ns_steps : int
        Newton-Schulz steps (default 5; fewer than 100).
    adjust_lr_fn : str, optional
        ``"original"`` (default): ``lr * sqrt(max(1, rows / cols))``; ``"match_rms_adamw"``:
        ``0.2 * lr * sqrt(max(rows, cols))``.

    Example::

        >>> w = glassgrad.tensor([[1.0, -2.0], [3.0, 0.5]], requires_grad=True)
        >>> opt = glassgrad.optim.Muon([w], lr=0.1)
        >>> (w * w).sum().backward()
        >>> opt.step()
        >>> w.shape
        glassgrad.Size([2, 2])
    """

    def __init__(
        self,
        params: Any,
        lr: float = 1e-3,
        weight_decay: float = 0.1,
        momentum: float = 0.95,
        nesterov: bool = True,
        ns_coefficients: tuple[float, float, float] = (DEFAULT_A, DEFAULT_B, DEFAULT_C),
        eps: float = EPS,
        ns_steps: int = DEFAULT_NS_STEPS,
        adjust_lr_fn: str | None = None,
    ) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= as_float(lr):
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 <= momentum:
            raise ValueError(f"momentum should be >= 0 but is: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight decay should be >= 0 but is: {weight_decay}")
        if adjust_lr_fn is not None and adjust_lr_fn not in ["original", "match_rms_adamw"]:
            raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")
        defaults = {
            "lr": lr,
            "weight_decay": weight_decay,
            "momentum": momentum,
            "nesterov": nesterov,
            "ns_coefficients": ns_coefficients,
            "eps": eps,
            "ns_steps": ns_steps,
            "adjust_lr_fn": adjust_lr_fn,
        }
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                if p.ndim != 2:
                    raise ValueError(
                        "Muon only supports 2D parameters whereas we found a parameter with "
                        f"size: {p.size()}"
                    )

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Update every parameter that has a gradient; returns ``closure()``'s loss if given."""
        loss = self._evaluate(closure)
        for group in self.param_groups:
            lr = as_float(group["lr"])
            momentum = group["momentum"]
            for p in group["params"]:
                if p._grad is None:
                    continue
                if p.is_complex():
                    raise RuntimeError("Muon does not support complex parameters")
                grad = grad_array(p)
                state = self.state[p]
                if "momentum_buffer" not in state:
                    state["momentum_buffer"] = state_tensor(p)
                buf = state["momentum_buffer"]._data
                dtype = p._data.dtype.type
                lerp_(buf, grad, dtype(1 - momentum), np.empty_like(buf))
                if group["nesterov"]:
                    update = np.array(grad, copy=True)  # grad.lerp(buf, momentum)
                    lerp_(update, buf, dtype(momentum), np.empty_like(buf))
                else:
                    update = buf
                ortho = _zeropower_via_newtonschulz(
                    update, group["ns_coefficients"], group["ns_steps"], group["eps"]
                )
                adjusted_lr = _adjust_lr(lr, group["adjust_lr_fn"], p._data.shape)
                p._data *= 1 - lr * group["weight_decay"]
                p._data += ortho * -adjusted_lr  # param.add_(update, alpha=-adjusted_lr)
                bump_version(p)
        return loss


def _bfloat16(array: np.ndarray) -> np.ndarray:
    """``array`` rounded to bfloat16 (nearest, ties to even), stored as float32."""
    bits = np.asarray(array, np.float32).view(np.uint32)
    rounded = (bits + (0x7FFF + ((bits >> 16) & 1))) & np.uint32(0xFFFF0000)
    rounded = np.where(np.isnan(array), bits, rounded)
    return rounded.view(np.float32)


def _zeropower_via_newtonschulz(
    grad: np.ndarray, ns_coefficients: tuple[float, float, float], ns_steps: int, eps: float
) -> np.ndarray:
    # torch/optim/_muon.py _zeropower_via_newtonschulz, each bfloat16 result rounded here.
    if ns_steps >= 100:
        raise ValueError("Number of steps must be less than 100 for computational efficiency")
    if grad.ndim != 2:
        raise ValueError("Input tensor gradient must be a 2D matrix")
    if len(ns_coefficients) != 3:
        raise ValueError("Coefficients must be a tuple of exactly 3 values")
    a, b, c = (np.float32(x) for x in ns_coefficients)
    ortho = _bfloat16(grad)
    tall = grad.shape[0] > grad.shape[1]
    if tall:
        ortho = ortho.T
    norm = _bfloat16(np.sqrt(np.sum(np.square(ortho, dtype=np.float64))))
    ortho = _bfloat16(ortho / max(norm, _bfloat16(np.float32(eps))))
    for _ in range(ns_steps):
        gram = _bfloat16(ortho @ ortho.T)
        gram_update = _bfloat16(b * gram + c * (gram @ gram))
        ortho = _bfloat16(a * ortho + gram_update @ ortho)
    return ortho.T if tall else ortho


def _adjust_lr(lr: float, adjust_lr_fn: str | None, shape: tuple[int, ...]) -> float:
    rows, cols = shape[:2]
    if adjust_lr_fn is None or adjust_lr_fn == "original":
        ratio = math.sqrt(max(1, rows / cols))
    elif adjust_lr_fn == "match_rms_adamw":
        ratio = 0.2 * math.sqrt(max(rows, cols))
    else:
        ratio = 1.0
    return lr * ratio
