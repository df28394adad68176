"""``add_backward_graph``: the autograd graph of a loss as a TensorBoard graph.

Nodes are the ``grad_fn`` nodes backward runs, wired in the direction gradients flow (from the
loss towards the leaves); ``AccumulateGrad`` nodes are named by their parameter. With a
:class:`~glassgrad.viz.ForwardLog` every node is scoped by the module that created it, so a
model of thousands of nodes is browsed module by module. Gradient norms come from a
:class:`~glassgrad.viz.BackwardTrace` (every node: ``grad_received_norms`` and
``grad_sent_norms``, one per gradient, and ``backward_step``, when it ran), or, without one,
from the leaves' ``.grad`` once a backward ran (``grad_norm``).
"""

from __future__ import annotations

import math
from typing import Any

from ...viz._graph import OP, build_graph, named_tensor_map, upstream_first
from ._graph_def import ScopedNames, graph_profile, module_scopes, node_def

__all__ = ["backward_graph"]

WHAT = "add_backward_graph"


def backward_graph(
    loss: Any, params: Any = None, forward_log: Any = None, trace: Any = None
) -> tuple[Any, Any]:
    """The ``(GraphDef, RunMetadata)`` of the autograd graph of ``loss``."""
    if not hasattr(loss, "grad_fn"):
        raise TypeError(
            f"{WHAT}: expected the tensor whose graph to write (e.g. the loss), "
            f"got {type(loss).__name__}"
        )
    if loss.grad_fn is None:
        raise ValueError(
            f"{WHAT}: the tensor has no grad_fn: it was not computed from tensors that require "
            "grad with grad mode on, so it has no backward graph"
        )
    names = named_tensor_map(params, WHAT)
    if forward_log is not None:
        for key, name in forward_log.param_names.items():
            names.setdefault(key, name)
    graph = build_graph(loss, params=None, read_details=False, func_name=WHAT)
    scopes = module_scopes(forward_log.module_types) if forward_log is not None else {}
    root = scopes.get("", "")
    unique = ScopedNames()

    def scope_of(node: Any) -> str:
        # Nodes made outside the model's forward (the loss) stay outside its scope.
        module = forward_log.module_of(node) if forward_log is not None else None
        return "" if module is None else scopes.get(module, root)

    ops = [
        graph.nodes[key] for key in reversed(upstream_first(graph)) if graph.nodes[key].kind == OP
    ]
    name_of: dict[int, str] = {}
    for node in ops:
        fn = node.obj
        variable = getattr(fn, "variable", None)
        if variable is None:
            name_of[id(fn)] = unique.make(scope_of(fn), node.label)
            continue
        full_name = names.get(id(variable))
        if full_name is None:
            name_of[id(fn)] = unique.make(scope_of(fn), "AccumulateGrad")
        elif forward_log is not None and id(variable) in forward_log.owner_of_param:
            owner = forward_log.owner_of_param[id(variable)]
            short = full_name[len(owner) + 1 :] if owner else full_name
            name_of[id(fn)] = unique.make(scopes.get(owner, root), short)
        else:  # no module record: the dotted name gives the scope ("fc.weight" -> fc/weight)
            path, _, short = full_name.rpartition(".")
            scope = "/".join(part for part in (root, path.replace(".", "/")) if part)
            name_of[id(fn)] = unique.make(scope, short)
    # Who sends each node its gradient: its consumers in the forward graph.
    senders: dict[int, list[str]] = {id(node.obj): [] for node in ops}
    for node in ops:
        for slot, (child, _) in enumerate(node.obj.next_functions):
            if child is not None:
                senders[id(child)].append(_slot_ref(name_of[id(node.obj)], slot))
    loss_name = unique.make("", "loss")
    senders[id(loss.grad_fn)].insert(0, loss_name)
    defs = [node_def(loss_name, "Loss", (), [tuple(loss.shape)], [_dtype(loss)])]
    for node in ops:
        fn = node.obj
        variable = getattr(fn, "variable", None)
        attributes: dict[str, Any] = {}
        if variable is not None:
            shapes = [tuple(variable.shape)]
            dtypes = [_dtype(variable)]
            if id(variable) in names:
                attributes["parameter"] = names[id(variable)]
            if variable.grad is not None and trace is None:
                attributes["grad_norm"] = _norm(variable.grad)
        else:
            shapes = [meta[0] if meta else None for meta in node.input_meta]
            dtypes = [meta[1] if meta else None for meta in node.input_meta]
        if trace is not None:
            record = trace.record_of(fn)
            if record is not None:
                attributes["backward_step"] = record.step
                attributes["grad_received_norms"] = [_stat_norm(s) for s in record.grad_outputs]
                if variable is None:
                    attributes["grad_sent_norms"] = [_stat_norm(s) for s in record.grad_inputs]
        defs.append(
            node_def(name_of[id(fn)], node.label, senders[id(fn)], shapes, dtypes, **attributes)
        )
    return graph_profile(defs)


def _slot_ref(name: str, slot: int) -> str:
    return f"{name}:{slot}" if slot else name


def _dtype(tensor: Any) -> str:
    return str(tensor.dtype).rpartition(".")[2]


def _norm(tensor: Any) -> float:
    import numpy as np

    return float(np.linalg.norm(np.asarray(tensor.detach().numpy(), dtype=np.float64).reshape(-1)))


def _stat_norm(stats: Any) -> float:
    return math.nan if stats is None or stats.norm is None else float(stats.norm)
