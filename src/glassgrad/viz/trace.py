"""Record a backward pass: which node ran when, and the gradients that flowed through it.

A post-hook on every node of the graph (``node.register_hook``) is called right after the
node ran with ``(grad_inputs, grad_outputs)``: the gradients it produced for its inputs and the
gradients it received for its outputs. The hooks only read them; they return None, so the
backward pass computes exactly what it would without them.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from ._graph import Graph, SavedValue, build_graph, collector_paused, is_tensor
from ._stats import BATCH_NUMEL, TensorStats, as_array, tensor_stats, tensor_stats_many

__all__ = ["BackwardTrace", "NodeRecord", "record_backward", "trace_backward"]


@dataclass
class NodeRecord:
    """What one node did during backward.

    ``step`` is its position in the order backward ran the nodes (1 = first);
    ``grad_outputs`` the statistics of the gradients it received (one per forward output,
    None where none arrived); ``grad_inputs`` those of the gradients it sent to each input
    (one per ``next_functions`` slot).
    """

    step: int
    name: str
    grad_outputs: list[TensorStats | None]
    grad_inputs: list[TensorStats | None]
    grad_output_values: list[list[Any] | None] = field(default_factory=list)
    grad_input_values: list[list[Any] | None] = field(default_factory=list)

    @property
    def made_nonfinite(self) -> bool:
        """True if finite gradients came in and NaN/Inf went out: the op that broke them."""
        received_finite = all(s is None or s.finite for s in self.grad_outputs)
        sent_nonfinite = any(s is not None and not s.finite for s in self.grad_inputs)
        return received_finite and sent_nonfinite


@dataclass
class BackwardTrace:
    """The record of one backward pass over a graph (see :func:`record_backward`).

    ``records`` maps ``id(node)`` to its :class:`NodeRecord`; ``order`` lists the nodes in the
    order backward ran them. ``saved`` holds the saved values of every node read *before*
    backward freed them, so the explorer can still show them afterwards.
    """

    graph: Graph
    order: list[Any] = field(default_factory=list)
    records: dict[int, NodeRecord] = field(default_factory=dict)
    saved: dict[int, tuple[list[SavedValue], str]] = field(default_factory=dict)
    error: BaseException | None = None
    _origins: list[Any] | None = field(default=None, repr=False)  # (found once recorded)

    def record_of(self, node: Any) -> NodeRecord | None:
        return self.records.get(id(node))

    def nonfinite_origins(self) -> list[Any]:
        """Nodes that received finite gradients and produced NaN or Inf, in backward order."""
        if self._origins is None:
            self._origins = [node for node in self.order if self.records[id(node)].made_nonfinite]
        return list(self._origins)


# Gradients with at most this many entries are also kept as values (for print_graph).
SMALL_VALUE_LIMIT = 8
# Small gradients are copied and their statistics computed together when the pass ends (or
# when this many entries wait): per-tensor NumPy calls would cost more than the backward.
PENDING_LIMIT = 1 << 22


class _PendingStats:
    """Gradients waiting for their statistics: ``(list, index, copy)``; :meth:`flush` puts
    each one's :class:`TensorStats` at ``list[index]``."""

    __slots__ = ("targets", "arrays", "size")

    def __init__(self) -> None:
        self.targets: list[tuple[list, int]] = []
        self.arrays: list[Any] = []
        self.size = 0

    def add(self, target: list, index: int, array: Any) -> None:
        if array.size > BATCH_NUMEL:  # big: the NumPy calls are worth it, and no copy
            target[index] = tensor_stats(array)
            return
        self.targets.append((target, index))
        self.arrays.append(array.copy())  # a later hook or op might write into the original
        self.size += array.size
        if self.size > PENDING_LIMIT:
            self.flush()

    def flush(self) -> None:
        with collector_paused():
            computed = tensor_stats_many(self.arrays)
        for (target, index), stats in zip(self.targets, computed, strict=True):
            target[index] = stats
        self.targets, self.arrays, self.size = [], [], 0


def _grad_stats(
    grads: Any, pending: _PendingStats
) -> tuple[list[TensorStats | None], list[list[Any] | None]]:
    # None per gradient for now: ``pending`` fills in the statistics.
    stats: list[TensorStats | None] = [None] * len(grads or ())
    values: list[list[Any] | None] = [None] * len(stats)
    for index, grad in enumerate(grads or ()):
        if grad is None:
            continue
        array = as_array(grad)
        pending.add(stats, index, array)
        if array.size <= SMALL_VALUE_LIMIT:
            values[index] = array.reshape(-1).tolist()
    return stats, values


@contextmanager
def record_backward(roots: Any) -> Iterator[BackwardTrace]:
    """Record the backward passes run inside the ``with`` block over the graph of ``roots``.

    Parameters
    ----------
    roots : Tensor or tuple/list of Tensor
        The tensors whose graph will be differentiated (usually the loss).

    Yields
    ------
    BackwardTrace
        Filled in as backward runs; its gradient statistics are complete when the block ends.

    Examples
    --------
    >>> x = glassgrad.ones(2, requires_grad=True)
    >>> loss = (x * 3).sum()
    >>> with record_backward(loss) as trace:
    ...     loss.backward()
    >>> [type(node).__name__ for node in trace.order]
    ['SumBackward0', 'MulBackward0', 'AccumulateGrad']
    """
    graph = build_graph(roots, func_name="record_backward")
    trace = BackwardTrace(graph)
    pending = _PendingStats()
    handles = []
    for node in graph.op_nodes():
        trace.saved[id(node.obj)] = (node.saved, node.saved_error)
        handles.append(node.obj.register_hook(_Recorder(trace, node.obj, pending)))
    try:
        yield trace
    finally:
        for handle in handles:
            handle.remove()
        pending.flush()
        trace._origins = None  # (asked for before the statistics were in)


class _Recorder:
    """The post-hook for one node (a small object, not a closure, to keep the frame free)."""

    __slots__ = ("trace", "node", "pending")

    def __init__(self, trace: BackwardTrace, node: Any, pending: _PendingStats) -> None:
        self.trace = trace
        self.node = node
        self.pending = pending

    def __call__(self, grad_inputs: Any, grad_outputs: Any) -> None:
        trace = self.trace
        input_stats, input_values = _grad_stats(grad_inputs, self.pending)
        output_stats, output_values = _grad_stats(grad_outputs, self.pending)
        trace.order.append(self.node)
        trace._origins = None
        trace.records[id(self.node)] = NodeRecord(
            step=len(trace.order),
            name=type(self.node).__name__,
            grad_outputs=output_stats,
            grad_inputs=input_stats,
            grad_output_values=output_values,
            grad_input_values=input_values,
        )
        return None


def trace_backward(
    root: Any,
    gradient: Any = None,
    *,
    retain_graph: bool | None = None,
    raise_errors: bool = True,
) -> BackwardTrace:
    """Run ``root.backward(gradient)`` and return its :class:`BackwardTrace`.

    Gradients accumulate into the leaves' ``.grad`` exactly as with ``root.backward()``; use it
    in place of that call.

    Parameters
    ----------
    root : Tensor
        The tensor to differentiate (a scalar loss, or pass ``gradient``).
    gradient : Tensor, optional
        The gradient of the root, as for ``Tensor.backward``.
    retain_graph : bool, optional
        Passed to ``backward``.
    raise_errors : bool
        If False, an error raised by backward is stored in ``trace.error`` instead.

    Examples
    --------
    >>> x = glassgrad.tensor([0.0], requires_grad=True)
    >>> trace = trace_backward((glassgrad.log(x) * 0).sum())
    >>> [node.name() for node in trace.nonfinite_origins()]
    ['LogBackward0']
    """
    if not is_tensor(root):
        raise TypeError(
            f"trace_backward: expected the tensor to differentiate (e.g. the loss), "
            f"got {type(root).__name__}"
        )
    with collector_paused(), record_backward(root) as trace:
        try:
            root.backward(gradient, retain_graph=retain_graph)
        except Exception as error:  # noqa: BLE001 - handed back to the caller on request
            if raise_errors:
                raise
            trace.error = error
    return trace
