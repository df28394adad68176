"""trace_backward / record_backward: the order backward ran the nodes and the gradients that
flowed through each, compared with PyTorch's engine on the same program; print_graph's tree."""

from __future__ import annotations

import io
import warnings

import numpy as np
import pytest
import torch

import glassgrad as gg
from glassgrad.autograd import Variable
from glassgrad.viz import print_graph, record_backward, trace_backward


def branching_program(lib, x_values):
    x = lib.tensor(x_values, requires_grad=True)
    w = lib.tensor(
        np.linspace(-1.0, 1.0, x_values.size).reshape(x_values.shape), requires_grad=True
    )
    h = (x * w).exp()
    loss = (h * h.sin()).sum() + h.mean() + (w.pow(2) * 0.5).sum()
    return x, w, loss


def torch_order(loss):
    """Names and gradients in the order PyTorch's engine runs the nodes (post-hooks)."""
    seen, stack, nodes = set(), [loss.grad_fn], []
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        nodes.append(node)
        stack.extend(child for child, _ in node.next_functions)
    ran = []

    def recorder(node):
        def hook(grad_inputs, grad_outputs):
            grads = [None if g is None else g.detach().numpy().copy() for g in grad_outputs]
            ran.append((type(node).__name__, grads))

        return hook

    for node in nodes:
        node.register_hook(recorder(node))
    loss.backward()
    return ran


def test_order_and_gradients_match_pytorch():
    values = np.random.default_rng(0).standard_normal((2, 3))
    x, w, loss = branching_program(gg, values)
    trace = trace_backward(loss)
    _, _, reference = branching_program(torch, values)
    expected = torch_order(reference)
    assert [type(node).__name__ for node in trace.order] == [name for name, _ in expected]
    for node, (_, received) in zip(trace.order, expected, strict=True):
        record = trace.record_of(node)
        assert len(record.grad_outputs) == len(received)
        for stats, grad in zip(record.grad_outputs, received, strict=True):
            assert stats.shape == grad.shape
            np.testing.assert_allclose(stats.norm, np.linalg.norm(grad), rtol=1e-10)
            np.testing.assert_allclose(stats.max, grad.max(), rtol=1e-10)
    assert [trace.record_of(node).step for node in trace.order] == list(
        range(1, len(trace.order) + 1)
    )
    assert x.grad is not None and w.grad is not None  # backward really ran


def test_hooks_are_removed_and_do_not_change_gradients():
    values = np.random.default_rng(1).standard_normal(4)
    x, _, loss = branching_program(gg, values)
    with record_backward(loss) as trace:
        loss.backward(retain_graph=True)
    first = x.grad.numpy().copy()
    steps = len(trace.order)
    x.grad = None
    loss.backward()  # outside the context: no more recording
    assert len(trace.order) == steps
    np.testing.assert_array_equal(x.grad.numpy(), first)
    _, _, reference = branching_program(torch, values)
    reference.backward()


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NumPy notes log(0) and 0 * inf
def test_nan_origin_is_the_op_that_turned_finite_gradients_into_nan():
    x = gg.tensor([0.0, 1.0], requires_grad=True)
    loss = (gg.log(x) * 0).sum()  # log(0) = -inf; -inf * 0 = nan
    trace = trace_backward(loss)
    assert [node.name() for node in trace.nonfinite_origins()] == ["LogBackward0"]
    record = trace.record_of(trace.nonfinite_origins()[0])
    assert record.grad_outputs[0].finite and not record.grad_inputs[0].finite
    assert record.grad_inputs[0].num_nan == 1


def test_errors_are_kept_on_request():
    x = gg.ones(2, requires_grad=True)
    y = x.exp()
    z = y.sum()
    z.backward()
    trace = trace_backward(z, raise_errors=False)
    assert isinstance(trace.error, RuntimeError) and "second time" in str(trace.error)
    with pytest.raises(RuntimeError, match="second time"):
        trace_backward(z)
    with pytest.raises(TypeError, match="trace_backward: expected the tensor"):
        trace_backward([z])


def log_program():
    with warnings.catch_warnings():  # the legacy Variable warns that it is legacy
        warnings.simplefilter("ignore", DeprecationWarning)
        x = Variable(gg.ones(1), requires_grad=True)
    return x, gg.log(0.5 * (x + 1).pow(2))


def test_print_graph_tree_with_shapes():
    x, z = log_program()
    out = io.StringIO()
    text = print_graph(z, {"x": x}, file=out)
    assert out.getvalue() == text + "\n"
    lines = text.splitlines()
    assert lines[0] == "output (1,) float32"
    ops = [line.strip("└─├│ ") for line in lines[1:]]
    assert [line.split()[0] for line in ops] == [
        "LogBackward0",
        "MulBackward0",
        "PowBackward0",
        "AddBackward0",
        "AccumulateGrad",
    ]
    assert ops[0] == "LogBackward0 -> (1,) float32"
    assert ops[-1] == "AccumulateGrad  x (1,) float32"
    # Each level is indented deeper than its consumer.
    indents = [len(line) - len(line.lstrip("└─├│ ")) for line in lines[1:]]
    assert indents == sorted(indents) and len(set(indents)) == len(indents)


def test_print_graph_shows_the_backward_order_and_the_gradients():
    x, z = log_program()
    text = print_graph(z, {"x": x}, show_order=True, file=io.StringIO())
    assert "LogBackward0 -> (1,) float32  [step 1]" in text
    assert "AccumulateGrad  x (1,) float32  [step 5]" in text
    order = text.split("backward ran the nodes in this order")[1].splitlines()[1:]
    assert [line.split(".")[0].strip() for line in order] == ["1", "2", "3", "4", "5"]
    # d log(y)/dy = 1/y = 0.5 at x = 1; dz/dx = (x + 1) / y = 1.
    assert order[0].strip() == "1. LogBackward0: [1] -> [0.5]"
    assert order[-1].strip() == "5. AccumulateGrad: [1] -> into x.grad"
    assert x.grad.tolist() == [1.0]


def test_print_graph_marks_shared_nodes_and_accepts_a_trace():
    a = gg.tensor([1.0, 2.0], requires_grad=True)
    b = a * a
    c = (b + b).sum()
    trace = trace_backward(c, retain_graph=True)
    text = print_graph(c, {"a": a}, show_order=trace, ascii=True, file=io.StringIO())
    assert "MulBackward0 -> (2,) float32  @" in text
    assert text.count("^ shared, see @") == 2  # b again under Add; a again under Mul
    assert "`-- " in text and "└" not in text
    assert "[step" in text


def test_print_graph_rejects_show_order_with_several_roots():
    a = gg.ones(2, requires_grad=True)
    with pytest.raises(TypeError, match="print_graph: show_order=True runs backward from one"):
        print_graph([a.sum(), a.mean()], show_order=True, file=io.StringIO())


def test_print_graph_deep_chain():
    x = gg.ones(1, requires_grad=True)
    y = x
    for _ in range(3000):
        y = y + 1.0
    text = print_graph(y, file=io.StringIO())
    lines = text.splitlines()
    assert len(lines) == 3002
    assert max(len(line) for line in lines) < 250  # indentation stops growing
