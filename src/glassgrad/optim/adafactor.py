"""``Adafactor``: Adam-like steps with a factored (row x column) second moment."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .._tensor import Tensor
from ._common import as_float, bump_version, grad_array, increment_step, lerp_, new_step
from .optimizer import Optimizer

__all__ = ["Adafactor"]


class Adafactor(Optimizer):
    r"""Adafactor, as ``torch.optim.Adafactor``.

    With gradient :math:`G` (negated if ``maximize``) at step :math:`t`::

        beta2_t = 1 - t ** beta2_decay;  rho = min(lr, 1 / sqrt(t))
        alpha = max(eps2, RMS(theta)) * rho;  theta *= 1 - lr * weight_decay
        matrices (and batches of them): R = lerp(R, mean(G^2, -1), 1 - beta2_t),
            C = lerp(C, mean(G^2, -2), 1 - beta2_t), V = R C / max(mean(R, -2), eps1)
        vectors and scalars: V = lerp(V, G^2, 1 - beta2_t)
        U = G / sqrt(max(V, eps1^2));  theta -= alpha * U / max(1, RMS(U) / d)

    ``eps1`` defaults to the parameter dtype's machine epsilon.

    Parameters
    ----------
    params : iterable
        Parameters, ``(name, parameter)`` pairs, or parameter-group dicts.
    lr : float
        Largest relative step size and weight-decay scale (default 1e-2).
    beta2_decay : float
        Exponent of the second moment's decay schedule, at most 0 (default -0.8).
    eps : tuple
        ``(eps1, eps2)``: floor of the variance estimate (None: machine epsilon) and of the
        parameter's RMS (default ``(None, 1e-3)``).
    d : float
        Clipping threshold of the update's RMS, at least 1 (default 1.0).
    weight_decay : float
        Decoupled weight decay (default 0).
    foreach : bool, optional
        Accepted; PyTorch's foreach path computes the same update.
    maximize : bool
        Ascend the objective instead of descending.

    Example::

        >>> w = glassgrad.tensor([[1.0, -2.0], [3.0, 0.5]], requires_grad=True)
        >>> opt = glassgrad.optim.Adafactor([w])
        >>> (w * w).sum().backward()
        >>> opt.step()
        >>> w
        tensor([[ 0.9904, -1.9707],
                [ 2.9789,  0.4946]], requires_grad=True)
    """

    def __init__(
        self,
        params: Any,
        lr: float = 1e-2,
        beta2_decay: float = -0.8,
        eps: tuple[float | None, float] = (None, 1e-3),
        d: float = 1.0,
        weight_decay: float = 0.0,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
    ) -> None:
        if not 0.0 <= as_float(lr):
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        defaults = {
            "lr": lr,
            "beta2_decay": beta2_decay,
            "eps": eps,
            "d": d,
            "weight_decay": weight_decay,
            "foreach": foreach,
            "maximize": maximize,
        }
        super().__init__(params, defaults)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Update every parameter that has a gradient; returns ``closure()``'s loss if given."""
        loss = self._evaluate(closure)
        for group in self.param_groups:
            lr = as_float(group["lr"])
            eps1, eps2 = group["eps"]
            for p in group["params"]:
                if p._grad is None:
                    continue
                if p.is_complex():
                    raise RuntimeError("Adafactor does not support complex parameters")
                grad = grad_array(p)
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = new_step()
                    if grad.ndim > 1:
                        state["row_var"] = _zeros(grad.shape[:-1] + (1,), grad.dtype)
                        state["col_var"] = _zeros(
                            grad.shape[:-2] + (1,) + grad.shape[-1:], grad.dtype
                        )
                    else:
                        state["variance"] = _zeros(grad.shape, grad.dtype)
                step = increment_step(state)
                _adafactor_update(p._data, grad, state, step, lr, group, eps1, eps2)
                bump_version(p)
        return loss


def _zeros(shape: tuple[int, ...], dtype: np.dtype) -> Tensor:
    return Tensor._from_array(np.zeros(shape, dtype))


def _norm(array: np.ndarray) -> float:
    """``array.norm(2).item()``, accumulated in double precision."""
    return float(np.sqrt(np.sum(np.square(array, dtype=np.float64))))


def _mean_square(grad: np.ndarray, axis: int) -> np.ndarray:
    """``norm(grad, dim=axis, keepdim=True).square_().div_(size)`` in ``grad``'s dtype."""
    norm = np.sqrt(np.sum(np.square(grad, dtype=np.float64), axis=axis, keepdims=True))
    norm = norm.astype(grad.dtype)
    return np.square(norm) / grad.dtype.type(grad.shape[axis])


def _adafactor_update(
    param: np.ndarray,
    grad: np.ndarray,
    state: dict[str, Any],
    step: float,
    lr: float,
    group: dict[str, Any],
    eps1: float | None,
    eps2: float,
) -> None:
    # torch/optim/_adafactor.py _single_tensor_adafactor, operation for operation.
    dtype = param.dtype.type
    if eps1 is None:
        eps1 = float(np.finfo(param.dtype).eps)
    if group["maximize"]:
        grad = np.negative(grad)
    one_minus_beta2_t = dtype(step ** group["beta2_decay"])
    rho_t = min(lr, 1 / (step**0.5))
    alpha = max(eps2, _norm(param) / (param.size**0.5)) * rho_t
    if group["weight_decay"] != 0:
        param *= 1 - lr * group["weight_decay"]
    if grad.ndim > 1:
        row_var, col_var = state["row_var"]._data, state["col_var"]._data
        row_mean = _mean_square(grad, -1)
        lerp_(row_var, row_mean, one_minus_beta2_t, np.empty_like(row_var))
        col_mean = _mean_square(grad, -2)
        lerp_(col_var, col_mean, one_minus_beta2_t, np.empty_like(col_var))
        var_estimate = np.matmul(row_var, col_var)
        var_estimate /= np.maximum(np.mean(row_var, axis=-2, keepdims=True), dtype(eps1))
    else:
        variance = state["variance"]._data
        lerp_(variance, grad * grad, one_minus_beta2_t, np.empty_like(variance))
        var_estimate = variance.copy()
    update = np.maximum(var_estimate, dtype(eps1 * eps1))  # clamp_(min=eps1 ** 2).rsqrt_()
    update = np.reciprocal(np.sqrt(update))
    update *= grad
    denom = max(1.0, _norm(update) / ((update.size**0.5) * group["d"]))
    param += update * (-alpha / denom)  # param.add_(update, alpha=-alpha / denom)
