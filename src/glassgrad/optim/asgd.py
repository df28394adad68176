"""``ASGD``: stochastic gradient descent with a running (Polyak) average of the iterates."""

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

__all__ = ["ASGD"]


class ASGD(Optimizer):
    r"""Averaged SGD, as ``torch.optim.ASGD``.

    With gradient :math:`g` (negated if ``maximize``) at step :math:`t`::

        g = g + weight_decay * theta                  (if weight_decay != 0)
        theta = theta * (1 - lambd * eta) - eta * g
        ax = ax + mu * (theta - ax)                   (``state["ax"]``, the average)
        eta = lr / (1 + lambd * lr * t) ** alpha      (``state["eta"]``)
        mu = 1 / max(1, t - t0)                       (``state["mu"]``)

    ``eta`` and ``mu`` are 0-d tensors of the default dtype, as in PyTorch.

    Parameters
    ----------
    params : iterable
        Parameters, ``(name, parameter)`` pairs, or parameter-group dicts.
    lr : float
        Learning rate (default 1e-2).
    lambd : float
        Decay term (default 1e-4).
    alpha : float
        Power of the ``eta`` update (default 0.75).
    t0 : float
        Step at which averaging starts (default 1e6).
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
        >>> opt = glassgrad.optim.ASGD([w], lr=0.1)
        >>> (w * w).sum().backward()
        >>> opt.step()
        >>> w
        tensor([ 0.8000, -1.6000], requires_grad=True)
    """

    def __init__(
        self,
        params: Any,
        lr: float = 1e-2,
        lambd: float = 1e-4,
        alpha: float = 0.75,
        t0: float = 1e6,
        weight_decay: float = 0,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
        capturable: bool = False,
    ) -> None:
        check_options(lr=lr, weight_decay=weight_decay)
        reject_unsupported("ASGD", differentiable, capturable)
        defaults = {
            "lr": lr,
            "lambd": lambd,
            "alpha": alpha,
            "t0": t0,
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
            lr, lambd = as_float(group["lr"]), group["lambd"]
            for p in group["params"]:
                if p._grad is None:
                    continue
                grad = grad_array(p)
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = new_step()
                    state["eta"] = new_step(lr)
                    state["mu"] = new_step(1.0)
                    state["ax"] = state_tensor(p)
                step = increment_step(state)
                eta, mu = state["eta"], state["mu"]
                eta_value = float(eta._data)
                mu_value = p._data.dtype.type(mu._data)  # a 0-d tensor: cast to theta's dtype
                for_each_chunk(
                    _asgd_kernel,
                    [p._data, grad, state["ax"]._data],
                    2,
                    1 - lambd * eta_value,
                    -eta_value,
                    mu_value,
                    group["weight_decay"],
                    group["maximize"],
                )
                eta._data[...] = lr / ((1 + lambd * lr * step) ** group["alpha"])
                mu._data[...] = 1 / max(1, step - group["t0"])
                bump_version(p)
        return loss


def _asgd_kernel(
    arrays: list[np.ndarray],
    scratch: list[np.ndarray],
    decay: float,
    neg_eta: float,
    mu: Any,
    weight_decay: float,
    maximize: bool,
) -> None:
    # torch/optim/asgd.py _single_tensor_asgd (capturable=False), operation for operation.
    param, grad, ax = arrays
    work, tmp = scratch
    grad = signed_decayed_grad(param, grad, weight_decay, maximize, work, tmp)
    param *= decay  # param.mul_(1 - lambd * eta)
    np.multiply(grad, neg_eta, out=tmp)  # param.add_(grad, alpha=-eta)
    param += tmp
    if mu != 1:  # ax.add_(param.sub(ax).mul_(mu))
        np.subtract(param, ax, out=tmp)
        tmp *= mu
        ax += tmp
    else:
        np.copyto(ax, param)
