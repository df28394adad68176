"""``RAdam``: Adam whose adaptive step is switched on once its variance is tractable."""

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
    new_step,
    reject_unsupported,
    signed_decayed_grad,
    state_tensor,
    update_moments,
)
from ._elementwise import for_each_chunk
from .optimizer import Optimizer

__all__ = ["RAdam"]


class RAdam(Optimizer):
    r"""Rectified Adam, as ``torch.optim.RAdam``.

    With gradient :math:`g` (negated if ``maximize``) at step :math:`t`::

        g = g + weight_decay * theta       (L2; or theta *= 1 - lr * weight_decay if decoupled)
        m = lerp(m, g, 1 - beta1);  v = beta2 * v + (1 - beta2) * g * g
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 t beta2^t / (1 - beta2^t)
        r = sqrt((rho_t - 4)(rho_t - 2) rho_inf / ((rho_inf - 4)(rho_inf - 2) rho_t))
        theta -= lr * m / (1 - beta1^t) * sqrt(1 - beta2^t) / (sqrt(v) + eps) * r  if rho_t > 5
        theta -= lr * m / (1 - beta1^t)                                            otherwise

    Parameters
    ----------
    params : iterable
        Parameters, ``(name, parameter)`` pairs, or parameter-group dicts.
    lr : float
        Learning rate (default 1e-3).
    betas : tuple of float
        Decay rates of the moments (default (0.9, 0.999)).
    eps : float
        Added to the denominator (default 1e-8).
    weight_decay : float
        Weight decay (default 0).
    decoupled_weight_decay : bool
        Decay the weights directly (RAdamW) instead of adding an L2 term to the gradient.
    foreach : bool, optional
        Accepted; PyTorch's foreach path computes the same update.
    maximize : bool
        Ascend the objective instead of descending.
    capturable, differentiable : bool
        Must be False: refused otherwise.

    Example::

        >>> w = glassgrad.tensor([1.0, -2.0], requires_grad=True)
        >>> opt = glassgrad.optim.RAdam([w], lr=0.1)
        >>> (w * w).sum().backward()
        >>> opt.step()
        >>> w
        tensor([ 0.8000, -1.6000], requires_grad=True)
    """

    def __init__(
        self,
        params: Any,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        decoupled_weight_decay: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
    ) -> None:
        check_options(lr, eps, betas, weight_decay)
        reject_unsupported("RAdam", differentiable, capturable)
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "decoupled_weight_decay": decoupled_weight_decay,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Update every parameter that has a gradient; returns ``closure()``'s loss if given."""
        loss = self._evaluate(closure)
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            lr = as_float(group["lr"])
            for p in group["params"]:
                if p._grad is None:
                    continue
                grad = grad_array(p)
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = new_step()
                    state["exp_avg"] = state_tensor(p)
                    state["exp_avg_sq"] = state_tensor(p)
                step = increment_step(state)
                bias_correction1 = 1 - beta1**step
                bias_correction2 = 1 - beta2**step
                rho_inf = 2 / (1 - beta2) - 1
                rho_t = rho_inf - 2 * step * (beta2**step) / bias_correction2
                rect = None
                if rho_t > 5.0:
                    rect = (
                        (rho_t - 4)
                        * (rho_t - 2)
                        * rho_inf
                        / ((rho_inf - 4) * (rho_inf - 2) * rho_t)
                    ) ** 0.5
                for_each_chunk(
                    _radam_kernel,
                    [p._data, grad, state["exp_avg"]._data, state["exp_avg_sq"]._data],
                    2,
                    p._data.dtype.type(1 - beta1),  # lerp's weight, in the array's dtype
                    beta2,
                    bias_correction1,
                    bias_correction2**0.5,
                    lr,
                    rect,
                    group["eps"],
                    group["weight_decay"],
                    group["decoupled_weight_decay"],
                    1 - lr * group["weight_decay"],
                    group["maximize"],
                )
                bump_version(p)
        return loss


def _radam_kernel(
    arrays: list[np.ndarray],
    scratch: list[np.ndarray],
    lerp_weight: Any,
    beta2: float,
    bias_correction1: float,
    bias_correction2_sqrt: float,
    lr: float,
    rect: float | None,
    eps: float,
    weight_decay: float,
    decoupled: bool,
    decay_factor: float,
    maximize: bool,
) -> None:
    # torch/optim/radam.py _single_tensor_radam (capturable=False), operation for operation.
    param, grad, exp_avg, exp_avg_sq = arrays
    work, update = scratch
    if weight_decay != 0 and decoupled:
        param *= decay_factor  # param.mul_(1 - lr * weight_decay)
    l2 = weight_decay if not decoupled else 0
    grad = signed_decayed_grad(param, grad, l2, maximize, work, update)
    update_moments(exp_avg, exp_avg_sq, grad, lerp_weight, 1 - beta2, beta2, update)
    np.divide(exp_avg, bias_correction1, out=update)  # bias_corrected_exp_avg
    update *= lr
    if rect is not None:
        # adaptive_lr = bc2_sqrt / (sqrt(v) + eps), which Tensor.__rtruediv__ computes as
        # reciprocal(sqrt(v) + eps) * bc2_sqrt
        adaptive = np.sqrt(exp_avg_sq)
        adaptive += eps
        np.reciprocal(adaptive, out=adaptive)
        adaptive *= bias_correction2_sqrt
        update *= adaptive
        update *= rect
    param -= update  # param.add_(update, alpha=-1.0)
