"""``glassgrad.profiler``: PyTorch's newer profiler entry point over
``glassgrad.autograd.profiler`` (CPU activity only; ``step()`` marks a step).

Example::

    >>> from glassgrad.profiler import ProfilerActivity, profile
    >>> with profile(activities=[ProfilerActivity.CPU]) as prof:
    ...     _ = glassgrad.ones(2) * 2
    >>> "aten::mul" in [event.key for event in prof.key_averages()]
    True
"""

from __future__ import annotations

import enum
from typing import Any

from .autograd import profiler as _autograd_profiler
from .autograd.profiler import EventList, record_function

__all__ = ["ProfilerActivity", "profile", "record_function", "EventList"]


class ProfilerActivity(enum.Enum):
    CPU = 0
    CUDA = 1
    XPU = 2
    MTIA = 3


class profile(_autograd_profiler.profile):
    """``with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:``;
    ``prof.step()`` marks the end of a training step (a ``ProfilerStep#n`` range).
    Schedules and trace handlers are not supported (refused, not ignored)."""

    def __init__(
        self,
        *,
        activities: Any = None,
        schedule: Any = None,
        on_trace_ready: Any = None,
        record_shapes: bool = False,
        profile_memory: bool = False,
        with_stack: bool = False,
        with_flops: bool = False,
        with_modules: bool = False,
        experimental_config: Any = None,
        acc_events: bool = False,
        use_cuda: bool | None = None,
    ) -> None:
        for activity in activities or [ProfilerActivity.CPU]:
            if activity is not ProfilerActivity.CPU:
                raise ValueError(f"profile(activities=...): {activity} is not available")
        if schedule is not None or on_trace_ready is not None:
            raise ValueError("profile(): schedule= and on_trace_ready= are not supported")
        super().__init__(
            record_shapes=record_shapes,
            profile_memory=profile_memory,
            with_stack=with_stack,
            with_flops=with_flops,
            with_modules=with_modules,
            use_cuda=bool(use_cuda),
        )
        self._step = 0
        self._step_range: record_function | None = None

    def __enter__(self) -> profile:
        super().__enter__()
        self._open_step()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._step_range is not None:
            self._step_range.__exit__(None, None, None)
            self._step_range = None
        super().__exit__(*exc)

    def _open_step(self) -> None:
        self._step_range = record_function(f"ProfilerStep#{self._step}")
        self._step_range.__enter__()

    def step(self) -> None:
        """End the current step's range and start the next."""
        if self._step_range is not None:
            self._step_range.__exit__(None, None, None)
        self._step += 1
        self._open_step()

    def start(self) -> None:
        self.__enter__()

    def stop(self) -> None:
        self.__exit__(None, None, None)
