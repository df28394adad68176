"""Per-loss-term attribution: which loss term sends gradient to which parameter and node.

A total loss ``policy_loss + 0.5 * value_loss`` hides where each gradient came from: the value
head should learn from the value term only, and when an advantage is computed from the critic's
values without ``.detach()`` the policy term reaches it too. :func:`attribute_grads` runs one
``autograd.grad`` per term (nothing is accumulated into ``.grad``) with a post-hook on every
node, and tells, for every parameter and node, which terms reach it and the norm each sends;
:func:`expect_no_grad` states an intent ("policy_loss must not train the value head") and
raises with the path that leaks.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..autograd import grad as autograd_grad
from ._graph import OP, Graph, build_graph, is_tensor, named_tensor_map, user_frame
from ._stats import tensor_stats
from .forward import ForwardLog
from .trace import record_backward

__all__ = ["TermAttribution", "GradientLeakError", "attribute_grads", "expect_no_grad"]


class GradientLeakError(AssertionError):
    """A loss term sends gradient where :func:`expect_no_grad` said it must not."""


@dataclass
class TermAttribution:
    """Gradient norms split by loss term.

    ``params[name][term]`` is the L2 norm of the gradient ``term`` sends to the parameter, for
    the terms that reach it (absent: no path from that term); ``nodes[key][term]`` the norm of
    the gradient node ``key`` of ``graph`` received from ``term`` (the graph of all terms).
    """

    terms: list[str]
    graph: Graph
    params: dict[str, dict[str, float]] = field(default_factory=dict)
    nodes: dict[int, dict[str, float]] = field(default_factory=dict)
    tensors: dict[str, Any] = field(default_factory=dict, repr=False)
    roots: dict[str, Any] = field(default_factory=dict, repr=False)
    forward_log: ForwardLog | None = field(default=None, repr=False)

    def terms_of(self, name: str) -> dict[str, float]:
        """``{term: norm}`` for the parameter ``name`` (empty if no term reaches it)."""
        if name not in self.params:
            raise KeyError(f"attribute_grads: no parameter named {name!r}")
        return dict(self.params[name])

    def expect_no_grad(self, from_: str, to: Any) -> None:
        """Raise :class:`GradientLeakError` if term ``from_`` reaches any parameter of ``to``
        (a Module, a tensor, a list of them, or a parameter-name prefix), with the path."""
        if from_ not in self.roots:
            raise KeyError(f"expect_no_grad: no loss term named {from_!r}; terms: {self.terms}")
        leaks = []
        for name in self._names_of(to):
            norm = self.params.get(name, {}).get(from_)
            if norm is not None:
                leaks.append((name, norm))
        if not leaks:
            return
        name, norm = leaks[0]
        lines = [
            f"expect_no_grad: loss term {from_!r} sends gradient to {name} (norm {norm:.4g})"
            + (f" and {len(leaks) - 1} more parameter(s) of it" if len(leaks) > 1 else "")
            + "; the path, from the parameter to the loss term:"
        ]
        lines.extend(f"  {step}" for step in self.path(from_, name))
        lines.append(
            "Cut it where the gradient should stop, with .detach() (e.g. an advantage or a "
            "target computed from the critic's values wants values.detach())."
        )
        raise GradientLeakError("\n".join(lines))

    def path(self, term: str, name: str) -> list[str]:
        """The nodes from parameter ``name`` to the root of ``term``, one line each, with the
        source line that created them (recorded under ``detect_anomaly``) and their module."""
        graph = self.graph
        tensor = self.tensors[name]
        start = graph.key_of(tensor)
        goal = graph.key_of(self.roots[term])
        if start is None or goal is None:
            return [name, "...", term]
        # Breadth-first along data edges (src feeds dst): the shortest path to the term's root.
        consumers: dict[int, list[int]] = {}
        for edge in graph.edges:
            if edge.kind != "saved":
                consumers.setdefault(edge.src, []).append(edge.dst)
        came_from = {start: start}
        queue = deque([start])
        while queue and goal not in came_from:
            key = queue.popleft()
            for nxt in consumers.get(key, ()):
                if nxt not in came_from:
                    came_from[nxt] = key
                    queue.append(nxt)
        if goal not in came_from:
            return [name, "...", term]
        keys = [goal]
        while keys[-1] != start:
            keys.append(came_from[keys[-1]])
        return [self._describe(key, term) for key in reversed(keys)]

    def _describe(self, key: int, term: str) -> str:
        node = self.graph.nodes[key]
        if node.kind != OP:
            return node.label or term if key in self.graph.root_keys else node.label or "tensor"
        text = node.label
        module = self.forward_log.module_of(node.obj) if self.forward_log else None
        if module:
            text += f" in {module}"
        frame = user_frame(node.traceback)
        if frame:
            text += f"  ({frame[0].rsplit('/', 1)[-1]}:{frame[1]}: {frame[3]})"
        norm = self.nodes.get(key, {}).get(term)
        if norm is not None:
            text += f"  [grad norm {norm:.3g}]"
        return text

    def _names_of(self, to: Any) -> list[str]:
        if isinstance(to, str):
            names = [n for n in self.params if n == to or n.startswith(to + ".")]
            if not names:
                raise KeyError(f"expect_no_grad: no parameter named {to!r} or under it")
            return names
        if hasattr(to, "parameters") and callable(to.parameters):
            tensors = list(to.parameters())
        elif is_tensor(to):
            tensors = [to]
        else:
            tensors = list(to)
        by_id = {id(t): n for n, t in self.tensors.items()}
        missing = [t for t in tensors if id(t) not in by_id]
        if missing:
            raise ValueError(
                f"expect_no_grad: {len(missing)} of the tensors in to= are not among the "
                "parameters given to attribute_grads (pass params=model.named_parameters())"
            )
        return [by_id[id(t)] for t in tensors]

    def table(self) -> str:
        """Parameters × terms, the gradient norm each term sends ("-": no path)."""
        header = ["parameter", *self.terms]
        rows = [
            [name, *(_num(self.params[name].get(term)) for term in self.terms)]
            for name in self.params
        ]
        widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
        return "\n".join(
            "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
            for row in [header, ["-" * w for w in widths], *rows]
        )

    def __str__(self) -> str:
        return self.table()


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.3g}"


def attribute_grads(
    terms: Mapping[str, Any] | Iterable[Any],
    params: Mapping[str, Any] | Iterable[tuple[str, Any]],
    *,
    forward_log: ForwardLog | None = None,
) -> TermAttribution:
    """For each loss term, the gradient it sends to every parameter and node.

    Each term is differentiated on its own with ``autograd.grad(..., retain_graph=True)``, so
    ``.grad`` is left as it was and the graph can still be used (call ``backward`` on the total
    afterwards as usual).

    Parameters
    ----------
    terms : dict of name -> scalar Tensor, or a list of them (named ``term0``, ``term1``...)
        The loss terms, e.g. ``{"policy_loss": pg, "value_loss": vf, "entropy": ent}``.
    params : dict or iterable of (name, Tensor)
        E.g. ``model.named_parameters()``.
    forward_log : ForwardLog, optional
        From :func:`record_forward`: paths name the module of each node.

    Returns
    -------
    TermAttribution
        ``.params[name]`` is ``{term: norm}``; ``print()`` shows the table;
        ``.expect_no_grad(from_=..., to=...)`` checks an intent.

    Examples
    --------
    >>> w = glassgrad.ones(2, requires_grad=True)
    >>> v = glassgrad.ones(2, requires_grad=True)
    >>> found = attribute_grads({"a": (w * 3).sum(), "b": (v * w).sum()}, {"w": w, "v": v})
    >>> sorted(found.params["w"]), sorted(found.params["v"])
    (['a', 'b'], ['b'])
    """
    named = _named_terms(terms)
    pairs = list(params.items() if isinstance(params, Mapping) else params)
    named_tensor_map(pairs, "attribute_grads")
    graph = build_graph(dict(named), pairs, read_details=True, func_name="attribute_grads")
    found = TermAttribution(
        terms=[name for name, _ in named],
        graph=graph,
        tensors=dict(pairs),
        roots=dict(named),
        forward_log=forward_log,
    )
    found.params = {name: {} for name, _ in pairs}
    trainable = [(n, t) for n, t in pairs if getattr(t, "requires_grad", False)]
    for term, root in named:
        if root.grad_fn is None:
            continue
        with record_backward(root) as trace:
            grads = autograd_grad(
                root, [t for _, t in trainable], retain_graph=True, allow_unused=True
            )
        for (name, _), grad in zip(trainable, grads, strict=True):
            if grad is not None:
                found.params[name][term] = _norm(grad)
        for node in trace.order:
            key = graph.key_of(node)
            record = trace.record_of(node)
            norms = [s.norm for s in record.grad_outputs if s is not None and s.norm is not None]
            if key is not None and norms:
                found.nodes.setdefault(key, {})[term] = math.sqrt(sum(n * n for n in norms))
    return found


def expect_no_grad(
    terms: Mapping[str, Any] | Iterable[Any],
    params: Mapping[str, Any] | Iterable[tuple[str, Any]],
    *,
    from_: str,
    to: Any,
    forward_log: ForwardLog | None = None,
) -> TermAttribution:
    """Check that loss term ``from_`` sends no gradient to ``to``; raise with the leaking path.

    One call finds the classic actor-critic bug, an advantage computed from the critic's values
    without ``.detach()``, which lets the policy loss train the value head.

    Parameters
    ----------
    terms, params, forward_log
        As for :func:`attribute_grads`.
    from_ : str
        The name of the term that must not reach ``to``.
    to : Module, Tensor, list of Tensor, or str
        The parameters it must not reach (a string names a parameter or a prefix of names).

    Returns
    -------
    TermAttribution
        When nothing leaks, for further checks.

    Raises
    ------
    GradientLeakError
        (an ``AssertionError``) naming the parameter, the norm, and the path of nodes, with the
        source line of each when the forward ran under ``detect_anomaly()``.

    Examples
    --------
    >>> actor, critic = glassgrad.nn.Linear(2, 1), glassgrad.nn.Linear(2, 1)
    >>> x = glassgrad.ones(4, 2)
    >>> values = critic(x).squeeze(-1)
    >>> advantage = 1.0 - values.detach()
    >>> terms = {"policy_loss": -(actor(x).squeeze(-1) * advantage).mean(),
    ...          "value_loss": (values - 1.0).pow(2).mean()}
    >>> params = {**dict(actor.named_parameters(prefix="actor")),
    ...           **dict(critic.named_parameters(prefix="critic"))}
    >>> _ = expect_no_grad(terms, params, from_="policy_loss", to=critic)
    """
    found = attribute_grads(terms, params, forward_log=forward_log)
    found.expect_no_grad(from_, to)
    return found


def _named_terms(terms: Any) -> list[tuple[str, Any]]:
    if is_tensor(terms):
        items = [("loss", terms)]
    elif isinstance(terms, Mapping):
        items = [(str(name), value) for name, value in terms.items()]
    else:
        items = [(f"term{index}", value) for index, value in enumerate(terms)]
    if not items:
        raise ValueError("attribute_grads: expected at least one loss term")
    for name, value in items:
        if not is_tensor(value):
            raise TypeError(
                f"attribute_grads: loss term {name!r} must be a tensor, got {type(value).__name__}"
            )
        if tuple(value.shape) != ():
            raise ValueError(
                f"attribute_grads: loss term {name!r} has shape {tuple(value.shape)}; pass "
                "scalar terms (e.g. the .mean() or .sum() that goes into the total loss)"
            )
    return items


def _norm(grad: Any) -> float:
    norm = tensor_stats(grad).norm
    return math.nan if norm is None else norm
