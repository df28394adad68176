"""The autograd graph as plain data: one walk from the roots, shared by every viz tool.

The walk reads only the public graph API (``grad_fn``, ``next_functions``, ``variable``) and
the glassgrad extras ``_input_meta``, ``_output_meta``, ``_saved_info()`` and
``metadata["traceback_"]``, so it is duck-typed: any object with that API can be drawn. It is
iterative (an explicit stack), so a graph of a million nodes does not hit Python's recursion
limit.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._tensor import Tensor
from ._stats import TensorStats, as_array, dtype_name, tensor_stats_many

__all__ = [
    "Graph",
    "GraphNode",
    "SegmentNode",
    "checkpoint_segment_of",
    "GraphEdge",
    "build_graph",
    "collector_paused",
    "normalize_roots",
    "is_tensor",
    "upstream_first",
    "depths",
]

# What a node records of one tensor it took or made: its shape and dtype name.
TensorMeta = tuple[tuple[int, ...], str]

# Node kinds, also the colour classes of the drawings.
OUTPUT = "output"  # a root tensor handed in by the user
BASE = "base"  # the base tensor of a root that is a view
OP = "op"  # a backward function (grad_fn)
PARAM = "param"  # a leaf tensor named in ``params``
LEAF = "leaf"  # a leaf tensor that requires grad but is not named
SAVED = "saved"  # a tensor saved by a backward function (only when asked)


def is_tensor(value: Any) -> bool:
    """True for objects with the Tensor graph API (duck-typed: ``grad_fn``, ``shape``)."""
    if isinstance(value, Tensor):  # the common case, without four attribute look-ups
        return True
    return (
        hasattr(value, "grad_fn")
        and hasattr(value, "requires_grad")
        and hasattr(value, "shape")
        and not isinstance(value, type)
    )


def normalize_roots(roots: Any, func_name: str) -> list[tuple[str, Any]]:
    """``roots`` as a list of ``(name, tensor)``; names are ``""`` unless given by a dict.

    Accepts one tensor, a tuple or list of tensors, or a dict of name -> tensor. Anything else
    (a Module, a grad_fn, a number) raises ``TypeError`` saying what was expected.
    """
    if is_tensor(roots):
        return [("", roots)]
    if isinstance(roots, Mapping):
        items = [(str(name), value) for name, value in roots.items()]
    elif isinstance(roots, (tuple, list)):
        items = [("", value) for value in roots]
    else:
        raise TypeError(_root_type_message(func_name, roots))
    if not items:
        raise ValueError(f"{func_name}: expected at least one output tensor, got an empty list")
    for index, (_, value) in enumerate(items):
        if not is_tensor(value):
            raise TypeError(_root_type_message(func_name, value, position=index))
    return items


def _root_type_message(func_name: str, value: Any, position: int | None = None) -> str:
    where = "" if position is None else f" (item {position})"
    kind = type(value).__name__
    hint = ""
    if hasattr(value, "named_parameters") and hasattr(value, "forward"):
        hint = (
            f"; {func_name} draws the graph of a forward pass, not a model: call the model first, "
            f"e.g. {func_name}(model(x), params=dict(model.named_parameters()))"
        )
    elif hasattr(value, "next_functions"):
        hint = "; pass the tensor whose .grad_fn this is, not the grad_fn itself"
    return (
        f"{func_name}: expected a tensor, or a tuple/list of tensors, or a dict of name -> tensor"
        f"{where}, got {kind}{hint}"
    )


@dataclass
class SavedValue:
    """One entry of a node's ``_saved_info()``: a tensor (with statistics) or a plain value."""

    name: str
    is_tensor: bool
    stats: TensorStats | None = None
    value_text: str = ""
    tensor: Any = None  # the saved tensor itself (not kept for plain values)


@dataclass
class GraphNode:
    """A node of the drawing: a backward function or a tensor (output, leaf, saved, base)."""

    key: int
    kind: str
    label: str  # op name ("MulBackward0") or tensor name ("fc.weight", "" if unnamed)
    obj: Any  # the grad_fn, or the tensor
    shape: tuple[int, ...] | None = None  # tensors: their shape; ops: first output's shape
    dtype: str | None = None
    variable_key: int | None = None  # AccumulateGrad: the key of its leaf tensor node
    input_meta: tuple[TensorMeta | None, ...] = ()  # ops: per next_functions slot
    output_meta: tuple[TensorMeta | None, ...] = ()
    saved: list[SavedValue] = field(default_factory=list)
    saved_error: str = ""  # why saved values could not be read (freed, modified in place)
    traceback: list[str] = field(default_factory=list)  # creation stack (anomaly mode)
    discovery: int = 0  # order of discovery in the walk (stable, for layout)


@dataclass(frozen=True)
class GraphEdge:
    """``src`` feeds ``dst`` (gradients flow the other way); ``style`` is "" or a graphviz
    style; ``slot`` is the index in ``dst.next_functions`` (or -1 for non-slot edges)."""

    src: int
    dst: int
    slot: int = -1
    kind: str = "data"  # "data", "saved" (dst's saved tensor), "view" (base -> view)


@dataclass
class Graph:
    """Nodes and edges reachable from the roots, plus lookups by object identity."""

    nodes: list[GraphNode]
    edges: list[GraphEdge]
    root_keys: list[int]
    key_by_id: dict[int, int]
    # (op key, slot) of next_functions entries that are None: inputs without a graph
    dead_slots: list[tuple[int, int]]
    keepalive: list[Any] = field(default_factory=list, repr=False)
    _into: list[list[GraphEdge]] | None = field(default=None, repr=False)
    # Results of functions of the finished graph that several tools ask for (upstream_first,
    # depths, ...): computed once per graph.
    memo: dict[str, Any] = field(default_factory=dict, repr=False)

    def key_of(self, obj: Any) -> int | None:
        return self.key_by_id.get(id(obj))

    def op_nodes(self) -> list[GraphNode]:
        return [node for node in self.nodes if node.kind == OP]

    def leaf_of_variable(self, tensor: Any) -> GraphNode | None:
        """The AccumulateGrad node whose ``variable`` is ``tensor`` (None if unreachable)."""
        for node in self.nodes:
            if node.kind == OP and getattr(node.obj, "variable", None) is tensor:
                return node
        return None

    def edges_into(self, key: int) -> list[GraphEdge]:
        """The data edges that feed node ``key`` (its inputs), in slot order."""
        if self._into is None:
            self._into = [[] for _ in self.nodes]
            for edge in self.edges:
                if edge.kind == "data":
                    self._into[edge.dst].append(edge)
        return self._into[key]


def upstream_first(graph: Graph) -> list[int]:
    """Node keys ordered so that every node comes after the nodes feeding it (Kahn's
    algorithm over data and view edges; iterative). Computed once per graph: do not modify."""
    order = graph.memo.get("upstream_first")
    if order is None:
        order = graph.memo["upstream_first"] = _upstream_first(graph)
    return order


def _upstream_first(graph: Graph) -> list[int]:
    consumers: list[list[int]] = [[] for _ in graph.nodes]
    waiting = [0] * len(graph.nodes)
    for edge in graph.edges:
        if edge.kind != "saved":
            consumers[edge.src].append(edge.dst)
            waiting[edge.dst] += 1
    ready = [key for key in range(len(graph.nodes)) if waiting[key] == 0]
    order = []
    while ready:
        key = ready.pop()
        order.append(key)
        for consumer in consumers[key]:
            waiting[consumer] -= 1
            if waiting[consumer] == 0:
                ready.append(consumer)
    return order


def depths(graph: Graph) -> list[int]:
    """Each node's longest distance from a root along data and view edges (roots 0): its
    layer counted from the loss. Computed once per graph: do not modify."""
    found = graph.memo.get("depths")
    if found is not None:
        return found
    depth = [0] * len(graph.nodes)
    feeders: list[list[int]] = [[] for _ in graph.nodes]
    for edge in graph.edges:
        if edge.kind != "saved":
            feeders[edge.dst].append(edge.src)
    for key in reversed(upstream_first(graph)):
        below = depth[key] + 1
        for src in feeders[key]:
            if depth[src] < below:
                depth[src] = below
    graph.memo["depths"] = depth
    return depth


def op_name(fn: Any) -> str:
    """The class name of a backward function, e.g. ``"MulBackward0"`` (a checkpointed
    segment drawn as one: ``"Checkpoint(<function>)"``)."""
    if type(fn) is SegmentNode:
        return fn.label
    return type(fn).__name__


class SegmentNode:
    """The nodes of one non-reentrant checkpoint call, standing as one node in a drawing.

    It reads like a backward function: ``next_functions`` are the edges that leave the
    segment, ``_saved_info()`` says what it holds; ``members`` are the nodes it stands for
    (``BackwardTrace`` records them, not this stand-in).
    """

    def __init__(self, segment: Any) -> None:
        self.segment = segment
        self.members = segment.nodes()
        self.label = f"Checkpoint({segment.name})"
        inside = {id(node) for node in self.members}
        leaving: list[tuple[Any, int]] = []
        seen: set[tuple[int, int]] = set()
        for node in self.members:
            for child, nr in getattr(node, "next_functions", ()):
                if child is None or id(child) in inside or (id(child), nr) in seen:
                    continue
                seen.add((id(child), nr))
                leaving.append((child, nr))
        self.next_functions = tuple(leaving)
        first = self.members[0] if self.members else None
        self._output_meta = getattr(first, "_output_meta", ())

    def _saved_info(self) -> dict:
        names = ", ".join(type(node).__name__ for node in self.members)
        return {"recomputed in backward": f"{len(self.members)} nodes: {names}"}


def checkpoint_segment_of(fn: Any) -> Any:
    """The checkpoint segment a node belongs to (``utils.checkpoint.CheckpointSegment``), or
    None; read from the instance only (duck-typed nodes have no such attribute)."""
    attributes = getattr(fn, "__dict__", None)
    return attributes.get("_checkpoint_segment") if attributes else None


# (shape, dtype) as the graph holds it -> (shape of ints, dtype name): a big graph has few
# distinct pairs and one or two per node.
_META_CACHE: dict[Any, TensorMeta] = {}
_META_CACHE_SIZE = 4096


def _meta_entry(entry: Any) -> TensorMeta | None:
    if entry is None:
        return None
    try:
        return _META_CACHE[entry]
    except (KeyError, TypeError):  # not seen yet, or unhashable (a foreign node's list)
        pass
    shape, dtype = entry
    meta = (tuple(int(d) for d in shape), dtype_name(dtype))
    try:
        if len(_META_CACHE) >= _META_CACHE_SIZE:
            _META_CACHE.clear()
        _META_CACHE[entry] = meta
    except TypeError:
        pass
    return meta


def _read_meta(fn: Any, attribute: str) -> tuple[TensorMeta | None, ...]:
    raw = getattr(fn, attribute, ())
    try:
        return tuple(map(_meta_entry, raw))
    except (TypeError, ValueError):  # a foreign node whose metadata has another form
        return ()


# Attributes that describe the graph itself, not what backward saved (never shown as saved).
GRAPH_STRUCTURE_NAMES = frozenset({"next_functions", "needs_input_grad"})


def read_saved(fn: Any) -> tuple[list[SavedValue], str]:
    """A node's saved tensors and attributes, and an error text if they could not be read.

    The tensors' ``stats`` are left None: :func:`fill_stats` computes those of many nodes at
    once."""
    reader = getattr(fn, "_saved_info", None)
    try:
        if reader is not None:
            raw = dict(reader())
        else:  # objects following PyTorch's convention: attributes named _saved_<name>
            raw = {
                name[len("_saved_") :]: getattr(fn, name)
                for name in dir(fn)
                if name.startswith("_saved_")
            }
    except RuntimeError as error:  # freed after backward, or modified in place
        return [], str(error)
    saved = []
    for name, value in raw.items():
        if name in GRAPH_STRUCTURE_NAMES:
            continue
        if is_tensor(value):
            saved.append(SavedValue(name, True, tensor=value))
        elif isinstance(value, (tuple, list)) and value and all(is_tensor(v) for v in value):
            for index, item in enumerate(value):
                saved.append(SavedValue(f"{name}[{index}]", True, tensor=item))
        else:
            saved.append(SavedValue(name, False, value_text=_short_repr(value)))
    return saved, ""


def fill_stats(saved: list[SavedValue]) -> None:
    """Set the ``stats`` of the saved tensors in ``saved`` (one batched computation)."""
    pending = [value for value in saved if value.is_tensor and value.stats is None]
    for value, stats in zip(pending, tensor_stats_many([v.tensor for v in pending]), strict=True):
        value.stats = stats


def _short_repr(value: Any, limit: int = 80) -> str:
    if isinstance(value, np.ndarray):
        text = f"array(shape={value.shape}, dtype={value.dtype})"
    else:
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


_UNSET = object()


def read_traceback(fn: Any) -> list[str]:
    """The creation stack recorded under anomaly mode, as ``format_stack`` strings."""
    # glassgrad's nodes make their metadata dict on first read: _metadata (None until then)
    # spares one dict per node of a big graph.
    metadata = getattr(fn, "_metadata", _UNSET)
    if metadata is _UNSET:
        metadata = getattr(fn, "metadata", None)
    if not isinstance(metadata, Mapping):
        return []
    stack = metadata.get("traceback_")
    if stack is None:
        return []
    if isinstance(stack, str):
        return [stack]
    return [str(frame) for frame in stack]


_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def user_frame(stack: list[str]) -> tuple[str, int, str, str] | None:
    """The innermost frame of ``stack`` outside glassgrad and installed packages:
    (file, line, function, code), or None."""
    for frame in reversed(stack):
        parsed = _parse_frame(frame)
        if parsed is None:
            continue
        if _is_library_file(parsed[0]):
            continue
        return parsed
    return None


def _is_library_file(filename: str) -> bool:
    # glassgrad itself, and installed packages: the user's line is the last frame outside them.
    path = os.path.abspath(filename)
    if path.startswith(_PACKAGE_DIR + os.sep):
        return True
    parts = path.split(os.sep)
    return "site-packages" in parts or "dist-packages" in parts


def _parse_frame(frame: str) -> tuple[str, int, str, str] | None:
    # format_stack lines read: '  File "path", line 12, in func\n    code\n'
    head, _, code = frame.strip("\n").partition("\n")
    head = head.strip()
    if not head.startswith('File "'):
        return None
    try:
        filename, rest = head[len('File "') :].split('", line ', 1)
        line_text, _, function = rest.partition(", in ")
        return filename, int(line_text), function, code.strip()
    except ValueError:
        return None


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector inside the block.

    A big graph's tools make ~10 small objects per node, all alive until the end: the
    collector would rescan them again and again and free nothing (a third of the time at
    20,000 nodes, half of a traced backward's).
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def build_graph(
    roots: Any,
    params: Mapping[str, Any] | Iterable[tuple[str, Any]] | None = None,
    *,
    show_saved: bool = False,
    read_details: bool = True,
    collapse_checkpoints: bool = False,
    func_name: str = "build_graph",
    saved_before: Mapping[int, tuple[list[SavedValue], str]] | None = None,
) -> Graph:
    """Walk the graph from ``roots`` (iteratively) and return it as a :class:`Graph`.

    Parameters
    ----------
    roots : Tensor, tuple/list of Tensor, or dict of name -> Tensor
        The outputs whose graph to collect. Shared subgraphs appear once.
    params : dict or iterable of (name, Tensor), optional
        Names for leaf tensors, e.g. ``dict(model.named_parameters())``.
    show_saved : bool
        Add a node per saved tensor of each backward function, linked to it.
    read_details : bool
        Read the saved values of each op (the explorer needs them, a plain drawing does not).
    collapse_checkpoints : bool
        Draw the nodes of each ``checkpoint(..., use_reentrant=False)`` call as one node, a
        :class:`SegmentNode` labelled ``Checkpoint(<function>)``.
    saved_before : dict, optional
        ``id(node) -> (saved values, error text)`` read earlier (a :class:`BackwardTrace`'s,
        from before backward freed them): used instead of reading those nodes again.

    Examples
    --------
    >>> x = glassgrad.ones(2, requires_grad=True)
    >>> [n.label for n in build_graph((x * 2).sum()).nodes][:3]
    ['', 'SumBackward0', 'MulBackward0']
    """
    root_items = normalize_roots(roots, func_name)
    param_names = named_tensor_map(params, func_name)
    builder = _Builder(param_names, show_saved, read_details, collapse_checkpoints, saved_before)
    with collector_paused():
        for name, tensor in root_items:
            builder.add_root(name, tensor)
        fill_stats([saved for node in builder.graph.nodes for saved in node.saved])
    return builder.graph


def named_tensor_map(params: Any, func_name: str) -> dict[int, str]:
    """``id(tensor) -> name`` from a dict or an iterable of ``(name, tensor)`` pairs."""
    if params is None:
        return {}
    items = params.items() if isinstance(params, Mapping) else params
    names: dict[int, str] = {}
    for entry in items:
        try:
            if is_tensor(entry):
                raise TypeError
            name, tensor = entry
        except (TypeError, ValueError):
            raise TypeError(
                f"{func_name}: params must be a dict of name -> tensor or (name, tensor) pairs, "
                f"such as dict(model.named_parameters()); got an item of type "
                f"{type(entry).__name__}"
            ) from None
        if not is_tensor(tensor):
            raise TypeError(
                f"{func_name}: params[{name!r}] must be a tensor, got {type(tensor).__name__}"
            )
        names.setdefault(id(tensor), str(name))
    return names


class _Builder:
    def __init__(
        self,
        param_names: dict[int, str],
        show_saved: bool,
        read_details: bool,
        collapse_checkpoints: bool = False,
        saved_before: Mapping[int, tuple[list[SavedValue], str]] | None = None,
    ):
        self.param_names = param_names
        self.saved_before = saved_before or {}
        self.show_saved = show_saved
        self.read_details = read_details
        self.collapse = collapse_checkpoints
        self.segments: dict[int, SegmentNode] = {}
        self.graph = Graph([], [], [], {}, [])

    def _stand_in(self, fn: Any) -> Any:
        """``fn``, or the SegmentNode of its checkpoint segment when collapsing (each member
        is then looked up as the segment's node)."""
        if not self.collapse:
            return fn
        segment = checkpoint_segment_of(fn)
        if segment is None:
            return fn
        stand_in = self.segments.get(id(segment))
        if stand_in is None:
            stand_in = self.segments[id(segment)] = SegmentNode(segment)
        key = self.graph.key_of(stand_in)
        if key is not None:
            self.graph.key_by_id[id(fn)] = key
            self.graph.keepalive.append(fn)
        return stand_in

    def _add_node(self, obj: Any, kind: str, label: str, **fields: Any) -> int:
        graph = self.graph
        key = len(graph.nodes)
        graph.nodes.append(GraphNode(key, kind, label, obj, discovery=key, **fields))
        graph.key_by_id[id(obj)] = key
        graph.keepalive.append(obj)
        return key

    def _tensor_node(self, tensor: Any, kind: str, label: str | None = None) -> int:
        key = self.graph.key_of(tensor)
        if key is not None:
            existing = self.graph.nodes[key]
            if existing.kind == SAVED and kind == LEAF:  # a saved leaf: show it as the leaf
                existing.kind = PARAM if id(tensor) in self.param_names else LEAF
                existing.label = self.param_names.get(id(tensor), "")
            return key
        name = self.param_names.get(id(tensor), "") if label is None else label
        if kind == LEAF and id(tensor) in self.param_names:
            kind = PARAM
        return self._add_node(
            tensor, kind, name, shape=tuple(tensor.shape), dtype=dtype_name(tensor.dtype)
        )

    def add_root(self, name: str, tensor: Any) -> None:
        graph = self.graph
        # The root, then the chain of view bases (drawn like torchviz: base -> view, dotted).
        pending: list[tuple[Any, str, str, int | None]] = [(tensor, OUTPUT, name, None)]
        while pending:
            current, kind, label, view_key = pending.pop()
            key = graph.key_of(current)
            if key is None:
                key = self._tensor_node(current, kind, label or None)
                if current.grad_fn is not None:
                    graph.edges.append(GraphEdge(self._walk_ops(current.grad_fn), key))
                base = _view_base(current)
                if base is not None:
                    pending.append((base, BASE, "", key))
            if kind == OUTPUT and key not in graph.root_keys:
                graph.root_keys.append(key)
            if view_key is not None:
                graph.edges.append(GraphEdge(key, view_key, -1, "view"))

    def _walk_ops(self, start: Any) -> int:
        graph = self.graph
        existing = graph.key_of(start)
        if existing is not None:
            return existing
        start = self._stand_in(start)
        existing = graph.key_of(start)
        if existing is not None:
            return existing
        start_key = self._op_node(start)
        stack = [start]
        while stack:
            fn = stack.pop()
            key = graph.key_of(fn)
            variable = getattr(fn, "variable", None)
            if variable is not None:
                var_key = self._tensor_node(variable, LEAF)
                graph.nodes[key].variable_key = var_key
                graph.edges.append(GraphEdge(var_key, key))
            children = []
            for slot, (child, _) in enumerate(getattr(fn, "next_functions", ())):
                if child is None:
                    graph.dead_slots.append((key, slot))
                    continue
                child_key = graph.key_of(child)
                if child_key is None:
                    child = self._stand_in(child)
                    child_key = graph.key_of(child)
                    if child_key is None:
                        child_key = self._op_node(child)
                        children.append(child)
                graph.edges.append(GraphEdge(child_key, key, slot))
            # Reverse so the first input is explored first (depth-first, like torchviz).
            stack.extend(reversed(children))
        return start_key

    def _op_node(self, fn: Any) -> int:
        output_meta = _read_meta(fn, "_output_meta")
        first = output_meta[0] if output_meta and output_meta[0] is not None else None
        fields: dict[str, Any] = {
            "input_meta": _read_meta(fn, "_input_meta"),
            "output_meta": output_meta,
            "shape": first[0] if first else None,
            "dtype": first[1] if first else None,
        }
        if self.read_details or self.show_saved:
            known = self.saved_before.get(id(fn))
            fields["saved"], fields["saved_error"] = known if known is not None else read_saved(fn)
        fields["traceback"] = read_traceback(fn)  # cheap: names variables in every drawing
        key = self._add_node(fn, OP, op_name(fn), **fields)
        if type(fn) is SegmentNode:
            for member in fn.members:  # every node of the segment is found as this one
                self.graph.key_by_id[id(member)] = key
                self.graph.keepalive.append(member)
        if self.show_saved:
            for saved in self.graph.nodes[key].saved:
                if not saved.is_tensor:
                    continue
                saved_key = self.graph.key_of(saved.tensor)
                if saved_key is None:
                    saved_key = self._tensor_node(saved.tensor, SAVED, saved.name)
                self.graph.edges.append(GraphEdge(key, saved_key, -1, "saved"))
        return key


def _view_base(tensor: Any) -> Any:
    is_view = getattr(tensor, "_is_view", None)
    if callable(is_view):
        try:
            if not is_view():
                return None
        except (TypeError, RuntimeError):
            return None
    base = getattr(tensor, "_base", None)
    return base if is_tensor(base) else None


def shares_memory(a: Any, b: Any) -> bool:
    """True if two tensors are views of the same memory (``detach()`` and ``.data`` are)."""
    try:
        return bool(np.shares_memory(as_array(a), as_array(b)))
    except (TypeError, ValueError, RuntimeError):
        return False
