"""Why a parameter gets no gradient, and where NaN/Inf first appeared: read off the graph.

A parameter gets a gradient from ``loss.backward()`` only if it requires grad, is a leaf, and
its ``AccumulateGrad`` node is reachable from the loss. When it is not reachable, the graph
tells apart two cases as far as it can:

* **cut** — the parameter's values did reach the loss, but without a graph: a tensor that
  shares its memory (``detach()`` and ``.data`` do) is saved by a node of the graph (certain),
  or an input of a node has no graph and has the parameter's shape and dtype (likely:
  ``detach()``, ``.data`` or ``no_grad`` cut it there);
* **not reachable** — nothing in the graph points back at it: unused in this forward pass, or
  cut before any of the above could be seen (e.g. ``no_grad`` around the layer that used it).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ._graph import OP, Graph, named_tensor_map, shares_memory, upstream_first
from ._stats import dtype_name, format_shape
from .forward import ForwardLog

__all__ = [
    "ParamStatus",
    "diagnose_params",
    "forward_nonfinite_origins",
    "REASON_OK",
    "REASON_FROZEN",
    "REASON_NOT_LEAF",
    "REASON_CUT",
    "REASON_NOT_REACHABLE",
]

REASON_OK = "ok"
REASON_FROZEN = "requires_grad=False"
REASON_NOT_LEAF = "not a leaf"
REASON_CUT = "cut by detach()/.data/no_grad"
REASON_NOT_REACHABLE = "not reachable from the root"


@dataclass
class ParamStatus:
    """Whether one named parameter can get a gradient from the root, and if not, why.

    ``reason`` is one of the ``REASON_*`` constants; ``detail`` explains it in a sentence;
    ``leaf_key`` is the graph key of its ``AccumulateGrad`` node (None if unreachable);
    ``evidence_key`` the node where a cut was seen (None if none).
    """

    name: str
    tensor: Any
    reason: str
    detail: str
    leaf_key: int | None = None
    evidence_key: int | None = None
    certain: bool = True

    @property
    def gets_grad(self) -> bool:
        return self.reason == REASON_OK


def _named_items(named_parameters: Any, func_name: str) -> list[tuple[str, Any]]:
    if named_parameters is None:
        return []
    items = named_parameters.items() if isinstance(named_parameters, Mapping) else named_parameters
    pairs = [tuple(item) for item in items]
    named_tensor_map(pairs, func_name)  # validates the pairs, raises a clear TypeError
    return pairs  # type: ignore[return-value]


def diagnose_params(
    graph: Graph,
    named_parameters: Mapping[str, Any] | Iterable[tuple[str, Any]] | None,
    func_name: str = "diagnose_params",
    forward_log: ForwardLog | None = None,
) -> list[ParamStatus]:
    """For each named parameter, whether it is reachable from the graph's roots, and why not.

    ``graph`` must have been built with details (``build_graph(..., read_details=True)``) for
    the "cut" evidence from saved tensors. With a ``forward_log`` from :func:`record_forward`
    the reasons of unreachable parameters are exact: the module that owns one was never
    called, ran under ``no_grad``, or had its output (or the parameter) cut afterwards.

    Examples
    --------
    >>> w = glassgrad.ones(2, requires_grad=True)
    >>> v = glassgrad.ones(2, requires_grad=True)
    >>> loss = (w * 2).sum()
    >>> [s.reason for s in diagnose_params(build_graph(loss), {"w": w, "v": v})]
    ['ok', 'not reachable from the root']
    """
    leaf_keys = graph.memo.get("leaf_keys")  # id(leaf tensor) -> its AccumulateGrad's key
    if leaf_keys is None:
        leaf_keys = graph.memo["leaf_keys"] = {
            id(node.obj.variable): node.key
            for node in graph.nodes
            if node.kind == OP and getattr(node.obj, "variable", None) is not None
        }
    statuses = []
    for name, tensor in _named_items(named_parameters, func_name):
        statuses.append(_diagnose_one(graph, leaf_keys, name, tensor, forward_log))
    if len(graph.root_keys) > 1:  # the details say "the root"; here there are several
        for status in statuses:
            status.detail = status.detail.replace(" the root", " the roots")
    return statuses


def _diagnose_one(
    graph: Graph,
    leaf_keys: dict[int, int],
    name: str,
    tensor: Any,
    forward_log: ForwardLog | None,
) -> ParamStatus:
    shape_text = f"{format_shape(tuple(tensor.shape))} {dtype_name(tensor.dtype)}"
    if not tensor.requires_grad:
        return ParamStatus(
            name,
            tensor,
            REASON_FROZEN,
            f"{name} {shape_text} has requires_grad=False (frozen), so no graph records it; "
            f"call {name}.requires_grad_(True) to train it",
        )
    grad_fn = getattr(tensor, "grad_fn", None)
    if grad_fn is not None and not getattr(tensor, "retains_grad", False):
        return ParamStatus(
            name,
            tensor,
            REASON_NOT_LEAF,
            f"{name} is not a leaf: it was computed by {type(grad_fn).__name__} (e.g. .to(), "
            f"an op on a parameter), and backward fills .grad only for leaves; make it a leaf "
            f"or call .retain_grad() on it",
            leaf_key=graph.key_of(grad_fn),
        )
    leaf_key = leaf_keys.get(id(tensor))
    if leaf_key is not None:
        return ParamStatus(name, tensor, REASON_OK, "reachable from the root", leaf_key=leaf_key)
    for node in graph.nodes:
        if node.kind != OP:
            continue
        for saved in node.saved:
            if (
                saved.is_tensor
                and saved.tensor is not tensor
                and not saved.tensor.requires_grad
                and shares_memory(saved.tensor, tensor)
            ):
                return ParamStatus(
                    name,
                    tensor,
                    REASON_CUT,
                    f"{name} {shape_text} is cut from the graph: {node.label} uses a tensor "
                    f"sharing its memory (saved as '{saved.name}') that has no graph, as made by "
                    f"{name}.detach() or {name}.data",
                    evidence_key=node.key,
                )
    if forward_log is not None and id(tensor) in forward_log.owner_of_param:
        return _diagnose_with_log(graph, name, shape_text, tensor, forward_log)
    slot = _matching_dead_slot(graph, tensor)
    if slot is not None:
        op_key, index = slot
        shape = graph.nodes[op_key].input_meta[index][0]
        how = "its shape and dtype" if shape == tuple(tensor.shape) else "its transpose's shape"
        return ParamStatus(
            name,
            tensor,
            REASON_CUT,
            f"{name} {shape_text} is probably cut from the graph: input {index} of "
            f"{graph.nodes[op_key].label} has {how} but no graph (detach(), .data or no_grad "
            f"cut it there)",
            evidence_key=op_key,
            certain=False,
        )
    return ParamStatus(
        name,
        tensor,
        REASON_NOT_REACHABLE,
        f"{name} {shape_text} is not reachable from the root: no path of the graph leads back "
        f"to it (unused in this forward pass, or cut by detach()/.data/no_grad before its "
        f"values were used)",
    )


def _diagnose_with_log(
    graph: Graph, name: str, shape_text: str, tensor: Any, log: ForwardLog
) -> ParamStatus:
    owner = log.owner_of_param[id(tensor)]
    module = log.describe(owner)
    calls = log.calls_of(owner)
    head = f"{name} {shape_text}"
    if not calls:
        return ParamStatus(
            name,
            tensor,
            REASON_NOT_REACHABLE,
            f"{head} is not reachable from the root: {module} was never called in the "
            f"recorded forward pass",
        )
    if not any(call.grad_enabled for call in calls):
        return ParamStatus(
            name,
            tensor,
            REASON_CUT,
            f"{head} is cut from the graph: {module} ran with grad mode off (inside no_grad() "
            f"or inference_mode()), so nothing recorded it",
        )
    reaching = [
        node
        for call in calls
        if call.grad_enabled
        for node in call.output_nodes
        if graph.key_of(node) is not None
    ]
    if reaching:
        slot = _matching_dead_slot(graph, tensor)
        if slot is not None and log.module_of(graph.nodes[slot[0]].obj) == owner:
            op_key, index = slot
            return ParamStatus(
                name,
                tensor,
                REASON_CUT,
                f"{head} is probably cut from the graph inside {module}: its output reaches the "
                f"root, and input {index} of {graph.nodes[op_key].label} there has the "
                f"parameter's shape but no graph (detach(), .data or no_grad)",
                evidence_key=op_key,
                certain=False,
            )
        return ParamStatus(
            name,
            tensor,
            REASON_NOT_REACHABLE,
            f"{head} is not reachable from the root: {module} ran and its output reaches the "
            f"root, but its forward did not use the parameter with a graph (unused there, or "
            f"cut by detach()/.data/no_grad before use)",
        )
    for call in calls:
        for output in call.outputs:
            for node in graph.nodes:
                if node.kind != OP:
                    continue
                for saved in node.saved:
                    if saved.is_tensor and shares_memory(saved.tensor, output):
                        return ParamStatus(
                            name,
                            tensor,
                            REASON_CUT,
                            f"{head} is cut from the graph after {module}: {node.label} uses "
                            f"its output through a tensor without a graph (saved as "
                            f"'{saved.name}'), as made by .detach() or .data",
                            evidence_key=node.key,
                        )
    for call in calls:
        for output in call.outputs:
            slot = _matching_dead_slot(graph, output)
            if slot is not None:
                op_key, index = slot
                return ParamStatus(
                    name,
                    tensor,
                    REASON_CUT,
                    f"{head} is probably cut from the graph after {module}: input {index} of "
                    f"{graph.nodes[op_key].label} has the shape of its output but no graph "
                    f"(detach(), .data or no_grad)",
                    evidence_key=op_key,
                    certain=False,
                )
    return ParamStatus(
        name,
        tensor,
        REASON_NOT_REACHABLE,
        f"{head} is not reachable from the root: {module} ran, but its output does not lead "
        f"to the root (not used, or cut by detach()/.data/no_grad later)",
    )


def _matching_dead_slot(graph: Graph, tensor: Any) -> tuple[int, int] | None:
    """The first ``(op key, slot)`` whose input had no graph and the shape (or, for a matrix,
    the transposed shape) and dtype of ``tensor``: where a cut probably happened."""
    wanted = tuple(int(d) for d in tensor.shape)
    if not wanted:
        return None  # a scalar's shape says nothing
    wanted_dtype = dtype_name(tensor.dtype)
    for op_key, slot in graph.dead_slots:
        meta = graph.nodes[op_key].input_meta
        if slot >= len(meta) or meta[slot] is None:
            continue
        shape, dtype = meta[slot]
        transposed = len(wanted) == 2 and shape == wanted[::-1]
        if dtype == wanted_dtype and (shape == wanted or transposed):
            return op_key, slot
    return None


def forward_nonfinite_origins(graph: Graph) -> list[int]:
    """Keys of the op nodes whose saved tensors hold NaN/Inf while no op feeding them does.

    The forward values themselves are not kept by the graph; saved tensors are the part of them
    that is, so this is where the forward pass is first seen to go non-finite.
    """
    found = graph.memo.get("forward_nonfinite_origins")
    if found is None:
        found = graph.memo["forward_nonfinite_origins"] = _forward_nonfinite_origins(graph)
    return list(found)


def _forward_nonfinite_origins(graph: Graph) -> list[int]:
    nonfinite = {
        node.key
        for node in graph.nodes
        if node.kind == OP
        and any(s.is_tensor and s.stats is not None and not s.stats.finite for s in node.saved)
    }
    upstream_tainted = [False] * len(graph.nodes)
    for key in upstream_first(graph):
        for edge in graph.edges_into(key):
            if upstream_tainted[edge.src] or edge.src in nonfinite:
                upstream_tainted[key] = True
                break
    return [key for key in sorted(nonfinite) if not upstream_tainted[key]]
