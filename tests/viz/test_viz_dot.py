"""make_dot: graph structure, labels and colours, parity with torchviz on the same programs,
several roots, shared subgraphs, deep graphs, bad inputs and rendering with/without Graphviz."""

from __future__ import annotations

import shutil
import sys
import warnings

import graphviz
import numpy as np
import pytest
import torch
import torchviz
from viz_helpers import DotGraph

import glassgrad as gg
from glassgrad.autograd import Variable
from glassgrad.viz import GlassDigraph, GraphvizNotInstalledError, make_dot

# torchviz (the oracle) still imports distutils' LooseVersion.
pytestmark = pytest.mark.filterwarnings("ignore:distutils Version classes:DeprecationWarning")


def chain_names(dot: DotGraph, start_label: str) -> list[str]:
    """Follow the single input of each node from ``start_label`` down to the leaf."""
    feeders = {}
    for src, dst, _ in dot.edges:
        feeders.setdefault(dst, []).append(src)
    (node,) = dot.ids_labelled(start_label)
    names = [dot.labels[node]]
    while node in feeders:
        (node,) = feeders[node]
        names.append(dot.labels[node])
    return names


def log_example(lib):
    if lib is gg:
        with warnings.catch_warnings():  # the legacy Variable warns that it is legacy
            warnings.simplefilter("ignore", DeprecationWarning)
            x = Variable(gg.ones(1), requires_grad=True)
    else:
        x = torch.autograd.Variable(torch.ones(1), requires_grad=True)
    y = 0.5 * (x + 1).pow(2)
    z = lib.log(y)
    return x, z


def test_log_example_reads_as_a_chain_from_log_to_the_leaf():
    x, z = log_example(gg)
    dot = DotGraph(make_dot(z, params={"x": x}).source)
    assert chain_names(dot, "LogBackward0") == [
        "LogBackward0",
        "MulBackward0",
        "PowBackward0",
        "AddBackward0",
        "AccumulateGrad",
        "x\n (1)",
    ]
    # The output hangs off the last op, green; the parameter is blue.
    (output,) = [n for n in dot.labels if dot.fill(n) == "darkolivegreen1"]
    assert dot.labels[output] == "\n (1)"
    assert [(dot.labels[a], dot.labels[b]) for a, b, _ in dot.edges if b == output] == [
        ("LogBackward0", "\n (1)")
    ]
    (param,) = dot.ids_labelled("x\n (1)")
    assert dot.fill(param) == "lightblue"


def test_log_example_matches_torchviz():
    x, z = log_example(gg)
    tx, tz = log_example(torch)
    ours = DotGraph(make_dot(z, params={"x": x}).source)
    theirs = DotGraph(torchviz.make_dot(tz, params={"x": tx}).source)
    assert ours.label_counts() == theirs.label_counts()
    assert ours.labelled_edges() == theirs.labelled_edges()
    assert ours.signature() == theirs.signature()


def sequential_pair(seed: int = 0):
    """The same small MLP in glassgrad and in torch, with equal weights."""
    torch.manual_seed(seed)
    theirs = torch.nn.Sequential(
        torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3), torch.nn.Tanh()
    )
    ours = gg.nn.Sequential(gg.nn.Linear(4, 8), gg.nn.ReLU(), gg.nn.Linear(8, 3), gg.nn.Tanh())
    with torch.no_grad(), gg.no_grad():
        for (_, p_ours), (_, p_theirs) in zip(
            ours.named_parameters(), theirs.named_parameters(), strict=True
        ):
            p_ours.copy_(gg.tensor(p_theirs.detach().numpy()))
    x = np.random.default_rng(seed).standard_normal((5, 4)).astype(np.float32)
    return ours, theirs, x


def test_sequential_model_structure_and_labels():
    model, _, x = sequential_pair()
    out = model(gg.tensor(x))
    dot = DotGraph(make_dot(out, params=dict(model.named_parameters())).source)
    labels = dot.label_counts()
    for name, shape in [("0.weight", "(8, 4)"), ("0.bias", "(8)"), ("2.weight", "(3, 8)")]:
        assert labels[f"{name}\n {shape}"] == 1, labels
    assert labels["\n (5, 3)"] == 1  # the output
    assert labels["AccumulateGrad"] == 4  # one per parameter
    assert labels["TanhBackward0"] == 1 and labels["ReluBackward0"] == 1
    # Every parameter is blue and feeds exactly one AccumulateGrad.
    for name, _ in model.named_parameters():
        (node,) = [n for n, text in dot.labels.items() if text.startswith(name + "\n")]
        assert dot.fill(node) == "lightblue"
        consumers = [dot.labels[b] for a, b, _ in dot.edges if a == node]
        assert consumers == ["AccumulateGrad"]


def test_sequential_model_matches_torchviz():
    model, reference, x = sequential_pair()
    ours = DotGraph(make_dot(model(gg.tensor(x)), params=dict(model.named_parameters())).source)
    theirs = DotGraph(
        torchviz.make_dot(
            reference(torch.tensor(x)), params=dict(reference.named_parameters())
        ).source
    )
    assert ours.label_counts() == theirs.label_counts()
    assert ours.labelled_edges() == theirs.labelled_edges()
    assert ours.signature() == theirs.signature()


def test_shared_subgraph_is_drawn_once_and_reused_inputs_keep_both_edges():
    a = gg.tensor([1.0, 2.0], requires_grad=True)
    b = a * a  # both inputs of one Mul are the same leaf
    c = b + b  # the same node feeds both inputs of Add
    dot = DotGraph(make_dot(c, params={"a": a}).source)
    assert dot.label_counts()["MulBackward0"] == 1
    assert dot.label_counts()["AccumulateGrad"] == 1
    edges = dot.labelled_edges()
    assert edges[("MulBackward0", "AddBackward0", "")] == 2
    assert edges[("AccumulateGrad", "MulBackward0", "")] == 2
    ta = torch.tensor([1.0, 2.0], requires_grad=True)
    tb = ta * ta
    theirs = DotGraph(torchviz.make_dot(tb + tb, params={"a": ta}).source)
    assert dot.signature() == theirs.signature()


@pytest.mark.parametrize("container", [tuple, list])
def test_several_roots_share_one_drawing(container):
    w = gg.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    h = w.exp()
    roots = container([h.sum(), (h * 2).mean()])
    dot = DotGraph(make_dot(roots, params={"w": w}).source)
    counts = dot.label_counts()
    assert counts["ExpBackward0"] == 1  # shared by both roots
    assert counts["\n ()"] == 2  # two green outputs
    assert sum(dot.fill(n) == "darkolivegreen1" for n in dot.labels) == 2
    tw = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    th = tw.exp()
    theirs = DotGraph(torchviz.make_dot((th.sum(), (th * 2).mean()), params={"w": tw}).source)
    assert dot.signature() == theirs.signature()


def test_dict_of_roots_names_the_outputs():
    w = gg.ones(3, requires_grad=True)
    dot = DotGraph(make_dot({"loss": (w * 2).sum(), "aux": w.sum()}).source)
    assert dot.label_counts()["loss\n ()"] == 1
    assert dot.label_counts()["aux\n ()"] == 1


def test_unnamed_leaves_are_coloured_apart_from_parameters():
    w = gg.ones(2, requires_grad=True)
    x = gg.ones(2, requires_grad=True)
    dot = DotGraph(make_dot((w * x).sum(), params={"w": w}).source)
    (named,) = dot.ids_labelled("w\n (2)")
    (unnamed,) = dot.ids_labelled("\n (2)")
    assert dot.fill(named) == "lightblue"
    assert dot.fill(unnamed) not in (None, "lightblue", "darkolivegreen1")


def test_show_saved_links_saved_tensors_to_their_op_without_arrow():
    x = gg.tensor([1.0, 2.0], requires_grad=True)
    y = gg.exp(x) * x
    dot = DotGraph(make_dot(y, show_saved=True).source)
    saved = [n for n in dot.labels if dot.fill(n) == "orange"]
    assert saved, dot.labels
    for node in saved:
        owners = [(dot.labels[a], attrs) for a, b, attrs in dot.edges if b == node]
        assert owners and all(attrs == "dir=none" for _, attrs in owners)
        assert all(label.endswith("Backward0") for label, _ in owners)


def test_show_attrs_lists_op_attributes_in_the_box():
    x = gg.tensor([1.0, 2.0], requires_grad=True)
    y = x.pow(3).sum()
    plain = DotGraph(make_dot(y).source).label_counts()
    detailed = DotGraph(make_dot(y, show_attrs=True).source)
    assert plain["PowBackward0"] == 1
    (pow_label,) = [t for t in detailed.labels.values() if t.startswith("PowBackward0")]
    assert "\n---" in pow_label and "3" in pow_label  # the exponent is an attribute
    assert "[saved tensor]" in pow_label
    assert "next_functions" not in pow_label  # the graph's structure is not a saved value


def test_long_chain_does_not_recurse():
    x = gg.ones(2, requires_grad=True)
    y = x
    for _ in range(3 * sys.getrecursionlimit()):
        y = y * 1.0
    dot = DotGraph(make_dot(y).source)
    assert dot.label_counts()["MulBackward0"] == 3 * sys.getrecursionlimit()


def test_view_output_draws_its_base_like_torchviz():
    x = gg.ones(2, 3, requires_grad=True)
    base = x * 2
    view = base[0]
    ours = DotGraph(make_dot(view, params={"x": x}).source)
    tx = torch.ones(2, 3, requires_grad=True)
    tview = (tx * 2)[0]
    theirs = DotGraph(torchviz.make_dot(tview, params={"x": tx}).source)
    assert ours.labelled_edges() == theirs.labelled_edges()
    assert any(attrs == "style=dotted" for _, _, attrs in ours.edges)


def test_leaf_root_and_root_without_graph():
    w = gg.ones(2, requires_grad=True)
    dot = DotGraph(make_dot(w, params={"w": w}).source)
    assert list(dot.labels.values()) == ["w\n (2)"] and dot.edges == []
    const = DotGraph(make_dot(gg.ones(3) * 2).source)
    assert list(const.labels.values()) == ["\n (3)"]


@pytest.mark.parametrize(
    ("bad", "words"),
    [
        (lambda: gg.nn.Linear(2, 2), ["make_dot", "Linear", "call the model first"]),
        (lambda: 3.0, ["make_dot", "float", "expected a tensor"]),
        (lambda: [gg.ones(1), "loss"], ["make_dot", "item 1", "str"]),
        (lambda: (gg.ones(1, requires_grad=True) * 2).grad_fn, ["make_dot", "not the grad_fn"]),
        (lambda: np.ones(3), ["make_dot", "ndarray"]),
    ],
)
def test_wrong_roots_raise_a_clear_type_error(bad, words):
    with pytest.raises(TypeError) as info:
        make_dot(bad())
    for word in words:
        assert word in str(info.value)


def test_empty_roots_and_bad_params_raise():
    with pytest.raises(ValueError, match="make_dot: expected at least one"):
        make_dot([])
    x = gg.ones(1, requires_grad=True)
    with pytest.raises(TypeError, match=r"make_dot: params\['w'\] must be a tensor"):
        make_dot(x * 2, params={"w": 3})
    with pytest.raises(TypeError, match="make_dot: params must be a dict"):
        make_dot(x * 2, params=[x])


def test_returns_a_digraph_that_renders_svg_with_dot(tmp_path):
    assert shutil.which("dot"), "the Graphviz 'dot' program must be installed (scripts/setup.sh)"
    x, z = log_example(gg)
    dot = make_dot(z, params={"x": x})
    assert isinstance(dot, graphviz.Digraph) and isinstance(dot, GlassDigraph)
    svg = dot.pipe(format="svg").decode()
    assert "<svg" in svg and "LogBackward0" in svg and "AccumulateGrad" in svg
    assert "image/svg+xml" in dot._repr_mimebundle_()  # Jupyter's inline display
    written = dot.render(tmp_path / "graph", format="png")
    assert open(written, "rb").read(8) == b"\x89PNG\r\n\x1a\n"


def test_without_dot_source_works_and_rendering_says_how_to_install(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))  # no Graphviz programs on PATH
    x, z = log_example(gg)
    dot = make_dot(z, params={"x": x})
    assert "LogBackward0" in dot.source
    for render in (lambda: dot.pipe(format="svg"), lambda: dot.render(tmp_path / "g")):
        with pytest.raises(GraphvizNotInstalledError) as info:
            render()
        message = str(info.value)
        assert "apt-get install graphviz" in message and ".source" in message
        assert isinstance(info.value, graphviz.ExecutableNotFound)
