"""``Adadelta``: step sizes from running averages of squared gradients and squared updates."""

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
)
from ._elementwise import for_each_chunk
from .optimizer import Optimizer

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    r"""Adadelta, as ``torch.optim.Adadelta``.

    With gradient :math:`g` (negated if ``maximize``)::

        g = g + weight_decay * theta                  (if weight_decay != 0)
        v = rho * v + (1 - rho) * g * g               (``state["square_avg"]``)
        delta = sqrt(u + eps) / sqrt(v + eps) * g
        u = rho * u + (1 - rho) * delta * delta       (``state["acc_delta"]``)
        theta = theta - lr * delta

    Parameters
    ----------
    params : iterable
        Parameters, ``(name, parameter)`` pairs, or parameter-group dicts.
    lr : float
        Scale of the update (default 1.0).
    rho : float
        Decay of the running averages (default 0.9).
    eps : float
        Added inside both square roots (default 1e-6).
    weight_decay : float
        L2 penalty (default 0).
    foreach : bool, optional
        Accepted; PyTorch's foreach path computes the same update.
    capturable, differentiable : bool
        Must be False (CUDA graphs; updates recorded in the graph): refused otherwise.
    maximize : bool
        Ascend the objective instead of descending.

    Example::

        >>> w = glassgrad.tensor([1.0, -2.0], requires_grad=True)
        >>> opt = glassgrad.optim.Adadelta([w])
        >>> (w * w).sum().backward()
        >>> opt.step()
        >>> w.detach().tolist()
        [0.9968377351760864, -1.9968377351760864]
    """

    def __init__(
        self,
        params: Any,
        lr: float = 1.0,
        rho: float = 0.9,
        eps: float = 1e-6,
        weight_decay: float = 0,
        foreach: bool | None = None,
        *,
        capturable: bool = False,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        check_options(lr=lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        check_options(eps=eps, weight_decay=weight_decay)
        reject_unsupported("Adadelta", differentiable, capturable)
        defaults = {
            "lr": lr,
            "rho": rho,
            "eps": eps,
            "weight_decay": weight_decay,
            "maximize": maximize,
            "capturable": capturable,
            "foreach": foreach,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Update every parameter that has a gradient; returns ``closure()``'s loss if given."""
        loss = self._evaluate(closure)
        for group in self.param_groups:
            for p in group["params"]:
                if p._grad is None:
                    continue
                grad = grad_array(p)
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = new_step()
                    state["square_avg"] = state_tensor(p)
                    state["acc_delta"] = state_tensor(p)
                increment_step(state)
                for_each_chunk(
                    _adadelta_kernel,
                    [p._data, grad, state["square_avg"]._data, state["acc_delta"]._data],
                    2,
                    as_float(group["lr"]),
                    group["rho"],
                    group["eps"],
                    group["weight_decay"],
                    group["maximize"],
                )
                bump_version(p)
        return loss


def _adadelta_kernel(
    arrays: list[np.ndarray],
    scratch: list[np.ndarray],
    lr: float,
    rho: float,
    eps: float,
    weight_decay: float,
    maximize: bool,
) -> None:
    # torch/optim/adadelta.py _single_tensor_adadelta, operation for operation.
    param, grad, square_avg, acc_delta = arrays
    work, delta = scratch
    grad = signed_decayed_grad(param, grad, weight_decay, maximize, work, delta)
    square_avg *= rho  # square_avg.mul_(rho).addcmul_(grad, grad, value=1 - rho)
    np.multiply(grad, 1 - rho, out=delta)
    delta *= grad
    square_avg += delta
    np.add(acc_delta, eps, out=delta)  # delta = acc_delta.add(eps).sqrt_()
    np.sqrt(delta, out=delta)
    delta /= np.sqrt(square_avg + eps)  # delta.div_(std).mul_(grad)
    delta *= grad
    acc_delta *= rho  # acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho)
    acc_delta += (delta * (1 - rho)) * delta
    delta *= -lr  # param.add_(delta, alpha=-lr)
    param += delta
