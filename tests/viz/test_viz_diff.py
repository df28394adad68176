"""diff_backward: two backward passes compared, per parameter and per node, with the nodes that
appeared or vanished; as text and in the explorer."""

from __future__ import annotations

import numpy as np
import pytest

import glassgrad as gg
from glassgrad.autograd import detect_anomaly
from glassgrad.viz import diff_backward, explorer_data, trace_backward

pytestmark = pytest.mark.filterwarnings("ignore:Anomaly Detection has been enabled:UserWarning")


def snapshot(model):
    return {name: param.grad.clone() for name, param in model.named_parameters()}


def test_step_t_against_step_t_plus_1():
    rng = np.random.default_rng(0)
    model = gg.nn.Sequential(gg.nn.Linear(3, 4), gg.nn.Tanh(), gg.nn.Linear(4, 1))
    opt = gg.optim.SGD(model.parameters(), lr=0.5)
    x = gg.tensor(rng.standard_normal((8, 3)).astype(np.float32))
    traces, grads = [], []
    for _ in range(2):
        opt.zero_grad()
        traces.append(trace_backward(model(x).pow(2).mean()))
        grads.append(snapshot(model))
        opt.step()
    diff = diff_backward(traces[0], traces[1], grads[0], grads[1])
    assert diff.appeared == [] and diff.vanished == []  # the same program: every node matched
    assert len(diff.nodes) == len([n for n in traces[1].graph.nodes if n.kind == "op"])
    before, after = diff.param("2.weight")
    assert before == pytest.approx(np.linalg.norm(grads[0]["2.weight"].numpy()))
    assert after == pytest.approx(np.linalg.norm(grads[1]["2.weight"].numpy()))
    assert before != after
    text = str(diff)
    assert "2.weight:" in text and "(x" in text and "0 appeared, 0 vanished" in text


def test_buggy_against_fixed_names_the_node_that_appeared():
    w = gg.ones(3, requires_grad=True)
    with detect_anomaly(check_nan=False):
        buggy = trace_backward((w * 2).sum())
        fixed_loss = (w * 2).exp().sum()
    fixed = trace_backward(fixed_loss)
    diff = diff_backward(buggy, fixed)
    assert [c.name for c in diff.appeared] == ["ExpBackward0 #0"]
    assert diff.vanished == []
    (mul,) = [c for c in diff.nodes if c.name.startswith("MulBackward0")]
    assert mul.before == pytest.approx(np.sqrt(3)) and mul.after == pytest.approx(
        np.exp(2) * np.sqrt(3)
    )
    assert "appeared: ExpBackward0 #0 @ test_viz_diff.py:" in str(diff)  # where it was made
    # The explorer shows both norms on each node and marks the new one.
    data = explorer_data(fixed_loss, {"w": w}, trace=fixed, compare=diff)
    by_label = {n["label"]: n for n in data["nodes"]}
    assert by_label["ExpBackward0"]["appeared"] is True
    assert by_label["MulBackward0"]["diff"]["after"] == pytest.approx(
        np.exp(2) * np.sqrt(3), rel=1e-3
    )
    assert data["diff"]["appeared"] == 1 and data["diff"]["vanished"] == []
