"""Modules as groups and repeated structure folded (issue 17), on the realistic models of
models.py: make_dot's clusters, depth= and size limit, print_graph's outline by module,
grad_report's module rows and expected_frozen=, variable names from source lines, and the
small things (containers are not "not called", "roots", no empty file, custom Functions)."""

from __future__ import annotations

import math
import os
import re
import warnings

import models
import numpy as np
import pytest
from viz_helpers import DotGraph

import glassgrad as gg
from glassgrad.autograd import detect_anomaly
from glassgrad.viz import (
    GraphTooLargeError,
    build_graph,
    diagnose_params,
    explore,
    explorer_data,
    grad_report,
    make_dot,
    print_graph,
    record_forward,
)
from glassgrad.viz._groups import build_groups
from glassgrad.viz.report import STATUS_FROZEN, STATUS_NO_GRAD, STATUS_NOT_FROZEN, STATUS_OK

pytestmark = pytest.mark.filterwarnings("ignore:Anomaly Detection has been enabled:UserWarning")


@pytest.fixture(scope="module")
def transformer():
    return models.transformer()


@pytest.fixture(scope="module")
def lstm():
    return models.lstm()


def cluster_labels(source: str) -> list[str]:
    return re.findall(r'subgraph cluster_\w+ \{\n\t+[^\n]*?label="([^"]*)"', source)


def box_labels(source: str) -> list[str]:
    return [label for label in DotGraph(source).labels.values() if "nodes" in label]


# ---- groups and folds --------------------------------------------------------------------------


def test_module_calls_nest_with_containers_between(transformer):
    graph = build_graph(transformer.loss, transformer.params)
    tree = build_groups(graph, transformer.log, fold=False)
    by_label = {group.label: group for group in tree.groups}
    block = by_label["blocks.0 (Block)"]
    container = tree.groups[block.parent]
    assert container.label == "blocks (ModuleList)" and container.call_id is None
    assert tree.groups[container.parent].label == "(Transformer)"
    assert (
        tree.groups[by_label["blocks.0.attn.qkv (Linear)"].parent].label
        == "blocks.0.attn (Attention)"
    )
    # Groups are numbered in call order, and every node of a block is inside it.
    assert [tree.groups[g].name for g in container.children] == [f"blocks.{i}" for i in range(4)]
    inside = [k for k, g in enumerate(tree.group_of) if block.gid in tree.ancestors(g)]
    assert len(inside) == block.size > 50
    # A block's own parameters are inside it (each is used by that block only).
    labels = {graph.nodes[k].label for k in inside}
    assert {"blocks.0.attn.qkv.weight", "blocks.0.norm1.bias"} <= labels


def test_identical_blocks_and_time_steps_fold(transformer, lstm):
    graph = build_graph(transformer.loss, transformer.params)
    tree = build_groups(graph, transformer.log)
    assert [tree.fold_label(fold) for fold in tree.folds] == ["blocks.0…3 (Block) ×4"]
    graph = build_graph(lstm.loss, lstm.params)
    tree = build_groups(graph, lstm.log)
    labels = sorted(tree.fold_label(fold) for fold in tree.folds)
    # The first step differs (no gradient flows into h0 = c0 = zeros), the 49 others match.
    assert labels == ["cell (LSTMCell) ×49", "embed (Embedding) ×50", "head (Linear) ×50"]
    # The weights shared by every step sit beside the steps, in the model's group.
    (cell_weight,) = [n.key for n in graph.nodes if n.label == "cell.weight_ih"]
    assert tree.groups[tree.group_of[cell_weight]].label == "(LSTMLanguageModel)"


def test_modules_with_the_same_structure_but_other_names_do_not_fold():
    # qkv-like siblings: three identical Linears with their own names stay three boxes.
    class Three(gg.nn.Module):
        def __init__(self):
            super().__init__()
            self.q, self.k, self.v = (gg.nn.Linear(3, 3) for _ in range(3))

        def forward(self, x):
            return self.q(x) * self.k(x) + self.v(x)

    model = Three()
    with record_forward(model) as log:
        loss = model(gg.ones(2, 3)).sum()
    tree = build_groups(build_graph(loss, dict(model.named_parameters())), log)
    assert tree.folds == []


def test_a_chain_through_another_module_does_not_fold():
    # Linear, ReLU, Linear, ReLU: folding the Linears would make a cycle Linear <-> ReLU.
    model = gg.nn.Sequential(gg.nn.Linear(3, 3), gg.nn.ReLU(), gg.nn.Linear(3, 3), gg.nn.ReLU())
    with record_forward(model) as log:
        loss = model(gg.ones(2, 3)).sum()
    tree = build_groups(build_graph(loss, dict(model.named_parameters())), log)
    assert tree.folds == []


# ---- make_dot ----------------------------------------------------------------------------------


def test_make_dot_draws_nested_module_clusters(transformer):
    source = make_dot(
        transformer.loss, transformer.params, forward_log=transformer.log, fold=False
    ).source
    clusters = cluster_labels(source)
    assert {
        "(Transformer)",
        "blocks (ModuleList)",
        "blocks.0 (Block)",
        "blocks.3.attn (Attention)",
    } <= set(clusters)
    # Nesting: blocks.0's cluster opens inside blocks' cluster.
    blocks_at = source.index('label="blocks (ModuleList)"')
    assert source.index('label="blocks.0 (Block)"') > blocks_at
    assert 'label="blocks.0 (Block)"' in source[blocks_at:]
    # Every op still drawn once: as many AddmmBackward0 as without modules.
    plain = DotGraph(make_dot(transformer.loss, transformer.params).source).label_counts()
    grouped = DotGraph(source).label_counts()
    assert grouped["AddmmBackward0"] == plain["AddmmBackward0"] > 8


def test_make_dot_depth_collapses_modules_to_boxes(transformer):
    dot = DotGraph(
        make_dot(transformer.loss, transformer.params, forward_log=transformer.log, depth=1).source
    )
    boxes = sorted(label.split("\n")[0] for label in dot.labels.values() if "nodes" in label)
    assert boxes == [
        "blocks (ModuleList)",
        "embed (Embedding)",
        "head (Linear)",
        "norm (LayerNorm)",
    ]
    assert "AddmmBackward0" not in dot.label_counts()  # hidden inside the boxes
    sizes = {label.split("\n")[0]: label for label in dot.labels.values() if "nodes" in label}
    graph = build_graph(transformer.loss, transformer.params)
    tree = build_groups(graph, transformer.log)
    (blocks,) = [g for g in tree.groups if g.name == "blocks"]
    assert f"{blocks.size} nodes" in sizes["blocks (ModuleList)"]
    whole = DotGraph(
        make_dot(transformer.loss, transformer.params, forward_log=transformer.log, depth=0).source
    )
    assert [label for label in whole.labels.values() if "nodes" in label] == [
        f"(Transformer)\n{tree.groups[0].size} nodes"
    ]


def test_unrolled_lstm_default_drawing_fits_one_screen(lstm):
    source = make_dot(lstm.loss, lstm.params, forward_log=lstm.log).source
    dot = DotGraph(source)
    plain = DotGraph(make_dot(lstm.loss, lstm.params, max_layout_size=None).source)
    assert len(plain.labels) > 900
    assert len(dot.labels) < 60  # one step shown, the 49 like it folded
    folded = box_labels(source)
    assert "cell (LSTMCell) ×49\n15 nodes each" in folded
    assert any(label.startswith("head (Linear) ×50") for label in folded)
    # The recurrence: the folded steps feed themselves.
    (cell,) = [i for i, label in dot.labels.items() if label.startswith("cell (LSTMCell) ×49")]
    assert (cell, cell, "") in dot.edges


def test_make_dot_refuses_a_drawing_dot_cannot_lay_out():
    x = gg.ones(2, requires_grad=True)
    y = x
    for _ in range(60):
        y = y * 1.5
    with pytest.raises(GraphTooLargeError, match=r"64 boxes.*max_layout_size=50.*explore\(\)"):
        make_dot(y.sum(), max_layout_size=50)
    assert len(DotGraph(make_dot(y.sum(), max_layout_size=None).source).labels) == 64


def test_make_dot_collapses_modules_when_too_big(lstm):
    # Unfolded, the 50 steps with their shared weights are far past what dot can lay out.
    with pytest.warns(UserWarning, match="drawn collapsed"):
        dot = make_dot(lstm.loss, lstm.params, forward_log=lstm.log, fold=False)
    assert 0 < len(DotGraph(dot.source).labels) < 250
    with pytest.raises(GraphTooLargeError, match="smaller depth="):
        make_dot(lstm.loss, lstm.params, forward_log=lstm.log, fold=False, depth=2)


def test_make_dot_labels_ops_with_their_variable_names():
    run = models.ppo()
    dot = DotGraph(make_dot(run.loss, run.params).source)
    labels = set(dot.labels.values())
    assert {"adv (SubBackward0)", "ratio (ExpBackward0)", "policy_loss (NegBackward0)"} <= labels
    # The statement's result only: `log_probs = log_softmax(...).gather(...).squeeze(1)`.
    assert "log_probs (SqueezeBackward1)" in labels and "GatherBackward0" in labels


def test_variable_names_in_a_loop_and_without_anomaly_mode():
    w = gg.ones(3, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        with detect_anomaly(check_nan=False):
            h = w
            for _ in range(3):
                h = h * 2
                h = h + 1
            out = h.sum()
    titles = [label for label in DotGraph(make_dot(out).source).labels.values()]
    # Each pass through a line names its own result.
    assert titles.count("h (MulBackward0)") == titles.count("h (AddBackward0)") == 3
    assert "out (SumBackward0)" in titles
    plain = (w * 2).sum()
    assert "SumBackward0" in DotGraph(make_dot(plain).source).labels.values()
    tree = print_graph(out, file=open(os.devnull, "w"))  # the terminal tree names them too
    assert tree.splitlines()[1].startswith("└── out (SumBackward0) -> () float32")
    assert tree.count("h (AddBackward0)") == 3


def test_make_dot_renders_grouped_drawings(transformer):
    svg = make_dot(transformer.loss, transformer.params, forward_log=transformer.log, depth=2).pipe(
        format="svg", encoding="utf-8"
    )
    assert "blocks.0…3 (Block) ×4" in svg and "<svg" in svg


# ---- print_graph -------------------------------------------------------------------------------


def test_print_graph_indents_by_module(lstm, transformer):
    text = print_graph(lstm.loss, lstm.params, forward_log=lstm.log, file=open(os.devnull, "w"))
    lines = text.splitlines()
    assert len(lines) < 50  # 919 nodes, one screen
    assert "(LSTMLanguageModel)" in lines
    (folded,) = [line for line in lines if "cell (LSTMCell) ×49" in line]
    number = folded.split()[0]
    assert folded.startswith("  #") and f"<- {number}," in folded or f", {number}" in folded
    # The first step's nodes are listed under its header, one level deeper.
    header = lines.index("  cell (LSTMCell) #1")
    assert lines[header + 1].startswith("    #")
    text = print_graph(
        transformer.loss,
        transformer.params,
        forward_log=transformer.log,
        fold=False,
        file=open(os.devnull, "w"),
    )
    assert "      blocks.2.attn (Attention)" in text.splitlines()
    assert "loss (NllLossBackward0)" in text


# ---- grad_report -------------------------------------------------------------------------------


def test_grad_report_has_a_row_per_module(transformer):
    run = models.transformer(seed=1)
    report = grad_report(run.loss, run.params, forward_log=run.log, show=False)
    row = report.module("blocks.0.attn.qkv")
    assert row.type_name == "Linear" and row.params == 2 and row.status == STATUS_OK
    expected = math.sqrt(
        sum(report.by_name(f"blocks.0.attn.qkv.{n}").norm ** 2 for n in ("weight", "bias"))
    )
    assert row.grad_norm == pytest.approx(expected)
    assert len(report.modules) == len({name.rsplit(".", 1)[0] for name in run.params})
    text = str(report)
    assert (
        "blocks.0.attn.qkv (Linear)" in text
        and "module" in text.splitlines()[-len(report.modules) - 2]
    )


def test_expected_frozen_finds_the_layer_that_still_trains():
    model = models.ActorCritic()
    model.body.requires_grad_(False)  # frozen on purpose
    loss = sum(out.sum() for out in model(gg.ones(4, 6)))
    # The intent: body and policy_head frozen; the user forgot policy_head.
    report = grad_report(
        loss, model.named_parameters(), expected_frozen=["body", model.policy_head], show=False
    )
    statuses = {row.name: row.status for row in report}
    assert statuses["body.0.weight"] == STATUS_FROZEN
    assert statuses["policy_head.weight"] == STATUS_NOT_FROZEN
    assert statuses["value_head.weight"] == STATUS_OK
    assert [row.name for row in report.problems()] == ["policy_head.weight", "policy_head.bias"]
    assert "expected frozen" in report.by_name("policy_head.weight").detail
    assert report.module("policy_head").status == STATUS_NOT_FROZEN
    with pytest.raises(ValueError, match="'bdy' matches no parameter"):
        grad_report(loss, model.named_parameters(), backward=False, expected_frozen=["bdy"])
    # Not expected frozen and frozen by accident: reported as before.
    report = grad_report(loss, model.named_parameters(), backward=False, show=False)
    assert report.by_name("body.0.weight").status == STATUS_NO_GRAD


# ---- the small things ----------------------------------------------------------------------------


def test_containers_are_not_reported_as_not_called(transformer):
    data = explorer_data(transformer.loss, transformer.params, forward_log=transformer.log)
    modules = {module["name"]: module for module in data["modules"]}
    assert modules["blocks"]["calls"] == 0 and modules["blocks"]["container"]
    assert not modules["blocks.0"]["container"]
    groups = {group["label"]: group for group in data["moduleGroups"]}
    assert not groups["blocks (ModuleList)"]["called"]
    assert groups["blocks.0 (Block)"]["params"] == 12
    assert data["moduleFolds"][0]["label"] == "blocks.0…3 (Block) ×4"


def test_several_roots_say_roots():
    w = gg.ones(2, requires_grad=True)
    unused = gg.ones(2, requires_grad=True)
    graph = build_graph({"a": w.sum(), "b": (w * 2).sum()})
    (status,) = diagnose_params(graph, {"unused": unused})
    assert "not reachable from the roots" in status.detail
    (single,) = diagnose_params(build_graph(w.sum()), {"unused": unused})
    assert "not reachable from the root:" in single.detail


def test_a_failed_write_leaves_no_file(tmp_path):
    w = gg.ones(2, requires_grad=True)
    path = tmp_path / "graph.html"
    with pytest.raises(UnicodeEncodeError):
        explore(w.sum(), {"w": w}, path, title="\ud800")  # cannot be written as UTF-8
    assert list(tmp_path.iterdir()) == []
    written = explore(w.sum(), {"w": w}, path)
    assert written == str(path) and path.stat().st_size > 1000
    assert oct(path.stat().st_mode & 0o777) == "0o644"


class Cube(gg.autograd.Function):
    """x ** 3, with a hand-written backward (3 x²)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 3 * x**2


def test_custom_function_shows_its_qualified_name_and_docstring():
    x = gg.tensor(np.ones(2), requires_grad=True)
    data = explorer_data(Cube.apply(x).sum())
    (node,) = [n for n in data["nodes"] if n["label"] == "CubeBackward"]
    assert node["function"] == {
        "name": f"{__name__}.Cube",
        "doc": "x ** 3, with a hand-written backward (3 x²).",
    }


def test_jupyter_displays_report_explorer_and_drawing(tmp_path):
    model = models.ActorCritic()
    loss = sum(out.sum() for out in model(gg.ones(4, 6)))
    report = grad_report(loss, model.named_parameters(), show=False)
    html = report._repr_html_()
    assert html.startswith("<table>") and "value_head.weight" in html and "all 6 rows ok" in html
    page = explore(loss, dict(model.named_parameters()), tmp_path / "g.html")
    frame = page._repr_html_()
    assert frame.startswith("<iframe srcdoc=") and "&lt;script" in frame and "<script" not in frame
    assert open(page, encoding="utf-8").read() == page.page
    drawing = make_dot(loss)._repr_html_()
    assert "<svg" in drawing and "SumBackward0" in drawing
