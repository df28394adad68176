"""``Adam``: adaptive moment estimation (with AMSGrad and decoupled weight decay options)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ._common import (
    as_float,
    bump_version,
    grad_array,
    increment_step,
    new_step,
    reject_unsupported,
    state_tensor,
    update_moments,
)
from ._elementwise import for_each_chunk
from .optimizer import Optimizer

__all__ = ["Adam"]


class Adam(Optimizer):
    r"""Adam, as ``torch.optim.Adam``.

    With gradient :math:`g` (negated if ``maximize``) at step :math:`t`::

        g = g + weight_decay * theta         (L2; or theta *= 1 - lr * weight_decay if decoupled)
        m = lerp(m, g, 1 - beta1)            (first moment, ``state["exp_avg"]``)
        v = beta2 * v + (1 - beta2) * g * g  (second moment, ``state["exp_avg_sq"]``)
        v_max = max(v_max, v)                (amsgrad only; the denominator uses v_max)
        theta = theta - lr / (1 - beta1^t) * m / (sqrt(v) / sqrt(1 - beta2^t) + eps)

    ``state[p]["step"]`` counts the steps (a 0-d float tensor, as in PyTorch).

    Parameters
    ----------
    params : iterable
        Parameters, ``(name, parameter)`` pairs, or parameter-group dicts.
    lr : float
        Learning rate (default 1e-3).
    betas : tuple of float
        Decay rates of the first and second moments (default (0.9, 0.999)).
    eps : float
        Added to the denominator (default 1e-8).
    weight_decay : float
        L2 penalty (default 0).
    amsgrad : bool
        Use the maximum of past second moments (AMSGrad).
    maximize : bool
        Ascend the objective instead of descending.
    decoupled_weight_decay : bool
        Decay the weights directly (AdamW) instead of adding an L2 term to the gradient.
    foreach, fused : bool, optional
        Accepted for compatibility; glassgrad always runs one vectorised update.

    Example::

        >>> w = glassgrad.tensor([1.0, -2.0], requires_grad=True)
        >>> opt = glassgrad.optim.Adam([w], lr=0.1)
        >>> (w * w).sum().backward()
        >>> opt.step()
        >>> w
        tensor([ 0.9000, -1.9000], requires_grad=True)
    """

    def __init__(
        self,
        params: Any,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        amsgrad: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
        decoupled_weight_decay: bool = False,
    ) -> None:
        if not 0.0 <= as_float(lr):
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= as_float(betas[0]) < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= as_float(betas[1]) < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        reject_unsupported(type(self).__name__, differentiable, capturable)
        defaults = {
            "lr": lr,
            "betas": tuple(betas),
            "eps": eps,
            "weight_decay": weight_decay,
            "amsgrad": amsgrad,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "differentiable": differentiable,
            "fused": fused,
            "decoupled_weight_decay": decoupled_weight_decay,
        }
        super().__init__(params, defaults)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Update every parameter that has a gradient; returns ``closure()``'s loss if given."""
        loss = self._evaluate(closure)
        for group in self.param_groups:
            beta1, beta2 = (as_float(beta) for beta in group["betas"])
            lr = as_float(group["lr"])
            weight_decay = group["weight_decay"]
            amsgrad = group["amsgrad"]
            decoupled = group["decoupled_weight_decay"]
            for p in group["params"]:
                if p._grad is None:
                    continue
                grad = grad_array(p)
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = new_step()
                    state["exp_avg"] = state_tensor(p)
                    state["exp_avg_sq"] = state_tensor(p)
                    if amsgrad:
                        state["max_exp_avg_sq"] = state_tensor(p)
                step = increment_step(state)
                # Scalars as PyTorch computes them: Python floats (double precision).
                bias_correction1 = 1 - beta1**step
                bias_correction2 = 1 - beta2**step
                step_size = lr / bias_correction1
                bias_correction2_sqrt = bias_correction2**0.5
                # PyTorch's update, theta -= step_size * m / (sqrt(v) / bc2_sqrt + eps), is
                # computed multiplied through by bc2_sqrt: one pass less over the parameter.
                arrays = [p._data, grad, state["exp_avg"]._data, state["exp_avg_sq"]._data]
                if amsgrad:
                    arrays.append(state["max_exp_avg_sq"]._data)
                for_each_chunk(
                    _adam_kernel,
                    arrays,
                    2,
                    p._data.dtype.type(1 - beta1),  # lerp's weight, in the array's dtype
                    beta2,
                    1 - beta2,
                    group["eps"] * bias_correction2_sqrt,
                    -step_size * bias_correction2_sqrt,
                    weight_decay,
                    decoupled,
                    1 - lr * weight_decay,
                    group["maximize"],
                    amsgrad,
                )
                bump_version(p)
        return loss


def _adam_kernel(
    arrays: list[np.ndarray],
    scratch: list[np.ndarray],
    lerp_weight: Any,
    beta2: float,
    one_minus_beta2: float,
    scaled_eps: float,
    neg_scaled_step: float,
    weight_decay: float,
    decoupled: bool,
    decay_factor: float,
    maximize: bool,
    amsgrad: bool,
) -> None:
    # torch/optim/adam.py _single_tensor_adam (capturable=False), operation for operation,
    # except that the last step is scaled by sqrt(1 - beta2^t) (``scaled_eps``, ``neg_scaled_
    # step``): theta += (-step_size * bc2_sqrt) * m / (sqrt(v) + eps * bc2_sqrt).
    param, grad, exp_avg, exp_avg_sq = arrays[:4]
    work, tmp = scratch
    if maximize:
        grad = np.negative(grad, out=work)
    if weight_decay != 0:
        if decoupled:
            param *= decay_factor  # param.mul_(1 - lr * weight_decay)
        else:
            np.multiply(param, weight_decay, out=tmp)  # grad.add(param, alpha=weight_decay)
            grad = np.add(grad, tmp, out=work)
    update_moments(exp_avg, exp_avg_sq, grad, lerp_weight, one_minus_beta2, beta2, tmp)
    second_moment = exp_avg_sq
    if amsgrad:
        second_moment = np.maximum(arrays[4], exp_avg_sq, out=arrays[4])
    np.sqrt(second_moment, out=tmp)  # denom (times bc2_sqrt)
    tmp += scaled_eps
    np.divide(exp_avg, tmp, out=tmp)  # param.addcdiv_(exp_avg, denom, value=-step_size)
    tmp *= neg_scaled_step
    param += tmp
