"""The cyclic schedulers, stepped once per batch or restarting by period: ``CyclicLR``,
``OneCycleLR`` and ``CosineAnnealingWarmRestarts`` (re-exported by ``lr_scheduler``)."""

from __future__ import annotations

import math
import types
from collections.abc import Callable
from functools import partial
from typing import Any

from ._lr_base import LRScheduler, _current_lrs, _per_group
from .optimizer import Optimizer

__all__ = ["CyclicLR", "OneCycleLR", "CosineAnnealingWarmRestarts"]


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


class OneCycleLR(LRScheduler):
    """The 1cycle policy (Smith and Topin): the rate rises from ``max_lr / div_factor`` to
    ``max_lr`` over the first ``pct_start`` of ``total_steps``, then falls to
    ``initial_lr / final_div_factor``; momentum (SGD's ``momentum``, Adam's ``beta1``) moves
    the opposite way between ``max_momentum`` and ``base_momentum``. Step it once per batch.

    Parameters
    ----------
    optimizer : Optimizer
        The optimizer.
    max_lr : float or list of float
        Peak rate (per group).
    total_steps : int, optional
        Number of steps in the cycle; or give ``epochs`` and ``steps_per_epoch``.
    pct_start : float
        Fraction of the cycle spent increasing the rate (default 0.3).
    anneal_strategy : {"cos", "linear"}
        Shape of the ramps (default ``"cos"``).
    cycle_momentum : bool
        Also cycle the momentum (default True).
    base_momentum, max_momentum : float or list of float
        Momentum bounds (defaults 0.85 and 0.95).
    div_factor, final_div_factor : float
        ``initial_lr = max_lr / div_factor``, ``min_lr = initial_lr / final_div_factor``.
    three_phase : bool
        Use a third phase that anneals to ``min_lr`` after returning to ``initial_lr``.

    Example::

        >>> scheduler = OneCycleLR(opt, max_lr=0.1, total_steps=1000)
    """

    total_steps: int
    use_beta1: bool

    def __init__(
        self,
        optimizer: Optimizer,
        max_lr: float | list[float],
        total_steps: int | None = None,
        epochs: int | None = None,
        steps_per_epoch: int | None = None,
        pct_start: float = 0.3,
        anneal_strategy: str = "cos",
        cycle_momentum: bool = True,
        base_momentum: float | list[float] = 0.85,
        max_momentum: float | list[float] = 0.95,
        div_factor: float = 25.0,
        final_div_factor: float = 1e4,
        three_phase: bool = False,
        last_epoch: int = -1,
    ) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if total_steps is not None:
            if total_steps <= 0 or not isinstance(total_steps, int):
                raise ValueError(f"Expected positive integer total_steps, but got {total_steps}")
            self.total_steps = total_steps
        elif epochs is not None and steps_per_epoch is not None:
            if not isinstance(epochs, int) or epochs <= 0:
                raise ValueError(f"Expected positive integer epochs, but got {epochs}")
            if not isinstance(steps_per_epoch, int) or steps_per_epoch <= 0:
                raise ValueError(
                    f"Expected positive integer steps_per_epoch, but got {steps_per_epoch}"
                )
            self.total_steps = epochs * steps_per_epoch
        else:
            raise ValueError("You must define either total_steps OR (epochs AND steps_per_epoch)")

        if three_phase:
            self._schedule_phases = [
                _phase(float(pct_start * self.total_steps) - 1, "initial_lr", "max_lr",
                       "max_momentum", "base_momentum"),
                _phase(float(2 * pct_start * self.total_steps) - 2, "max_lr", "initial_lr",
                       "base_momentum", "max_momentum"),
                _phase(self.total_steps - 1, "initial_lr", "min_lr",
                       "max_momentum", "max_momentum"),
            ]  # fmt: skip
        else:
            self._schedule_phases = [
                _phase(float(pct_start * self.total_steps) - 1, "initial_lr", "max_lr",
                       "max_momentum", "base_momentum"),
                _phase(self.total_steps - 1, "max_lr", "min_lr",
                       "base_momentum", "max_momentum"),
            ]  # fmt: skip

        if pct_start < 0 or pct_start > 1 or not isinstance(pct_start, float):
            raise ValueError(f"Expected float between 0 and 1 pct_start, but got {pct_start}")
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(
                f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}"
            )
        self._anneal_func_type = anneal_strategy

        max_lrs = _per_group("max_lr", optimizer, max_lr)
        if last_epoch == -1:
            for max_rate, group in zip(max_lrs, optimizer.param_groups):
                group["initial_lr"] = max_rate / div_factor
                group["max_lr"] = max_rate
                group["min_lr"] = group["initial_lr"] / final_div_factor

        self.cycle_momentum = cycle_momentum
        if self.cycle_momentum:
            if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
                raise ValueError(
                    "optimizer must support momentum or beta1 with `cycle_momentum` option enabled"
                )
            self.use_beta1 = "betas" in optimizer.defaults
            max_momentums = _per_group("max_momentum", optimizer, max_momentum)
            base_momentums = _per_group("base_momentum", optimizer, base_momentum)
            if last_epoch == -1:
                for top, bottom, group in zip(
                    max_momentums, base_momentums, optimizer.param_groups
                ):
                    if self.use_beta1:
                        group["betas"] = (top, *group["betas"][1:])
                    else:
                        group["momentum"] = top
                    group["max_momentum"] = top
                    group["base_momentum"] = bottom
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _annealing_cos(start: float, end: float, pct: float) -> float:
        """Cosine from ``start`` (pct 0) to ``end`` (pct 1)."""
        cos_out = math.cos(math.pi * pct) + 1
        return end + (start - end) / 2.0 * cos_out

    @staticmethod
    def _annealing_linear(start: float, end: float, pct: float) -> float:
        """Straight line from ``start`` (pct 0) to ``end`` (pct 1)."""
        return (end - start) * pct + start

    def _anneal_func(self, start: float, end: float, pct: float) -> float:
        if self._anneal_func_type == "cos":
            return self._annealing_cos(start, end, pct)
        return self._annealing_linear(start, end, pct)

    def get_lr(self) -> list[Any]:
        self._warn_get_lr_outside_step()
        lrs = []
        step_num = self.last_epoch
        if step_num > self.total_steps:
            raise ValueError(
                f"Tried to step {step_num} times. The specified number of total steps is "
                f"{self.total_steps}"
            )
        for group in self.optimizer.param_groups:
            start_step = 0.0
            for i, phase in enumerate(self._schedule_phases):
                end_step = phase["end_step"]
                if step_num <= end_step or i == len(self._schedule_phases) - 1:
                    pct = (step_num - start_step) / (end_step - start_step)
                    computed_lr = self._anneal_func(
                        group[phase["start_lr"]], group[phase["end_lr"]], pct
                    )
                    if self.cycle_momentum:
                        computed_momentum = self._anneal_func(
                            group[phase["start_momentum"]], group[phase["end_momentum"]], pct
                        )
                    break
                start_step = phase["end_step"]
            lrs.append(computed_lr)
            if self.cycle_momentum:
                if self.use_beta1:
                    group["betas"] = (computed_momentum, *group["betas"][1:])
                else:
                    group["momentum"] = computed_momentum
        return lrs


def _phase(
    end_step: float, start_lr: str, end_lr: str, start_momentum: str, end_momentum: str
) -> dict[str, Any]:
    return {
        "end_step": end_step,
        "start_lr": start_lr,
        "end_lr": end_lr,
        "start_momentum": start_momentum,
        "end_momentum": end_momentum,
    }
