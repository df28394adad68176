"""``NAdam``: Adam with Nesterov momentum and a momentum schedule."""

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

__all__ = ["NAdam"]


class NAdam(Optimizer):
    r"""NAdam, as ``torch.optim.NAdam``.

    With gradient :math:`g` (negated if ``maximize``) at step :math:`t`::

        g = g + weight_decay * theta       (L2; or theta *= 1 - lr * weight_decay if decoupled)
        mu_t = beta1 * (1 - 0.5 * 0.96 ** (t * momentum_decay))
        P = P * mu_t                       (``state["mu_product"]``, a 0-d tensor)
        m = lerp(m, g, 1 - beta1);  v = beta2 * v + (1 - beta2) * g * g
        d = sqrt(v / (1 - beta2^t)) + eps
        theta = theta - lr * (1 - mu_t) / (1 - P) * g / d
                      - lr * mu_{t+1} / (1 - P * mu_{t+1}) * m / d

    Parameters
    ----------
    params : iterable
        Parameters, ``(name, parameter)`` pairs, or parameter-group dicts.
    lr : float
        Learning rate (default 2e-3).
    betas : tuple of float
        Decay rates of the moments (default (0.9, 0.999)).
    eps : float
        Added to the denominator (default 1e-8).
    weight_decay : float
        Weight decay (default 0).
    momentum_decay : float
        Speed of the momentum schedule (default 4e-3).
    decoupled_weight_decay : bool
        Decay the weights directly (NAdamW) instead of adding an L2 term to the gradient.
    foreach : bool, optional
        Accepted; PyTorch's foreach path computes the same update.
    maximize : bool
        Ascend the objective instead of descending.
    capturable, differentiable : bool
        Must be False: refused otherwise.

    Example::

        >>> w = glassgrad.tensor([1.0, -2.0], requires_grad=True)
        >>> opt = glassgrad.optim.NAdam([w], lr=0.1)
        >>> (w * w).sum().backward()
        >>> opt.step()
        >>> w.detach().tolist()
        [0.8943548202514648, -1.8943548202514648]
    """

    def __init__(
        self,
        params: Any,
        lr: float = 2e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        momentum_decay: float = 4e-3,
        decoupled_weight_decay: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
    ) -> None:
        check_options(lr, eps, betas, weight_decay)
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        reject_unsupported("NAdam", differentiable, capturable)
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "momentum_decay": momentum_decay,
            "decoupled_weight_decay": decoupled_weight_decay,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Update every parameter that has a gradient; returns ``closure()``'s loss if given."""
        loss = self._evaluate(closure)
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            lr = as_float(group["lr"])
            momentum_decay = group["momentum_decay"]
            for p in group["params"]:
                if p._grad is None:
                    continue
                grad = grad_array(p)
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = new_step()
                    state["mu_product"] = new_step(1.0)
                    state["exp_avg"] = state_tensor(p)
                    state["exp_avg_sq"] = state_tensor(p)
                step = increment_step(state)
                mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
                mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
                mu_product = state["mu_product"]
                mu_product._data *= mu  # in the 0-d tensor's dtype, as PyTorch's ``*=``
                mu_product._vc[0] += 1
                product = float(mu_product._data)
                for_each_chunk(
                    _nadam_kernel,
                    [p._data, grad, state["exp_avg"]._data, state["exp_avg_sq"]._data],
                    2,
                    p._data.dtype.type(1 - beta1),  # lerp's weight, in the array's dtype
                    beta2,
                    1 - beta2**step,
                    group["eps"],
                    -lr * (1.0 - mu) / (1.0 - product),
                    (-lr * mu_next) / (1.0 - product * mu_next),
                    group["weight_decay"],
                    group["decoupled_weight_decay"],
                    1 - lr * group["weight_decay"],
                    group["maximize"],
                )
                bump_version(p)
        return loss


def _nadam_kernel(
    arrays: list[np.ndarray],
    scratch: list[np.ndarray],
    lerp_weight: Any,
    beta2: float,
    bias_correction2: float,
    eps: float,
    grad_scale: float,
    exp_avg_scale: float,
    weight_decay: float,
    decoupled: bool,
    decay_factor: float,
    maximize: bool,
) -> None:
    # torch/optim/nadam.py _single_tensor_nadam (capturable=False), operation for operation.
    param, grad, exp_avg, exp_avg_sq = arrays
    work, denom = scratch
    if weight_decay != 0 and decoupled:
        param *= decay_factor  # param.mul_(1 - lr * weight_decay)
    l2 = weight_decay if not decoupled else 0
    grad = signed_decayed_grad(param, grad, l2, maximize, work, denom)
    update_moments(exp_avg, exp_avg_sq, grad, lerp_weight, 1 - beta2, beta2, denom)
    np.divide(exp_avg_sq, bias_correction2, out=denom)  # denom = (v / bc2).sqrt().add_(eps)
    np.sqrt(denom, out=denom)
    denom += eps
    param += grad / denom * grad_scale  # param.addcdiv_(grad, denom, value=...)
    param += exp_avg / denom * exp_avg_scale  # param.addcdiv_(exp_avg, denom, value=...)
