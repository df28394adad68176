"""Names for nodes: the variable a line of user code assigned (``adv = returns - values`` makes
the ``SubBackward0`` node ``adv``), and what a custom Function is (qualified name, docstring).

Source lines come from the creation stack that anomaly mode records
(``glassgrad.autograd.detect_anomaly()``). One statement can create several nodes
(``loss = (a * b).sum()``); the name goes to the one the statement returned: the node no other
node of the same run of that line consumes. A run is a stretch of node creations from one line,
so each pass through ``h = layer(h)`` in a loop names its own result.
"""

from __future__ import annotations

import inspect
import re
from typing import Any

from ._graph import OP, Graph, user_frame

__all__ = ["variable_names", "node_titles", "function_info"]

# `name =`, `self.name =`, `name: T =`, `name +=`; not `a == b`, not tuple targets.
_ASSIGNED = re.compile(
    r"^\s*([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)\s*(?::[^=]*)?(?:\*\*|//|>>|<<|[-+*/@%&|^])?=(?!=)"
)


def assigned_name(code: str) -> str | None:
    """The single name a line assigns to, or None (``adv = a - b`` -> ``"adv"``)."""
    match = _ASSIGNED.match(code)
    return match.group(1) if match else None


def variable_names(graph: Graph) -> dict[int, str]:
    """Graph key -> the variable name its creating line assigned it to (ops only)."""
    created: list[tuple[int, int, tuple[str, int]]] = []  # (sequence, key, (file, line))
    names: dict[int, str] = {}
    for node in graph.nodes:
        if node.kind != OP or node.variable_key is not None or not node.traceback:
            continue
        frame = user_frame(node.traceback)
        if frame is None:
            continue
        name = assigned_name(frame[3])
        if name is not None:
            names[node.key] = name
        created.append((_sequence(node.obj, node.key), node.key, (frame[0], frame[1])))
    if not names:
        return {}
    created.sort()
    run_of: dict[int, int] = {}
    run = 0
    previous = None
    for _, key, where in created:
        if where != previous:
            run += 1
            previous = where
        run_of[key] = run
    for edge in graph.edges:
        if edge.kind != "data" or edge.src not in names:
            continue
        if run_of.get(edge.dst) == run_of[edge.src]:  # consumed within its own statement
            names.pop(edge.src, None)
    return names


def _sequence(fn: Any, fallback: int) -> int:
    reader = getattr(fn, "_sequence_nr", None)
    try:
        return int(reader()) if callable(reader) else -fallback
    except (TypeError, ValueError, RuntimeError):
        return -fallback


def node_titles(graph: Graph) -> list[str]:
    """Each node's label with its variable name in front when known: ``adv (SubBackward0)``."""
    names = variable_names(graph)
    titles = []
    for node in graph.nodes:
        name = names.get(node.key)
        titles.append(f"{name} ({node.label})" if name else node.label)
    return titles


def function_info(fn: Any) -> dict[str, str] | None:
    """For the node of a custom ``autograd.Function``: its qualified name and docstring."""
    cls = getattr(type(fn), "_forward_cls", None)
    if not isinstance(cls, type):
        return None
    doc = inspect.getdoc(cls) or ""
    return {"name": f"{cls.__module__}.{cls.__qualname__}", "doc": doc}
