"""Module.register_backward_hook (deprecated in PyTorch, still common): the hook sees the
gradients of the grad_fn of the module's output, as PyTorch's, and the same FutureWarnings
say when those are not the module's; it cannot be mixed with full backward hooks."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import glassgrad as gg

from .conftest import copy_state


def _record(lib, module, x_array):
    seen = []

    def hook(m, grad_input, grad_output):
        assert m is module
        seen.append(
            (
                [None if g is None else g.detach().numpy().copy() for g in grad_input],
                [None if g is None else g.detach().numpy().copy() for g in grad_output],
            )
        )

    module.register_backward_hook(hook)
    x = lib.tensor(x_array, requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = module(x)
    out.sum().backward()
    return seen, [str(w.message) for w in caught if w.category is FutureWarning]


@pytest.mark.parametrize(
    "make",
    [
        lambda nn: nn.Sigmoid(),
        lambda nn: nn.Linear(3, 2),
        lambda nn: nn.Sequential(nn.Linear(3, 4), nn.ReLU()),
    ],
    ids=["sigmoid", "linear", "sequential"],
)
def test_legacy_hook_sees_the_output_nodes_gradients(make):
    x = np.random.default_rng(0).standard_normal((4, 3))
    torch_module, gg_module = make(torch.nn).double(), make(gg.nn).double()
    copy_state(gg_module, torch_module)
    theirs, their_warnings = _record(torch, torch_module, x)
    ours, our_warnings = _record(gg, gg_module, x)
    assert our_warnings == their_warnings
    assert len(ours) == len(theirs) == 1
    for a_list, b_list in zip(ours[0], theirs[0]):
        assert len(a_list) == len(b_list)
        for a, b in zip(a_list, b_list):
            assert (a is None) == (b is None)
            if a is not None:
                np.testing.assert_allclose(a, b, rtol=1e-12)


def test_full_and_legacy_hooks_cannot_be_mixed():
    for lib in (gg, torch):
        layer = lib.nn.Linear(2, 2)
        layer.register_backward_hook(lambda *a: None)
        with pytest.raises(RuntimeError, match="Cannot use both regular backward hooks"):
            layer.register_full_backward_hook(lambda *a: None)
        other = lib.nn.Linear(2, 2)
        other.register_full_backward_hook(lambda *a: None)
        with pytest.raises(RuntimeError, match="Cannot use both regular backward hooks"):
            other.register_backward_hook(lambda *a: None)


def test_legacy_hook_can_replace_grad_input():
    grads = []
    for lib in (gg, torch):
        layer = lib.nn.Sigmoid()
        layer.register_backward_hook(lambda m, gi, go: (gi[0] * 3,))
        x = lib.ones(2, requires_grad=True)
        layer(x).sum().backward()
        grads.append(x.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1])
