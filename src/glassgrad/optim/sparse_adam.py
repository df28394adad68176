"""``SparseAdam``: Adam for sparse gradients, which glassgrad does not produce.

PyTorch's ``SparseAdam.step`` refuses dense gradients. glassgrad has no sparse layout, so
every gradient is dense: the optimizer can be built (and saved, loaded, scheduled), and its
step raises PyTorch's own error, which points to ``Adam``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ._common import as_float
from .optimizer import Optimizer

__all__ = ["SparseAdam"]


class SparseAdam(Optimizer):
    r"""SparseAdam, as ``torch.optim.SparseAdam``: its step needs sparse gradients.

    glassgrad's gradients are always dense (there is no ``Embedding(sparse=True)``), so
    :meth:`step` raises ``RuntimeError`` for any parameter that has a gradient, exactly as
    PyTorch does for a dense gradient. Use :class:`Adam` instead.

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
    maximize : bool
        Ascend the objective instead of descending.

    Example::

        >>> w = glassgrad.tensor([1.0, -2.0], requires_grad=True)
        >>> opt = glassgrad.optim.SparseAdam([w])
        >>> (w * w).sum().backward()
        >>> opt.step()
        Traceback (most recent call last):
        ...
        RuntimeError: SparseAdam does not support dense gradients, please consider Adam instead
    """

    def __init__(
        self,
        params: Any,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        maximize: bool = False,
    ) -> None:
        if not 0.0 < as_float(lr):
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        defaults = {"lr": lr, "betas": betas, "eps": eps, "maximize": maximize}
        super().__init__(params, defaults)
        complex_params = [
            [index, d_index]
            for index, group in enumerate(self.param_groups)
            for d_index, param in enumerate(group["params"])
            if param.is_complex()
        ]
        if complex_params:
            raise ValueError(
                f"Complex params at indices {complex_params}: SparseAdam does not support "
                "complex parameters"
            )

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Raise for any parameter with a gradient (all glassgrad gradients are dense)."""
        loss = self._evaluate(closure)
        for group in self.param_groups:
            for p in group["params"]:
                if p._grad is not None:
                    raise RuntimeError(
                        "SparseAdam does not support dense gradients, please consider Adam instead"
                    )
        return loss
