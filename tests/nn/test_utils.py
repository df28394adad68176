"""nn.utils against PyTorch: gradient clipping and parameters <-> vector."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

import glassgrad as gg

RNG = np.random.default_rng(4)
SHAPES = [(3, 4), (4,), (2, 2, 2)]


def params_with_grads(lib, grads):
    params = []
    for g in grads:
        p = lib.nn.Parameter(lib.tensor(np.zeros(g.shape)))
        p.grad = lib.tensor(g.copy())
        params.append(p)
    return params


@pytest.mark.parametrize("norm_type", [2.0, 1.0, 3.5, math.inf, "inf", 0.5])
@pytest.mark.parametrize("max_norm", [0.1, 1e3])
def test_clip_grad_norm_matches_torch(norm_type, max_norm):
    grads = [RNG.standard_normal(s) for s in SHAPES]
    theirs = params_with_grads(torch, grads)
    ours = params_with_grads(gg, grads)
    total_theirs = torch.nn.utils.clip_grad_norm_(theirs, max_norm, norm_type)
    total_ours = gg.nn.utils.clip_grad_norm_(ours, max_norm, norm_type)
    np.testing.assert_allclose(total_ours.numpy(), total_theirs.numpy(), rtol=1e-12)
    assert total_ours.dtype == gg.float64
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-12)


def test_clip_grad_norm_single_tensor_and_missing_grads():
    p = gg.nn.Parameter(gg.zeros(2))
    p.grad = gg.tensor([3.0, 4.0])
    total = gg.nn.utils.clip_grad_norm_(p, 1.0)
    assert total.item() == pytest.approx(5.0)
    np.testing.assert_allclose(p.grad.numpy(), [0.6, 0.8], rtol=1e-5)
    none = gg.nn.utils.clip_grad_norm_([gg.nn.Parameter(gg.zeros(2))], 1.0)
    assert none.item() == 0.0
    assert gg.nn.utils.clip_grad_norm_(iter([p]), 10.0).item() == pytest.approx(1.0, rel=1e-6)


def test_clip_grad_norm_nonfinite():
    p = gg.nn.Parameter(gg.zeros(2))
    p.grad = gg.tensor([float("inf"), 1.0])
    with pytest.raises(
        RuntimeError,
        match="The total norm of order 2.0 for gradients from `parameters` is non-finite",
    ):
        gg.nn.utils.clip_grad_norm_([p], 1.0, error_if_nonfinite=True)
    total = gg.nn.utils.clip_grad_norm_([p], 1.0)
    assert math.isinf(total.item())


def test_clip_grad_value_matches_torch():
    grads = [RNG.standard_normal(s) * 3 for s in SHAPES]
    theirs = params_with_grads(torch, grads)
    ours = params_with_grads(gg, grads)
    torch.nn.utils.clip_grad_value_(theirs, 0.7)
    assert gg.nn.utils.clip_grad_value_(ours, 0.7) is None
    for a, b in zip(ours, theirs):
        np.testing.assert_array_equal(a.grad.numpy(), b.grad.numpy())


def test_parameters_to_vector_and_back_match_torch():
    def program(lib):
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.Linear(4, 2)).double()
        for p in model.parameters():
            p.data = lib.tensor(RNG_FIXED[: p.numel()].reshape(tuple(p.shape)).copy())
        vec = lib.nn.utils.parameters_to_vector(model.parameters())
        (vec * lib.arange(vec.numel(), dtype=lib.float64)).sum().backward()
        grads = [p.grad.numpy().copy() for p in model.parameters()]
        new = lib.arange(vec.numel(), dtype=lib.float64) / 10
        lib.nn.utils.vector_to_parameters(new, model.parameters())
        new[0] = 100.0  # the parameters now share the vector's storage
        return vec.detach().numpy(), grads, [p.detach().numpy().copy() for p in model.parameters()]

    theirs, ours = program(torch), program(gg)
    np.testing.assert_array_equal(ours[0], theirs[0])
    for a, b in zip(ours[1] + ours[2], theirs[1] + theirs[2]):
        np.testing.assert_array_equal(a, b)
    with pytest.raises(TypeError, match="expected torch.Tensor, but got: list"):
        gg.nn.utils.vector_to_parameters([1.0], [])


RNG_FIXED = np.random.default_rng(5).standard_normal(64)
