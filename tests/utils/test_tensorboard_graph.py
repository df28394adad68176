"""add_graph and add_backward_graph: the graphs read back by TensorBoard's EventAccumulator
(node names scoped by module, inputs, shapes, dtypes, gradient norms), the same module scopes
as torch.utils.tensorboard's add_graph for the same model, and the errors."""

from __future__ import annotations

import re

import numpy as np
import pytest
import torch
import torch.utils.tensorboard as torch_tb
from tb_helpers import accumulate

import glassgrad as gg
from glassgrad import viz
from glassgrad.utils.tensorboard import SummaryWriter


def _net_class(nn):
    """The same model written against ``nn`` (torch.nn or glassgrad.nn)."""

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(2, 2, 3, padding=1)
            self.norm = nn.BatchNorm2d(2)

        def forward(self, x):
            return self.norm(self.conv(x)).relu() + x

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.features = nn.Sequential(nn.Conv2d(1, 2, 3, padding=1), nn.ReLU(), Block(),
                                          nn.MaxPool2d(2))  # fmt: skip
            self.flatten = nn.Flatten()
            self.head = nn.Linear(8, 3)

        def forward(self, x):
            return self.head(self.flatten(self.features(x))) * 2

    return Net


GGNet = _net_class(gg.nn)
INPUT = np.random.default_rng(0).standard_normal((4, 1, 4, 4)).astype(np.float32)


def _graph(log_dir):
    acc = accumulate(log_dir)
    return {node.name: node for node in acc.Graph().node}


def _shapes(node):
    return [tuple(d.size for d in shape.dim) for shape in node.attr["_output_shapes"].list.shape]


MODULE_PART = re.compile(r"^\w+\[[^\]]+\]$")


def _module_scopes(names):
    """The module groups of a graph: each name's leading ``Root/Type[attr]/...`` parts."""
    scopes = set()
    for name in names:
        parts = name.split("/")
        if parts[0] in ("input", "output"):
            continue
        scope = [parts[0]]
        for part in parts[1:-1]:
            if not MODULE_PART.match(part):
                break
            scope.append(part)
        scopes.add("/".join(scope))
    return scopes


@pytest.fixture(scope="module")
def forward_graph(tmp_path_factory):
    log_dir = tmp_path_factory.mktemp("graph")
    gg.manual_seed(0)
    model = GGNet()
    with SummaryWriter(log_dir) as writer:
        writer.add_graph(model, gg.tensor(INPUT))
    return model, _graph(log_dir)


# ----------------------------------------------------------------------------- add_graph


def test_forward_graph_nodes_are_scoped_by_module_and_wired(forward_graph):
    _, nodes = forward_graph
    conv = nodes["Net/Sequential[features]/Conv2d[0]/Convolution"]
    assert list(conv.input) == ["input/x", "Net/Sequential[features]/Conv2d[0]/weight",
                                "Net/Sequential[features]/Conv2d[0]/bias"]  # fmt: skip
    assert conv.op == "Convolution" and _shapes(conv) == [(4, 2, 4, 4)]
    assert conv.attr["dtype"].s == b"float32"
    assert conv.attr["grad_fn"].s == b"ConvolutionBackward0"
    relu = nodes["Net/Sequential[features]/ReLU[1]/Relu"]
    assert list(relu.input) == ["Net/Sequential[features]/Conv2d[0]/Convolution"]
    block_add = nodes["Net/Sequential[features]/Block[2]/Add"]
    assert list(block_add.input) == ["Net/Sequential[features]/Block[2]/Relu",
                                     "Net/Sequential[features]/ReLU[1]/Relu"]  # fmt: skip
    assert "Net/Sequential[features]/Block[2]/BatchNorm2d[norm]/NativeBatchNorm" in nodes
    pool = nodes["Net/Sequential[features]/MaxPool2d[3]/MaxPool2DWithIndices"]
    assert _shapes(pool) == [(4, 2, 2, 2)]  # the indices are no output of the node
    assert nodes["Net/Mul"].op == "Mul" and _shapes(nodes["Net/Mul"]) == [(4, 3)]
    assert list(nodes["output/output.1"].input) == ["Net/Mul"]
    assert _shapes(nodes["input/x"]) == [(4, 1, 4, 4)] and nodes["input/x"].op == "IO Node"


def test_parameters_are_input_nodes_inside_their_module(forward_graph):
    model, nodes = forward_graph
    scoped = {
        "features.0.weight": "Net/Sequential[features]/Conv2d[0]/weight",
        "features.2.conv.bias": "Net/Sequential[features]/Block[2]/Conv2d[conv]/bias",
        "features.2.norm.weight": "Net/Sequential[features]/Block[2]/BatchNorm2d[norm]/weight",
        "head.weight": "Net/Linear[head]/weight",
    }
    params = dict(model.named_parameters())
    for param_name, node_name in scoped.items():
        node = nodes[node_name]
        assert node.op == "Parameter" and list(node.input) == []
        assert _shapes(node) == [tuple(params[param_name].shape)]
    assert len([n for n in nodes.values() if n.op == "Parameter"]) == len(params)
    # Every input of every node is a node of the graph (output slots as "name:k").
    for node in nodes.values():
        for source in node.input:
            assert source.rsplit(":", 1)[0] in nodes


def test_same_module_scopes_as_torch_add_graph(forward_graph, tmp_path):
    _, nodes = forward_graph
    with torch_tb.SummaryWriter(tmp_path) as writer:
        writer.add_graph(_net_class(torch.nn)(), torch.tensor(INPUT))
    torch_nodes = _graph(tmp_path)
    expected = _module_scopes(torch_nodes)
    assert _module_scopes(nodes) == expected
    assert "Net/Sequential[features]/Block[2]/BatchNorm2d[norm]" in expected
    assert "input/x" in torch_nodes and "output/output.1" in torch_nodes  # named alike


def test_add_graph_restores_mode_and_requires_grad_and_keeps_no_gradient(tmp_path):
    model = GGNet()
    model.head.weight.requires_grad_(False)
    model.train()
    x = gg.tensor(INPUT)
    with SummaryWriter(tmp_path) as writer:
        writer.add_graph(model, x)
    assert model.training and all(m.training for m in model.modules())
    assert not model.head.weight.requires_grad and model.head.bias.requires_grad
    assert all(p.grad is None for p in model.parameters())
    assert not x.requires_grad
    nodes = _graph(tmp_path)
    assert nodes["Net/Linear[head]/weight"].op == "Parameter"  # a frozen parameter too
    # Eval mode: the running statistics were not updated.
    np.testing.assert_array_equal(model.features[2].norm.running_mean.numpy(), np.zeros(2))


def test_multi_output_ops_and_several_inputs_and_outputs(tmp_path):
    class Split(gg.nn.Module):
        def forward(self, x, y):
            first, second = (x * y).chunk(2, dim=1)
            return first.exp(), second + 1

    with SummaryWriter(tmp_path) as writer:
        writer.add_graph(Split(), (gg.ones(2, 4), gg.ones(2, 4)))
    nodes = _graph(tmp_path)
    assert list(nodes["Split/Mul"].input) == ["input/x", "input/y"]
    chunk = next(n for n in nodes.values() if n.attr["grad_fn"].s.startswith(b"Split"))
    assert _shapes(chunk) == [(2, 2), (2, 2)]
    assert list(nodes["Split/Add"].input) == [chunk.name + ":1"]
    assert list(nodes["output/output.1"].input) == ["Split/Exp"]
    assert list(nodes["output/output.2"].input) == ["Split/Add"]


def test_verbose_prints_the_nodes(tmp_path, capsys):
    with SummaryWriter(tmp_path) as writer:
        writer.add_graph(gg.nn.Linear(3, 2), gg.ones(1, 3), verbose=True)
    out = capsys.readouterr().out
    assert "Linear/Addmm = Addmm(Linear/bias, input/input, Linear/T)" in out


def test_strict_trace_refuses_list_outputs(tmp_path):
    class Listy(gg.nn.Module):
        def forward(self, x):
            return [x * 2, x * 3]

    with SummaryWriter(tmp_path) as writer:
        with pytest.raises(RuntimeError, match="returned a list.*use_strict_trace=False"):
            writer.add_graph(Listy(), gg.ones(2))
        writer.add_graph(Listy(), gg.ones(2), use_strict_trace=False)
    assert {"output/output.1", "output/output.2"} <= set(_graph(tmp_path))


def test_forward_that_raises_names_the_module_and_the_writer_stays_usable(tmp_path):
    model = GGNet()
    with SummaryWriter(tmp_path) as writer:
        with pytest.raises(RuntimeError, match=r"add_graph: the forward of module 'features\.0' "
                           r"\(Conv2d\) raised RuntimeError: .*"):  # fmt: skip
            writer.add_graph(model, gg.ones(4, 3, 4, 4))  # 3 channels for a 1-channel conv
        with pytest.raises(RuntimeError, match=r"the forward of the model \(Linear\) raised"):
            writer.add_graph(gg.nn.Linear(3, 2), gg.ones(2, 5))
        with pytest.raises(TypeError, match="add_graph: expected an nn.Module, got Tensor"):
            writer.add_graph(gg.ones(2), gg.ones(2))
        writer.add_graph(model, gg.tensor(INPUT))
        writer.add_scalar("x", 1.0, 0)
    assert model.training and all(p.grad is None for p in model.parameters())
    # No hook is left behind: the model runs as before.
    assert model(gg.tensor(INPUT)).shape == (4, 3)
    assert "Net/Linear[head]/Addmm" in _graph(tmp_path)


# ----------------------------------------------------------------------------- backward graph


@pytest.fixture(scope="module")
def traced(tmp_path_factory):
    log_dir = tmp_path_factory.mktemp("backward")
    gg.manual_seed(1)
    model = GGNet()
    with viz.record_forward(model) as log:
        loss = gg.nn.functional.cross_entropy(model(gg.tensor(INPUT)), gg.tensor([0, 1, 2, 1]))
    trace = viz.trace_backward(loss)
    with SummaryWriter(log_dir) as writer:
        writer.add_backward_graph(loss, forward_log=log, trace=trace)
    return model, loss, _graph(log_dir / "backward")


def test_backward_graph_scoped_by_module_with_parameters_named(traced):
    model, _, nodes = traced
    conv = nodes["Net/Sequential[features]/Conv2d[0]/ConvolutionBackward0"]
    assert conv.op == "ConvolutionBackward0"
    assert _shapes(conv) == [(4, 1, 4, 4), (2, 1, 3, 3), (2,)]  # the gradients it sends
    weight = nodes["Net/Sequential[features]/Conv2d[0]/weight"]
    assert weight.op == "AccumulateGrad" and weight.attr["parameter"].s == b"features.0.weight"
    assert list(weight.input) == ["Net/Sequential[features]/Conv2d[0]/ConvolutionBackward0:1"]
    assert "Net/Sequential[features]/Block[2]/BatchNorm2d[norm]/NativeBatchNormBackward0" in nodes
    # The loss is computed outside the model: its nodes stay outside the model's scope.
    assert list(nodes["NllLossBackward0"].input) == ["loss"]
    assert nodes["loss"].op == "Loss"
    accumulators = [n for n in nodes.values() if n.op == "AccumulateGrad"]
    assert len(accumulators) == len(list(model.parameters()))


def test_backward_graph_gradient_norms_from_the_trace(traced):
    model, _, nodes = traced
    for name, param in model.named_parameters():
        node = next(n for n in nodes.values() if n.attr["parameter"].s == name.encode())
        (received,) = node.attr["grad_received_norms"].list.f
        np.testing.assert_allclose(received, np.linalg.norm(param.grad.numpy()), rtol=1e-5)
    steps = sorted(n.attr["backward_step"].i for n in nodes.values() if n.name != "loss")
    assert steps == list(range(1, len(nodes)))
    root = nodes["NllLossBackward0"]
    assert root.attr["backward_step"].i == 1 and list(root.attr["grad_received_norms"].list.f) == [
        1.0
    ]


def test_backward_graph_without_trace_or_log(tmp_path):
    model = gg.nn.Sequential(gg.nn.Linear(3, 4), gg.nn.Tanh(), gg.nn.Linear(4, 1))
    loss = model(gg.ones(2, 3)).sum()
    with SummaryWriter(tmp_path) as writer:
        writer.add_backward_graph(loss, model.named_parameters(), run=None)
        loss.backward()
        writer.add_backward_graph(loss, model.named_parameters(), run="after")
    before, after = _graph(tmp_path), _graph(tmp_path / "after")
    assert set(before) == set(after)
    assert before["0/weight"].op == "AccumulateGrad" and "grad_norm" not in before["0/weight"].attr
    np.testing.assert_allclose(after["2/weight"].attr["grad_norm"].f,
                               np.linalg.norm(model[2].weight.grad.numpy()), rtol=1e-6)  # fmt: skip
    assert list(before["SumBackward0"].input) == ["loss"]


def test_backward_graph_errors(tmp_path):
    with SummaryWriter(tmp_path) as writer:
        with pytest.raises(ValueError, match="has no grad_fn"):
            writer.add_backward_graph(gg.ones(2).sum())
        with pytest.raises(TypeError, match="expected the tensor whose graph to write.*got Linear"):
            writer.add_backward_graph(gg.nn.Linear(2, 2))
        with pytest.raises(TypeError, match="params must be a dict of name -> tensor"):
            writer.add_backward_graph((gg.ones(2, requires_grad=True) * 2).sum(), [1, 2])


def test_a_deep_model_graph_has_one_group_per_layer(tmp_path):
    layers = []
    for _ in range(40):
        layers += [gg.nn.Linear(8, 8), gg.nn.ReLU()]
    model = gg.nn.Sequential(*layers)
    with viz.record_forward(model) as log:
        loss = model(gg.ones(2, 8)).sum()
    with SummaryWriter(tmp_path) as writer:
        writer.add_graph(model, gg.ones(2, 8))
        writer.add_backward_graph(loss, forward_log=log)
    forward, backward = _graph(tmp_path), _graph(tmp_path / "backward")
    expected = {  # Sequential itself runs no op: no node of its own
        f"Sequential/{'Linear' if k % 2 == 0 else 'ReLU'}[{k}]" for k in range(80)
    }
    assert _module_scopes(forward) == expected
    assert _module_scopes(n for n in backward if n not in ("loss", "SumBackward0")) == expected
