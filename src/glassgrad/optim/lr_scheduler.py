"""Learning-rate schedulers, as ``torch.optim.lr_scheduler``.

A scheduler wraps an optimizer and rewrites ``group["lr"]`` of each parameter group every
time its ``step()`` is called (once per epoch, or once per batch for ``OneCycleLR``), after
``optimizer.step()``::

    for epoch in range(epochs):
        train_one_epoch(model, optimizer)      # calls optimizer.step()
        scheduler.step()

Each scheduler computes the new rate with PyTorch's formula, including its choice between
a *recursive* form (the new rate from the current ``group["lr"]``, used by ``step()``) and a
*closed* form (from the initial rate and the epoch number, used by the deprecated
``step(epoch)``), so the float sequence of rates is PyTorch's, digit for digit.

``state_dict()`` is the scheduler's attributes minus the optimizer (PyTorch's layout);
``load_state_dict`` restores them.

Example::

    >>> opt = glassgrad.optim.SGD([glassgrad.zeros(2, requires_grad=True)], lr=0.1)
    >>> scheduler = glassgrad.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    >>> rates = []
    >>> for _ in range(5):
    ...     opt.step()
    ...     scheduler.step()
    ...     rates.append(scheduler.get_last_lr()[0])
    >>> rates
    [0.1, 0.05, 0.05, 0.025, 0.025]
"""

from __future__ import annotations

import math
import types
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

from ._lr_base import LRScheduler, ReduceLROnPlateau, _current_lrs
from ._lr_composite import ChainedScheduler, SequentialLR
from ._lr_cyclic import CosineAnnealingWarmRestarts, CyclicLR, OneCycleLR
from .optimizer import Optimizer

__all__ = [
    "LRScheduler",
    "LambdaLR",
    "MultiplicativeLR",
    "StepLR",
    "MultiStepLR",
    "ConstantLR",
    "LinearLR",
    "ExponentialLR",
    "PolynomialLR",
    "CosineAnnealingLR",
    "OneCycleLR",
    "ReduceLROnPlateau",
    "SequentialLR",
    "ChainedScheduler",
    "CyclicLR",
    "CosineAnnealingWarmRestarts",
]


class LambdaLR(LRScheduler):
    """``lr = initial_lr * lr_lambda(epoch)``, one function or one per group.

    Example::

        >>> scheduler = LambdaLR(opt, lr_lambda=lambda epoch: 0.95**epoch)
    """

    lr_lambdas: list[Callable[[int], float]]

    def __init__(
        self,
        optimizer: Optimizer,
        lr_lambda: Callable[[int], float] | list[Callable[[int], float]],
        last_epoch: int = -1,
    ) -> None:
        self.optimizer = optimizer
        if not isinstance(lr_lambda, (list, tuple)):
            self.lr_lambdas = [lr_lambda] * len(optimizer.param_groups)
        else:
            if len(lr_lambda) != len(optimizer.param_groups):
                raise ValueError(
                    f"Expected {len(optimizer.param_groups)} lr_lambdas, but got {len(lr_lambda)}"
                )
            self.lr_lambdas = list(lr_lambda)
        super().__init__(optimizer, last_epoch)

    def state_dict(self) -> dict[str, Any]:
        """As the base class; the functions are not saved, only the attributes of callable
        objects (plain functions and lambdas are stored as ``None``)."""
        return _state_dict_with_lambdas(self)

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        _load_state_dict_with_lambdas(self, state_dict)

    def get_lr(self) -> list[Any]:
        self._warn_get_lr_outside_step()
        return [
            base_lr * lmbda(self.last_epoch)
            for lmbda, base_lr in zip(self.lr_lambdas, self.base_lrs)
        ]


class MultiplicativeLR(LRScheduler):
    """``lr = lr * lr_lambda(epoch)`` at every step after the first.

    Example::

        >>> scheduler = MultiplicativeLR(opt, lr_lambda=lambda epoch: 0.95)
    """

    lr_lambdas: list[Callable[[int], float]]

    def __init__(
        self,
        optimizer: Optimizer,
        lr_lambda: Callable[[int], float] | list[Callable[[int], float]],
        last_epoch: int = -1,
    ) -> None:
        self.optimizer = optimizer
        if not isinstance(lr_lambda, (list, tuple)):
            self.lr_lambdas = [lr_lambda] * len(optimizer.param_groups)
        else:
            if len(lr_lambda) != len(optimizer.param_groups):
                raise ValueError(
                    f"Expected {len(optimizer.param_groups)} lr_lambdas, but got {len(lr_lambda)}"
                )
            self.lr_lambdas = list(lr_lambda)
        for function in self.lr_lambdas:
            if not callable(function):
                raise TypeError(
                    f"lr_lambda should be a function, but got {type(function).__name__}"
                )
        super().__init__(optimizer, last_epoch)

    def state_dict(self) -> dict[str, Any]:
        """As :meth:`LambdaLR.state_dict`."""
        return _state_dict_with_lambdas(self)

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        _load_state_dict_with_lambdas(self, state_dict)

    def get_lr(self) -> list[Any]:
        self._warn_get_lr_outside_step()
        if self._is_initial:
            return _current_lrs(self.optimizer)
        return [
            group["lr"] * lmbda(self.last_epoch)
            for lmbda, group in zip(self.lr_lambdas, self.optimizer.param_groups)
        ]


def _state_dict_with_lambdas(scheduler: Any) -> dict[str, Any]:
    state_dict = {
        key: value
        for key, value in scheduler.__dict__.items()
        if key not in ("optimizer", "lr_lambdas")
    }
    state_dict["lr_lambdas"] = [
        None if isinstance(fn, types.FunctionType) else fn.__dict__.copy()
        for fn in scheduler.lr_lambdas
    ]
    return state_dict


def _load_state_dict_with_lambdas(scheduler: Any, state_dict: dict[str, Any]) -> None:
    state_dict = dict(state_dict)
    lr_lambdas = state_dict.pop("lr_lambdas")
    scheduler.__dict__.update(state_dict)
    for fn, saved in zip(scheduler.lr_lambdas, lr_lambdas):
        if saved is not None:
            fn.__dict__.update(saved)


class StepLR(LRScheduler):
    """Multiply the rate by ``gamma`` every ``step_size`` epochs.

    Example::

        >>> scheduler = StepLR(opt, step_size=30, gamma=0.1)  # 0.1 -> 0.01 at epoch 30 ...
    """

    def __init__(
        self, optimizer: Optimizer, step_size: int, gamma: float = 0.1, last_epoch: int = -1
    ) -> None:
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[Any]:
        self._warn_get_lr_outside_step()
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return _current_lrs(self.optimizer)
        return [group["lr"] * self.gamma for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list[Any]:
        return [
            base_lr * self.gamma ** (self.last_epoch // self.step_size) for base_lr in self.base_lrs
        ]


class MultiStepLR(LRScheduler):
    """Multiply the rate by ``gamma`` at each epoch listed in ``milestones``.

    Example::

        >>> scheduler = MultiStepLR(opt, milestones=[30, 80], gamma=0.1)
    """

    milestones: Counter[int]

    def __init__(
        self,
        optimizer: Optimizer,
        milestones: Iterable[int],
        gamma: float = 0.1,
        last_epoch: int = -1,
    ) -> None:
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        super().load_state_dict(state_dict)
        # A checkpoint file stores the Counter as a plain dict of {epoch: count}.
        self.milestones = Counter(self.milestones)

    def get_lr(self) -> list[Any]:
        self._warn_get_lr_outside_step()
        if self.last_epoch not in self.milestones:
            return _current_lrs(self.optimizer)
        return [
            group["lr"] * self.gamma ** self.milestones[self.last_epoch]
            for group in self.optimizer.param_groups
        ]

    def _get_closed_form_lr(self) -> list[Any]:
        milestones = sorted(self.milestones.elements())
        return [
            base_lr * self.gamma ** bisect_right(milestones, self.last_epoch)
            for base_lr in self.base_lrs
        ]


class ConstantLR(LRScheduler):
    """Multiply the rate by ``factor`` until epoch ``total_iters``, then restore it.

    Example::

        >>> scheduler = ConstantLR(opt, factor=0.5, total_iters=4)
    """

    def __init__(
        self,
        optimizer: Optimizer,
        factor: float = 1.0 / 3,
        total_iters: int = 5,
        last_epoch: int = -1,
    ) -> None:
        if factor > 1.0 or factor < 0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor = factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[Any]:
        self._warn_get_lr_outside_step()
        if self.last_epoch == 0:
            return [group["lr"] * self.factor for group in self.optimizer.param_groups]
        if self.last_epoch != self.total_iters:
            return _current_lrs(self.optimizer)
        return [group["lr"] * (1.0 / self.factor) for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list[Any]:
        return [
            base_lr * (self.factor + (self.last_epoch >= self.total_iters) * (1 - self.factor))
            for base_lr in self.base_lrs
        ]


class LinearLR(LRScheduler):
    """Scale the rate by a factor going linearly from ``start_factor`` to ``end_factor``
    over ``total_iters`` epochs (a warm-up).

    Example::

        >>> scheduler = LinearLR(opt, start_factor=0.1, total_iters=10)
    """

    def __init__(
        self,
        optimizer: Optimizer,
        start_factor: float = 1.0 / 3,
        end_factor: float = 1.0,
        total_iters: int = 5,
        last_epoch: int = -1,
    ) -> None:
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError(
                "Starting multiplicative factor expected to be greater than 0 and less or "
                "equal to 1."
            )
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[Any]:
        self._warn_get_lr_outside_step()
        if self.last_epoch == 0:
            return [group["lr"] * self.start_factor for group in self.optimizer.param_groups]
        if self._is_initial or self.last_epoch > self.total_iters:
            return _current_lrs(self.optimizer)
        change = self.end_factor - self.start_factor
        return [
            group["lr"]
            * (
                1.0
                + change / (self.total_iters * self.start_factor + (self.last_epoch - 1) * change)
            )
            for group in self.optimizer.param_groups
        ]

    def _get_closed_form_lr(self) -> list[Any]:
        return [
            base_lr
            * (
                self.start_factor
                + (self.end_factor - self.start_factor)
                * min(self.total_iters, self.last_epoch)
                / self.total_iters
            )
            for base_lr in self.base_lrs
        ]


class ExponentialLR(LRScheduler):
    """Multiply the rate by ``gamma`` every epoch.

    Example::

        >>> scheduler = ExponentialLR(opt, gamma=0.95)
    """

    def __init__(self, optimizer: Optimizer, gamma: float, last_epoch: int = -1) -> None:
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[Any]:
        self._warn_get_lr_outside_step()
        if self._is_initial:
            return _current_lrs(self.optimizer)
        return [group["lr"] * self.gamma for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list[Any]:
        return [base_lr * self.gamma**self.last_epoch for base_lr in self.base_lrs]


class PolynomialLR(LRScheduler):
    """Decay the rate to zero over ``total_iters`` epochs as ``(1 - t / total_iters)^power``.

    Example::

        >>> scheduler = PolynomialLR(opt, total_iters=10, power=2.0)
    """

    def __init__(
        self,
        optimizer: Optimizer,
        total_iters: int = 5,
        power: float = 1.0,
        last_epoch: int = -1,
    ) -> None:
        self.total_iters = total_iters
        self.power = power
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[Any]:
        self._warn_get_lr_outside_step()
        if self._is_initial or self.last_epoch > self.total_iters:
            return _current_lrs(self.optimizer)
        decay_factor = (
            (1.0 - self.last_epoch / self.total_iters)
            / (1.0 - (self.last_epoch - 1) / self.total_iters)
        ) ** self.power
        return [group["lr"] * decay_factor for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list[Any]:
        return [
            base_lr
            * (1.0 - min(self.total_iters, self.last_epoch) / self.total_iters) ** self.power
            for base_lr in self.base_lrs
        ]


class CosineAnnealingLR(LRScheduler):
    r"""Anneal the rate along a cosine from the initial rate to ``eta_min`` over ``T_max``
    epochs (and back up over the next ``T_max``, and so on):

    .. math::
        \eta_t = \eta_{min} + \tfrac12 (\eta_{max} - \eta_{min})(1 + \cos(\pi t / T_{max}))

    ``step()`` uses PyTorch's recursive form of this (from the current rate), so the rates
    follow PyTorch's floats exactly and other changes to ``lr`` carry through.

    Example::

        >>> scheduler = CosineAnnealingLR(opt, T_max=100, eta_min=1e-5)
    """

    def __init__(
        self, optimizer: Optimizer, T_max: int, eta_min: float = 0.0, last_epoch: int = -1
    ) -> None:
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[Any]:
        self._warn_get_lr_outside_step()
        groups = self.optimizer.param_groups
        if self._is_initial:
            return _current_lrs(self.optimizer)
        if self._step_count == 1 and self.last_epoch > 0:
            return [
                self.eta_min
                + (base_lr - self.eta_min)
                * (1 + math.cos(self.last_epoch * math.pi / self.T_max))
                / 2
                for base_lr in self.base_lrs
            ]
        if (self.last_epoch - 1 - self.T_max) % (2 * self.T_max) == 0:
            return [
                group["lr"] + (base_lr - self.eta_min) * (1 - math.cos(math.pi / self.T_max)) / 2
                for base_lr, group in zip(self.base_lrs, groups)
            ]
        return [
            (1 + math.cos(math.pi * self.last_epoch / self.T_max))
            / (1 + math.cos(math.pi * (self.last_epoch - 1) / self.T_max))
            * (group["lr"] - self.eta_min)
            + self.eta_min
            for group in groups
        ]

    def _get_closed_form_lr(self) -> list[Any]:
        return [
            self.eta_min
            + (base_lr - self.eta_min) * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
            for base_lr in self.base_lrs
        ]
