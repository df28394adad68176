"""Diff two backward passes (step t against t+1, the buggy program against the fixed one).

Nodes of the two graphs are different objects, so they are matched by what they are: the op's
name and, among nodes of the same name, their order of discovery from the root (the same for
the same program; an edit shifts only the nodes of that name). The line of user code that
created a node (recorded under ``detect_anomaly``) is shown beside it, not matched on, since a
fix moves lines. Parameters are matched by name. The diff tells, per parameter and per node, how the
gradient norm changed, and which nodes appeared or vanished.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ._graph import OP, Graph, user_frame
from ._stats import tensor_stats
from .trace import BackwardTrace

__all__ = ["BackwardDiff", "NodeChange", "diff_backward"]


@dataclass(frozen=True)
class NodeChange:
    """One node of either pass: its matching ``name`` (``"MulBackward0 #0"``: the first
    MulBackward0 found from the root), the norm of the gradient it received in each pass (None:
    absent or did not run), its graph key in each pass (None where absent), and ``where`` it was
    created (``"f.py:12"``, from the pass that has it; ``""`` if not recorded)."""

    name: str
    before: float | None
    after: float | None
    key_before: int | None
    key_after: int | None
    where: str = ""

    def __str__(self) -> str:
        return self.name + (f" @ {self.where}" if self.where else "")

    @property
    def ratio(self) -> float | None:
        """``after / before`` (inf from 0 to non-zero; None when either is missing)."""
        if self.before is None or self.after is None:
            return None
        if self.before == 0:
            return 1.0 if self.after == 0 else math.inf
        return self.after / self.before


@dataclass
class BackwardDiff:
    """Per-parameter and per-node gradient norm changes between two backward passes.

    ``params`` is ``[(name, norm before, norm after)]``; ``nodes`` the nodes in both passes;
    ``appeared`` / ``vanished`` the nodes in only the second / only the first.
    """

    params: list[tuple[str, float | None, float | None]] = field(default_factory=list)
    nodes: list[NodeChange] = field(default_factory=list)
    appeared: list[NodeChange] = field(default_factory=list)
    vanished: list[NodeChange] = field(default_factory=list)
    after_graph: Graph | None = field(default=None, repr=False)

    def param(self, name: str) -> tuple[float | None, float | None]:
        for entry in self.params:
            if entry[0] == name:
                return entry[1], entry[2]
        raise KeyError(f"diff_backward: no parameter named {name!r}")

    def largest_changes(self, count: int = 10) -> list[NodeChange]:
        """The matched nodes whose gradient norm changed most (by ``|log ratio|``)."""

        def size(change: NodeChange) -> float:
            ratio = change.ratio
            if ratio is None or ratio == 0 or math.isnan(ratio):
                return math.inf if ratio == 0 else -1.0
            return abs(math.log(ratio))

        return sorted(self.nodes, key=size, reverse=True)[:count]

    def __str__(self) -> str:
        lines = ["parameter gradient norms (before -> after):"]
        for name, before, after in self.params:
            lines.append(f"  {name}: {_num(before)} -> {_num(after)}{_ratio_text(before, after)}")
        lines.append(
            f"nodes: {len(self.nodes)} in both, {len(self.appeared)} appeared, "
            f"{len(self.vanished)} vanished"
        )
        for title, changes in (("appeared", self.appeared), ("vanished", self.vanished)):
            for change in changes[:20]:
                lines.append(f"  {title}: {change}")
        largest = [c for c in self.largest_changes() if c.ratio not in (None, 1.0)]
        if largest:
            lines.append("largest changes of the gradient a node received:")
            for change in largest:
                lines.append(
                    f"  {change}: {_num(change.before)} -> {_num(change.after)}"
                    f"{_ratio_text(change.before, change.after)}"
                )
        return "\n".join(lines)


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.4g}"


def _ratio_text(before: float | None, after: float | None) -> str:
    if before is None or after is None:
        return ""
    if before == 0:
        return "" if after == 0 else "  (from 0)"
    return f"  (x{after / before:.3g})"


def diff_backward(
    before: BackwardTrace,
    after: BackwardTrace,
    params_before: Mapping[str, Any] | Iterable[tuple[str, Any]] | None = None,
    params_after: Mapping[str, Any] | Iterable[tuple[str, Any]] | None = None,
) -> BackwardDiff:
    """Compare two recorded backward passes (:func:`trace_backward`).

    Parameters
    ----------
    before, after : BackwardTrace
        The two passes, e.g. of step t and step t+1, or of the buggy and the fixed program.
    params_before, params_after : dict or iterable of (name, Tensor), optional
        The gradients to compare, matched by name: ``{name: p.grad.clone()}`` snapshots taken
        right after each pass (one model at two steps), or two models' parameters (a tensor
        that requires grad stands for its ``.grad``). ``params_after`` defaults to
        ``params_before``.

    Examples
    --------
    >>> w = glassgrad.ones(2, requires_grad=True)
    >>> first = trace_backward((w * 2).sum())
    >>> second = trace_backward((w * 3).sum())
    >>> diff = diff_backward(first, second)
    >>> [(c.name, c.before, c.after) for c in diff.nodes if c.name.startswith("Mul")]
    [('MulBackward0 #0', 1.414..., 1.414...)]
    """
    result = BackwardDiff(after_graph=after.graph)
    old = _named_nodes(before)
    new = _named_nodes(after)
    for name, (key, norm, where) in new.items():
        if name in old:
            old_key, old_norm, _ = old[name]
            result.nodes.append(NodeChange(name, old_norm, norm, old_key, key, where))
        else:
            result.appeared.append(NodeChange(name, None, norm, None, key, where))
    for name, (key, norm, where) in old.items():
        if name not in new:
            result.vanished.append(NodeChange(name, norm, None, key, None, where))
    first = _pairs(params_before)
    second = _pairs(params_after) if params_after is not None else first
    names = list(dict.fromkeys([n for n, _ in first] + [n for n, _ in second]))
    first_map, second_map = dict(first), dict(second)
    for name in names:
        result.params.append(
            (name, _grad_norm(first_map.get(name)), _grad_norm(second_map.get(name)))
        )
    return result


def _pairs(params: Any) -> list[tuple[str, Any]]:
    if params is None:
        return []
    return list(params.items() if isinstance(params, Mapping) else params)


def _grad_norm(value: Any) -> float | None:
    # A parameter (its .grad) or a gradient snapshot.
    if value is None:
        return None
    grad = getattr(value, "grad", None) if getattr(value, "requires_grad", False) else value
    if grad is None:
        return None
    return tensor_stats(grad).norm


def _named_nodes(trace: BackwardTrace) -> dict[str, tuple[int, float | None, str]]:
    """``name -> (graph key, norm of the gradient received, where created)`` for the op nodes
    of a pass."""
    graph: Graph = trace.graph
    seen: dict[str, int] = {}
    named = {}
    for node in graph.nodes:  # discovery order: the same for the same program
        if node.kind != OP:
            continue
        index = seen.get(node.label, 0)
        seen[node.label] = index + 1
        frame = user_frame(node.traceback)
        where = f"{frame[0].rsplit('/', 1)[-1]}:{frame[1]}" if frame else ""
        record = trace.record_of(node.obj)
        norm = None
        if record is not None:
            norms = [s.norm for s in record.grad_outputs if s is not None and s.norm is not None]
            norm = math.sqrt(sum(n * n for n in norms)) if norms else None
        named[f"{node.label} #{index}"] = (node.key, norm, where)
    return named
