"""Activation checkpointing saves memory: the peak of a deep MLP's step through
``checkpoint_sequential`` is well under the plain step's, and the recomputed activations are
freed as backward goes (no reference cycle waits for the garbage collector)."""

from __future__ import annotations

import gc
import tracemalloc
import weakref

import glassgrad as torch
from glassgrad import nn
from glassgrad.utils.checkpoint import checkpoint_sequential


def _peak(step) -> int:
    gc.collect()
    gc.disable()  # what is freed must be freed by reference counting alone
    try:
        tracemalloc.start()
        before, _ = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        step()
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    finally:
        gc.enable()
    return peak - before


def test_checkpoint_sequential_peak_memory_and_gradients() -> None:
    torch.manual_seed(0)
    layers = []
    for _ in range(16):
        layers += [nn.Linear(256, 256), nn.ReLU()]
    model = nn.Sequential(*layers)
    x = torch.randn(256, 256)

    def plain() -> None:
        model(x).sum().backward()

    def checkpointed() -> None:
        checkpoint_sequential(model, 4, x, use_reentrant=False).sum().backward()

    plain()
    expected = [p.grad.clone() for p in model.parameters()]
    for p in model.parameters():
        p.grad.zero_()
    checkpointed()
    for p, g in zip(model.parameters(), expected, strict=True):
        assert torch.allclose(p.grad, g, rtol=1e-4, atol=1e-6)
    # gradients exist now: the peaks are activations and backward's buffers
    without = _peak(plain)
    with_checkpoint = _peak(checkpointed)
    # 16 layers, 4 segments; the last (4 layers) is not checkpointed, as in PyTorch
    assert with_checkpoint < 0.55 * without, (with_checkpoint, without)


def test_output_saved_under_hooks_does_not_keep_its_node_in_a_cycle() -> None:
    a = torch.randn(4, requires_grad=True)
    gc.disable()
    try:
        with torch.autograd.graph.saved_tensors_hooks(lambda t: t.detach(), lambda t: t):
            y = a.exp()  # saves its result
        node = weakref.ref(y.grad_fn)
        del y
        assert node() is None
        with torch.autograd.graph.save_on_cpu():
            y = a.exp()
        node = weakref.ref(y.grad_fn)
        del y
        assert node() is None
        y = a.exp()
        y.grad_fn._raw_saved_result.register_hooks(lambda t: t, lambda t: t)
        node = weakref.ref(y.grad_fn)
        del y
        assert node() is None
    finally:
        gc.enable()
