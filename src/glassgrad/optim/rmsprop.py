"""``RMSprop``: divide the gradient by a running root mean square of recent gradients."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ._common import (
    as_float,
    bump_version,
    fused_multiply_add,
    grad_array,
    increment_step,
    lerp_,
    multiply_add,
    new_step,
    reject_unsupported,
    state_tensor,
)
from ._elementwise import for_each_chunk
from .optimizer import Optimizer

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    r"""RMSprop, as ``torch.optim.RMSprop``.

    With gradient :math:`g` (negated if ``maximize``)::

        g = g + weight_decay * theta                   (if weight_decay != 0)
        v = alpha * v + (1 - alpha) * g * g            (``state["square_avg"]``)
        a = lerp(a, g, 1 - alpha)                      (centered only, ``state["grad_avg"]``)
        d = sqrt(v - a * a) + eps  if centered  else  sqrt(v) + eps
        b = momentum * b + g / d;  theta -= lr * b     (if momentum > 0)
        theta -= lr * g / d                            (otherwise)

    Parameters
    ----------
    params : iterable
        Parameters, ``(name, parameter)`` pairs, or parameter-group dicts.
    lr : float
        Learning rate (default 1e-2).
    alpha : float
        Smoothing constant (default 0.99).
    eps : float
        Added to the denominator (default 1e-8).
    weight_decay, momentum : float
        L2 penalty and momentum factor (default 0).
    centered : bool
        Normalise by an estimate of the gradient's variance instead of its second moment.
    maximize : bool
        Ascend the objective instead of descending.

    Example::

        >>> w = glassgrad.tensor([1.0, -2.0], requires_grad=True)
        >>> opt = glassgrad.optim.RMSprop([w], lr=0.01)
        >>> (w * w).sum().backward()
        >>> opt.step()
        >>> w
        tensor([ 0.9000, -1.9000], requires_grad=True)
    """

    def __init__(
        self,
        params: Any,
        lr: float = 1e-2,
        alpha: float = 0.99,
        eps: float = 1e-8,
        weight_decay: float = 0,
        momentum: float = 0,
        centered: bool = False,
        capturable: bool = False,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        if not 0.0 <= as_float(lr):
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= momentum:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        reject_unsupported("RMSprop", differentiable, capturable)
        defaults = {
            "lr": lr,
            "momentum": momentum,
            "alpha": alpha,
            "eps": eps,
            "centered": centered,
            "weight_decay": weight_decay,
            "capturable": capturable,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Update every parameter that has a gradient; returns ``closure()``'s loss if given."""
        loss = self._evaluate(closure)
        for group in self.param_groups:
            momentum = group["momentum"]
            centered = group["centered"]
            alpha = group["alpha"]
            for p in group["params"]:
                if p._grad is None:
                    continue
                grad = grad_array(p)
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = new_step()
                    state["square_avg"] = state_tensor(p)
                    if momentum > 0:
                        state["momentum_buffer"] = state_tensor(p)
                    if centered:
                        state["grad_avg"] = state_tensor(p)
                increment_step(state)
                arrays = [p._data, grad, state["square_avg"]._data]
                arrays.append(state["grad_avg"]._data if centered else arrays[2])
                arrays.append(state["momentum_buffer"]._data if momentum > 0 else arrays[2])
                for_each_chunk(
                    _rmsprop_kernel,
                    arrays,
                    2,
                    as_float(group["lr"]),
                    alpha,
                    p._data.dtype.type(1 - alpha),  # lerp's weight, in the array's dtype
                    group["eps"],
                    group["weight_decay"],
                    momentum,
                    centered,
                    group["maximize"],
                    wide_scratch=1 if centered else 0,
                )
                bump_version(p)
        return loss


def _rmsprop_kernel(
    arrays: list[np.ndarray],
    scratch: list[np.ndarray],
    lr: float,
    alpha: float,
    lerp_weight: Any,
    eps: float,
    weight_decay: float,
    momentum: float,
    centered: bool,
    maximize: bool,
) -> None:
    # torch/optim/rmsprop.py _single_tensor_rmsprop, operation for operation. arrays[3] and
    # arrays[4] (grad_avg, momentum_buffer) are only read when centered / momentum > 0.
    # Centered RMSprop divides by sqrt(square_avg - grad_avg**2), which can cancel almost
    # entirely and magnify any rounding difference, so there every fused multiply-add of
    # PyTorch's kernels is reproduced with one rounding (``wide``: float64 scratch).
    param, grad, square_avg, grad_avg, momentum_buffer = arrays
    work, avg = scratch[0], scratch[1]
    wide = scratch[2] if centered else None
    if maximize:
        grad = np.negative(grad, out=work)
    if weight_decay != 0:  # grad.add(param, alpha=weight_decay)
        grad = multiply_add(work, param, weight_decay, grad, wide, avg)
    square_avg *= alpha  # square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha)
    np.multiply(grad, 1 - alpha, out=avg)
    multiply_add(square_avg, avg, grad, square_avg, wide, avg)
    if centered:
        lerp_(grad_avg, grad, lerp_weight, avg, wide)  # grad_avg.lerp_(grad, 1 - alpha)
        # avg = square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_()
        np.negative(grad_avg, out=avg)
        fused_multiply_add(avg, avg, grad_avg, square_avg, wide)
        np.sqrt(avg, out=avg)
    else:
        np.sqrt(square_avg, out=avg)
    avg += eps
    if momentum > 0:
        momentum_buffer *= momentum  # buf.mul_(momentum).addcdiv_(grad, avg)
        np.divide(grad, avg, out=avg)
        momentum_buffer += avg
        multiply_add(param, momentum_buffer, -lr, param, wide, avg)  # param.add_(buf, alpha=-lr)
    else:
        np.multiply(grad, -lr, out=work)  # param.addcdiv_(grad, avg, value=-lr)
        work /= avg
        param += work
