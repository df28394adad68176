"""``make_dot``: the autograd graph as a Graphviz drawing (torchviz-compatible).

Each backward function is a grey box named like PyTorch's (``MulBackward0``); tensors are
coloured boxes with their name and shape: outputs green, parameters blue, other leaves that
require grad yellow, saved tensors orange, bases of output views dark green. An edge points the
way the forward pass went (input -> op -> output); gradients flow against it.
"""

from __future__ import annotations

import html
import warnings
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
from ._groups import GroupTree, View, build_groups, collapsed_view
from ._names import node_titles
from ._stats import format_shape
from .forward import ForwardLog

__all__ = [
    "make_dot",
    "GlassDigraph",
    "GraphvizNotInstalledError",
    "FILL_COLORS",
    "MAX_LAYOUT_SIZE",
    "GraphTooLargeError",
]

# What dot can lay out in seconds: boxes plus the dummy nodes it adds for each rank an edge
# crosses. Measured: a 3,000-node chain (3,000) 0.5 s; a 10-step unrolled LSTMCell model
# (199 boxes, 2,244 dummies) 1.8 s; 20 steps (379 boxes, 9,294 dummies) more than 40 s.
MAX_LAYOUT_SIZE = 4000
GROUP_FILL = "#e8eefc"

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


class GraphTooLargeError(ValueError):
    """The drawing is more than Graphviz's ``dot`` can lay out in reasonable time."""


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

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None, **kwargs: Any) -> dict:
        # Jupyter: the SVG; without Graphviz, how to get it instead of a traceback.
        try:
            return super()._repr_mimebundle_(include, exclude, **kwargs)
        except graphviz.ExecutableNotFound:
            return {"text/html": self._repr_html_(), "text/plain": f"make_dot: {INSTALL_HINT}"}

    def _repr_html_(self) -> str:
        """The drawing as inline SVG (or, without Graphviz, how to install it)."""
        try:
            return self.pipe(format="svg", encoding="utf-8")
        except GraphvizNotInstalledError:
            return f"<p><b>make_dot</b>: {html.escape(INSTALL_HINT)}</p>"


def make_dot(
    roots: Any,
    params: Mapping[str, Any] | Iterable[tuple[str, Any]] | None = None,
    show_attrs: bool = False,
    show_saved: bool = False,
    max_attr_chars: int = 50,
    *,
    expand_checkpoints: bool = False,
    forward_log: ForwardLog | None = None,
    depth: int | None = None,
    fold: bool = True,
    max_layout_size: int | None = MAX_LAYOUT_SIZE,
) -> GlassDigraph:
    """Draw the autograd graph that produced ``roots`` with Graphviz.

    One node per backward function (shared subgraphs drawn once), one per leaf tensor that
    requires grad (labelled with its name from ``params`` and its shape) and one per output.
    The node and edge structure is torchviz's, so drawings of the same program match.

    With a ``forward_log`` from :func:`record_forward` the nodes are grouped by the module call
    that created them: nested clusters labelled ``blocks.0 (Block)``; modules deeper than
    ``depth`` drawn as one box each; repeated identical calls (the time steps of a recurrent
    cell, identical blocks) drawn once as ``cell (LSTMCell) ×49``. Under
    ``glassgrad.autograd.detect_anomaly()`` an op whose line of code assigns a name
    (``adv = returns - values``) is labelled ``adv (SubBackward0)``.

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
    forward_log : ForwardLog, optional
        The recorded forward pass: draws module clusters (and enables ``depth`` and ``fold``).
    depth : int, optional
        Modules at this depth are drawn as one box each, deeper ones hidden inside (the model
        is depth 0, its children 1, theirs 2: torchview's convention). None: every module open.
    fold : bool
        Draw each set of identical repeated module calls as one box ``×count``.
    max_layout_size : int or None
        The largest drawing handed to ``dot``, counted as boxes plus the dummy nodes ``dot``
        adds for edges that cross ranks (:data:`MAX_LAYOUT_SIZE` = 4,000: a few seconds).
        Above it, with a ``forward_log`` and no ``depth``, modules are collapsed to the deepest
        depth that fits (with a warning); otherwise :class:`GraphTooLargeError` says what to
        do. None: no limit.

    Returns
    -------
    GlassDigraph
        A ``graphviz.Digraph``: ``.source`` is the DOT text; ``.render(format="svg")`` and
        Jupyter's inline display need the Graphviz ``dot`` program (an error says how to get it).

    Raises
    ------
    TypeError
        If ``roots`` is not a tensor or a tuple/list/dict of tensors (e.g. a Module).
    GraphTooLargeError
        If the drawing exceeds ``max_layout_size`` and cannot be collapsed to fit.

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
    tree = build_groups(graph, forward_log, fold) if forward_log is not None else None
    view = _fitting_view(graph, tree, depth, fold, max_layout_size)
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
    titles = node_titles(graph)
    placed = _place_items(view, tree)
    _emit_cluster(dot, None, placed, tree, graph, titles, show_attrs, max_attr_chars)
    for src, dst, kind in view.edges:
        attrs = {}
        if kind == "view":
            attrs["style"] = "dotted"
        elif kind == "saved":
            attrs["dir"] = "none"
        dot.edge(_item_id(src), _item_id(dst), **attrs)
    _resize(dot, len(view.items) + len(view.edges))
    return dot


def _item_id(item: tuple[str, int]) -> str:
    return _dot_id(item[1]) if item[0] == "node" else f"g{item[1]}"


def _fitting_view(
    graph: Graph, tree: GroupTree | None, depth: int | None, fold: bool, limit: int | None
) -> View:
    """The view at ``depth``; if it is too big for dot, the deepest depth that fits (when the
    user left ``depth`` to us), else a clear error."""
    view = collapsed_view(graph, tree, depth, fold)
    size = layout_size(view)
    if limit is None or size <= limit:
        return view
    if tree is not None and depth is None and tree.groups:
        for shallower in range(max(group.depth for group in tree.groups), -1, -1):
            view = collapsed_view(graph, tree, shallower, fold)
            if layout_size(view) <= limit:
                warnings.warn(
                    f"make_dot: the full drawing ({size:,} boxes and dummy nodes) is more "
                    f"than dot lays out in reasonable time (max_layout_size={limit:,}); "
                    f"modules deeper than depth={shallower} are drawn collapsed. Pass depth= "
                    "to choose, or use viz.explore() to see every node",
                    UserWarning,
                    stacklevel=3,
                )
                return view
    hint = (
        "record the forward pass with viz.record_forward(model) and pass forward_log= to "
        "collapse modules (depth=)"
        if tree is None
        else "pass a smaller depth="
    )
    raise GraphTooLargeError(
        f"make_dot: the drawing has {len(view.items):,} boxes and needs {size:,} boxes and "
        f"dummy nodes in dot, more than max_layout_size={limit:,} (dot would run for minutes "
        f"or abort). Use viz.explore() for big graphs, {hint}, or pass max_layout_size=None "
        "to try anyway"
    )


def layout_size(view: View) -> int:
    """Boxes plus the dummy nodes dot adds for edges crossing ranks (longest-path ranks)."""
    index = {item: position for position, item in enumerate(view.items)}
    feeders: list[list[int]] = [[] for _ in view.items]
    consumers = [0] * len(view.items)
    pairs = []
    for src, dst, kind in view.edges:
        if src == dst or kind == "saved":
            continue
        a, b = index[src], index[dst]
        feeders[b].append(a)
        consumers[a] += 1
        pairs.append((a, b))
    # Ranks from the outputs (no consumers) upwards, in Kahn order.
    rank = [0] * len(view.items)
    waiting = list(consumers)
    ready = [i for i, count in enumerate(waiting) if count == 0]
    while ready:
        current = ready.pop()
        for feeder in feeders[current]:
            rank[feeder] = max(rank[feeder], rank[current] + 1)
            waiting[feeder] -= 1
            if waiting[feeder] == 0:
                ready.append(feeder)
    dummies = sum(max(abs(rank[a] - rank[b]) - 1, 0) for a, b in pairs)
    return len(view.items) + dummies


def _place_items(view: View, tree: GroupTree | None) -> dict[int | None, list[tuple[str, int]]]:
    """The items drawn directly inside each open group (None: outside every group)."""
    placed: dict[int | None, list[tuple[str, int]]] = {}
    open_groups = set(view.open_groups)
    for item in view.items:
        home = None
        if tree is not None:
            start = tree.group_of[item[1]] if item[0] == "node" else tree.groups[item[1]].parent
            home = next((g for g in tree.ancestors(start) if g in open_groups), None)
        placed.setdefault(home, []).append(item)
    return placed


def _emit_cluster(
    dot: graphviz.Digraph,
    gid: int | None,
    placed: dict[int | None, list[tuple[str, int]]],
    tree: GroupTree | None,
    graph: Graph,
    titles: list[str],
    show_attrs: bool,
    max_attr_chars: int,
) -> None:
    for kind, key in placed.get(gid, []):
        if kind == "node":
            node = graph.nodes[key]
            label = _label(node, titles[key], show_attrs, max_attr_chars)
            dot.node(_dot_id(key), label, **_style(node))
        else:
            group = tree.groups[key]
            each = " each" if group.fold is not None else ""
            size = f"{group.size} node{'s' if group.size != 1 else ''}{each}"
            dot.node(
                f"g{key}",
                f"{tree.box_label(key)}\n{size}",
                style="filled,rounded",
                fillcolor=GROUP_FILL,
                tooltip=f"{tree.box_label(key)}: {size}",
            )
    if tree is None:
        return
    children = tree.top if gid is None else tree.groups[gid].children
    for child in children:
        if not _has_content(child, placed, tree):
            continue
        with dot.subgraph(name=f"cluster_g{child}") as cluster:
            cluster.attr(label=tree.groups[child].label, style="rounded", color="#8da2c8")
            cluster.attr(fontname="monospace", fontsize="10", labeljust="l")
            _emit_cluster(cluster, child, placed, tree, graph, titles, show_attrs, max_attr_chars)


def _has_content(gid: int, placed: dict, tree: GroupTree) -> bool:
    stack = [gid]
    while stack:
        current = stack.pop()
        if placed.get(current):
            return True
        stack.extend(tree.groups[current].children)
    return False


def _dot_id(key: int) -> str:
    return f"n{key}"


def _tensor_shape_text(shape: tuple[int, ...] | None) -> str:
    # torchviz's format: "(2, 3)", "(1)" for one dimension, "()" for a scalar.
    if shape is None:
        return "?"
    return "(" + ", ".join(str(d) for d in shape) + ")"


def _label(node: GraphNode, title: str, show_attrs: bool, max_attr_chars: int) -> str:
    if node.kind != OP:
        return f"{node.label}\n {_tensor_shape_text(node.shape)}"
    if not show_attrs:
        return title
    attrs = {}
    for saved in node.saved:
        attrs[saved.name] = "[saved tensor]" if saved.is_tensor else saved.value_text
    if not attrs:
        return title
    max_attr_chars = max(max_attr_chars, 3)
    key_width = max(len(name) for name in attrs)
    value_width = min(max(len(value) for value in attrs.values()), max_attr_chars)

    def cut(text: str) -> str:
        return text[: value_width - 3] + "..." if len(text) > value_width else text

    rows = [f"{name:<{key_width}}: {cut(value):>{value_width}}" for name, value in attrs.items()]
    rule = "-" * max(key_width + value_width + 2, len(title))
    return "\n".join([title, rule, *rows])


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


def _resize(dot: graphviz.Digraph, elements: int, per_element: float = 0.15) -> None:
    # Grow the drawing with its content, as torchviz does, so big graphs stay readable.
    size = max(12.0, elements * per_element)
    dot.graph_attr.update(size=f"{size},{size}")
