"""Freezing part of a model with requires_grad=False saves work: no Node is recorded for a
frozen subgraph, and frozen parameters get no AccumulateGrad and no gradient."""

from __future__ import annotations

from collections import Counter

import numpy as np
import torch

import glassgrad as gg

from .conftest import copy_state, count_nodes


def node_names(root) -> Counter:
    """The multiset of grad_fn class names reachable from ``root``."""
    names: Counter = Counter()
    seen: set = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        names[type(node).__name__] += 1
        stack.extend(fn for fn, _ in node.next_functions)
    return names


def accumulated_variables(root) -> set:
    """ids of the leaves reachable through AccumulateGrad nodes."""
    found, seen, stack = set(), set(), [root]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        if hasattr(node, "variable"):
            found.add(id(node.variable))
        stack.extend(fn for fn, _ in node.next_functions)
    return found


def mlp(nn):
    return nn.Sequential(
        nn.Linear(6, 8),
        nn.ReLU(),
        nn.Linear(8, 8),
        nn.Tanh(),
        nn.Linear(8, 8),
        nn.ReLU(),
        nn.Linear(8, 2),
    )


def test_frozen_prefix_records_no_nodes():
    model = mlp(gg.nn)
    x = gg.randn(5, 6)
    unfrozen = count_nodes(model(x).sum().grad_fn)
    for layer in model[:4]:
        layer.requires_grad_(False)
    loss = model(x).sum()
    frozen = count_nodes(loss.grad_fn)
    # The same count as computing the frozen part without recording at all.
    with gg.no_grad():
        features = model[:4](x)
    assert features.grad_fn is None
    reference = count_nodes(model[4:](features).sum().grad_fn)
    assert frozen == reference < unfrozen
    frozen_ids = {id(p) for p in model[:4].parameters()}
    assert not frozen_ids & accumulated_variables(loss.grad_fn)
    loss.backward()
    assert all(p.grad is None for p in model[:4].parameters())
    assert all(p.grad is not None for p in model[4:].parameters())


def test_frozen_middle_layer_passes_gradient_but_accumulates_nothing():
    model = mlp(gg.nn)
    model[2].requires_grad_(False)
    x = gg.randn(5, 6)
    loss = model(x).sum()
    assert id(model[2].weight) not in accumulated_variables(loss.grad_fn)
    loss.backward()
    assert model[2].weight.grad is None and model[2].bias.grad is None
    assert model[0].weight.grad is not None


def test_node_counts_equal_torch_when_freezing():
    # The same program in both libraries records the same nodes, frozen or not.
    theirs, ours = mlp(torch.nn).double(), mlp(gg.nn).double()
    copy_state(ours, theirs)
    data = np.random.default_rng(0).standard_normal((5, 6))
    for frozen in ([], [0], [0, 2], [2], [6]):
        for model in (theirs, ours):
            for i, layer in enumerate(model):
                layer.requires_grad_(i not in frozen)
        names_theirs = node_names(theirs(torch.tensor(data)).sum().grad_fn)
        names_ours = node_names(ours(gg.tensor(data)).sum().grad_fn)
        assert names_ours == names_theirs, frozen


def test_fully_frozen_model_output_has_no_graph():
    model = mlp(gg.nn).requires_grad_(False)
    out = model(gg.randn(3, 6))
    assert out.grad_fn is None and not out.requires_grad


def test_frozen_conv_features_with_trainable_head():
    def build(nn):
        return nn.Sequential(
            nn.Conv2d(1, 4, 3),
            nn.BatchNorm2d(4),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Flatten(),
            nn.Linear(64, 3),
        )

    model = build(gg.nn)
    for layer in model[:4]:
        layer.requires_grad_(False)
    x = gg.randn(2, 1, 10, 10)
    loss = model(x).sum()
    names = node_names(loss.grad_fn)
    assert "ConvolutionBackward0" not in names
    assert names["AccumulateGrad"] == 2  # the head's weight and bias only
    loss.backward()
    assert model[0].weight.grad is None and model[5].weight.grad is not None
