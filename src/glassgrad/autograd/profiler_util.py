"""The profiler's event types under PyTorch's module name (``torch.autograd.profiler_util``):
``EventList``, ``FunctionEvent``, ``FunctionEventAvg``, defined in ``autograd.profiler``.

Example::

    >>> from glassgrad.autograd.profiler_util import FunctionEvent
    >>> FunctionEvent(id=0, name="foo", thread=0, start_us=10, end_us=15).cpu_time_total
    5
"""

from __future__ import annotations

from .profiler import EventList, FunctionEvent, FunctionEventAvg

__all__ = ["EventList", "FunctionEvent", "FunctionEventAvg"]
