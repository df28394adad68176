"""The fused recurrent layer node (ops/nn_rnn.py) as nn.LSTM, nn.GRU and nn.RNN use it: the
graph PyTorch's CPU LSTM records, second derivatives, in-place checks, retained and released
graphs, and the reuse of the forward's buffers from one step to the next."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import glassgrad as gg

from .conftest import copy_state

RNG = np.random.default_rng(7)


def pair(make):
    """The same module in both libraries (PyTorch's weights copied into ours)."""
    theirs = make(torch.nn)
    ours = make(gg.nn)
    copy_state(ours, theirs)
    return ours, theirs


def edges(node) -> list:
    """``next_functions`` as (class name or None, input_nr) pairs."""
    return [(None if fn is None else type(fn).__name__, nr) for fn, nr in node.next_functions]


@pytest.mark.parametrize("bias", [True, False])
def test_graph_is_pytorchs_cpu_lstm_graph(bias):
    ours, theirs = pair(lambda nn: nn.LSTM(3, 4, num_layers=2, bias=bias))
    x = RNG.standard_normal((5, 2, 3)).astype(np.float32)
    graphs = []
    for lib, module in ((gg, ours), (torch, theirs)):
        out, (h_n, c_n) = module(lib.tensor(x, requires_grad=True))
        top = out.grad_fn
        bottom = top.next_functions[0][0]
        graphs.append(
            (
                type(top).__name__,
                edges(top),
                edges(bottom),
                [(type(fn).__name__, nr) for fn, nr in h_n.grad_fn.next_functions],
                [(type(fn).__name__, nr) for fn, nr in c_n.grad_fn.next_functions],
                type(h_n.grad_fn).__name__,
            )
        )
    assert graphs[0] == graphs[1]
    assert graphs[0][0] == "MkldnnRnnLayerBackward0"


def test_bidirectional_and_batch_first_graph_heads_match():
    ours, theirs = pair(lambda nn: nn.LSTM(3, 4, bidirectional=True, batch_first=True))
    x = RNG.standard_normal((2, 5, 3)).astype(np.float32)
    names = []
    for lib, module in ((gg, ours), (torch, theirs)):
        out, (h_n, _) = module(lib.tensor(x))
        cat = out.grad_fn.next_functions[0][0]
        names.append(
            (
                type(out.grad_fn).__name__,
                type(cat).__name__,
                [type(fn).__name__ for fn, _ in cat.next_functions],
                type(h_n.grad_fn).__name__,
            )
        )
    assert names[0] == names[1]


def test_gru_and_rnn_record_the_same_node_with_pytorchs_edges():
    # PyTorch records GRU and RNN step by step on CPU; glassgrad fuses them into the node of
    # its LSTM layer (PyTorch's mkldnn_rnn_layer takes the mode too), with the same edges.
    for make in (lambda nn: nn.GRU(3, 4, bias=False), lambda nn: nn.RNN(3, 4, 2, "relu")):
        module = make(gg.nn)
        out, h_n = module(gg.randn(5, 2, 3, requires_grad=True))
        node = out.grad_fn
        assert type(node).__name__ == "MkldnnRnnLayerBackward0"
        assert len(node.next_functions) == 7 and node.next_functions[6] == (None, 0)
        assert edges(h_n.grad_fn)[-1] == ("MkldnnRnnLayerBackward0", 1)
        assert node._saved_info()["mode"] == module.mode


@pytest.mark.parametrize(
    "make",
    [
        lambda nn: nn.LSTM(3, 4, num_layers=2, bidirectional=True),
        lambda nn: nn.GRU(3, 4, num_layers=2, bidirectional=True),
        lambda nn: nn.RNN(3, 4, bias=False),
        lambda nn: nn.RNN(3, 4, nonlinearity="relu", bidirectional=True),
    ],
    ids=["lstm", "gru", "rnn_tanh", "rnn_relu"],
)
def test_second_derivatives_match_torch(make):
    ours, theirs = pair(lambda nn: make(nn).double())
    layers = ours.num_layers * (2 if ours.bidirectional else 1)
    x = RNG.standard_normal((4, 2, 3))
    h0, c0 = RNG.standard_normal((2, layers, 2, 4))
    results = []
    for lib, module in ((gg, ours), (torch, theirs)):
        inputs = [lib.tensor(a, requires_grad=True) for a in (x, h0, c0)]
        if ours.mode == "LSTM":
            out, (h_n, c_n) = module(inputs[0], (inputs[1], inputs[2]))
        else:
            inputs.pop()
            (out, h_n), c_n = module(*inputs), 1.0
        loss = (out * out).sum() + (h_n * c_n).sum()
        params = list(module.parameters())
        first = lib.autograd.grad(loss, params + inputs, create_graph=True)
        penalty = sum((g * g).sum() for g in first)
        second = lib.autograd.grad(penalty, params + inputs)
        results.append([t.detach().numpy() for t in (*first, *second)])
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-8, atol=1e-10)


def test_output_modified_in_place_is_an_error_as_in_torch():
    for lib in (gg, torch):
        lstm = lib.nn.LSTM(3, 4)
        out, _ = lstm(lib.randn(5, 2, 3))
        out.add_(1)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            out.sum().backward()


def test_weight_modified_in_place_is_an_error():
    lstm = gg.nn.LSTM(3, 4)
    out, _ = lstm(gg.randn(5, 2, 3))
    with gg.no_grad():
        lstm.weight_hh_l0.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()


def test_retain_graph_then_release():
    lstm = gg.nn.LSTM(3, 4)
    out, (h_n, c_n) = lstm(gg.randn(5, 2, 3))
    loss = out.sum() + c_n.sum()
    loss.backward(retain_graph=True)
    once = lstm.weight_ih_l0.grad.numpy().copy()
    loss.backward()
    np.testing.assert_allclose(lstm.weight_ih_l0.grad.numpy(), 2 * once, rtol=1e-6)
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        loss.backward()


def test_lstm_backward_twice_through_a_retained_graph_matches_torch():
    # The LSTM node turns its kept gates into backward factors in place, once: a second
    # backward through the retained graph must find the same factors (both directions), and
    # the parameters it read (rearranged and negated for the forward) stay untouched.
    ours, theirs = pair(lambda nn: nn.LSTM(5, 4, bidirectional=True))
    before = [p.detach().numpy().copy() for p in ours.parameters()]
    x = RNG.standard_normal((6, 3, 5)).astype(np.float32)
    grads = []
    for lib, module in ((gg, ours), (torch, theirs)):
        out, (h_n, c_n) = module(lib.tensor(x))
        loss = (out * out).sum() + (h_n * c_n).sum()
        loss.backward(retain_graph=True)
        once = [p.grad.numpy().copy() for p in module.parameters()]
        loss.backward()
        twice = [p.grad.numpy().copy() for p in module.parameters()]
        grads.append((once, twice))
    for a, b in zip(grads[0][1], grads[0][0]):
        np.testing.assert_array_equal(a, 2 * b)
    for ours_grad, theirs_grad in zip(grads[0][1], grads[1][1]):
        np.testing.assert_allclose(ours_grad, theirs_grad, rtol=1e-4, atol=1e-6)
    for a, b in zip(ours.parameters(), before):
        np.testing.assert_array_equal(a.detach().numpy(), b)


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_graphs_alive_together_keep_their_own_buffers(kind):
    # Buffers of a released node are reused by the next forward: a graph still alive must not
    # see them change. Build two graphs, release the first, build a third, then check the second.
    ours, theirs = pair(lambda nn: getattr(nn, kind)(3, 4, num_layers=2))
    xs = [RNG.standard_normal((6, 2, 3)).astype(np.float32) for _ in range(3)]

    def weight_grads(module, lib, runs):
        outs = [module(lib.tensor(x))[0] for x in xs[:2]]
        (outs[0] * outs[0]).sum().backward()
        module.zero_grad()
        if runs == 3:
            third, _ = module(lib.tensor(xs[2]))
            (third * 3).sum().backward()
            module.zero_grad()
        (outs[1] * outs[1]).sum().backward()
        return [p.grad.numpy().copy() for p in module.parameters()]

    reference = weight_grads(theirs, torch, 3)
    for a, b in zip(weight_grads(ours, gg, 3), reference):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6)


def test_no_grad_forward_matches_and_records_nothing():
    ours, theirs = pair(lambda nn: nn.LSTM(3, 4, bidirectional=True))
    x = RNG.standard_normal((5, 2, 3)).astype(np.float32)
    with gg.no_grad():
        out, (h_n, c_n) = ours(gg.tensor(x))
    assert out.grad_fn is None and h_n.grad_fn is None
    with torch.no_grad():
        expected = theirs(torch.tensor(x))
    np.testing.assert_allclose(out.numpy(), expected[0].numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(c_n.numpy(), expected[1][1].numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("kind", ["LSTM", "GRU", "RNN"])
def test_float32_training_steps_follow_torch(kind):
    ours, theirs = pair(lambda nn: getattr(nn, kind)(4, 8))
    opt_ours = gg.optim.SGD(ours.parameters(), lr=0.5)
    opt_theirs = torch.optim.SGD(theirs.parameters(), lr=0.5)
    x = RNG.standard_normal((7, 3, 4)).astype(np.float32)
    for _ in range(4):
        losses = []
        for lib, module, opt in ((gg, ours, opt_ours), (torch, theirs, opt_theirs)):
            opt.zero_grad()
            out, _ = module(lib.tensor(x))
            loss = (out * out).mean()
            loss.backward()
            opt.step()
            losses.append(loss.item())
        assert losses[0] == pytest.approx(losses[1], rel=1e-5)
    for a, b in zip(ours.parameters(), theirs.parameters()):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-5, atol=1e-6)


def test_projection_keeps_pytorchs_composite_graph():
    # PyTorch runs LSTM with proj_size outside its fused kernel; so does glassgrad.
    for lib in (gg, torch):
        out, _ = lib.nn.LSTM(3, 4, proj_size=2)(lib.randn(5, 2, 3))
        assert type(out.grad_fn).__name__ == "StackBackward0"


def test_docstring_examples_run():
    import doctest

    from glassgrad.ops import nn_rnn

    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    result = doctest.testmod(nn_rnn, extraglobs={"glassgrad": gg}, optionflags=flags)
    assert result.attempted > 0 and result.failed == 0


def test_hidden_state_of_another_dtype_is_an_error():
    def attempt(lib, kind):
        module = getattr(lib.nn, kind)(3, 4)
        h = lib.zeros(1, 2, 4, dtype=lib.float64)
        state = (h, lib.zeros(1, 2, 4)) if kind == "LSTM" else h
        with pytest.raises(RuntimeError) as error:
            module(lib.randn(5, 2, 3), state)
        return str(error.value)

    for kind in ("GRU", "RNN"):
        assert attempt(gg, kind) == attempt(torch, kind)
    assert "dtype" in attempt(gg, "LSTM")  # PyTorch: an internal oneDNN message


def test_empty_sequence_is_an_error_empty_batch_is_not():
    for lib in (gg, torch):
        for kind in ("LSTM", "GRU", "RNN"):
            module = getattr(lib.nn, kind)(3, 4)
            with pytest.raises(RuntimeError, match="Expected sequence length to be larger than 0"):
                module(lib.randn(0, 2, 3))
            out, _ = module(lib.randn(5, 0, 3, requires_grad=True))
            assert tuple(out.shape) == (5, 0, 4)
            out.sum().backward()
