"""Module groups and folds: the module calls of a recorded forward pass as nested boxes over the
graph, identical repeated calls folded into one, and the collapsed view every tool draws.

A :class:`Group` is one call of one module (``blocks.0 (Block)``), or a container that was
never called itself but holds called modules (``blocks (ModuleList)``). Groups nest as the calls
did. Each graph node belongs to the innermost call that created it (``ForwardLog.call_of_node``);
a parameter and its ``AccumulateGrad`` belong to the innermost group holding every node that
uses it (a weight shared by 50 time steps sits beside the steps, not in the first one).

A :class:`Fold` is a set of sibling groups with the same structure: calls of one module (time
steps of a recurrent cell) or modules named alike (``blocks.0`` ... ``blocks.3``) whose node
sub-graphs are identical (same ops, shapes, dtypes and wiring, by Weisfeiler-Lehman hashing).
Folding never makes a cycle other than a group feeding the next one (a recurrence).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ._graph import OP, Graph, SegmentNode
from .forward import ForwardLog, ModuleCall

__all__ = ["Group", "Fold", "GroupTree", "build_groups", "View", "collapsed_view"]

WL_ROUNDS = 3


@dataclass
class Group:
    """One module call (or an uncalled container) drawn as a box around its nodes."""

    gid: int
    name: str  # the module's name in the model, "" for the model itself
    type_name: str
    depth: int  # 0 for the model, 1 for its children, ... (dots in the name + 1)
    parent: int | None
    call_id: int | None  # None: a container never called itself (ModuleList, ModuleDict)
    call_number: int = 1  # 1-based among the calls of the same module in this graph
    calls: int = 1
    children: list[int] = field(default_factory=list)
    members: list[int] = field(default_factory=list)  # graph keys directly inside
    size: int = 0  # graph nodes inside, nested groups included
    fold: int | None = None

    @property
    def label(self) -> str:
        """``blocks.0 (Block)``; the model is ``(Net)``; repeated calls get ``#3``."""
        text = f"{self.name} ({self.type_name})" if self.name else f"({self.type_name})"
        return f"{text} #{self.call_number}" if self.calls > 1 else text


@dataclass
class Fold:
    """Sibling groups with identical sub-graphs, shown once with ``×count``."""

    fid: int
    groups: list[int]  # in call order; the first is the one shown

    @property
    def count(self) -> int:
        return len(self.groups)


@dataclass
class GroupTree:
    """Groups and folds over one :class:`Graph`; ``group_of[key]`` is a node's innermost group
    (None outside every module call)."""

    groups: list[Group]
    folds: list[Fold]
    group_of: list[int | None]
    top: list[int]  # groups without a parent

    def ancestors(self, gid: int | None) -> list[int]:
        """``gid`` and the groups around it, innermost first."""
        chain = []
        while gid is not None:
            chain.append(gid)
            gid = self.groups[gid].parent
        return chain

    def fold_label(self, fold: Fold) -> str:
        first = self.groups[fold.groups[0]]
        names = [self.groups[gid].name for gid in fold.groups]
        if len(set(names)) == 1:
            text = f"{first.name} ({first.type_name})" if first.name else f"({first.type_name})"
        else:
            text = f"{names[0]}…{_index_of(names[-1])} ({first.type_name})"
        return f"{text} ×{fold.count}"

    def box_label(self, gid: int) -> str:
        """The label of a group drawn collapsed: its fold's label when it is folded."""
        group = self.groups[gid]
        return self.fold_label(self.folds[group.fold]) if group.fold is not None else group.label


def _index_of(name: str) -> str:
    return name.rsplit(".", 1)[-1]


def build_groups(graph: Graph, log: ForwardLog, fold: bool = True) -> GroupTree:
    """The module groups (and, with ``fold``, the folds) of ``graph`` from a forward log."""
    calls = {call.call_id: call for call in log.calls if call.call_id >= 0}
    builder = _GroupBuilder(graph, log, calls)
    tree = builder.build()
    if fold:
        _find_folds(graph, tree)
    return tree


class _GroupBuilder:
    def __init__(self, graph: Graph, log: ForwardLog, calls: dict[int, ModuleCall]) -> None:
        self.graph = graph
        self.log = log
        self.calls = calls
        self.groups: list[Group] = []
        self.by_call: dict[int, int] = {}
        self.containers: dict[tuple[int | None, str], int] = {}

    def build(self) -> GroupTree:
        graph = self.graph
        group_of: list[int | None] = [None] * len(graph.nodes)
        call_of: dict[int, int] = {}
        for node in graph.nodes:
            if node.kind != OP or node.variable_key is not None:
                continue
            obj = node.obj
            if isinstance(obj, SegmentNode) and obj.members:
                obj = obj.members[0]
            call_id = self.log.call_of_node.get(id(obj))
            if call_id is not None and call_id in self.calls:
                call_of[node.key] = call_id
        for call_id in sorted(set(call_of.values())):  # groups numbered in call order
            self._group_of_call(call_id)
        for key, call_id in call_of.items():
            group_of[key] = self.by_call[call_id]
        # A parameter (and its AccumulateGrad) goes where every node that uses it is.
        users_of: dict[int, list[int]] = {}
        for edge in graph.edges:
            if graph.nodes[edge.src].variable_key is not None:
                users_of.setdefault(edge.src, []).append(edge.dst)
        for node in graph.nodes:
            if node.kind == OP and node.variable_key is not None:
                users = {group_of[user] for user in users_of.get(node.key, ())}
                home = self._common_ancestor(users) if users else None
                group_of[node.key] = home
                group_of[node.variable_key] = home
        # Outputs and view bases go with the op that made them.
        for edge in graph.edges:
            target = graph.nodes[edge.dst]
            if target.kind != OP and edge.kind == "data" and group_of[edge.dst] is None:
                group_of[edge.dst] = group_of[edge.src] if target.kind != "output" else None
        for key, gid in enumerate(group_of):
            if gid is not None:
                self.groups[gid].members.append(key)
        for gid in range(len(self.groups)):
            for ancestor in _chain(self.groups, gid):
                self.groups[ancestor].size += len(self.groups[gid].members)
        numbers: dict[str, list[int]] = {}
        for group in self.groups:
            if group.call_id is not None:
                numbers.setdefault(group.name, []).append(group.gid)
        for gids in numbers.values():
            gids.sort(key=lambda gid: self.groups[gid].call_id)
            for number, gid in enumerate(gids, 1):
                self.groups[gid].call_number = number
                self.groups[gid].calls = len(gids)
        top = [group.gid for group in self.groups if group.parent is None]
        return GroupTree(self.groups, [], group_of, top)

    def _new_group(self, name: str, type_name: str, parent: int | None, call_id: int | None):
        gid = len(self.groups)
        depth = 0 if name == "" else name.count(".") + 1
        self.groups.append(Group(gid, name, type_name, depth, parent, call_id))
        if parent is not None:
            self.groups[parent].children.append(gid)
        return gid

    def _group_of_call(self, call_id: int) -> int:
        existing = self.by_call.get(call_id)
        if existing is not None:
            return existing
        call = self.calls[call_id]
        parent_call = call.parent_id if call.parent_id in self.calls else None
        parent = self._group_of_call(parent_call) if parent_call is not None else None
        parent_name = self.groups[parent].name if parent is not None else None
        # Containers between the caller and this module (blocks between "" and blocks.0).
        for container in _containers_between(parent_name, call.module_name, self.log):
            key = (parent, container)
            if key not in self.containers:
                type_name = self.log.module_types.get(container, "?")
                self.containers[key] = self._new_group(container, type_name, parent, None)
            parent = self.containers[key]
        gid = self._new_group(call.module_name, call.type_name, parent, call_id)
        self.by_call[call_id] = gid
        return gid

    def _common_ancestor(self, gids: set[int | None]) -> int | None:
        chains = [list(reversed(_chain(self.groups, gid))) for gid in gids]
        if any(not chain for chain in chains):
            return None
        common = None
        for level in zip(*chains, strict=False):
            if len(set(level)) != 1:
                break
            common = level[0]
        return common


def _chain(groups: list[Group], gid: int | None) -> list[int]:
    chain = []
    while gid is not None:
        chain.append(gid)
        gid = groups[gid].parent
    return chain


def _containers_between(outer: str | None, inner: str, log: ForwardLog) -> list[str]:
    """Names of modules strictly between ``outer`` and ``inner`` that were never called."""
    if outer is None:
        return []
    parts = inner.split(".")
    start = 0 if outer == "" else outer.count(".") + 1
    if outer and not inner.startswith(outer + "."):
        return []
    names = []
    for end in range(start + 1, len(parts)):
        name = ".".join(parts[:end])
        if name in log.module_types and not log.calls_of(name):
            names.append(name)
    return names


# ---- folding -------------------------------------------------------------------------------


def _find_folds(graph: Graph, tree: GroupTree) -> None:
    signatures = _signatures(graph, tree)
    levels: list[int | None] = [None, *range(len(tree.groups))]
    for level in levels:
        children = tree.top if level is None else tree.groups[level].children
        candidates: dict[tuple, list[int]] = {}
        for gid in children:
            group = tree.groups[gid]
            if group.call_id is None:  # containers are not folded, their contents are
                continue
            key = (signatures[gid], re.sub(r"\d+$", "#", group.name))
            candidates.setdefault(key, []).append(gid)
        sets = sorted(
            (sorted(gids, key=lambda g: tree.groups[g].call_id) for gids in candidates.values()),
            key=len,
            reverse=True,
        )
        accepted: list[list[int]] = []
        for gids in sets:
            if len(gids) < 2:
                continue
            if _acyclic_when_folded(graph, tree, level, [*accepted, gids]):
                accepted.append(gids)
        for gids in accepted:
            fid = len(tree.folds)
            tree.folds.append(Fold(fid, gids))
            for gid in gids:
                tree.groups[gid].fold = fid


def _signatures(graph: Graph, tree: GroupTree) -> list[int]:
    """A structural hash per group: its nodes' ops, shapes and wiring (WL hashing over the
    sub-graph inside it), and its nested groups' types."""
    inside: list[list[int]] = [[] for _ in tree.groups]
    for key, gid in enumerate(tree.group_of):
        for ancestor in tree.ancestors(gid):
            inside[ancestor].append(key)
    feeders: list[list[int]] = [[] for _ in graph.nodes]
    users: list[list[int]] = [[] for _ in graph.nodes]
    for edge in graph.edges:
        if edge.kind != "saved":
            feeders[edge.dst].append(edge.src)
            users[edge.src].append(edge.dst)
    base = []
    for node in graph.nodes:
        label = node.label if node.kind == OP else ""
        base.append(hash((node.kind, label, node.shape, node.dtype)))
    signatures = []
    for group in tree.groups:
        keys = inside[group.gid]
        members = set(keys)
        colour = {
            key: hash((base[key], sum(f not in members for f in feeders[key]), len(users[key]) > 0))
            for key in keys
        }
        for _ in range(WL_ROUNDS):
            colour = {
                key: hash(
                    (
                        colour[key],
                        tuple(sorted(colour[f] for f in feeders[key] if f in members)),
                        tuple(sorted(colour[u] for u in users[key] if u in members)),
                    )
                )
                for key in keys
            }
        nested = tuple(sorted(Counter(tree.groups[c].type_name for c in group.children).items()))
        signatures.append(
            hash((group.type_name, nested, tuple(sorted(Counter(colour.values()).items()))))
        )
    return signatures


def _acyclic_when_folded(
    graph: Graph, tree: GroupTree, level: int | None, folds: list[list[int]]
) -> bool:
    """True if the items directly inside ``level`` stay acyclic (self-loops aside) when each
    set in ``folds`` is merged into one item."""
    depth_of_level = len(tree.ancestors(level))
    merged: dict[int, int] = {}
    for index, gids in enumerate(folds):
        for gid in gids:
            merged[gid] = index

    def item(key: int) -> tuple[str, int] | None:
        chain = tree.ancestors(tree.group_of[key])
        if level is not None and level not in chain:
            return None
        position = len(chain) - depth_of_level - 1  # the child of `level` on the chain
        if position < 0:
            return ("node", key)
        gid = chain[position]
        return ("fold", merged[gid]) if gid in merged else ("group", gid)

    successors: dict[Any, set] = {}
    indegree: Counter = Counter()
    for edge in graph.edges:
        if edge.kind == "saved":
            continue
        a, b = item(edge.src), item(edge.dst)
        if a is None or b is None or a == b:
            continue
        if b not in successors.setdefault(a, set()):
            successors[a].add(b)
            indegree[b] += 1
        successors.setdefault(b, set())
    ready = [node for node in successors if indegree[node] == 0]
    seen = 0
    while ready:
        node = ready.pop()
        seen += 1
        for nxt in successors[node]:
            indegree[nxt] -= 1
            if indegree[nxt] == 0:
                ready.append(nxt)
    return seen == len(successors)


# ---- the collapsed view ----------------------------------------------------------------------


@dataclass
class View:
    """What a drawing shows: each graph key mapped to an item, ``("node", key)`` or
    ``("group", gid)`` for a collapsed group or a fold (its first group stands for it); the
    groups drawn open (as clusters); and the edges between items (self-loops of folds kept:
    one step feeding the next)."""

    item_of: list[tuple[str, int]]
    items: list[tuple[str, int]]
    open_groups: list[int]
    edges: list[tuple[tuple[str, int], tuple[str, int], str]]


def collapsed_view(
    graph: Graph, tree: GroupTree | None, depth: int | None = None, fold: bool = True
) -> View:
    """Map the graph onto what is drawn: groups deeper than ``depth`` hidden inside their
    ancestor at ``depth`` (one box), and with ``fold`` each fold drawn as one box."""
    if tree is None:
        items = [("node", node.key) for node in graph.nodes]
        edges = [(("node", e.src), ("node", e.dst), e.kind) for e in graph.edges]
        return View(items, items, [], edges)
    boxed: list[bool] = []
    for group in tree.groups:
        boxed.append(
            (depth is not None and group.depth >= depth) or (fold and group.fold is not None)
        )
    item_of: list[tuple[str, int]] = []
    instance: list[int | None] = []  # the group each node is hidden in, before folding
    for node in graph.nodes:
        outermost = None
        for gid in tree.ancestors(tree.group_of[node.key]):
            if boxed[gid]:
                outermost = gid
        instance.append(outermost)
        if outermost is None:
            item_of.append(("node", node.key))
            continue
        group = tree.groups[outermost]
        if fold and group.fold is not None:
            outermost = tree.folds[group.fold].groups[0]
        item_of.append(("group", outermost))
    items = list(dict.fromkeys(item_of))
    open_groups = [
        group.gid
        for group in tree.groups
        if not any(boxed[gid] for gid in tree.ancestors(group.gid))
    ]
    edges = []
    seen: set[tuple] = set()
    for edge in graph.edges:
        a, b = item_of[edge.src], item_of[edge.dst]
        # Inside one box an edge vanishes; between two folded instances it is the loop.
        if a == b and instance[edge.src] == instance[edge.dst]:
            continue
        if (a, b, edge.kind) in seen:
            continue
        seen.add((a, b, edge.kind))
        edges.append((a, b, edge.kind))
    return View(item_of, items, open_groups, edges)


def groups_json(
    tree: GroupTree, param_grads: dict[int, tuple[float | None, bool]]
) -> dict[Any, Any]:
    """The groups and folds as the explorer's data: per group its place in the tree, its
    nodes, and a gradient summary of the parameters inside (``param_grads``: AccumulateGrad
    key -> (gradient norm or None, whether it is a problem))."""
    summary = [[0, 0.0, 0, False] for _ in tree.groups]  # params, sum of norm², problems, any
    for key, (norm, problem) in param_grads.items():
        for gid in tree.ancestors(tree.group_of[key]):
            entry = summary[gid]
            entry[0] += 1
            entry[2] += int(problem)
            if norm is not None:
                entry[1] += norm * norm
                entry[3] = True
    groups = []
    for group in tree.groups:
        params, squares, problems, any_grad = summary[group.gid]
        groups.append(
            {
                "id": group.gid,
                "name": group.name,
                "type": group.type_name,
                "label": group.label,
                "boxLabel": tree.box_label(group.gid),
                "depth": group.depth,
                "parent": group.parent,
                "children": group.children,
                "members": group.members,
                "size": group.size,
                "fold": group.fold,
                "called": group.call_id is not None,
                "params": params,
                "gradNorm": round(squares**0.5, 6) if any_grad else None,
                "problems": problems,
            }
        )
    folds = [
        {"id": fold.fid, "groups": fold.groups, "label": tree.fold_label(fold)}
        for fold in tree.folds
    ]
    return {"groups": groups, "folds": folds}
