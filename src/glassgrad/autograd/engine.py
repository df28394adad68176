"""The backward engine: walk the graph from the roots, run each Node once all its gradients
have arrived, most recently created first. Iterative, so a graph of any depth works.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from typing import Any

import numpy as np

from . import graph
from .grad_mode import state as grad_state
from .graph import AccumulateGrad, Node, accumulate, unwrap_tensor, wrap_array
from .views import edge_of

__all__ = ["run_backward"]

_QUEUED = object()  # marks that the first node made ready was already pushed on the heap


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


def _anomaly_context(node: Node) -> str:
    trace = node._metadata.get("traceback_") if node._metadata else None
    if not trace:
        return ""
    return "\nTraceback of forward call that caused the error:\n" + "".join(trace)


def _check_anomaly(node: Node, outputs: tuple) -> None:
    for i, g in enumerate(outputs):
        if g is None:
            continue
        data = g._data if isinstance(g, graph.Tensor) else np.asarray(g)
        if data.dtype.kind == "f" and not np.all(np.isfinite(data)):
            what = "nan" if np.isnan(data).any() else "inf"
            raise RuntimeError(
                f"Function '{node.name()}' returned {what} values in its {i}th output."
                + _anomaly_context(node)
            )


def _call_hooks(node: Node, grads: list, create_graph: bool) -> None:
    """Tensor hooks, then retain_grad, then the node's pre-hooks (PyTorch's order)."""
    if node._tensor_hooks:
        for nr, hooks in node._tensor_hooks.items():
            g = grads[nr]
            if g is None:
                continue
            for hook in tuple(hooks.values()):
                result = hook(wrap_array(g))
                if result is not None:
                    g = unwrap_tensor(result, create_graph)
            grads[nr] = g
    if node._retain_grad:
        for nr, ref in node._retain_grad.items():
            t = ref()
            if t is not None and grads[nr] is not None:
                accumulate(t, grads[nr], create_graph)
    if node._pre_hooks:
        for hook in tuple(node._pre_hooks.values()):
            result = hook(tuple(wrap_array(g) for g in grads))
            if result is not None:
                grads[:] = [unwrap_tensor(r, create_graph) for r in result]


def _call_post_hooks(node: Node, outputs: tuple, grads: list, create_graph: bool) -> tuple:
    # Inputs without an edge get None, as PyTorch shows them (their values are never used).
    grad_inputs = tuple(
        None if nxt is None else wrap_array(g) for nxt, g in zip(node._next_nodes, outputs)
    )
    grad_outputs = tuple(wrap_array(g) for g in grads)
    for hook in tuple(node._post_hooks.values()):
        result = hook(grad_inputs, grad_outputs)
        if result is not None:
            grad_inputs = tuple(result)
    return tuple(unwrap_tensor(g, create_graph) for g in grad_inputs)


def run_backward(
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
    # A root without an edge (a view made in no-grad mode) sends its gradient nowhere.
    root_edges = [edge for edge in map(edge_of, roots) if edge[0] is not None]
    root_grads = [g for r, g in zip(roots, root_grads) if edge_of(r)[0] is not None]
    root_nodes = [n for n, _ in root_edges]
    deps = _collect(root_nodes)

    capture: dict = {}  # node -> list of (output_nr, index into inputs)
    selective = None  # with inputs: the nodes that lead to one of them (only those run)
    if inputs is not None:
        for index, t in enumerate(inputs):
            node, nr = edge_of(t)
            capture.setdefault(node, []).append((nr, index))
        selective = _needed(root_nodes, set(capture))
    captured: list = [None] * (len(inputs) if inputs is not None else 0)

    buffers: dict = {}
    for (node, nr), g in zip(root_edges, root_grads):
        buf = buffers.get(node)
        if buf is None:
            buf = buffers[node] = [None] * node._n_out
        buf[nr] = g if buf[nr] is None else buf[nr] + g

    heap: list = []
    tick = 0
    for node in buffers:
        if deps[node] == 0:
            heapq.heappush(heap, (-node._seq, tick, node))
            tick += 1

    previous_mode = grad_state.enabled
    grad_state.enabled = create_graph
    anomaly = graph.anomaly.enabled
    heappush, heappop = heapq.heappush, heapq.heappop
    direct = None  # the next node when it was the only one made ready (a chain): no heap
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
            if grads is not None and (grads[0] is not None or _any_grad(grads)):
                if node._hooked or selective is not None or anomaly:
                    outputs = _run_node(
                        node, grads, retain_graph, create_graph, capture, captured, selective,
                        accumulate_grad, anomaly,
                    )  # fmt: skip
                else:  # the common case, kept lean: no hooks, no inputs= filter, no anomaly mode
                    outputs = node._run(grads, create_graph)
                    if not retain_graph:
                        node._release()
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
                        buf[nr] = g if old is None else old + g
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
    finally:
        grad_state.enabled = previous_mode

    if accumulate_grad:
        if inputs is not None:
            # backward(inputs=...): a non-leaf input keeps its gradient in .grad as well.
            for t, g in zip(inputs, captured):
                if g is not None and t.grad_fn is not None:
                    accumulate(t, g, create_graph)
        return None
    return captured


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
    """Run ``node`` with its hooks, the ``inputs=`` capture and anomaly checks; its outputs,
    or None when it need not run."""
    hooked = node._hooked
    if hooked:
        _call_hooks(node, grads, create_graph)
    if selective is not None and not _capture(
        node, grads, create_graph, capture, captured, selective, accumulate_grad
    ):
        return None
    try:
        outputs = node._run(grads, create_graph)
    except Exception as error:
        if anomaly and node._metadata:
            raise RuntimeError(
                f"Error detected in {node.name()}: {error}" + _anomaly_context(node)
            ) from error
        raise
    if hooked and node._post_hooks:
        outputs = _call_post_hooks(node, outputs, grads, create_graph)
    if anomaly:
        _check_anomaly(node, outputs)
    if not retain_graph:
        node._release()
    return outputs


def _capture(
    node: Node,
    grads: list,
    create_graph: bool,
    capture: dict,
    captured: list,
    needed: set,
    accumulate_grad: bool,
) -> bool:
    """Keep the gradients that reach an input of ``autograd.grad`` / ``backward(inputs=)``;
    True if ``node`` must still run (it leads to another input)."""
    is_leaf_sink = type(node) is AccumulateGrad
    targets = capture.get(node)
    if targets is not None:
        if is_leaf_sink:
            grads[0] = node._hooked_grad(grads[0], create_graph)
            if accumulate_grad:
                node._accumulate(grads[0], create_graph)
        for nr, index in targets:
            captured[index] = grads[nr]
    return not is_leaf_sink and node in needed


def _any_grad(grads: list) -> bool:
    return any(g is not None for g in grads)
