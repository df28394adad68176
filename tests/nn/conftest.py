"""Helpers for the nn tests: run the same layer in glassgrad and in PyTorch, with the same
weights (copied through the state dict) and inputs, and compare outputs and gradients."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import torch

import glassgrad as gg


def to_numpy(value: Any) -> np.ndarray:
    if isinstance(value, torch.Tensor):
        return value.detach().numpy()
    return value.detach().numpy()


def flatten_outputs(value: Any) -> list:
    """Tensors (and Nones) of a nested tuple/list output, in order."""
    if isinstance(value, (tuple, list)):
        return [t for v in value for t in flatten_outputs(v)]
    return [value]


def copy_state(ours: gg.nn.Module, theirs: torch.nn.Module) -> None:
    """Load PyTorch's weights into our module (strict: the keys must be the same)."""
    state = {k: gg.from_numpy(v.detach().numpy().copy()) for k, v in theirs.state_dict().items()}
    result = ours.load_state_dict(state)
    assert not result.missing_keys and not result.unexpected_keys


class NoGrad:
    """An input array that becomes a tensor without ``requires_grad`` (a target)."""

    def __init__(self, array: np.ndarray) -> None:
        self.array = array


def make_inputs(arrays: list, lib: Any) -> list:
    """Tensors for ``lib`` (float arrays require grad; non-arrays pass through)."""
    out = []
    for a in arrays:
        if isinstance(a, NoGrad):
            out.append(lib.tensor(a.array.copy()))
        elif isinstance(a, np.ndarray):
            needs_grad = a.dtype.kind == "f"
            out.append(lib.tensor(a.copy(), requires_grad=needs_grad))
        else:
            out.append(a)
    return out


def assert_close(ours: Any, theirs: Any, rtol: float, atol: float, what: str) -> None:
    if theirs is None:
        assert ours is None, f"{what}: expected None"
        return
    assert ours is not None, f"{what}: got None, PyTorch has a value"
    a, b = to_numpy(ours), to_numpy(theirs)
    assert a.shape == b.shape, f"{what}: shape {a.shape} != {b.shape}"
    assert a.dtype == b.dtype, f"{what}: dtype {a.dtype} != {b.dtype}"
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, err_msg=what)


def check_parity(
    make: Callable[[Any], Any],
    arrays: list,
    *,
    train: bool = True,
    kwargs: dict | None = None,
    rtol: float = 1e-10,
    atol: float = 1e-12,
    calls: int = 1,
) -> tuple:
    """Build ``make(nn)`` in both libraries (float64), give ours PyTorch's weights, run both
    ``calls`` times on the same inputs, then compare outputs, the gradients of every
    parameter and input for a random upstream gradient, and the buffers."""
    kwargs = kwargs or {}
    theirs = make(torch.nn).double().train(train)
    ours = make(gg.nn).double().train(train)
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    copy_state(ours, theirs)
    for _ in range(calls):
        th_inputs = make_inputs(arrays, torch)
        gg_inputs = make_inputs(arrays, gg)
        th_out = flatten_outputs(theirs(*th_inputs, **kwargs))
        gg_out = flatten_outputs(ours(*gg_inputs, **kwargs))
    assert len(th_out) == len(gg_out)
    for i, (a, b) in enumerate(zip(gg_out, th_out)):
        assert_close(a, b, rtol, atol, f"output {i}")
    rng = np.random.default_rng(1234)
    th_loss, gg_loss = 0, 0
    for a, b in zip(gg_out, th_out):
        if b is None or not b.requires_grad:
            continue
        upstream = rng.standard_normal(tuple(b.shape))
        th_loss = th_loss + (b * torch.from_numpy(upstream)).sum()
        gg_loss = gg_loss + (a * gg.from_numpy(upstream)).sum()
    if isinstance(th_loss, torch.Tensor):
        th_loss.backward()
        gg_loss.backward()
        theirs_params = dict(theirs.named_parameters())
        for name, param in ours.named_parameters():
            assert_close(param.grad, theirs_params[name].grad, rtol, atol, f"grad of {name}")
        for i, (a, b) in enumerate(zip(gg_inputs, th_inputs)):
            if isinstance(b, torch.Tensor) and b.requires_grad:
                assert_close(a.grad, b.grad, rtol, atol, f"grad of input {i}")
    theirs_values = dict(theirs.named_parameters())  # in-place updates (Embedding max_norm)
    for name, param in ours.named_parameters():
        assert_close(param, theirs_values[name], rtol, atol, f"parameter {name}")
    theirs_buffers = dict(theirs.named_buffers())
    for name, buf in ours.named_buffers():
        assert_close(buf, theirs_buffers[name], rtol, atol, f"buffer {name}")
    return ours, theirs


def count_nodes(root: Any) -> int:
    """Number of distinct graph nodes reachable from ``root`` (a grad_fn)."""
    seen: set = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        stack.extend(fn for fn, _ in node.next_functions)
    return len(seen)
