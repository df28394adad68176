"""The schedulers that combine others or restart: ``SequentialLR``, ``ChainedScheduler``,
``CyclicLR`` and ``CosineAnnealingWarmRestarts`` (re-exported by ``lr_scheduler``)."""

from __future__ import annotations

import math
import types
from bisect import bisect_right
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from ._lr_base import LRScheduler, ReduceLROnPlateau, _current_lrs, _per_group
from .optimizer import Optimizer

__all__ = ["SequentialLR", "ChainedScheduler", "CyclicLR", "CosineAnnealingWarmRestarts"]


def _check_schedulers(owner: str, schedulers: Sequence[Any], optimizer: Optimizer) -> None:
    """Every scheduler steps the same optimizer and needs no argument to ``step``."""
    for index, scheduler in enumerate(schedulers):
        if not hasattr(scheduler, "optimizer"):
            raise TypeError(f"{owner} at index {index} should have `optimizer` as its attribute.")
        if isinstance(scheduler, ReduceLROnPlateau):
            raise ValueError(
                f"{owner} does not support `ReduceLROnPlateau` scheduler as it requires "
                "additional kwargs to be specified when calling `step`, but got one at index "
                f"{index} in the given schedulers sequence."
            )
        if optimizer != scheduler.optimizer:
            raise ValueError(
                f"{owner} expects all schedulers to belong to the same optimizer, but got "
                f"scheduler {type(scheduler).__name__} at index {index} has "
                f"{scheduler.optimizer}, which is different from {type(optimizer).__name__}."
            )


class _SchedulerList:
    """State dicts of a scheduler that holds others: its own attributes plus theirs."""

    _schedulers: Sequence[Any]

    def state_dict(self) -> dict[str, Any]:
        """This scheduler's attributes and, under ``"_schedulers"``, each one's state dict."""
        state_dict = {
            key: value
            for key, value in self.__dict__.items()
            if key not in ("optimizer", "_schedulers")
        }
        state_dict["_schedulers"] = [s.state_dict() for s in self._schedulers]
        return state_dict

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore ``state_dict()``: this scheduler's attributes and each inner one's."""
        schedulers = state_dict.pop("_schedulers")
        self.__dict__.update(state_dict)
        state_dict["_schedulers"] = schedulers  # the caller's dict is left as it was given
        for scheduler, saved in zip(self._schedulers, schedulers):
            scheduler.load_state_dict(saved)


class SequentialLR(_SchedulerList, LRScheduler):
    """Run ``schedulers`` one after another, switching at the epochs in ``milestones``.

    At a milestone the next scheduler starts from its own epoch 0.

    Parameters
    ----------
    optimizer : Optimizer
        The optimizer all ``schedulers`` step.
    schedulers : list of LRScheduler
        The schedules, in order.
    milestones : list of int
        The epochs at which the next scheduler takes over (one fewer than ``schedulers``).
    last_epoch : int
        The index of the last epoch (default -1).

    Example::

        >>> warmup = LinearLR(opt, start_factor=0.1, total_iters=2)
        >>> decay = ExponentialLR(opt, gamma=0.5)
        >>> scheduler = SequentialLR(opt, [warmup, decay], milestones=[2])
        >>> rates = []
        >>> for _ in range(4):
        ...     opt.step(); scheduler.step(); rates.append(round(scheduler.get_last_lr()[0], 4))
        >>> rates
        [0.055, 0.1, 0.05, 0.025]
    """

    last_epoch: int

    def __init__(
        self,
        optimizer: Optimizer,
        schedulers: list[LRScheduler],
        milestones: list[int],
        last_epoch: int = -1,
    ) -> None:
        owner = type(self).__name__
        if len(schedulers) < 1:
            raise ValueError(f"{owner} expects at least one scheduler, but got no scheduler.")
        _check_schedulers(owner, schedulers, optimizer)
        if len(milestones) != len(schedulers) - 1:
            raise ValueError(
                "Sequential Schedulers expects number of schedulers provided to be one more "
                "than the number of milestone points, but got number of schedulers "
                f"{len(schedulers)} and the number of milestones to be equal to "
                f"{len(milestones)}"
            )
        self._schedulers = schedulers
        self._milestones = milestones
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        # Back to the initial rates, and undo the first step each scheduler took when built.
        for group in optimizer.param_groups:
            group["lr"] = group["initial_lr"]
        self.recursive_undo()
        index = bisect_right(self._milestones, 0)
        self._schedulers[index]._initial_step()
        self._last_lr = schedulers[index].get_last_lr()

    def recursive_undo(self, sched: Any = None) -> None:
        """Step back ``last_epoch`` of every scheduler inside this one, nested ones too."""
        scheds = self if sched is None else sched
        if hasattr(scheds, "_schedulers"):
            for s in scheds._schedulers:
                self.recursive_undo(s)
        elif hasattr(scheds, "last_epoch"):
            scheds.last_epoch -= 1

    def step(self) -> None:  # type: ignore[override]
        """Advance one epoch: step the scheduler in charge (restarted at a milestone)."""
        self.last_epoch += 1
        index = bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[index]
        if index > 0 and self._milestones[index - 1] == self.last_epoch:
            scheduler._update_lr(0)
        else:
            scheduler.step()
        self._last_lr = scheduler.get_last_lr()


class ChainedScheduler(_SchedulerList, LRScheduler):
    """Step every scheduler in ``schedulers`` at each ``step()``: their effects compose.

    Parameters
    ----------
    schedulers : sequence of LRScheduler
        Schedulers of one optimizer.
    optimizer : Optimizer, optional
        That optimizer (default: the first scheduler's).

    Example::

        >>> scheduler = ChainedScheduler(
        ...     [ConstantLR(opt, factor=0.5, total_iters=2), ExponentialLR(opt, gamma=0.9)])
        >>> opt.step(); scheduler.step()
        >>> [round(lr, 4) for lr in scheduler.get_last_lr()]
        [0.045]
    """

    def __init__(self, schedulers: Sequence[LRScheduler], optimizer: Optimizer | None = None):
        owner = type(self).__name__
        if len(schedulers) < 1:
            raise ValueError(
                f"{owner} expects at least one scheduler to be chained, but got no scheduler."
            )
        optimizer = optimizer or schedulers[0].optimizer
        _check_schedulers(owner, schedulers, optimizer)
        self._schedulers = schedulers
        self.optimizer = optimizer
        self._last_lr = _current_lrs(self._schedulers[-1].optimizer)

    def step(self) -> None:  # type: ignore[override]
        """Step each scheduler, in order."""
        for scheduler in self._schedulers:
            scheduler.step()
        self._last_lr = _current_lrs(self._schedulers[-1].optimizer)


class CyclicLR(LRScheduler):
    """Cycle the rate between ``base_lr`` and ``max_lr`` (Smith's cyclical learning rates),
    and momentum the opposite way; step it once per batch.

    Each cycle rises for ``step_size_up`` steps and falls for ``step_size_down``; the height
    is scaled per cycle (``"triangular"``: 1, ``"triangular2"``: halved each cycle) or per
    step (``"exp_range"``: ``gamma ** step``), or by ``scale_fn``.

    Parameters
    ----------
    optimizer : Optimizer
        The optimizer (with ``momentum`` or ``betas`` if ``cycle_momentum``).
    base_lr, max_lr : float or list of float
        Lower and upper rates (per group if lists).
    step_size_up : int
        Steps of the rising half (default 2000).
    step_size_down : int, optional
        Steps of the falling half (default ``step_size_up``).
    mode : str
        ``"triangular"``, ``"triangular2"`` or ``"exp_range"``.
    gamma : float
        Base of ``"exp_range"``'s scaling (default 1).
    scale_fn : callable, optional
        A custom scaling ``scale_fn(x)``; replaces ``mode``.
    scale_mode : str
        What ``scale_fn`` receives: ``"cycle"`` number or ``"iterations"``.
    cycle_momentum : bool
        Cycle momentum (or Adam's ``beta1``) between ``max_momentum`` and ``base_momentum``.
    base_momentum, max_momentum : float or list of float
        Momentum bounds (default 0.8 and 0.9).
    last_epoch : int
        The index of the last batch (default -1).

    Example::

        >>> opt = glassgrad.optim.SGD([w], lr=0.1, momentum=0.9)
        >>> scheduler = CyclicLR(opt, base_lr=0.01, max_lr=0.1, step_size_up=2)
        >>> rates = []
        >>> for _ in range(4):
        ...     opt.step(); scheduler.step(); rates.append(round(scheduler.get_last_lr()[0], 4))
        >>> rates
        [0.055, 0.1, 0.055, 0.01]
    """

    base_momentums: list[Any]
    max_lrs: list[Any]
    max_momentums: list[Any]
    scale_mode: str
    step_ratio: float
    total_size: float
    use_beta1: bool

    def __init__(
        self,
        optimizer: Optimizer,
        base_lr: float | list[float],
        max_lr: float | list[float],
        step_size_up: int = 2000,
        step_size_down: int | None = None,
        mode: str = "triangular",
        gamma: float = 1.0,
        scale_fn: Callable[[float], float] | None = None,
        scale_mode: str = "cycle",
        cycle_momentum: bool = True,
        base_momentum: float = 0.8,
        max_momentum: float = 0.9,
        last_epoch: int = -1,
    ) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        base_lrs = _per_group("base_lr", optimizer, base_lr)
        if last_epoch == -1:
            for lr, group in zip(base_lrs, optimizer.param_groups):
                group["lr"] = lr
        self.max_lrs = _per_group("max_lr", optimizer, max_lr)
        up = float(step_size_up)
        down = float(step_size_down) if step_size_down is not None else up
        self.total_size = up + down
        self.step_ratio = up / self.total_size
        if mode not in ["triangular", "triangular2", "exp_range"] and scale_fn is None:
            raise ValueError("mode is invalid and scale_fn is None")
        self.mode = mode
        self.gamma = gamma
        self._scale_fn_custom = scale_fn
        self.scale_mode = scale_mode
        self._init_scale_fn()
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
                raise ValueError(
                    "optimizer must support momentum or beta1 with `cycle_momentum` option enabled"
                )
            self.use_beta1 = "betas" in self.optimizer.defaults
            self.base_momentums = _per_group("base_momentum", optimizer, base_momentum)
            self.max_momentums = _per_group("max_momentum", optimizer, max_momentum)
            if last_epoch == -1:
                for high, low, group in zip(
                    self.max_momentums, self.base_momentums, optimizer.param_groups
                ):
                    if self.use_beta1:
                        group["betas"] = (high, *group["betas"][1:])
                    else:
                        group["momentum"] = high
                    group["max_momentum"] = high
                    group["base_momentum"] = low
        super().__init__(optimizer, last_epoch)
        self.base_lrs = base_lrs

    def _init_scale_fn(self) -> None:
        if self._scale_fn_custom is not None:
            return
        if self.mode == "triangular":
            self._scale_fn_ref: Callable[[float], float] = _triangular_scale_fn
            self.scale_mode = "cycle"
        elif self.mode == "triangular2":
            self._scale_fn_ref = _triangular2_scale_fn
            self.scale_mode = "cycle"
        elif self.mode == "exp_range":
            self._scale_fn_ref = partial(_exp_range_scale_fn, self.gamma)
            self.scale_mode = "iterations"

    def scale_fn(self, x: float) -> float:
        """The height factor at cycle (or step) ``x``."""
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        return self._scale_fn_ref(x)

    def get_lr(self) -> list[Any]:
        self._warn_get_lr_outside_step()
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1.0 + self.last_epoch / self.total_size - cycle
        if x <= self.step_ratio:
            scale_factor = x / self.step_ratio
        else:
            scale_factor = (x - 1) / (self.step_ratio - 1)
        at = cycle if self.scale_mode == "cycle" else self.last_epoch
        lrs = [
            base_lr + (max_lr - base_lr) * scale_factor * self.scale_fn(at)
            for base_lr, max_lr in zip(self.base_lrs, self.max_lrs)
        ]
        if self.cycle_momentum:
            momentums = [
                high - (high - low) * scale_factor * self.scale_fn(at)
                for low, high in zip(self.base_momentums, self.max_momentums)
            ]
            for group, momentum in zip(self.optimizer.param_groups, momentums):
                if self.use_beta1:
                    group["betas"] = (momentum, *group["betas"][1:])
                else:
                    group["momentum"] = momentum
        return lrs

    def state_dict(self) -> dict[str, Any]:
        """The attributes, less the scale function (kept only as a callable object's
        ``__dict__``, as PyTorch does: a function or lambda is not saved)."""
        state = super().state_dict()
        state.pop("_scale_fn_ref", None)
        fn = state.pop("_scale_fn_custom")
        state["_scale_fn_custom"] = None
        if fn is not None and not isinstance(fn, types.FunctionType):
            state["_scale_fn_custom"] = fn.__dict__.copy()
        return state

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore ``state_dict()``; a saved callable object's attributes are restored."""
        fn = state_dict.pop("_scale_fn_custom")
        super().load_state_dict(state_dict)
        if fn is not None:
            self._scale_fn_custom.__dict__.update(fn)
        self._init_scale_fn()


def _triangular_scale_fn(x: float) -> float:
    return 1.0


def _triangular2_scale_fn(x: float) -> float:
    return 1 / (2.0 ** (x - 1))


def _exp_range_scale_fn(gamma: float, x: float) -> float:
    return gamma**x


class CosineAnnealingWarmRestarts(LRScheduler):
    r"""Cosine annealing with warm restarts (SGDR): the rate follows
    :math:`\eta_{min} + \tfrac12(\eta_0 - \eta_{min})(1 + \cos(\pi T_{cur} / T_i))` and jumps
    back to the initial rate after :math:`T_i` epochs; each period is ``T_mult`` times the
    one before (``T_0`` first). ``step(epoch)`` may take a fractional epoch (per batch).

    Parameters
    ----------
    optimizer : Optimizer
        The optimizer.
    T_0 : int
        Length of the first period (a positive integer).
    T_mult : int
        Growth factor of the periods (an integer at least 1; default 1).
    eta_min : float
        Lowest rate (default 0).
    last_epoch : int
        The index of the last epoch (default -1).

    Example::

        >>> scheduler = CosineAnnealingWarmRestarts(opt, T_0=2)
        >>> rates = []
        >>> for _ in range(4):
        ...     opt.step(); scheduler.step(); rates.append(round(scheduler.get_last_lr()[0], 4))
        >>> rates
        [0.05, 0.1, 0.05, 0.1]
    """

    T_cur: int
    T_i: int
    last_epoch: int

    def __init__(
        self,
        optimizer: Optimizer,
        T_0: int,
        T_mult: int = 1,
        eta_min: float = 0.0,
        last_epoch: int = -1,
    ) -> None:
        if T_0 <= 0 or not isinstance(T_0, int):
            raise ValueError(f"Expected positive integer T_0, but got {T_0}")
        if T_mult < 1 or not isinstance(T_mult, int):
            raise ValueError(f"Expected integer T_mult >= 1, but got {T_mult}")
        if not isinstance(eta_min, (float, int)):
            raise ValueError(
                f"Expected float or int eta_min, but got {eta_min} of type {type(eta_min)}"
            )
        self.T_0 = T_0
        self.T_i = T_0
        self.T_mult = T_mult
        self.eta_min = eta_min
        self.T_cur = last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[Any]:
        self._warn_get_lr_outside_step()
        return [
            self.eta_min
            + (base_lr - self.eta_min) * (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2
            for base_lr in self.base_lrs
        ]

    def step(self, epoch: float | None = None) -> None:
        """Advance one epoch, or go to ``epoch`` (may be fractional: ``epoch + i / iters``)."""
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur = self.T_cur + 1
            if self.T_cur >= self.T_i:
                self.T_cur = self.T_cur % self.T_i
                self.T_i = self.T_i * self.T_mult
        else:
            if epoch < 0:
                raise ValueError(f"Expected non-negative epoch, but got {epoch}")
            if epoch >= self.T_0:
                if self.T_mult == 1:
                    self.T_cur = epoch % self.T_0
                else:
                    n = int(math.log((epoch / self.T_0 * (self.T_mult - 1) + 1), self.T_mult))
                    self.T_cur = epoch - self.T_0 * (self.T_mult**n - 1) / (self.T_mult - 1)
                    self.T_i = self.T_0 * self.T_mult ** (n)
            else:
                self.T_i = self.T_0
                self.T_cur = epoch
        self.last_epoch = math.floor(epoch)
        self._get_lr_called_within_step = True
        try:
            values = self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        for group, lr in zip(self.optimizer.param_groups, values):
            group["lr"] = lr
        self._last_lr = _current_lrs(self.optimizer)
