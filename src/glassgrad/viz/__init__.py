"""Glass-box tools: draw, explore and debug the autograd graph.

* :func:`make_dot` — a Graphviz drawing (torchviz-compatible), inline in Jupyter; with
  ``forward_log=`` nested module clusters, ``depth=`` and repeated calls folded (``×49``);
* :func:`explore` — one self-contained interactive HTML page (inline in Jupyter);
* :func:`print_graph` — an indented tree in the terminal, with the backward order, or with
  ``forward_log=`` an outline indented by module;
* :func:`grad_report` — which parameters got a useful gradient, and why not; a summary row per
  module and ``expected_frozen=``;
* :func:`trace_backward` / :func:`record_backward` — record what backward did, node by node;
* :func:`record_forward` — record which module ran, in which grad mode, creating which nodes;
* :func:`diagnose_params` — why each parameter is or is not reachable from the root;
* :func:`attribute_grads` / :func:`expect_no_grad` — which loss term sends gradient where;
* :func:`check_health` — one verdict: NaN/Inf origin, dead parameters, vanishing/exploding;
* :func:`diff_backward` — what changed between two backward passes.

Example::

    >>> import glassgrad as torch
    >>> from glassgrad import viz
    >>> model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 1))
    >>> loss = model(torch.randn(8, 3)).pow(2).mean()
    >>> trace = viz.trace_backward(loss)
    >>> path = viz.explore(loss, dict(model.named_parameters()), "graph.html", trace=trace)
"""

from ._graph import Graph, GraphEdge, GraphNode, build_graph
from ._stats import TensorStats, tensor_stats
from .attribution import GradientLeakError, TermAttribution, attribute_grads, expect_no_grad
from .diagnose import (
    REASON_CUT,
    REASON_FROZEN,
    REASON_NOT_LEAF,
    REASON_NOT_REACHABLE,
    REASON_OK,
    ParamStatus,
    diagnose_params,
)
from .diff import BackwardDiff, NodeChange, diff_backward
from .dot import (
    MAX_LAYOUT_SIZE,
    GlassDigraph,
    GraphTooLargeError,
    GraphvizNotInstalledError,
    make_dot,
)
from .explore import explore, explorer_data, read_page_data
from .forward import ForwardLog, ModuleCall, record_forward
from .health import Finding, Health, check_health
from .notebook import ExplorerPage
from .report import GradReport, GradReportRow, ModuleRow, grad_report
from .trace import BackwardTrace, NodeRecord, record_backward, trace_backward
from .tree import print_graph

__all__ = [
    "make_dot",
    "GlassDigraph",
    "GraphvizNotInstalledError",
    "GraphTooLargeError",
    "MAX_LAYOUT_SIZE",
    "explore",
    "ExplorerPage",
    "explorer_data",
    "read_page_data",
    "print_graph",
    "grad_report",
    "GradReport",
    "GradReportRow",
    "ModuleRow",
    "trace_backward",
    "record_backward",
    "record_forward",
    "ForwardLog",
    "ModuleCall",
    "BackwardTrace",
    "NodeRecord",
    "diagnose_params",
    "ParamStatus",
    "diff_backward",
    "BackwardDiff",
    "NodeChange",
    "check_health",
    "Health",
    "Finding",
    "attribute_grads",
    "expect_no_grad",
    "TermAttribution",
    "GradientLeakError",
    "REASON_OK",
    "REASON_FROZEN",
    "REASON_NOT_LEAF",
    "REASON_CUT",
    "REASON_NOT_REACHABLE",
    "build_graph",
    "Graph",
    "GraphNode",
    "GraphEdge",
    "TensorStats",
    "tensor_stats",
]
