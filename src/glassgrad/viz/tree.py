"""``print_graph``: the autograd graph as an indented tree in the terminal.

The root is at the top; each node's children are the nodes that fed it in the forward pass,
which are also the nodes its gradient goes to in the backward pass. With ``show_order`` each
line also says at which step backward ran that node, and a list after the tree shows the
gradient each step received and produced: the chain rule, one step at a time.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping
from typing import IO, Any

from ._graph import OP, Graph, GraphNode, SegmentNode, build_graph, upstream_first
from ._groups import GroupTree, View, build_groups, collapsed_view
from ._names import node_titles
from ._stats import TensorStats, format_shape
from .forward import ForwardLog
from .trace import BackwardTrace, NodeRecord, trace_backward

__all__ = ["print_graph", "format_graph"]

UNICODE_BRANCHES = ("├── ", "└── ", "│   ", "    ")
ASCII_BRANCHES = ("|-- ", "`-- ", "|   ", "    ")
MAX_INDENT = 40  # deeper levels are not indented further (long chains stay readable)


def print_graph(
    root: Any,
    params: Mapping[str, Any] | Iterable[tuple[str, Any]] | None = None,
    show_order: bool | BackwardTrace = False,
    *,
    ascii: bool = False,
    file: IO[str] | None = None,
    expand_checkpoints: bool = False,
    forward_log: ForwardLog | None = None,
    depth: int | None = None,
    fold: bool = True,
) -> str:
    """Print the graph behind ``root`` as an indented tree, with shapes; return the text.

    With a ``forward_log`` from :func:`record_forward` it prints an outline by module instead:
    one line per node, numbered from the root (``#3``) and naming its inputs (``<- #4, #7``),
    indented under the module call that created it (``blocks.0 (Block)``); modules deeper
    than ``depth`` are one line each, and repeated identical calls (time steps, identical
    blocks) one line ``cell (LSTMCell) ×49``.

    Parameters
    ----------
    root : Tensor, tuple/list of Tensor, or dict of name -> Tensor
        The output(s) whose graph to print.
    params : dict or iterable of (name, Tensor), optional
        Names for the leaves, e.g. ``dict(model.named_parameters())``.
    show_order : bool or BackwardTrace
        ``True`` runs ``root.backward()`` once (gradients accumulate into the leaves as usual)
        while recording the order in which the nodes ran and the gradients they passed on; a
        :class:`BackwardTrace` from :func:`trace_backward` shows a pass already recorded.
    ascii : bool
        Draw the branches with ASCII characters instead of box-drawing ones.
    file : text stream, optional
        Where to print (default: ``sys.stdout``).
    expand_checkpoints : bool
        Show the nodes inside each ``checkpoint(..., use_reentrant=False)`` segment instead of
        one ``Checkpoint(<function>)`` line for the segment.
    forward_log : ForwardLog, optional
        The recorded forward pass: print the outline by module.
    depth : int, optional
        With ``forward_log``: modules at this depth are one line each (the model is depth 0).
    fold : bool
        With ``forward_log``: repeated identical module calls are one line ``×count``.

    Examples
    --------
    >>> x = glassgrad.ones(1, requires_grad=True)
    >>> text = print_graph(glassgrad.log(0.5 * (x + 1).pow(2)), {"x": x}, show_order=True)
    output (1,) float32
    └── LogBackward0 -> (1,) float32  [step 1]
        └── MulBackward0 -> (1,) float32  [step 2]
            └── PowBackward0 -> (1,) float32  [step 3]
                └── AddBackward0 -> (1,) float32  [step 4]
                    └── AccumulateGrad  x (1,) float32  [step 5]
    <BLANKLINE>
    backward ran the nodes in this order (gradient received -> gradients sent):
      1. LogBackward0: [1] -> [0.5]
      2. MulBackward0: [0.5] -> ([0.25], None)
      3. PowBackward0: [0.25] -> [1]
      4. AddBackward0: [1] -> ([1], None)
      5. AccumulateGrad: [1] -> into x.grad
    """
    trace = None
    if isinstance(show_order, BackwardTrace):
        trace = show_order
    elif show_order:
        if isinstance(root, (tuple, list, Mapping)):
            raise TypeError(
                "print_graph: show_order=True runs backward from one root tensor; got "
                f"{type(root).__name__}. Run viz.trace_backward(...) yourself and pass its trace"
            )
        trace = trace_backward(root)
    graph = build_graph(
        root,
        params,
        read_details=False,
        collapse_checkpoints=not expand_checkpoints,
        func_name="print_graph",
    )
    if forward_log is not None:
        tree = build_groups(graph, forward_log, fold)
        text = format_outline(graph, tree, collapsed_view(graph, tree, depth, fold), trace)
    else:
        text = format_graph(graph, trace, ascii=ascii)
    print(text, file=file if file is not None else sys.stdout)
    return text


def format_graph(graph: Graph, trace: BackwardTrace | None = None, ascii: bool = False) -> str:
    """The tree text of :func:`print_graph` for an already built graph."""
    tee, elbow, pipe, blank = ASCII_BRANCHES if ascii else UNICODE_BRANCHES
    titles = node_titles(graph)
    consumers = [0] * len(graph.nodes)
    for edge in graph.edges:
        consumers[edge.src] += 1
    shared_tags: dict[int, str] = {}
    printed: set[int] = set()
    lines: list[str] = []
    # Stack of (key, prefix for this line, prefix for its children, depth).
    stack: list[tuple[int, str, str, int]] = []
    for key in reversed(graph.root_keys):
        stack.append((key, "", "", 0))
    while stack:
        key, prefix, child_prefix, depth = stack.pop()
        node = graph.nodes[key]
        if key in printed:
            lines.append(
                f"{prefix}{_describe(node, graph, titles[key])} ^ shared, see {shared_tags[key]} above"
            )
            continue
        printed.add(key)
        tag = ""
        if consumers[key] > 1:
            shared_tags[key] = f"@{len(shared_tags) + 1}"
            tag = f"  {shared_tags[key]}"
        lines.append(f"{prefix}{_describe(node, graph, titles[key])}{tag}{_step_text(node, trace)}")
        children = _tree_children(graph, node)
        if depth >= MAX_INDENT:
            child_prefix = f"{child_prefix[: 4 * MAX_INDENT]}"
        for index in reversed(range(len(children))):
            last = index == len(children) - 1
            stack.append(
                (
                    children[index],
                    child_prefix + (elbow if last else tee),
                    child_prefix + (blank if last else pipe),
                    depth + 1,
                )
            )
    if trace is not None:
        lines.append("")
        lines.extend(_order_lines(trace, graph))
    return "\n".join(lines)


INDENT = "  "


def format_outline(
    graph: Graph, tree: GroupTree, view: View, trace: BackwardTrace | None = None
) -> str:
    """The module outline of :func:`print_graph`: items numbered from the root, each under the
    module call that created it."""
    titles = node_titles(graph)
    # Items in backward order: the root first, each after everything it feeds.
    # A leaf is printed on its AccumulateGrad's line, not as its own.
    accumulated = {node.variable_key for node in graph.nodes if node.variable_key is not None}
    backward_order = []
    seen = set()
    for key in reversed(upstream_first(graph)):
        item = view.item_of[key]
        if item not in seen and not (item[0] == "node" and item[1] in accumulated):
            seen.add(item)
            backward_order.append(item)
    open_groups = set(view.open_groups)
    # Each module's lines together: a group is listed where its first item would be.
    entries: dict[int | None, list[tuple[int, str, Any]]] = {}
    first_seen: set[int] = set()
    for position, item in enumerate(backward_order):
        start = tree.group_of[item[1]] if item[0] == "node" else tree.groups[item[1]].parent
        chain = [g for g in tree.ancestors(start) if g in open_groups]
        entries.setdefault(chain[0] if chain else None, []).append((position, "item", item))
        for inner, outer in zip(chain, [*chain[1:], None][: len(chain)], strict=True):
            if inner not in first_seen:
                first_seen.add(inner)
                entries.setdefault(outer, []).append((position, "group", inner))
    rows: list[tuple[int, Any]] = []  # (indent, item or group id)
    stack: list[tuple[int, str, Any]] = [(0, "group-body", None)]
    while stack:
        indent, what, value = stack.pop()
        if what == "item":
            rows.append((indent, value))
            continue
        if what == "header":
            rows.append((indent, value))
            continue
        for _, kind, entry in reversed(sorted(entries.get(value, []), key=lambda e: e[0])):
            if kind == "item":
                stack.append((indent, "item", entry))
            else:
                stack.append((indent + 1, "group-body", entry))
                stack.append((indent, "header", entry))
    number: dict[tuple, int] = {}
    for _, value in rows:
        if isinstance(value, tuple):
            number[value] = len(number) + 1
    inputs: dict[tuple, list[int]] = {}
    for src, dst, kind in view.edges:
        if kind != "saved" and src in number:
            inputs.setdefault(dst, []).append(number[src])
    lines = []
    for indent, value in rows:
        if not isinstance(value, tuple):
            lines.append(f"{INDENT * indent}{tree.groups[value].label}")
            continue
        feeds = sorted(set(inputs.get(value, [])))
        source = f"  <- {', '.join(f'#{n}' for n in feeds)}" if feeds else ""
        text = _outline_item(graph, tree, value, titles, trace)
        lines.append(f"{INDENT * indent}#{number[value]} {text}{source}")
    return "\n".join(lines)


def _outline_item(
    graph: Graph,
    tree: GroupTree,
    item: tuple[str, int],
    titles: list[str],
    trace: BackwardTrace | None,
) -> str:
    if item[0] == "group":
        group = tree.groups[item[1]]
        each = " each" if group.fold is not None else ""
        plural = "s" if group.size != 1 else ""
        return f"[{tree.box_label(item[1])}] {group.size} node{plural}{each}"
    node = graph.nodes[item[1]]
    return _describe(node, graph, titles[node.key]) + _step_text(node, trace)


def _tree_children(graph: Graph, node: GraphNode) -> list[int]:
    if node.kind != OP:
        # A tensor's child is the op that made it (and for a view, its base).
        return [edge.src for edge in graph.edges if edge.dst == node.key and edge.kind != "saved"]
    if node.variable_key is not None:
        return []  # AccumulateGrad: its leaf is described on the same line
    return [edge.src for edge in graph.edges_into(node.key)]


def _describe(node: GraphNode, graph: Graph, title: str | None = None) -> str:
    """One node in words; ``title`` is its label with a variable name (``adv (SubBackward0)``)."""
    if node.kind == OP:
        label = title or node.label
        if node.variable_key is not None:
            leaf = graph.nodes[node.variable_key]
            name = leaf.label or "(unnamed leaf)"
            return f"{node.label}  {name} {format_shape(leaf.shape)} {leaf.dtype}"
        outputs = [meta for meta in node.output_meta if meta is not None]
        if not outputs:
            return label
        shapes = ", ".join(f"{format_shape(shape)} {dtype}" for shape, dtype in outputs)
        return f"{label} -> {shapes}"
    name = node.label or {"output": "output", "base": "view base"}.get(node.kind, "tensor")
    return f"{name} {format_shape(node.shape)} {node.dtype}"


def _step_text(node: GraphNode, trace: BackwardTrace | None) -> str:
    if trace is None or node.kind != OP:
        return ""
    if isinstance(node.obj, SegmentNode):  # a checkpoint segment: its nodes' steps
        steps = sorted(r.step for r in map(trace.record_of, node.obj.members) if r is not None)
        if not steps:
            return "  [did not run]"
        return f"  [step {steps[0]}]" if len(steps) == 1 else f"  [steps {steps[0]}-{steps[-1]}]"
    record = trace.record_of(node.obj)
    return f"  [step {record.step}]" if record else "  [did not run]"


def _order_lines(trace: BackwardTrace, graph: Graph) -> list[str]:
    lines = ["backward ran the nodes in this order (gradient received -> gradients sent):"]
    width = len(str(len(trace.order)))
    for node in trace.order:
        record = trace.record_of(node)
        received = _grads_text(record.grad_outputs, record.grad_output_values)
        if getattr(node, "variable", None) is not None:
            key = graph.key_of(node.variable)
            name = graph.nodes[key].label if key is not None else ""
            sent = f"into {name or 'the leaf'}.grad"
        else:
            sent = _grads_text(record.grad_inputs, record.grad_input_values)
        flag = "   <- NaN/Inf appeared here" if record.made_nonfinite else ""
        lines.append(f"  {record.step:>{width}}. {record.name}: {received} -> {sent}{flag}")
    if trace.error is not None:
        lines.append(f"  backward stopped with {type(trace.error).__name__}: {trace.error}")
    return lines


def _grads_text(stats: list[TensorStats | None], values: list[NodeRecord | Any]) -> str:
    parts = []
    for summary, value in zip(stats, values, strict=False):
        if summary is None:
            parts.append("None")
        elif value is not None:
            shown = ", ".join(f"{v:.4g}" for v in value)
            parts.append(f"[{shown}]")
        else:
            parts.append(f"{format_shape(summary.shape)} norm={summary.norm:.4g}")
    return "(" + ", ".join(parts) + ")" if len(parts) != 1 else parts[0]
