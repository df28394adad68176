"""Activation checkpointing (PyTorch's ``torch.utils.checkpoint``): run a segment of the
forward without keeping what its ops save for backward, and run it again during backward to
get those values back. Memory for activations is traded for one more forward of the segment.

Two variants, as in PyTorch:

- ``use_reentrant=True``: the segment is one custom Function (``CheckpointFunctionBackward``
  in the graph, so the glass-box tools show it as one node). Its backward recomputes the
  segment with grad enabled and runs a nested backward through it. It refuses
  ``autograd.grad`` and ``backward(inputs=...)``.
- ``use_reentrant=False``: the segment's ops are recorded as usual, but what they save goes
  through saved-tensor hooks that keep only a placeholder; the first backward that needs one
  recomputes the segment (stopping as soon as every value is back) and hands the values out.
  Works with ``autograd.grad``, ``inputs=`` and double backward; checks that the
  recomputation saves tensors of the same number, shapes and dtypes. The segment's nodes
  carry a :class:`CheckpointSegment` (``node._checkpoint_segment``), so the glass-box tools
  draw them as one box.

The random number generator is restored for the recomputation (``preserve_rng_state``), so
dropout draws the same mask.

Example::

    >>> layer = glassgrad.nn.Linear(4, 4)
    >>> x = glassgrad.randn(2, 4, requires_grad=True)
    >>> y = checkpoint(lambda t: layer(t).relu(), x, use_reentrant=False)
    >>> y.sum().backward()
"""

from __future__ import annotations

import contextlib
import traceback
import warnings
import weakref
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from .. import _factories
from .._tensor import Tensor
from ..autograd import graph
from ..autograd.function import Function
from ..autograd.grad_mode import enable_grad, is_grad_enabled, no_grad
from ..autograd.graph import saved_tensors_hooks
from ..autograd.op import _modified_error

__all__ = [
    "checkpoint",
    "CheckpointSegment",
    "checkpoint_sequential",
    "CheckpointError",
    "GraphExecGroup",
    "check_backward_validity",
    "detach_variable",
    "noop_context_fn",
    "set_checkpoint_debug_enabled",
    "set_checkpoint_early_stop",
]

_DEFAULT_DETERMINISM_MODE = "default"
_early_stop_override: bool | None = None
_debug_override: bool | None = None

_DEBUG_TIP = (
    "\nTip: To see a more detailed error message, either pass `debug=True` to\n"
    "`torch.utils.checkpoint.checkpoint(...)` or wrap the code block\n"
    "with `with torch.utils.checkpoint.set_checkpoint_debug_enabled(True):` to\n"
    "enable checkpoint-debug mode globally.\n"
)


class CheckpointError(RuntimeError):
    """The recomputation of a checkpointed segment did not match its forward."""


def noop_context_fn() -> tuple[Any, ...]:
    """The default ``context_fn``: no context around the forward or the recomputation."""
    return contextlib.nullcontext(), contextlib.nullcontext()


def detach_variable(inputs: tuple[Any, ...]) -> tuple[Any, ...]:
    """Each tensor of ``inputs`` detached, keeping its ``requires_grad``."""
    if not isinstance(inputs, tuple):
        raise RuntimeError(
            "Only tuple of tensors is supported. Got Unsupported input type: "
            f"{type(inputs).__name__}"
        )
    out = []
    for x in inputs:
        if isinstance(x, Tensor):
            detached = x.detach()
            detached.requires_grad = x.requires_grad
            x = detached
        out.append(x)
    return tuple(out)


def check_backward_validity(inputs: Iterable[Any]) -> None:
    """Warn when no input requires grad: the checkpointed gradients would all be None."""
    if not any(x.requires_grad for x in inputs if isinstance(x, Tensor)):
        warnings.warn(
            "None of the inputs have requires_grad=True. Gradients will be None",
            UserWarning,
            stacklevel=2,
        )


@contextlib.contextmanager
def set_checkpoint_early_stop(enable: bool) -> Iterator[None]:
    """Whether non-reentrant checkpoints made inside stop recomputing as soon as every saved
    value is back (the default) or recompute the whole segment."""
    global _early_stop_override
    previous, _early_stop_override = _early_stop_override, enable
    try:
        yield
    finally:
        _early_stop_override = previous


@contextlib.contextmanager
def set_checkpoint_debug_enabled(enabled: bool | None) -> Iterator[None]:
    """Overrides every checkpoint's ``debug`` argument inside (None: each its own)."""
    global _debug_override
    previous, _debug_override = _debug_override, enabled
    try:
        yield
    finally:
        _debug_override = previous


class _RngState:
    """The default generator's state at the forward, restored for the recomputation; the
    state before the recomputation comes back after it (PyTorch's fork_rng)."""

    def __init__(self, preserve: bool) -> None:
        self.state = _factories.default_generator.get_state() if preserve else None

    @contextlib.contextmanager
    def replay(self) -> Iterator[None]:
        if self.state is None:
            yield
            return
        generator = _factories.default_generator
        before = generator.get_state()
        generator.set_state(self.state)
        try:
            yield
        finally:
            generator.set_state(before)


# --- use_reentrant=True ---------------------------------------------------------------------


class CheckpointFunction(Function):
    """The reentrant variant: forward without a graph, backward recomputes and backpropagates
    through the segment."""

    @staticmethod
    def forward(
        ctx: Any, run_function: Callable[..., Any], preserve_rng_state: bool, *args: Any
    ) -> Any:
        check_backward_validity(args)
        ctx.run_function = run_function
        ctx.rng = _RngState(preserve_rng_state)
        ctx.inputs = [None if isinstance(a, Tensor) else a for a in args]
        ctx.tensor_indices = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        ctx.save_for_backward(*(a for a in args if isinstance(a, Tensor)))
        with no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> tuple[Any, ...]:
        task = graph.current_graph_task()
        if task is not None and task.selective is not None:
            raise RuntimeError(
                "When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() "
                "or passing an `inputs` parameter to .backward(). To resolve this error, you "
                "can either set use_reentrant=False, or call .backward() without passing the "
                "`inputs` argument."
            )
        inputs = list(ctx.inputs)
        for i, t in zip(ctx.tensor_indices, ctx.saved_tensors):
            inputs[i] = t
        with ctx.rng.replay():
            detached = detach_variable(tuple(inputs))
            with enable_grad():
                outputs = ctx.run_function(*detached)
        if isinstance(outputs, Tensor):
            outputs = (outputs,)
        pairs = [
            (o, g)
            for o, g in zip(outputs, grad_outputs)
            if isinstance(o, Tensor) and o.requires_grad
        ]
        if not pairs:
            raise RuntimeError(
                "none of output has requires_grad=True, this checkpoint() is not necessary"
            )
        from ..autograd import backward

        backward([o for o, _ in pairs], [g for _, g in pairs])
        return (None, None) + tuple(x.grad if isinstance(x, Tensor) else None for x in detached)


# --- use_reentrant=False --------------------------------------------------------------------


class _Holder:
    """What the graph keeps for one saved tensor: a placeholder, filled per backward."""

    _saved_description = "placeholder: recomputed by checkpoint in backward"

    def __init__(self) -> None:
        self.handles: dict = {}


class CheckpointSegment:
    """The nodes one ``checkpoint(..., use_reentrant=False)`` call recorded (glassgrad extra:
    each of them refers to it as ``node._checkpoint_segment``; the outermost call wins when
    checkpoints nest). ``name`` is the checkpointed function's; :meth:`nodes` the live nodes.

    Example::

        >>> x = glassgrad.randn(3, requires_grad=True)
        >>> y = checkpoint(lambda t: t.sin().exp(), x, use_reentrant=False)
        >>> [type(n).__name__ for n in y.grad_fn._checkpoint_segment.nodes()]
        ['ExpBackward0', 'SinBackward0']
    """

    name: str

    __slots__ = ("name", "_members", "__weakref__")

    def __init__(self, name: str, members: list[Any]) -> None:
        self.name = name
        self._members = [weakref.ref(node) for node in members]

    def nodes(self) -> list[Any]:
        """The segment's nodes still alive, outputs first."""
        return [node for node in (ref() for ref in self._members) if node is not None]

    def __repr__(self) -> str:
        return f"<CheckpointSegment {self.name!r}: {len(self._members)} nodes>"


def _function_name(function: Any) -> str:
    name = getattr(function, "__qualname__", None) or getattr(function, "__name__", None)
    if name is None or not isinstance(name, str):
        name = type(function).__name__  # a module or another callable object
    return name


def _tag_segment(function: Any, result: Any, first_seq: int) -> None:
    """Mark the nodes recorded since ``first_seq`` that lead to ``result`` as one segment."""
    stack = [t.grad_fn for t in _tensors_in(result) if t.grad_fn is not None]
    members: list = []
    seen: set = set()
    while stack:
        node = stack.pop()
        if id(node) in seen or isinstance(node, graph.AccumulateGrad) or node._seq < first_seq:
            continue
        seen.add(id(node))
        members.append(node)
        stack.extend(child for child, _ in node.next_functions if child is not None)
    if members:
        segment = CheckpointSegment(_function_name(function), members)
        for node in members:
            node._checkpoint_segment = segment


def _tensors_in(value: Any) -> list:
    if isinstance(value, Tensor):
        return [value]
    if isinstance(value, (tuple, list)):
        return [t for item in value for t in _tensors_in(item)]
    if isinstance(value, dict):
        return [t for item in value.values() for t in _tensors_in(item)]
    return []


class _Handle:
    pass


class _StopRecomputation(Exception):
    pass


class GraphExecGroup:
    """Backward calls made inside one instance recompute each checkpointed segment at most
    once (they must then need disjoint saved values)."""

    current: GraphExecGroup | None = None

    def __enter__(self) -> GraphExecGroup:
        if GraphExecGroup.current is not None:
            raise RuntimeError(
                "GraphExecGroup contexts cannot be nested. Already inside group "
                f"{GraphExecGroup.current}"
            )
        GraphExecGroup.current = self
        return self

    def __exit__(self, *exc: object) -> None:
        GraphExecGroup.current = None


def _metadata(x: Tensor) -> dict:
    return {"shape": x.shape, "dtype": x.dtype, "device": x.device}


_METADATA_CHECKS: dict = {_DEFAULT_DETERMINISM_MODE: _metadata, "none": lambda _: None}


class _Frame:
    """One checkpointed call: its inputs, the placeholders its forward saved, and per backward
    (graph task or GraphExecGroup) the values the recomputation produced."""

    def __init__(self, recompute: Callable, early_stop: bool, metadata_fn: Callable,
                 debug: bool) -> None:  # fmt: skip
        self.recompute = recompute
        self.early_stop = early_stop
        self.metadata_fn = metadata_fn
        self.debug = debug
        self.inputs: list = []  # (value, version or None)
        self.weak_holders: list = []
        self.metadatas: list = []
        self.recomputed: dict = defaultdict(weakref.WeakKeyDictionary)
        self.count: dict = defaultdict(int)
        self.done: dict = defaultdict(bool)
        self.forward_completed = False
        self.ignore_mismatch = False
        self.logs: dict = {"forward": [], "recompute": []}

    def save_inputs(self, args: tuple) -> None:
        self.inputs = [(a, a._version) if isinstance(a, Tensor) else (a, None) for a in args]

    def get_inputs(self) -> list:
        values = []
        for value, version in self.inputs:
            if version is not None and value._version != version:
                raise _modified_error(value, version, value.grad_fn)
            values.append(value)
        return values

    def log(self, phase: str, x: Tensor) -> None:
        if self.debug:
            frames = [f for f in traceback.extract_stack() if "glassgrad" not in f.filename]
            where = "".join(traceback.format_list(frames[-3:]))
            self.logs[phase].append(f"saved {_metadata(x)}\n{where}")

    def check_recomputed(self, gid: Any) -> None:
        if self.ignore_mismatch:
            return
        if len(self.weak_holders) != self.count[gid]:
            self.fail(
                "torch.utils.checkpoint: A different number of tensors was saved during the "
                "original forward and recomputation.\n"
                f"Number of tensors saved during forward: {len(self.weak_holders)}\n"
                f"Number of tensors saved during recomputation: {self.count[gid]}.\n" + _DEBUG_TIP
            )
        different = []
        for i, ref in enumerate(self.weak_holders):
            holder = ref()
            if holder is None:
                continue
            recomputed = self.metadata_fn(self.recomputed[gid][holder.handles[gid]])
            if self.metadatas[i] != recomputed:
                different.append(
                    f"tensor at position {i}:\nsaved metadata: {self.metadatas[i]}\n"
                    f"recomputed metadata: {recomputed}\n"
                )
        if different:
            self.fail(
                "torch.utils.checkpoint: Recomputed values for the following tensors have "
                "different metadata than during the forward pass.\n"
                + "".join(different)
                + ".\n"
                + _DEBUG_TIP
            )

    def fail(self, message: str) -> None:
        if not self.debug:
            raise CheckpointError(message)
        raise CheckpointError(
            "An error happened while unpacking tensors; dumping logs of latest computation "
            "because you passed `debug=True` to `torch.utils.checkpoint.checkpoint()`.\n"
            "Tensors saved during the original forward:\n"
            + "\n".join(self.logs["forward"])
            + "\nTensors saved during recomputation:\n"
            + "\n".join(self.logs["recompute"])
            + "\nERROR: Detected non-determinism while running activation checkpointing\n"
            "You are seeing this error because you passed `debug=True` to checkpoint and "
            "tensors to be saved during the original forward and differ between those saved "
            "during recomputation.\n" + message
        )


def _group_id() -> Any:
    if GraphExecGroup.current is not None:
        return GraphExecGroup.current
    task = graph.current_graph_task()
    return task.id if task is not None else object()  # outside backward: a fresh one


class _RecomputationHooks(saved_tensors_hooks):
    """While the segment runs again: each saved value goes to the placeholder of the same
    position in the forward; stop once all are filled (early stop)."""

    def __init__(self, frame: _Frame, gid: Any) -> None:
        def pack(x: Tensor) -> Tensor:
            x = x.detach() if x.requires_grad else x
            frame.log("recompute", x)
            index = frame.count[gid]
            frame.count[gid] += 1
            if index >= len(frame.weak_holders):
                if not frame.forward_completed:
                    frame.ignore_mismatch = True
                    return x
                frame.fail(
                    "torch.utils.checkpoint: trying to save more tensors during recomputation "
                    "than during the original forward pass.\n" + _DEBUG_TIP
                )
            holder = frame.weak_holders[index]()
            if holder is not None:
                holder.handles[gid] = _Handle()
                frame.recomputed[gid][holder.handles[gid]] = x
            if frame.early_stop and frame.count[gid] == len(frame.weak_holders):
                raise _StopRecomputation
            return x

        super().__init__(pack, lambda x: x)


class _CheckpointHooks(saved_tensors_hooks):
    """While the checkpointed forward runs: keep placeholders instead of saved values."""

    def __init__(self, frame: _Frame) -> None:
        def pack(x: Tensor) -> _Holder:
            holder = _Holder()
            frame.weak_holders.append(weakref.ref(holder))
            frame.metadatas.append(frame.metadata_fn(x))
            frame.log("forward", x)
            return holder

        def unpack(holder: _Holder) -> Tensor:
            gid = _group_id()
            if not frame.done[gid]:
                args = frame.get_inputs()
                try:
                    with _RecomputationHooks(frame, gid), enable_grad():
                        frame.recompute(*args)
                except _StopRecomputation:
                    pass
                frame.done[gid] = True
                frame.check_recomputed(gid)
            handle = holder.handles.get(gid)
            if handle is None:
                overlap = (
                    "Performing two backward calls that overlap (i.e. require the same saved "
                    "activation in order to compute gradients) is not allowed while under the "
                    "torch.utils.checkpoint.GraphExecGroup context. "
                    if GraphExecGroup.current is not None
                    else ""
                )
                raise CheckpointError(
                    "torch.utils.checkpoint: Unpack is being triggered for a tensor that was "
                    f"already unpacked once. {overlap}If you are calling ctx.saved_tensors in "
                    "backward, make sure to do so only once. Otherwise please open an issue "
                    "with details on your use case."
                )
            value = frame.recomputed[gid][handle]
            holder.handles[gid] = None
            return value

        super().__init__(pack, unpack)


def _checkpoint_without_reentrant(
    function: Callable, preserve_rng_state: bool, context_fn: Callable, determinism_check: str,
    debug: bool, early_stop: bool, args: tuple, kwargs: dict,
) -> Any:  # fmt: skip
    debug = _debug_override if _debug_override is not None else debug
    if debug and context_fn is not noop_context_fn:
        raise ValueError("debug=True is incompatible with non-default context_fn")
    if determinism_check not in _METADATA_CHECKS:
        raise ValueError(
            f"determinism_check should be one of {list(_METADATA_CHECKS)}, but got "
            f"{determinism_check}"
        )
    forward_context, recompute_context = context_fn()
    rng = _RngState(preserve_rng_state)

    def recompute(*inputs: Any) -> None:
        with rng.replay(), recompute_context:
            function(*inputs, **kwargs)

    if not is_grad_enabled():
        with forward_context:
            return function(*args, **kwargs)
    stop = _early_stop_override if _early_stop_override is not None else early_stop
    frame = _Frame(recompute, stop, _METADATA_CHECKS[determinism_check], debug)
    frame.save_inputs(args)
    first_seq = next(graph.sequence_counter)
    with _CheckpointHooks(frame), forward_context:
        result = function(*args, **kwargs)
    frame.forward_completed = True
    _tag_segment(function, result, first_seq)
    return result


def checkpoint(
    function: Callable[..., Any],
    *args: Any,
    use_reentrant: bool | None = None,
    context_fn: Callable[[], tuple[Any, ...]] = noop_context_fn,
    determinism_check: str = _DEFAULT_DETERMINISM_MODE,
    debug: bool = False,
    early_stop: bool = True,
    **kwargs: Any,
) -> Any:
    """Run ``function(*args, **kwargs)`` without keeping its saved activations; backward runs
    it again to get them (see the module docstring for the two variants).

    ``use_reentrant`` should be passed (PyTorch warns without it and takes True);
    ``preserve_rng_state`` (keyword, default True) replays the random stream;
    ``context_fn`` returns two context managers, for the forward and for the recomputation
    (non-reentrant only, as ``debug``, ``determinism_check`` and keyword arguments).

    Example::

        >>> x = glassgrad.randn(3, requires_grad=True)
        >>> y = checkpoint(lambda t: t.sin().exp(), x, use_reentrant=False)
        >>> y.sum().backward()
    """
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. "
            "Starting in PyTorch 2.9, calling checkpoint without use_reentrant will raise an "
            "exception. use_reentrant=False is recommended, but if you need to preserve the "
            "current default behavior, you can pass use_reentrant=True. Refer to docs for "
            "more details on the differences between the two variants.",
            UserWarning,
            stacklevel=2,
        )
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if use_reentrant:
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError(
                "Passing `context_fn` or `debug` is only supported when use_reentrant=False."
            )
        return CheckpointFunction.apply(function, preserve, *args)
    return _checkpoint_without_reentrant(
        function, preserve, context_fn, determinism_check, debug, early_stop, args, kwargs
    )


def checkpoint_sequential(
    functions: Any, segments: int, input: Any, use_reentrant: bool | None = None, **kwargs: Any
) -> Any:
    """Run ``functions`` (a list of callables or an ``nn.Sequential``) in ``segments``
    chunks, each checkpointed but the last.

    Example::

        >>> model = glassgrad.nn.Sequential(*[glassgrad.nn.Linear(4, 4) for _ in range(4)])
        >>> x = glassgrad.randn(2, 4, requires_grad=True)
        >>> checkpoint_sequential(model, 2, x, use_reentrant=False).sum().backward()
    """
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should "
            "be passed explicitly. In version 2.9 we will raise an exception if use_reentrant "
            "is not passed. use_reentrant=False is recommended, but if you need to preserve "
            "the current default behavior, you can pass use_reentrant=True. Refer to docs for "
            "more details on the differences between the two variants.",
            UserWarning,
            stacklevel=2,
        )
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    from ..nn import Sequential

    if isinstance(functions, Sequential):
        functions = list(functions.children())

    def run(start: int, end: int) -> Callable:
        def forward(x: Any) -> Any:
            for j in range(start, end + 1):
                x = functions[j](x)
            return x

        forward.__qualname__ = f"checkpoint_sequential[{start}:{end + 1}]"
        return forward

    size = len(functions) // segments
    end = -1
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        input = checkpoint(
            run(start, end), input, use_reentrant=use_reentrant, preserve_rng_state=preserve
        )
    return run(end + 1, len(functions) - 1)(input)
