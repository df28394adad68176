"""``Rprop``: resilient backpropagation, per-coordinate step sizes driven by gradient signs."""

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

__all__ = ["Rprop"]


class Rprop(Optimizer):
    r"""Rprop, as ``torch.optim.Rprop``.

    With gradient :math:`g` (negated if ``maximize``) and the previous one :math:`g'`::

        s = eta_plus where g * g' > 0, eta_minus where g * g' < 0, else 1
        step_size = clamp(step_size * s, step_size_min, step_size_max)
        g = 0 where s == eta_minus                     (no move after a sign change)
        theta = theta - sign(g) * step_size;  g' = g

    ``state["step_size"]`` starts at ``lr``; ``state["prev"]`` holds :math:`g'`.

    Parameters
    ----------
    params : iterable
        Parameters, ``(name, parameter)`` pairs, or parameter-group dicts.
    lr : float
        Initial step size (default 1e-2).
    etas : tuple of float
        ``(eta_minus, eta_plus)``: step-size factors (default (0.5, 1.2)).
    step_sizes : tuple of float
        Smallest and largest step size (default (1e-6, 50)).
    capturable, differentiable : bool
        Must be False: refused otherwise.
    foreach : bool, optional
        Accepted; PyTorch's foreach path computes the same update.
    maximize : bool
        Ascend the objective instead of descending.

    Example::

        >>> w = glassgrad.tensor([1.0, -2.0], requires_grad=True)
        >>> opt = glassgrad.optim.Rprop([w], lr=0.1)
        >>> (w * w).sum().backward()
        >>> opt.step()
        >>> w
        tensor([ 0.9000, -1.9000], requires_grad=True)
    """

    def __init__(
        self,
        params: Any,
        lr: float = 1e-2,
        etas: tuple[float, float] = (0.5, 1.2),
        step_sizes: tuple[float, float] = (1e-6, 50),
        *,
        capturable: bool = False,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        if not 0.0 <= as_float(lr):
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        reject_unsupported("Rprop", differentiable, capturable)
        defaults = {
            "lr": lr,
            "etas": etas,
            "step_sizes": step_sizes,
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
            eta_minus, eta_plus = group["etas"]
            step_size_min, step_size_max = group["step_sizes"]
            for p in group["params"]:
                if p._grad is None:
                    continue
                grad = grad_array(p)
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = new_step()
                    state["prev"] = state_tensor(p)
                    state["step_size"] = state_tensor(p, as_float(group["lr"]))
                increment_step(state)
                for_each_chunk(
                    _rprop_kernel,
                    [p._data, grad, state["prev"]._data, state["step_size"]._data],
                    2,
                    eta_minus,
                    eta_plus,
                    step_size_min,
                    step_size_max,
                    group["maximize"],
                )
                bump_version(p)
        return loss


def _rprop_kernel(
    arrays: list[np.ndarray],
    scratch: list[np.ndarray],
    eta_minus: float,
    eta_plus: float,
    step_size_min: float,
    step_size_max: float,
    maximize: bool,
) -> None:
    # torch/optim/rprop.py _single_tensor_rprop, operation for operation.
    param, grad, prev, step_size = arrays
    work, sign = scratch
    if maximize:
        np.negative(grad, out=work)
    else:
        np.copyto(work, grad)  # grad = grad.clone(): it is zeroed below
    np.multiply(work, prev, out=sign)  # sign = grad.mul(prev).sign()
    np.sign(sign, out=sign)
    sign[sign > 0] = eta_plus
    sign[sign < 0] = eta_minus
    sign[sign == 0] = 1  # (the etas are positive, so only the zeros are left; NaN stays)
    step_size *= sign  # step_size.mul_(sign).clamp_(step_size_min, step_size_max)
    np.clip(step_size, step_size_min, step_size_max, out=step_size)
    work[sign == eta_minus] = 0  # grad[sign.eq(etaminus)] = 0
    np.sign(work, out=sign)  # param.addcmul_(grad.sign(), step_size, value=-1)
    sign *= step_size
    param -= sign
    np.copyto(prev, work)
