"""record_forward: module calls and grad mode, nodes grouped by module, and the exact "no
gradient" reasons it makes possible (never called, ran under no_grad, output cut)."""

from __future__ import annotations

import numpy as np
import pytest

import glassgrad as gg
from glassgrad.viz import (
    REASON_CUT,
    REASON_NOT_REACHABLE,
    REASON_OK,
    build_graph,
    diagnose_params,
    explorer_data,
    grad_report,
    record_forward,
)

nn = gg.nn


class Net(nn.Module):
    """Every way a real model loses a gradient, one per submodule."""

    def __init__(self) -> None:
        super().__init__()
        self.backbone = nn.Linear(4, 6)  # run under no_grad (feature extraction)
        self.encoder = nn.Linear(6, 6)
        self.side = nn.Linear(6, 6)  # its output is detached before use
        self.gate = nn.Linear(6, 6)  # never called; its weight used through .detach()
        self.head = nn.Linear(6, 2)
        self.aux = nn.Linear(6, 2)  # never called
        self.scale = nn.Parameter(gg.ones(2))  # used under no_grad inside forward

    def forward(self, x):
        with gg.no_grad():
            features = self.backbone(x)
            scale = self.scale * 2
        h = gg.relu(self.encoder(features))
        h = h + self.side(h).detach()
        h = h + h @ self.gate.weight.detach().t()
        return self.head(h) * scale


def run(model=None, seed=0):
    model = model or Net()
    x = gg.tensor(np.random.default_rng(seed).standard_normal((3, 4)).astype(np.float32))
    with record_forward(model) as log:
        loss = model(x).pow(2).mean()
    return model, loss, log


def test_calls_are_logged_with_their_grad_mode():
    model, _, log = run()
    calls = [(call.module_name, call.type_name, call.grad_enabled) for call in log.calls]
    assert calls == [
        ("backbone", "Linear", False),
        ("encoder", "Linear", True),
        ("side", "Linear", True),
        ("head", "Linear", True),
        ("", "Net", True),
    ]
    assert log.owner_of_param[id(model.scale)] == ""
    assert log.owner_of_param[id(model.head.weight)] == "head"
    assert log.describe("") == "the model (Net)"
    assert log.describe("side") == "module 'side' (Linear)"


def test_hooks_are_removed_after_the_block():
    model, _, log = run()
    model(gg.ones(2, 4))
    assert len(log.calls) == 5


def test_nodes_are_grouped_by_their_innermost_module():
    model, loss, log = run()
    graph = build_graph(loss, dict(model.named_parameters()))
    owners = {}
    for node in graph.op_nodes():
        owners.setdefault(log.module_of(node.obj), []).append(node.label)
    # The encoder made its linear map and its parameters' AccumulateGrad nodes...
    encoder = owners["encoder"]
    assert encoder.count("AccumulateGrad") == 2
    assert all(label in {"AccumulateGrad", "AddmmBackward0", "TBackward0"} for label in encoder)
    # ... the model itself the ReLU, the sums, the product with the gate and the scaling.
    assert "ReluBackward0" in owners[""] and "MulBackward0" in owners[""]
    assert "backbone" not in owners and "side" not in owners  # nothing of them in the graph
    # The loss (pow, mean) was computed outside every module.
    assert {"PowBackward0", "MeanBackward0"} <= set(owners[None])


def test_exact_reasons_with_the_log():
    model, loss, log = run()
    statuses = diagnose_params(build_graph(loss), model.named_parameters(), forward_log=log)
    by_name = {status.name: status for status in statuses}
    expected = {
        "backbone.weight": (REASON_CUT, True, "ran with grad mode off"),
        "backbone.bias": (REASON_CUT, True, "ran with grad mode off"),
        "encoder.weight": (REASON_OK, True, ""),
        "side.weight": (REASON_CUT, False, "after module 'side' (Linear)"),
        "side.bias": (REASON_CUT, False, "after module 'side' (Linear)"),
        "gate.weight": (REASON_CUT, True, "detach()"),
        "gate.bias": (REASON_NOT_REACHABLE, True, "module 'gate' (Linear) was never called"),
        "head.weight": (REASON_OK, True, ""),
        "aux.weight": (REASON_NOT_REACHABLE, True, "module 'aux' (Linear) was never called"),
        "scale": (REASON_CUT, False, "inside the model (Net)"),
    }
    for name, (reason, certain, words) in expected.items():
        status = by_name[name]
        assert (status.reason, status.certain) == (reason, certain), (name, status.detail)
        assert words in status.detail, (name, status.detail)
    # Without the log the backbone looks merely unreachable: the log is what tells.
    plain = {s.name: s for s in diagnose_params(build_graph(loss), model.named_parameters())}
    assert plain["backbone.weight"].reason == REASON_NOT_REACHABLE
    # And the diagnosis agrees with backward.
    loss.backward()
    for name, param in model.named_parameters():
        assert (param.grad is not None) == (by_name[name].reason == REASON_OK), name


def test_report_and_explorer_take_the_log():
    model, loss, log = run()
    data = explorer_data(loss, dict(model.named_parameters()), forward_log=log)
    modules = {module["name"]: module for module in data["modules"]}
    assert modules["aux"]["calls"] == 0 and modules["aux"]["keys"] == []
    assert modules["backbone"]["gradEnabled"] is False
    encoder_labels = {data["nodes"][key]["label"] for key in modules["encoder"]["keys"]}
    assert {"encoder.weight", "encoder.bias", "AccumulateGrad"} <= encoder_labels
    assert all(data["nodes"][key]["module"] == "encoder" for key in modules["encoder"]["keys"])
    report = grad_report(loss, model.named_parameters(), forward_log=log, show=False)
    assert "ran with grad mode off" in report.by_name("backbone.weight").detail
    assert report.by_name("encoder.weight").status == "ok"


def test_record_forward_wants_a_module():
    with pytest.raises(TypeError, match="record_forward: expected an nn.Module, got Tensor"):
        with record_forward(gg.ones(2)):
            pass


def test_parameter_names_and_the_modules_running_when_a_forward_raises():
    model, _, log = run()
    assert log.param_names[id(model.head.weight)] == "head.weight"
    assert log.param_names[id(model.scale)] == "scale"
    assert log.running == []  # every call finished
    inner = gg.nn.Sequential(gg.nn.Linear(3, 2), gg.nn.Linear(5, 1))
    outer = gg.nn.Sequential(gg.nn.ReLU(), inner)
    with record_forward(outer) as log:
        with pytest.raises(RuntimeError):
            outer(gg.ones(4, 3))  # the second Linear gets 2 features, not 5
    assert log.running == ["", "1", "1.1"]  # outermost first
    assert log.describe(log.running[-1]) == "module '1.1' (Linear)"
