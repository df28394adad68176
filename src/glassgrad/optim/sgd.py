"""``SGD``: stochastic gradient descent with momentum, dampening, Nesterov and weight decay."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ._common import as_float, bump_version, grad_array, reject_unsupported, state_tensor
from ._elementwise import for_each_chunk
from .optimizer import Optimizer

__all__ = ["SGD"]


class SGD(Optimizer):
    r"""Stochastic gradient descent, optionally with momentum, as ``torch.optim.SGD``.

    For each parameter :math:`\theta` with gradient :math:`g` (negated if ``maximize``)::

        g = g + weight_decay * theta                       (if weight_decay != 0)
        b = g                          on the first step   (if momentum != 0)
        b = momentum * b + (1 - dampening) * g  afterwards
        g = g + momentum * b  if nesterov  else  b
        theta = theta - lr * g

    The momentum buffer lives in ``state[p]["momentum_buffer"]``.

    Parameters
    ----------
    params : iterable
        Parameters, ``(name, parameter)`` pairs, or parameter-group dicts.
    lr : float
        Learning rate (default 1e-3).
    momentum, dampening, weight_decay : float
        Momentum factor, dampening of the momentum, L2 penalty (default 0 each).
    nesterov : bool
        Nesterov momentum (needs ``momentum > 0`` and ``dampening == 0``).
    maximize : bool
        Ascend the objective instead of descending.
    foreach, fused : bool, optional
        Accepted for compatibility; glassgrad always runs one vectorised update.

    Example::

        >>> w = glassgrad.tensor([1.0, 2.0], requires_grad=True)
        >>> opt = glassgrad.optim.SGD([w], lr=0.1, momentum=0.9)
        >>> (w * w).sum().backward()
        >>> opt.step()
        >>> w
        tensor([0.8000, 1.6000], requires_grad=True)
    """

    def __init__(
        self,
        params: Any,
        lr: float = 1e-3,
        momentum: float = 0,
        dampening: float = 0,
        weight_decay: float = 0,
        nesterov: bool = False,
        *,
        maximize: bool = False,
        foreach: bool | None = None,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        if as_float(lr) < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        reject_unsupported("SGD", differentiable)
        defaults = {
            "lr": lr,
            "momentum": momentum,
            "dampening": dampening,
            "weight_decay": weight_decay,
            "nesterov": nesterov,
            "maximize": maximize,
            "foreach": foreach,
            "differentiable": differentiable,
            "fused": fused,
        }
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Update every parameter that has a gradient; returns ``closure()``'s loss if given."""
        loss = self._evaluate(closure)
        for group in self.param_groups:
            lr = as_float(group["lr"])
            momentum = group["momentum"]
            weight_decay = as_float(group["weight_decay"])
            for p in group["params"]:
                if p._grad is None:
                    continue
                arrays = [p._data, grad_array(p)]
                first_step = False
                if momentum != 0:
                    state = self.state[p]
                    buffer = state.get("momentum_buffer")
                    if buffer is None:
                        # Filled by the kernel with this step's (decayed, signed) gradient.
                        buffer = state["momentum_buffer"] = state_tensor(p)
                        first_step = True
                    arrays.append(buffer._data)
                for_each_chunk(
                    _sgd_kernel,
                    arrays,
                    2,
                    lr,
                    weight_decay,
                    momentum,
                    group["dampening"],
                    group["nesterov"],
                    group["maximize"],
                    first_step,
                )
                bump_version(p)
        return loss


def _sgd_kernel(
    arrays: list[np.ndarray],
    scratch: list[np.ndarray],
    lr: float,
    weight_decay: float,
    momentum: float,
    dampening: float,
    nesterov: bool,
    maximize: bool,
    first_step: bool,
) -> None:
    # torch/optim/sgd.py _single_tensor_sgd, operation for operation.
    param, grad = arrays[0], arrays[1]
    work, tmp = scratch
    if maximize:
        grad = np.negative(grad, out=work)
    if weight_decay != 0:
        np.multiply(param, weight_decay, out=tmp)  # grad.add(param, alpha=weight_decay)
        grad = np.add(grad, tmp, out=work)
    if momentum != 0:
        buffer = arrays[2]
        if first_step:
            np.copyto(buffer, grad)  # buf = grad.clone()
        else:
            buffer *= momentum  # buf.mul_(momentum).add_(grad, alpha=1 - dampening)
            if dampening == 0:
                buffer += grad
            else:
                np.multiply(grad, 1 - dampening, out=tmp)
                buffer += tmp
        if nesterov:
            np.multiply(buffer, momentum, out=tmp)  # grad.add(buf, alpha=momentum)
            grad = np.add(grad, tmp, out=work)
        else:
            grad = buffer
    np.multiply(grad, -lr, out=tmp)  # param.add_(grad, alpha=-lr)
    param += tmp
