"""``Variable._execution_engine.queue_callback``: callbacks run once the backward pass has
finished, as PyTorch's (DDP's reducer waits for its buckets there)."""

from __future__ import annotations

import pytest
import torch

import glassgrad
from glassgrad.autograd import Variable


def _program(lib, engine):
    """Leaves a and b; a hook on a's gradient queues a callback that reads both .grad (so
    it must run after b accumulates too) and queues one more."""
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    b = lib.tensor([3.0], requires_grad=True)
    events = []

    def second():
        events.append(("second", b.grad.tolist()))

    def first():
        events.append(("first", a.grad.tolist(), b.grad.tolist()))
        engine.queue_callback(second)

    def hook(grad):
        events.append("hook")
        engine.queue_callback(first)

    a.register_hook(hook)
    ((a * 2).sum() * b).sum().backward()
    events.append("backward returned")
    return events


def test_callbacks_run_after_every_accumulation_in_order_like_pytorch():
    ours = _program(glassgrad, Variable._execution_engine)
    theirs = _program(torch, torch.autograd.Variable._execution_engine)
    assert ours == theirs
    assert ours[-1] == "backward returned" and ours[1][0] == "first"


def test_queue_callback_outside_backward_raises_like_pytorch():
    with pytest.raises(
        RuntimeError, match="Final callbacks can only be installed during backward pass."
    ):
        Variable._execution_engine.queue_callback(lambda: None)
    with pytest.raises(
        RuntimeError, match="Final callbacks can only be installed during backward pass."
    ):
        torch.autograd.Variable._execution_engine.queue_callback(lambda: None)


def _nested(lib, engine):
    # A backward run inside a hook has its own callbacks; the outer one's run at its own end.
    x = lib.tensor(2.0, requires_grad=True)
    y = lib.tensor(3.0, requires_grad=True)
    events = []

    def hook(grad):
        engine.queue_callback(lambda: events.append("outer"))
        with lib.enable_grad():
            lib.autograd.backward(y * y)  # a fresh graph: a nested backward pass
        events.append("inner returned")
        return grad

    y.register_hook(lambda grad: engine.queue_callback(lambda: events.append("inner")))
    x.register_hook(hook)
    (x * 5).backward()
    return events


def test_callbacks_belong_to_their_own_backward_pass_like_pytorch():
    ours = _nested(glassgrad, Variable._execution_engine)
    assert ours == _nested(torch, torch.autograd.Variable._execution_engine)
    assert ours == ["inner", "inner returned", "outer"]


def test_a_failing_backward_runs_no_callback_and_leaves_no_state():
    x = glassgrad.tensor(1.0, requires_grad=True)
    ran = []

    def hook(grad):
        Variable._execution_engine.queue_callback(lambda: ran.append(1))
        raise ValueError("hook failed")

    x.register_hook(hook)
    with pytest.raises(ValueError, match="hook failed"):
        (x * 2).backward()
    assert ran == []
    with pytest.raises(RuntimeError, match="only be installed during backward"):
        Variable._execution_engine.queue_callback(lambda: None)
