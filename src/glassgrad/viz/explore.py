"""``explore``: the graph as one self-contained, interactive HTML page.

The page needs no network: the script and style in ``explorer.js`` / ``explorer.css`` and the
graph are written into the file. Python computes everything heavy (layout, statistics,
diagnoses); the script draws on a canvas and handles pan, zoom, search, selection, path
highlighting, groups and a minimap.

Big graphs: the nodes are built straight into the form the page carries (:mod:`._payload`:
columns, rows of positions, tables of distinct values; gzip + base64), so building the page
costs a few list appends per node; the page draws only what is in view, with less detail as it
zooms out (labels, then boxes, then one dot per pixel). Measured on a 100,000-node chain
(``python -m bench --only viz``): see docs/benchmarks.md.
"""

from __future__ import annotations

import html
import os
import re
import tempfile
from collections.abc import Iterable, Mapping
from importlib import resources
from typing import Any

from ._graph import OP, Graph, GraphNode, SegmentNode, build_graph, collector_paused, user_frame
from ._groups import build_groups, groups_json
from ._layout import layout
from ._names import function_info, node_titles
from ._payload import ABSENT, PageNodes, decode_payload, edge_columns, encode_payload, expand_page
from ._stats import TensorStats, dtype_name, format_shape, json_number, tensor_stats
from ._status import STATUS_FROZEN, STATUS_NOT_FROZEN
from .attribution import TermAttribution
from .diagnose import REASON_OK, ParamStatus, diagnose_params, forward_nonfinite_origins
from .diff import BackwardDiff
from .forward import ForwardLog
from .health import check_health
from .notebook import ExplorerPage
from .report import stale_saved_text
from .report_modules import frozen_matcher, frozen_text, not_frozen_text
from .trace import BackwardTrace

__all__ = ["explore", "explorer_data", "page_data", "read_page_data"]

MAX_TRACEBACK_FRAMES = 12


def explore(
    roots: Any,
    params: Mapping[str, Any] | Iterable[tuple[str, Any]] | None = None,
    path: str | os.PathLike[str] = "graph.html",
    *,
    trace: BackwardTrace | None = None,
    forward_log: ForwardLog | None = None,
    title: str | None = None,
    expand_checkpoints: bool = False,
    compare: BackwardDiff | None = None,
    attribution: TermAttribution | None = None,
    expected_frozen: Iterable[Any] | None = None,
) -> ExplorerPage:
    """Write an interactive page for the graph behind ``roots`` to ``path``; return the path.

    Open it in any browser (it loads nothing from the network). It shows the graph (drag to
    pan, wheel to zoom, "fit" to see it all), a search box for node names, and, for the node
    you click: its op, input and output shapes and dtypes, saved tensors with statistics, the
    line of your code that created it (run the forward under
    ``glassgrad.autograd.detect_anomaly()`` to record it), and after backward the gradient it
    received and sent (norm, min, max, NaN/Inf/zero counts). The side bar lists the
    parameters: click one to highlight every path from it to the root. Parameters that get no
    gradient are listed with the reason, and the nodes where NaN/Inf first appeared are named.

    Parameters
    ----------
    roots : Tensor, tuple/list of Tensor, or dict of name -> Tensor
        The output(s) whose graph to show.
    params : dict or iterable of (name, Tensor), optional
        The parameters, e.g. ``dict(model.named_parameters())``.
    path : str or PathLike
        Where to write the page.
    trace : BackwardTrace, optional
        A recorded backward pass (:func:`trace_backward`): adds the gradients that flowed
        through each node and the backward order. Saved tensors are shown as they were before
        backward freed them.
    forward_log : ForwardLog, optional
        A recorded forward pass (:func:`record_forward`): the graph is drawn as nested module
        boxes (``blocks.0 (Block)``: closed, one box with its size and the gradient norm of
        the parameters inside; open, a frame around its contents), identical repeated calls
        as one box ``×49``; modules start open as far as every label stays readable (9 px or
        more) with the whole graph in view, and open or close on click. Nodes are searchable
        by module and "no gradient" reasons are exact.
    title : str, optional
        The page title.
    expand_checkpoints : bool
        Show the nodes inside each ``checkpoint(..., use_reentrant=False)`` segment instead of
        one ``Checkpoint(<function>)`` node for the segment.
    compare : BackwardDiff, optional
        From :func:`diff_backward` (its second pass is ``trace``): each node and parameter
        shows its gradient norm in both passes; nodes new in this pass are marked.
    attribution : TermAttribution, optional
        From :func:`attribute_grads` (pass the same terms as ``roots``): each node and
        parameter shows the gradient norm each loss term sends it.
    expected_frozen : iterable of str, Module or Tensor, optional
        What you mean to keep frozen, as for :func:`grad_report` and :func:`check_health`:
        parameter names, module name prefixes (``"backbone"`` covers ``backbone.0.weight``),
        modules or tensors. Those that get no gradient are badged "frozen" and not listed as
        problems; those that get one are "not-frozen" problems (an optimizer would train them).

    Returns
    -------
    ExplorerPage
        The path written (a ``str``); in Jupyter it displays the explorer inline.

    Examples
    --------
    >>> model = glassgrad.nn.Linear(3, 1)
    >>> loss = model(glassgrad.ones(2, 3)).sum()
    >>> trace = trace_backward(loss)
    >>> explore(loss, dict(model.named_parameters()), "graph.html", trace=trace)
    'graph.html'

    A layer meant to be frozen that still trains is listed under "Problems":

    >>> net = glassgrad.nn.Sequential(glassgrad.nn.Linear(3, 4), glassgrad.nn.Linear(4, 1))
    >>> _ = net[1].requires_grad_(False)  # frozen; net[0] was meant to be frozen too
    >>> loss = net(glassgrad.ones(2, 3)).sum()
    >>> loss.backward()
    >>> page = explore(loss, dict(net.named_parameters()), "net.html", expected_frozen=[net])
    >>> [f["subject"] for f in read_page_data(page)["health"]["findings"]]
    ['0.weight', '0.bias']
    """
    if isinstance(params, Iterable) and not isinstance(params, Mapping):
        params = list(params)
    with collector_paused():
        # (the data is dropped before the collector runs again: it would scan it once more)
        page = render_page(
            page_data(
                roots,
                params,
                trace=trace,
                forward_log=forward_log,
                expand_checkpoints=expand_checkpoints,
                compare=compare,
                attribution=attribution,
                expected_frozen=expected_frozen,
            ),
            title or "glassgrad graph explorer",
        )
    write_text_atomically(path, page)
    return ExplorerPage(path, page)


def write_text_atomically(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file beside it, so a failed write (disk
    full, an encoding error, an interrupt) leaves no empty or partial file behind."""
    target = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(target))
    handle, temporary = tempfile.mkstemp(prefix=".glassgrad-", suffix=".html", dir=folder)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.chmod(temporary, 0o644)  # mkstemp's 0o600 would hide the page from other users
        os.replace(temporary, target)
    except BaseException:
        os.unlink(temporary)
        raise


def explorer_data(
    roots: Any,
    params: Mapping[str, Any] | Iterable[tuple[str, Any]] | None = None,
    *,
    trace: BackwardTrace | None = None,
    forward_log: ForwardLog | None = None,
    expand_checkpoints: bool = False,
    compare: BackwardDiff | None = None,
    attribution: TermAttribution | None = None,
    expected_frozen: Iterable[Any] | None = None,
) -> dict[str, Any]:
    """Everything the page shows, as JSON-ready data, one dict per node (handy for tests;
    :func:`read_page_data` reads the same back from a page)."""
    return expand_page(
        page_data(
            roots,
            params,
            trace=trace,
            forward_log=forward_log,
            expand_checkpoints=expand_checkpoints,
            compare=compare,
            attribution=attribution,
            expected_frozen=expected_frozen,
        )
    )


def page_data(
    roots: Any,
    params: Mapping[str, Any] | Iterable[tuple[str, Any]] | None = None,
    *,
    trace: BackwardTrace | None = None,
    forward_log: ForwardLog | None = None,
    expand_checkpoints: bool = False,
    compare: BackwardDiff | None = None,
    attribution: TermAttribution | None = None,
    expected_frozen: Iterable[Any] | None = None,
) -> dict[str, Any]:
    """What the page carries, its nodes as columns and rows (see :mod:`._payload`)."""
    if isinstance(params, Iterable) and not isinstance(params, Mapping):
        params = list(params)
    graph = build_graph(
        roots,
        params,
        read_details=True,
        collapse_checkpoints=not expand_checkpoints,
        func_name="explore",
        # Backward frees saved tensors: show the values the trace read before it ran.
        saved_before=trace.saved if trace is not None else None,
    )
    titles = node_titles(graph)  # "adv (SubBackward0)" where a line of code named it
    shape_texts: dict[Any, str] = {}  # most nodes share a few shapes
    labels = [_box_lines(node, titles[node.key], shape_texts) for node in graph.nodes]
    boxes = layout(graph, labels)
    statuses = diagnose_params(graph, params, func_name="explore", forward_log=forward_log)
    pairs = list(params.items()) if isinstance(params, Mapping) else params or []
    frozen = frozen_matcher(expected_frozen, pairs, "explore")
    backward_origins = set()
    if trace is not None:
        backward_origins = {graph.key_of(node) for node in trace.nonfinite_origins()}
        backward_origins.discard(None)
    forward_origins = set(forward_nonfinite_origins(graph))

    module_of = _module_of_nodes(graph, forward_log)
    tree = build_groups(graph, forward_log) if forward_log is not None else None
    changes = _changes_by_key(graph, compare)
    term_norms = _terms_by_key(graph, attribution)
    nodes = graph.nodes
    page = PageNodes()
    page.column("kind", [node.kind for node in nodes])
    page.column("label", [node.label for node in nodes])
    page.column("lines", labels)
    page.column("x", [round(box.x, 1) for box in boxes])
    page.column("y", [round(box.y, 1) for box in boxes])
    page.column("w", [round(box.width, 1) for box in boxes])
    page.column("h", [round(box.height, 1) for box in boxes])
    page.column("shape", [list(node.shape) if node.shape is not None else None for node in nodes])
    page.column("dtype", [node.dtype for node in nodes])
    page.column("module", [module_of.get(node.key) for node in nodes])
    page.column(
        "nanOrigin",
        [
            "backward"
            if node.key in backward_origins
            else ("forward" if node.key in forward_origins else None)
            for node in nodes
        ],
    )
    page.column("group", tree.group_of if tree is not None else [None] * len(nodes))
    bad_grads, stale, appeared = [], [], []
    for node in nodes:
        key = node.key
        details, bad = _node_details(graph, node, trace, page)
        bad_grads.append(bad)
        if node.kind == OP:
            function = function_info(node.obj)
            if function is not None:
                details["function"] = (function, ("function", function["name"], function["doc"]))
            stale.append(stale_saved_text(node.obj) or None)
        else:
            stale.append(ABSENT)
        if key in changes:
            details["diff"], new = changes[key]
            appeared.append(new)
        else:
            appeared.append(ABSENT)
        if key in term_norms:
            details["terms"] = term_norms[key]
        page.detail_row(**details)
    page.column("badGrad", bad_grads)
    page.column("stale", stale)
    page.column("appeared", appeared)
    edges = [edge for edge in graph.edges if edge.kind != "saved"]
    parameters = []
    for status in statuses:
        grad = getattr(status.tensor, "grad", None)
        grad_stats = tensor_stats(grad) if grad is not None else None
        leaf_key = graph.key_of(status.tensor)
        parameters.append(
            {
                "name": status.name,
                "shape": list(status.tensor.shape),
                "dtype": _dtype_text(status.tensor),
                "reason": status.reason,
                "detail": status.detail,
                "certain": status.certain,
                "nodeKey": leaf_key,
                "accKey": status.leaf_key,
                "evidenceKey": status.evidence_key,
                "grad": _stats_json(grad_stats),
                "frozen": _frozen_json(status, grad_stats, frozen),
                "terms": _term_json(attribution.params.get(status.name)) if attribution else None,
            }
        )
    param_grads = {}
    for entry in parameters:
        if entry["accKey"] is None:
            continue
        norm = entry["grad"]["norm"] if entry["grad"] else None
        finite = isinstance(norm, (int, float))  # NaN/Inf travel as strings
        expected = entry["frozen"]
        problem = (
            expected["status"] == STATUS_NOT_FROZEN
            if expected is not None
            else entry["reason"] != REASON_OK
        ) or (norm is not None and not finite)
        param_grads[entry["accKey"]] = (norm if finite else None, problem)
    grouping = groups_json(tree, param_grads) if tree is not None else {"groups": [], "folds": []}
    # (the renderer's own "groups" are boxes any code may set; these are the module calls)
    origins = []
    for key in sorted(backward_origins, key=lambda k: trace.record_of(graph.nodes[k].obj).step):
        origins.append({"key": key, "where": "backward", "text": _origin_text(graph, key)})
    for key in sorted(forward_origins):
        origins.append({"key": key, "where": "forward", "text": _origin_text(graph, key)})
    health = check_health(
        None,
        params,
        trace=trace,
        graph=graph,
        forward_log=forward_log,
        expected_frozen=expected_frozen,
    )
    return {
        "terms": attribution.terms if attribution else None,
        "diff": _diff_summary(compare),
        "health": health.as_json(),
        **page.as_json(),
        "edgeColumns": edge_columns(edges, page.core_table),
        "roots": graph.root_keys,
        "params": parameters,
        "nanOrigins": origins,
        "modules": _modules_json(module_of, forward_log),
        "moduleGroups": grouping["groups"],
        "moduleFolds": grouping["folds"],
        "traced": trace is not None,
        "backwardError": str(trace.error) if trace is not None and trace.error else None,
        "counts": {
            "nodes": len(graph.nodes),
            "ops": sum(node.kind == OP for node in graph.nodes),
            "edges": len(edges),
        },
    }


def _frozen_json(
    status: ParamStatus, grad: TensorStats | None, frozen: set[int]
) -> dict[str, str] | None:
    """A parameter ``expected_frozen`` names, judged as grad_report and check_health judge it:
    no gradient is as expected, a gradient is a "not frozen" problem."""
    if id(status.tensor) not in frozen:
        return None
    if status.reason != REASON_OK:
        return {"status": STATUS_FROZEN, "detail": frozen_text(status.reason)}
    norm = grad.norm if grad is not None else None
    return {
        "status": STATUS_NOT_FROZEN,
        "detail": not_frozen_text(norm, tuple(status.tensor.shape)),
    }


def _changes_by_key(graph: Graph, compare: BackwardDiff | None) -> dict[int, tuple[Any, bool]]:
    # The diff's nodes are keyed in its second pass's graph: find them here by object.
    if compare is None:
        return {}
    changes = {}
    for change in [*compare.nodes, *compare.appeared]:
        key = graph.key_of(compare.after_graph.nodes[change.key_after].obj)
        if key is not None:
            changes[key] = (
                {"before": json_number(change.before), "after": json_number(change.after)},
                change.key_before is None,
            )
    return changes


def _terms_by_key(graph: Graph, found: TermAttribution | None) -> dict[int, dict[str, Any]]:
    # The attribution's nodes are keyed in its own graph: find them here by object.
    if found is None:
        return {}
    norms = {}
    for key, by_term in found.nodes.items():
        here = graph.key_of(found.graph.nodes[key].obj)
        if here is not None:
            norms[here] = _term_json(by_term)
    return norms


def _term_json(by_term: dict[str, float] | None) -> dict[str, Any] | None:
    return None if by_term is None else {t: json_number(n) for t, n in by_term.items()}


def _diff_summary(compare: BackwardDiff | None) -> dict[str, Any] | None:
    if compare is None:
        return None
    return {
        "params": [
            {"name": n, "before": json_number(b), "after": json_number(a)}
            for n, b, a in compare.params
        ],
        "appeared": len(compare.appeared),
        "vanished": [str(change) for change in compare.vanished],
    }


def _module_of_nodes(graph: Graph, log: ForwardLog | None) -> dict[int, str]:
    """Graph key -> name of the innermost module that created the node (leaf tensors go with
    their AccumulateGrad, outputs with the op that made them)."""
    if log is None:
        return {}
    owners: dict[int, str] = {}
    for node in graph.nodes:
        if node.kind == OP:
            obj = node.obj
            if isinstance(obj, SegmentNode):  # a checkpoint segment: where its output was made
                obj = obj.members[0] if obj.members else obj
            module = log.module_of(obj)
            if module is not None:
                owners[node.key] = module
                if node.variable_key is not None:
                    owners[node.variable_key] = module
    return owners


def _modules_json(module_of: dict[int, str], log: ForwardLog | None) -> list[dict[str, Any]]:
    if log is None:
        return []
    keys: dict[str, list[int]] = {}
    for key, module in sorted(module_of.items()):
        keys.setdefault(module, []).append(key)
    modules = []
    for name, type_name in log.module_types.items():
        calls = log.calls_of(name)
        modules.append(
            {
                "name": name,
                "type": type_name,
                "label": log.describe(name),
                "calls": len(calls),
                # A ModuleList/ModuleDict is never called itself: its members are.
                "container": not calls
                and any(call.module_name.startswith(f"{name}.") for call in log.calls),
                "gradEnabled": any(call.grad_enabled for call in calls),
                "keys": keys.get(name, []),
            }
        )
    return modules


def _dtype_text(tensor: Any) -> str:
    return dtype_name(tensor.dtype)


def _box_lines(node: GraphNode, title: str, shape_texts: dict[Any, str]) -> list[str]:
    if node.kind == OP and (node.shape is None or node.variable_key is not None):
        return [title]
    if node.kind != OP:
        title = node.label or {"output": "output", "base": "view base"}.get(node.kind, "tensor")
    key = (node.shape, node.dtype)
    text = shape_texts.get(key)
    if text is None:
        text = shape_texts[key] = f"{format_shape(node.shape)} {node.dtype}"
    return [title, text]


def _node_details(
    graph: Graph, node: GraphNode, trace: BackwardTrace | None, page: PageNodes
) -> tuple[dict[str, Any], bool]:
    """The node's detail fields for ``page.detail_row``, and whether a gradient it sent (ops)
    or its ``.grad`` (leaves) holds NaN/Inf."""
    if node.kind != OP:
        tensor = node.obj
        grad = getattr(tensor, "grad", None) if node.kind in ("param", "leaf") else None
        grad_stats = tensor_stats(grad) if grad is not None else None
        details = {
            "requiresGrad": bool(getattr(tensor, "requires_grad", False)),
            "value": page.stats(tensor_stats(tensor)),
            "grad": page.stats(grad_stats),
        }
        return details, grad_stats is not None and not grad_stats.finite
    inputs_by_slot = {edge.slot: edge.src for edge in graph.edges_into(node.key)}
    meta = node.input_meta
    slots = max(len(meta), len(getattr(node.obj, "next_functions", ())))
    frame = user_frame(node.traceback)
    code = (
        {"file": frame[0], "line": frame[1], "function": frame[2], "text": frame[3]}
        if frame
        else None
    )
    traceback = tuple(line.rstrip("\n") for line in node.traceback[-MAX_TRACEBACK_FRAMES:])
    details: dict[str, Any] = {
        "inputs": [
            [inputs_by_slot.get(slot), page.meta(meta[slot] if slot < len(meta) else None)]
            for slot in range(slots)
        ],
        "outputs": ([_meta_json(m) for m in node.output_meta], ("outputs", node.output_meta)),
        "saved": [
            [
                saved.name,
                page.short_stats_position(saved.stats) if saved.is_tensor else None,
                saved.value_text if not saved.is_tensor else None,
            ]
            for saved in node.saved
        ],
        "savedError": (node.saved_error or None, ("savedError", node.saved_error)),
        "code": (code, ("code", frame)),
        "traceback": (list(traceback), ("traceback", traceback)),
    }
    if node.variable_key is not None:
        details["variable"] = node.variable_key
    if isinstance(node.obj, SegmentNode):
        details["backward"], bad = _segment_backward(node.obj, trace, page)
        return details, bad
    record = trace.record_of(node.obj) if trace is not None else None
    if record is None:
        details["backward"] = None
        return details, False
    details["backward"] = [
        record.step,
        [page.short_stats_position(s) for s in record.grad_outputs],
        [page.short_stats_position(s) for s in record.grad_inputs],
    ]
    return details, any(s is not None and not s.finite for s in record.grad_inputs)


def _segment_backward(
    segment: SegmentNode, trace: BackwardTrace | None, page: PageNodes
) -> tuple[list[Any] | None, bool]:
    # The steps of the segment's nodes and the gradient its first node received.
    if trace is None:
        return None, False
    records = sorted(
        (r for r in map(trace.record_of, segment.members) if r is not None), key=lambda r: r.step
    )
    if not records:
        return None, False
    first, last = records[0].step, records[-1].step
    step = first if first == last else f"{first}-{last}"
    return [step, [page.short_stats_position(s) for s in records[0].grad_outputs], []], False


def _meta_json(meta: Any) -> dict[str, Any] | None:
    if meta is None:
        return None
    shape, dtype = meta
    return {"shape": list(shape), "dtype": dtype}


def _stats_json(stats: TensorStats | None) -> dict[str, Any] | None:
    if stats is None:
        return None
    return {
        "shape": list(stats.shape),
        "dtype": stats.dtype,
        "numel": stats.numel,
        "norm": json_number(stats.norm),
        "min": json_number(stats.min),
        "max": json_number(stats.max),
        "mean": json_number(stats.mean),
        "num_nan": stats.num_nan,
        "num_inf": stats.num_inf,
        "num_zero": stats.num_zero,
    }


def _origin_text(graph: Graph, key: int) -> str:
    node = graph.nodes[key]
    frame = user_frame(node.traceback)
    where = f" (created at {os.path.basename(frame[0])}:{frame[1]}: {frame[3]})" if frame else ""
    return f"{node.label}{where}"


def read_page_data(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The data written into a page by :func:`explore` (what :func:`explorer_data` returned)."""
    page = open(path, encoding="utf-8").read()
    start = page.index('<script type="application/json" id="graph-data">')
    start = page.index(">", start) + 1
    return decode_payload(page[start : page.index("</script>", start)])


def render_page(data: dict[str, Any], title: str) -> str:
    """The HTML page with the style, the script and ``data`` (from :func:`page_data`) inline."""
    folder = resources.files(__package__)
    template = folder.joinpath("explorer.html").read_text(encoding="utf-8")
    style = folder.joinpath("explorer.css").read_text(encoding="utf-8")
    # The module boxes' layout first: explorer.js calls it.
    script = "\n".join(
        folder.joinpath(name).read_text(encoding="utf-8")
        for name in ("explorer_modules.js", "explorer.js")
    )
    # Base64 and JSON punctuation only: nothing in the payload can close the <script>.
    payload = encode_payload(data)
    pieces = {
        "{{TITLE}}": html.escape(title),
        "/*{{STYLE}}*/": style,
        "/*{{SCRIPT}}*/": script.replace("</script", "<\\/script"),
        "{{DATA}}": payload,
    }
    pattern = "|".join(re.escape(placeholder) for placeholder in pieces)
    return re.sub(pattern, lambda match: pieces[match.group(0)], template)
