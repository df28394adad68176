"""``Adagrad``: per-coordinate learning rates from the sum of all past squared gradients."""

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
)
from ._elementwise import for_each_chunk
from .optimizer import Optimizer

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    r"""Adagrad, as ``torch.optim.Adagrad``.

    With gradient :math:`g` (negated if ``maximize``) at step :math:`t`::

        g = g + weight_decay * theta                  (if weight_decay != 0)
        clr = lr / (1 + (t - 1) * lr_decay)
        s = s + g * g                                 (``state["sum"]``)
        theta = theta - clr * g / (sqrt(s) + eps)

    The state (``step`` and ``sum``, which starts at ``initial_accumulator_value``) is
    created for every parameter when the optimizer is built, as in PyTorch.

    Parameters
    ----------
    params : iterable
        Parameters, ``(name, parameter)`` pairs, or parameter-group dicts.
    lr : float
        Learning rate (default 1e-2).
    lr_decay : float
        Learning-rate decay per step (default 0).
    weight_decay : float
        L2 penalty (default 0).
    initial_accumulator_value : float
        Starting value of the sum of squares (default 0).
    eps : float
        Added to the denominator (default 1e-10).
    maximize : bool
        Ascend the objective instead of descending.
    foreach, fused : bool, optional
        Accepted for compatibility; glassgrad always runs one vectorised update.

    Example::

        >>> w = glassgrad.tensor([1.0, -2.0], requires_grad=True)
        >>> opt = glassgrad.optim.Adagrad([w], lr=0.5)
        >>> (w * w).sum().backward()
        >>> opt.step()
        >>> w
        tensor([ 0.5000, -1.5000], requires_grad=True)
    """

    def __init__(
        self,
        params: Any,
        lr: float = 1e-2,
        lr_decay: float = 0,
        weight_decay: float = 0,
        initial_accumulator_value: float = 0,
        eps: float = 1e-10,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        if not 0.0 <= as_float(lr):
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= lr_decay:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= initial_accumulator_value:
            raise ValueError(
                f"Invalid initial_accumulator_value value: {initial_accumulator_value}"
            )
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        reject_unsupported("Adagrad", differentiable)
        defaults = {
            "lr": lr,
            "lr_decay": lr_decay,
            "eps": eps,
            "weight_decay": weight_decay,
            "initial_accumulator_value": initial_accumulator_value,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "fused": fused,
        }
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                state["step"] = new_step()
                state["sum"] = state_tensor(p, initial_accumulator_value)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Update every parameter that has a gradient; returns ``closure()``'s loss if given."""
        loss = self._evaluate(closure)
        for group in self.param_groups:
            lr = as_float(group["lr"])
            for p in group["params"]:
                if p._grad is None:
                    continue
                grad = grad_array(p)
                state = self.state[p]
                if len(state) == 0:  # a parameter added later by add_param_group
                    state["step"] = new_step()
                    # PyTorch reads the optimizer's default here, not the group's value.
                    state["sum"] = state_tensor(p, self.defaults["initial_accumulator_value"])
                step = increment_step(state)
                clr = lr / (1 + (step - 1) * group["lr_decay"])
                for_each_chunk(
                    _adagrad_kernel,
                    [p._data, grad, state["sum"]._data],
                    2,
                    clr,
                    group["eps"],
                    group["weight_decay"],
                    group["maximize"],
                )
                bump_version(p)
        return loss


def _adagrad_kernel(
    arrays: list[np.ndarray],
    scratch: list[np.ndarray],
    clr: float,
    eps: float,
    weight_decay: float,
    maximize: bool,
) -> None:
    # torch/optim/adagrad.py _single_tensor_adagrad (dense), operation for operation.
    param, grad, state_sum = arrays
    work, std = scratch
    if maximize:
        grad = np.negative(grad, out=work)
    if weight_decay != 0:
        np.multiply(param, weight_decay, out=std)  # grad.add(param, alpha=weight_decay)
        grad = np.add(grad, std, out=work)
    np.multiply(grad, grad, out=std)  # state_sum.addcmul_(grad, grad, value=1)
    state_sum += std
    np.sqrt(state_sum, out=std)  # std = state_sum.sqrt().add_(eps)
    std += eps
    np.multiply(grad, -clr, out=work)  # param.addcdiv_(grad, std, value=-clr)
    work /= std
    param += work
