"""``Adamax``: Adam with the infinity norm of past gradients in the denominator."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ._common import (
    as_float,
    bump_version,
    check_options,
    grad_array,
    increment_step,
    lerp_,
    new_step,
    reject_unsupported,
    signed_decayed_grad,
    state_tensor,
)
from ._elementwise import for_each_chunk
from .optimizer import Optimizer

__all__ = ["Adamax"]


class Adamax(Optimizer):
    r"""Adamax, as ``torch.optim.Adamax``.

    With gradient :math:`g` (negated if ``maximize``) at step :math:`t`::

        g = g + weight_decay * theta                  (if weight_decay != 0)
        m = lerp(m, g, 1 - beta1)                     (``state["exp_avg"]``)
        u = max(beta2 * u, |g| + eps)                 (``state["exp_inf"]``)
        theta = theta - lr / (1 - beta1^t) * m / u

    Parameters
    ----------
    params : iterable
        Parameters, ``(name, parameter)`` pairs, or parameter-group dicts.
    lr : float
        Learning rate (default 2e-3).
    betas : tuple of float
        Decay of the first moment and of the infinity norm (default (0.9, 0.999)).
    eps : float
        Added to ``|g|`` (default 1e-8).
    weight_decay : float
        L2 penalty (default 0).
    foreach : bool, optional
        Accepted; PyTorch's foreach path computes the same update.
    maximize : bool
        Ascend the objective instead of descending.
    differentiable, capturable : bool
        Must be False: refused otherwise.

    Example::

        >>> w = glassgrad.tensor([1.0, -2.0], requires_grad=True)
        >>> opt = glassgrad.optim.Adamax([w], lr=0.1)
        >>> (w * w).sum().backward()
        >>> opt.step()
        >>> w
        tensor([ 0.9000, -1.9000], requires_grad=True)
    """

    def __init__(
        self,
        params: Any,
        lr: float = 2e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
        differentiable: bool = False,
        capturable: bool = False,
    ) -> None:
        check_options(lr, eps, betas, weight_decay)
        reject_unsupported("Adamax", differentiable, capturable)
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "capturable": capturable,
        }
        super().__init__(params, defaults)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Update every parameter that has a gradient; returns ``closure()``'s loss if given."""
        loss = self._evaluate(closure)
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            for p in group["params"]:
                if p._grad is None:
                    continue
                grad = grad_array(p)
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = new_step()
                    state["exp_avg"] = state_tensor(p)
                    state["exp_inf"] = state_tensor(p)
                step = increment_step(state)
                for_each_chunk(
                    _adamax_kernel,
                    [p._data, grad, state["exp_avg"]._data, state["exp_inf"]._data],
                    2,
                    p._data.dtype.type(1 - beta1),  # lerp's weight, in the array's dtype
                    beta2,
                    group["eps"],
                    as_float(group["lr"]) / (1 - beta1**step),
                    group["weight_decay"],
                    group["maximize"],
                )
                bump_version(p)
        return loss


def _adamax_kernel(
    arrays: list[np.ndarray],
    scratch: list[np.ndarray],
    lerp_weight: Any,
    beta2: float,
    eps: float,
    clr: float,
    weight_decay: float,
    maximize: bool,
) -> None:
    # torch/optim/adamax.py _single_tensor_adamax (capturable=False), operation for operation.
    param, grad, exp_avg, exp_inf = arrays
    work, tmp = scratch
    grad = signed_decayed_grad(param, grad, weight_decay, maximize, work, tmp)
    lerp_(exp_avg, grad, lerp_weight, tmp)  # exp_avg.lerp_(grad, 1 - beta1)
    exp_inf *= beta2  # torch.maximum(exp_inf.mul_(beta2), grad.abs().add_(eps))
    np.abs(grad, out=tmp)
    tmp += eps
    np.maximum(exp_inf, tmp, out=exp_inf)
    np.divide(exp_avg, exp_inf, out=tmp)  # param.addcdiv_(exp_avg, exp_inf, value=-clr)
    tmp *= -clr
    param += tmp
