"""Run the same optimizer in glassgrad and in PyTorch from the same parameters and the same
gradient sequence, and compare the parameters after every step."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import torch

import glassgrad as gg

# Parameters of a small model: a matrix, a vector, a 0-d scalar.
SHAPES: tuple[tuple[int, ...], ...] = ((6, 5), (5,), ())
# float32: 1e-6 relative to each tensor's largest entry (the op-for-op arithmetic differs
# from PyTorch's only where PyTorch fuses a multiply-add or uses MKL's sqrt); float64 is held
# to a much tighter bound than the brief's 1e-6, so a wrong formula cannot hide in it.
RTOL = {np.float32: 1e-6, np.float64: 1e-12}


def initial_parameters(rng: np.random.Generator, dtype: type) -> list[np.ndarray]:
    return [rng.standard_normal(shape).astype(dtype) for shape in SHAPES]


def gradient_sequence(
    rng: np.random.Generator, dtype: type, steps: int, shapes: Sequence[tuple[int, ...]] = SHAPES
) -> list[list[np.ndarray]]:
    """Gradients of varied scale per step, with exact zeros sprinkled in (they exercise the
    ``eps`` of the adaptive methods)."""
    sequence = []
    for _ in range(steps):
        grads = []
        for shape in shapes:
            g = rng.standard_normal(shape) * 10.0 ** rng.uniform(-2, 1)
            g = np.where(rng.uniform(size=shape) < 0.1, 0.0, g)
            grads.append(np.asarray(g, dtype=dtype))
        sequence.append(grads)
    return sequence


def assert_close(ours: Any, theirs: Any, dtype: type, what: str, scale: float = 0.0) -> None:
    """``ours`` and ``theirs`` agree within ``RTOL[dtype]`` relative to the magnitude of the
    tensor: its largest entry, or ``scale`` if larger (a parameter's largest magnitude along
    its trajectory, so that an entry passing through zero is judged against its own size)."""
    ours = np.asarray(ours.detach().numpy() if hasattr(ours, "detach") else ours)
    theirs = np.asarray(theirs.detach().numpy() if hasattr(theirs, "detach") else theirs)
    assert ours.dtype == theirs.dtype, f"{what}: dtype {ours.dtype} vs {theirs.dtype}"
    scale = max(scale, float(np.max(np.abs(theirs), initial=0.0)))
    rtol = RTOL[dtype]
    np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=rtol * scale, err_msg=what)


def assert_trajectory_close(
    ours: list[np.ndarray], theirs: list[np.ndarray], dtype: type, what: str
) -> None:
    """Two trajectories of one parameter (one array per step, the start first) agree at
    every step within ``RTOL[dtype]``, relative to the parameter's largest magnitude so far
    (so that an entry passing through zero is judged against the parameter's size)."""
    ours_steps, theirs_steps = np.stack(ours), np.stack(theirs)
    assert ours_steps.dtype == theirs_steps.dtype == dtype, what
    flat = np.abs(theirs_steps).reshape(len(theirs), -1)
    scale = np.maximum.accumulate(flat.max(axis=1))
    scale = scale.reshape((-1,) + (1,) * (theirs_steps.ndim - 1))
    rtol = RTOL[dtype]
    bad = np.abs(ours_steps - theirs_steps) > rtol * (np.abs(theirs_steps) + scale)
    bad |= np.isnan(ours_steps) != np.isnan(theirs_steps)
    if bad.any():
        step = int(np.argwhere(bad.reshape(len(ours), -1).any(axis=1))[0, 0])
        assert_close(
            ours[step], theirs[step], dtype, f"{what} after step {step}", scale[step].max()
        )


def run_both(
    make_ours: Callable[[list[gg.Tensor]], Any],
    make_theirs: Callable[[list[torch.Tensor]], Any],
    dtype: type,
    steps: int = 100,
    seed: int = 0,
    set_to_none: bool = True,
) -> tuple[list[gg.Tensor], list[torch.Tensor], Any, Any]:
    """Step both optimizers ``steps`` times on the same gradients; the parameters must agree
    after every step (``assert_trajectory_close``)."""
    rng = np.random.default_rng(seed)
    start = initial_parameters(rng, dtype)
    grads = gradient_sequence(rng, dtype, steps)
    ours = [gg.tensor(p.copy(), requires_grad=True) for p in start]
    theirs = [torch.tensor(p.copy(), requires_grad=True) for p in start]
    ours_opt, theirs_opt = make_ours(ours), make_theirs(theirs)
    ours_path = [[p.copy()] for p in start]
    theirs_path = [[p.copy()] for p in start]
    for step_grads in grads:
        ours_opt.zero_grad(set_to_none=set_to_none)
        theirs_opt.zero_grad(set_to_none=set_to_none)
        for p, q, g in zip(ours, theirs, step_grads):
            if p.grad is None:
                p.grad = gg.tensor(g.copy())
                q.grad = torch.tensor(g.copy())
            else:
                p.grad.copy_(gg.tensor(g.copy()))
                q.grad.copy_(torch.tensor(g.copy()))
        ours_opt.step()
        theirs_opt.step()
        for i, (p, q) in enumerate(zip(ours, theirs)):
            ours_path[i].append(p.detach().numpy().copy())
            theirs_path[i].append(q.detach().numpy().copy())
    for i in range(len(start)):
        assert_trajectory_close(ours_path[i], theirs_path[i], dtype, f"parameter {i}")
    return ours, theirs, ours_opt, theirs_opt


def to_numpy_tree(value: Any) -> Any:
    """A state dict with every tensor (either library) replaced by a NumPy array."""
    if isinstance(value, (gg.Tensor, torch.Tensor)):
        return value.detach().numpy()
    if isinstance(value, dict):
        return {k: to_numpy_tree(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(to_numpy_tree(v) for v in value)
    return value


def assert_same_tree(ours: Any, theirs: Any, dtype: type, path: str = "state_dict") -> None:
    """Same nested structure and keys; arrays close (dtype checked), other values equal."""
    if isinstance(theirs, np.ndarray):
        assert isinstance(ours, np.ndarray), f"{path}: {type(ours).__name__} is not an array"
        assert ours.shape == theirs.shape, f"{path}: shape {ours.shape} vs {theirs.shape}"
        assert_close(ours, theirs, dtype, path)
    elif isinstance(theirs, dict):
        assert isinstance(ours, dict), path
        assert list(ours) == list(theirs), f"{path}: keys {list(ours)} vs {list(theirs)}"
        for key in theirs:
            assert_same_tree(ours[key], theirs[key], dtype, f"{path}[{key!r}]")
    elif isinstance(theirs, (list, tuple)):
        assert type(ours) is type(theirs) and len(ours) == len(theirs), path
        for i, (a, b) in enumerate(zip(ours, theirs)):
            assert_same_tree(a, b, dtype, f"{path}[{i}]")
    else:
        assert ours == theirs, f"{path}: {ours!r} vs {theirs!r}"
