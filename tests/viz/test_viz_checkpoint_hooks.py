"""The glass-box tools on graphs made with activation checkpointing, saved-tensor hooks and
multi-grad hooks: a non-reentrant checkpoint segment is drawn as one node (or expanded on
request), saved values packed by hooks are shown as packed and never unpacked by a tool
(unpacking a checkpoint's placeholder would recompute the segment and consume it), and
tracing a backward pass leaves the hooks' behaviour as it is."""

from __future__ import annotations

import glassgrad as torch
from glassgrad import nn, viz
from glassgrad.autograd.graph import register_multi_grad_hook, save_on_cpu, saved_tensors_hooks
from glassgrad.utils.checkpoint import CheckpointSegment, checkpoint, checkpoint_sequential


class Double(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * 2

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * 2 + x * 0


def model_and_loss(use_reentrant=False):
    torch.manual_seed(0)
    inner = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 4))
    head = nn.Linear(4, 1)
    # the reentrant form needs an input that requires grad (PyTorch's rule)
    x = torch.randn(5, 3, requires_grad=use_reentrant)

    def segment(t):
        return Double.apply(inner(t))

    h = checkpoint(segment, x, use_reentrant=use_reentrant)
    loss = head(h.exp()).sum()
    params = {**{f"inner.{k}": v for k, v in inner.named_parameters()}}
    params.update({f"head.{k}": v for k, v in head.named_parameters()})
    return loss, params


def expected_grads():
    loss, params = model_and_loss()
    loss.backward()
    return {name: p.grad.clone() for name, p in params.items()}


def test_segment_records_its_nodes():
    loss, _ = model_and_loss()
    segment = loss.grad_fn.next_functions[0][0].next_functions[1][0].next_functions[0][0]
    segment = segment._checkpoint_segment
    assert isinstance(segment, CheckpointSegment)
    assert segment.name.endswith("segment")
    names = [type(n).__name__ for n in segment.nodes()]
    assert names[0] == "DoubleBackward"
    assert sorted(names) == sorted(
        ["DoubleBackward", "AddmmBackward0", "TBackward0", "ReluBackward0", "AddmmBackward0",
         "TBackward0"]
    )  # fmt: skip
    assert "AccumulateGrad" not in names  # the parameters' nodes are shared, not the segment's


def test_print_graph_shows_segment_as_one_line_and_expands_on_request():
    loss, params = model_and_loss()
    text = viz.print_graph(loss, params, file=_Sink())
    assert text.count("Checkpoint(model_and_loss.<locals>.segment) -> (5, 4) float32") == 1
    assert "ReluBackward0" not in text and "DoubleBackward" not in text
    for name in ("inner.0.weight", "inner.0.bias", "inner.2.weight", "inner.2.bias"):
        assert name in text  # the parameters feed the segment's box
    expanded = viz.print_graph(loss, params, file=_Sink(), expand_checkpoints=True)
    assert "Checkpoint(" not in expanded and "ReluBackward0" in expanded
    assert "DoubleBackward" in expanded


def test_tools_never_unpack_placeholders_and_backward_still_works(tmp_path):
    expected = expected_grads()
    loss, params = model_and_loss()
    # every tool reads every node's saved values; none may run the recomputation
    viz.make_dot(loss, params, show_attrs=True, show_saved=True, expand_checkpoints=True)
    viz.explorer_data(loss, params, expand_checkpoints=True)
    trace = viz.trace_backward(loss)
    assert trace.error is None
    for name, p in params.items():
        assert torch.allclose(p.grad, expected[name])
    graph = viz.build_graph(loss, collapse_checkpoints=False)
    relu = next(n for n in graph.nodes if n.label == "ReluBackward0")
    assert relu.saved == []  # released by backward, as for any node


def test_placeholders_are_described_not_shown_as_tensors():
    loss, params = model_and_loss()
    graph = viz.build_graph(loss, params, collapse_checkpoints=False)
    relu = next(n for n in graph.nodes if n.label == "ReluBackward0")
    assert [(s.name, s.is_tensor, s.value_text) for s in relu.saved] == [
        ("result", False, "<placeholder: recomputed by checkpoint in backward>")
    ]
    double = next(n for n in graph.nodes if n.label == "DoubleBackward")
    assert [s.value_text for s in double.saved] == [
        "<placeholder: recomputed by checkpoint in backward>"
    ]
    loss.backward()  # the placeholders were not consumed


def test_make_dot_draws_segment_as_one_dashed_box():
    loss, params = model_and_loss()
    source = viz.make_dot(loss, params).source
    assert source.count("Checkpoint(model_and_loss.<locals>.segment)") == 1
    assert "filled,dashed" in source
    assert "ReluBackward0" not in source
    assert "ReluBackward0" in viz.make_dot(loss, params, expand_checkpoints=True).source


def test_explorer_segment_node_with_trace(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # explore writes its page into the working directory
    loss, params = model_and_loss()
    trace = viz.trace_backward(loss)
    data = viz.explorer_data(loss, params, trace=trace)
    segments = [n for n in data["nodes"] if n["label"].startswith("Checkpoint(")]
    assert len(segments) == 1
    backward = segments[0]["backward"]
    assert isinstance(backward["step"], str) and "-" in backward["step"]
    assert backward["received"][0]["shape"] == [5, 4]
    statuses = {p["name"]: p["reason"] for p in data["params"]}
    assert set(statuses.values()) == {"ok"}  # the parameters reach the root through the box
    page = viz.explore(loss, params, "graph.html", trace=trace)
    assert page == "graph.html"


def test_print_graph_order_gives_segment_steps():
    loss, params = model_and_loss()
    trace = viz.trace_backward(loss)
    text = viz.print_graph(loss, params, show_order=trace, file=_Sink())
    line = next(line for line in text.splitlines() if "Checkpoint(" in line)
    assert "[steps " in line


def test_checkpoint_sequential_segments_are_named_by_range():
    model = nn.Sequential(*[nn.Linear(4, 4) for _ in range(6)])
    out = checkpoint_sequential(model, 3, torch.randn(2, 4), use_reentrant=False).sum()
    text = viz.print_graph(out, file=_Sink())
    assert "Checkpoint(checkpoint_sequential[0:2])" in text
    assert "Checkpoint(checkpoint_sequential[2:4])" in text


def test_reentrant_checkpoint_is_one_node_already():
    loss, params = model_and_loss(use_reentrant=True)
    text = viz.print_graph(loss, params, file=_Sink())
    assert text.count("CheckpointFunctionBackward") == 1


def test_saved_tensors_hooks_values_shown_packed_and_hooks_not_run():
    calls = []

    def pack(t):
        return ("packed", t)

    def unpack(p):
        calls.append("unpack")
        return p[1]

    x = torch.randn(3, requires_grad=True)
    with saved_tensors_hooks(pack, unpack):
        y = Double.apply(x.exp()).sum()
    graph = viz.build_graph(y)
    texts = {node.label: [s.value_text for s in node.saved] for node in graph.nodes}
    assert texts["ExpBackward0"] == ["<packed by saved_tensors_hooks as tuple>"]
    assert texts["DoubleBackward"] == ["<packed by saved_tensors_hooks as tuple>"]
    viz.make_dot(y, show_attrs=True, show_saved=True)
    viz.explorer_data(y)
    assert calls == []
    trace = viz.trace_backward(y)
    assert trace.error is None and calls == ["unpack", "unpack"]
    assert torch.allclose(x.grad, 2 * x.exp())

    with save_on_cpu():
        z = (x * x).sum()
    graph = viz.build_graph(z)
    mul = next(n for n in graph.nodes if n.label == "MulBackward0")
    assert [s.value_text for s in mul.saved] == ["<packed by saved_tensors_hooks as tuple>"] * 2


def test_multi_grad_hooks_fire_as_usual_under_trace():
    a = torch.randn(3, requires_grad=True)
    b = torch.randn(3, requires_grad=True)
    seen = []
    register_multi_grad_hook((a, b), lambda grads: seen.append([g is not None for g in grads]))
    any_seen = []
    c, d = a * 2, b * 3
    register_multi_grad_hook((c, d), lambda g: any_seen.append(g.shape), mode="any")
    loss = (c + d).sum()
    trace = viz.trace_backward(loss)
    assert trace.error is None
    assert seen == [[True, True]]
    assert len(any_seen) == 1
    assert [type(n).__name__ for n in trace.order][:2] == ["SumBackward0", "AddBackward0"]


class _Sink:
    def write(self, text):
        return len(text)

    def flush(self):
        pass
