"""The backward engine: walk the graph from the roots, run each Node once all its gradients
have arrived, most recently created first. Iterative, so a graph of any depth works.
"""

from __future__ import annotations

import heapq
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from .._add_kernel import COMPLEX64, COMPLEX128, as_add_kernel
from . import graph
from .anomaly import check_nan, print_stack
from .grad_mode import state as grad_state
from .graph import AccumulateGrad, Node, ZeroGradient, accumulate, unwrap_tensor, wrap_array
from .op import SavedDependencyBackward0, _expandable, fit_gradient
from .views import edge_of

__all__ = ["run_backward", "queue_callback"]

_QUEUED = object()  # marks that the first node made ready was already pushed on the heap

# One list per backward pass in progress (a backward run from inside a hook nests): the
# callbacks to run when that pass has finished.
_final_callbacks: list[list] = []


def queue_callback(callback: Any) -> None:
    """Run ``callback()`` once the backward pass now running has finished (after every
    node and leaf accumulation; PyTorch's ``Variable._execution_engine.queue_callback``).

    Only callable from inside a backward pass (a hook); callbacks run in the order queued,
    and a callback may queue more.
    """
    if not _final_callbacks:
        raise RuntimeError("Final callbacks can only be installed during backward pass.")
    _final_callbacks[-1].append(callback)


def _collect(root_nodes: list) -> dict:
    """Count, for every Node reachable from the roots, the edges that lead into it."""
    deps = dict.fromkeys(root_nodes, 0)
    stack = list(deps)
    # One dict lookup per edge, the methods bound once: this walks every node of the graph.
    count_of, push, pop = deps.get, stack.append, stack.pop
    while stack:
        for nxt in pop()._next_nodes:
            if nxt is not None:
                count = count_of(nxt)
                if count is None:
                    deps[nxt] = 1
                    push(nxt)
                else:
                    deps[nxt] = count + 1
    return deps


def _needed(root_nodes: list, targets: set) -> set:
    """Nodes from which some target is reachable (only those need to run)."""
    needed: set = set()
    done: set = set()
    for root in root_nodes:
        if root in done:
            continue
        stack = [(root, iter(root._next_nodes))]
        done.add(root)
        while stack:
            node, children = stack[-1]
            for nxt in children:
                if nxt is not None and nxt not in done:
                    done.add(nxt)
                    stack.append((nxt, iter(nxt._next_nodes)))
                    break
            else:
                stack.pop()
                if node in targets or any(
                    nxt in needed for nxt in node._next_nodes if nxt is not None
                ):
                    needed.add(node)
    return needed


def _call_tensor_hooks(node: Node, grads: list, create_graph: bool) -> None:
    """The hooks of the tensors this node produced, then retain_grad (PyTorch's tensor
    pre-hooks, which run before the node's own pre-hooks). An output that got no gradient
    is shown to its hooks as None, as PyTorch does."""
    if type(node) is AccumulateGrad:
        grads[0] = node._cast_to_grad_dtype(grads[0])
        if node.variable._hooks:
            grads[0] = node._hooked_grad(grads[0], create_graph)
        return
    if node._tensor_hooks:
        for nr, hooks in node._tensor_hooks.items():
            g = grads[nr]
            for hook in tuple(hooks.values()):
                result = hook(wrap_array(g))
                if result is not None:
                    g = unwrap_tensor(result, create_graph)
                result = None  # a Tensor left here would keep the gradient referenced
            grads[nr] = g
            g = None
    if node._retain_grad:
        for nr, ref in node._retain_grad.items():
            t = ref()
            if t is not None and grads[nr] is not None:
                accumulate(t, grads[nr], create_graph, retained=True)


def _call_pre_hooks(node: Node, grads: list, create_graph: bool) -> None:
    for hook in tuple(node._pre_hooks.values()):
        result = hook(tuple(wrap_array(g) for g in grads))
        if result is not None:
            grads[:] = [unwrap_tensor(r, create_graph) for r in result]
        result = None


def _call_post_hooks(node: Node, outputs: Any, grads: list, create_graph: bool) -> tuple:
    # Inputs without an edge get None, as PyTorch shows them (their values are never used).
    if outputs is None:
        outputs = (None,) * len(node._next_nodes)
    grad_inputs = tuple(
        None if nxt is None else wrap_array(g) for nxt, g in zip(node._next_nodes, outputs)
    )
    grad_outputs = tuple(wrap_array(g) for g in grads)
    for hook in tuple(node._post_hooks.values()):
        result = hook(grad_inputs, grad_outputs)
        if result is not None:
            grad_inputs = tuple(result)
    return tuple(unwrap_tensor(g, create_graph) for g in grad_inputs)


# A backward called from inside a backward (re-entrant) runs in a fresh thread every this many
# levels, as PyTorch hands deep re-entrance to other threads: each thread has its own Python
# recursion count and C stack, so any depth works.
_REENTRANT_DEPTH_PER_THREAD = 32
_THREAD_STACK_SIZE = 64 * 1024 * 1024


def run_backward(
    roots: Sequence[Any],
    root_grads: Sequence[Any],
    retain_graph: bool,
    create_graph: bool,
    inputs: Sequence[Any] | None = None,
    accumulate_grad: bool = True,
) -> list[Any] | None:
    """Backpropagate (see ``_run_backward``), in a fresh thread when re-entrance is deep."""
    depth = len(graph.graph_tasks)
    args = (roots, root_grads, retain_graph, create_graph, inputs, accumulate_grad)
    if not depth or depth % _REENTRANT_DEPTH_PER_THREAD:
        return _run_backward(*args)
    outcome: list = []

    def run() -> None:
        try:
            outcome.append((True, _run_backward(*args)))
        except BaseException as error:  # handed back to the waiting thread
            outcome.append((False, error))

    previous = threading.stack_size(_THREAD_STACK_SIZE)
    try:
        worker = threading.Thread(target=run, name="glassgrad-reentrant-backward")
        worker.start()
    finally:
        threading.stack_size(previous)
    worker.join()
    ok, value = outcome[0]
    if not ok:
        raise value
    return value


def _run_backward(
    roots: Sequence[Any],
    root_grads: Sequence[Any],
    retain_graph: bool,
    create_graph: bool,
    inputs: Sequence[Any] | None = None,
    accumulate_grad: bool = True,
) -> list | None:
    """Backpropagate ``root_grads`` from ``roots``.

    With ``accumulate_grad`` (``backward``), leaf gradients are added into ``.grad`` (only
    for ``inputs`` when given). Without it (``autograd.grad``), the gradients reaching
    ``inputs`` are returned instead, in order, None where nothing arrived.
    """
    # One pass over the roots: their edges and starting gradients. A root without an edge (a
    # view made in no-grad mode) sends its gradient nowhere.
    buffers: dict = {}
    pinned = graph.pinned_nodes.alive > 0  # a tensor's shape was changed (see data_replaced)
    for index, (r, g) in enumerate(zip(roots, root_grads)):
        node, nr = _edge(r)
        if node is None:
            continue
        if pinned and node._pinned_meta is not None:
            g = _validate_root(node, index, g, node._pinned_meta.get(nr), create_graph)
        buf = buffers.get(node)
        if buf is None:
            buf = buffers[node] = [None] * node._n_out
        old = buf[nr]
        buf[nr] = g if old is None else as_add_kernel(old + g, old, g)
    root_nodes = list(buffers)
    deps = _collect(root_nodes)

    capture: dict = {}  # node -> list of (output_nr, index into inputs)
    selective = None  # with inputs: the nodes that lead to one of them (only those run)
    captured: list = []
    if inputs is not None:
        for index, t in enumerate(inputs):
            node, nr = _edge(t)
            capture.setdefault(node, []).append((nr, index))
        selective = _needed(root_nodes, set(capture))
        captured = [None] * len(inputs)
        if accumulate_grad:
            capture = {}  # backward(inputs=): the inputs' own nodes run (see _run_node)

    heap: list = []
    tick = 0
    direct = None  # the next node when it was the only one made ready (a chain): no heap
    ready = [node for node in root_nodes if deps[node] == 0]
    if len(ready) == 1:
        direct = ready[0]
    else:
        for node in ready:
            heapq.heappush(heap, (-node._seq, tick, node))
            tick += 1

    previous_mode = grad_state.enabled
    # Inference mode records nothing, create_graph or not (the short-circuit keeps the
    # common create_graph=False free of the extra read).
    grad_state.enabled = create_graph and not grad_state.inference
    anomaly = graph.anomaly.enabled
    heappush, heappop = heapq.heappush, heapq.heappop
    callbacks: list = []
    _final_callbacks.append(callbacks)
    graph.graph_tasks.append((deps, selective, accumulate_grad, inputs is not None))  # see graph
    # Saved-tensor hooks entered or exited by the nodes' code stay inside this backward (PyTorch
    # restores its thread-local state around the nodes it runs).
    hooks_before = graph.saved_hooks_stack[:]
    try:
        while True:
            if direct is not None:
                node, direct = direct, None
            elif heap:
                node = heappop(heap)[2]
            else:
                break
            grads = buffers.pop(node, None)
            outputs: Any = None
            zeros = False
            if grads is not None and (type(grads[0]) is ZeroGradient or len(grads) > 1):
                zeros = _unwrap_zeros(grads)
            if grads is not None and (grads[0] is not None or _any_grad(grads)):
                if node._hooked or selective is not None or anomaly:
                    outputs = _run_node(
                        node, grads, retain_graph, create_graph, capture, captured, selective,
                        accumulate_grad, anomaly,
                    )  # fmt: skip
                    zeros = zeros or node._zero_grads  # which _mark_zero_grads makes _hooked
                else:  # the common case, kept lean: no hooks, no inputs= filter, no anomaly mode
                    outputs = node._run(grads, create_graph)
                    if not retain_graph:
                        node._release()
            elif node._hooked or node._runs_undefined or selective is not None:
                # No gradient arrived, yet PyTorch runs the node: its hooks see None and a
                # custom Function's backward gets zeros (materialize_grads) or None.
                outputs = _run_node(
                    node, grads or [None] * node._n_out, retain_graph, create_graph, capture,
                    captured, selective, accumulate_grad, anomaly,
                )  # fmt: skip
                zeros = zeros or node._zero_grads
            if zeros and outputs:
                outputs = _zero_gradients(outputs, node._zero_grads, create_graph)
            if not outputs:
                outputs = (None,) * len(node._next_nodes)
            first = None
            nrs = node._next_nrs
            i = -1
            for nxt in node._next_nodes:  # indexing beats zip() over three short tuples
                i += 1
                if nxt is None:
                    continue
                g = outputs[i]
                if g is not None:
                    if pinned and nxt._pinned_meta is not None:
                        g = _validate(node, i, g, nxt._pinned_meta.get(nrs[i]), create_graph)
                    buf = buffers.get(nxt)
                    if buf is None:
                        if nxt._n_out == 1:
                            buffers[nxt] = [g]
                        else:
                            buf = buffers[nxt] = [None] * nxt._n_out
                            buf[nrs[i]] = g
                    else:
                        nr = nrs[i]
                        old = buf[nr]
                        if old is None:
                            buf[nr] = g
                        elif type(g) is ZeroGradient or type(old) is ZeroGradient:
                            buf[nr] = _add_zero(old, g)
                        else:
                            total = old + g
                            dtype = getattr(total, "dtype", None)
                            if dtype is COMPLEX64 or dtype is COMPLEX128:  # its real case inlined
                                total = as_add_kernel(total, old, g)
                            buf[nr] = total
                left = deps[nxt] - 1
                deps[nxt] = left
                if left == 0:
                    if first is None:
                        first = nxt
                        continue
                    if first is not _QUEUED:  # keep edge order among equal priorities
                        heappush(heap, (-first._seq, tick, first))
                        tick += 1
                        first = _QUEUED
                    heappush(heap, (-nxt._seq, tick, nxt))
                    tick += 1
            g = None  # else it would hold a gradient that an AccumulateGrad could take over
            if first is not None and first is not _QUEUED:
                if heap:
                    heappush(heap, (-first._seq, tick, first))
                    tick += 1
                else:
                    direct = first
        for callback in callbacks:  # the list may grow while it is walked: callbacks queue more
            callback()
    finally:
        _final_callbacks.pop()
        graph.graph_tasks.pop()
        graph.saved_hooks_stack[:] = hooks_before
        grad_state.enabled = previous_mode

    return None if accumulate_grad else captured


def _run_node(
    node: Node,
    grads: list,
    retain_graph: bool,
    create_graph: bool,
    capture: dict,
    captured: list,
    selective: set | None,
    accumulate_grad: bool,
    anomaly: bool,
) -> Any:
    """Run ``node`` with its hooks, the ``inputs=`` filter and anomaly checks, in PyTorch's
    order: tensor hooks and retain_grad, the capture of ``autograd.grad``, the node's
    pre-hooks, the node, its post-hooks. Returns its outputs, or None when it need not run.
    """
    hooked = node._hooked
    if selective is not None:
        # autograd.grad runs a node only on the way to another input; backward(inputs=)
        # also runs the inputs' own nodes (their AccumulateGrad, or a non-leaf's node, whose
        # .grad comes from retain_grad). A node that neither runs nor is an input of
        # autograd.grad is skipped, hooks and all.
        runs = node in selective if accumulate_grad else _leads_on(node, selective)
        targets = capture.get(node)
        if not runs and targets is None:
            return None
        _call_tensor_hooks(node, grads, create_graph)
        if targets is not None:  # autograd.grad takes the gradient here, after tensor hooks
            for nr, index in targets:
                captured[index] = grads[nr]
        if not runs:
            return None
    elif hooked:
        _call_tensor_hooks(node, grads, create_graph)
    if not anomaly:
        return _call_node(node, grads, retain_graph, create_graph)
    previous = graph.anomaly.current_node
    graph.anomaly.current_node = node  # nodes made while it runs record it as their parent
    try:
        outputs = _call_node(node, grads, retain_graph, create_graph)
        if graph.anomaly.check_nan:
            check_nan(node, outputs)
        return outputs
    except Exception:
        print_stack(node)  # PyTorch warns with the node's forward traceback; the error stays
        raise
    finally:
        graph.anomaly.current_node = previous


def _call_node(node: Node, grads: list, retain_graph: bool, create_graph: bool) -> Any:
    """The node's pre-hooks, the node, its post-hooks; its saved state released after."""
    hooked = node._hooked
    if hooked and node._pre_hooks:
        _call_pre_hooks(node, grads, create_graph)
    if not node._runs_undefined and not _any_grad(grads):
        outputs = None  # an op's backward of undefined gradients is undefined
    else:
        outputs = node._run(grads, create_graph)
    if hooked and node._post_hooks:
        outputs = _call_post_hooks(node, outputs, grads, create_graph)
    if not retain_graph:
        node._release()
    return outputs


def _validate(node: Node, i: int, g: Any, meta: tuple | None, create_graph: bool) -> Any:
    """Gradient ``g`` that ``node`` sends through its edge ``i``, checked against the
    metadata the receiving node recorded (PyTorch's validate_outputs: reduced when that shape
    broadcasts to g's, else an error; cast to the recorded dtype)."""
    if meta is None:
        return g
    if type(g) is ZeroGradient:
        return ZeroGradient(_validate(node, i, g.value, meta, create_graph))
    F = graph.tensor_namespace if create_graph else graph.array_namespace
    return fit_gradient(node, i, g, meta[0], meta[1], F, create_graph)


def _validate_root(node: Node, index: int, g: Any, meta: tuple | None, create_graph: bool) -> Any:
    """Root gradient ``index`` checked as ``_validate`` checks a node's (PyTorch's
    validate_outputs over the root edges, whose message names no function)."""
    if meta is None:
        return g
    shape = meta[0]
    got = g._data.shape if isinstance(g, graph.Tensor) else g.shape
    if got != shape and not _expandable(shape, got):
        raise RuntimeError(
            f"invalid gradient at index {index} - got {list(got)} but expected shape "
            f"compatible with {list(shape)}"
        )
    return _validate(node, index, g, meta, create_graph)


def _unwrap_zeros(grads: list) -> bool:
    """Put the zeros of each ZeroGradient in ``grads`` in its place; True when every
    gradient that arrived was one (the node's gradients are then zeros too)."""
    zeros = real = False
    for k, g in enumerate(grads):
        if type(g) is ZeroGradient:
            grads[k] = g.value
            zeros = True
        elif g is not None:
            real = True
    return zeros and not real


def _add_zero(old: Any, g: Any) -> Any:
    """The sum of two gradients of which one or both is a ZeroGradient: PyTorch's add of a
    zero tensor gives the other gradient's values, and under create_graph records the add
    when the zero tensor requires grad (the sum then requires grad too)."""
    if type(old) is ZeroGradient:
        old, g = g, old
    zero = g.value
    if not (isinstance(zero, graph.Tensor) and zero._requires_grad):
        return old
    if type(old) is ZeroGradient:  # both: the one tied to the graph
        return g
    return as_add_kernel(old + zero, old, zero)  # adding zeros keeps every value, inf and NaN


def _zero_gradients(outputs: Any, computed: bool, create_graph: bool) -> tuple:
    """A node's gradients as ZeroGradients: as ``computed`` (its own are zeros), or zeros in
    place of what its formula made of zeros (``0 * inf`` is NaN; PyTorch's zero tensor stays
    zero). A result that requires grad stays tied to the graph it was computed from, as
    PyTorch's product of a zero tensor and a tensor that requires grad is (and sends zero
    tensors back through it)."""
    zeroed = []
    for g in outputs:
        if g is not None and not computed:
            if isinstance(g, graph.Tensor):
                zero = graph.tensor_namespace.zeros(g._data.shape, g._data.dtype)
                if g._requires_grad:
                    zero = SavedDependencyBackward0.apply(zero, g, zeros=True)
                    zero.grad_fn._mark_zero_grads()
                g = zero
            else:
                g = np.zeros_like(g)
        zeroed.append(None if g is None else ZeroGradient(g))
    return tuple(zeroed)


def _edge(x: Any) -> tuple:
    """``(node, input_nr)`` of a tensor, or of a ``GradientEdge`` as it is."""
    if type(x) is graph.GradientEdge:
        return (x.node, x.output_nr)
    return edge_of(x)


def _leads_on(node: Node, needed: set) -> bool:
    return any(nxt in needed for nxt in node._next_nodes if nxt is not None)


def _any_grad(grads: list) -> bool:
    return any(g is not None for g in grads)
