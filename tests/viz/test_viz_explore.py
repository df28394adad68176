"""explore: the page is one self-contained file, and the data it shows is right (the browser
test in test_viz_browser.py checks what a person sees)."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

import glassgrad as gg
from glassgrad.autograd import detect_anomaly
from glassgrad.viz import explore, explorer_data, read_page_data, trace_backward
from glassgrad.viz._payload import encode_payload
from glassgrad.viz.explore import page_data


def read_data(path) -> dict:
    return read_page_data(path)


def mlp_and_loss(seed=0):
    rng = np.random.default_rng(seed)
    model = gg.nn.Sequential(gg.nn.Linear(3, 4), gg.nn.ReLU(), gg.nn.Linear(4, 2))
    x = gg.tensor(rng.standard_normal((5, 3)).astype(np.float32))
    return model, model(x).pow(2).mean()


def test_page_is_self_contained(tmp_path):
    model, loss = mlp_and_loss()
    path = explore(loss, dict(model.named_parameters()), tmp_path / "graph.html")
    page = open(path, encoding="utf-8").read()
    assert page.startswith("<!DOCTYPE html>")
    assert re.search(r"<script[^>]*\ssrc=", page) is None  # no external script
    assert re.search(r"<link\b", page) is None  # no external style sheet
    assert re.search(r"(src|href)\s*=\s*[\"']?(https?:)?//", page) is None
    assert "@import" not in page and "url(http" not in page
    assert "fetch(" not in page and "XMLHttpRequest" not in page
    assert "{{" not in page  # every placeholder was filled
    assert read_data(path)["counts"]["ops"] > 0


def test_data_describes_nodes_edges_and_parameters():
    model, loss = mlp_and_loss()
    data = explorer_data(loss, dict(model.named_parameters()))
    labels = [node["label"] for node in data["nodes"]]
    assert labels.count("AccumulateGrad") == 4
    assert {"0.weight", "0.bias", "2.weight", "2.bias"} <= set(labels)
    assert [data["nodes"][k]["kind"] for k in data["roots"]] == ["output"]
    for edge in data["edges"]:  # inputs above outputs: every edge points down the page
        assert data["nodes"][edge["src"]]["y"] < data["nodes"][edge["dst"]]["y"]
    (mean,) = [n for n in data["nodes"] if n["label"] == "MeanBackward0"]
    assert mean["outputs"] == [{"shape": [], "dtype": "float32"}]
    assert mean["inputs"][0]["meta"] == {"shape": [5, 2], "dtype": "float32"}
    assert data["nodes"][mean["inputs"][0]["from"]]["label"] == "PowBackward0"
    (pow_node,) = [n for n in data["nodes"] if n["label"] == "PowBackward0"]
    saved = [s for s in pow_node["saved"] if s["stats"] is not None]
    assert saved and saved[0]["stats"]["shape"] == [5, 2]
    assert any(s["value"] == "2" for s in pow_node["saved"] if s["stats"] is None)
    assert [p["name"] for p in data["params"]] == ["0.weight", "0.bias", "2.weight", "2.bias"]
    assert all(p["reason"] == "ok" and p["grad"] is None for p in data["params"])
    assert data["traced"] is False and data["nanOrigins"] == []
    # Boxes in one layer do not overlap.
    by_layer = {}
    for node in data["nodes"]:
        by_layer.setdefault(node["y"], []).append(
            (node["x"] - node["w"] / 2, node["x"] + node["w"] / 2)
        )
    for boxes in by_layer.values():
        boxes.sort()
        assert all(a[1] <= b[0] for a, b in zip(boxes, boxes[1:], strict=False))


def test_trace_adds_gradients_order_and_saved_values_freed_by_backward():
    model, loss = mlp_and_loss()
    trace = trace_backward(loss)
    data = explorer_data(loss, dict(model.named_parameters()), trace=trace)
    ops = [n for n in data["nodes"] if n["kind"] == "op"]
    assert sorted(n["backward"]["step"] for n in ops) == list(range(1, len(ops) + 1))
    (pow_node,) = [n for n in ops if n["label"] == "PowBackward0"]
    assert any(s["stats"] for s in pow_node["saved"])  # as before backward freed them
    for param in data["params"]:
        tensor = dict(model.named_parameters())[param["name"]]
        assert param["grad"]["norm"] == pytest.approx(float(np.linalg.norm(tensor.grad.numpy())))
    (acc,) = [n for n in ops if n.get("variable") == data["params"][0]["nodeKey"]]
    received = acc["backward"]["received"][0]
    assert received["shape"] == [4, 3] and received["num_nan"] == 0


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NumPy notes log(0) and 0 * inf
@pytest.mark.filterwarnings("ignore:Anomaly Detection has been enabled:UserWarning")
def test_nan_origins_and_code_lines_under_anomaly_mode():
    x = gg.tensor([0.0, 2.0], requires_grad=True)
    scale = gg.zeros(2, requires_grad=True)  # its gradient reads y: Mul saves y
    with detect_anomaly(check_nan=False):
        y = gg.log(x)  # the line the page must show
        loss = (y * scale).sum()
    trace = trace_backward(loss)
    data = explorer_data(loss, {"x": x}, trace=trace)
    # Backward: log's 0/0 at x = 0, and Mul's -inf gradient for scale (grad * y).
    backward = {
        data["nodes"][o["key"]]["label"]: o for o in data["nanOrigins"] if o["where"] == "backward"
    }
    assert set(backward) == {"LogBackward0", "MulBackward0"}
    origin = backward["LogBackward0"]
    node = data["nodes"][origin["key"]]
    assert node["label"] == "LogBackward0" and node["nanOrigin"] == "backward"
    assert node["code"]["file"].endswith("test_viz_explore.py")
    assert node["code"]["text"] == "y = gg.log(x)  # the line the page must show"
    assert "LogBackward0 (created at test_viz_explore.py:" in origin["text"]
    # Forward: the -inf saved by Mul is where the forward values first went non-finite.
    forward = [
        data["nodes"][o["key"]]["label"] for o in data["nanOrigins"] if o["where"] == "forward"
    ]
    assert forward == ["MulBackward0"]
    assert data["params"][0]["grad"]["num_nan"] == 1


def test_no_gradient_reasons_reach_the_page():
    used = gg.nn.Linear(2, 2)
    frozen = gg.nn.Linear(2, 2)
    frozen.requires_grad_(False)
    unused = gg.nn.Linear(2, 2)
    x = gg.ones(1, 2)
    loss = used(frozen(x)).sum()
    params = {
        "used.weight": used.weight,
        "frozen.weight": frozen.weight,
        "unused.weight": unused.weight,
    }
    data = explorer_data(loss, params)
    by_name = {p["name"]: p for p in data["params"]}
    assert (
        by_name["used.weight"]["reason"] == "ok" and by_name["used.weight"]["nodeKey"] is not None
    )
    assert by_name["frozen.weight"]["reason"] == "requires_grad=False"
    assert by_name["unused.weight"]["reason"] == "not reachable from the root"
    assert by_name["unused.weight"]["nodeKey"] is None


def test_big_graph_is_written_quickly(tmp_path):
    x = gg.ones(4, requires_grad=True)
    y = x
    for index in range(1000):
        y = y * 1.001 if index % 2 else y + 0.5
    data = explorer_data(y.sum())
    assert data["counts"]["ops"] == 1002
    path = explore(y.sum(), path=tmp_path / "big.html")
    assert read_data(path)["counts"]["nodes"] == 1004


def test_page_payload_round_trips_and_is_compact(tmp_path):
    model, loss = mlp_and_loss()
    trace = trace_backward(loss)
    data = explorer_data(loss, dict(model.named_parameters()), trace=trace)
    path = explore(loss, dict(model.named_parameters()), tmp_path / "graph.html", trace=trace)
    # What the page holds is what explorer_data returned (JSON's lists for tuples).
    assert read_data(path) == json.loads(json.dumps(data))
    page = open(path, encoding="utf-8").read()
    raw = re.search(r'id="graph-data">(.*?)</script>', page, re.S).group(1)
    assert json.loads(raw)["encoding"] == "gzip-base64"
    assert "<" not in raw  # nothing in the payload can end the script early
    # A repeated structure costs far less than its JSON: columns, a value table and gzip.
    x = gg.ones(4, requires_grad=True)
    y = x
    for _ in range(2000):
        y = (y * 1.001).tanh()
    trace = trace_backward(y.sum())
    readable = explorer_data(y.sum(), {"x": x}, trace=trace)
    assert (
        len(encode_payload(page_data(y.sum(), {"x": x}, trace=trace)))
        < len(json.dumps(readable)) / 8
    )


def test_explore_rejects_a_model():
    with pytest.raises(TypeError, match="explore: expected a tensor.*call the model first"):
        explore(gg.nn.Linear(2, 2))
