"""One health verdict for a backward pass, shared by ``grad_report``, the explorer and the
terminal: NaN/Inf origin, dead parameters with the reason, and vanishing or exploding gradients
judged by relative rules, not only by an absolute threshold.

* **depth growth** — each parameter's depth is the longest path from the loss to its
  ``AccumulateGrad`` node (the last layer is shallow, the first deep). Gradient norms are
  compared across depth among parameters of the same kind (matrices with matrices, vectors
  with vectors): a norm that grows ``ratio``-fold or more from the shallowest to the deepest is
  *exploding*, one that shrinks as much is *vanishing*. A stack whose first layer gets 2×10⁴
  times the gradient of its last is flagged whatever the absolute numbers.
* **large norm** — a gradient norm above ``max_norm`` (1e3), the absolute rule ``grad_report``
  has always applied, so the explorer never says "none found" beside a norm of 10⁴.
* **update / weight ratio** (with ``lr=``) — ``lr·‖g‖ / ‖w‖``: above ``max_update`` one SGD
  step would change the weights by that fraction or more; below ``min_update`` they barely
  move.
* **NaN/Inf origin** — the node that received finite gradients and sent NaN/Inf (with the
  words anomaly mode raises: "Function 'LogBackward0' returned nan values ...") and the first
  op whose saved forward values hold them.
* **dead parameters** — unreachable from the loss, with the reason (:mod:`.diagnose`);
  with ``expected_frozen=``, the parameters meant to be frozen are not dead when they get no
  gradient and are *not-frozen* when they get one (``grad_report``'s meaning).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ._graph import Graph, build_graph, depths, user_frame
from ._stats import json_number, tensor_stats
from .diagnose import REASON_OK, diagnose_params, forward_nonfinite_origins
from .forward import ForwardLog
from .report_modules import frozen_matcher, not_frozen_text
from .trace import BackwardTrace

__all__ = ["Finding", "Health", "check_health", "DEPTH_RATIO"]

DEPTH_RATIO = 100.0  # norm growth (or shrinkage) across depth that is flagged
MAX_UPDATE = 0.1  # lr * |g| / |w| above this: one step rewrites a tenth of the weights
MIN_UPDATE = 1e-7
MAX_NORM = 1e3  # grad_report's exploding_norm default


@dataclass(frozen=True)
class Finding:
    """One problem: ``kind`` is "nan", "dead", "not-frozen", "exploding", "vanishing",
    "large-norm", "update-large" or "update-small"; ``subject`` the parameter or node it is
    about; ``keys`` its graph keys."""

    kind: str
    subject: str
    detail: str
    keys: tuple[int, ...] = ()


@dataclass
class Health:
    """The verdict: ``findings`` (empty when healthy) and the gradient norm per depth.

    ``params`` lists ``(name, depth, grad norm or None, weight norm)`` per parameter.
    """

    findings: list[Finding] = field(default_factory=list)
    params: list[tuple[str, int, float | None, float]] = field(default_factory=list)
    graph: Graph | None = field(default=None, repr=False)

    @property
    def healthy(self) -> bool:
        return not self.findings

    def of_kind(self, kind: str) -> list[Finding]:
        return [finding for finding in self.findings if finding.kind == kind]

    def depth_norms(self) -> list[tuple[int, float]]:
        """``(depth, largest gradient norm of the parameters at that depth)``, shallow first:
        the points of the per-depth chart."""
        best: dict[int, float] = {}
        for _, depth, norm, _ in self.params:
            if norm is not None and math.isfinite(norm):
                best[depth] = max(best.get(depth, 0.0), norm)
        return sorted(best.items())

    def __str__(self) -> str:
        if self.healthy:
            return "healthy: no NaN/Inf, no dead parameter, no vanishing or exploding gradient"
        lines = [f"{len(self.findings)} problem(s):"]
        lines.extend(f"  [{f.kind}] {f.subject}: {f.detail}" for f in self.findings)
        return "\n".join(lines)

    def figure(self, ax: Any = None) -> Any:
        """A matplotlib figure of gradient norm against depth (log scale), one point per
        parameter, labelled; returns the figure."""
        import matplotlib.pyplot as plt  # optional dependency, only for this figure

        if ax is None:
            fig, ax = plt.subplots(figsize=(7, 4))
        else:
            fig = ax.figure
        points = [(d, n, name) for name, d, n, _ in self.params if n and math.isfinite(n)]
        if points:
            ax.plot([p[0] for p in points], [p[1] for p in points], "o-", color="#1c64f2")
            for depth, norm, name in points:
                ax.annotate(
                    name, (depth, norm), fontsize=7, xytext=(3, 3), textcoords="offset points"
                )
            ax.set_yscale("log")
        ax.set_xlabel("depth from the loss (longest path to the parameter)")
        ax.set_ylabel("gradient norm")
        ax.set_title("gradient norm by depth" + ("" if self.healthy else " — problems found"))
        return fig

    def as_json(self) -> dict[str, Any]:
        """The verdict as JSON-ready data (the explorer's "health" entry)."""
        return {
            "findings": [
                {"kind": f.kind, "subject": f.subject, "detail": f.detail, "keys": list(f.keys)}
                for f in self.findings
            ],
            "params": [
                {
                    "name": n,
                    "depth": d,
                    "norm": json_number(g),
                    "weightNorm": json_number(w),
                }
                for n, d, g, w in self.params
            ],
        }


def check_health(
    loss: Any,
    named_parameters: Mapping[str, Any] | Iterable[tuple[str, Any]] | None,
    *,
    trace: BackwardTrace | None = None,
    lr: float | None = None,
    ratio: float = DEPTH_RATIO,
    max_update: float = MAX_UPDATE,
    min_update: float = MIN_UPDATE,
    max_norm: float = MAX_NORM,
    forward_log: ForwardLog | None = None,
    graph: Graph | None = None,
    expected_frozen: Iterable[Any] | None = None,
) -> Health:
    """Judge the gradients of ``named_parameters`` from ``loss`` (after backward has run).

    Parameters
    ----------
    loss : Tensor
        The loss whose graph to judge (its structure outlives backward); may be None when
        ``graph`` is given.
    named_parameters : dict or iterable of (name, Tensor), or None
        Their ``.grad`` are judged.
    trace : BackwardTrace, optional
        From :func:`trace_backward`: finds the node where NaN/Inf first appeared in backward.
    lr : float, optional
        The learning rate: enables the update/weight-ratio rule.
    ratio : float
        Growth (or shrinkage) of the gradient norm across depth that is flagged.
    max_update, min_update : float
        Bounds of ``lr * |grad| / |weight|``.
    max_norm : float
        A gradient norm above this is reported ("large-norm"), whatever the depth rule says.
    forward_log : ForwardLog, optional
        Exact reasons for dead parameters (see :func:`record_forward`).
    graph : Graph, optional
        An already built graph of ``loss`` (saves building it again).
    expected_frozen : iterable of str, Module or Tensor, optional
        What you mean to keep frozen, as for :func:`grad_report`: parameter names, module
        name prefixes (``"backbone"`` covers ``backbone.0.weight``), modules or tensors. Those
        that get no gradient are no finding (not "dead"); those that get one are
        "not-frozen" findings.

    Examples
    --------
    >>> layers = [glassgrad.nn.Linear(2, 2, bias=False) for _ in range(6)]
    >>> with glassgrad.no_grad():  # shrinks the activations, stretches the gradients
    ...     for layer in layers:
    ...         _ = layer.weight.copy_(glassgrad.tensor([[0.5, 0.0], [0.0, 3.0]]))
    >>> x = glassgrad.tensor([[1.0, 0.0]])
    >>> for layer in layers:
    ...     x = layer(x)
    >>> (x[:, 1] - x[:, 0] * 50).sum().backward()
    >>> params = {f"{i}.weight": layer.weight for i, layer in enumerate(layers)}
    >>> [f.kind for f in check_health(x.sum(), params).findings]
    ['exploding']
    """
    if named_parameters is None:
        pairs = []
    elif isinstance(named_parameters, Mapping):
        pairs = list(named_parameters.items())
    else:
        pairs = list(named_parameters)
    if graph is None:
        graph = build_graph(loss, pairs, read_details=True, func_name="check_health")
    health = Health(graph=graph)
    depth = depths(graph)
    findings = health.findings
    if trace is not None:
        for node in trace.nonfinite_origins():
            record = trace.record_of(node)
            key = graph.key_of(node)
            index = next(
                (i for i, s in enumerate(record.grad_inputs) if s is not None and not s.finite), 0
            )
            findings.append(
                Finding(
                    "nan",
                    record.name,
                    f"Function '{record.name}' returned nan values in its {index}th output "
                    f"(backward; finite gradients came in){_where(graph, key)}",
                    () if key is None else (key,),
                )
            )
    for key in forward_nonfinite_origins(graph):
        node = graph.nodes[key]
        findings.append(
            Finding(
                "nan",
                node.label,
                "a value saved in the forward pass holds NaN/Inf, and none before it"
                + _where(graph, key),
                (key,),
            )
        )
    statuses = diagnose_params(graph, pairs, func_name="check_health", forward_log=forward_log)
    frozen = frozen_matcher(expected_frozen, pairs, "check_health")
    rows = []
    for status in statuses:
        tensor = status.tensor
        weight_norm = tensor_stats(tensor).norm or 0.0
        if status.reason != REASON_OK:
            if id(tensor) not in frozen:
                findings.append(Finding("dead", status.name, f"{status.reason}: {status.detail}"))
            continue
        grad = getattr(tensor, "grad", None)
        norm = tensor_stats(grad).norm if grad is not None else None
        node_key = graph.key_of(tensor)
        if id(tensor) in frozen:
            findings.append(
                Finding(
                    "not-frozen",
                    status.name,
                    not_frozen_text(norm, tuple(tensor.shape)),
                    () if node_key is None else (node_key,),
                )
            )
        health.params.append(
            (status.name, depth[node_key] if node_key is not None else 0, norm, weight_norm)
        )
        rows.append((status.name, tensor, node_key, norm, weight_norm))
    findings.extend(_depth_findings(health.params, rows, ratio))
    for name, _, node_key, norm, _ in rows:
        if norm is not None and math.isfinite(norm) and norm > max_norm:
            keys = () if node_key is None else (node_key,)
            findings.append(
                Finding("large-norm", name, f"gradient norm {norm:.4g} > {max_norm:g}", keys)
            )
    if lr is not None:
        for name, _, node_key, norm, weight_norm in rows:
            if norm is None or not math.isfinite(norm) or weight_norm == 0:
                continue
            update = lr * norm / weight_norm
            keys = () if node_key is None else (node_key,)
            if update > max_update:
                findings.append(
                    Finding(
                        "update-large",
                        name,
                        f"lr·|g|/|w| = {update:.3g} > {max_update:g}: one step changes the weights "
                        f"by {update:.0%} (|g| {norm:.4g}, |w| {weight_norm:.4g}, lr {lr:g})",
                        keys,
                    )
                )
            elif update < min_update:
                findings.append(
                    Finding(
                        "update-small",
                        name,
                        f"lr·|g|/|w| = {update:.3g} < {min_update:g}: the weights barely move "
                        f"(|g| {norm:.4g}, |w| {weight_norm:.4g}, lr {lr:g})",
                        keys,
                    )
                )
    return health


def _depth_findings(
    params: list[tuple[str, int, float | None, float]], rows: list[tuple], ratio: float
) -> list[Finding]:
    # Compare matrices with matrices and vectors with vectors: a bias's gradient is not on the
    # scale of its weight's, but the first layer's weight is on that of the last's.
    findings = []
    ndim = {name: len(tuple(tensor.shape)) for name, tensor, *_ in rows}
    keys = {name: key for name, _, key, *_ in rows}
    groups: dict[bool, list[tuple[int, float, str]]] = {}
    for name, depth, norm, _ in params:
        if norm is not None and math.isfinite(norm) and norm > 0:
            groups.setdefault(ndim[name] >= 2, []).append((depth, norm, name))
    for members in groups.values():
        if len({depth for depth, _, _ in members}) < 2:
            continue
        members.sort()
        # The largest growth and shrinkage along depth, between any shallower and deeper pair.
        low = high = members[0]
        grow = shrink = (1.0, None, None)
        for member in members[1:]:
            if member[0] > low[0] and member[1] / low[1] > grow[0]:
                grow = (member[1] / low[1], low, member)
            if member[0] > high[0] and high[1] / member[1] > shrink[0]:
                shrink = (high[1] / member[1], high, member)
            if member[1] < low[1]:
                low = member
            if member[1] > high[1]:
                high = member
        for kind, (factor, near, far) in (("exploding", grow), ("vanishing", shrink)):
            if near is None or factor < ratio:
                continue
            verb = "grows" if kind == "exploding" else "shrinks"
            findings.append(
                Finding(
                    kind,
                    far[2],
                    f"the gradient norm {verb} {factor:.3g}-fold from {near[2]} (depth {near[0]}, "
                    f"|g| {near[1]:.4g}) to {far[2]} (depth {far[0]}, |g| {far[1]:.4g}), nearer the "
                    f"input (flagged from {ratio:g}-fold)",
                    tuple(k for k in (keys[near[2]], keys[far[2]]) if k is not None),
                )
            )
    return findings


def _where(graph: Graph, key: int | None) -> str:
    if key is None:
        return ""
    frame = user_frame(graph.nodes[key].traceback)
    return f", created at {frame[0]}:{frame[1]}: {frame[3]}" if frame else ""
