"""``AdamW``: Adam with decoupled weight decay (Loshchilov and Hutter)."""

from __future__ import annotations

from typing import Any

from .adam import Adam

__all__ = ["AdamW"]


class AdamW(Adam):
    r"""Adam with decoupled weight decay, as ``torch.optim.AdamW``.

    Each step first shrinks the weights, ``theta *= 1 - lr * weight_decay``, then applies
    the Adam update with the plain gradient (see :class:`Adam`). Default ``weight_decay``
    is 1e-2.

    Example::

        >>> w = glassgrad.tensor([1.0, -2.0], requires_grad=True)
        >>> opt = glassgrad.optim.AdamW([w], lr=0.1, weight_decay=0.5)
        >>> (w * w).sum().backward()
        >>> opt.step()
        >>> w
        tensor([ 0.8500, -1.8000], requires_grad=True)
    """

    def __init__(
        self,
        params: Any,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 1e-2,
        amsgrad: bool = False,
        *,
        maximize: bool = False,
        foreach: bool | None = None,
        capturable: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        super().__init__(
            params,
            lr,
            betas,
            eps,
            weight_decay,
            amsgrad,
            foreach=foreach,
            maximize=maximize,
            capturable=capturable,
            differentiable=differentiable,
            fused=fused,
            decoupled_weight_decay=True,
        )

    def _upgrade_groups(self) -> None:
        super()._upgrade_groups()
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True
