"""``make_dot``: the autograd graph as a Graphviz drawing (torchviz-compatible).

Each backward function is a grey box named like PyTorch's (``MulBackward0``); tensors are
coloured boxes with their name and shape: outputs green, parameters blue, other leaves that
require grad yellow, saved tensors orange, bases of output views dark green. An edge points the
way the forward pass went (input -> op -> output); gradients flow against it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import graphviz

from ._graph import (
    BASE,
    LEAF,
    OP,
    OUTPUT,
    PARAM,
    SAVED,
    Graph,
    GraphNode,
    SegmentNode,
    build_graph,
)
from ._stats import format_shape

__all__ = ["make_dot", "GlassDigraph", "GraphvizNotInstalledError", "FILL_COLORS"]

FILL_COLORS = {
    OUTPUT: "darkolivegreen1",
    BASE: "darkolivegreen3",
    PARAM: "lightblue",
    LEAF: "lightyellow",
    SAVED: "orange",
}

INSTALL_HINT = (
    "Rendering needs the Graphviz 'dot' program, which was not found on PATH. Install it: "
    "'sudo apt-get install graphviz' (Debian/Ubuntu; 'bash scripts/setup.sh' does it), "
    "'brew install graphviz' (macOS) or 'conda install graphviz'. Without it the DOT text is "
    "still available as .source."
)


class GraphvizNotInstalledError(graphviz.ExecutableNotFound):
    """Rendering was asked for but the Graphviz ``dot`` program is not installed."""

    def __init__(self, detail: str) -> None:
        RuntimeError.__init__(self, f"make_dot: {INSTALL_HINT} ({detail})")


class GlassDigraph(graphviz.Digraph):
    """A ``graphviz.Digraph`` whose rendering errors say how to install Graphviz.

    Everything else (``.source``, ``.render``, Jupyter's inline display) is graphviz's own.
    """

    def pipe(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return super().pipe(*args, **kwargs)
        except graphviz.ExecutableNotFound as error:
            raise GraphvizNotInstalledError(str(error)) from error

    def render(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return super().render(*args, **kwargs)
        except graphviz.ExecutableNotFound as error:
            raise GraphvizNotInstalledError(str(error)) from error


def make_dot(
    roots: Any,
    params: Mapping[str, Any] | Iterable[tuple[str, Any]] | None = None,
    show_attrs: bool = False,
    show_saved: bool = False,
    max_attr_chars: int = 50,
    *,
    expand_checkpoints: bool = False,
) -> GlassDigraph:
    """Draw the autograd graph that produced ``roots`` with Graphviz.

    One node per backward function (shared subgraphs drawn once), one per leaf tensor that
    requires grad (labelled with its name from ``params`` and its shape) and one per output.
    The node and edge structure is torchviz's, so drawings of the same program match.

    Parameters
    ----------
    roots : Tensor, tuple/list of Tensor, or dict of name -> Tensor
        The output(s) whose graph to draw. A dict also names the outputs.
    params : dict of name -> Tensor, or iterable of (name, Tensor), optional
        Names for the leaves, e.g. ``dict(model.named_parameters())``.
    show_attrs : bool
        List each backward function's saved attributes (from ``_saved_info()``) in its box.
    show_saved : bool
        Draw each saved tensor as an orange box linked to the function that saved it.
    max_attr_chars : int
        Longest attribute value shown with ``show_attrs`` before it is cut with "...".
    expand_checkpoints : bool
        Draw the nodes inside each ``checkpoint(..., use_reentrant=False)`` segment instead of
        one ``Checkpoint(<function>)`` box (dashed) for the segment.

    Returns
    -------
    GlassDigraph
        A ``graphviz.Digraph``: ``.source`` is the DOT text; ``.render(format="svg")`` and
        Jupyter's inline display need the Graphviz ``dot`` program (an error says how to get it).

    Raises
    ------
    TypeError
        If ``roots`` is not a tensor or a tuple/list/dict of tensors (e.g. a Module).

    Examples
    --------
    >>> x = glassgrad.ones(1, requires_grad=True)
    >>> dot = make_dot(glassgrad.log(0.5 * (x + 1).pow(2)), params={"x": x})
    >>> "LogBackward0" in dot.source
    True
    """
    graph = build_graph(
        roots,
        params,
        show_saved=show_saved,
        read_details=show_attrs,
        collapse_checkpoints=not expand_checkpoints,
        func_name="make_dot",
    )
    node_attr = dict(
        style="filled",
        shape="box",
        align="left",
        fontsize="10",
        ranksep="0.1",
        height="0.2",
        fontname="monospace",
    )
    dot = GlassDigraph(node_attr=node_attr, graph_attr=dict(size="12,12"))
    for node in graph.nodes:
        dot.node(_dot_id(node.key), _label(node, show_attrs, max_attr_chars), **_style(node))
    for edge in graph.edges:
        attrs = {}
        if edge.kind == "view":
            attrs["style"] = "dotted"
        elif edge.kind == "saved":
            attrs["dir"] = "none"
        dot.edge(_dot_id(edge.src), _dot_id(edge.dst), **attrs)
    _resize(dot, graph)
    return dot


def _dot_id(key: int) -> str:
    return f"n{key}"


def _tensor_shape_text(shape: tuple[int, ...] | None) -> str:
    # torchviz's format: "(2, 3)", "(1)" for one dimension, "()" for a scalar.
    if shape is None:
        return "?"
    return "(" + ", ".join(str(d) for d in shape) + ")"


def _label(node: GraphNode, show_attrs: bool, max_attr_chars: int) -> str:
    if node.kind != OP:
        return f"{node.label}\n {_tensor_shape_text(node.shape)}"
    if not show_attrs:
        return node.label
    attrs = {}
    for saved in node.saved:
        attrs[saved.name] = "[saved tensor]" if saved.is_tensor else saved.value_text
    if not attrs:
        return node.label
    max_attr_chars = max(max_attr_chars, 3)
    key_width = max(len(name) for name in attrs)
    value_width = min(max(len(value) for value in attrs.values()), max_attr_chars)

    def cut(text: str) -> str:
        return text[: value_width - 3] + "..." if len(text) > value_width else text

    rows = [f"{name:<{key_width}}: {cut(value):>{value_width}}" for name, value in attrs.items()]
    rule = "-" * max(key_width + value_width + 2, len(node.label))
    return "\n".join([node.label, rule, *rows])


def _style(node: GraphNode) -> dict[str, str]:
    attrs = {}
    color = FILL_COLORS.get(node.kind)
    if color:
        attrs["fillcolor"] = color
    if isinstance(node.obj, SegmentNode):
        attrs["style"] = "filled,dashed"
        attrs["tooltip"] = f"{len(node.obj.members)} nodes recomputed in backward"
        return attrs
    if node.shape is not None and node.dtype:
        attrs["tooltip"] = f"{format_shape(node.shape)} {node.dtype}"
    return attrs


def _resize(dot: graphviz.Digraph, graph: Graph, per_element: float = 0.15) -> None:
    # Grow the drawing with its content, as torchviz does, so big graphs stay readable.
    size = max(12.0, (len(graph.nodes) + len(graph.edges)) * per_element)
    dot.graph_attr.update(size=f"{size},{size}")
