"""The schedulers that combine others: ``SequentialLR`` and ``ChainedScheduler`` (re-exported
by ``lr_scheduler``)."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from typing import Any

from ._lr_base import LRScheduler, ReduceLROnPlateau, _current_lrs
from .optimizer import Optimizer

__all__ = ["SequentialLR", "ChainedScheduler"]


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
