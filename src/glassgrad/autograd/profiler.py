"""A CPU profiler with PyTorch's interface: ``profile`` records every glassgrad op called
from user code (top-level functions, ``nn.functional``, Tensor methods and operators, as
``aten::<name>``), every backward node the engine runs
(``autograd::engine::evaluate_function: MulBackward0``) and ``record_function`` ranges, with
wall-clock times; ``key_averages().table()`` prints PyTorch's summary table.

While a profile is active, those functions are wrapped by timing shims, installed on entry
and removed on exit: outside a profile the ops run exactly as before, at no cost.

Example::

    >>> with glassgrad.autograd.profiler.profile() as prof:
    ...     y = (glassgrad.ones(3, requires_grad=True) * 2).sum()
    >>> [e.key for e in prof.key_averages()][:2]
    ['aten::ones', 'aten::mul']
"""

from __future__ import annotations

import functools
import importlib
import json
import threading
import time
import types
from collections.abc import Callable
from typing import Any

__all__ = [
    "profile",
    "record_function",
    "EventList",
    "FunctionEvent",
    "FunctionEventAvg",
    "kineto_available",
]

_OPERATORS = {
    "__add__": "add", "__radd__": "add", "__iadd__": "add_", "__sub__": "sub",
    "__rsub__": "rsub", "__isub__": "sub_", "__mul__": "mul", "__rmul__": "mul",
    "__imul__": "mul_", "__truediv__": "div", "__rtruediv__": "div", "__itruediv__": "div_",
    "__floordiv__": "floor_divide", "__mod__": "remainder", "__pow__": "pow",
    "__rpow__": "pow", "__matmul__": "matmul", "__rmatmul__": "matmul", "__neg__": "neg",
    "__abs__": "abs", "__getitem__": "index", "__setitem__": "index_put_", "__eq__": "eq",
    "__ne__": "ne", "__lt__": "lt", "__le__": "le", "__gt__": "gt", "__ge__": "ge",
    "__and__": "bitwise_and", "__or__": "bitwise_or", "__xor__": "bitwise_xor",
    "__invert__": "bitwise_not",
}  # fmt: skip
# Tensor methods that are not ops (queries, conversions to Python, autograd entry points).
_NOT_OPS = {
    "size", "dim", "ndimension", "numel", "nelement", "item", "tolist", "numpy", "stride",
    "data_ptr", "is_contiguous", "element_size", "is_floating_point", "register_hook",
    "register_post_accumulate_grad_hook", "retain_grad", "backward", "requires_grad_",
    "cpu", "cuda", "type", "new", "is_inference", "equal", "allclose",
}  # fmt: skip

_active: list = []  # the profiles recording now (nested profiles all record)


def kineto_available() -> bool:
    """Whether PyTorch's Kineto profiler backend is present: never in glassgrad, whose
    profiler is its own (``profile(use_kineto=...)`` records the same either way).

    Example::

        >>> glassgrad.autograd.kineto_available()
        False
    """
    return False


def _profiler_enabled() -> bool:
    # PyTorch's torch.autograd._profiler_enabled: whether a profile is recording now.
    return bool(_active)


class FunctionEvent:
    """One recorded call: ``name`` (``key``), on thread ``thread``, from ``start_us`` to
    ``end_us`` (microseconds since the profile began), its total and self CPU time and, with
    ``record_shapes``, its input shapes (PyTorch's constructor arguments)."""

    __slots__ = (
        "id", "name", "thread", "start_us", "end_us", "fwd_thread", "input_shapes",
        "sequence_nr", "node_id", "self_cpu_time_total",
    )  # fmt: skip
    id: int
    name: str
    thread: int
    start_us: float
    end_us: float
    fwd_thread: int | None
    input_shapes: list[Any]
    sequence_nr: int
    node_id: int
    self_cpu_time_total: float

    def __init__(
        self,
        id: int,
        name: str,
        thread: int,
        start_us: float,
        end_us: float,
        fwd_thread: int | None = None,
        input_shapes: list[Any] | None = None,
        sequence_nr: int = -1,
        node_id: int = -1,
    ) -> None:
        self.id, self.name, self.thread, self.fwd_thread = id, name, thread, fwd_thread
        self.start_us, self.end_us = start_us, end_us
        self.input_shapes = [] if input_shapes is None else input_shapes
        self.sequence_nr, self.node_id = sequence_nr, node_id
        self.self_cpu_time_total = end_us - start_us  # less its children's, once it has any

    @property
    def key(self) -> str:
        return self.name

    @property
    def cpu_time_total(self) -> float:
        return self.end_us - self.start_us

    @property
    def device_time_total(self) -> float:
        return 0.0  # CPU only

    @property
    def count(self) -> int:
        return 1

    def __repr__(self) -> str:
        return (
            f"<FunctionEvent id={self.id} name={self.name} cpu_time={_us(self.cpu_time_total)} "
            f"self_cpu_time={_us(self.self_cpu_time_total)}>"
        )


class FunctionEventAvg:
    """Events of one name (and shapes, if grouped by them) added up: ``count``,
    ``cpu_time_total``, ``self_cpu_time_total``, and ``cpu_time`` (the mean). The first
    event added gives the key; events and other averages of that key can be added."""

    __slots__ = (
        "key", "count", "cpu_time_total", "self_cpu_time_total", "device_time_total",
        "input_shapes",
    )  # fmt: skip
    key: str | None
    input_shapes: Any
    count: int
    cpu_time_total: float
    self_cpu_time_total: float
    device_time_total: float

    def __init__(self) -> None:
        self.key = None
        self.input_shapes = None
        self.count = 0
        self.cpu_time_total = self.self_cpu_time_total = self.device_time_total = 0.0

    def add(self, other: FunctionEvent | FunctionEventAvg) -> FunctionEventAvg:
        """Add an event's (or another average's) times and count to these; returns self."""
        if self.key is None:
            self.key, self.input_shapes = other.key, other.input_shapes
        if other.key != self.key:
            raise ValueError(
                f"FunctionEventAvg.add: an event of {other.key!r} added to those of {self.key!r}"
            )
        self.cpu_time_total += other.cpu_time_total
        self.self_cpu_time_total += other.self_cpu_time_total
        self.device_time_total += other.device_time_total
        self.count += other.count
        return self

    @property
    def cpu_time(self) -> float:
        return self.cpu_time_total / max(self.count, 1)

    @property
    def self_cpu_time(self) -> float:
        return self.self_cpu_time_total / max(self.count, 1)

    def __repr__(self) -> str:
        return (
            f"<FunctionEventAvg key={self.key} self_cpu_time={_us(self.self_cpu_time_total)} "
            f"cpu_time={_us(self.cpu_time)} count={self.count}>"
        )


def _us(value: float) -> str:
    if value >= 1e6:
        return f"{value / 1e6:.3f}s"
    if value >= 1e3:
        return f"{value / 1e3:.3f}ms"
    return f"{value:.3f}us"


class EventList(list[FunctionEvent | FunctionEventAvg]):
    """A list of events with PyTorch's ``table`` and ``key_averages``."""

    def key_averages(self, group_by_input_shapes: bool = False) -> EventList:
        groups: dict = {}
        for event in self:
            shapes = str(event.input_shapes) if group_by_input_shapes else None
            key = (event.key, shapes)
            if key not in groups:
                groups[key] = FunctionEventAvg()
            groups[key].add(event)
            if shapes is None:
                groups[key].input_shapes = None  # shapes only when grouped by them
        return EventList(groups.values())

    @property
    def self_cpu_time_total(self) -> float:
        return sum(e.self_cpu_time_total for e in self)

    def table(
        self,
        sort_by: str | None = None,
        row_limit: int = 100,
        max_src_column_width: int = 75,
        max_name_column_width: int = 55,
        max_shapes_column_width: int = 80,
        header: str | None = None,
        top_level_events_only: bool = False,
    ) -> str:
        """PyTorch's summary table: one row per entry, sorted (descending) by the attribute
        ``sort_by`` (``"cpu_time_total"``, ``"self_cpu_time_total"``, ``"count"`` ...)."""
        rows = list(self)
        if sort_by is not None:
            if sort_by.startswith(("cuda", "device", "xpu")) or "memory" in sort_by:
                rows.sort(key=lambda e: 0.0)  # no device time or memory is recorded here
            else:
                rows.sort(key=lambda e: getattr(e, sort_by), reverse=True)
        rows = rows[:row_limit] if row_limit and row_limit > 0 else rows
        total_self = self.self_cpu_time_total or 1.0
        name_width = min(max([len(e.key) for e in rows] + [4]) + 4, max_name_column_width)
        shapes = any(getattr(e, "input_shapes", None) for e in rows)
        columns = ["Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"]
        columns += ["# of Calls"] + (["Input Shapes"] if shapes else [])
        widths = [name_width] + [12] * 6 + ([max_shapes_column_width] if shapes else [])
        line = "-" * name_width + "".join("  " + "-" * w for w in widths[1:])

        def format_row(cells: list) -> str:
            text = cells[0][:name_width].rjust(name_width)
            return text + "".join("  " + str(c).rjust(w) for c, w in zip(cells[1:], widths[1:]))

        out = [header] if header else []
        out += [line, format_row(["Name", *columns]), line]
        for e in rows:
            cells = [
                e.key,
                f"{100 * e.self_cpu_time_total / total_self:.2f}%",
                _us(e.self_cpu_time_total),
                f"{100 * e.cpu_time_total / total_self:.2f}%",
                _us(e.cpu_time_total),
                _us(e.cpu_time_total / max(e.count, 1)),
                e.count,
            ]
            if shapes:
                cells.append(str(e.input_shapes or [])[:max_shapes_column_width])
            out.append(format_row(cells))
        out += [line, f"Self CPU time total: {_us(self.self_cpu_time_total)}", ""]
        return "\n".join(out)


class profile:
    """Record the glassgrad ops run inside ``with profile() as prof:`` (see the module
    docstring). PyTorch's arguments are accepted; ``use_cuda``/``use_device``, memory and
    stack recording have nothing to record here and must stay off.

    Example::

        >>> with glassgrad.autograd.profiler.profile() as prof:
        ...     _ = glassgrad.ones(2) + 1
        >>> print(prof.key_averages().table(sort_by="cpu_time_total"))  # doctest: +SKIP
    """

    enabled: bool
    record_shapes: bool

    def __init__(
        self,
        enabled: bool = True,
        *,
        use_cuda: bool = False,
        use_device: str | None = None,
        record_shapes: bool = False,
        with_flops: bool = False,
        profile_memory: bool = False,
        with_stack: bool = False,
        with_modules: bool = False,
        use_kineto: bool = True,
        use_cpu: bool = True,
        experimental_config: Any = None,
        acc_events: bool = False,
        custom_trace_id_callback: Any = None,
    ) -> None:
        for name, value in (
            ("use_cuda", use_cuda),
            ("use_device", use_device),
            ("profile_memory", profile_memory),
            ("with_stack", with_stack),
            ("with_flops", with_flops),
            ("with_modules", with_modules),
        ):
            if value:
                raise ValueError(
                    f"profile({name}=...): glassgrad's profiler records CPU times only"
                )
        self.enabled, self.record_shapes = enabled, record_shapes
        self.function_events: EventList | None = None
        self._events: list = []
        self._stack: list = []
        self._origin = 0.0

    def __enter__(self) -> profile:
        if not self.enabled:
            return self
        self._events, self._stack = [], []
        self._origin = time.perf_counter()
        if not _active:
            _install()
        _active.append(self)
        return self

    def __exit__(self, *exc: Any) -> None:
        if not self.enabled:
            return
        _active.remove(self)
        if not _active:
            _uninstall()
        self.function_events = EventList(self._events)

    def _now(self) -> float:
        return (time.perf_counter() - self._origin) * 1e6

    def _begin(self, name: str, args: tuple) -> FunctionEvent:
        shapes = [list(getattr(a, "shape", ())) for a in args] if self.record_shapes else []
        now = self._now()
        event = FunctionEvent(
            len(self._events), name, threading.get_ident(), now, now, input_shapes=shapes
        )
        self._events.append(event)
        self._stack.append([event, 0.0])
        return event

    def _end(self) -> None:
        event, children = self._stack.pop()
        event.end_us = self._now()
        event.self_cpu_time_total = event.cpu_time_total - children
        if self._stack:
            self._stack[-1][1] += event.cpu_time_total

    def _check_finished(self) -> EventList:
        if self.function_events is None:
            raise RuntimeError("Profiler didn't finish running")
        return self.function_events

    def events(self) -> EventList:
        """The recorded events (an EventList of FunctionEvent)."""
        return self._check_finished()

    def key_averages(
        self, group_by_input_shape: bool = False, group_by_stack_n: int = 0
    ) -> EventList:
        """The events grouped by name (and input shapes): an EventList of averages."""
        return self._check_finished().key_averages(group_by_input_shape)

    def table(self, sort_by: str | None = None, row_limit: int = 100, **kwargs: Any) -> str:
        return self._check_finished().table(sort_by=sort_by, row_limit=row_limit, **kwargs)

    @property
    def self_cpu_time_total(self) -> float:
        return self._check_finished().self_cpu_time_total

    def export_chrome_trace(self, path: str) -> None:
        """Write the events in Chrome's trace format (open in chrome://tracing or Perfetto)."""
        trace = [
            {
                "name": e.name,
                "ph": "X",
                "ts": e.start_us,
                "dur": e.cpu_time_total,
                "pid": 0,
                "tid": 0,
                "cat": "cpu_op",
            }
            for e in self._check_finished()
        ]
        with open(path, "w") as f:
            json.dump({"traceEvents": trace}, f)

    def __str__(self) -> str:
        return self.table()


class record_function:
    """A named range in the profile (a context manager or a decorator); nothing when no
    profile is recording.

    Example::

        >>> with glassgrad.autograd.profiler.profile() as prof:
        ...     with glassgrad.autograd.profiler.record_function("my_block"):
        ...         _ = glassgrad.ones(2) * 3
        >>> "my_block" in [e.key for e in prof.key_averages()]
        True
    """

    args: str | None
    name: str

    def __init__(self, name: str, args: str | None = None) -> None:
        self.name, self.args = name, args
        self._recording: list = []

    def __enter__(self) -> record_function:
        self._recording = list(_active)
        for prof in self._recording:
            prof._begin(self.name, ())
        return self

    def __exit__(self, *exc: Any) -> None:
        for prof in self._recording:
            prof._end()
        self._recording = []

    def __call__(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            with record_function(self.name, self.args):
                return fn(*args, **kwargs)

        return wrapped


# --- the shims ------------------------------------------------------------------------------

_saved: list = []  # (owner, attribute, original) to restore on exit


def _timed(name: str, fn: Callable) -> Callable:
    def timed(*args: Any, **kwargs: Any) -> Any:
        recording = list(_active)
        for prof in recording:
            prof._begin(name, args)
        try:
            return fn(*args, **kwargs)
        finally:
            for prof in recording:
                prof._end()

    functools.update_wrapper(timed, fn)
    return timed


def _timed_node_run(original: Callable) -> Callable:
    def run(node: Any, grads: list, create_graph: bool) -> Any:
        name = f"autograd::engine::evaluate_function: {node.name()}"
        recording = list(_active)
        for prof in recording:
            prof._begin(name, ())
        try:
            return original(node, grads, create_graph)
        finally:
            for prof in recording:
                prof._end()

    return run


def _replace(owner: Any, attribute: str, new: Any) -> None:
    _saved.append((owner, attribute, vars(owner)[attribute]))
    setattr(owner, attribute, new)


def _install() -> None:
    gg = importlib.import_module("glassgrad")
    from . import graph

    for name, value in list(vars(gg).items()):
        if isinstance(value, types.FunctionType) and not name.startswith("_"):
            _replace(gg, name, _timed(f"aten::{name}", value))
    functional = importlib.import_module("glassgrad.nn.functional")
    for name, value in list(vars(functional).items()):
        if isinstance(value, types.FunctionType) and not name.startswith("_"):
            _replace(functional, name, _timed(f"aten::{name}", value))
    for name, value in list(vars(gg.Tensor).items()):
        if not isinstance(value, types.FunctionType) or name in _NOT_OPS:
            continue
        if name in _OPERATORS:
            _replace(gg.Tensor, name, _timed(f"aten::{_OPERATORS[name]}", value))
        elif not name.startswith("_"):
            _replace(gg.Tensor, name, _timed(f"aten::{name}", value))
    pending = [graph.Node]
    while pending:
        cls = pending.pop()
        pending.extend(cls.__subclasses__())
        if "_run" in vars(cls):
            _replace(cls, "_run", _timed_node_run(vars(cls)["_run"]))


def _uninstall() -> None:
    while _saved:
        owner, attribute, original = _saved.pop()
        setattr(owner, attribute, original)
